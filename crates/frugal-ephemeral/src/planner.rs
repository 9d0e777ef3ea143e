//! Salamander's four ways to make the holistic plan, behind one call: Alg. 1 alone, the
//! exact optimum (and its shuffle-aware variant), NSGA-III and tabu + late-acceptance local search (paper 001 §III-B2).

use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;

use crate::exact;
use crate::ga::Nsga3;
use crate::joint;
use crate::ls::LocalSearch;
use crate::plan::{Plan, Problem};
use crate::rffd;
use crate::search::{Budget, SearchStats};

/// A planning strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Planner {
    /// Random First Fit Decreasing (Alg. 1) alone.
    Rffd,
    /// The proven optimum ([`crate::exact`]).
    Exact,
    /// The exact construction with the shuffle's cost and per-node caps
    /// ([`crate::exact::plan_network`]).
    ExactNetwork,
    /// NSGA-III from Alg. 1's plans ([`crate::ga`]).
    Ga,
    /// Tabu + late acceptance from Alg. 1's plan ([`crate::ls`]).
    Ls,
    /// The joint optimum of Eq. 3 over every job by a MILP ([`crate::joint`]): HiGHS with
    /// the budget's wall clock as its time limit (feature `highs`; `microlp` without it,
    /// which has no time limit), started from the exact construction. The construction's
    /// plan stands when the MILP cannot run — plan slots off its 60-s grid, a job the
    /// construction could not schedule (the MILP plans every job or none), or a solver
    /// failure — and then it is not called proven.
    Milp,
    /// The same MILP solved from scratch, as a solver alone would be run (the paper's CP
    /// Optimizer, §III-E): no starting plan and no stop at the construction's proven bound;
    /// only the horizon (the number of grid pieces) comes from the construction's makespan.
    MilpCold,
}

frugal_core::choice! {
    impl Choice for Planner {
        Rffd = "rffd": "Random First Fit Decreasing (Alg. 1)",
        Exact = "exact": "The proven optimum",
        ExactNetwork = "exact-network": "The exact construction with the shuffle's cost (per-node caps)",
        Ga = "ga": "NSGA-III",
        Ls = "ls": "Tabu + late-acceptance local search",
        Milp = "milp": "The joint optimum by a MILP (HiGHS: needs a build with --features highs, and --plan-slot-s a multiple of 60)",
        MilpCold = "milp-cold": "The same MILP from scratch: no starting plan, no stop at the construction's bound (as the paper ran its CP solver)",
    }
}

/// The MILP's time limit when none is given.
pub const MILP_TIME_LIMIT: Duration = Duration::from_secs(60);

/// How much search the metaheuristics get: `full`, `quick` or a number of evaluations as
/// text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effort {
    /// About 30 s per plan of 680 tasks on PC-1 on one core of the 2-core CI machine (the
    /// paper's 30 s), counted in evaluations so that results are reproducible.
    Full,
    /// About 1 s per such plan, for sweeps and CI.
    Quick,
    /// This many evaluations.
    Evaluations(u64),
}

impl std::str::FromStr for Effort {
    type Err = String;

    /// `full`, `quick` or a positive number of evaluations.
    fn from_str(s: &str) -> Result<Effort, String> {
        match s {
            "full" => Ok(Effort::Full),
            "quick" => Ok(Effort::Quick),
            n => match n.parse::<u64>() {
                Ok(0) | Err(_) => Err(format!(
                    "expected full, quick or a positive number of evaluations, got {n:?}"
                )),
                Ok(n) => Ok(Effort::Evaluations(n)),
            },
        }
    }
}

impl std::fmt::Display for Effort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Effort::Full => f.write_str("full"),
            Effort::Quick => f.write_str("quick"),
            Effort::Evaluations(n) => write!(f, "{n}"),
        }
    }
}

frugal_core::serde_as_text!(Effort);

/// Evaluations of [`Effort::Full`] and [`Effort::Quick`], per metaheuristic: LS moves
/// are cheap to evaluate (≈ 5 µs), GA children are whole decodes (≈ 100 µs). Calibrated
/// with `frugal ephemeral planners --tasks 680 --stop budget` (README, Performance).
const LS_EVALUATIONS: (u64, u64) = (5_000_000, 200_000);
const GA_EVALUATIONS: (u64, u64) = (300_000, 10_000);

impl Effort {
    /// The budget for `planner` (`None` for the planners that do not search).
    pub fn budget(
        self,
        planner: Planner,
        wall_clock: Option<Duration>,
        patience: Option<u64>,
    ) -> Option<Budget> {
        let (full, quick) = match planner {
            Planner::Rffd | Planner::Exact | Planner::ExactNetwork => return None,
            // Its time limit is the wall clock ([`MILP_TIME_LIMIT`] without one).
            Planner::Milp | Planner::MilpCold => {
                return Some(Budget {
                    evaluations: 0,
                    wall_clock,
                    patience: None,
                });
            }
            Planner::Ls => LS_EVALUATIONS,
            Planner::Ga => GA_EVALUATIONS,
        };
        let evaluations = match self {
            Effort::Full => full,
            Effort::Quick => quick,
            Effort::Evaluations(n) => n,
        };
        Some(Budget {
            evaluations,
            wall_clock,
            patience,
        })
    }
}

/// A plan and how it was made.
#[derive(Clone, Debug, PartialEq)]
pub struct Planned {
    /// The plan (feasible: Eq. 4–6 and whole jobs).
    pub plan: Plan,
    /// The metaheuristic's statistics (`None` for Alg. 1 and the exact strategy).
    pub stats: Option<SearchStats>,
    /// Whether the plan is proven optimal (the exact strategy with one job, or with several
    /// when its gap is 0).
    pub proven_optimal: bool,
    /// The exact strategy's gap to its proven lower bound on Eq. 3's makespan, percent
    /// ([`exact::lower_bound`]); `None` for the other strategies.
    pub gap_pct: Option<f64>,
    /// Wall-clock solving time, seconds (not reproducible; never in per-run outputs).
    pub solve_s: f64,
}

/// Plans `problem` with `planner`; `budget` bounds the metaheuristics (without one they
/// stop at once: LS returns Alg. 1's plan, NSGA-III its best initial individual).
///
pub fn solve(
    planner: Planner,
    problem: &Problem,
    budget: Option<Budget>,
    rng: &mut ChaCha8Rng,
) -> Planned {
    let started = Instant::now();
    let budget = budget.unwrap_or(Budget {
        evaluations: 0,
        wall_clock: None,
        patience: None,
    });
    let (plan, stats) = match planner {
        Planner::Rffd => (rffd::plan(problem, rng), None),
        Planner::Exact => (exact::plan(problem), None),
        Planner::ExactNetwork => (exact::plan_network(problem), None),
        Planner::Ls => {
            let start = rffd::plan(problem, rng);
            let (plan, stats) = LocalSearch::PAPER.solve(problem, &start, budget, rng);
            (plan, Some(stats))
        }
        Planner::Ga => {
            let (plan, stats) = Nsga3::PAPER.solve(problem, budget, rng);
            (plan, Some(stats))
        }
        Planner::Milp | Planner::MilpCold => {
            let start = exact::plan(problem);
            let limit = budget.wall_clock.unwrap_or(MILP_TIME_LIMIT).as_secs_f64();
            let warm = planner == Planner::Milp;
            match joint::solve(problem, &start, joint::Backend::BEST, limit, warm) {
                Ok(j) => {
                    return Planned {
                        plan: j.plan,
                        stats: None,
                        proven_optimal: j.proven_optimal,
                        gap_pct: Some(j.gap_pct),
                        solve_s: started.elapsed().as_secs_f64(),
                    };
                }
                Err(_) => (start, None),
            }
        }
    };
    let (proven_optimal, gap_pct) = match planner {
        Planner::Exact => exact_gap(problem, &plan),
        // The construction's plan, standing in: its gap, never called proven.
        Planner::Milp | Planner::MilpCold => (false, exact_gap(problem, &plan).1),
        _ => (false, None),
    };
    Planned {
        plan,
        stats,
        proven_optimal,
        gap_pct,
        solve_s: started.elapsed().as_secs_f64(),
    }
}

/// Whether the exact plan is proven optimal for Eq. 2–6, and its makespan's gap to
/// [`exact::lower_bound`] in percent: one job is always proven (gap 0); several jobs are
/// proven when all are scheduled and the gap is 0.
fn exact_gap(problem: &Problem, plan: &Plan) -> (bool, Option<f64>) {
    let scheduled: Vec<usize> = (0..problem.jobs.len())
        .filter(|&j| plan.0[j].iter().all(Option::is_some) && !plan.0[j].is_empty())
        .collect();
    let bound = exact::lower_bound(problem, &scheduled);
    let gap =
        (bound > 0).then(|| 100.0 * (f64::from(plan.makespan(problem)) / f64::from(bound) - 1.0));
    let proven = problem.jobs.len() <= 1
        || (scheduled.len() == problem.jobs.len() && gap.is_none_or(|g| g <= 0.0));
    (proven, gap)
}
