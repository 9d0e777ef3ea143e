//! Greedy Iterative Optimisation (paper 000 Alg. 2).

use super::authors_code;
use super::objective::vm_cost;
use super::{Candidate, PlacementPolicy, Reading, fill_all};
use crate::cluster::{Cluster, Site};
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// GIO, paper 000 §5.2, Alg. 2, Eq. 17–18. Candidates are sorted by the cost of one more
/// executor, Cost_Je = max(0, T_C − T_vm) · P_vm (T_vm: remaining active time, 0 when idle
/// or off), ties broken by lower id, and filled greedily, turning off VMs on. The cost is
/// the same for every VM of an index group with one busy key ([`crate::index`]), so a
/// decision costs O(G log G) over those groups.
///
/// Which VMs are candidates and which T_C they are scored with depends on the [`Reading`]:
///
/// - [`Reading::PaperText`] (default), §6.3.1: GIO "only goes for a hybrid placement if
///   there are not sufficient local resources". If the local VMs (on or off) have room
///   for all E executors, only local VMs are candidates and T_C = T_C^L; otherwise every
///   VM is and T_C = T_C^H (Eq. 5).
/// - [`Reading::AuthorsCode`], RM-Simulator `Policy/GIOScheduler.java` (155d62d): every
///   VM is a candidate and T_C = T_C^L (the job's estimate, `getT_est`) whatever the
///   site, executor by executor on the VM of least cost in the simulator's list order,
///   where a VM that hosts nothing is priced from time zero
///   ([`super::authors_code::place_least_cost`], whose doc gives the rule).
#[derive(Clone, Debug, Default)]
pub struct Gio {
    reading: Reading,
    scratch: Vec<Candidate>,
    max_t: authors_code::MaxT,
}

impl Gio {
    /// GIO following `reading`.
    pub fn new(reading: Reading) -> Self {
        Gio {
            reading,
            ..Gio::default()
        }
    }
}

impl PlacementPolicy for Gio {
    fn name(&self) -> &'static str {
        "gio"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, now: f64) -> Option<Placement> {
        if self.reading == Reading::AuthorsCode {
            let ends = authors_code::Ends::Recorded(&mut self.max_t);
            return authors_code::place_least_cost(job, cluster, now, job.t_local, ends, |_| true);
        }
        let (d, e) = (&job.executor_demand, job.executors);
        let local_only = cluster.slots(d, |s| s == Site::Local) >= u64::from(e);
        let t_c = if local_only {
            job.t_local
        } else {
            job.t_hybrid
        };
        let score = |v: &crate::cluster::Vm| {
            (!local_only || v.site == Site::Local).then(|| vm_cost(v, t_c, now))
        };
        let mut p = Placement::with_capacity(4);
        let rem = fill_all(&mut self.scratch, &mut p, cluster, d, e, score);
        (rem == 0).then_some(p)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Edf
    }

    fn ranks_by_remaining_time(&self) -> bool {
        true
    }
}
