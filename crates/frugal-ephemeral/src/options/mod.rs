//! The paper 001 experiments (`frugal ephemeral` and `frugal ephemeral planners`, the
//! `ephemeral` and `ephemeral-planners` experiments, the Python package's `ephemeral`):
//! typed specs ([`EphemeralSpec`], [`PlannersSpec`]) that every face builds, run into tidy
//! rows by [`compute`] and [`planners`]. Inputs are read and
//! checked first; the runs (data centre × chunk size × margin × start hour × strategy) then
//! execute in parallel and are returned in that order, so the rows do not depend on the
//! thread count.

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::Serialize;

use frugal_core::progress::Progress;
use frugal_core::spec::SpecError;

pub mod choices;
mod spec;

pub use choices::Stop;
pub use spec::{EphemeralSpec, PlannersSpec};

use crate::experiment::{self, DcCoverage, EphemeralRow, RunSpec, Workload};
use crate::planner::{Effort, MILP_TIME_LIMIT};
use crate::solvers::{self, SolverRow, SolverSpec};
use crate::{ForecasterKind, Hosts, JobSpec, Utilisation};

/// The runs of a comparison (data centre × chunk size × margin × start hour × strategy)
/// and the forecasts' coverage per data centre.
pub struct Runs {
    /// Each run's tidy row.
    pub rows: Vec<EphemeralRow>,
    /// The forecasts' coverage per data centre.
    pub coverage: Vec<DcCoverage>,
}

/// Writes a comparison's files into `dir` (created if missing), as `frugal ephemeral --out`
/// does: `runs.csv` (one row per run), `cells.csv` (medians per cell), `improvements.csv`
/// (the paper's comparisons) and `summary.json` (version, commit, the options as given and
/// the forecasts' coverage).
///
/// # Errors
/// Any I/O error, with the path that failed.
pub fn write_out(dir: &Path, a: &EphemeralSpec, runs: &Runs) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    fn write<T: Serialize>(path: &Path, items: &[T]) -> Result<()> {
        let mut w =
            csv::Writer::from_path(path).with_context(|| format!("writing {}", path.display()))?;
        items.iter().try_for_each(|i| w.serialize(i))?;
        w.flush()?;
        Ok(())
    }
    let cells = crate::summary::cells(&runs.rows);
    write(&dir.join("runs.csv"), &runs.rows)?;
    write(&dir.join("cells.csv"), &cells)?;
    write(
        &dir.join("improvements.csv"),
        &crate::summary::improvements(&cells),
    )?;
    let summary = serde_json::json!({
        "frugal_version": env!("CARGO_PKG_VERSION"),
        "git_commit": option_env!("FRUGAL_GIT_COMMIT"),
        "command": "ephemeral",
        "configuration": a,
        "forecast_coverage": &runs.coverage,
    });
    let path = dir.join("summary.json");
    std::fs::write(&path, serde_json::to_string_pretty(&summary)? + "\n")
        .with_context(|| format!("writing {}", path.display()))
}

/// Reads the inputs and executes the runs of `a` on `threads` workers (0: one per core),
/// ticking `progress` (which it tells how many).
///
/// # Errors
/// [`SpecError`](frugal_core::spec::SpecError) for a field that cannot be used
/// ([`EphemeralSpec::check`]) or naming a `hosts` or `utilisation` file that cannot be used
/// (with the line at fault).
pub fn compute(a: &EphemeralSpec, threads: usize, progress: &dyn Progress) -> Result<Runs> {
    a.check()?;
    let hosts = match &a.hosts {
        None => Hosts::embedded(),
        Some(p) => {
            let f = std::fs::File::open(p)
                .map_err(|e| SpecError::new("hosts", format!("{}: {e}", p.display())))?;
            Hosts::parse(f, &p.display().to_string())
                .map_err(|e| SpecError::new("hosts", e.to_string()))?
        }
    };
    let util = match &a.utilisation {
        None => Utilisation::shipped(a.primary_workload()),
        Some(p) => read_utilisation(p, hosts.0.len())?,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the worker threads")?;
    let kinds: Vec<ForecasterKind> = a.forecaster.clone();
    let dc_host_ids: Vec<usize> =
        a.dc.iter()
            .flat_map(|dc| hosts.of(*dc))
            .map(|h| h.host)
            .collect();
    // One scaled workload per factor, its forecasters fitted once and shared by its runs.
    let workloads: Vec<Workload> = pool.install(|| {
        a.volatility
            .par_iter()
            .map(|&v| Workload::new(&util, v, &dc_host_ids, &kinds))
            .collect::<Result<_>>()
    })?;
    let mut specs = Vec::new();
    let mut workload_of = Vec::new();
    for (w, &volatility) in a.volatility.iter().enumerate() {
        for dc in &a.dc {
            for &chunk in &a.chunk_mib {
                let mut job = JobSpec::paper(chunk);
                job.map_output_ratio = a.map_output_ratio;
                if let Some(n) = a.tasks {
                    job = job.with_tasks(n as usize);
                }
                for &margin in &a.margins {
                    for h in 0..a.start_hours {
                        for &forecaster in &kinds {
                            for s in &a.strategies {
                                specs.push(RunSpec {
                                    dc: *dc,
                                    job,
                                    jobs: a.jobs as usize,
                                    margin_pct: margin,
                                    start_hour: h,
                                    strategy: *s,
                                    forecaster,
                                    volatility,
                                    upload: a.upload,
                                    control_step_s: a.control_step,
                                    plan_slot_s: a.plan_slot_s.unwrap_or(1),
                                    effort: a.budget.unwrap_or(Effort::Full),
                                    wall_clock: a.wall_clock_s.map(Duration::from_secs_f64),
                                    seed: a.seed,
                                });
                                workload_of.push(w);
                            }
                        }
                    }
                }
            }
        }
    }
    progress.add(specs.len());
    let rows: Vec<EphemeralRow> = pool.install(|| {
        specs
            .par_iter()
            .zip(&workload_of)
            .map(|(s, &w)| {
                let row = experiment::run(s, &hosts, &workloads[w]);
                progress.tick();
                row
            })
            .collect()
    });
    let mut coverage = Vec::new();
    for workload in &workloads {
        for dc in &a.dc {
            for &kind in &kinds {
                coverage.push(experiment::coverage(
                    *dc,
                    &hosts,
                    workload,
                    kind,
                    a.start_hours,
                ));
            }
        }
    }
    Ok(Runs { rows, coverage })
}

/// Reads the `utilisation` file, gunzipping it when it starts with the gzip magic number.
fn read_utilisation(p: &Path, hosts: usize) -> Result<Utilisation> {
    let bytes = std::fs::read(p)
        .map_err(|e| SpecError::new("utilisation", format!("{}: {e}", p.display())))?;
    let name = p.display().to_string();
    let text: Box<dyn Read> = if bytes.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::GzDecoder::new(bytes.as_slice()))
    } else {
        Box::new(bytes.as_slice())
    };
    Ok(Utilisation::parse(text, &name, hosts)
        .map_err(|e| SpecError::new("utilisation", e.to_string()))?)
}

/// Solves the problems of `a` with each planner: one row per (tasks, planner).
///
/// # Errors
/// [`SpecError`](frugal_core::spec::SpecError) for a field that cannot be used
/// ([`PlannersSpec::check`]).
pub fn planners(a: &PlannersSpec) -> Result<Vec<SolverRow>> {
    a.check()?;
    let spec = SolverSpec {
        dc: a.dc,
        tasks: a.tasks.iter().map(|&n| n as usize).collect(),
        jobs: a.jobs as usize,
        planners: a.planners.clone(),
        effort: a.budget.unwrap_or(Effort::Full),
        patience: a.stop.unwrap_or(Stop::Patience) == Stop::Patience,
        plan_slot_s: a.plan_slot_s,
        milp_time_limit: a
            .milp_time_limit_s
            .map_or(MILP_TIME_LIMIT, Duration::from_secs_f64),
        seed: a.seed,
    };
    Ok(solvers::compare(
        &spec,
        &Hosts::embedded(),
        &Utilisation::embedded(),
    ))
}
