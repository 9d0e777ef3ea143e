//! Writing a run's records: per-job and per-VM CSV, the cumulative cost curve and a
//! summary with provenance. Every CSV is written by the `csv` crate (RFC 4180 quoting)
//! with units in the column names; numbers are printed in their shortest exact form.

use std::io;
use std::path::Path;

use serde::Serialize;

use crate::experiment::RunRow;
use crate::metrics::RunResult;
use frugal_core::lifecycle::JobState;

#[derive(Serialize)]
struct JobLine<'a> {
    id: &'a str,
    kind: &'a str,
    executors: u32,
    arrival_s: f64,
    deadline_s: Option<f64>,
    start_s: Option<f64>,
    finish_s: Option<f64>,
    /// T_C^L as given (the input's `t_local_s`).
    t_local_s: f64,
    /// finish − start: `t_local_s`, or T_C^H when `hybrid`, × (1 + the kind penalty) when
    /// `kind_mismatch`; empty for a job that did not run.
    run_time_s: Option<f64>,
    status: JobState,
    /// Empty for a job without a deadline.
    met_deadline: Option<bool>,
    hybrid: bool,
    kind_mismatch: bool,
    /// `vm:executors` pairs joined by `;`.
    placement: String,
}

#[derive(Serialize)]
struct VmLine<'a> {
    vm: u32,
    instance_type: &'a str,
    site: &'a str,
    price_usd_per_s: f64,
    power_ons: usize,
    on_time_s: f64,
    cost_usd: f64,
}

#[derive(Serialize)]
struct CostLine {
    time_s: f64,
    cumulative_cost_usd: f64,
}

fn with_path(p: &Path) -> impl Fn(io::Error) -> io::Error + '_ {
    move |e| io::Error::new(e.kind(), format!("{}: {e}", p.display()))
}

/// Writes `rows` as a CSV file at `path` (header from the field names).
///
/// # Errors
/// Any I/O or serialisation error, with the path.
pub fn write_csv<T: Serialize>(path: &Path, rows: impl IntoIterator<Item = T>) -> io::Result<()> {
    let mut w = csv::Writer::from_path(path).map_err(|e| with_path(path)(e.into()))?;
    for r in rows {
        w.serialize(r).map_err(|e| with_path(path)(e.into()))?;
    }
    w.flush().map_err(with_path(path))
}

/// Writes `jobs.csv`, `vms.csv`, `cost_over_time.csv` and `summary.json` into `dir`
/// (created if missing). Times in seconds, costs in dollars. `summary.json` holds `row`
/// (the run's tidy row) and `provenance` (version, commit, configuration, inputs).
///
/// # Errors
/// Any I/O error, with the path that failed.
pub fn write_run(
    run: &RunResult,
    row: &RunRow,
    provenance: &serde_json::Value,
    dir: &Path,
) -> io::Result<()> {
    std::fs::create_dir_all(dir).map_err(with_path(dir))?;
    write_csv(
        &dir.join("jobs.csv"),
        run.jobs.iter().map(|r| JobLine {
            id: &r.id,
            kind: r.kind.as_str(),
            executors: r.executors,
            arrival_s: r.arrival,
            deadline_s: r.deadline,
            start_s: r.start,
            finish_s: r.finish,
            t_local_s: r.t_local,
            run_time_s: r.start.zip(r.finish).map(|(s, f)| f - s),
            status: r.status,
            met_deadline: r.deadline.map(|_| r.met_deadline()),
            hybrid: r.hybrid,
            kind_mismatch: r.kind_mismatch,
            placement: r
                .placement
                .iter()
                .map(|(vm, n)| format!("{vm}:{n}"))
                .collect::<Vec<_>>()
                .join(";"),
        }),
    )?;
    write_csv(
        &dir.join("vms.csv"),
        run.vms.iter().map(|v| VmLine {
            vm: v.id,
            instance_type: &v.instance_type,
            site: v.site.as_str(),
            price_usd_per_s: v.price_per_second,
            power_ons: v.intervals.len(),
            on_time_s: v.on_time(),
            cost_usd: v.cost(run.billing),
        }),
    )?;
    write_csv(
        &dir.join("cost_over_time.csv"),
        run.cumulative_cost()
            .into_iter()
            .map(|(time_s, cumulative_cost_usd)| CostLine {
                time_s,
                cumulative_cost_usd,
            }),
    )?;
    let summary = serde_json::json!({ "run": row, "provenance": provenance });
    let p = dir.join("summary.json");
    let text = serde_json::to_string_pretty(&summary).expect("JSON values serialise");
    std::fs::write(&p, text + "\n").map_err(with_path(&p))
}
