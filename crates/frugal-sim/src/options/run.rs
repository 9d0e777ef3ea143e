//! Running a plan: every workload × policy × repetition in parallel, results in plan order
//! (so the rows do not depend on the thread count), and the rows' aggregates.

use anyhow::{Context, Result};
use rayon::prelude::*;

use frugal_core::progress::Progress;

use super::choices::{AgentLoader, build_policy};
use super::{Plan, SimulateSpec, plan};
use crate::RunResult;
use crate::experiment::{AggregateRow, RunRow};
use crate::offline;
use crate::output::{write_csv, write_run};
use frugal_core::PolicySpec;

/// One run of the plan.
pub struct RunKey {
    /// Index of its workload in the plan.
    pub workload: usize,
    /// Index of its policy in the plan.
    pub policy: usize,
    /// Repetition (seed = the plan's seed + repetition).
    pub repetition: u64,
}

/// The runs of a comparison, in plan order: workload × policy × repetition.
pub struct Runs {
    /// The checked options.
    pub plan: Plan,
    /// Which run each result is.
    pub keys: Vec<RunKey>,
    /// Each run's records.
    pub results: Vec<RunResult>,
    /// Each run's tidy row (`results.csv`).
    pub rows: Vec<RunRow>,
}

/// Plans and executes the runs of `a` on `threads` workers (0: one per core), ticking
/// `progress` (which it tells how many); `agents` loads the `rl:` policies.
///
/// # Errors
/// A message naming the option that cannot be used; a policy that cannot be built.
pub fn compute(
    a: &SimulateSpec,
    threads: usize,
    progress: &dyn Progress,
    agents: &AgentLoader,
) -> Result<Runs> {
    let plan = plan(a, agents)?;
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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the worker threads")?;
    progress.add(keys.len());
    let results = pool.install(|| {
        keys.par_iter()
            .map(|k| {
                let jobs =
                    plan.workloads[k.workload].jobs_for(plan.seed.wrapping_add(k.repetition));
                let choice = &plan.policies[k.policy];
                let mut r = if *choice == PolicySpec::Offline {
                    offline::search(
                        &plan.setup,
                        &jobs,
                        &offline::candidates(),
                        plan.offline_budget,
                    )
                    .best
                } else {
                    let policy = build_policy(choice, &plan.setup.policy, plan.cluster(), agents)?;
                    match &plan.workloads[k.workload].replay {
                        Some(replay) => {
                            let inputs = crate::engine::Inputs {
                                vm_events: plan.setup.vm_events.clone(),
                                ..replay.clone()
                            };
                            plan.setup.replay(policy, &jobs, &inputs)
                        }
                        None => plan.setup.run_with(policy, &jobs),
                    }
                };
                r.summary.policy = choice.to_string();
                progress.tick();
                Ok(r)
            })
            .collect::<Result<Vec<_>>>()
    })?;
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

/// Per workload (in plan order), one aggregate row per policy over its repetitions, the
/// cost compared with the `baseline` policy's mean: what `frugal simulate` prints.
pub fn aggregate(runs: &Runs, baseline: &str) -> Vec<(usize, Vec<AggregateRow>)> {
    runs.plan
        .workloads
        .iter()
        .enumerate()
        .map(|(w, workload)| {
            let of = |p: &str| -> Vec<RunRow> {
                runs.rows
                    .iter()
                    .filter(|r| r.workload == workload.label && r.policy == p)
                    .cloned()
                    .collect()
            };
            let base_runs = of(baseline);
            let base_cost =
                base_runs.iter().map(|r| r.cost_usd).sum::<f64>() / base_runs.len() as f64;
            let rows = runs
                .plan
                .policies
                .iter()
                .map(|p| AggregateRow::new(&of(&p.to_string()), baseline, base_cost))
                .collect();
            (w, rows)
        })
        .collect()
}

/// Writes a comparison's files into `dir`, as `frugal simulate --out` does: per run,
/// `jobs.csv`, `vms.csv`, `cost_over_time.csv` and `summary.json` (with provenance) under
/// `dir/<workload>/<policy>-seed<seed>/` (names as [`slug`]s), and `dir/results.csv` with
/// one row per workload × policy × repetition.
///
/// # Errors
/// Any I/O error, with the path that failed.
pub fn write_out(dir: &std::path::Path, a: &SimulateSpec, runs: &Runs) -> std::io::Result<()> {
    let Runs {
        plan,
        keys,
        results,
        rows,
    } = runs;
    for ((k, r), row) in keys.iter().zip(results).zip(rows) {
        let run_dir = dir
            .join(slug(&plan.workloads[k.workload].label))
            .join(format!(
                "{}-seed{}",
                slug(&plan.policies[k.policy].to_string()),
                row.seed
            ));
        write_run(r, row, &plan.provenance(a, k.repetition), &run_dir)?;
    }
    write_csv(&dir.join("results.csv"), rows)
}

/// A directory-name form of a label: lower-case alphanumerics joined by `-`
/// (`"FB-2009 hour 0"` ↦ `fb-2009-hour-0`).
pub fn slug(s: &str) -> String {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}
