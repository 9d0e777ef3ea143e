//! `frugal train`: trains a DQN or REINFORCE agent (`frugal_agents::training`) and prints
//! its learning curve as CSV. The flags set `TrainSpec`'s fields of their names.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use frugal_agents::AgentKind;
use frugal_agents::training::{TrainSpec, train_checkpoint};
use frugal_core::{Preset, PricingModel};
use frugal_env::Mode;
use frugal_env::workloads::{JobSource, Pattern, Protocol};

use crate::progress::Progress;
use crate::values::choice;

/// What to train and how (`frugal train`).
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Algorithm.
    #[arg(long, value_parser = choice::<AgentKind>(), default_value = "reinforce")]
    pub agent: AgentKind,
    /// Weight of cost against job run time in the episodic reward (paper 002 Eq. 14), in
    /// [0, 1].
    #[arg(long, default_value_t = 0.5)]
    pub beta: f64,
    /// Arrival pattern.
    #[arg(long, value_parser = choice::<Pattern>(), default_value = "burst")]
    pub workload: Pattern,
    /// Which episodes train and which evaluate.
    #[arg(long, value_parser = choice::<Protocol>(), default_value = "held-out")]
    pub protocol: Protocol,
    /// What the episodes' jobs are.
    #[arg(long, value_parser = choice::<JobSource>(), default_value = "swim")]
    pub jobs: JobSource,
    /// Seed of the episodes' jobs (the generator's draws), the same for every training
    /// seed.
    #[arg(long, default_value_t = 1)]
    pub episode_seed: u64,
    /// Training iterations (paper 002 Table 5: 10,000 normal, 20,000 burst).
    #[arg(long, default_value_t = 2000)]
    pub iterations: u32,
    /// Cluster preset.
    #[arg(long, value_parser = choice::<Preset>(), default_value = "paper002-cloud")]
    pub cluster: Preset,
    /// Pricing model of the hybrid presets.
    #[arg(long, value_parser = choice::<PricingModel>(), default_value = "real")]
    pub pricing: PricingModel,
    /// Invalid-action handling.
    #[arg(long, value_parser = choice::<Mode>(), default_value = "masked")]
    pub mode: Mode,
    /// Seed of the weights, the exploration and the draws of training episodes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Iterations between greedy evaluations on the evaluation episode (paper 002 §7.2:
    /// 1,000). The environment and the greedy policy are deterministic, so the paper's 10
    /// evaluation runs would be 10 copies of one; one is run.
    #[arg(long, default_value_t = 1000)]
    pub eval_every: u32,
    /// Checkpoint path (weights; the description, the command and the learning curve go to
    /// PATH.json). The learning curve is also printed as CSV; the wall-clock time and
    /// episodes per second are logged at the end.
    #[arg(long, default_value = "agent.safetensors")]
    pub out: PathBuf,
}

impl TrainArgs {
    /// The spec these flags set.
    pub fn spec(&self) -> TrainSpec {
        TrainSpec {
            agent: self.agent,
            beta: self.beta,
            workload: self.workload,
            protocol: self.protocol,
            jobs: self.jobs,
            episode_seed: self.episode_seed,
            iterations: self.iterations,
            cluster: self.cluster,
            pricing: self.pricing,
            mode: self.mode,
            seed: self.seed,
            eval_every: self.eval_every,
            out: self.out.clone(),
        }
    }
}

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
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        a: TrainArgs,
    }

    #[test]
    fn the_flags_defaults_are_the_specs() {
        let a = Flags::try_parse_from(["train"]).unwrap().a;
        assert_eq!(a.spec(), TrainSpec::default());
    }
}
