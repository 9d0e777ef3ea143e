//! Prometheus metrics, refreshed at each scrape.

use prometheus::{
    CounterVec, Encoder, Gauge, GaugeVec, Histogram, HistogramOpts, IntCounter, IntCounterVec,
    IntGauge, IntGaugeVec, Opts, Registry, TextEncoder,
};

use frugal_core::DecisionCost;

use frugal_core::cluster::Site;

use crate::state::{JobState, State};

/// The service's metrics.
pub(crate) struct Metrics {
    registry: Registry,
    jobs: IntGaugeVec,
    queue: IntGauge,
    cost: GaugeVec,
    decisions: IntCounter,
    latency: Histogram,
    deadline: IntGaugeVec,
    time: Gauge,
    spot_fallbacks: IntCounter,
    decision_cost: CounterVec,
    gap: Histogram,
    budget: Gauge,
    fleet_price: Gauge,
    spend: Gauge,
    /// Submissions by outcome (`accepted`, `duplicate`, `invalid`, `conflict`,
    /// `overloaded`, `unavailable`, `unauthorized`).
    pub(crate) submissions: IntCounterVec,
}

impl Metrics {
    pub(crate) fn new() -> Metrics {
        let registry = Registry::new();
        let jobs = IntGaugeVec::new(
            Opts::new(
                "frugal_jobs",
                "Accepted jobs by state, evicted from memory or not (what /jobs lists)",
            ),
            &["state"],
        )
        .expect("valid");
        let queue =
            IntGauge::new("frugal_queue_length", "Jobs waiting in the queue").expect("valid");
        let cost = GaugeVec::new(
            Opts::new("frugal_cost_dollars", "VM cost accrued, by site"),
            &["site"],
        )
        .expect("valid");
        let decisions =
            IntCounter::new("frugal_decisions_total", "Placement decisions made").expect("valid");
        let latency = Histogram::with_opts(
            HistogramOpts::new(
                "frugal_decision_latency_seconds",
                "Wall-clock time of one placement decision",
            )
            .buckets(prometheus::exponential_buckets(1e-7, 4.0, 12).expect("valid")),
        )
        .expect("valid");
        let deadline = IntGaugeVec::new(
            Opts::new(
                "frugal_deadlines",
                "Accepted deadline jobs by outcome: met, missed, pending (frugal_core::lifecycle)",
            ),
            &["outcome"],
        )
        .expect("valid");
        let time = Gauge::new("frugal_service_time_seconds", "Service clock").expect("valid");
        let spot_fallbacks = IntCounter::new(
            "frugal_spot_fallbacks_total",
            "Spot launches refused for capacity or price, their VM's executors placed elsewhere",
        )
        .expect("valid");
        let submissions = IntCounterVec::new(
            Opts::new("frugal_submissions_total", "Job submissions by outcome"),
            &["outcome"],
        )
        .expect("valid");
        let decision_cost = CounterVec::new(
            Opts::new(
                "frugal_decision_cost_dollars_total",
                "Cost of the placements made (kind=chosen) and of the exact optimum at the same \
                 instants (kind=optimal), paper 000 Eq. 16, since the database began",
            ),
            &["kind"],
        )
        .expect("valid");
        let gap = Histogram::with_opts(
            HistogramOpts::new(
                "frugal_decision_cost_gap_dollars",
                "Per placement: its cost minus the optimum's (0: optimal), dollars",
            )
            .buckets(vec![0.0, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0]),
        )
        .expect("valid");
        let budget = Gauge::new(
            "frugal_budget_dollars_per_hour",
            "Cap on the fleet's price (absent: none)",
        )
        .expect("valid");
        let fleet_price = Gauge::new(
            "frugal_fleet_price_dollars_per_hour",
            "Summed price of the VMs that are on now",
        )
        .expect("valid");
        let spend = Gauge::new(
            "frugal_spend_dollars",
            "VM cost accrued since the database began (all sites)",
        )
        .expect("valid");
        for c in [
            Box::new(jobs.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(queue.clone()),
            Box::new(cost.clone()),
            Box::new(decisions.clone()),
            Box::new(latency.clone()),
            Box::new(deadline.clone()),
            Box::new(time.clone()),
            Box::new(spot_fallbacks.clone()),
            Box::new(submissions.clone()),
            Box::new(decision_cost.clone()),
            Box::new(gap.clone()),
            Box::new(fleet_price.clone()),
            Box::new(spend.clone()),
        ] {
            registry.register(c).expect("unique metric names");
        }
        Metrics {
            registry,
            jobs,
            queue,
            cost,
            decisions,
            latency,
            deadline,
            time,
            spot_fallbacks,
            decision_cost,
            gap,
            budget,
            fleet_price,
            spend,
            submissions,
        }
    }

    /// Records the decisions' costs in the gap histogram.
    pub(crate) fn observe_costs(&self, costs: &[DecisionCost]) {
        for c in costs {
            self.gap.observe((c.chosen - c.optimal).max(0.0));
        }
    }

    /// Shows the budget gauge from now on (a service without a budget has none).
    pub(crate) fn with_budget(self, budget_per_hour: Option<f64>) -> Metrics {
        if let Some(b) = budget_per_hour {
            self.budget.set(b);
            self.registry
                .register(Box::new(self.budget.clone()))
                .expect("unique metric names");
        }
        self
    }

    /// Records decision times (seconds) in the latency histogram.
    pub(crate) fn observe_decisions(&self, seconds: &[f64]) {
        self.decisions.inc_by(seconds.len() as u64);
        for &t in seconds {
            self.latency.observe(t);
        }
    }

    /// Counts a submission's outcome.
    pub(crate) fn submission(&self, outcome: &str) {
        self.submissions.with_label_values(&[outcome]).inc();
    }

    /// The text exposition, after refreshing the gauges from `st` at `now`.
    pub(crate) fn render(&self, st: &State, now: f64) -> Result<Vec<u8>, prometheus::Error> {
        let tally = st.tally(now);
        for s in JobState::ALL {
            self.jobs
                .with_label_values(&[s.as_str()])
                .set(tally.of(s) as i64);
        }
        self.queue.set(st.queued() as i64);
        for site in [Site::Local, Site::Cloud] {
            self.cost
                .with_label_values(&[site.as_str()])
                .set(st.site_cost(site, now));
        }
        let d = tally.deadlines;
        self.deadline.with_label_values(&["met"]).set(d.met as i64);
        self.deadline
            .with_label_values(&["missed"])
            .set(d.missed as i64);
        self.deadline
            .with_label_values(&["pending"])
            .set(d.pending as i64);
        self.time.set(now);
        let (chosen, optimal) = st.ledger.totals();
        for (kind, total) in [("chosen", chosen), ("optimal", optimal)] {
            let c = self.decision_cost.with_label_values(&[kind]);
            c.inc_by((total - c.get()).max(0.0));
        }
        self.fleet_price.set(st.fleet_price_per_hour());
        self.spend.set(st.spend(now));
        let fallbacks = crate::provision::SPOT_FALLBACKS.load(std::sync::atomic::Ordering::Relaxed);
        self.spot_fallbacks
            .inc_by(fallbacks.saturating_sub(self.spot_fallbacks.get()));
        let mut buf = Vec::new();
        TextEncoder::new().encode(&self.registry.gather(), &mut buf)?;
        Ok(buf)
    }
}
