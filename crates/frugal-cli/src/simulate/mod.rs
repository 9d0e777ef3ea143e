//! `frugal simulate`: the policy comparison (the main job). The options, the plan and the
//! runs are `frugal_sim::options`'; this prints the tables and writes the files.

mod table;

use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

use frugal_sim::options::{SimulateSpec, aggregate, compute, write_out};

use crate::progress::Progress;
use crate::table::{FormatArg, Printed};

/// Options of `frugal simulate`: the comparison's, and how to print and where to write.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct SimulateArgs {
    /// What to compare (the spec's fields, one flag each).
    #[command(flatten)]
    pub options: SimulateSpec,
    /// How to print the rows.
    #[command(flatten)]
    pub printed: Printed,
    /// Worker threads for the runs (0: one per core); any count gives the same output.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16))]
    pub threads: u16,
    /// Write, per run, jobs.csv, vms.csv, cost_over_time.csv and summary.json (with
    /// provenance) under DIR/<workload>/<policy>-seed<seed>/, and DIR/results.csv with one
    /// row per (workload, policy, repetition).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Runs the comparison and prints one table (or one block of rows) per workload.
///
/// # Errors
/// A [`SpecError`](frugal_core::spec::SpecError) for a flag that cannot be used, [`Usage`]
/// for inputs that cannot be used; I/O errors writing the output.
pub fn run(a: &SimulateArgs) -> Result<()> {
    let spec = &a.options;
    let progress = Progress::new(0);
    let runs = compute(
        spec,
        usize::from(a.threads),
        &progress,
        &frugal_agents::load_policy,
    )
    .map_err(crate::usage)?;
    progress.finish();
    if let Some(dir) = &a.out {
        write_out(dir, spec, &runs)?;
    }
    let plan = &runs.plan;
    let tables = aggregate(&runs, &spec.baseline.to_string());
    let mut out = std::io::stdout().lock();
    match a.printed.format {
        FormatArg::Table | FormatArg::Markdown => {
            writeln!(out, "{}", plan.header)?;
            for (w, aggregates) in &tables {
                let wl = &plan.workloads[*w];
                writeln!(out, "\n{} ({} jobs)", wl.label, wl.jobs)?;
                let text = if a.printed.format == FormatArg::Table {
                    table::render(aggregates, a.printed.wide, a.options.timings)
                } else {
                    table::markdown(aggregates, a.options.timings)
                };
                writeln!(out, "{text}")?;
            }
        }
        FormatArg::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            for (_, aggregates) in &tables {
                for row in aggregates {
                    w.serialize(row).map_err(std::io::Error::from)?;
                }
            }
            w.flush()?;
        }
        FormatArg::Json => {
            let all: Vec<_> = tables.iter().flat_map(|(_, a)| a).collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&all)?)?;
        }
    }
    Ok(())
}

/// `--contention FILE` of `serve` and `whatif`: the file read and checked (errors name
/// the file and field).
pub fn contention_file(path: &str) -> Result<frugal_core::ContentionModel, String> {
    frugal_core::ContentionModel::read(std::path::Path::new(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::parsed;
    use frugal_core::QueueDiscipline;
    use frugal_sim::options::Loads;

    fn spec(argv: &[&str]) -> SimulateSpec {
        parsed::<SimulateArgs>(argv).0.options
    }

    /// No flag is the spec's default, and a flag given with its default value is given
    /// (so `--load both --hour 3` is refused as `load = "both"` with `hour` is).
    #[test]
    fn the_flags_are_the_spec() {
        assert_eq!(spec(&["simulate"]), SimulateSpec::default());
        let s = spec(&[
            "simulate", "--load", "both", "--queue", "edf", "--hour", "3",
        ]);
        assert_eq!(
            (s.load, s.queue),
            (Some(Loads::Both), Some(QueueDiscipline::Edf))
        );
        assert_eq!(
            s.check().unwrap_err().to_string(),
            "load: cannot be used with hour"
        );
    }
}
