//! The authors'-code readings ([`crate::Reading::AuthorsCode`]) of paper 000's round robin,
//! FIFO-C and First Fit, as RM-Simulator implements them (github.com/tawfiqul-islam/
//! RM-Simulator at 8c959db, `Policy/RRScheduler.java`, `RRConsolidate.java`,
//! `FirstFitScheduler.java`, `Manager/Utility.java`). Each scans its VM list anew per job,
//! O(m log m) per decision; the paper-text readings are the indexed policies beside them.
//!
//! The simulator's VM list is in creation order (`Workload/SimpleGen.java`): the cloud VMs
//! by instance type, then the local ones. [`creation_order`] reproduces it from frugal's
//! ids (local first) as (cloud before local, then id).

use super::fill;
use crate::cluster::{Cluster, Site, Vm, VmId};
use crate::job::Job;
use crate::placement::Placement;

/// Which of the three policies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// `RRScheduler`: every job starts again at the first VM of the list and deals one
    /// executor per VM with room, pass after pass.
    RoundRobin,
    /// `RRConsolidate`: the VMs sorted by free cores, fewest first (ties in list order), each
    /// filled before the next.
    Consolidate,
    /// `FirstFitScheduler` with `VMComparator`: running VMs first, then by price, then by
    /// capacity (cores + GiB), smallest first (ties in list order), each filled in turn.
    FirstFit,
}

/// The simulator's list position of `v`: cloud VMs before local ones, then frugal's id.
fn creation_order(v: &Vm) -> (bool, VmId) {
    (v.site == Site::Local, v.id)
}

/// `job`'s placement under `rule`, all or nothing; `order` is scratch space.
pub(crate) fn place(
    rule: Rule,
    order: &mut Vec<VmId>,
    job: &Job,
    cluster: &Cluster,
) -> Option<Placement> {
    let d = &job.executor_demand;
    let mut vms: Vec<&Vm> = cluster.vms.iter().filter(|v| v.free.fits(d)).collect();
    match rule {
        Rule::RoundRobin => vms.sort_by_key(|v| creation_order(v)),
        Rule::Consolidate => vms.sort_by_key(|v| (v.free.cores(), creation_order(v))),
        Rule::FirstFit => vms.sort_by(|a, b| {
            let size = |v: &Vm| f64::from(v.capacity.cores()) + v.capacity.memory_gib();
            (
                !a.is_active(),
                a.price_per_second,
                size(a),
                creation_order(a),
            )
                .partial_cmp(&(
                    !b.is_active(),
                    b.price_per_second,
                    size(b),
                    creation_order(b),
                ))
                .unwrap_or(std::cmp::Ordering::Equal)
        }),
    }
    order.clear();
    order.extend(vms.iter().map(|v| v.id));
    let mut p = Placement::with_capacity(job.executors as usize);
    if rule == Rule::RoundRobin {
        // One executor per VM with room in turn, from the first VM, until a full pass
        // places nothing.
        while p.executors() < job.executors {
            let before = p.executors();
            for &id in order.iter() {
                if p.executors() == job.executors {
                    break;
                }
                if cluster.vm(id).free.copies_of(d) > p.on(id) {
                    p.add(id, 1);
                }
            }
            if p.executors() == before {
                return None;
            }
        }
        return Some(p);
    }
    let rem = fill(&mut p, cluster, d, job.executors, order.iter().copied());
    (rem == 0).then_some(p)
}
