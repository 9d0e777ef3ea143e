//! Jobs: a Spark application as E identical executors with a completion-time profile.

use serde::{Deserialize, Serialize};

use crate::resources::Resources;

/// Upper bound on any time or duration frugal accepts from its inputs, in seconds: 10
/// Julian years. Larger values are input errors, not workloads.
pub const MAX_SECONDS: f64 = 10.0 * 365.25 * 86_400.0;

/// Upper bound on the executors of one job.
pub const MAX_EXECUTORS: u32 = 100_000;

/// How much longer a job runs when its executors span both sites, when nothing says
/// otherwise: T_C^H = T_C^L · (1 + 0.3) (paper 000 §6.1: a 30 % penalty).
pub const HYBRID_PENALTY: f64 = 0.3;

/// Application class, which decides the preferred executor spread (paper 002 §6–7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// WordCount-like: prefers executors spread over VMs.
    CpuBound,
    /// Sort-like: prefers executors spread over VMs.
    MemoryBound,
    /// PageRank-like: prefers executors consolidated on one VM (shuffle stays local).
    NetworkBound,
}

impl JobKind {
    /// `cpu_bound`, `memory_bound` or `network_bound`.
    pub fn as_str(&self) -> &'static str {
        match self {
            JobKind::CpuBound => "cpu_bound",
            JobKind::MemoryBound => "memory_bound",
            JobKind::NetworkBound => "network_bound",
        }
    }

    /// Parses `cpu_bound`, `memory_bound` or `network_bound`.
    pub fn parse(s: &str) -> Option<JobKind> {
        match s {
            "cpu_bound" => Some(JobKind::CpuBound),
            "memory_bound" => Some(JobKind::MemoryBound),
            "network_bound" => Some(JobKind::NetworkBound),
            _ => None,
        }
    }
}

/// A job to place: E identical executors, all-or-nothing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Job {
    /// User-visible id (e.g. the trace's `job17`).
    pub id: String,
    /// Application class.
    pub kind: JobKind,
    /// Number of executors E (≥ 1).
    pub executors: u32,
    /// Demand of one executor (τ^cpu, τ^mem of paper 004 Table 2).
    pub executor_demand: Resources,
    /// Arrival (submission) time T_A, seconds from the start of the workload.
    pub arrival: f64,
    /// Absolute deadline in seconds (arrival + relative deadline T_D), if any.
    pub deadline: Option<f64>,
    /// Estimated completion time when every executor is local, T_C^L, seconds.
    pub t_local: f64,
    /// Estimated completion time when placed across sites, T_C^H, seconds (≥ T_C^L).
    pub t_hybrid: f64,
}

impl Job {
    /// Resource demand of all E executors.
    pub fn total_demand(&self) -> Resources {
        self.executor_demand.times(self.executors)
    }
}
