//! `frugal learning-curves`: the learning curves stored in trained agents' checkpoints
//! (`frugal_agents::curves`), printed as CSV.

use anyhow::Result;

pub use frugal_agents::curves::CurvesOptions as CurvesArgs;

/// Prints the rows as CSV.
///
/// # Errors
/// As [`frugal_agents::curves::curve_rows`]; I/O errors.
pub fn run(a: &CurvesArgs) -> Result<()> {
    let mut w = csv::Writer::from_writer(std::io::stdout().lock());
    for row in frugal_agents::curves::curve_rows(a)? {
        w.serialize(row).map_err(std::io::Error::from)?;
    }
    w.flush()?;
    Ok(())
}
