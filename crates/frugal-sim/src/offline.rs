//! The headroom of a known job list: what any policy that knows every job in advance could
//! reach on its bill, bracketed from below by a proven bound and from above by the best
//! schedule a search finds.
//!
//! - [`lower_bound`]: no schedule of the jobs on the cluster costs less (a fluid bound: the
//!   jobs' resource-seconds bought at the cheapest mix of VM capacity).
//! - [`search`]: the best schedule found by a local search over per-job choices among the
//!   online policies, each candidate replayed through the simulator, so the result is a
//!   real schedule with every metric.
//!
//! Whatever a learned or hand-written policy achieves on the jobs lies above the bound;
//! the best-found schedule shows how much of the gap a global view can take.

use std::collections::HashMap;
use std::sync::Arc;

use frugal_core::DurationModel;
use frugal_core::cluster::Cluster;
use frugal_core::job::{Job, JobKind};
use frugal_core::placement::Placement;
use frugal_core::policy::{PlacementPolicy, PolicyKind};
use frugal_core::queue::QueueDiscipline;
use frugal_core::resources::{CPU, GPU, MEMORY};

use crate::experiment::Setup;
use crate::metrics::RunResult;

/// A lower bound, in dollars, on the bill of any schedule of `jobs` on `cluster` with
/// per-second (or coarser) billing.
///
/// Every job j holds E_j executors of demand (c_j cores, m_j MiB, g_j milli-GPUs) for at
/// least d_j seconds on VMs that are on, so the VMs' on-time x_k (seconds) must buy
/// A_r = Σ_j E_j·demand_jr·d_j of each resource r: Σ_k cap_kr·x_k ≥ A_r. The bill Σ_k p_k·x_k
/// of any schedule is at least the optimum of this linear program, and by weak duality at
/// least A·y for any resource prices y ≥ 0 with cap_k·y ≤ p_k for every VM. The bound is the
/// best such y among the vertices of that polygon (for each resource alone and for each
/// pair of VM types meeting), so it is the LP optimum for one or two resources.
///
/// d_j is the shortest run time the duration model allows: T_C^L, with the kind penalty
/// when no placement avoids it (a network-bound job whose executors fit on no single VM).
/// Boot latency, keep-alive, waiting and fragmentation only add cost, so they are left out;
/// the bound is tight when the cluster is saturated and loose when it is mostly idle.
pub fn lower_bound(jobs: &[Job], cluster: &Cluster, duration: &DurationModel) -> f64 {
    let dims = [CPU, MEMORY, GPU];
    let mut need = [0.0f64; 3];
    for j in jobs {
        let fits_one_vm = cluster
            .vms
            .iter()
            .any(|v| v.capacity.copies_of(&j.executor_demand) >= j.executors);
        let penalty = if j.kind == JobKind::NetworkBound && !fits_one_vm && j.executors > 1 {
            1.0 + duration.kind_penalty.max(0.0)
        } else {
            1.0
        };
        let d = j.t_local * penalty;
        for (n, &r) in need.iter_mut().zip(&dims) {
            *n += f64::from(j.executors) * f64::from(j.executor_demand.0[r]) * d;
        }
    }
    // VM types as (capacity per resource, price per second); VMs of one type and price
    // give the same constraint.
    let mut types: Vec<([f64; 3], f64)> = Vec::new();
    for v in &cluster.vms {
        let cap = dims.map(|r| f64::from(v.capacity.0[r]));
        if !types.contains(&(cap, v.price_per_second)) {
            types.push((cap, v.price_per_second));
        }
    }
    let feasible = |y: &[f64; 3]| {
        y.iter().all(|&v| v >= 0.0 && v.is_finite())
            && types.iter().all(|(cap, p)| {
                cap.iter().zip(y).map(|(c, v)| c * v).sum::<f64>() <= p * (1.0 + 1e-12)
            })
    };
    let value = |y: &[f64; 3]| need.iter().zip(y).map(|(a, v)| a * v).sum::<f64>();
    let mut best = 0.0f64;
    // One resource priced alone: y_r = min over types of p_k / cap_kr.
    for r in 0..3 {
        let yr = types
            .iter()
            .filter(|(cap, _)| cap[r] > 0.0)
            .map(|(cap, p)| p / cap[r])
            .fold(f64::INFINITY, f64::min);
        let mut y = [0.0; 3];
        y[r] = yr;
        if feasible(&y) {
            best = best.max(value(&y));
        }
    }
    // Two resources priced together: the vertex where two types' constraints meet.
    for r in 0..3 {
        for s in r + 1..3 {
            for (a, (ca, pa)) in types.iter().enumerate() {
                for (cb, pb) in &types[a + 1..] {
                    let det = ca[r] * cb[s] - ca[s] * cb[r];
                    if det.abs() < 1e-12 {
                        continue;
                    }
                    let mut y = [0.0; 3];
                    y[r] = (pa * cb[s] - pb * ca[s]) / det;
                    y[s] = (ca[r] * pb - cb[r] * pa) / det;
                    if feasible(&y) {
                        best = best.max(value(&y));
                    }
                }
            }
        }
    }
    best
}

/// The outcome of [`search`].
#[derive(Clone, Debug)]
pub struct Headroom {
    /// The best schedule found; its summary is named `offline` and carries the lower bound.
    pub best: RunResult,
    /// The policy each job (in input order) was placed by in the best schedule.
    pub choices: Vec<PolicyKind>,
    /// Simulations run.
    pub evaluations: usize,
    /// [`lower_bound`] of the jobs, dollars.
    pub lower_bound: f64,
}

/// The candidates [`search`] chooses among by default: every built-in online policy but
/// the solver-backed ones (whose per-job optimum `optimal` already is).
pub fn candidates() -> Vec<PolicyKind> {
    PolicyKind::ALL
        .into_iter()
        .filter(|k| !k.is_solver() && k.in_default_set())
        .collect()
}

/// The cheapest schedule of `jobs` found by choosing, for each job, which of `candidates`
/// places it, with the rest of `setup` (queue, billing, durations) unchanged. FCFS when the
/// setup names no queue.
///
/// Search: every uniform choice (one policy for all jobs) first, then first-improvement
/// local search — for each job in arrival order, each other candidate, kept if the whole
/// run's bill drops by more than 10⁻⁹ $ — in passes until a pass improves nothing or
/// `budget` simulations have run. Deterministic: the same inputs give the same schedule.
///
/// # Panics
/// If `candidates` is empty.
pub fn search(setup: &Setup, jobs: &[Job], candidates: &[PolicyKind], budget: usize) -> Headroom {
    assert!(!candidates.is_empty(), "no candidate policy");
    let index: Arc<HashMap<String, usize>> = Arc::new(
        jobs.iter()
            .enumerate()
            .map(|(i, j)| (j.id.clone(), i))
            .collect(),
    );
    let queue = setup.queue.unwrap_or(QueueDiscipline::Fcfs);
    let setup = Setup {
        queue: Some(queue),
        ..setup.clone()
    };
    let evaluations = std::cell::Cell::new(0usize);
    let run = |choice: &[u8]| {
        evaluations.set(evaluations.get() + 1);
        let policy = PerJob {
            index: Arc::clone(&index),
            choice: choice.to_vec(),
            policies: candidates.iter().map(|k| k.build(&setup.policy)).collect(),
            queue,
        };
        setup.run_with(Box::new(policy), jobs)
    };
    let mut best: Option<(Vec<u8>, RunResult)> = None;
    for c in 0..candidates.len() as u8 {
        let choice = vec![c; jobs.len()];
        let r = run(&choice);
        if best
            .as_ref()
            .is_none_or(|(_, b)| r.summary.total_cost < b.summary.total_cost - 1e-9)
        {
            best = Some((choice, r));
        }
    }
    let (mut choice, mut result) = best.expect("at least one candidate ran");
    'passes: loop {
        let mut improved = false;
        for j in 0..jobs.len() {
            for c in 0..candidates.len() as u8 {
                if c == choice[j] {
                    continue;
                }
                if evaluations.get() >= budget {
                    break 'passes;
                }
                let mut trial = choice.clone();
                trial[j] = c;
                let r = run(&trial);
                if r.summary.total_cost < result.summary.total_cost - 1e-9 {
                    (choice, result) = (trial, r);
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
    let lower_bound = lower_bound(jobs, &setup.cluster, &setup.duration);
    result.summary.policy = "offline".to_string();
    result.summary.cost_lower_bound = Some(lower_bound);
    Headroom {
        best: result,
        choices: choice.iter().map(|&c| candidates[c as usize]).collect(),
        evaluations: evaluations.get(),
        lower_bound,
    }
}

/// A policy that places each job with the candidate chosen for it (jobs found by id).
struct PerJob {
    index: Arc<HashMap<String, usize>>,
    choice: Vec<u8>,
    policies: Vec<Box<dyn PlacementPolicy>>,
    queue: QueueDiscipline,
}

impl PlacementPolicy for PerJob {
    fn name(&self) -> &'static str {
        "offline"
    }

    fn place(&mut self, job: &Job, cluster: &Cluster, now: f64) -> Option<Placement> {
        let c = self.index.get(&job.id).map_or(0, |&i| self.choice[i]);
        self.policies[c as usize].place(job, cluster, now)
    }

    fn default_queue(&self) -> QueueDiscipline {
        self.queue
    }

    fn ranks_by_remaining_time(&self) -> bool {
        self.policies.iter().any(|p| p.ranks_by_remaining_time())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frugal_core::cluster::{InstanceType, Site, VmGroup};
    use frugal_core::resources::Resources;

    fn cluster() -> Cluster {
        // Type a: 4 cores, 8 GiB at $4/h; type b: 2 cores, 16 GiB at $4/h.
        let types = vec![
            InstanceType {
                name: "a".into(),
                capacity: Resources::from_gib(4, 8),
            },
            InstanceType {
                name: "b".into(),
                capacity: Resources::from_gib(2, 16),
            },
        ];
        let group = |t: usize| VmGroup {
            instance_type: t,
            site: Site::Cloud,
            count: 1,
            price_per_second: 4.0 / 3600.0,
        };
        Cluster::new(types, &[group(0), group(1)])
    }

    fn job(id: &str, kind: JobKind, executors: u32, cores: u32, gib: u32, t: f64) -> Job {
        Job {
            id: id.into(),
            kind,
            executors,
            executor_demand: Resources::from_gib(cores, gib),
            arrival: 0.0,
            deadline: None,
            t_local: t,
            t_hybrid: t,
        }
    }

    #[test]
    fn the_bound_prices_resource_seconds_at_the_cheapest_mix() {
        // 1 executor of 1 core and 1 GiB for 3,600 s: 3,600 core-s and 3,600 GiB-s. Pricing
        // cores alone: y = $1/h per core (type a) → $1. Memory alone: $0.25/h per GiB
        // (type b) → $0.25. Both: the vertex of 4u + 8v = 4, 2u + 16v = 4 (per hour, u
        // per core, v per GiB) is u = 2/3, v = 1/6 → 3600 s × (2/3 + 1/6) $/h = $0.8333.
        // The best dual point is cores alone: $1.
        let c = cluster();
        let d = DurationModel::default();
        let one = [job("j", JobKind::CpuBound, 1, 1, 1, 3600.0)];
        assert!((lower_bound(&one, &c, &d) - 1.0).abs() < 1e-9);
        // Memory-heavy: 1 core, 8 GiB for an hour. Cores alone $1; memory alone $2; the
        // vertex u = 2/3, v = 1/6 gives 2/3 + 8/6 = $2 — the LP optimum is $2.
        let heavy = [job("m", JobKind::CpuBound, 1, 1, 8, 3600.0)];
        assert!((lower_bound(&heavy, &c, &d) - 2.0).abs() < 1e-9);
    }

    #[test]
    fn a_network_bound_job_too_wide_for_any_vm_pays_the_kind_penalty_in_the_bound() {
        let c = cluster();
        let d = DurationModel::default();
        // 3 executors of 2 cores: no VM holds 6 cores, so it runs spread, 30 % longer.
        let wide = [job("w", JobKind::NetworkBound, 3, 2, 1, 3600.0)];
        assert!((lower_bound(&wide, &c, &d) - 6.0 * 1.3).abs() < 1e-9);
        let narrow = [job("n", JobKind::NetworkBound, 2, 2, 1, 3600.0)];
        assert!((lower_bound(&narrow, &c, &d) - 4.0).abs() < 1e-9);
    }

    #[test]
    fn the_search_is_never_worse_than_its_best_candidate_and_never_below_the_bound() {
        let c = cluster();
        let jobs: Vec<Job> = (0..6)
            .map(|i| Job {
                arrival: 30.0 * f64::from(i),
                ..job(
                    &format!("j{i}"),
                    [JobKind::CpuBound, JobKind::NetworkBound][i as usize % 2],
                    1 + i % 3,
                    1,
                    2,
                    200.0,
                )
            })
            .collect();
        let setup = Setup {
            queue: Some(QueueDiscipline::Fcfs),
            ..Setup::of(c)
        };
        let h = search(&setup, &jobs, &candidates(), 2_000);
        for k in candidates() {
            let alone = setup.run(k, &jobs).summary.total_cost;
            assert!(h.best.summary.total_cost <= alone + 1e-9, "{k:?}");
        }
        assert!(h.best.summary.total_cost >= h.lower_bound - 1e-9);
        assert_eq!(h.best.summary.completed, jobs.len());
        assert_eq!(h.best.summary.policy, "offline");
        assert_eq!(h.choices.len(), jobs.len());
        // Replaying the chosen policies reproduces the schedule.
        let again = search(&setup, &jobs, &candidates(), 2_000);
        assert_eq!(again.best.summary.total_cost, h.best.summary.total_cost);
        assert_eq!(again.choices, h.choices);
    }
}
