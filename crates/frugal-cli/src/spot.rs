//! `frugal spot`: one deadline job on spot and on-demand capacity ("Can't Be Late", Wu et
//! al., NSDI 2024) — every policy on many windows of availability traces. The flags map
//! onto `frugal_spot::SpotSpec`, which runs it; this prints and writes the rows.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clap::Args;
use serde_json::json;

use frugal_spot::SpotError;
use frugal_spot::experiment::{self, SpotRow, SpotSpec};
use frugal_spot::summary::{PolicySummary, Statistic, gap_closure, summarise};

use crate::Usage;
use crate::progress::Progress;
use crate::table::{Column, FormatArg, fixed, markdown, opt, render};

/// Options of `frugal spot`.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct SpotArgs {
    /// What to run (the spec's fields, one flag each).
    #[command(flatten)]
    pub spec: SpotSpec,
    /// Output format: the summary table, or one row per (window, policy) as CSV or JSON.
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
    /// Worker threads (0: one per core); any count gives the same rows.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Write DIR/results.csv (one row per window and policy) and DIR/summary.json.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Also write every tick of every run to FILE (CSV: trace, window, policy, tick,
    /// spot_available, preempted, mode, work_done_h, cost_usd — the bill so far).
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
}

/// Runs the comparison and prints it.
///
/// # Errors
/// [`Usage`] for a spec or trace that cannot be used (the field or file named); a policy
/// that breaks the rules; I/O errors.
pub fn run(a: &SpotArgs) -> Result<()> {
    let spec = a.spec.clone();
    let progress = Progress::new(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads)
        .build()
        .context("starting the worker threads")?;
    let rows = pool
        .install(|| experiment::run(&spec, &progress))
        .map_err(|e| match e {
            SpotError::Input(m) => anyhow!(Usage(anyhow!(m))),
            e => anyhow!(e),
        })?;
    progress.finish();
    let summary = summarise(&rows);
    if let Some(dir) = &a.out {
        write_out(dir, &spec, &rows, &summary)?;
    }
    if let Some(file) = &a.history {
        let ticks = pool
            .install(|| experiment::history(&spec))
            .map_err(|e| anyhow!(e))?;
        let mut w = csv::Writer::from_path(file)
            .with_context(|| format!("--history {}", file.display()))?;
        for t in &ticks {
            w.serialize(t)?;
        }
        w.flush()?;
    }
    let mut out = std::io::stdout().lock();
    match a.format {
        FormatArg::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            for r in &rows {
                w.serialize(r).map_err(std::io::Error::from)?;
            }
            w.flush()?;
        }
        FormatArg::Json => writeln!(out, "{}", serde_json::to_string_pretty(&rows)?)?,
        FormatArg::Table | FormatArg::Markdown => {
            let job = spec.job();
            writeln!(
                out,
                "C(0) = {} h, R(0) = {} h (f = {:.2}), d = {} h, {} instance(s), k = {:.4}; \
                 {} windows per trace, seed {}",
                spec.work_h,
                fixed(job.deadline_s / 3600.0, 2),
                job.fraction(),
                spec.changeover_h,
                spec.instances,
                spec.prices().k(),
                spec.window_count(),
                spec.seed
            )?;
            let table = if a.format == FormatArg::Table {
                render(columns(), &summary, true, 2)
            } else {
                markdown(columns(), &summary, 2)
            };
            writeln!(out, "{table}")?;
            for (stat, name) in [(Statistic::Mean, "mean"), (Statistic::P75, "p75")] {
                if let Some(r) = gap_closure(&rows, "greedy", "uniform-progress", stat, spec.seed) {
                    writeln!(
                        out,
                        "greedy's gap to the optimum / uniform-progress's ({name}, in dollars): {:.2}× \
                         (95 % bootstrap interval {:.2}–{:.2})",
                        r.value, r.low, r.high
                    )?;
                }
            }
        }
    }
    Ok(())
}

fn columns() -> Vec<Column<PolicySummary>> {
    vec![
        Column::new(["traces", ""], |s| s.traces.clone()),
        Column::new(["policy", ""], |s| s.policy.clone()),
        Column::new(["windows", ""], |s| s.windows.to_string()),
        Column::new(["cost", "$"], |s| fixed(s.cost_usd, 2)),
        Column::new(["savings", "%"], |s| fixed(s.savings_pct, 1)),
        Column::new(["OD work", "h"], |s| {
            format!(
                "{} ± {}",
                fixed(s.on_demand_work_h.0, 1),
                fixed(s.on_demand_work_h.1, 1)
            )
        }),
        Column::new(["spot work", "h"], |s| {
            format!(
                "{} ± {}",
                fixed(s.spot_work_h.0, 1),
                fixed(s.spot_work_h.1, 1)
            )
        }),
        Column::new(["spot", "util %"], |s| opt(s.spot_utilisation_pct, 0)),
        Column::new(["deadline", "met %"], |s| fixed(s.deadline_met_pct, 1)),
        Column::new(["gap", "mean %"], |s| opt(s.gap_pct.map(|g| g.0), 1)),
        Column::new(["gap", "p75 %"], |s| opt(s.gap_pct.map(|g| g.1), 1)),
    ]
}

fn write_out(
    dir: &Path,
    spec: &SpotSpec,
    rows: &[SpotRow],
    summary: &[PolicySummary],
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let csv_path = dir.join("results.csv");
    let mut w = csv::Writer::from_path(&csv_path)
        .with_context(|| format!("writing {}", csv_path.display()))?;
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    let json_path = dir.join("summary.json");
    let closure = |s| gap_closure(rows, "greedy", "uniform-progress", s, spec.seed);
    let doc = json!({
        "spec": spec,
        "summary": summary,
        "gap_closure": { "mean": closure(Statistic::Mean), "p75": closure(Statistic::P75) },
    });
    std::fs::write(&json_path, serde_json::to_string_pretty(&doc)?)
        .with_context(|| format!("writing {}", json_path.display()))
}
