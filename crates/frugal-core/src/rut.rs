//! Resource Unification Thresholds and the unified metrics of paper 004 §4.3 and the
//! Morpheus job order (paper 004 Eq. 10).

use serde::{Deserialize, Serialize};

use crate::cluster::Cluster;
use crate::job::Job;
use crate::resources::{CPU, MEMORY, RESOURCE_DIMS, Resources};

/// Resource Unification Thresholds: weights of CPU (`alpha`) and memory (`beta`) with
/// α + β = 1 (paper 004 Eq. 5). Default 0.8 / 0.2. GPUs carry no weight: the paper
/// unifies CPU and memory only, so BFD ranks GPU VMs by their CPU and memory alone (a
/// VM without room for a GPU executor is never a candidate for it).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rut {
    /// Weight of CPU, α ∈ [0, 1].
    pub alpha: f64,
    /// Weight of memory, β = 1 − α.
    pub beta: f64,
}

impl Default for Rut {
    fn default() -> Self {
        Rut {
            alpha: 0.8,
            beta: 0.2,
        }
    }
}

impl Rut {
    /// RUT with CPU weight `alpha` and memory weight `1 − alpha`.
    ///
    /// # Errors
    /// A message if `alpha` is not in [0, 1].
    pub fn with_alpha(alpha: f64) -> Result<Rut, String> {
        if !(0.0..=1.0).contains(&alpha) {
            return Err(format!("RUT alpha must be in [0, 1], got {alpha}"));
        }
        Ok(Rut {
            alpha,
            beta: 1.0 - alpha,
        })
    }

    /// Unified amount of `r` relative to `total` (the common part of Eq. 8 and 9):
    /// α·cpu/CPU_total + β·mem/MEM_total. Dimensionless.
    #[inline]
    pub fn unify(&self, r: &Resources, total: &Resources) -> f64 {
        let share = |d: usize| {
            if total.0[d] == 0 {
                0.0
            } else {
                f64::from(r.0[d]) / f64::from(total.0[d])
            }
        };
        self.alpha * share(CPU) + self.beta * share(MEMORY)
    }

    /// Resource Availability RA of a VM with free resources `free` (paper 004 Eq. 8).
    #[inline]
    pub fn resource_availability(&self, free: &Resources, cluster: &Cluster) -> f64 {
        self.unify(free, &cluster.total_capacity)
    }

    /// Resource Demand RD of `job` (paper 004 Eq. 9): the unified demand of one executor
    /// times E.
    pub fn resource_demand(&self, job: &Job, cluster: &Cluster) -> f64 {
        self.unify(&job.executor_demand, &cluster.total_capacity) * f64::from(job.executors)
    }
}

/// Morpheus' scarce-resource demand c_job (paper 004 Eq. 10) of a job demanding `demand`
/// in all (E executors): the largest share of `total` that would be in use if it were
/// placed while `used` is, over CPU and memory (the paper's two resources) and GPUs when
/// the cluster has any (a dimension with zero total counts as 0, so clusters without
/// GPUs give the paper's value). Dimensionless.
pub fn scarce_share(demand: &Resources, used: &Resources, total: &Resources) -> f64 {
    let after = used.plus(demand);
    (0..RESOURCE_DIMS)
        .filter(|&d| total.0[d] > 0)
        .map(|d| f64::from(after.0[d]) / f64::from(total.0[d]))
        .fold(0.0, f64::max)
}
