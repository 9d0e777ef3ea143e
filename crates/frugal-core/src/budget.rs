//! What a fleet price budget can admit: the placement of a job that adds the least to the
//! fleet's price ([`cheapest_price_placement`]), which the scheduler takes when the
//! policy's own placement would break the budget, and which the service uses to refuse at
//! submission a job no state of the cluster can ever admit.
//!
//! The fleet's price is the summed price of the active (booting or on) VMs, dollars per
//! second (`Cluster::fleet_price_per_second`). A placement adds the prices of the off VMs
//! it turns on; executors on active VMs add nothing. All executors of a job are identical,
//! so a VM hosts up to `free.copies_of(demand)` of them.

use crate::cluster::{Cluster, VmId};
use crate::job::Job;
use crate::placement::Placement;

/// The placement of `job` on `cluster` as it is that turns on the off VMs of least summed
/// price: first the free slots of active VMs (free of charge, in VM order), then a minimum
/// price cover of the remaining executors by off VMs (an exact 0/1 knapsack-cover dynamic
/// programme over executors left, O(off VMs × executors)). Ties go to the lower VM ids.
/// Returns the placement and the price it adds, dollars per second; None when the cluster
/// cannot hold the job even with every VM on.
///
/// On an idle cluster (every VM off) the price it adds is the least fleet price at which
/// the job can ever run: a budget below it can never admit the job.
pub fn cheapest_price_placement(job: &Job, cluster: &Cluster) -> Option<(Placement, f64)> {
    let demand = &job.executor_demand;
    let mut left = job.executors;
    let mut placement = Placement::default();
    for v in cluster.vms.iter().filter(|v| v.is_active()) {
        if left == 0 {
            break;
        }
        let n = v.free.copies_of(demand).min(left);
        placement.add(v.id, n);
        left -= n;
    }
    if left == 0 {
        return Some((placement, 0.0));
    }
    let k = left as usize;
    // best[j]: the least price hosting j more executors (capped at k), and how.
    let off: Vec<(VmId, u32, f64)> = cluster
        .vms
        .iter()
        .filter(|v| !v.is_active())
        .map(|v| (v.id, v.free.copies_of(demand).min(left), v.price_per_second))
        .filter(|&(_, slots, _)| slots > 0)
        .collect();
    let mut best = vec![f64::INFINITY; k + 1];
    best[0] = 0.0;
    // choice[i][j]: whether off VM i is taken in the best way to host j (row per VM).
    let mut taken = vec![false; off.len() * (k + 1)];
    for (i, &(_, slots, price)) in off.iter().enumerate() {
        // 0/1: iterate j downwards so each VM is used once.
        for j in (1..=k).rev() {
            let from = j.saturating_sub(slots as usize);
            let c = best[from] + price;
            if c < best[j] {
                best[j] = c;
                taken[i * (k + 1) + j] = true;
            }
        }
    }
    if !best[k].is_finite() {
        return None;
    }
    // Walk back from k over the VMs in reverse, as the table was filled.
    let mut j = k;
    let mut chosen = Vec::new();
    for i in (0..off.len()).rev() {
        if j == 0 {
            break;
        }
        if taken[i * (k + 1) + j] {
            chosen.push(i);
            j = j.saturating_sub(off[i].1 as usize);
        }
    }
    chosen.reverse();
    for i in chosen {
        let n = off[i].1.min(left);
        placement.add(off[i].0, n);
        left -= n;
    }
    debug_assert_eq!(left, 0);
    Some((placement, best[k]))
}
