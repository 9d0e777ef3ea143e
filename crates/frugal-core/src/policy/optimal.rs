//! Exact cost-optimal placement of one job at heuristic speed.

use super::objective::vm_cost;
use super::{Candidate, PlacementPolicy, needed, push_all};
use crate::cluster::{Cluster, Site, Vm, VmId};
use crate::job::Job;
use crate::placement::Placement;
use crate::queue::QueueDiscipline;

/// Exact minimiser of the per-job objective of paper 000 Eq. 16 (the `milp` policy's
/// objective), in O(G·E) time over the placement index's G groups (at most the m VMs).
///
/// Proof sketch. Fix T_C. A VM j costs c_j = P_j·max(0, T_C − T_j) if it hosts at least one
/// executor and nothing otherwise, whatever the count; the executors are identical, so VM j
/// can take any count up to k_j = ⌊free_j / τ⌋ (minimum over dimensions). Hence every
/// feasible placement maps to a set S with Σ_{j∈S} k_j ≥ E and cost Σ_{j∈S} c_j, and every
/// such set holds a placement: the problem is a minimum-cost cover, solved exactly by a
/// 0/1-knapsack dynamic programme over the covered count capped at E (states ≥ E are
/// interchangeable). T_C depends on the placement (Eq. 5), so two covers are solved:
/// local VMs only at T_C^L, and all VMs at T_C^H. A set without a cloud VM costs no less
/// at T_C^H than at T_C^L (T_C^H ≥ T_C^L), so the cheaper of the two is the optimum.
/// Without a local site only the all-VM cover at T_C^L is solved. Among equal costs the
/// placement on fewer VMs, then the local one, then the one found first wins.
///
/// The items are read from the placement index ([`crate::index`]): VMs with the same
/// class, free resources and busy key have the same (k_j, c_j), and a cover never needs
/// more than ⌈E/k⌉ of them (one fewer still covers, at no more cost), so only each
/// group's ⌈E/k⌉ lowest ids enter the programme, in id order. The cost is then
/// O(G·E) for G groups instead of O(m·E). The optimum's cost is that of the programme
/// over every VM, but among several covers of that cost the one returned can be another
/// than a scan of every VM returns — a documented tie-break change: the "found first"
/// rule sees fewer items, and the VM count is only compared after a comparison of float
/// sums whose rounding depends on the order the programme adds the items in (so between
/// covers of the same exact cost rounding, not the count, can decide, here and in a scan
/// alike). `tests/it/index_equivalence.rs` checks the cost. Every table of the papers'
/// clusters is unchanged by it; on the 56-fold copy of the large-scale cluster (`frugal
/// bench --scale`) the total cost moves by 0.007 % ($131,394.39 → $131,404.12).
#[derive(Clone, Debug, Default)]
pub struct Optimal {
    candidates: Vec<Candidate>,
    items: Vec<(VmId, u32, f64)>,
    /// `best[e]`: (cost, VMs) of the cheapest cover of `e` executors so far.
    best: Vec<(f64, u32)>,
    /// `from[i][e]`: the state before item `i` was added to reach `e`, or `NONE`.
    from: Vec<u32>,
}

const NONE: u32 = u32::MAX;

impl Optimal {
    /// Cheapest cover of `job.executors` executors by the VMs that satisfy `site_ok`, at
    /// completion time `t_c`: its (cost, VMs) and placement.
    pub(super) fn cover(
        &mut self,
        job: &Job,
        cluster: &Cluster,
        now: f64,
        t_c: f64,
        site_ok: impl Fn(Site) -> bool,
    ) -> Option<(f64, u32, Placement)> {
        let e_total = job.executors as usize;
        let d = &job.executor_demand;
        self.items.clear();
        self.candidates.clear();
        let score = |v: &Vm| site_ok(v.site).then(|| vm_cost(v, t_c, now));
        let need = |k| needed(k, job.executors);
        push_all(&mut self.candidates, cluster, d, need, score);
        // Item order is id order, as over all VMs: it decides ties between equal covers
        // (a scan without the index lists them in id order already).
        if cluster.index().is_some() {
            self.candidates.sort_unstable_by_key(|c| c.1);
        }
        self.items.extend(
            self.candidates
                .iter()
                .map(|&(c, id)| (id, cluster.vm(id).free.copies_of(d), c)),
        );
        let width = e_total + 1;
        self.best.clear();
        self.best.resize(width, (f64::INFINITY, u32::MAX));
        self.best[0] = (0.0, 0);
        self.from.clear();
        self.from.resize(self.items.len() * width, NONE);
        for (i, &(_, k, c)) in self.items.iter().enumerate() {
            // Descending source states: each item is used at most once.
            for e in (0..e_total).rev() {
                let (cost, n) = self.best[e];
                if cost == f64::INFINITY {
                    continue;
                }
                let to = (e + k as usize).min(e_total);
                let cand = (cost + c, n + 1);
                let cur = self.best[to];
                if cand.0 < cur.0 || (cand.0 == cur.0 && cand.1 < cur.1) {
                    self.best[to] = cand;
                    self.from[i * width + to] = e as u32;
                }
            }
        }
        let (cost, n) = self.best[e_total];
        if cost == f64::INFINITY {
            return None;
        }
        // Walk back: the last item that improved state e is the one its optimum used.
        let mut p = Placement::with_capacity(n as usize);
        let mut e = e_total;
        let mut remaining = job.executors;
        for i in (0..self.items.len()).rev() {
            if e == 0 {
                break;
            }
            let prev = self.from[i * width + e];
            if prev != NONE {
                let (id, k, _) = self.items[i];
                let take = k.min(remaining);
                p.add(id, take);
                remaining -= take;
                e = prev as usize;
            }
        }
        debug_assert_eq!(remaining, 0);
        p.executors_per_vm.sort_unstable();
        Some((cost, n, p))
    }
}

impl PlacementPolicy for Optimal {
    fn name(&self) -> &'static str {
        "optimal"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, now: f64) -> Option<Placement> {
        if !cluster.has_local_site {
            return self
                .cover(job, cluster, now, job.t_local, |_| true)
                .map(|r| r.2);
        }
        let local = self.cover(job, cluster, now, job.t_local, |s| s == Site::Local);
        let hybrid = self.cover(job, cluster, now, job.t_hybrid, |_| true);
        match (local, hybrid) {
            (Some(l), Some(h)) => Some(if (h.0, h.1) < (l.0, l.1) { h.2 } else { l.2 }),
            (l, h) => l.or(h).map(|r| r.2),
        }
    }

    fn default_queue(&self) -> QueueDiscipline {
        QueueDiscipline::Edf
    }

    fn ranks_by_remaining_time(&self) -> bool {
        true
    }
}
