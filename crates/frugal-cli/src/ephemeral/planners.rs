//! `frugal ephemeral planners`: paper 001 RQ2 (Fig. 4) — solving time and plan makespan
//! of Salamander's planners against the number of tasks.

use std::io::Write;

use anyhow::Result;
use clap::Args;

use frugal_ephemeral::options::{PlannersOptions, planners};
use frugal_ephemeral::solvers::SolverRow;

use crate::table::{Column, FormatArg, fixed, opt};

/// Options of `frugal ephemeral planners`: the comparison's and how to print it.
#[derive(Args, Debug)]
pub struct PlannersArgs {
    /// What to compare.
    #[command(flatten)]
    pub options: PlannersOptions,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
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
/// [`Usage`] for --budget or --stop without ga or ls among --planners; I/O errors writing
/// the output.
pub fn run(a: &PlannersArgs) -> Result<()> {
    let rows = planners(&a.options)?;
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
                a.options.dc.dc(),
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
