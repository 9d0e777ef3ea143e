//! The observation vector of paper 002 §4 ("State Space"), shared by the environment and
//! by trained agents used as placement policies.

use serde_json::json;

use frugal_core::cluster::Cluster;
use frugal_core::job::{Job, JobKind};
use frugal_core::resources::{CPU, MEMORY};

/// Normalisers that map the observation into [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObservationScale {
    /// Cores of the largest VM.
    pub cores: f32,
    /// Memory (MiB) of the largest VM.
    pub memory_mib: f32,
    /// Highest VM price, dollars per second.
    pub price: f32,
    /// Largest number of executors of any job.
    pub executors: f32,
}

impl ObservationScale {
    /// Scale for `cluster` and jobs of at most `max_executors` executors.
    pub fn new(cluster: &Cluster, max_executors: u32) -> Self {
        let max = |f: &dyn Fn(&frugal_core::Vm) -> f64| {
            cluster
                .vms
                .iter()
                .map(f)
                .fold(0.0, f64::max)
                .max(f64::MIN_POSITIVE) as f32
        };
        ObservationScale {
            cores: max(&|v| f64::from(v.capacity.0[CPU])),
            memory_mib: max(&|v| f64::from(v.capacity.0[MEMORY])),
            price: max(&|v| v.price_per_second),
            executors: max_executors.max(1) as f32,
        }
    }

    /// As JSON (for checkpoints).
    pub fn to_json(&self) -> serde_json::Value {
        json!({"cores": self.cores, "memory_mib": self.memory_mib, "price": self.price, "executors": self.executors})
    }

    /// From [`ObservationScale::to_json`]'s output; `None` if a field is missing.
    pub fn from_json(v: &serde_json::Value) -> Option<Self> {
        let f = |k: &str| v.get(k)?.as_f64().map(|x| x as f32);
        Some(ObservationScale {
            cores: f("cores")?,
            memory_mib: f("memory_mib")?,
            price: f("price")?,
            executors: f("executors")?,
        })
    }
}

/// Length of the observation for a cluster of `vms` VMs: 3N + 6.
pub fn observation_len(vms: usize) -> usize {
    3 * vms + 6
}

/// Writes the observation into `out` (length 3N + 6): per VM free cores, free memory and
/// price; then, if a job is offered with `left` executors to place, its kind one-hot
/// (cpu, memory, network bound), executor cores and memory, and `left` — each divided
/// by its `scale`. Without a job the last six values are 0.
pub fn encode(
    cluster: &Cluster,
    job: Option<(&Job, u32)>,
    scale: &ObservationScale,
    out: &mut [f32],
) {
    // Every VM's three entries are written below; only the job's part needs clearing.
    let base = 3 * cluster.len();
    out[base..].iter_mut().for_each(|x| *x = 0.0);
    for (i, v) in cluster.vms.iter().enumerate() {
        out[3 * i] = v.free.0[CPU] as f32 / scale.cores;
        out[3 * i + 1] = v.free.0[MEMORY] as f32 / scale.memory_mib;
        out[3 * i + 2] = v.price_per_second as f32 / scale.price;
    }
    let Some((job, left)) = job else {
        return;
    };
    let kind = match job.kind {
        JobKind::CpuBound => 0,
        JobKind::MemoryBound => 1,
        JobKind::NetworkBound => 2,
    };
    out[base + kind] = 1.0;
    out[base + 3] = job.executor_demand.0[CPU] as f32 / scale.cores;
    out[base + 4] = job.executor_demand.0[MEMORY] as f32 / scale.memory_mib;
    out[base + 5] = left as f32 / scale.executors;
}
