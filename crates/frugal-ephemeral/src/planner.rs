//! Salamander's four ways to make the holistic plan, behind one call: Alg. 1 alone, the
//! exact optimum (and its shuffle-aware variant), NSGA-III and tabu + late-acceptance local search (paper 001 §III-B2).

use std::time::{Duration, Instant};

use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::exact::{self, ExactError};
use crate::ga::Nsga3;
use crate::ls::LocalSearch;
use crate::plan::{Plan, Problem};
use crate::rffd;
use crate::search::{Budget, SearchStats};

/// A planning strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
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
}

impl Planner {
    /// The name in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Planner::Rffd => "rffd",
            Planner::Exact => "exact",
            Planner::ExactNetwork => "exact-network",
            Planner::Ga => "ga",
            Planner::Ls => "ls",
        }
    }
}

/// How much search the metaheuristics get.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effort {
    /// About 30 s per plan of 680 tasks on PC-1 on one core of the 2-core CI machine (the
    /// paper's 30 s), counted in evaluations so that results are reproducible.
    Full,
    /// About 1 s per such plan, for sweeps and CI.
    Quick,
    /// This many evaluations.
    Evaluations(u64),
}

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
    /// Whether the plan is proven optimal (the exact strategy).
    pub proven_optimal: bool,
    /// Wall-clock solving time, seconds (not reproducible; never in per-run outputs).
    pub solve_s: f64,
}

/// Plans `problem` with `planner`; `budget` bounds the metaheuristics (without one they
/// stop at once: LS returns Alg. 1's plan, NSGA-III its best initial individual).
///
/// # Errors
/// [`ExactError::SeveralJobs`] when the exact planner is asked to plan several jobs.
pub fn solve(
    planner: Planner,
    problem: &Problem,
    budget: Option<Budget>,
    rng: &mut ChaCha8Rng,
) -> Result<Planned, ExactError> {
    let started = Instant::now();
    let budget = budget.unwrap_or(Budget {
        evaluations: 0,
        wall_clock: None,
        patience: None,
    });
    let (plan, stats) = match planner {
        Planner::Rffd => (rffd::plan(problem, rng), None),
        Planner::Exact => (exact::plan(problem)?, None),
        Planner::ExactNetwork => (exact::plan_network(problem)?, None),
        Planner::Ls => {
            let start = rffd::plan(problem, rng);
            let (plan, stats) = LocalSearch::PAPER.solve(problem, &start, budget, rng);
            (plan, Some(stats))
        }
        Planner::Ga => {
            let (plan, stats) = Nsga3::PAPER.solve(problem, budget, rng);
            (plan, Some(stats))
        }
    };
    Ok(Planned {
        plan,
        stats,
        proven_optimal: planner == Planner::Exact,
        solve_s: started.elapsed().as_secs_f64(),
    })
}
