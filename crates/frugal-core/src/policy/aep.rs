//! Adaptive Executor Placement (paper 002 §7.1 baseline).

use super::{
    Candidate, FirstFit, PlacementPolicy, active_fitting_from, first_off, push_active, push_off,
    sort_candidates,
};
use crate::cluster::Cluster;
use crate::index::OffOrder;
use crate::job::{Job, JobKind};
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// AEP, paper 002 §7.1: uses the job's profiled kind to choose its spread. A
/// `network_bound` job is consolidated — on the active VM with the least room that holds
/// all E executors (ties: lower id), else the cheapest off VM that does, else first fit
/// (active VMs, then the cheapest off ones). A `cpu_bound` or `memory_bound` job is spread
/// — one executor per VM in turn over the active VMs (id order), then over off VMs from
/// the cheapest, cycling only when every candidate has one.
#[derive(Clone, Debug, Default)]
pub struct Aep {
    scratch: Vec<Candidate>,
    first_fit: FirstFit,
}

impl Aep {
    fn consolidate(&mut self, job: &Job, cluster: &Cluster) -> Option<Placement> {
        let (d, e) = (&job.executor_demand, job.executors);
        // The tightest active VM that holds all E: least room (in executors), lower id.
        let s = &mut self.scratch;
        s.clear();
        push_active(
            s,
            cluster,
            d,
            false,
            |_| 1,
            |v| {
                let k = v.free.copies_of(d);
                (k >= e).then_some(f64::from(k))
            },
        );
        let tightest = s
            .iter()
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let whole = tightest.map(|c| c.1).or_else(|| {
            first_off(cluster, OffOrder::Cheapest, |v| {
                v.capacity.copies_of(d) >= e
            })
        });
        if let Some(id) = whole {
            let mut p = Placement::default();
            p.add(id, e);
            return Some(p);
        }
        self.first_fit.place(job, cluster, 0.0)
    }

    fn spread(&mut self, job: &Job, cluster: &Cluster) -> Option<Placement> {
        let (d, e) = (&job.executor_demand, job.executors);
        // Each candidate takes one executor per pass, so at most E of them are used.
        let s = &mut self.scratch;
        s.clear();
        let active = active_fitting_from(cluster, 0, d, None);
        s.extend(active.take(e as usize).map(|id| (0.0, id)));
        if s.len() < e as usize {
            let active = s.len();
            push_off(
                s,
                cluster,
                d,
                |_| e as usize,
                |v| Some(f64::from(cluster.vm_classes().of(v.id).price_rank)),
            );
            sort_candidates(&mut s[active..]);
        }
        let mut p = Placement::with_capacity(e as usize);
        let mut placed = 0;
        while placed < e {
            let before = placed;
            for &(_, id) in s.iter() {
                if placed == e {
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
            JobKind::NetworkBound => self.consolidate(job, cluster),
            JobKind::CpuBound | JobKind::MemoryBound => self.spread(job, cluster),
        }
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Fcfs
    }
}
