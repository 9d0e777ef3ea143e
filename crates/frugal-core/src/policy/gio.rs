//! Greedy Iterative Optimisation (paper 000 Alg. 2).

use super::objective::vm_cost;
use super::{PlacementPolicy, fill_by_score};
use crate::cluster::{Cluster, Site, VmId};
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// GIO, paper 000 §5.2, Alg. 2, Eq. 17–18. If the local VMs (on or off) have room for
/// all E executors, only local VMs are candidates and T_C = T_C^L; otherwise every VM is
/// and T_C = T_C^H (Eq. 5). Candidates are sorted by the cost of one more executor,
/// Cost_Je = max(0, T_C − T_vm) · P_vm (T_vm: remaining active time, 0 when idle or off),
/// ties broken by lower id, and filled greedily, turning off VMs on. O(m log m) per job.
#[derive(Clone, Debug, Default)]
pub struct Gio {
    scratch: Vec<(f64, VmId)>,
}

impl PlacementPolicy for Gio {
    fn name(&self) -> &'static str {
        "gio"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, now: f64) -> Option<Placement> {
        let local_slots = cluster.slots(&job.executor_demand, |v| v.site == Site::Local);
        let local_only = local_slots >= u64::from(job.executors);
        let t_c = if local_only {
            job.t_local
        } else {
            job.t_hybrid
        };
        let (p, rem) = fill_by_score(
            &mut self.scratch,
            cluster,
            job,
            |v| !local_only || v.site == Site::Local,
            |v| vm_cost(v, t_c, now),
        );
        (rem == 0).then_some(p)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Edf
    }
}
