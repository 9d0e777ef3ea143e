//! The authors'-code readings ([`crate::Reading::AuthorsCode`]) of paper 000's round robin,
//! FIFO-C, First Fit, GIO and AsQ, as RM-Simulator implements them
//! (github.com/tawfiqul-islam/RM-Simulator at 155d62d, the state of paper 000, whose
//! policies are unchanged at 8c959db: `Policy/RRScheduler.java`, `RRConsolidate.java`,
//! `FirstFitScheduler.java`, `GIOScheduler.java`, `AQSScheduler.java`,
//! `Manager/Utility.java`). Each scans its VM list anew per job, O(m log m) or O(E·m) per
//! decision; the paper-text readings are the indexed policies beside them. Checked job by
//! job against the simulator itself on its own workload files (model chapter, table of
//! readings).
//!
//! **The VM list.** The simulator keeps one list of VMs, in creation order
//! (`Workload/SimpleGen.java`: the cloud VMs by instance type, then the local ones;
//! [`creation_order`] reproduces it from frugal's ids, local first, as (cloud before
//! local, then id)). FF and FIFO-C sort that list *in place* before every job, with a
//! stable sort (`Collections.sort`), so VMs that tie under the sort key keep the order the
//! previous job's sort left them in, not creation order. [`VmList`] is that list, kept by
//! the policy from call to call. FIFO-C's comparator (`VMComparatorConsolidate`) never
//! returns 0 (it answers "greater" for equal free cores); on fewer than 32 VMs Java's
//! TimSort is a binary insertion sort, for which that comparator is exactly a stable
//! ascending sort, which is what frugal does at every size (above 31 VMs TimSort merges
//! runs, where the simulator's order of equal keys may differ).
//!
//! **GIO's cost rule** (`GIOScheduler`, and `AQSScheduler` within a site): executor by
//! executor, the VM with room of least P · tmpT, tmpT = 0 if maxT ≥ now + T, else
//! now + T − maxT, strictly least in list order (the first of equals wins), where maxT is
//! the latest estimated end of the VM's jobs and **0 for a VM that hosts nothing** — so an
//! idle or off VM is priced from time zero, P · (now + T), and any running VM that fits is
//! preferred to it once the clock is past a few hundred seconds. After each executor the
//! chosen VM's maxT becomes max(maxT, now + T) for the next one. The simulator records
//! maxT when it places, with the T it scored: for GIO T_C^L even where the placement then
//! runs at T_C^H (`subtractVMresource` takes `T_est` before `placeExecutors` adds the
//! penalty), so a VM running a hybrid job looks free of it 0.3·T early. [`MaxT`] is that
//! record, kept by GIO from call to call (it assumes each placement it returns is made,
//! as the simulator does: under a cost cap or admission control a placement the
//! controller discards stays in the record until its VMs empty). AsQ scores and records
//! T_C^H in the cloud, so its maxT is the VM's `busy_until`. The simulator's bound of 10⁶
//! on a cost (its initial `currentCost`) is never reached before 8·10⁷ s and is not
//! reproduced.

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
    /// `RRConsolidate`: the list sorted by free cores, fewest first (ties in the list's
    /// previous order), each VM filled before the next.
    Consolidate,
    /// `FirstFitScheduler` with `VMComparator`: the list sorted with running VMs first,
    /// then by price, then by `VM.getResourceTotal`, 0.8 · free cores + 0.2 · free GiB
    /// (`resourceSplitThreshold` = 0.2 in its simulator.ini), smallest first (ties in the
    /// list's previous order); each VM filled in turn.
    FirstFit,
}

/// The simulator's list position of `v`: cloud VMs before local ones, then frugal's id.
fn creation_order(v: &Vm) -> (bool, VmId) {
    (v.site == Site::Local, v.id)
}

/// The simulator's VM list (module doc), kept from call to call by FF and FIFO-C.
#[derive(Clone, Debug, Default)]
pub(crate) struct VmList(Vec<VmId>);

impl VmList {
    /// The list for `cluster`: as left by the last call, or in creation order if it is new
    /// (or the cluster's VMs changed).
    fn for_cluster(&mut self, cluster: &Cluster) -> &mut Vec<VmId> {
        if self.0.len() != cluster.vms.len() {
            self.0 = cluster.vms.iter().map(|v| v.id).collect();
            self.0.sort_by_key(|&id| creation_order(cluster.vm(id)));
        }
        &mut self.0
    }
}

/// `VM.getResourceTotal`: 0.8 · free cores + 0.2 · free GiB.
fn resource_total(v: &Vm) -> f64 {
    0.8 * f64::from(v.free.cores()) + 0.2 * v.free.memory_gib()
}

/// `job`'s placement under `rule`, all or nothing; `list` is the simulator's VM list,
/// sorted in place as the simulator sorts it — also when the job does not fit, as there.
/// That is a change of state on a call that returns `None`, which
/// [`super::PlacementPolicy::place`] rules out so the scheduler may skip calls; it is
/// harmless here: the scheduler skips a call only while no resources were freed, and with
/// the simulator's FCFS queue nothing else is placed meanwhile, so the skipped sort would
/// sort the list by unchanged keys and leave it as it is.
pub(crate) fn place(
    rule: Rule,
    list: &mut VmList,
    job: &Job,
    cluster: &Cluster,
) -> Option<Placement> {
    let d = &job.executor_demand;
    let order = list.for_cluster(cluster);
    match rule {
        Rule::RoundRobin => {}
        // Stable sorts, as `Collections.sort`.
        Rule::Consolidate => order.sort_by_key(|&id| cluster.vm(id).free.cores()),
        Rule::FirstFit => order.sort_by(|&a, &b| {
            let key = |id: VmId| {
                let v = cluster.vm(id);
                (v.executors == 0, v.price_per_second, resource_total(v))
            };
            key(a)
                .partial_cmp(&key(b))
                .unwrap_or(std::cmp::Ordering::Equal)
        }),
    }
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

/// The simulator's per-VM record of the latest estimated end, `VM.maxT` (module doc),
/// seconds; 0 for a VM that hosts nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct MaxT(Vec<f64>);

/// Where [`place_least_cost`] reads maxT from.
pub(crate) enum Ends<'a> {
    /// The VMs' `busy_until` (AsQ).
    BusyUntil,
    /// The policy's own record, updated with the placement it returns (GIO).
    Recorded(&'a mut MaxT),
}

/// GIO's cost rule (module doc): `job`'s executors one by one on the VMs `eligible`
/// admits, each on the strictly cheapest in creation order, every executor scored as
/// running `t` seconds from `now`; all or nothing. O(E · m).
pub(crate) fn place_least_cost(
    job: &Job,
    cluster: &Cluster,
    now: f64,
    t: f64,
    mut ends: Ends<'_>,
    eligible: impl Fn(&Vm) -> bool,
) -> Option<Placement> {
    if let Ends::Recorded(MaxT(r)) = &mut ends {
        // A record of a VM that has emptied since is never read (an empty VM's maxT is
        // 0 below) and is overwritten when the VM is chosen again.
        r.resize(cluster.vms.len(), 0.0);
    }
    let d = &job.executor_demand;
    let max_t = |v: &Vm| match &ends {
        _ if v.executors == 0 => 0.0,
        Ends::BusyUntil => v.busy_until,
        // A VM with executors and no record holds work the policy did not place (the
        // service recovering from its store): its `busy_until` is the best estimate.
        Ends::Recorded(MaxT(r)) if r[v.id as usize] > 0.0 => r[v.id as usize],
        Ends::Recorded(_) => v.busy_until,
    };
    let mut vms: Vec<(&Vm, u32, f64)> = cluster
        .vms
        .iter()
        .filter(|v| eligible(v))
        .map(|v| (v, v.free.copies_of(d), max_t(v)))
        .filter(|&(_, room, _)| room > 0)
        .collect();
    vms.sort_by_key(|(v, _, _)| creation_order(v));
    let end = now + t;
    let mut p = Placement::with_capacity(4);
    for _ in 0..job.executors {
        let mut best: Option<(usize, f64)> = None;
        for (i, &(v, room, max_t)) in vms.iter().enumerate() {
            if room == 0 {
                continue;
            }
            let cost = v.price_per_second * if max_t >= end { 0.0 } else { end - max_t };
            if best.is_none_or(|(_, c)| cost < c) {
                best = Some((i, cost));
            }
        }
        let (i, _) = best?;
        let (v, room, max_t) = &mut vms[i];
        p.add(v.id, 1);
        *room -= 1;
        *max_t = max_t.max(end);
    }
    if let Ends::Recorded(MaxT(r)) = ends {
        for (v, _, max_t) in vms {
            r[v.id as usize] = max_t;
        }
    }
    Some(p)
}
