//! The contention model (frugal's extension; module doc of `frugal_core::contention`)
//! fitted on measured live runs: the `live-jobs.csv` files of `frugal live` read as runs,
//! the fit's summary and the file that `simulate`, `whatif` and `serve` read with
//! `--contention` (`frugal contention`, and `frugal live --contention-levels`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use frugal_core::ContentionModel;
use frugal_core::contention::{Fit, Observed, fit};

/// The model fitted on the completed jobs of `live-jobs.csv` files, each workload,
/// policy and repetition one run.
///
/// # Errors
/// A file unreadable or malformed (named with its line and field), or too little to fit.
pub fn fit_files(paths: &[PathBuf]) -> Result<Fit, String> {
    let mut runs: BTreeMap<(String, String, String), Vec<Observed>> = BTreeMap::new();
    for path in paths {
        read_live_jobs(path, &mut runs)?;
    }
    let runs: Vec<Vec<Observed>> = runs.into_values().collect();
    fit(&runs)
}

/// The model's form in words.
fn form(m: &ContentionModel) -> String {
    match m.slope {
        None => format!("processor sharing, capacity {:.2} jobs", m.capacity),
        Some(b) => format!(
            "capacity {:.2} jobs, slope {b:.2} per job above it",
            m.capacity
        ),
    }
}

/// The fit in a few lines: the model, what it was fitted on and its error with and
/// without it.
pub fn summary(f: &Fit) -> String {
    let mut text = format!(
        "contention model: cluster scope, {} (fitted on {} runs, {} jobs)\n\
         mean |predicted − measured| / measured run time: {:.1} % with the model, {:.1} % without\n",
        form(&f.model),
        f.runs,
        f.jobs,
        f.error_pct,
        f.error_without_pct
    );
    if f.model.slope.is_some() {
        text += &format!(
            "  the best processor sharing ({}) is off by {:.1} %\n",
            form(&f.sharing.0),
            f.sharing.1
        );
    }
    text
}

/// The model file of the fit `f` made on `paths`: the model, then its errors in a `[fit]`
/// table.
pub fn file_text(f: &Fit, paths: &[PathBuf]) -> String {
    format!(
        "# frugal contention --live-jobs {}\n{}\n[fit]\nruns = {}\njobs = {}\nerror_pct = {:.2}\nerror_without_pct = {:.2}\nsharing_capacity = {:.2}\nsharing_error_pct = {:.2}\n",
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(","),
        f.model.to_toml().trim_end(),
        f.runs,
        f.jobs,
        f.error_pct,
        f.error_without_pct,
        f.sharing.0.capacity,
        f.sharing.1
    )
}
/// Adds the completed jobs of a `live-jobs.csv` to `runs`, keyed by workload, policy and
/// repetition.
fn read_live_jobs(
    path: &Path,
    runs: &mut BTreeMap<(String, String, String), Vec<Observed>>,
) -> Result<(), String> {
    let name = path.display();
    let mut rd = csv::Reader::from_path(path).map_err(|e| format!("{name}: {e}"))?;
    let headers = rd.headers().map_err(|e| format!("{name}: {e}"))?.clone();
    let col = |c: &str| {
        headers
            .iter()
            .position(|h| h == c)
            .ok_or_else(|| format!("{name}: no column `{c}` (a live-jobs.csv of frugal live)"))
    };
    // Files of older versions have no repetition: one each.
    let repetition = headers.iter().position(|h| h == "repetition");
    let [workload, policy, state, submitted, wait, run_s, estimated] = [
        "workload",
        "policy",
        "state",
        "submitted_s",
        "wait_s",
        "run_s",
        "estimated_s",
    ]
    .map(col);
    let (workload, policy, state, submitted, wait, run_s, estimated) = (
        workload?, policy?, state?, submitted?, wait?, run_s?, estimated?,
    );
    for (i, rec) in rd.records().enumerate() {
        let line = i + 2;
        let rec = rec.map_err(|e| format!("{name}: line {line}: {e}"))?;
        if &rec[state] != "completed" {
            continue;
        }
        let num = |k: usize, field: &str| -> Result<f64, String> {
            rec[k]
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("{name}: line {line}: {field}: not a number: {:?}", &rec[k]))
        };
        let o = Observed {
            start: num(submitted, "submitted_s")? + num(wait, "wait_s")?,
            solo: num(estimated, "estimated_s")?,
            measured: num(run_s, "run_s")?,
        };
        let rep = repetition.map_or("1", |k| &rec[k]).to_string();
        runs.entry((rec[workload].to_string(), rec[policy].to_string(), rep))
            .or_default()
            .push(o);
    }
    Ok(())
}
