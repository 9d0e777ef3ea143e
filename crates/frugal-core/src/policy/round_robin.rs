//! Spark's default round-robin executor placement, spread and consolidate.

use super::PlacementPolicy;
use crate::cluster::{Cluster, VmId};
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;
use crate::resources::Resources;

/// Deals executors one at a time over `candidates` (cyclically, from position `start`)
/// to VMs that still have room for one more. Returns the position after the last
/// executor dealt, or `None` after a full cycle without room (executors dealt so far stay
/// in `p`).
fn deal(
    p: &mut Placement,
    cluster: &Cluster,
    d: &Resources,
    executors: u32,
    candidates: &[VmId],
    start: usize,
) -> Result<usize, usize> {
    let n = candidates.len();
    if n == 0 {
        return Err(0);
    }
    let mut i = start % n;
    let mut misses = 0;
    while p.executors() < executors {
        let id = candidates[i];
        if cluster.vm(id).free.copies_of(d) > p.on(id) {
            p.add(id, 1);
            misses = 0;
        } else {
            misses += 1;
            if misses >= n {
                return Err(i);
            }
        }
        i = (i + 1) % n;
    }
    Ok(i)
}

/// Round robin (FIFO's spread, paper 000 §6.2, paper 002 RR): one executor per VM in
/// turn over all VMs of the cluster, on or off, continuing from where the previous job
/// stopped; off VMs are turned on when dealt an executor. Spreads load, wastes money.
#[derive(Clone, Debug, Default)]
pub struct RoundRobin {
    cursor: usize,
    all: Vec<VmId>,
}

impl PlacementPolicy for RoundRobin {
    fn name(&self) -> &'static str {
        "round-robin"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, _now: f64) -> Option<Placement> {
        if self.all.len() != cluster.len() {
            self.all = (0..cluster.len() as VmId).collect();
        }
        let mut p = Placement::with_capacity(job.executors as usize);
        let next = deal(
            &mut p,
            cluster,
            &job.executor_demand,
            job.executors,
            &self.all,
            self.cursor,
        )
        .ok()?;
        self.cursor = next;
        Some(p)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Fcfs
    }
}

/// Round robin consolidate (FIFO-C, paper 000 §6.2; RRC, paper 002): one executor per VM
/// in turn over the active VMs only (from the VM after the last one used); when they
/// have no room left, turn on the lowest-id off VM that fits an executor, add it to the
/// rotation and go on.
#[derive(Clone, Debug, Default)]
pub struct RoundRobinConsolidate {
    last: Option<VmId>,
    candidates: Vec<VmId>,
}

impl PlacementPolicy for RoundRobinConsolidate {
    fn name(&self) -> &'static str {
        "round-robin-consolidate"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, _now: f64) -> Option<Placement> {
        let d = &job.executor_demand;
        self.candidates.clear();
        self.candidates
            .extend(cluster.vms.iter().filter(|v| v.is_active()).map(|v| v.id));
        let mut start = match self.last {
            Some(last) => self
                .candidates
                .iter()
                .position(|&id| id > last)
                .unwrap_or(0),
            None => 0,
        };
        let mut p = Placement::with_capacity(job.executors as usize);
        let mut next_off = cluster
            .vms
            .iter()
            .filter(|v| !v.is_active() && v.free.fits(d));
        loop {
            match deal(&mut p, cluster, d, job.executors, &self.candidates, start) {
                Ok(next) => {
                    let n = self.candidates.len();
                    self.last = Some(self.candidates[(next + n - 1) % n]);
                    return Some(p);
                }
                Err(_) => {
                    let vm = next_off.next()?;
                    self.candidates.push(vm.id);
                    start = self.candidates.len() - 1;
                }
            }
        }
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Fcfs
    }
}
