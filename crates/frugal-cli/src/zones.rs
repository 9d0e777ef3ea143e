//! `frugal zones`: one deadline job on spot capacity across many zones (SkyNomad, NSDI
//! '27) — the multi-zone policies and the exact optimum on a published scenario's windows.
//! The flags map onto `frugal_spot::zones::experiment::ZonesSpec`, which runs it; this
//! prints the rows beside the artifact's published costs and writes them.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use frugal_spot::SpotError;
use frugal_spot::zones::experiment::{ZoneRow, ZonesSpec, run_spec_recorded};

use crate::Usage;
use crate::table::{Column, fixed, opt, render};

/// Options of `frugal zones`.
#[derive(Args, Debug)]
pub struct ZonesArgs {
    /// What to run (the spec's fields, one flag each).
    #[command(flatten)]
    pub spec: ZonesSpec,
    /// Write every row (CSV) to this file.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write every run's per-tick history (CSV: scenario, ratio, window, policy, run_zone,
    /// tick, zone, mode, preempted, probes, safety_net, work_done_h, bill_usd) to this file.
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
}

/// Runs `frugal zones`.
///
/// # Errors
/// A bad flag ([`Usage`], naming it); a policy's error; an unwritable `--csv`.
pub fn run(args: &ZonesArgs) -> Result<()> {
    let spec = &args.spec;
    // The spec's own check names its field: as a flag here.
    if let Err(SpotError::Input(m)) = spec.check() {
        return Err(Usage(anyhow::anyhow!("--{}", m.replacen('_', "-", 1))).into());
    }
    let (rows, history) = run_spec_recorded(spec, &[], args.history.is_some())?;
    let cols: Vec<Column<ZoneRow>> = vec![
        Column::new(["window", "(tick)"], |r| r.window.to_string()),
        Column::new(["policy", ""], |r| r.policy.clone()),
        Column::new(["zone", ""], |r: &ZoneRow| r.zone.clone()).sparse(|r| !r.zone.is_empty()),
        Column::new(["cost", "($)"], |r| fixed(r.cost_usd, 4)),
        Column::new(["published", "($)"], |r| opt(r.published_usd, 4)),
        Column::new(["diff", "($)"], |r| opt(r.diff_published_usd, 4)),
        Column::new(["gap to", "optimal ($)"], |r| opt(r.gap_usd, 4)),
        Column::new(["bill", "($)"], |r| fixed(r.bill_usd, 4)),
        Column::new(["migra-", "tions"], |r| r.migrations.to_string()),
        Column::new(["egress", "($)"], |r| fixed(r.egress_usd, 2)),
    ];
    println!(
        "{} (ratio {}, final tick: {}; published = the artifact's stored cost of the same arm; \
         optimal's is its approximate DP)\n",
        args.spec.scenario,
        rows.first().map_or(1.5, |r| r.ratio),
        args.spec.final_tick
    );
    println!("{}", render(cols, &rows, false, 3));
    println!();
    for p in &args.spec.policies {
        let of: Vec<&ZoneRow> = rows.iter().filter(|r| r.policy == p.to_string()).collect();
        let mean = |f: fn(&ZoneRow) -> Option<f64>| -> Option<f64> {
            let v: Option<Vec<f64>> = of.iter().copied().map(f).collect();
            v.filter(|v| !v.is_empty())
                .map(|v| v.iter().sum::<f64>() / v.len() as f64)
        };
        println!(
            "{:>8}: mean ${} over {} runs (published ${})",
            p.to_string(),
            opt(mean(|r| Some(r.cost_usd)), 2),
            of.len(),
            opt(mean(|r| r.published_usd), 2)
        );
    }
    if let Some(path) = &args.csv {
        write_csv(path, "--csv", &rows)?;
    }
    if let Some(path) = &args.history {
        write_csv(path, "--history", &history)?;
    }
    Ok(())
}

fn write_csv<T: serde::Serialize>(path: &std::path::Path, flag: &str, rows: &[T]) -> Result<()> {
    let what = || format!("{flag} {}", path.display());
    let mut w = csv::Writer::from_path(path).with_context(what)?;
    for r in rows {
        w.serialize(r).with_context(what)?;
    }
    w.flush().with_context(what)?;
    Ok(())
}
