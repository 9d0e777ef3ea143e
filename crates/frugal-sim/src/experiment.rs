//! Comparisons of several policies on the same workloads and cluster.

use frugal_core::DurationModel;
use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::Cluster;
use frugal_core::job::Job;
use frugal_core::policy::{PlacementPolicy, PolicyKind, PolicyParams};
use frugal_core::queue::QueueDiscipline;
use frugal_core::scheduler::SchedulerConfig;

use crate::engine::SimConfig;
use serde::Serialize;

use crate::metrics::{RunResult, Summary};
use crate::stats::Estimate;

/// Everything but the policy and the workload: the fixed conditions of a comparison.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The cluster (all off).
    pub cluster: Cluster,
    /// Billing granularity.
    pub billing: BillingGranularity,
    /// Queue discipline for every policy; `None`: each policy's published one.
    pub queue: Option<QueueDiscipline>,
    /// Policies behind another queue than `queue` or their published one.
    pub policy_queues: Vec<frugal_core::PolicyQueue>,
    /// Deadline admission control (paper 000 Eq. 15).
    pub admission_control: bool,
    /// Policy parameters (RUT for BFD and the RD order, MILP backend and time limit).
    pub policy: PolicyParams,
    /// Add each decision's wall-clock time to simulated time before the job starts.
    pub charge_decision_time: bool,
    /// Backfilling behind a blocked head job.
    pub backfill: frugal_core::Backfill,
    /// Completion-time model.
    pub duration: DurationModel,
    /// VM boot latency, seconds.
    pub boot_latency_s: f64,
    /// How long an idle VM stays on before it is turned off.
    pub keep_alive: frugal_core::KeepAlive,
    /// Cap on the fleet's price, dollars per hour (None: none).
    pub budget_per_hour: Option<f64>,
    /// VM losses and refused power-ons every run suffers.
    pub vm_events: Vec<crate::engine::VmEvent>,
}

impl Setup {
    /// `cluster` under the papers' conditions: per-second billing, each policy behind its
    /// published queue, no admission control, the papers' policy parameters, decisions
    /// taking no simulated time, no backfilling, the papers' duration model (no
    /// contention), no boot latency, the default keep-alive, no budget and no VM events.
    /// Faces set what they change on the value.
    pub fn of(cluster: Cluster) -> Setup {
        Setup {
            cluster,
            billing: BillingGranularity::PerSecond,
            queue: None,
            policy_queues: Vec::new(),
            admission_control: false,
            policy: PolicyParams::default(),
            charge_decision_time: false,
            backfill: frugal_core::Backfill::None,
            duration: DurationModel::default(),
            boot_latency_s: 0.0,
            keep_alive: frugal_core::KeepAlive::default(),
            budget_per_hour: None,
            vm_events: Vec::new(),
        }
    }

    /// Simulates `jobs` with a fresh instance of the built-in `policy`.
    pub fn run(&self, policy: PolicyKind, jobs: &[Job]) -> RunResult {
        self.run_with(policy.build(&self.policy), jobs)
    }

    /// Simulates `jobs` with `policy` (e.g. a trained agent).
    pub fn run_with(&self, policy: Box<dyn PlacementPolicy>, jobs: &[Job]) -> RunResult {
        let inputs = crate::engine::Inputs {
            vm_events: self.vm_events.clone(),
            ..Default::default()
        };
        self.replay(policy, jobs, &inputs)
    }

    /// Simulates `jobs` with `policy` and a replay's `inputs` (measured run times,
    /// cancellations, VM events — these replace [`Setup::vm_events`]).
    pub fn replay(
        &self,
        policy: Box<dyn PlacementPolicy>,
        jobs: &[Job],
        inputs: &crate::engine::Inputs,
    ) -> RunResult {
        let cfg = self.sim_config(policy.as_ref());
        crate::engine::simulate_with(&self.cluster, jobs, policy, cfg, inputs)
    }

    /// The run configuration of `policy` under this setup: its queue discipline (the
    /// policy's entry in `policy_queues`, else the setup's, else the policy's published
    /// one: [`frugal_core::PolicyQueue::resolve`]) and the setup's every other setting.
    pub fn sim_config(&self, policy: &dyn PlacementPolicy) -> SimConfig {
        let discipline = frugal_core::PolicyQueue::resolve(&self.policy_queues, self.queue, policy);
        SimConfig {
            scheduler: SchedulerConfig {
                discipline,
                admission_control: self.admission_control,
                rut: self.policy.rut,
                charge_decision_time: self.charge_decision_time,
                backfill: self.backfill,
                duration: self.duration,
                boot_latency_s: self.boot_latency_s,
            },
            billing: self.billing,
            keep_alive: self.keep_alive,
            budget_per_hour: self.budget_per_hour,
        }
    }
}

/// One run as one tidy row (`results.csv`): what ran, its seed and its metrics, with
/// units in the column names. Wall-clock decision times are present only when asked
/// for (`timings`): they are the one non-deterministic measurement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunRow {
    /// Workload label.
    pub workload: String,
    /// Policy name.
    pub policy: String,
    /// Queue discipline.
    pub queue: String,
    /// Repetition index, from 0.
    pub repetition: u64,
    /// Seed of this repetition's workload.
    pub seed: u64,
    /// Jobs in the workload.
    pub jobs: usize,
    /// Jobs that ran to completion.
    pub completed: usize,
    /// Jobs dropped by admission control.
    pub dropped: usize,
    /// Jobs never scheduled.
    pub never_scheduled: usize,
    /// VM bill, dollars.
    pub cost_usd: f64,
    /// Bill of the local site, dollars.
    pub cost_local_usd: f64,
    /// Bill of the cloud site, dollars.
    pub cost_cloud_usd: f64,
    /// Jobs with a deadline.
    pub deadline_jobs: usize,
    /// Share of deadline jobs that met it, percent; empty without deadline jobs.
    pub deadline_met_pct: Option<f64>,
    /// Mean job completion time, seconds; empty if no job completed.
    pub mean_jct_s: Option<f64>,
    /// 95th-percentile JCT, seconds; empty if no job completed.
    pub p95_jct_s: Option<f64>,
    /// Mean wait (start − arrival) of started jobs, seconds.
    pub mean_wait_s: Option<f64>,
    /// Mean run time (finish − start) of completed jobs, seconds (paper 002 Eq. 5).
    pub mean_run_s: Option<f64>,
    /// Share of started jobs placed as their kind prefers, percent (paper 002 Fig. 8).
    pub good_placement_pct: f64,
    /// Last finish − first arrival, seconds.
    pub makespan_s: f64,
    /// Time-averaged reserved share of powered-on cores, percent.
    pub cpu_utilisation_pct: f64,
    /// Time-averaged reserved share of powered-on memory, percent.
    pub memory_utilisation_pct: f64,
    /// VM on-time, hours.
    pub vm_hours: f64,
    /// Policy calls.
    pub decisions: usize,
    /// A proven lower bound on the bill of any schedule of the run's jobs, dollars (the
    /// `offline` policy's row only; see `frugal_sim::offline`).
    pub cost_lower_bound_usd: Option<f64>,
    /// Mean wall-clock decision time, µs (with timings only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_mean_us: Option<f64>,
    /// 99th-percentile decision time, µs (with timings only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_p99_us: Option<f64>,
    /// Longest decision, µs (with timings only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_max_us: Option<f64>,
}

impl RunRow {
    /// The row of run `repetition` (seed `seed`) of `workload`.
    pub fn new(workload: &str, repetition: u64, seed: u64, s: &Summary, timings: bool) -> Self {
        let some = |v: f64| (s.completed > 0).then_some(v);
        let timing = |v: f64| timings.then_some(v);
        RunRow {
            workload: workload.to_string(),
            policy: s.policy.clone(),
            queue: s.queue.clone(),
            repetition,
            seed,
            jobs: s.jobs,
            completed: s.completed,
            dropped: s.dropped,
            never_scheduled: s.never_scheduled,
            cost_usd: s.total_cost,
            cost_local_usd: s.cost_local,
            cost_cloud_usd: s.cost_cloud,
            deadline_jobs: s.deadline_jobs,
            deadline_met_pct: s.deadline_met_pct,
            mean_jct_s: some(s.mean_jct_s),
            p95_jct_s: some(s.p95_jct_s),
            mean_wait_s: some(s.mean_wait_s),
            mean_run_s: some(s.mean_run_s),
            good_placement_pct: s.good_placement_pct,
            makespan_s: s.makespan_s,
            cpu_utilisation_pct: 100.0 * s.cpu_utilisation,
            memory_utilisation_pct: 100.0 * s.memory_utilisation,
            vm_hours: s.vm_hours,
            decisions: s.decisions,
            cost_lower_bound_usd: s.cost_lower_bound,
            decision_mean_us: timing(s.decision_mean_us),
            decision_p99_us: timing(s.decision_p99_us),
            decision_max_us: timing(s.decision_max_us),
        }
    }
}

/// One policy on one workload over its repetitions: means, with the half-width of the
/// 95 % Student-t confidence interval (`*_ci95`, empty for one repetition) for cost, JCT
/// and deadlines met; the cost relative to a baseline policy's mean cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AggregateRow {
    /// Workload label.
    pub workload: String,
    /// Policy name.
    pub policy: String,
    /// Queue discipline.
    pub queue: String,
    /// Repetitions averaged.
    pub repetitions: usize,
    /// Jobs in the workload.
    pub jobs: usize,
    /// Mean jobs completed.
    #[serde(serialize_with = "count_mean")]
    pub completed: f64,
    /// Mean jobs dropped by admission control.
    #[serde(serialize_with = "count_mean")]
    pub dropped: f64,
    /// Mean jobs never scheduled.
    #[serde(serialize_with = "count_mean")]
    pub never_scheduled: f64,
    /// Mean VM bill, dollars.
    pub cost_usd: f64,
    /// 95 % CI half-width of the bill, dollars.
    pub cost_usd_ci95: Option<f64>,
    /// The policy `vs_baseline_pct` compares with.
    pub baseline: String,
    /// Mean bill relative to the baseline's, percent (+ is dearer); empty if the
    /// baseline's bill is 0.
    pub vs_baseline_pct: Option<f64>,
    /// Mean bill of the local site, dollars.
    pub cost_local_usd: f64,
    /// Mean bill of the cloud site, dollars.
    pub cost_cloud_usd: f64,
    /// Jobs with a deadline (mean).
    #[serde(serialize_with = "count_mean")]
    pub deadline_jobs: f64,
    /// Mean share of deadline jobs that met it, percent; empty without deadline jobs.
    pub deadline_met_pct: Option<f64>,
    /// 95 % CI half-width of `deadline_met_pct`.
    pub deadline_met_pct_ci95: Option<f64>,
    /// Mean JCT, seconds.
    pub mean_jct_s: Option<f64>,
    /// 95 % CI half-width of the mean JCT, seconds.
    pub mean_jct_s_ci95: Option<f64>,
    /// Mean 95th-percentile JCT, seconds.
    pub p95_jct_s: Option<f64>,
    /// Mean wait, seconds.
    pub mean_wait_s: Option<f64>,
    /// Mean makespan, seconds.
    pub makespan_s: f64,
    /// Mean reserved share of powered-on cores, percent.
    pub cpu_utilisation_pct: f64,
    /// Mean reserved share of powered-on memory, percent.
    pub memory_utilisation_pct: f64,
    /// Mean VM on-time, hours.
    pub vm_hours: f64,
    /// Mean policy calls.
    #[serde(serialize_with = "count_mean")]
    pub decisions: f64,
    /// Mean wall-clock decision time, µs (with timings only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_mean_us: Option<f64>,
    /// Mean 99th-percentile decision time, µs (with timings only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_p99_us: Option<f64>,
    /// Longest decision over the repetitions, µs (with timings only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_max_us: Option<f64>,
}

/// A count's mean over repetitions, written as an integer when it is one (every
/// repetition counted the same, always so for one repetition) and as a fraction otherwise,
/// so that a table's count columns read as integers wherever they can.
fn count_mean<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.fract() == 0.0 && v.abs() < 2f64.powi(53) {
        s.serialize_i64(*v as i64)
    } else {
        s.serialize_f64(*v)
    }
}

impl AggregateRow {
    /// Aggregates the runs of one policy on one workload (`runs` non-empty, same
    /// workload and policy); `baseline` names the policy compared with and
    /// `baseline_cost_usd` is its mean bill.
    pub fn new(runs: &[RunRow], baseline: &str, baseline_cost_usd: f64) -> AggregateRow {
        let first = &runs[0];
        let all = |f: fn(&RunRow) -> f64| -> Estimate {
            let v: Vec<f64> = runs.iter().map(f).collect();
            Estimate::of(&v).expect("at least one run")
        };
        let some = |f: fn(&RunRow) -> Option<f64>| -> Option<Estimate> {
            let v: Vec<f64> = runs.iter().filter_map(f).collect();
            Estimate::of(&v)
        };
        let cost = all(|r| r.cost_usd);
        let met = some(|r| r.deadline_met_pct);
        let jct = some(|r| r.mean_jct_s);
        AggregateRow {
            workload: first.workload.clone(),
            policy: first.policy.clone(),
            queue: first.queue.clone(),
            repetitions: runs.len(),
            jobs: first.jobs,
            completed: all(|r| r.completed as f64).mean,
            dropped: all(|r| r.dropped as f64).mean,
            never_scheduled: all(|r| r.never_scheduled as f64).mean,
            cost_usd: cost.mean,
            cost_usd_ci95: cost.ci95,
            baseline: baseline.to_string(),
            vs_baseline_pct: (baseline_cost_usd > 0.0)
                .then(|| 100.0 * (cost.mean / baseline_cost_usd - 1.0)),
            cost_local_usd: all(|r| r.cost_local_usd).mean,
            cost_cloud_usd: all(|r| r.cost_cloud_usd).mean,
            deadline_jobs: all(|r| r.deadline_jobs as f64).mean,
            deadline_met_pct: met.map(|e| e.mean),
            deadline_met_pct_ci95: met.and_then(|e| e.ci95),
            mean_jct_s: jct.map(|e| e.mean),
            mean_jct_s_ci95: jct.and_then(|e| e.ci95),
            p95_jct_s: some(|r| r.p95_jct_s).map(|e| e.mean),
            mean_wait_s: some(|r| r.mean_wait_s).map(|e| e.mean),
            makespan_s: all(|r| r.makespan_s).mean,
            cpu_utilisation_pct: all(|r| r.cpu_utilisation_pct).mean,
            memory_utilisation_pct: all(|r| r.memory_utilisation_pct).mean,
            vm_hours: all(|r| r.vm_hours).mean,
            decisions: all(|r| r.decisions as f64).mean,
            decision_mean_us: some(|r| r.decision_mean_us).map(|e| e.mean),
            decision_p99_us: some(|r| r.decision_p99_us).map(|e| e.mean),
            decision_max_us: runs
                .iter()
                .filter_map(|r| r.decision_max_us)
                .reduce(f64::max),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    #[derive(Serialize)]
    struct Count(#[serde(serialize_with = "super::count_mean")] f64);

    #[test]
    fn a_count_mean_is_an_integer_where_it_is_one() {
        let text = |v| serde_json::to_string(&Count(v)).unwrap();
        assert_eq!(text(10.0), "10");
        assert_eq!(text(0.0), "0");
        // Two repetitions that completed 9 and 10 jobs.
        assert_eq!(text(9.5), "9.5");
    }
}
