//! `frugal ephemeral planners`: paper 001 RQ2 (Fig. 4) — solving time and plan makespan
//! of Salamander's planners against the number of tasks.

use frugal_core::spec::Choice;
use std::io::Write;

use anyhow::Result;
use clap::Args;

use frugal_ephemeral::DataCentre;
use frugal_ephemeral::options::{PlannersSpec, Stop, planners};
use frugal_ephemeral::planner::Effort;
use frugal_ephemeral::planner::Planner;
use frugal_ephemeral::solvers::SolverRow;

use crate::table::{Column, FormatArg, fixed, opt};
use crate::values::choice;

/// Options of `frugal ephemeral planners`: the comparison's and how to print it.
#[derive(Args, Debug)]
pub struct PlannersArgs {
    /// What to compare.
    #[command(flatten)]
    pub options: ProblemArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
}

/// The problems' and planners' flags (`PlannersSpec`'s fields).
#[derive(Args, Debug)]
pub struct ProblemArgs {
    /// Data centre (the paper shows PC-1).
    #[arg(long, value_parser = choice::<DataCentre>(), default_value = "pc-1")]
    pub dc: DataCentre,
    /// Problem sizes: tasks planned (over --jobs jobs), 16 maps per reduce.
    #[arg(long, value_delimiter = ',', default_value = "500,1000,1500,2000,2500")]
    pub tasks: Vec<u32>,
    /// Jobs per problem: each size is split into this many equal jobs (the paper: 1).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub jobs: u32,
    /// Planners to compare.
    #[arg(
        long,
        value_parser = choice::<Planner>(),
        value_delimiter = ',',
        default_value = "rffd,exact,ga,ls"
    )]
    pub planners: Vec<Planner>,
    /// Metaheuristics' effort: full, quick or a number of evaluations [default: full].
    #[arg(long, value_name = "EFFORT")]
    pub budget: Option<Effort>,
    /// Stop rule of the metaheuristics [default: patience].
    #[arg(long, value_parser = choice::<Stop>())]
    pub stop: Option<Stop>,
    /// Plan durations are rounded up to a multiple of this many seconds (the milp planner
    /// needs a multiple of 60; Table I's grid is 180).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub plan_slot_s: u32,
    /// The milp planner's time limit, seconds, per problem [default: 60].
    #[arg(long, value_name = "S")]
    pub milp_time_limit_s: Option<f64>,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl ProblemArgs {
    /// The spec these flags set.
    pub fn spec(&self) -> PlannersSpec {
        PlannersSpec {
            dc: self.dc,
            tasks: self.tasks.clone(),
            jobs: self.jobs,
            planners: self.planners.clone(),
            budget: self.budget,
            stop: self.stop,
            plan_slot_s: self.plan_slot_s,
            milp_time_limit_s: self.milp_time_limit_s,
            seed: self.seed,
        }
    }
}

type C = Column<SolverRow>;

fn columns() -> Vec<C> {
    vec![
        C::new(["tasks", ""], |r| r.tasks.to_string()),
        C::new(["jobs", ""], |r| r.jobs.to_string()).sparse(|r| r.jobs > 1),
        C::new(["planner", ""], |r| r.planner.name().to_string()),
        C::new(["solving", "s"], |r| fixed(r.solve_s, 3)),
        C::new(["scheduled", ""], |r| r.scheduled.to_string()),
        C::new(["makespan", "s"], |r| r.plan_makespan_s.to_string()),
        C::new(["vs exact", "%"], |r| opt(r.gap_to_exact_pct, 2)),
        C::new(["vs bound", "%"], |r| opt(r.gap_to_bound_pct, 2))
            .sparse(|r| r.gap_to_bound_pct.is_some_and(|g| g > 0.0)),
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
/// A [`SpecError`](frugal_core::spec::SpecError) for a flag that cannot apply (`--budget`
/// or `--stop` without ga or ls among `--planners`); I/O errors writing the output.
pub fn run(a: &PlannersArgs) -> Result<()> {
    let rows = planners(&a.options.spec())?;
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
                "Planners on {} (paper 001 Fig. 4): {} of n tasks in all (128 MiB chunks, S = 0, \
                 window from day 5 00:00); solving times on one core.",
                a.options.dc,
                match a.options.jobs {
                    1 => "one job".to_string(),
                    n => format!("{n} equal jobs"),
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::parsed;

    #[test]
    fn the_flags_defaults_are_the_specs() {
        let a = parsed::<ProblemArgs>(&["planners"]).0;
        assert_eq!(a.spec(), PlannersSpec::default());
    }
}
