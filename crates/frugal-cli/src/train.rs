//! `frugal train`: trains a DQN or REINFORCE agent (`frugal_agents::training`) and prints
//! its learning curve as CSV.

use anyhow::Result;

pub use frugal_agents::training::TrainOptions as TrainArgs;
use frugal_agents::training::train_checkpoint;

use crate::progress::Progress;

/// Trains, evaluating periodically, writes the checkpoint and prints the curve.
///
/// # Errors
/// As [`train_checkpoint`]; I/O errors.
pub fn run(a: &TrainArgs) -> Result<()> {
    let progress = Progress::new(0);
    let log = train_checkpoint(a, &progress)?;
    progress.finish();
    // stdout is the learning curve as CSV; the note goes to stderr.
    let mut w = csv::Writer::from_writer(std::io::stdout().lock());
    for row in &log {
        w.serialize(row).map_err(std::io::Error::from)?;
    }
    w.flush()?;
    tracing::info!(checkpoint = %a.out.display(), "checkpoint written (+ .json)");
    Ok(())
}
