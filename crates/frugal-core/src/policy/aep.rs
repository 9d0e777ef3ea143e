//! Adaptive Executor Placement (paper 002 §7.1 baseline).

use super::{FirstFit, PlacementPolicy, off_in};
use crate::cluster::{Cluster, VmId};
use crate::job::{Job, JobKind};
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// AEP, paper 002 §7.1: uses the job's profiled kind to choose its spread. A
/// `network_bound` job is consolidated — on the active VM with the least room that holds
/// all E executors, else the cheapest off VM that does, else first fit (active VMs, then
/// the cheapest off ones). A `cpu_bound` or `memory_bound` job is spread — one executor per
/// VM in turn over the active VMs (id order), then over off VMs from the cheapest, cycling
/// only when every candidate has one.
#[derive(Clone, Debug, Default)]
pub struct Aep {
    order: Vec<VmId>,
}

impl Aep {
    fn consolidate(job: &Job, cluster: &Cluster) -> Option<Placement> {
        let d = &job.executor_demand;
        let e = job.executors;
        let whole = cluster
            .vms
            .iter()
            .filter(|v| v.is_active() && v.free.copies_of(d) >= e)
            .min_by_key(|v| (v.free.copies_of(d), v.id))
            .map(|v| v.id)
            .or_else(|| off_in(cluster, &cluster.by_price, |v| v.free.copies_of(d) >= e).next());
        if let Some(id) = whole {
            let mut p = Placement::default();
            p.add(id, e);
            return Some(p);
        }
        FirstFit.place(job, cluster, 0.0)
    }

    fn spread(&mut self, job: &Job, cluster: &Cluster) -> Option<Placement> {
        let d = &job.executor_demand;
        self.order.clear();
        self.order.extend(
            cluster
                .vms
                .iter()
                .filter(|v| v.is_active() && v.free.fits(d))
                .map(|v| v.id),
        );
        self.order
            .extend(off_in(cluster, &cluster.by_price, |v| v.free.fits(d)));
        let mut p = Placement::with_capacity(job.executors as usize);
        let mut placed = 0;
        while placed < job.executors {
            let before = placed;
            for &id in &self.order {
                if placed == job.executors {
                    break;
                }
                if cluster.vm(id).free.copies_of(d) > p.on(id) {
                    p.add(id, 1);
                    placed += 1;
                }
            }
            if placed == before {
                return None;
            }
        }
        Some(p)
    }
}

impl PlacementPolicy for Aep {
    fn name(&self) -> &'static str {
        "aep"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, _now: f64) -> Option<Placement> {
        match job.kind {
            JobKind::NetworkBound => Aep::consolidate(job, cluster),
            JobKind::CpuBound | JobKind::MemoryBound => self.spread(job, cluster),
        }
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Fcfs
    }
}
