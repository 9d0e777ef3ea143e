//! Several jobs: a time-indexed MILP solved by `good_lp`'s `microlp` proves the joint
//! optimum of Eq. 3 on small problems, and the exact construction (each job's optimum
//! given the jobs before it) and its lower bound are checked and measured against it.

mod common;

use good_lp::{Expression, ProblemVariables, Solution, SolverModel, constraint, variable};
use proptest::prelude::prop;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;

use frugal_ephemeral::exact;
use frugal_ephemeral::job::{Job, TaskKind};
use frugal_ephemeral::plan::Problem;
use frugal_ephemeral::trace::STEP_S;

/// The grid of the MILP, seconds. With every duration a multiple of it (plan slot 60 s)
/// and capacity constant over 180-s steps, moving each start down to the grid keeps a
/// plan feasible: the tasks running during a grid piece are those that ran at the end of
/// that piece, and a reduce's start stays after its maps' ends. So the grid loses nothing.
const GRID_S: u32 = 60;

/// The smallest makespan (Eq. 3) of a plan that schedules every job of `p` and ends by
/// `at_most` (a known plan's makespan, which keeps the search small), seconds, or `None`
/// when no plan does. `p.plan_slot_s` must be a multiple of [`GRID_S`].
///
/// Tasks of one job and kind are identical, so y(g, n, q) counts the tasks of group g
/// (job, kind) that start on node n in grid piece q. Binary w(j, q): every map of job j
/// has ended by piece q (a reduce of j may start at q only then); binary v(q): every
/// task has ended by q. Maximising Σ v gives the makespan 60 · (Q + 1 − Σ v).
fn joint_optimum(p: &Problem, at_most: u32) -> Option<u32> {
    assert_eq!(p.plan_slot_s % GRID_S, 0);
    let pieces = p.window_s / GRID_S;
    let mut vars = ProblemVariables::new();
    // (job, kind, count, ram, representative task index)
    let groups: Vec<(usize, TaskKind, usize, f64, usize)> = p
        .jobs
        .iter()
        .enumerate()
        .flat_map(|(j, job)| {
            groups_of(job)
                .into_iter()
                .map(move |g| (j, g.0, g.1, g.2, g.3))
        })
        .collect();
    // y[g][n][q], only where the task ends inside the window.
    let y: Vec<Vec<Vec<Option<good_lp::Variable>>>> = groups
        .iter()
        .map(|&(j, _, count, _, i)| {
            (0..p.nodes.len())
                .map(|n| {
                    let d = p.duration((j, i), n) / GRID_S;
                    (0..pieces)
                        .map(|q| {
                            (q + d <= pieces)
                                .then(|| vars.add(variable().integer().min(0).max(count as f64)))
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    let y = &y;
    let w: Vec<Vec<_>> = p
        .jobs
        .iter()
        .map(|_| {
            (0..=pieces)
                .map(|_| vars.add(variable().binary()))
                .collect()
        })
        .collect();
    let v: Vec<_> = (0..=pieces)
        .map(|_| vars.add(variable().binary()))
        .collect();
    let objective: Expression = v.iter().sum();
    let mut m = vars.maximise(objective).using(good_lp::microlp);
    let groups = &groups;
    let d = move |g: usize, n: usize| {
        let (j, _, _, _, i) = groups[g];
        p.duration((j, i), n) / GRID_S
    };
    // Ended by piece q: starts q' with q' + d ≤ q.
    let ended = move |g: usize, q: u32| -> Expression {
        (0..p.nodes.len())
            .flat_map(|n| {
                (0..pieces)
                    .filter(move |&s| s + d(g, n) <= q)
                    .filter_map(move |s| y[g][n][s as usize])
            })
            .sum()
    };
    for (g, &(_, _, count, _, _)) in groups.iter().enumerate() {
        let all: Expression = y[g].iter().flatten().flatten().sum();
        m.add_constraint(constraint!(all == count as f64));
    }
    for (n, node) in p.nodes.iter().enumerate() {
        for q in 0..pieces {
            let step = (q * GRID_S / STEP_S) as usize;
            let (cpu, ram) = (
                node.cpu.get(step).copied().unwrap_or(0.0),
                node.ram.get(step).copied().unwrap_or(0.0),
            );
            let (mut used_cpu, mut used_ram) = (Expression::from(0.0), Expression::from(0.0));
            for (g, &(_, _, _, ram_g, _)) in groups.iter().enumerate() {
                for s in (0..=q).filter(|&s| q < s + d(g, n)) {
                    if let Some(var) = y[g][n][s as usize] {
                        used_cpu += node.slot_flops / 1e9 * var;
                        used_ram += ram_g * var;
                    }
                }
            }
            // The plan checker's relative slack of 10⁻⁹.
            m.add_constraint(constraint!(used_cpu <= cpu / 1e9 * (1.0 + 1e-9)));
            m.add_constraint(constraint!(used_ram <= ram * (1.0 + 1e-9)));
        }
    }
    for (j, job) in p.jobs.iter().enumerate() {
        let of = |kind| {
            groups
                .iter()
                .enumerate()
                .filter(move |(_, g)| g.0 == j && g.1 == kind)
        };
        let maps = job.maps().len() as f64;
        let reduces = job.reduces().len() as f64;
        for q in 0..=pieces {
            let maps_ended: Expression = of(TaskKind::Map).map(|(g, _)| ended(g, q)).sum();
            m.add_constraint(constraint!(maps_ended >= maps * w[j][q as usize]));
            if q < pieces {
                let starting: Expression = of(TaskKind::Reduce)
                    .flat_map(|(g, _)| (0..p.nodes.len()).filter_map(move |n| y[g][n][q as usize]))
                    .sum();
                m.add_constraint(constraint!(starting <= reduces * w[j][q as usize]));
            }
        }
    }
    let tasks: usize = groups.iter().map(|g| g.2).sum();
    for q in 0..=pieces {
        let done: Expression = (0..groups.len()).map(|g| ended(g, q)).sum();
        m.add_constraint(constraint!(done >= tasks as f64 * v[q as usize]));
    }
    // A known plan's makespan caps the search.
    for q in (at_most / GRID_S)..=pieces {
        m.add_constraint(constraint!(v[q as usize] == 1.0));
    }
    // Once ended, ended for good: valid cuts that keep the branch and bound small.
    for q in 0..pieces as usize {
        m.add_constraint(constraint!(v[q] <= v[q + 1]));
        for wj in &w {
            m.add_constraint(constraint!(wj[q] <= wj[q + 1]));
        }
    }
    let s = m.solve().ok()?;
    let finished: u32 = v.iter().map(|&x| s.value(x).round() as u32).sum();
    Some(GRID_S * (pieces + 1 - finished))
}

/// A job's tasks in groups of identical ones: (kind, count, RAM, first task's index).
fn groups_of(job: &Job) -> Vec<(TaskKind, usize, f64, usize)> {
    let mut out: Vec<(TaskKind, usize, f64, usize, f64)> = Vec::new();
    for (i, t) in job.tasks.iter().enumerate() {
        match out
            .iter_mut()
            .find(|g| g.0 == t.kind && g.2 == t.ram_gib && g.4 == t.work_flop)
        {
            Some(g) => g.1 += 1,
            None => out.push((t.kind, 1, t.ram_gib, i, t.work_flop)),
        }
    }
    out.into_iter().map(|g| (g.0, g.1, g.2, g.3)).collect()
}

/// Small random problems from a fixed seed: 1–3 nodes, 1–2 jobs of 1–3 maps and 1–2
/// reduces, a 720-s window (the nodes' four forecast steps) and 60-s plan slots — as
/// large as `microlp`'s branch and bound proves in well under a second.
fn problems(count: usize) -> Vec<Problem> {
    let mut runner = TestRunner::deterministic();
    let strategy = (
        prop::collection::vec(common::node(), 1..4),
        prop::collection::vec(common::job_spec(4), 1..3),
    )
        .prop_map(|(nodes, jobs)| Problem {
            nodes,
            jobs: jobs
                .into_iter()
                .enumerate()
                .map(|(j, spec)| Job::new(j, spec))
                .collect(),
            window_s: 720,
            plan_slot_s: 60,
        });
    (0..count)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

/// The construction is optimal for one job (the MILP agrees); with several jobs its plan
/// is a solution of the MILP, and the lower bound is never above the joint optimum.
/// Prints how far apart they are (`--nocapture`).
#[test]
fn the_milp_bounds_the_construction_on_several_jobs() {
    let (mut several, mut gaps, mut bound_gaps) = (0, Vec::new(), Vec::new());
    for p in problems(300) {
        let all: Vec<usize> = (0..p.jobs.len()).collect();
        let plan = exact::plan(&p);
        if plan.jobs_scheduled() < p.jobs.len() {
            continue;
        }
        let (built, bound) = (plan.makespan(&p), exact::lower_bound(&p, &all));
        // The construction's plan is a solution of the MILP, so there is an optimum.
        let optimum = joint_optimum(&p, built).expect("the construction's plan is feasible");
        assert!(bound <= optimum, "bound {bound} > optimum {optimum}: {p:?}");
        if p.jobs.len() == 1 {
            assert_eq!(
                optimum, built,
                "one job: the construction is optimal: {p:?}"
            );
        } else if optimum > 0 {
            several += 1;
            gaps.push(100.0 * (f64::from(built) / f64::from(optimum) - 1.0));
            bound_gaps.push(100.0 * (1.0 - f64::from(bound) / f64::from(optimum)));
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    eprintln!(
        "{several} problems of several jobs: construction above the optimum by {:.1} % on \
         average (max {:.1} %, optimal in {}); bound below it by {:.1} % (max {:.1} %)",
        mean(&gaps),
        max(&gaps),
        gaps.iter().filter(|&&g| g == 0.0).count(),
        mean(&bound_gaps),
        max(&bound_gaps),
    );
    assert!(
        several >= 50,
        "too few problems of several jobs fit: {several}"
    );
}
