//! `frugal ephemeral`: paper 001's comparison — Salamander against Cuckoo for MapReduce
//! jobs on the ephemeral capacity of hosts that run a primary workload.
//!
//! The options and the runs are `frugal_ephemeral::options`'; this prints and writes
//! them.

pub(crate) mod planners;
mod table;

use frugal_core::spec::Choice;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Result, anyhow};
use clap::{Args, Subcommand};

use frugal_ephemeral::experiment::{DcCoverage, EphemeralRow};
use frugal_ephemeral::options::{EphemeralSpec, Runs, compute, write_out};
use frugal_ephemeral::summary::{self, Cell, Improvement};

pub use planners::PlannersArgs;

use crate::Usage;
use crate::progress::Progress;
use crate::table::{FormatArg, Printed};

/// A sub-command of `frugal ephemeral`.
#[derive(Subcommand, Debug)]
pub enum EphemeralCommand {
    /// Solving time and plan makespan of the planners against the number of tasks
    /// (paper 001 RQ2, Fig. 4)
    Planners(PlannersArgs),
}

/// Options of `frugal ephemeral`: the comparison's, and how to print and where to write.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true, args_conflicts_with_subcommands = true)]
pub struct EphemeralArgs {
    /// Another experiment instead of the comparison.
    #[command(subcommand)]
    pub command: Option<EphemeralCommand>,
    /// What to compare (the spec's fields, one flag each).
    #[command(flatten)]
    pub options: EphemeralSpec,
    /// With --format csv or json (an error with the tables): one row per run instead of one
    /// per (data centre, chunk size, margin, strategy).
    #[arg(long)]
    pub per_run: bool,
    /// How to print the rows.
    #[command(flatten)]
    pub printed: Printed,
    /// Worker threads (0: one per core). Any count gives the same rows.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16))]
    pub threads: u16,
    /// Write DIR/runs.csv (one row per run), DIR/cells.csv (statistics per data centre,
    /// chunk size, margin and strategy), DIR/improvements.csv (against Cuckoo, beside the
    /// paper) and DIR/summary.json (configuration, forecast coverage).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Runs the comparison and prints it.
///
/// # Errors
/// [`Usage`] for a hosts or utilisation file that cannot be used (naming the file and
/// line); I/O errors writing the output.
pub fn run(a: &EphemeralArgs) -> Result<()> {
    if let Some(EphemeralCommand::Planners(p)) = &a.command {
        return planners::run(p);
    }
    let spec = a.options.clone();
    if a.per_run && matches!(a.printed.format, FormatArg::Table | FormatArg::Markdown) {
        return Err(Usage(anyhow!(
            "--per-run applies to --format csv or json; the tables show medians per cell"
        ))
        .into());
    }
    let progress = Progress::new(0);
    let runs = compute(&spec, usize::from(a.threads), &progress).map_err(crate::usage)?;
    progress.finish();
    if let Some(dir) = &a.out {
        write_out(dir, &spec, &runs)?;
    }
    let Runs { rows, coverage } = runs;
    let cells = summary::cells(&rows);
    let improvements = summary::improvements(&cells);
    print(a, &rows, &cells, &improvements, &coverage)
}

fn print(
    a: &EphemeralArgs,
    rows: &[EphemeralRow],
    cells: &[Cell],
    improvements: &[Improvement],
    coverage: &[DcCoverage],
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match a.printed.format {
        FormatArg::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            if a.per_run {
                rows.iter().try_for_each(|r| w.serialize(r))?;
            } else {
                cells.iter().try_for_each(|c| w.serialize(c))?;
            }
            w.flush()?;
            return Ok(());
        }
        FormatArg::Json => {
            let text = if a.per_run {
                serde_json::to_string_pretty(rows)?
            } else {
                serde_json::to_string_pretty(cells)?
            };
            writeln!(out, "{text}")?;
            return Ok(());
        }
        FormatArg::Table | FormatArg::Markdown => {}
    }
    let md = a.printed.format == FormatArg::Markdown;
    writeln!(
        out,
        "MapReduce on ephemeral capacity (paper 001): one job of {} tasks per run, submitted at \
         day 5 00:00 + h h\nfor h = 0..{}; medians over those runs.{}",
        rows.first().map_or(0, |r| r.tasks),
        a.options.start_hours - 1,
        if a.options.upload {
            " The client's upload is simulated."
        } else {
            " Chunks are in place at submission (--upload to simulate the\nclient's upload)."
        }
    )?;
    writeln!(out, "{}", table::cells(cells, md, a.printed.wide))?;
    if !improvements.is_empty() {
        writeln!(
            out,
            "\nJob time against Cuckoo, smallest median over the margins (paper §IV-B1):"
        )?;
        writeln!(out, "{}", table::improvements(improvements, md))?;
    }
    for c in coverage {
        writeln!(
            out,
            "Forecast coverage, {}{}, {}:\n  CPU {:.1} % of samples ≤ forecast (mean \
             over-estimate {:.1} points, pinball loss {:.2} points),\n  RAM {:.1} % ({:.1} \
             points, {:.2}).",
            c.dc,
            if c.volatility == 1.0 {
                String::new()
            } else {
                format!(" (volatility ×{})", c.volatility)
            },
            c.forecaster.name(),
            100.0 * c.cpu.covered,
            c.cpu.mean_over_pp,
            c.cpu.pinball_pp,
            100.0 * c.ram.covered,
            c.ram.mean_over_pp,
            c.ram.pinball_pp,
        )?;
    }
    Ok(())
}
