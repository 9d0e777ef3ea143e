//! The exact planner is exact: its node lemma against a MILP solved by `good_lp`'s
//! `microlp`, its whole plans against exhaustive search, a hand-worked plan; and the
//! metaheuristics never beat it, always return feasible plans, and repeat with a seed.

use crate::common;

use good_lp::{Expression, ProblemVariables, Solution, SolverModel, constraint, variable};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use frugal_ephemeral::exact;
use frugal_ephemeral::ga::Nsga3;
use frugal_ephemeral::job::{Job, JobSpec, MIB};
use frugal_ephemeral::ls::LocalSearch;
use frugal_ephemeral::plan::{Assignment, NodeCapacity, Plan, Problem, violations};
use frugal_ephemeral::planner::{self, Planner};
use frugal_ephemeral::rffd;
use frugal_ephemeral::search::Budget;

/// A node of 20 GFLOP/s (1 GFLOP/s per slot) with `slots[s]` free slots and `ram[s]` GiB
/// in 3-minute step s.
fn node(slots: &[u32], ram: &[f64]) -> NodeCapacity {
    node_of(20.0, slots, ram)
}

/// A node of `gflops` with `slots[s]` free slots of `gflops`/20 in step s.
fn node_of(gflops: f64, slots: &[u32], ram: &[f64]) -> NodeCapacity {
    let slot = gflops / 20.0;
    NodeCapacity::new(
        gflops,
        slots.iter().map(|&n| f64::from(n) * slot).collect(),
        ram.to_vec(),
    )
}

/// A job whose maps last `map_s` and reduces `reduce_s` seconds on a 1 GFLOP/s slot.
fn job(maps: usize, reduces: usize, map_s: u32, reduce_s: u32, ram_gib: f64) -> Job {
    job_of(1, maps, reduces, map_s, reduce_s, ram_gib)
}

/// The same with chunks of `chunk_mib` (each map's output as large, spec A9).
fn job_of(
    chunk_mib: u32,
    maps: usize,
    reduces: usize,
    map_s: u32,
    reduce_s: u32,
    ram_gib: f64,
) -> Job {
    let mut j = Job::new(
        0,
        JobSpec {
            maps,
            reduces,
            chunk_mib,
            map_flop_per_byte: f64::from(map_s) * 1e9 / (f64::from(chunk_mib) * MIB),
            ram_gib,
            ..JobSpec::paper(128)
        },
    );
    for t in j.reduces() {
        j.tasks[t].work_flop = f64::from(reduce_s) * 1e9;
    }
    j
}

fn problem(nodes: Vec<NodeCapacity>, job: Job, window_s: u32, plan_slot_s: u32) -> Problem {
    Problem {
        nodes,
        jobs: vec![job],
        window_s,
        plan_slot_s,
    }
}

#[test]
fn hand_worked_plan_prefers_the_earliest_end() {
    // Node 0: 1 slot throughout. Node 1: no room in step 0, 2 slots from 180 s. Maps last
    // 100 s, reduces 60 s, 1 GiB each, RAM plentiful.
    //   Greedy ends, node 0: 100, 200, 300, …; node 1: 280, 280, 380, 380, …
    //   4 maps: the 4 smallest ends are 100, 200, 280 (node 1), 280 (node 1) → maps end
    //   at 280; Alg. 1 would have started map 3 at 200 on node 0 (earliest start) and
    //   ended at 300. Reduces from 280: node 0 → 340; node 1 → 340, 340. Two reduces end
    //   at 340, the makespan.
    let ram = [8.0; 8];
    let p = problem(
        vec![node(&[1; 8], &ram), node(&[0, 2, 2, 2, 2, 2, 2, 2], &ram)],
        job(4, 2, 100, 60, 1.0),
        1440,
        1,
    );
    let plan = exact::plan(&p);
    let a = |node, start| Some(Assignment { node, start });
    assert_eq!(
        plan.0[0],
        vec![
            a(0, 0),
            a(0, 100),
            a(1, 180),
            a(1, 180),
            a(0, 280),
            a(1, 280)
        ]
    );
    assert_eq!(plan.makespan(&p), 340);
    assert!(violations(&p, &plan).is_empty());
    // Four maps that cannot all end inside 250 s: the job is rejected (Eq. 2's optimum 0).
    let tight = Problem {
        window_s: 250,
        ..p.clone()
    };
    assert_eq!(exact::plan(&tight).scheduled(), 0);
    // A second job planned on what the first leaves. Node 0 is reserved over [0, 200) and
    // [280, 340), node 1 by two tasks over [180, 280) and one over [280, 340).
    //   Maps: node 0 has no 100-s gap before 340 → ends 440, 540, …; node 1 → starts 280,
    //   340, 380, 440 (one free slot beside the first job's reduce, then beside its own
    //   maps) → ends 380, 440, 480, 540. The 4 smallest: 380 (n1), 440 (n0: fewer so
    //   far), 440 (n1), 480 (n1) → M = 480. Reduces from 480: both nodes free, 540 each,
    //   the tie to node 0 first. Makespan 540.
    let two = Problem {
        jobs: vec![
            p.jobs[0].clone(),
            Job {
                tasks: p.jobs[0]
                    .tasks
                    .iter()
                    .map(|t| frugal_ephemeral::job::Task {
                        job: 1,
                        ..t.clone()
                    })
                    .collect(),
                ..p.jobs[0].clone()
            },
        ],
        ..p
    };
    let plan = exact::plan(&two);
    assert_eq!(
        plan.0[0],
        exact::plan(&Problem {
            jobs: vec![two.jobs[0].clone()],
            ..two.clone()
        })
        .0[0]
    );
    assert_eq!(
        plan.0[1],
        vec![
            a(1, 280),
            a(0, 340),
            a(1, 340),
            a(1, 380),
            a(0, 480),
            a(1, 480)
        ]
    );
    assert_eq!(plan.makespan(&two), 540);
    assert!(violations(&two, &plan).is_empty());
    // The bound: each job alone ends by 340; the 8 maps pooled end by 400 at the earliest
    // (node 0: 100, 200, 300, 400; node 1: 280, 280, 380, 380), then a 60-s reduce: 460.
    assert_eq!(exact::lower_bound(&two, &[0, 1]), 460);
    let solved = planner::solve(
        Planner::Exact,
        &two,
        None,
        &mut ChaCha8Rng::seed_from_u64(1),
    );
    assert!(!solved.proven_optimal);
    let gap = solved.gap_pct.unwrap();
    assert!((gap - 100.0 * (540.0 / 460.0 - 1.0)).abs() < 1e-9, "{gap}");
    let one = planner::solve(
        Planner::Exact,
        &tight,
        None,
        &mut ChaCha8Rng::seed_from_u64(1),
    );
    assert!(one.proven_optimal);
}

#[test]
fn the_shuffle_is_paid_in_the_estimate_and_the_network_plan() {
    // Node 0: 2 slots, node 1: 1 slot, both 1 GFLOP/s per slot. Three 60-s maps of 100 MiB
    // chunks, one 60-s reduce.
    //   Maps: ends node 0: 60, 60, 120, …; node 1: 60, 120, … → (60, n0), (60, n1) (fewer
    //   so far), (60, n0): M = 60, 200 MiB of output on node 0, 100 MiB on node 1.
    //   Reduce from 60: 120 on either node, the tie to node 0, so only node 1's 100 MiB
    //   moves: 104,857,600 B at 6,250,000 B/s = 16.8 s, ⌈⌉ = 17. The reduce then ends at
    //   60 + 17 + 60 = 137, not at the makespan 120.
    //   Network plan: c_m ∈ [⌈3/2⌉, 2] = {2}, the same maps; its reduce, re-planned from
    //   77, is again on node 0 and ends at 137 — no better, so the paper's plan is kept.
    let ram = [8.0; 8];
    let p = problem(
        vec![node(&[2; 8], &ram), node(&[1; 8], &ram)],
        job_of(100, 3, 1, 60, 60, 1.0),
        1440,
        1,
    );
    let plan = exact::plan(&p);
    let a = |node, start| Some(Assignment { node, start });
    assert_eq!(plan.0[0], vec![a(0, 0), a(1, 0), a(0, 0), a(0, 60)]);
    assert_eq!(plan.makespan(&p), 120);
    assert_eq!(plan.job_times_with_shuffle(&p), vec![137]);
    assert_eq!(exact::plan_network(&p), plan);
    // One node: nothing moves, the estimate is the makespan.
    let one = problem(
        vec![node(&[2; 8], &ram)],
        job_of(100, 3, 1, 60, 60, 1.0),
        1440,
        1,
    );
    let plan = exact::plan(&one);
    assert_eq!(plan.job_times_with_shuffle(&one), vec![plan.makespan(&one)]);
}

/// The most identical tasks of `d` seconds (a multiple of 60) one node can run inside
/// `window_s`, by a MILP over starts on the 60-second grid (no loss: capacity changes
/// only every 180 s, so shifting every start down to the grid keeps the plan feasible).
fn milp_max_tasks(slots: &[u32], ram: &[f64], ram_per_task: f64, d: u32, window_s: u32) -> u32 {
    let mut vars = ProblemVariables::new();
    let starts: Vec<_> = (0..=(window_s - d) / 60)
        .map(|_| vars.add(variable().integer().min(0)))
        .collect();
    let total: Expression = starts.iter().sum();
    let mut m = vars.maximise(total).using(good_lp::microlp);
    for piece in 0..window_s / 60 {
        let step = (piece / 3) as usize;
        let cap = f64::from(slots[step]).min((ram[step] / ram_per_task).floor());
        let running: Expression = starts
            .iter()
            .enumerate()
            .filter(|&(q, _)| q as u32 <= piece && piece < q as u32 + d / 60)
            .map(|(_, &v)| v)
            .sum();
        m.add_constraint(constraint!(running <= cap));
    }
    let s = m.solve().expect("a bounded feasible MILP");
    starts.iter().map(|&v| s.value(v).round() as u32).sum()
}

/// The most maps the exact planner schedules on one node.
fn exact_max_tasks(slots: &[u32], ram: &[f64], ram_per_task: f64, d: u32, window_s: u32) -> u32 {
    let mut n = 0;
    loop {
        let p = problem(
            vec![node(slots, ram)],
            job(n + 1, 0, d, 0, ram_per_task),
            window_s,
            60,
        );
        if exact::plan(&p).scheduled() == 0 {
            return n as u32;
        }
        n += 1;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Step 1 of `exact`'s proof: the node greedy packs as many tasks as a MILP optimum.
    #[test]
    fn node_greedy_packs_as_many_tasks_as_a_milp(
        slots in prop::collection::vec(0u32..5, 10),
        ram in prop::collection::vec(0.0..13.0f64, 10),
        ram_per_task in prop_oneof![Just(1.0), Just(3.0), Just(4.0)],
        d in prop_oneof![Just(60u32), Just(120), Just(180), Just(300), Just(420)],
    ) {
        let window_s = 1800;
        prop_assert_eq!(
            exact_max_tasks(&slots, &ram, ram_per_task, d, window_s),
            milp_max_tasks(&slots, &ram, ram_per_task, d, window_s)
        );
    }
}

/// The best (most scheduled, then least makespan) plan among all plans whose starts are
/// multiples of 180 s (no loss with 180-s durations and capacity steps: module docs of
/// `milp_max_tasks`).
fn exhaustive(p: &Problem) -> (usize, u32) {
    let tasks = p.jobs[0].tasks.len();
    let options: Vec<Assignment> = (0..p.nodes.len())
        .flat_map(|node| {
            (0..p.window_s / 180).map(move |q| Assignment {
                node,
                start: q * 180,
            })
        })
        .collect();
    let mut best = (0, 0);
    let mut index = vec![0usize; tasks];
    loop {
        let plan = Plan(vec![index.iter().map(|&i| Some(options[i])).collect()]);
        if violations(p, &plan).is_empty() {
            let m = plan.makespan(p);
            if best.0 == 0 || m < best.1 {
                best = (tasks, m);
            }
        }
        let mut i = 0;
        while i < tasks && index[i] + 1 == options.len() {
            index[i] = 0;
            i += 1;
        }
        if i == tasks {
            return best;
        }
        index[i] += 1;
    }
}

#[test]
fn exact_plans_match_exhaustive_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    use rand::RngExt;
    for _ in 0..6 {
        let mut nodes = Vec::new();
        // A node of 1 GFLOP/s slots and one twice as fast.
        for gflops in [20.0, 40.0] {
            let slots: Vec<u32> = (0..8).map(|_| rng.random_range(0..3)).collect();
            let ram: Vec<f64> = (0..8)
                .map(|_| rng.random_range(0..3) as f64 * 3.0)
                .collect();
            nodes.push(node_of(gflops, &slots, &ram));
        }
        let map_s = 180 * rng.random_range(1..4);
        let p = problem(nodes, job(3, 1, map_s, 180, 3.0), 1440, 180);
        let plan = exact::plan(&p);
        assert!(violations(&p, &plan).is_empty());
        let got = (plan.scheduled(), plan.makespan(&p));
        assert_eq!(got, exhaustive(&p), "{p:?}");
    }
}

fn random_problem() -> impl Strategy<Value = Problem> {
    (
        prop::collection::vec(common::node(), 1..5),
        common::job_spec(16),
        common::window_and_slot(),
    )
        .prop_map(|(nodes, spec, (window_s, slot))| {
            problem(nodes, Job::new(0, spec), window_s, slot)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With several jobs, both exact constructions meet Eq. 4–6 and whole jobs, admit the
    /// first job alike (later ones see different residual capacity), and the bound never
    /// exceeds the makespan of the jobs they schedule.
    #[test]
    fn several_jobs_are_planned_feasibly_above_the_bound(p in common::problem_of_jobs(10)) {
        let plan = exact::plan(&p);
        let net = exact::plan_network(&p);
        prop_assert_eq!(violations(&p, &plan), vec![]);
        prop_assert_eq!(violations(&p, &net), vec![]);
        let admitted = |plan: &Plan| -> Vec<usize> {
            (0..p.jobs.len()).filter(|&j| plan.0[j].iter().all(Option::is_some)).collect()
        };
        prop_assert_eq!(admitted(&plan).first() == Some(&0), admitted(&net).first() == Some(&0));
        prop_assert!(exact::lower_bound(&p, &admitted(&plan)) <= plan.makespan(&p));
        prop_assert!(exact::lower_bound(&p, &admitted(&net)) <= net.makespan(&p));
    }

    /// Every planner's plan meets Eq. 4–6; none schedules more, or finishes sooner, than
    /// the exact plan; the same seed gives the same plan.
    #[test]
    fn metaheuristics_are_feasible_and_never_beat_the_optimum(
        p in random_problem(),
        seed in any::<u64>(),
    ) {
        let best = exact::plan(&p);
        prop_assert_eq!(violations(&p, &best), vec![]);
        let budget = Budget { evaluations: 2_000, wall_clock: None, patience: None };
        let start = rffd::plan(&p, &mut ChaCha8Rng::seed_from_u64(seed));
        let ls = |s| LocalSearch::PAPER.solve(&p, &start, budget, &mut ChaCha8Rng::seed_from_u64(s)).0;
        let ga = |s| Nsga3::PAPER.solve(&p, budget, &mut ChaCha8Rng::seed_from_u64(s)).0;
        for plan in [start.clone(), ls(seed), ga(seed)] {
            prop_assert_eq!(violations(&p, &plan), vec![]);
            prop_assert!(plan.scheduled() <= best.scheduled());
            if plan.scheduled() == best.scheduled() && best.scheduled() > 0 {
                prop_assert!(plan.makespan(&p) >= best.makespan(&p));
            }
        }
        prop_assert_eq!(ls(seed), ls(seed));
        prop_assert_eq!(ga(seed), ga(seed));
    }

    /// The shuffle-aware plan meets Eq. 4–6, schedules what the exact plan schedules, and
    /// its estimated job time is never above the exact plan's, nor below its own makespan.
    #[test]
    fn network_plans_are_feasible_and_never_slower_in_estimate(p in random_problem()) {
        let paper = exact::plan(&p);
        let net = exact::plan_network(&p);
        prop_assert_eq!(violations(&p, &net), vec![]);
        prop_assert_eq!(net.scheduled(), paper.scheduled());
        prop_assert!(net.job_times_with_shuffle(&p)[0] <= paper.job_times_with_shuffle(&p)[0]);
        prop_assert!(net.job_times_with_shuffle(&p)[0] >= net.makespan(&p));
    }
}
