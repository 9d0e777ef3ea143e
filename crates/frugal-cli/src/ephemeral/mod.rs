//! `frugal ephemeral`: paper 001's comparison — Salamander against Cuckoo for MapReduce
//! jobs on the ephemeral capacity of hosts that run a primary workload.
//!
//! Inputs are read and checked first; the runs (data centre × chunk size × margin × start
//! hour × strategy) then execute in parallel and are reported in that order, so the
//! output does not depend on the thread count.

mod args;
pub(crate) mod planners;
mod table;

use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use rayon::prelude::*;
use serde_json::json;

use frugal_ephemeral::experiment::{self, DcCoverage, EphemeralRow, RunSpec};
use frugal_ephemeral::planner::Effort;
use frugal_ephemeral::summary::{self, Cell, Improvement};
use frugal_ephemeral::{Hosts, JobSpec, Strategy, Utilisation};

pub use args::{EphemeralArgs, EphemeralCommand};
pub use planners::PlannersArgs;

use crate::Usage;
use crate::choices::FormatArg;
use crate::progress::Progress;

/// Runs the comparison and prints it.
///
/// # Errors
/// [`Usage`] for a hosts or utilisation file that cannot be used (naming the file and
/// line); I/O errors writing the output.
pub fn run(a: &EphemeralArgs) -> Result<()> {
    if let Some(args::EphemeralCommand::Planners(p)) = &a.command {
        return planners::run(p);
    }
    let progress = Progress::new(0);
    let Runs { rows, coverage } = compute(a, &progress)?;
    progress.finish();
    let cells = summary::cells(&rows);
    let improvements = summary::improvements(&cells);
    if let Some(dir) = &a.out {
        write_out(dir, a, &rows, &cells, &improvements, &coverage)?;
    }
    print(a, &rows, &cells, &improvements, &coverage)
}

/// The runs of a comparison (data centre × chunk size × margin × start hour × strategy)
/// and the forecasts' coverage per data centre.
pub struct Runs {
    /// Each run's tidy row.
    pub rows: Vec<EphemeralRow>,
    coverage: Vec<DcCoverage>,
}

/// Reads the inputs and executes the runs of `a` (not its `planners` subcommand),
/// ticking `progress` (which it tells how many).
///
/// # Errors
/// [`Usage`] for flags that cannot apply or input files that cannot be used.
pub fn compute(a: &EphemeralArgs, progress: &Progress) -> Result<Runs> {
    check_flags(a)?;
    let hosts = match &a.hosts {
        None => Hosts::embedded(),
        Some(p) => {
            let f = std::fs::File::open(p)
                .with_context(|| format!("--hosts {}", p.display()))
                .map_err(Usage)?;
            Hosts::parse(f, &p.display().to_string()).map_err(|e| Usage(anyhow!("--hosts: {e}")))?
        }
    };
    let util = match &a.utilisation {
        None => Utilisation::shipped(a.primary_workload.workload()),
        Some(p) => read_utilisation(p, hosts.0.len())?,
    };
    let mut specs = Vec::new();
    for dc in &a.dc {
        for &chunk in &a.chunk_mib {
            let mut job = JobSpec::paper(chunk);
            job.map_output_ratio = a.map_output_ratio;
            if let Some(n) = a.tasks {
                job = job.with_tasks(n as usize);
            }
            for &margin in &a.margins {
                for h in 0..a.start_hours {
                    for s in &a.strategies {
                        specs.push(RunSpec {
                            dc: dc.dc(),
                            job,
                            margin_pct: margin,
                            start_hour: h,
                            strategy: s.strategy(),
                            forecaster: a.forecaster.kind(),
                            upload: a.upload,
                            plan_slot_s: a.plan_slot_s.unwrap_or(1),
                            effort: a.budget.unwrap_or(Effort::Full),
                            wall_clock: a.wall_clock_s.map(Duration::from_secs_f64),
                            seed: a.seed,
                        });
                    }
                }
            }
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(usize::from(a.threads))
        .build()
        .context("starting the worker threads")?;
    progress.add(specs.len());
    let rows: Vec<EphemeralRow> = pool.install(|| {
        specs
            .par_iter()
            .map(|s| {
                let row = experiment::run(s, &hosts, &util);
                progress.tick();
                row
            })
            .collect()
    });
    let coverage: Vec<DcCoverage> = a
        .dc
        .iter()
        .map(|dc| experiment::coverage(dc.dc(), &hosts, &util, a.forecaster.kind(), a.start_hours))
        .collect();
    Ok(Runs { rows, coverage })
}

/// Refuses flags that cannot apply to the run asked for.
fn check_flags(a: &EphemeralArgs) -> Result<()> {
    if a.per_run && matches!(a.format, FormatArg::Table | FormatArg::Markdown) {
        return Err(Usage(anyhow!(
            "--per-run applies to --format csv or json; the tables show medians per cell"
        ))
        .into());
    }
    let planned = a
        .strategies
        .iter()
        .any(|s| matches!(s.strategy(), Strategy::Salamander(_)));
    if a.plan_slot_s.is_some() && !planned {
        return Err(Usage(anyhow!(
            "--plan-slot-s applies to Salamander's plans; --strategies has no salamander-* \
             strategy"
        ))
        .into());
    }
    let searches = a.strategies.iter().any(|s| s.searches());
    for (flag, given) in [
        ("--budget", a.budget.is_some()),
        ("--wall-clock-s", a.wall_clock_s.is_some()),
    ] {
        if given && !searches {
            return Err(Usage(anyhow!(
                "{flag} applies to salamander-ga and salamander-ls; --strategies has neither"
            ))
            .into());
        }
    }
    Ok(())
}

/// Reads `--utilisation`, gunzipping it when it starts with the gzip magic number.
fn read_utilisation(p: &Path, hosts: usize) -> Result<Utilisation> {
    let bytes = std::fs::read(p)
        .with_context(|| format!("--utilisation {}", p.display()))
        .map_err(Usage)?;
    let name = p.display().to_string();
    let text: Box<dyn Read> = if bytes.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::GzDecoder::new(bytes.as_slice()))
    } else {
        Box::new(bytes.as_slice())
    };
    Ok(Utilisation::parse(text, &name, hosts).map_err(|e| Usage(anyhow!("--utilisation: {e}")))?)
}

fn print(
    a: &EphemeralArgs,
    rows: &[EphemeralRow],
    cells: &[Cell],
    improvements: &[Improvement],
    coverage: &[DcCoverage],
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match a.format {
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
    let md = a.format == FormatArg::Markdown;
    writeln!(
        out,
        "MapReduce on ephemeral capacity (paper 001): one job of {} tasks per run, submitted at \
         day 5 00:00 + h h for h = 0..{}; medians over those runs.{}",
        rows.first().map_or(0, |r| r.tasks),
        a.start_hours - 1,
        if a.upload {
            " The client's upload is simulated."
        } else {
            " Chunks are in place at submission (--upload to simulate the client's upload)."
        }
    )?;
    writeln!(out, "{}", table::cells(cells, md))?;
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
            "Forecast coverage, {}: CPU {:.1} % of samples ≤ forecast (mean over-estimate {:.1} \
             points), RAM {:.1} % ({:.1} points).",
            c.dc,
            100.0 * c.cpu.covered,
            c.cpu.mean_over_pp,
            100.0 * c.ram.covered,
            c.ram.mean_over_pp,
        )?;
    }
    Ok(())
}

fn write_out(
    dir: &Path,
    a: &EphemeralArgs,
    rows: &[EphemeralRow],
    cells: &[Cell],
    improvements: &[Improvement],
    coverage: &[DcCoverage],
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("--out {}", dir.display()))?;
    fn write<T: serde::Serialize>(path: &Path, items: &[T]) -> Result<()> {
        let mut w =
            csv::Writer::from_path(path).with_context(|| format!("writing {}", path.display()))?;
        items.iter().try_for_each(|i| w.serialize(i))?;
        w.flush()?;
        Ok(())
    }
    write(&dir.join("runs.csv"), rows)?;
    write(&dir.join("cells.csv"), cells)?;
    write(&dir.join("improvements.csv"), improvements)?;
    let summary = json!({
        "frugal_version": env!("CARGO_PKG_VERSION"),
        "git_commit": option_env!("FRUGAL_GIT_COMMIT"),
        "command": "ephemeral",
        "configuration": a,
        "forecast_coverage": coverage,
    });
    std::fs::write(
        dir.join("summary.json"),
        serde_json::to_string_pretty(&summary)? + "\n",
    )?;
    Ok(())
}
