//! `frugal train`: trains a DQN or REINFORCE agent (`frugal_agents::training`) and prints
//! its learning curve as CSV. Its flags are `TrainSpec`'s fields (derived on it).

use anyhow::Result;

use frugal_agents::training::{TrainSpec, train_checkpoint};

use crate::progress::Progress;

/// Trains, evaluating periodically, writes the checkpoint and prints the curve.
///
/// # Errors
/// As [`train_checkpoint`]; I/O errors.
pub fn run(spec: &TrainSpec) -> Result<()> {
    let progress = Progress::new(0);
    let log = train_checkpoint(spec, &progress)?;
    progress.finish();
    // stdout is the learning curve as CSV; the note goes to stderr.
    let mut w = csv::Writer::from_writer(std::io::stdout().lock());
    for row in &log {
        w.serialize(row).map_err(std::io::Error::from)?;
    }
    w.flush()?;
    tracing::info!(checkpoint = %spec.out.display(), "checkpoint written (+ .json)");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::parsed;

    #[test]
    fn the_flags_defaults_are_the_specs() {
        let a = parsed::<TrainSpec>(&["train"]).0;
        assert_eq!(a, TrainSpec::default());
    }
}
