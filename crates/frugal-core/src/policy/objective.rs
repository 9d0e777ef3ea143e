//! The per-job cost objective of paper 000 (Eq. 1, 4, 8, 11, 16–18), shared by GIO, the
//! MILP and the exact solver.

use crate::cluster::{Cluster, Site, Vm};
use crate::job::Job;
use crate::placement::Placement;

/// Extra cost in dollars of keeping `vm` on for an executor that runs `t_c` seconds from
/// `now`: `P · max(0, T_C − T_vm)` (paper 000 Eq. 4/11, 17–18).
#[inline]
pub fn vm_cost(vm: &Vm, t_c: f64, now: f64) -> f64 {
    vm.price_per_second * (t_c - vm.remaining_active_time(now)).max(0.0)
}

/// True if `placement` runs at T_C^H in the paper 000 cost model (Eq. 5): an executor on a
/// cloud VM while the cluster has a local site.
pub fn is_hybrid(cluster: &Cluster, placement: &Placement) -> bool {
    cluster.has_local_site && placement.uses_site(cluster, Site::Cloud)
}

/// The cost (paper 000 Eq. 16) of the cheapest placement of `job` on the idle cluster
/// `empty`, dollars: Σ price × T_C over the VMs of the exact optimum (`optimal`, kept by
/// the caller for its scratch space). Infinite if no placement can hold it.
pub fn cheapest_cost(optimal: &mut super::Optimal, job: &Job, empty: &Cluster) -> f64 {
    use super::PlacementPolicy;
    optimal
        .place(job, empty, 0.0)
        .map_or(f64::INFINITY, |p| placement_cost(job, empty, 0.0, &p))
}

/// Cost_total of paper 000 Eq. 16 for `placement` of `job` at `now`: the sum of
/// [`vm_cost`] over the VMs it uses, with T_C = T_C^H if [`is_hybrid`], else T_C^L.
/// Dollars.
pub fn placement_cost(job: &Job, cluster: &Cluster, now: f64, placement: &Placement) -> f64 {
    let t_c = if is_hybrid(cluster, placement) {
        job.t_hybrid
    } else {
        job.t_local
    };
    placement
        .executors_per_vm
        .iter()
        .map(|&(id, _)| vm_cost(cluster.vm(id), t_c, now))
        .sum()
}
