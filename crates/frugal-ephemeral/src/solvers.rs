//! Paper 001 RQ2 (§IV-B2, Fig. 4): solving time and plan makespan of the planners against
//! the number of tasks.
//!
//! The paper's problem sizes are 500–2,500 tasks on PC-1; chunk size, margin and window
//! are not stated, so frugal plans one job of n tasks (16 maps per reduce, like 640:40) —
//! or n tasks split into several equal jobs ([`SolverSpec::jobs`]) —
//! with 128 MiB chunks, S = 0 and the window of start hour 0, on the seasonal-quantile
//! forecast (spec §2.3). Without a fixed budget the metaheuristics stop by spec A14's
//! rule — LS after 1,000 steps and GA after 50 generations without a better plan — capped
//! by their evaluation budget; the exact strategy proves its optimum for one job and
//! reports its gap to a proven lower bound for several ([`crate::exact::lower_bound`]).
//! Solving times are wall-clock and machine-dependent; every other column is reproducible.

use std::time::Duration;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::experiment::{forecasts, start_step};
use crate::forecast::SeasonalQuantile;
use crate::hosts::{DataCentre, Hosts};
use crate::job::{Job, JobSpec};
use crate::plan;
use crate::planner::{self, Effort, Planner};
use crate::runtime;
use crate::search::Stop;
use crate::trace::{DAY_S, Utilisation};

/// Spec A14's patience: LS steps, GA generations.
pub const PATIENCE: (u64, u64) = (1_000, 50);

/// One plan of the comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SolverRow {
    /// Data centre.
    pub dc: DataCentre,
    /// Tasks in the problem.
    pub tasks: usize,
    /// Jobs they are split into.
    pub jobs: usize,
    /// The planner (`rffd`, `exact`, `exact-network`, `ga`, `ls`, `milp`).
    pub planner: Planner,
    /// Wall-clock solving time, seconds (one core).
    pub solve_s: f64,
    /// Scheduled tasks (Eq. 2).
    pub scheduled: usize,
    /// Plan makespan (Eq. 3), seconds.
    pub plan_makespan_s: u32,
    /// 100 × (makespan / the exact makespan − 1), when the exact planner ran.
    pub gap_to_exact_pct: Option<f64>,
    /// Whether the plan is proven optimal.
    pub proven_optimal: bool,
    /// The exact planner's and the MILP's gap to the proven lower bound on the makespan
    /// ([`crate::exact::lower_bound`]), percent (0 when proven); empty for the other
    /// planners.
    pub gap_to_bound_pct: Option<f64>,
    /// Candidates evaluated (metaheuristics).
    pub evaluations: Option<u64>,
    /// LS steps or GA generations.
    pub iterations: Option<u64>,
    /// Why the search stopped.
    pub stop: Option<Stop>,
}

/// What to compare.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverSpec {
    /// Data centre.
    pub dc: DataCentre,
    /// Problem sizes, tasks.
    pub tasks: Vec<usize>,
    /// Equal jobs each size is split into (≥ 1).
    pub jobs: usize,
    /// Planners.
    pub planners: Vec<Planner>,
    /// Metaheuristics' evaluation budget.
    pub effort: Effort,
    /// Whether A14's patience rule stops them early.
    pub patience: bool,
    /// Plan durations are rounded up to a multiple of this many seconds (1: the default;
    /// the MILP needs a multiple of 60).
    pub plan_slot_s: u32,
    /// The MILP's time limit.
    pub milp_time_limit: Duration,
    /// Seed.
    pub seed: u64,
}

/// Plans every size with every planner, in that order (one core each call).
pub fn compare(spec: &SolverSpec, hosts: &Hosts, util: &Utilisation) -> Vec<SolverRow> {
    let dc_hosts = hosts.of(spec.dc);
    let t0 = start_step(0);
    let forecast = forecasts(&dc_hosts, util, &SeasonalQuantile::PAPER, t0);
    let mut rows = Vec::new();
    for &n in &spec.tasks {
        let per_job = JobSpec::paper(128).with_tasks(n.div_ceil(spec.jobs));
        let jobs = (0..spec.jobs).map(|j| Job::new(j, per_job)).collect();
        let problem = runtime::problem(&dc_hosts, &forecast, 0.0, jobs, DAY_S, spec.plan_slot_s);
        let mut exact = None;
        let first = rows.len();
        for &planner in &spec.planners {
            let patience = spec.patience.then_some(match planner {
                Planner::Ga => PATIENCE.1,
                _ => PATIENCE.0,
            });
            // A wall clock for the MILP only: the metaheuristics stay on counted budgets.
            let limit = (planner == Planner::Milp).then_some(spec.milp_time_limit);
            let budget = spec.effort.budget(planner, limit, patience);
            let mut rng = ChaCha8Rng::seed_from_u64(spec.seed ^ n as u64);
            let p = planner::solve(planner, &problem, budget, &mut rng);
            debug_assert!(plan::violations(&problem, &p.plan).is_empty());
            let makespan = p.plan.makespan(&problem);
            if planner == Planner::Exact {
                exact = Some(makespan);
            }
            rows.push(SolverRow {
                dc: spec.dc,
                tasks: problem.jobs.iter().map(|j| j.tasks.len()).sum(),
                jobs: spec.jobs,
                planner,
                solve_s: p.solve_s,
                scheduled: p.plan.scheduled(),
                plan_makespan_s: makespan,
                gap_to_exact_pct: None,
                proven_optimal: p.proven_optimal,
                gap_to_bound_pct: p.gap_pct,
                evaluations: p.stats.map(|s| s.evaluations),
                iterations: p.stats.map(|s| s.iterations),
                stop: p.stats.map(|s| s.stop),
            });
        }
        if let Some(best) = exact.filter(|&m| m > 0) {
            for r in &mut rows[first..] {
                r.gap_to_exact_pct =
                    Some(100.0 * (f64::from(r.plan_makespan_s) / f64::from(best) - 1.0));
            }
        }
    }
    rows
}
