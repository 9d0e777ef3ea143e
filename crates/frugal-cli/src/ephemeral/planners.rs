//! `frugal ephemeral planners`: paper 001 RQ2 (Fig. 4) — solving time and plan makespan
//! of Salamander's planners against the number of tasks.

use std::io::Write;

use anyhow::{Result, anyhow};
use clap::{Args, ValueEnum};
use serde::Serialize;

use frugal_ephemeral::planner::{Effort, Planner};
use frugal_ephemeral::solvers::{self, SolverRow, SolverSpec};
use frugal_ephemeral::{Hosts, Utilisation};

use super::args::{DcArg, parse_effort};
use crate::Usage;
use crate::choices::FormatArg;
use crate::table::{Column, fixed, opt};

/// A planner of Salamander's holistic scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
pub enum PlannerArg {
    /// Random First Fit Decreasing (Alg. 1)
    Rffd,
    /// The proven optimum
    Exact,
    /// NSGA-III
    Ga,
    /// Tabu + late-acceptance local search
    Ls,
}

impl PlannerArg {
    fn planner(self) -> Planner {
        match self {
            PlannerArg::Rffd => Planner::Rffd,
            PlannerArg::Exact => Planner::Exact,
            PlannerArg::Ga => Planner::Ga,
            PlannerArg::Ls => Planner::Ls,
        }
    }
}

/// When the metaheuristics stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
pub enum StopArg {
    /// After LS 1,000 steps or GA 50 generations without a better plan, or at the budget
    /// (paper 001 spec A14)
    Patience,
    /// At the budget only
    Budget,
}

/// Options of `frugal ephemeral planners`.
#[derive(Args, Debug, Serialize)]
pub struct PlannersArgs {
    /// Data centre (the paper shows PC-1).
    #[arg(long, value_enum, default_value = "pc-1")]
    pub dc: DcArg,
    /// Problem sizes: tasks in the one job planned, 16 maps per reduce.
    #[arg(long, value_delimiter = ',', default_value = "500,1000,1500,2000,2500",
          value_parser = clap::value_parser!(u32).range(2..=100_000))]
    pub tasks: Vec<u32>,
    /// Planners to compare.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "rffd,exact,ga,ls"
    )]
    pub planners: Vec<PlannerArg>,
    /// Metaheuristics' effort: full, quick or a number of evaluations [default: full].
    #[arg(long, value_name = "EFFORT", value_parser = parse_effort)]
    pub budget: Option<Effort>,
    /// Stop rule of the metaheuristics [default: patience].
    #[arg(long, value_enum)]
    pub stop: Option<StopArg>,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
}

type C = Column<SolverRow>;

fn columns() -> Vec<C> {
    vec![
        C::new(["tasks", ""], |r| r.tasks.to_string()),
        C::new(["planner", ""], |r| r.planner.name().to_string()),
        C::new(["solving", "s"], |r| fixed(r.solve_s, 3)),
        C::new(["scheduled", ""], |r| r.scheduled.to_string()),
        C::new(["makespan", "s"], |r| r.plan_makespan_s.to_string()),
        C::new(["vs exact", "%"], |r| opt(r.gap_to_exact_pct, 2)),
        C::new(["proven", ""], |r| {
            if r.proven_optimal { "yes" } else { "" }.to_string()
        }),
        C::new(["evaluations", ""], |r| {
            r.evaluations.map_or("–".into(), |e| e.to_string())
        }),
        C::new(["steps/gens", ""], |r| {
            r.iterations.map_or("–".into(), |e| e.to_string())
        }),
        C::new(["stopped by", ""], |r| {
            r.stop.map_or("–", |s| s.name()).to_string()
        }),
    ]
}

/// Runs the comparison and prints it.
///
/// # Errors
/// [`Usage`] for --budget or --stop without ga or ls among --planners; I/O errors writing
/// the output.
pub fn run(a: &PlannersArgs) -> Result<()> {
    let rows = compute(a)?;
    let mut out = std::io::stdout().lock();
    match a.format {
        FormatArg::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            rows.iter().try_for_each(|r| w.serialize(r))?;
            w.flush()?;
        }
        FormatArg::Json => writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?,
        FormatArg::Table | FormatArg::Markdown => {
            writeln!(
                out,
                "Planners on {} (paper 001 Fig. 4): one job of n tasks (128 MiB chunks, S = 0, \
                 window from day 5 00:00); solving times on one core.",
                a.dc.dc()
            )?;
            let t = if a.format == FormatArg::Markdown {
                crate::table::markdown(columns(), &rows, 2)
            } else {
                crate::table::render(columns(), &rows, false, 2)
            };
            writeln!(out, "{t}")?;
        }
    }
    Ok(())
}

/// Solves the problems of `a` with each planner: one row per (tasks, planner).
///
/// # Errors
/// [`Usage`] for --budget or --stop without ga or ls among --planners.
pub fn compute(a: &PlannersArgs) -> Result<Vec<SolverRow>> {
    let searches = a
        .planners
        .iter()
        .any(|p| matches!(p, PlannerArg::Ga | PlannerArg::Ls));
    for (flag, given) in [
        ("--budget", a.budget.is_some()),
        ("--stop", a.stop.is_some()),
    ] {
        if given && !searches {
            return Err(Usage(anyhow!(
                "{flag} applies to the ga and ls planners; --planners has neither"
            ))
            .into());
        }
    }
    let spec = SolverSpec {
        dc: a.dc.dc(),
        tasks: a.tasks.iter().map(|&n| n as usize).collect(),
        planners: a.planners.iter().map(|p| p.planner()).collect(),
        effort: a.budget.unwrap_or(Effort::Full),
        patience: a.stop.unwrap_or(StopArg::Patience) == StopArg::Patience,
        seed: a.seed,
    };
    Ok(solvers::compare(
        &spec,
        &Hosts::embedded(),
        &Utilisation::embedded(),
    ))
}
