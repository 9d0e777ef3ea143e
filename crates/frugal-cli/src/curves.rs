//! `frugal learning-curves`: the learning curves stored in trained agents' checkpoints
//! (`frugal_agents::curves`), printed as CSV.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use frugal_agents::curves::{CurvesSpec, checkpoint_path, curve_rows};

/// Which checkpoints' curves (`frugal learning-curves`; `CurvesSpec`'s field).
#[derive(Args, Debug)]
pub struct CurvesArgs {
    /// Comma-separated checkpoints written by `frugal train`, or patterns (`*`, `?`, `[`)
    /// matching several (e.g. every training seed of an agent); an `rl:` prefix, as
    /// `--policies` takes them, is allowed.
    #[arg(long, value_delimiter = ',', required = true, value_name = "CHECKPOINT",
          value_parser = checkpoint_path)]
    pub checkpoints: Vec<PathBuf>,
}

/// Prints the rows as CSV.
///
/// # Errors
/// As [`curve_rows`]; I/O errors.
pub fn run(a: &CurvesArgs) -> Result<()> {
    let spec = CurvesSpec {
        checkpoints: a.checkpoints.clone(),
    };
    let mut w = csv::Writer::from_writer(std::io::stdout().lock());
    for row in curve_rows(&spec)? {
        w.serialize(row).map_err(std::io::Error::from)?;
    }
    w.flush()?;
    Ok(())
}
