//! Per-job and per-VM records of a run and the summary metrics computed from them.

use frugal_core::spec::Choice;
use serde::Serialize;

use frugal_core::cluster::{Site, VmId};
use frugal_core::job::{Job, JobKind};
use frugal_core::lifecycle::{DeadlineCount, DeadlineOutcome, JobState, deadline_outcome};
use frugal_core::resources::{CPU, MEMORY};

use crate::engine::SimConfig;

/// What happened to one job. Times in seconds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobResult {
    /// Job id.
    pub id: String,
    /// Application class.
    pub kind: JobKind,
    /// Executors E.
    pub executors: u32,
    /// T_C^L as the input gave it, seconds (the run time on one site, before any penalty).
    pub t_local: f64,
    /// Arrival time.
    pub arrival: f64,
    /// Absolute deadline, if any.
    pub deadline: Option<f64>,
    /// Start time, if started.
    pub start: Option<f64>,
    /// Finish time, if started.
    pub finish: Option<f64>,
    /// Final state (`queued`: never scheduled).
    pub status: JobState,
    /// True if it ran at T_C^H.
    pub hybrid: bool,
    /// True if its placement ignored its kind's spread/consolidate preference.
    pub kind_mismatch: bool,
    /// `(vm, executors)` pairs.
    pub placement: Vec<(VmId, u32)>,
}

impl JobResult {
    /// The record of a job that has not started.
    pub fn waiting(job: &Job) -> JobResult {
        JobResult {
            id: job.id.clone(),
            kind: job.kind,
            executors: job.executors,
            t_local: job.t_local,
            arrival: job.arrival,
            deadline: job.deadline,
            start: None,
            finish: None,
            status: JobState::Queued,
            hybrid: false,
            kind_mismatch: false,
            placement: Vec::new(),
        }
    }

    /// Job completion time (finish − arrival), if completed.
    pub fn jct(&self) -> Option<f64> {
        (self.status == JobState::Completed).then(|| self.finish.unwrap_or(0.0) - self.arrival)
    }

    /// Its deadline outcome at the end of the run (`frugal_core::lifecycle`'s rule).
    pub fn deadline_outcome(&self) -> Option<DeadlineOutcome> {
        deadline_outcome(self.deadline, self.status, self.finish, f64::INFINITY)
    }

    /// True if it has a deadline and completed by it.
    pub fn met_deadline(&self) -> bool {
        self.deadline_outcome() == Some(DeadlineOutcome::Met)
    }
}

/// One VM's billing record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VmRecord {
    /// VM id.
    pub id: VmId,
    /// Instance type name.
    pub instance_type: String,
    /// Site.
    pub site: Site,
    /// Dollars per second of on-time.
    pub price_per_second: f64,
    /// Power-on intervals `(on, off)` in seconds.
    pub intervals: Vec<(f64, f64)>,
}

impl VmRecord {
    /// Total on-time in seconds.
    pub fn on_time(&self) -> f64 {
        self.intervals.iter().fold(0.0, |t, (a, b)| t + (b - a))
    }

    /// Its bill in dollars under `billing`: [`frugal_core::fleet::billed_at`] over its
    /// whole record (intervals that meet at one instant are one).
    pub fn cost(&self, billing: frugal_core::BillingGranularity) -> f64 {
        frugal_core::fleet::billed_at(
            billing,
            &self.intervals,
            self.price_per_second,
            f64::INFINITY,
        )
    }
}

/// Summary metrics of one run (the columns of the comparison table).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Policy name.
    pub policy: String,
    /// Queue discipline name.
    pub queue: String,
    /// Jobs in the workload.
    pub jobs: usize,
    /// Jobs that ran to completion.
    pub completed: usize,
    /// Jobs dropped by admission control.
    pub dropped: usize,
    /// Jobs never scheduled (still queued at the end, or unplaceable).
    pub never_scheduled: usize,
    /// Total VM cost in dollars (paper 004 Eq. 11).
    pub total_cost: f64,
    /// Cost of local VMs, dollars.
    pub cost_local: f64,
    /// Cost of cloud VMs, dollars.
    pub cost_cloud: f64,
    /// Jobs with a deadline (cancelled ones left out).
    pub deadline_jobs: usize,
    /// Percentage of deadline jobs that completed by their deadline
    /// (`frugal_core::lifecycle`: dropped, failed and never scheduled jobs count as
    /// missed); `None` when no job has a deadline.
    pub deadline_met_pct: Option<f64>,
    /// Mean job completion time (finish − arrival) of completed jobs, seconds.
    pub mean_jct_s: f64,
    /// 95th percentile JCT (nearest rank), seconds.
    pub p95_jct_s: f64,
    /// Mean waiting time (start − arrival) of started jobs, seconds.
    pub mean_wait_s: f64,
    /// Mean run time (finish − start) of completed jobs, seconds: paper 002's average job
    /// duration Avg_T (Eq. 5), which leaves waiting out.
    pub mean_run_s: f64,
    /// Share of started jobs placed as their kind prefers (no kind penalty), percent:
    /// paper 002's good placements (Fig. 8).
    pub good_placement_pct: f64,
    /// A proven lower bound on the bill of any schedule of these jobs, dollars; set by the
    /// offline search ([`crate::offline::search`]), `None` otherwise.
    pub cost_lower_bound: Option<f64>,
    /// Last finish − first arrival, seconds.
    pub makespan_s: f64,
    /// Time-averaged share of powered-on CPU cores reserved by executors, [0, 1].
    pub cpu_utilisation: f64,
    /// Time-averaged share of powered-on memory reserved by executors, [0, 1].
    pub memory_utilisation: f64,
    /// Total VM on-time, hours.
    pub vm_hours: f64,
    /// Policy calls.
    pub decisions: usize,
    /// Mean wall-clock time of a policy call, µs (not deterministic).
    pub decision_mean_us: f64,
    /// 99th percentile wall-clock time of a policy call, µs (not deterministic).
    pub decision_p99_us: f64,
    /// Longest policy call, µs (not deterministic).
    pub decision_max_us: f64,
}

/// Everything a run produced.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Summary metrics.
    pub summary: Summary,
    /// Per-job records, in workload order.
    pub jobs: Vec<JobResult>,
    /// Per-VM records, in id order.
    pub vms: Vec<VmRecord>,
    /// Billing granularity used.
    pub billing: frugal_core::BillingGranularity,
}

/// Nearest-rank percentile `q` ∈ (0, 1] of `v` (sorted in place); 0 for an empty slice.
pub fn percentile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_unstable_by(f64::total_cmp);
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

impl RunResult {
    /// Computes the summary from the records. `utilisation` is `[cpu, memory]`;
    /// `decision_seconds` the wall-clock time of each policy call.
    pub fn new(
        policy: &str,
        cfg: SimConfig,
        mut jobs: Vec<JobResult>,
        vms: Vec<VmRecord>,
        utilisation: [f64; 2],
        mut decision_seconds: Vec<f64>,
    ) -> RunResult {
        for r in &mut jobs {
            if r.status == JobState::Running {
                r.status = JobState::Completed;
            }
        }
        let billing = cfg.billing;
        let cost_at = |site: Site| -> f64 {
            vms.iter()
                .filter(|v| v.site == site)
                .map(|v| v.cost(billing))
                .fold(0.0, |a, c| a + c)
        };
        let (cost_local, cost_cloud) = (cost_at(Site::Local), cost_at(Site::Cloud));
        let count = |s: JobState| jobs.iter().filter(|r| r.status == s).count();
        let mut deadlines = DeadlineCount::default();
        for r in &jobs {
            deadlines.add(r.deadline_outcome());
        }
        let mut jct: Vec<f64> = jobs.iter().filter_map(JobResult::jct).collect();
        let waits: Vec<f64> = jobs
            .iter()
            .filter_map(|r| r.start.map(|s| s - r.arrival))
            .collect();
        let runs: Vec<f64> = jobs
            .iter()
            .filter(|r| r.status == JobState::Completed)
            .filter_map(|r| Some(r.finish? - r.start?))
            .collect();
        let started = jobs.iter().filter(|r| r.start.is_some()).count();
        let good = jobs
            .iter()
            .filter(|r| r.start.is_some() && !r.kind_mismatch)
            .count();
        let first_arrival = jobs.iter().map(|r| r.arrival).fold(f64::INFINITY, f64::min);
        let last_finish = jobs
            .iter()
            .filter_map(|r| r.finish)
            .fold(f64::NEG_INFINITY, f64::max);
        let summary = Summary {
            policy: policy.to_string(),
            queue: cfg.scheduler.discipline.name().to_string(),
            jobs: jobs.len(),
            completed: count(JobState::Completed),
            dropped: count(JobState::Dropped),
            never_scheduled: count(JobState::Queued) + count(JobState::Unschedulable),
            total_cost: cost_local + cost_cloud,
            cost_local,
            cost_cloud,
            deadline_jobs: deadlines.jobs(),
            deadline_met_pct: deadlines.met_pct(),
            mean_jct_s: mean(&jct),
            p95_jct_s: percentile(&mut jct, 0.95),
            mean_wait_s: mean(&waits),
            mean_run_s: mean(&runs),
            good_placement_pct: if started == 0 {
                0.0
            } else {
                100.0 * good as f64 / started as f64
            },
            cost_lower_bound: None,
            makespan_s: if last_finish > first_arrival {
                last_finish - first_arrival
            } else {
                0.0
            },
            cpu_utilisation: utilisation[CPU],
            memory_utilisation: utilisation[MEMORY],
            vm_hours: vms.iter().map(VmRecord::on_time).sum::<f64>() / 3600.0,
            decisions: decision_seconds.len(),
            decision_mean_us: mean(&decision_seconds) * 1e6,
            decision_p99_us: percentile(&mut decision_seconds, 0.99) * 1e6,
            decision_max_us: decision_seconds.last().copied().unwrap_or(0.0) * 1e6,
        };
        RunResult {
            summary,
            jobs,
            vms,
            billing,
        }
    }

    /// Cumulative cost in dollars over time: `(seconds, dollars)` at every time the
    /// accrual changes, from 0 to the last VM turn-off. Per-second billing accrues
    /// continuously; per-hour billing charges each started hour at its start.
    pub fn cumulative_cost(&self) -> Vec<(f64, f64)> {
        // (time, rate change $/s, lump charge $)
        let mut changes: Vec<(f64, f64, f64)> = Vec::new();
        for v in &self.vms {
            for &(a, b) in &v.intervals {
                match self.billing {
                    frugal_core::BillingGranularity::PerSecond => {
                        changes.push((a, v.price_per_second, 0.0));
                        changes.push((b, -v.price_per_second, 0.0));
                    }
                    frugal_core::BillingGranularity::PerHour => {
                        let hours = self.billing.billed_seconds(b - a) / 3600.0;
                        for h in 0..hours as u64 {
                            changes.push((a + 3600.0 * h as f64, 0.0, 3600.0 * v.price_per_second));
                        }
                    }
                }
            }
        }
        changes.sort_by(|x, y| x.0.total_cmp(&y.0));
        let (mut t, mut rate, mut total) = (0.0, 0.0, 0.0);
        let mut out = vec![(0.0, 0.0)];
        for (at, d_rate, lump) in changes {
            total += rate * (at - t);
            rate += d_rate;
            total += lump;
            t = at;
            match out.last_mut() {
                Some(last) if last.0 == at => last.1 = total,
                _ => out.push((at, total)),
            }
        }
        out
    }
}
