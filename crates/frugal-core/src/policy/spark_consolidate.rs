//! Spark standalone's consolidating executor placement (`spark.deploy.spreadOut=false`).

use super::{PlacementPolicy, fill, needed};
use crate::cluster::{Cluster, VmId};
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// Spark's FIFO with the consolidation option, as paper 004 §6.1.3 uses it for its FIFO
/// baseline and §3 (Fig. 3b) describes it: price- and size-blind packing that "may choose
/// the biggest VM". The rule is Spark standalone's `Master.startExecutorsOnWorkers` with
/// `spreadOut = false`: the VMs (workers, on or off) with room for one executor, sorted
/// by free cores in descending order (Scala's stable `sortBy(_.coresFree).reverse`, so
/// among equal free cores the higher id comes first), each filled with as many executors
/// as fit before the next. Placement across jobs is not remembered.
///
/// Not to be confused with `round-robin-consolidate` (paper 000's FIFO-C, which rotates
/// over the running VMs and turns on the lowest-id off VM only when they are full): this
/// one prefers an idle large VM to a partly used one, so at light load it turns on the
/// largest VMs first.
///
/// Cost per decision: with the placement index ([`crate::index`]), O(G + E log E) for G
/// groups of interchangeable VMs and E executors: all VMs of a group have the same free
/// cores, so the sorted order takes them consecutively, highest id first, and a greedy
/// fill uses at most ⌈E/k⌉ of a group whose VMs hold k executors each — those are read,
/// the rest never. Without an index (small clusters), O(m log m): every VM is scanned.
#[derive(Clone, Debug, Default)]
pub struct SparkConsolidate {
    order: Vec<(u32, VmId)>,
}

impl PlacementPolicy for SparkConsolidate {
    fn name(&self) -> &'static str {
        "spark-consolidate"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, _now: f64) -> Option<Placement> {
        let d = &job.executor_demand;
        self.order.clear();
        match cluster.index() {
            Some(index) => {
                let need = |k: u32| needed(k, job.executors);
                for (_, free, g) in index.active() {
                    let k = free.copies_of(d);
                    if k > 0 {
                        let ids = g.ids.iter_rev().take(need(k));
                        self.order.extend(ids.map(|id| (free.cores(), id)));
                    }
                }
                let classes = cluster.vm_classes().all();
                for (c, ids) in index.off() {
                    let capacity = classes[c as usize].capacity;
                    let k = capacity.copies_of(d);
                    if k > 0 {
                        let ids = ids.iter_rev().take(need(k));
                        self.order.extend(ids.map(|id| (capacity.cores(), id)));
                    }
                }
            }
            None => self.order.extend(
                cluster
                    .vms
                    .iter()
                    .filter(|v| v.free.fits(d))
                    .map(|v| (v.free.cores(), v.id)),
            ),
        }
        self.order.sort_unstable_by(|a, b| b.cmp(a));
        let mut p = Placement::with_capacity(job.executors as usize);
        let rem = fill(
            &mut p,
            cluster,
            d,
            job.executors,
            self.order.iter().map(|o| o.1),
        );
        (rem == 0).then_some(p)
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Fcfs
    }
}
