//! `frugal simulate`: the policy comparison (the main job).
//!
//! Options are checked into a [`plan::Plan`] first (so misuse fails before any run); the
//! runs — every workload × policy × repetition — then execute in parallel, and their
//! results are printed and written in plan order, so the output does not depend on the
//! thread count.

mod args;
mod plan;
mod table;

use anyhow::{Context, Result};
use rayon::prelude::*;
use std::io::Write;

use frugal_sim::experiment::{AggregateRow, RunRow};
use frugal_sim::output::{write_csv, write_run};
use frugal_sim::{RunResult, offline};

pub use args::SimulateArgs;
pub(crate) use plan::sha256_hex;
pub use plan::{Plan, plan};

use crate::Usage;
use crate::choices::{FormatArg, PolicyChoice};
use crate::progress::Progress;

/// One run of the plan.
struct RunKey {
    workload: usize,
    policy: usize,
    repetition: u64,
}

/// The runs of a comparison, in plan order: workload × policy × repetition.
pub struct Runs {
    /// The checked options.
    pub plan: Plan,
    keys: Vec<RunKey>,
    /// Each run's records.
    pub results: Vec<RunResult>,
    /// Each run's tidy row.
    pub rows: Vec<RunRow>,
}

/// Plans and executes the runs of `a`, ticking `progress` (which it tells how many).
///
/// # Errors
/// [`Usage`] for options or inputs that cannot be used; a policy that cannot be built.
pub fn compute(a: &SimulateArgs, progress: &Progress) -> Result<Runs> {
    let plan = plan(a).map_err(Usage::from)?;
    let keys: Vec<RunKey> = (0..plan.workloads.len())
        .flat_map(|w| {
            (0..plan.policies.len()).flat_map(move |p| {
                (0..a.repetitions).map(move |r| RunKey {
                    workload: w,
                    policy: p,
                    repetition: r,
                })
            })
        })
        .collect();
    let results = execute(&plan, &keys, a.threads, progress)?;
    let rows: Vec<RunRow> = keys
        .iter()
        .zip(&results)
        .map(|(k, r)| {
            RunRow::new(
                &plan.workloads[k.workload].label,
                k.repetition,
                plan.seed.wrapping_add(k.repetition),
                &r.summary,
                a.timings,
            )
        })
        .collect();
    Ok(Runs {
        plan,
        keys,
        results,
        rows,
    })
}

/// Runs the comparison and prints one table (or one block of rows) per workload.
///
/// # Errors
/// [`Usage`] for options or inputs that cannot be used; I/O errors writing the output.
pub fn run(a: &SimulateArgs) -> Result<()> {
    let progress = Progress::new(0);
    let Runs {
        plan,
        keys,
        results,
        rows,
    } = compute(a, &progress)?;
    progress.finish();
    if let Some(dir) = &a.out {
        for ((k, r), row) in keys.iter().zip(&results).zip(&rows) {
            let run_dir = dir
                .join(slug(&plan.workloads[k.workload].label))
                .join(format!(
                    "{}-seed{}",
                    slug(&plan.policies[k.policy].label()),
                    row.seed
                ));
            write_run(r, row, &plan.provenance(a, k.repetition), &run_dir)?;
        }
        write_csv(&dir.join("results.csv"), &rows)?;
    }
    let baseline = a.baseline.label();
    let mut tables = Vec::new();
    for (w, workload) in plan.workloads.iter().enumerate() {
        let of = |p: &str| -> Vec<RunRow> {
            rows.iter()
                .filter(|r| r.workload == workload.label && r.policy == p)
                .cloned()
                .collect()
        };
        let base_runs = of(&baseline);
        let base_cost = base_runs.iter().map(|r| r.cost_usd).sum::<f64>() / base_runs.len() as f64;
        let aggregates: Vec<AggregateRow> = plan
            .policies
            .iter()
            .map(|p| AggregateRow::new(&of(&p.label()), &baseline, base_cost))
            .collect();
        tables.push((w, aggregates));
    }
    let mut out = std::io::stdout().lock();
    match a.format {
        FormatArg::Table | FormatArg::Markdown => {
            writeln!(out, "{}", plan.header)?;
            for (w, aggregates) in &tables {
                let wl = &plan.workloads[*w];
                writeln!(out, "\n{} ({} jobs)", wl.label, wl.jobs)?;
                let text = if a.format == FormatArg::Table {
                    table::render(aggregates, a.wide, a.timings)
                } else {
                    table::markdown(aggregates, a.timings)
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
            let all: Vec<&AggregateRow> = tables.iter().flat_map(|(_, a)| a).collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&all)?)?;
        }
    }
    Ok(())
}

/// Runs every key, in parallel on `threads` workers (0: one per core); results in key
/// order, ticking `progress`.
fn execute(
    plan: &Plan,
    keys: &[RunKey],
    threads: u16,
    progress: &Progress,
) -> Result<Vec<RunResult>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(usize::from(threads))
        .build()
        .context("starting the worker threads")?;
    progress.add(keys.len());
    pool.install(|| {
        keys.par_iter()
            .map(|k| {
                let jobs =
                    plan.workloads[k.workload].jobs_for(plan.seed.wrapping_add(k.repetition));
                let choice = &plan.policies[k.policy];
                let mut r = if *choice == PolicyChoice::Offline {
                    offline::search(
                        &plan.setup,
                        &jobs,
                        &offline::CANDIDATES,
                        plan.offline_budget,
                    )
                    .best
                } else {
                    let policy = choice.build(&plan.setup.policy, plan.cluster())?;
                    plan.setup.run_with(policy, &jobs)
                };
                r.summary.policy = plan.policies[k.policy].label();
                progress.tick();
                Ok(r)
            })
            .collect::<Result<Vec<_>>>()
    })
}

/// A directory-name form of a label: lower-case alphanumerics joined by `-`.
fn slug(s: &str) -> String {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}
