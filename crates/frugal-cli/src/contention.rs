//! `frugal contention`: calibrates the contention model (frugal's extension; module doc of
//! `frugal_core::contention`) on measured live runs and writes the file that `simulate`,
//! `whatif` and `serve` read with `--contention`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;

use frugal_core::contention::{Fit, Observed, fit};

use crate::Usage;

/// Options of `frugal contention`.
#[derive(Args, Debug)]
pub struct ContentionArgs {
    /// Measured jobs: `live-jobs.csv` files of `frugal live` (comma-separated). Each
    /// workload and policy is one run; its completed jobs are fitted on, each started when
    /// it really started with its submitted estimate as its solo run time.
    #[arg(long, value_name = "FILE", value_delimiter = ',', required = true)]
    pub live_jobs: Vec<PathBuf>,
    /// Write the fitted model here (TOML, with the fit's errors in its `[fit]` table).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Fits and prints (and writes the file).
pub fn run(a: &ContentionArgs) -> Result<()> {
    let f = fit_files(&a.live_jobs).map_err(|e| Usage(anyhow::anyhow!("--live-jobs: {e}")))?;
    report(&f, &a.live_jobs, a.out.as_deref())
}

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

/// Prints the fit `f` made on `paths`, and writes it to `out`.
pub fn report(f: &Fit, paths: &[PathBuf], out: Option<&Path>) -> Result<()> {
    let form = |m: &frugal_core::ContentionModel| match m.slope {
        None => format!("processor sharing, capacity {:.2} jobs", m.capacity),
        Some(b) => format!(
            "capacity {:.2} jobs, slope {b:.2} per job above it",
            m.capacity
        ),
    };
    println!(
        "contention model: cluster scope, {} (fitted on {} runs, {} jobs)",
        form(&f.model),
        f.runs,
        f.jobs
    );
    println!(
        "mean |predicted − measured| / measured run time: {:.1} % with the model, {:.1} % without",
        f.error_pct, f.error_without_pct
    );
    if f.model.slope.is_some() {
        println!(
            "  the best processor sharing ({}) is off by {:.1} %",
            form(&f.sharing.0),
            f.sharing.1
        );
    }
    if let Some(out) = out {
        let text = format!(
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
        );
        std::fs::write(out, text).with_context(|| format!("writing {}", out.display()))?;
        println!("wrote {}", out.display());
    }
    Ok(())
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
