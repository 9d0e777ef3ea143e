//! How long a job runs given its placement.

use serde::{Deserialize, Serialize};

use crate::cluster::{Cluster, Site};
use crate::job::{Job, JobKind};
use crate::placement::Placement;

/// When a job runs at its hybrid completion time T_C^H instead of T_C^L.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HybridRule {
    /// Paper 000 Eq. 5 and §6.1: T_C^H as soon as one executor runs away from the site
    /// holding the job's data (the local site; the cloud if the cluster has no local VM).
    #[default]
    AnyRemote,
    /// T_C^H only when the executors span both sites.
    Spanning,
}

crate::choice! {
    impl Choice for HybridRule {
        AnyRemote = "any-remote": "Any executor away from the data's site (paper 000 Eq. 5)",
        Spanning = "spanning": "Only placements that span both sites",
    }
}

/// Completion-time model shared by the simulator, the schedulers' estimates and the
/// emulated backend.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DurationModel {
    /// Which placements get T_C^H.
    pub hybrid_rule: HybridRule,
    /// Fractional slowdown for a placement that ignores the job's kind (paper 002 §7.1:
    /// 0.3): a `network_bound` job on more than one VM, or a `cpu_bound`/`memory_bound`
    /// job with E ≥ 2 executors packed on one VM.
    pub kind_penalty: f64,
    /// Jobs slowing each other on shared capacity (frugal's extension, off by default):
    /// the run time above is a job's solo work, which the controller stretches by the
    /// fluid model of [`crate::contention`]. `None` in every paper's setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contention: Option<crate::contention::ContentionModel>,
}

impl Default for DurationModel {
    fn default() -> Self {
        DurationModel {
            hybrid_rule: HybridRule::AnyRemote,
            kind_penalty: 0.3,
            contention: None,
        }
    }
}

impl DurationModel {
    /// True if `placement` of `job` runs at T_C^H under this model.
    pub fn is_hybrid(&self, cluster: &Cluster, placement: &Placement) -> bool {
        let local = placement.uses_site(cluster, Site::Local);
        let cloud = placement.uses_site(cluster, Site::Cloud);
        match self.hybrid_rule {
            HybridRule::AnyRemote => cloud && cluster.has_local_site,
            HybridRule::Spanning => local && cloud,
        }
    }

    /// True if `placement` ignores the spread/consolidate preference of `job.kind`.
    pub fn is_kind_mismatch(&self, job: &Job, placement: &Placement) -> bool {
        match job.kind {
            JobKind::NetworkBound => placement.vm_count() > 1,
            JobKind::CpuBound | JobKind::MemoryBound => {
                job.executors >= 2 && placement.vm_count() == 1
            }
        }
    }

    /// The longest run time `job` can have under any placement, seconds: the larger of
    /// T_C^L and T_C^H, with the kind penalty.
    pub fn longest(&self, job: &Job) -> f64 {
        job.t_local.max(job.t_hybrid) * (1.0 + self.kind_penalty.max(0.0))
    }

    /// Run time in seconds of `job` under `placement` (from start to finish).
    pub fn duration(&self, job: &Job, cluster: &Cluster, placement: &Placement) -> f64 {
        let base = if self.is_hybrid(cluster, placement) {
            job.t_hybrid
        } else {
            job.t_local
        };
        if self.is_kind_mismatch(job, placement) {
            base * (1.0 + self.kind_penalty)
        } else {
            base
        }
    }
}
