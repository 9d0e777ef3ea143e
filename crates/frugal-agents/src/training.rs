//! Training an agent from its options (`frugal train`, `frugal reproduce --retrain`): the
//! environment of a protocol and job source, periodic greedy evaluations (the learning
//! curve), and the checkpoint with the command that made it.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use clap::{Args, Parser, ValueEnum};
use serde_json::json;

use crate::{AgentKind, Checkpoint, CurvePoint, TrainConfig, evaluate, train};
use frugal_core::progress::Progress;
use frugal_env::workloads::{JobSource, Pattern, Protocol, Split, episodes};
use frugal_env::{EnvConfig, Mode, SparkPlacementEnv};

use frugal_sim::options::choices::{PresetName, PricingArg, number_in};

/// Learning algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AgentArg {
    /// Deep Q-learning (paper 002 §5.1).
    Dqn,
    /// REINFORCE policy gradient (paper 002 §5.2).
    Reinforce,
}

/// Arrival pattern (paper 002 §7.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WorkloadArg {
    /// 50 jobs in an hour (evaluation: FB-2009 hour 0)
    Normal,
    /// 100 jobs in about 10 minutes (evaluation: FB-2009 hour 6)
    Burst,
}

impl WorkloadArg {
    /// The pattern.
    pub fn pattern(self) -> Pattern {
        match self {
            WorkloadArg::Normal => Pattern::Normal,
            WorkloadArg::Burst => Pattern::Burst,
        }
    }
}

/// Which episodes train and which evaluate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    /// Train on the pattern's other FB-2009 hours, evaluate on the held-out hour
    HeldOut,
    /// Train and evaluate on one fixed episode, as paper 002's own environment does
    Paper,
}

impl ProtocolArg {
    /// The protocol.
    pub fn protocol(self) -> Protocol {
        match self {
            ProtocolArg::HeldOut => Protocol::HeldOut,
            ProtocolArg::Paper => Protocol::Paper,
        }
    }
}

/// What an episode's jobs are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum JobSourceArg {
    /// frugal's mapping of the FB-2009 records (bytes → executors, kinds, run times)
    Swim,
    /// Paper 002 §7.1's generator (uniform kinds and sizes) at the trace's arrivals
    Generator,
}

impl JobSourceArg {
    /// The source.
    pub fn source(self) -> JobSource {
        match self {
            JobSourceArg::Swim => JobSource::Swim,
            JobSourceArg::Generator => JobSource::Generator,
        }
    }
}

/// How the environment treats an infeasible action.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModeArg {
    /// Action masks; an infeasible action is ignored with the invalid reward
    Masked,
    /// An infeasible action ends the episode with −200 (paper 002 Table 3)
    Paper,
}

/// What to train and how (`frugal train`).
#[derive(Args, Debug)]
pub struct TrainOptions {
    /// Algorithm.
    #[arg(long, value_enum, default_value = "reinforce")]
    pub agent: AgentArg,
    /// Weight of cost against job run time in the episodic reward (paper 002 Eq. 14), in
    /// [0, 1].
    #[arg(long, default_value_t = 0.5, value_parser = number_in(0.0, 1.0))]
    pub beta: f64,
    /// Arrival pattern.
    #[arg(long, value_enum, default_value = "burst")]
    pub workload: WorkloadArg,
    /// Which episodes train and which evaluate.
    #[arg(long, value_enum, default_value = "held-out")]
    pub protocol: ProtocolArg,
    /// What the episodes' jobs are.
    #[arg(long, value_enum, default_value = "swim")]
    pub jobs: JobSourceArg,
    /// Seed of the episodes' jobs (the generator's draws), the same for every training
    /// seed.
    #[arg(long, default_value_t = 1)]
    pub episode_seed: u64,
    /// Training iterations (paper 002 Table 5: 10,000 normal, 20,000 burst).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub iterations: u32,
    /// Cluster preset.
    #[arg(long, value_enum, default_value = "paper002-cloud")]
    pub cluster: PresetName,
    /// Pricing model of the hybrid presets.
    #[arg(long, value_enum, default_value = "real")]
    pub pricing: PricingArg,
    /// Invalid-action handling.
    #[arg(long, value_enum, default_value = "masked")]
    pub mode: ModeArg,
    /// Seed of the weights, the exploration and the draws of training episodes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Iterations between greedy evaluations on the evaluation episode (paper 002 §7.2:
    /// 1,000). The environment and the greedy policy are deterministic, so the paper's 10
    /// evaluation runs would be 10 copies of one; one is run.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub eval_every: u32,
    /// Checkpoint path (weights; the description, the command and the learning curve go to
    /// PATH.json). The learning curve is also printed as CSV; the wall-clock time and
    /// episodes per second are logged at the end.
    #[arg(long, default_value = "agent.safetensors")]
    pub out: PathBuf,
}

impl TrainOptions {
    /// The command line that trains this agent again (without `--out`).
    pub fn argv(&self) -> Vec<String> {
        let name = |v: &dyn Fn() -> Option<clap::builder::PossibleValue>| {
            v().map(|p| p.get_name().to_string()).unwrap_or_default()
        };
        [
            ("--agent", name(&|| self.agent.to_possible_value())),
            ("--beta", self.beta.to_string()),
            ("--workload", name(&|| self.workload.to_possible_value())),
            ("--protocol", name(&|| self.protocol.to_possible_value())),
            ("--jobs", name(&|| self.jobs.to_possible_value())),
            ("--episode-seed", self.episode_seed.to_string()),
            ("--iterations", self.iterations.to_string()),
            ("--cluster", name(&|| self.cluster.to_possible_value())),
            ("--pricing", name(&|| self.pricing.to_possible_value())),
            ("--mode", name(&|| self.mode.to_possible_value())),
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
/// An environment or checkpoint error.
pub fn train_checkpoint(a: &TrainOptions, progress: &dyn Progress) -> Result<Vec<CurvePoint>> {
    let preset = a.cluster.preset();
    let cluster = preset.config(a.pricing.model()).build(preset.name())?;
    let (pattern, protocol, source) =
        (a.workload.pattern(), a.protocol.protocol(), a.jobs.source());
    let mode = match a.mode {
        ModeArg::Masked => Mode::Masked,
        ModeArg::Paper => Mode::Paper,
    };
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
    let agent = match a.agent {
        AgentArg::Dqn => AgentKind::Dqn,
        AgentArg::Reinforce => AgentKind::Reinforce,
    };
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
            "workload": pattern.as_str(),
            "protocol": protocol.as_str(),
            "jobs": source.as_str(),
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

impl TrainOptions {
    /// Parses `flags` (without the subcommand word) as `frugal train` does.
    ///
    /// # Errors
    /// clap's message.
    pub fn parse(flags: &[String]) -> Result<TrainOptions, clap::Error> {
        #[derive(Parser)]
        #[command(name = "train")]
        struct Flags {
            #[command(flatten)]
            options: TrainOptions,
        }
        Flags::try_parse_from(std::iter::once("train").chain(flags.iter().map(String::as_str)))
            .map(|f| f.options)
    }
}
