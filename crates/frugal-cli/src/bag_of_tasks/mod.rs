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
use frugal_bot::{BagOfTasksSpec, BotRow, Implementation, Policy};

use crate::progress::Progress;
use crate::table::FormatArg;
use crate::values::choice;

/// Options of `frugal bag-of-tasks`: the comparison's (`BagOfTasksSpec`'s fields), and how
/// to print and where to write.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct BagOfTasksArgs {
    /// SWF logs: `nasa` or `kth` (shipped inside frugal) or the path of an SWF file,
    /// plain or gzip (write `./nasa` for a file of that name); `a+b` concatenates the
    /// tasks of logs a and b.
    #[arg(
        long,
        value_name = "nasa|kth|FILE",
        value_delimiter = ',',
        default_value = "nasa"
    )]
    pub trace: Vec<String>,
    /// Deadline factors: each task's deadline is α × its run time on a 2 GHz core.
    #[arg(long, value_delimiter = ',', default_value = "1,2,3,4")]
    pub alpha: Vec<u32>,
    /// Policies to compare.
    #[arg(
        long,
        value_parser = choice::<Policy>(),
        value_delimiter = ',',
        default_value = "ffd,ffd-ra,ha,ha-ra"
    )]
    pub policies: Vec<Policy>,
    /// PM scale factors s: s × every PM count (the paper's Fig. 10–11 use 1..10).
    #[arg(long, value_delimiter = ',', default_value = "1")]
    pub scale: Vec<u32>,
    /// Run on the first N tasks of each log (log order; Fig. 12), for each N listed
    /// [default: all].
    #[arg(long, value_delimiter = ',')]
    pub tasks: Vec<u64>,
    /// Repeat each log until the bag holds N tasks (numbered 1..N), for scale tests.
    #[arg(long, value_name = "N")]
    pub replicate: Option<u64>,
    /// Machine file (TOML: [[pm]] and [[vm]] entries; format in the book) [default:
    /// the paper's 15 PMs and EC2 c3.large].
    #[arg(long, value_name = "FILE")]
    pub machines: Option<PathBuf>,
    /// Rent of the VM type, dollars per started hour (the machine set must have one
    /// VM type).
    #[arg(long, value_name = "USD")]
    pub vm_usd_per_hour: Option<f64>,
    /// Electricity price for the PMs' energy, dollars per kWh; reported as energy cost
    /// and total cost beside the rent (the paper prices only rent).
    #[arg(long, value_name = "USD", default_value_t = 0.0)]
    pub electricity_usd_per_kwh: f64,
    /// Timed repeats per run for the decision overhead (median, CPU seconds); 0 leaves
    /// overhead_s empty and makes the output byte-reproducible.
    #[arg(long, default_value_t = 5)]
    pub repeats: u32,
    /// Implementation of HA and FFD to run and time: `fast` (O(T·N·log T) HA, linear
    /// FFD) or `reference` (the paper's all-pairs HA and scanning FFD, for the shape of
    /// its CPU-time figures). Both give the same schedules.
    #[arg(long, value_parser = choice::<Implementation>(), default_value = "fast")]
    pub implementation: Implementation,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
    /// Table format: show every column (the default fits 120 columns).
    #[arg(long)]
    pub wide: bool,
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

impl BagOfTasksArgs {
    /// The comparison these flags ask for.
    pub fn spec(&self) -> BagOfTasksSpec {
        BagOfTasksSpec {
            trace: self.trace.clone(),
            alpha: self.alpha.clone(),
            policies: self.policies.clone(),
            scale: self.scale.clone(),
            tasks: self.tasks.clone(),
            replicate: self.replicate,
            machines: self.machines.clone(),
            vm_usd_per_hour: self.vm_usd_per_hour,
            electricity_usd_per_kwh: self.electricity_usd_per_kwh,
            repeats: self.repeats,
            implementation: self.implementation,
        }
    }
}

/// Runs the comparison and prints it.
///
/// # Errors
/// A `SpecError` for options or inputs that cannot be used; a policy that cannot schedule
/// a bag; I/O errors writing the output.
pub fn run(a: &BagOfTasksArgs) -> Result<()> {
    let spec = a.spec();
    let progress = Progress::new(0);
    let runs = compute(&spec, usize::from(a.threads), &progress)?;
    progress.finish();
    if let Some(dir) = &a.out {
        write_out(dir, &spec, &runs)?;
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
    match a.format {
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
    let md = a.format == FormatArg::Markdown;
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
        writeln!(out, "{}", table::runs(block_rows, a.wide, md))?;
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
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        a: BagOfTasksArgs,
    }

    /// The flags' defaults are the spec's defaults, and the choices map onto the
    /// library's names: one default and one name on both faces.
    #[test]
    fn the_flags_map_onto_the_spec() {
        let a = Flags::try_parse_from(["bag-of-tasks"]).unwrap().a;
        assert_eq!(a.spec(), BagOfTasksSpec::default());
        let a = Flags::try_parse_from([
            "bag-of-tasks",
            "--policies",
            "optimal,ha-ra",
            "--implementation",
            "reference",
        ])
        .unwrap()
        .a;
        assert_eq!(a.spec().policies, [Policy::Optimal, Policy::HaRa]);
        assert_eq!(a.spec().implementation, Implementation::Reference);
    }
}
