//! Greedy Iterative Optimisation (paper 000 Alg. 2).

use super::objective::vm_cost;
use super::{PlacementPolicy, fill};
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
        let d = &job.executor_demand;
        let local_slots = cluster.slots(d, |v| v.site == Site::Local);
        let local_only = local_slots >= u64::from(job.executors);
        let t_c = if local_only {
            job.t_local
        } else {
            job.t_hybrid
        };
        self.scratch.clear();
        for v in &cluster.vms {
            if (local_only && v.site != Site::Local) || !v.free.fits(d) {
                continue;
            }
            self.scratch.push((vm_cost(v, t_c, now), v.id));
        }
        self.scratch
            .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut p = Placement::with_capacity(4);
        let rem = fill(
            &mut p,
            cluster,
            d,
            job.executors,
            self.scratch.iter().map(|e| e.1),
        );
        (rem == 0).then_some(p)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Edf
    }
}
