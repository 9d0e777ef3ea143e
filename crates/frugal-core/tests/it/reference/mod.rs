//! The placement policies as they were before the placement index: every choice found by
//! scanning every VM. Kept as the oracle the indexed policies are checked against
//! (`tests/it/index_equivalence.rs`); only the public cluster API is used.

use frugal_core::cluster::{Cluster, Site, Vm, VmId};
use frugal_core::policy::objective::vm_cost;
use frugal_core::resources::{CPU, MEMORY};
use frugal_core::{Job, JobKind, Placement, PolicyKind, Resources, Rut};

/// VM ids by price, then id: "the cheapest VM".
fn by_price(c: &Cluster) -> Vec<VmId> {
    let mut ids: Vec<VmId> = (0..c.len() as VmId).collect();
    ids.sort_by(|&a, &b| {
        let (va, vb) = (c.vm(a), c.vm(b));
        va.price_per_second
            .total_cmp(&vb.price_per_second)
            .then(a.cmp(&b))
    });
    ids
}

/// VM ids by cores, memory, price, then id: "the smallest VM".
fn by_size(c: &Cluster) -> Vec<VmId> {
    let mut ids: Vec<VmId> = (0..c.len() as VmId).collect();
    ids.sort_by(|&a, &b| {
        let (va, vb) = (c.vm(a), c.vm(b));
        (va.capacity.0[CPU], va.capacity.0[MEMORY])
            .cmp(&(vb.capacity.0[CPU], vb.capacity.0[MEMORY]))
            .then(va.price_per_second.total_cmp(&vb.price_per_second))
            .then(a.cmp(&b))
    });
    ids
}

fn fill(
    p: &mut Placement,
    c: &Cluster,
    d: &Resources,
    mut rem: u32,
    order: impl IntoIterator<Item = VmId>,
) -> u32 {
    for id in order {
        if rem == 0 {
            break;
        }
        let k = c.vm(id).free.copies_of(d).min(rem);
        if k > 0 {
            p.add(id, k);
            rem -= k;
        }
    }
    rem
}

fn fill_by_score(
    c: &Cluster,
    job: &Job,
    keep: impl Fn(&Vm) -> bool,
    score: impl Fn(&Vm) -> f64,
) -> (Placement, u32) {
    let d = &job.executor_demand;
    let mut s: Vec<(f64, VmId)> = c
        .vms
        .iter()
        .filter(|v| keep(v) && v.free.fits(d))
        .map(|v| (score(v), v.id))
        .collect();
    s.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut p = Placement::default();
    let rem = fill(&mut p, c, d, job.executors, s.iter().map(|e| e.1));
    (p, rem)
}

fn active(c: &Cluster) -> Vec<VmId> {
    c.vms
        .iter()
        .filter(|v| v.is_active())
        .map(|v| v.id)
        .collect()
}

fn off_in(c: &Cluster, order: &[VmId], keep: impl Fn(&Vm) -> bool) -> Vec<VmId> {
    order
        .iter()
        .copied()
        .filter(|&id| !c.vm(id).is_active() && keep(c.vm(id)))
        .collect()
}

fn slots(c: &Cluster, d: &Resources, keep: impl Fn(&Vm) -> bool) -> u64 {
    c.vms
        .iter()
        .filter(|v| keep(v))
        .map(|v| u64::from(v.free.copies_of(d)))
        .sum()
}

fn first_fit(job: &Job, c: &Cluster) -> Option<Placement> {
    let d = &job.executor_demand;
    let mut p = Placement::default();
    let rem = fill(&mut p, c, d, job.executors, active(c));
    let rem = fill(&mut p, c, d, rem, off_in(c, &by_price(c), |_| true));
    (rem == 0).then_some(p)
}

/// Spark standalone's `spreadOut = false`, as written: every VM with room for one
/// executor (on or off), by free cores descending, equal free cores higher id first.
fn spark_consolidate(job: &Job, c: &Cluster) -> Option<Placement> {
    let d = &job.executor_demand;
    let mut order: Vec<&Vm> = c.vms.iter().filter(|v| v.free.fits(d)).collect();
    order.sort_by_key(|v| std::cmp::Reverse((v.free.cores(), v.id)));
    let mut p = Placement::default();
    let rem = fill(&mut p, c, d, job.executors, order.iter().map(|v| v.id));
    (rem == 0).then_some(p)
}

fn best_fit_decreasing(job: &Job, c: &Cluster) -> Option<Placement> {
    let rut = Rut::default();
    let (mut p, rem) = fill_by_score(
        c,
        job,
        |v| v.is_active(),
        |v| rut.resource_availability(&v.free, c),
    );
    let rem = fill(
        &mut p,
        c,
        &job.executor_demand,
        rem,
        off_in(c, &by_size(c), |_| true),
    );
    (rem == 0).then_some(p)
}

fn morpheus(job: &Job, c: &Cluster) -> Option<Placement> {
    let (mut p, rem) = fill_by_score(c, job, |v| v.is_active(), |v| -v.dominant_utilisation());
    let rem = fill(
        &mut p,
        c,
        &job.executor_demand,
        rem,
        off_in(c, &by_price(c), |_| true),
    );
    (rem == 0).then_some(p)
}

fn gio(job: &Job, c: &Cluster, now: f64) -> Option<Placement> {
    let local_only =
        slots(c, &job.executor_demand, |v| v.site == Site::Local) >= u64::from(job.executors);
    let t_c = if local_only {
        job.t_local
    } else {
        job.t_hybrid
    };
    let (p, rem) = fill_by_score(
        c,
        job,
        |v| !local_only || v.site == Site::Local,
        |v| vm_cost(v, t_c, now),
    );
    (rem == 0).then_some(p)
}

fn asq(job: &Job, c: &Cluster) -> Option<Placement> {
    let place_on = |site: Site| {
        let d = &job.executor_demand;
        if slots(c, d, |v| v.site == site) < u64::from(job.executors) {
            return None;
        }
        let mut p = Placement::default();
        let on_site: Vec<VmId> = c
            .vms
            .iter()
            .filter(|v| v.is_active() && v.site == site)
            .map(|v| v.id)
            .collect();
        let rem = fill(&mut p, c, d, job.executors, on_site);
        let rem = fill(
            &mut p,
            c,
            d,
            rem,
            off_in(c, &by_price(c), |v| v.site == site),
        );
        (rem == 0).then_some(p)
    };
    place_on(Site::Local).or_else(|| place_on(Site::Cloud))
}

fn aep(job: &Job, c: &Cluster) -> Option<Placement> {
    let d = &job.executor_demand;
    let e = job.executors;
    if job.kind == JobKind::NetworkBound {
        let whole = c
            .vms
            .iter()
            .filter(|v| v.is_active() && v.free.copies_of(d) >= e)
            .min_by_key(|v| (v.free.copies_of(d), v.id))
            .map(|v| v.id)
            .or_else(|| {
                off_in(c, &by_price(c), |v| v.free.copies_of(d) >= e)
                    .first()
                    .copied()
            });
        if let Some(id) = whole {
            let mut p = Placement::default();
            p.add(id, e);
            return Some(p);
        }
        return first_fit(job, c);
    }
    let mut order: Vec<VmId> = c
        .vms
        .iter()
        .filter(|v| v.is_active() && v.free.fits(d))
        .map(|v| v.id)
        .collect();
    order.extend(off_in(c, &by_price(c), |v| v.free.fits(d)));
    let mut p = Placement::default();
    let mut placed = 0;
    while placed < e {
        let before = placed;
        for &id in &order {
            if placed == e {
                break;
            }
            if c.vm(id).free.copies_of(d) > p.on(id) {
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

fn deal(
    p: &mut Placement,
    c: &Cluster,
    d: &Resources,
    e: u32,
    cand: &[VmId],
    start: usize,
) -> Result<usize, usize> {
    let n = cand.len();
    if n == 0 {
        return Err(0);
    }
    let (mut i, mut misses) = (start % n, 0);
    while p.executors() < e {
        let id = cand[i];
        if c.vm(id).free.copies_of(d) > p.on(id) {
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

fn round_robin_consolidate(job: &Job, c: &Cluster, last: &mut Option<VmId>) -> Option<Placement> {
    let d = &job.executor_demand;
    let mut cand = active(c);
    let mut start = match *last {
        Some(l) => cand.iter().position(|&id| id > l).unwrap_or(0),
        None => 0,
    };
    let mut p = Placement::default();
    let mut next_off = c.vms.iter().filter(|v| !v.is_active() && v.free.fits(d));
    loop {
        match deal(&mut p, c, d, job.executors, &cand, start) {
            Ok(next) => {
                let n = cand.len();
                *last = Some(cand[(next + n - 1) % n]);
                return Some(p);
            }
            Err(_) => {
                cand.push(next_off.next()?.id);
                start = cand.len() - 1;
            }
        }
    }
}

fn optimal_cover(
    job: &Job,
    c: &Cluster,
    now: f64,
    t_c: f64,
    site_ok: impl Fn(Site) -> bool,
) -> Option<(f64, u32, Placement)> {
    let e_total = job.executors as usize;
    let d = &job.executor_demand;
    let items: Vec<(VmId, u32, f64)> = c
        .vms
        .iter()
        .filter(|v| site_ok(v.site) && v.free.copies_of(d) > 0)
        .map(|v| (v.id, v.free.copies_of(d), vm_cost(v, t_c, now)))
        .collect();
    let width = e_total + 1;
    let mut best = vec![(f64::INFINITY, u32::MAX); width];
    best[0] = (0.0, 0);
    let mut from = vec![u32::MAX; items.len() * width];
    for (i, &(_, k, cost_i)) in items.iter().enumerate() {
        for e in (0..e_total).rev() {
            let (cost, n) = best[e];
            if cost == f64::INFINITY {
                continue;
            }
            let to = (e + k as usize).min(e_total);
            let cand = (cost + cost_i, n + 1);
            let cur = best[to];
            if cand.0 < cur.0 || (cand.0 == cur.0 && cand.1 < cur.1) {
                best[to] = cand;
                from[i * width + to] = e as u32;
            }
        }
    }
    let (cost, n) = best[e_total];
    if cost == f64::INFINITY {
        return None;
    }
    let mut p = Placement::default();
    let (mut e, mut remaining) = (e_total, job.executors);
    for i in (0..items.len()).rev() {
        if e == 0 {
            break;
        }
        let prev = from[i * width + e];
        if prev != u32::MAX {
            let (id, k, _) = items[i];
            let take = k.min(remaining);
            p.add(id, take);
            remaining -= take;
            e = prev as usize;
        }
    }
    p.executors_per_vm.sort_unstable();
    Some((cost, n, p))
}

fn optimal(job: &Job, c: &Cluster, now: f64) -> Option<(f64, u32, Placement)> {
    if !c.has_local_site {
        return optimal_cover(job, c, now, job.t_local, |_| true);
    }
    let local = optimal_cover(job, c, now, job.t_local, |s| s == Site::Local);
    let hybrid = optimal_cover(job, c, now, job.t_hybrid, |_| true);
    match (local, hybrid) {
        (Some(l), Some(h)) => Some(if (h.0, h.1) < (l.0, l.1) { h } else { l }),
        (l, h) => l.or(h),
    }
}

/// A policy of the oracle, with the state the stateful ones keep between calls.
pub struct Reference {
    kind: PolicyKind,
    rrc_last: Option<VmId>,
}

impl Reference {
    /// The oracle for `kind` (every policy but round robin, which reads no index, and
    /// `milp`).
    pub fn new(kind: PolicyKind) -> Self {
        Reference {
            kind,
            rrc_last: None,
        }
    }

    /// The oracle's placement of `job` at `now`.
    pub fn place(&mut self, job: &Job, c: &Cluster, now: f64) -> Option<Placement> {
        match self.kind {
            PolicyKind::FirstFit => first_fit(job, c),
            PolicyKind::SparkConsolidate => spark_consolidate(job, c),
            PolicyKind::BestFitDecreasing => best_fit_decreasing(job, c),
            PolicyKind::Morpheus => morpheus(job, c),
            PolicyKind::Gio => gio(job, c, now),
            PolicyKind::Asq => asq(job, c),
            PolicyKind::Aep => aep(job, c),
            PolicyKind::RoundRobinConsolidate => {
                round_robin_consolidate(job, c, &mut self.rrc_last)
            }
            PolicyKind::Optimal => optimal(job, c, now).map(|r| r.2),
            k => panic!("no oracle for {}", k.name()),
        }
    }
}
