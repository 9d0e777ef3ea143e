//! `frugal bag-of-tasks`: paper 003's comparison — HA, RA and FFD on bags of tasks from
//! SWF logs, on a hybrid cloud of free local PMs and VMs rented by the started hour. The
//! flags map onto `frugal_bot::BagOfTasksSpec`, which `frugal_bot::comparison` runs and
//! writes; this prints them.

mod table;

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use frugal_bot::compare::{PAPER_CLAIMS, versus};
use frugal_bot::comparison::{Block, Runs, Trace, compute, describe, write_out};
use frugal_bot::{BagOfTasksSpec, BotRow};

use crate::progress::Progress;
use crate::table::{FormatArg, Printed};

/// Options of `frugal bag-of-tasks`: the comparison's (`BagOfTasksSpec`'s fields), and how
/// to print and where to write.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct BagOfTasksArgs {
    /// What to run (the spec's fields, one flag each).
    #[command(flatten)]
    pub spec: BagOfTasksSpec,
    /// How to print the rows.
    #[command(flatten)]
    pub printed: Printed,
    /// Worker threads (0: one per core). Any count gives the same rows; overhead is
    /// CPU time of the scheduling thread, but cores shared with other runs make it
    /// noisier — use 1 to measure it.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16))]
    pub threads: u16,
    /// Write DIR/results.csv (one row per run), DIR/versus.csv (HA against FFD and the
    /// effect of RA) and DIR/summary.json (provenance, machines, the bags' statistics).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Runs the comparison and prints it.
///
/// # Errors
/// A `SpecError` for options or inputs that cannot be used; a policy that cannot schedule
/// a bag; I/O errors writing the output.
pub fn run(a: &BagOfTasksArgs) -> Result<()> {
    let spec = &a.spec;
    let progress = Progress::new(0);
    let runs = compute(spec, usize::from(a.threads), &progress)?;
    progress.finish();
    if let Some(dir) = &a.out {
        write_out(dir, spec, &runs)?;
    }
    let Runs {
        traces,
        blocks,
        rows,
    } = &runs;
    print(a, traces, blocks, rows)
}

fn print(a: &BagOfTasksArgs, traces: &[Trace], blocks: &[Block], rows: &[BotRow]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match a.printed.format {
        FormatArg::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            for row in rows {
                w.serialize(row).map_err(std::io::Error::from)?;
            }
            w.flush()?;
            return Ok(());
        }
        FormatArg::Json => {
            writeln!(out, "{}", serde_json::to_string_pretty(rows)?)?;
            return Ok(());
        }
        FormatArg::Table | FormatArg::Markdown => {}
    }
    let md = a.printed.format == FormatArg::Markdown;
    writeln!(
        out,
        "Bags of tasks on a hybrid cloud (paper 003): each task's deadline is α × its run time on \
         a 2 GHz core; rent is the cost, PMs are free; gap = rent above a lower bound on any \
         schedule's rent."
    )?;
    let per_block = rows.len() / blocks.len().max(1);
    for (b, block) in blocks.iter().enumerate() {
        let t = &traces[block.trace];
        writeln!(
            out,
            "\n{}: {} of {} tasks ({} records; dropped {} without run time, {} without processors; \
             {:.2} % shorter than 1 h of a 1 GHz core)\n{}",
            t.name,
            block.tasks,
            t.tasks,
            t.records,
            t.dropped_run_time,
            t.dropped_processors,
            t.short_lt_1h_pct,
            describe(&block.setup, block.scale)
        )?;
        let block_rows = &rows[b * per_block..(b + 1) * per_block];
        writeln!(out, "{}", table::runs(block_rows, a.printed.wide, md))?;
        let vs = versus(block_rows);
        if vs
            .iter()
            .any(|v| v.ha_rent_saving_pct.is_some() || v.ra_makespan_cut_ha_pct.is_some())
        {
            writeln!(
                out,
                "\nHA against FFD, and what RA changes (paper 003 §4.2–4.3):"
            )?;
            writeln!(out, "{}", table::versus(&vs, md))?;
        }
    }
    if rows.iter().any(|r| r.policy == "ha") && rows.iter().any(|r| r.policy == "ffd") {
        writeln!(
            out,
            "\nThe paper (NASA and UniLu Gaia logs, α = 1..4; it prints no absolute values):"
        )?;
        for (claim, text) in PAPER_CLAIMS {
            writeln!(out, "  {claim}: {text}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::parsed;
    use frugal_bot::{Implementation, Policy};

    /// The flags' defaults are the spec's defaults, and the choices map onto the
    /// library's names: one default and one name on both faces.
    #[test]
    fn the_flags_map_onto_the_spec() {
        let a = parsed::<BagOfTasksArgs>(&["bag-of-tasks"]).0;
        assert_eq!(a.spec, BagOfTasksSpec::default());
        let a = parsed::<BagOfTasksArgs>(&[
            "bag-of-tasks",
            "--policies",
            "optimal,ha-ra",
            "--implementation",
            "reference",
        ])
        .0;
        assert_eq!(a.spec.policies, [Policy::Optimal, Policy::HaRa]);
        assert_eq!(a.spec.implementation, Implementation::Reference);
    }
}
