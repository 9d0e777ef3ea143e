//! `frugal contention`: calibrates the contention model (frugal's extension; module doc of
//! `frugal_core::contention`) on measured live runs and writes the file that `simulate`,
//! `whatif` and `serve` read with `--contention` (`frugal_report::live::contention`).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use frugal_report::live::contention::{file_text, fit_files, summary};

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
    print!("{}", summary(&f));
    if let Some(out) = &a.out {
        std::fs::write(out, file_text(&f, &a.live_jobs))
            .with_context(|| format!("writing {}", out.display()))?;
        println!("wrote {}", out.display());
    }
    Ok(())
}
