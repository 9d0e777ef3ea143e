//! Training an agent from its spec (`frugal train`, `frugal reproduce --retrain`): the
//! environment of a protocol and job source, periodic greedy evaluations (the learning
//! curve), and the checkpoint with the command that made it.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use serde::Deserialize;
use serde_json::json;

use crate::{AgentKind, Checkpoint, CurvePoint, TrainConfig, evaluate, train};
use frugal_core::progress::Progress;
use frugal_env::workloads::{JobSource, Pattern, Protocol, Split, episodes};
use frugal_env::{EnvConfig, Mode, SparkPlacementEnv};

use frugal_core::spec::{Choice, SpecError, each_in};
use frugal_core::{Preset, PricingModel};

/// What to train and how (`frugal train`; the command reference gives each field's
/// meaning under its flag, `--eval-every` for `eval_every`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct TrainSpec {
    /// Algorithm.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<AgentKind>(), default_value = "reinforce"))]
    pub agent: AgentKind,
    /// Weight of cost against job run time in the episodic reward (paper 002 Eq. 14), in
    /// [0, 1].
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0.5))]
    pub beta: f64,
    /// Arrival pattern.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Pattern>(), default_value = "burst"))]
    pub workload: Pattern,
    /// Which episodes train and which evaluate.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Protocol>(), default_value = "held-out"))]
    pub protocol: Protocol,
    /// What the episodes' jobs are.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<JobSource>(), default_value = "swim"))]
    pub jobs: JobSource,
    /// Seed of the episodes' jobs (the generator's draws), the same for every training
    /// seed.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1))]
    pub episode_seed: u64,
    /// Training iterations (paper 002 Table 5: 10,000 normal, 20,000 burst).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 2000))]
    pub iterations: u32,
    /// Cluster preset.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Preset>(), default_value = "paper002-cloud"))]
    pub cluster: Preset,
    /// Pricing model of the hybrid presets.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<PricingModel>(), default_value = "real"))]
    pub pricing: PricingModel,
    /// Invalid-action handling.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Mode>(), default_value = "masked"))]
    pub mode: Mode,
    /// Seed of the weights, the exploration and the draws of training episodes.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1))]
    pub seed: u64,
    /// Iterations between greedy evaluations on the evaluation episode (paper 002 §7.2:
    /// 1,000). The environment and the greedy policy are deterministic, so the paper's 10
    /// evaluation runs would be 10 copies of one; one is run.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1000))]
    pub eval_every: u32,
    /// Checkpoint path (weights; the description, the command and the learning curve go to
    /// PATH.json). The learning curve is also printed as CSV; the wall-clock time and
    /// episodes per second are logged at the end.
    #[cfg_attr(feature = "clap", arg(long, default_value = "agent.safetensors"))]
    pub out: PathBuf,
}

impl Default for TrainSpec {
    fn default() -> TrainSpec {
        TrainSpec {
            agent: AgentKind::Reinforce,
            beta: 0.5,
            workload: Pattern::Burst,
            protocol: Protocol::HeldOut,
            jobs: JobSource::Swim,
            episode_seed: 1,
            iterations: 2000,
            cluster: Preset::Paper002Cloud,
            pricing: PricingModel::Real,
            mode: Mode::Masked,
            seed: 1,
            eval_every: 1000,
            out: PathBuf::from("agent.safetensors"),
        }
    }
}

impl TrainSpec {
    /// Checks the ranges.
    ///
    /// # Errors
    /// [`SpecError`] naming the field.
    pub fn check(&self) -> Result<(), SpecError> {
        if self.beta.is_nan() {
            return Err(SpecError::new("beta", "not a number: NaN"));
        }
        each_in("beta", &[self.beta], 0.0, 1.0)?;
        each_in("iterations", &[self.iterations], 1, 10_000_000)?;
        each_in("eval_every", &[self.eval_every], 1, u32::MAX)?;
        if !AgentKind::ALL.contains(&self.agent) {
            return Err(SpecError::new(
                "agent",
                format!(
                    "{}: trained outside frugal (examples/paper002_ppo.py); frugal trains dqn or \
                     reinforce",
                    self.agent
                ),
            ));
        }
        Ok(())
    }

    /// The command line that trains this agent again (without `--out`).
    pub fn argv(&self) -> Vec<String> {
        [
            ("--agent", self.agent.to_string()),
            ("--beta", self.beta.to_string()),
            ("--workload", self.workload.to_string()),
            ("--protocol", self.protocol.to_string()),
            ("--jobs", self.jobs.to_string()),
            ("--episode-seed", self.episode_seed.to_string()),
            ("--iterations", self.iterations.to_string()),
            ("--cluster", self.cluster.to_string()),
            ("--pricing", self.pricing.to_string()),
            ("--mode", self.mode.to_string()),
            ("--seed", self.seed.to_string()),
            ("--eval-every", self.eval_every.to_string()),
        ]
        .into_iter()
        .flat_map(|(f, v)| [f.to_string(), v])
        .collect()
    }
}

/// Trains, evaluating every `eval_every` iterations, writes the checkpoint (weights, and
/// in PATH.json the settings, the command and the learning curve) and returns the curve;
/// `progress` gets one tick per iteration.
///
/// # Errors
/// [`SpecError`] for a field out of range; an environment or checkpoint error.
pub fn train_checkpoint(a: &TrainSpec, progress: &dyn Progress) -> Result<Vec<CurvePoint>> {
    a.check()?;
    let preset = a.cluster;
    let cluster = preset.config(a.pricing).build(preset.name())?;
    let (pattern, protocol, source) = (a.workload, a.protocol, a.jobs);
    let mode = a.mode;
    let env_cfg = |split| {
        EnvConfig::paper002(
            cluster.clone(),
            episodes(source, protocol, pattern, split, a.episode_seed),
            mode,
            a.beta,
        )
    };
    let mut env = SparkPlacementEnv::new(env_cfg(Split::Train))?;
    let mut eval_env = SparkPlacementEnv::new(env_cfg(Split::Eval))?;
    let agent = a.agent;
    let (iterations, eval_every) = (a.iterations as usize, a.eval_every as usize);
    let cfg = TrainConfig::paper002(agent, iterations, a.seed);
    progress.add(iterations);
    let t0 = Instant::now();
    let mut log = Vec::new();
    let mut eval_error = None;
    let (mut returns, mut episodes_seen) = (0.0, 0usize);
    let net = train(&mut env, &cfg, |stats, net| {
        progress.tick();
        if let Some(r) = stats.mean_return {
            returns += r;
            episodes_seen += 1;
        }
        if stats.iteration % eval_every == 0 || stats.iteration == iterations {
            match evaluate(&mut eval_env, net, a.episode_seed) {
                Ok((k, ret)) => {
                    log.push(CurvePoint {
                        iteration: stats.iteration as u64,
                        train_return: (episodes_seen > 0).then(|| returns / episodes_seen as f64),
                        eval_return: ret,
                        eval_cost_usd: k.cost,
                        eval_mean_jct_s: k.mean_jct_s,
                        eval_mean_run_s: k.mean_duration_s,
                    });
                    (returns, episodes_seen) = (0.0, 0);
                }
                Err(e) => eval_error = Some(e),
            }
        }
    })?;
    if let Some(e) = eval_error {
        return Err(e.into());
    }
    let wall_s = t0.elapsed().as_secs_f64();
    let episodes_trained = iterations
        * match agent {
            AgentKind::Reinforce => cfg.collect_episodes,
            AgentKind::Dqn | AgentKind::Ppo => 0,
        };
    let curve = serde_json::to_value(&log).expect("a curve serialises");
    let ck = Checkpoint {
        agent,
        vms: cluster.len(),
        hidden: cfg.hidden,
        scale: *env.observation_scale(),
        training: json!({
            "beta": a.beta,
            "workload": pattern.name(),
            "protocol": protocol.name(),
            "jobs": source.name(),
            "episode_seed": a.episode_seed,
            "iterations": a.iterations,
            "seed": a.seed,
            "mode": a.mode,
            "cluster": a.cluster,
            "pricing": a.pricing,
            "argv": a.argv(),
            "curve": curve,
        }),
    };
    ck.save(&net, &a.out)?;
    tracing::info!(
        wall_s,
        episodes_per_s = episodes_trained as f64 / wall_s,
        "trained"
    );
    Ok(log)
}
