//! Comparisons of several policies on the same workloads and cluster.

use frugal_core::DurationModel;
use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::Cluster;
use frugal_core::job::Job;
use frugal_core::policy::{PlacementPolicy, PolicyKind, PolicyParams};
use frugal_core::queue::QueueDiscipline;
use frugal_core::scheduler::SchedulerConfig;

use crate::engine::{SimConfig, simulate};
use crate::metrics::{RunResult, Summary};

/// Everything but the policy and the workload: the fixed conditions of a comparison.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The cluster (all off).
    pub cluster: Cluster,
    /// Billing granularity.
    pub billing: BillingGranularity,
    /// Queue discipline for every policy; `None`: each policy's published one.
    pub queue: Option<QueueDiscipline>,
    /// Deadline admission control (paper 000 Eq. 15).
    pub admission_control: bool,
    /// Policy parameters (RUT for BFD and the RD order, MILP backend and time limit).
    pub policy: PolicyParams,
    /// Add each decision's wall-clock time to simulated time before the job starts.
    pub charge_decision_time: bool,
    /// Completion-time model.
    pub duration: DurationModel,
    /// VM boot latency, seconds.
    pub boot_latency_s: f64,
    /// Idle time before a VM is turned off, seconds.
    pub keep_alive_s: f64,
}

impl Setup {
    /// Simulates `jobs` with a fresh instance of the built-in `policy`.
    pub fn run(&self, policy: PolicyKind, jobs: &[Job]) -> RunResult {
        self.run_with(policy.build(&self.policy), jobs)
    }

    /// Simulates `jobs` with `policy` (e.g. a trained agent).
    pub fn run_with(&self, policy: Box<dyn PlacementPolicy>, jobs: &[Job]) -> RunResult {
        let discipline = self.queue.unwrap_or_else(|| policy.default_queue());
        let cfg = SimConfig {
            scheduler: SchedulerConfig {
                discipline,
                admission_control: self.admission_control,
                rut: self.policy.rut,
                charge_decision_time: self.charge_decision_time,
                duration: self.duration,
                boot_latency_s: self.boot_latency_s,
            },
            billing: self.billing,
            keep_alive_s: self.keep_alive_s,
        };
        simulate(&self.cluster, jobs, policy, cfg)
    }
}

/// Field-wise mean of summaries of the same policy over repetitions (counts become
/// means rounded to the nearest integer; the longest decision is the maximum). An empty
/// slice gives `None`.
pub fn average(runs: &[Summary]) -> Option<Summary> {
    let first = runs.first()?;
    let n = runs.len() as f64;
    let f = |g: fn(&Summary) -> f64| runs.iter().map(g).sum::<f64>() / n;
    let c =
        |g: fn(&Summary) -> usize| (runs.iter().map(g).sum::<usize>() as f64 / n).round() as usize;
    Some(Summary {
        policy: first.policy.clone(),
        queue: first.queue.clone(),
        jobs: c(|s| s.jobs),
        completed: c(|s| s.completed),
        dropped: c(|s| s.dropped),
        never_scheduled: c(|s| s.never_scheduled),
        total_cost: f(|s| s.total_cost),
        cost_local: f(|s| s.cost_local),
        cost_cloud: f(|s| s.cost_cloud),
        deadline_jobs: c(|s| s.deadline_jobs),
        deadline_met_pct: f(|s| s.deadline_met_pct),
        mean_jct_s: f(|s| s.mean_jct_s),
        p95_jct_s: f(|s| s.p95_jct_s),
        mean_wait_s: f(|s| s.mean_wait_s),
        makespan_s: f(|s| s.makespan_s),
        cpu_utilisation: f(|s| s.cpu_utilisation),
        memory_utilisation: f(|s| s.memory_utilisation),
        vm_hours: f(|s| s.vm_hours),
        decisions: c(|s| s.decisions),
        decision_mean_us: f(|s| s.decision_mean_us),
        decision_p99_us: f(|s| s.decision_p99_us),
        decision_max_us: runs.iter().map(|s| s.decision_max_us).fold(0.0, f64::max),
    })
}
