//! `frugal train`: trains a DQN or REINFORCE agent on the RL environment.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use frugal_agents::{AgentKind, Checkpoint, TrainConfig, evaluate, train};
use frugal_env::workloads::{Pattern, Split, swim_workloads};
use frugal_env::{EnvConfig, Mode, SparkPlacementEnv};

use crate::choices::{PresetName, PricingArg, number_in};

/// Learning algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AgentArg {
    /// Deep Q-learning (paper 002 §5.1).
    Dqn,
    /// REINFORCE policy gradient (paper 002 §5.2).
    Reinforce,
}

/// Arrival pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum WorkloadArg {
    /// 50 jobs in an hour (training: other hours of FB-2009; evaluation: hour 0).
    Normal,
    /// 100 jobs in about 10 minutes (training: hours 7, 14, 20, 23; evaluation: hour 6).
    Burst,
}

/// One periodic greedy evaluation on the held-out hour, a row of the CSV log.
#[derive(serde::Serialize)]
struct EvalRow {
    iteration: usize,
    wall_s: f64,
    eval_cost_usd: f64,
    eval_mean_jct_s: f64,
    eval_return: f64,
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

/// Options of `frugal train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
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
    /// Seed of weights, exploration and episode draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Iterations between greedy evaluations on the evaluation hour.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    pub eval_every: u32,
    /// Checkpoint path (weights; the description goes to PATH.json).
    #[arg(long, default_value = "agent.safetensors")]
    pub out: PathBuf,
}

/// Trains, evaluating periodically, and writes the checkpoint.
pub fn run(a: &TrainArgs) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let preset = a.cluster.preset();
    let cluster = preset.config(a.pricing.model()).build(preset.name())?;
    let pattern = match a.workload {
        WorkloadArg::Normal => Pattern::Normal,
        WorkloadArg::Burst => Pattern::Burst,
    };
    let mode = match a.mode {
        ModeArg::Masked => Mode::Masked,
        ModeArg::Paper => Mode::Paper,
    };
    let env_cfg = |split| {
        EnvConfig::paper002(
            cluster.clone(),
            swim_workloads(pattern, split, a.seed),
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
    let bar = ProgressBar::new(a.iterations as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} it  {msg}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let t0 = Instant::now();
    let mut log = Vec::new();
    let mut eval_error = None;
    let net = train(&mut env, &cfg, |stats, net| {
        bar.inc(1);
        if stats.iteration % eval_every == 0 || stats.iteration == iterations {
            match evaluate(&mut eval_env, net, a.seed) {
                Ok((k, ret)) => {
                    bar.set_message(format!(
                        "eval: cost ${:.2}, mean JCT {:.0} s, return {:.0}",
                        k.cost, k.mean_jct_s, ret
                    ));
                    log.push(EvalRow {
                        iteration: stats.iteration,
                        wall_s: t0.elapsed().as_secs_f64(),
                        eval_cost_usd: k.cost,
                        eval_mean_jct_s: k.mean_jct_s,
                        eval_return: ret,
                    });
                }
                Err(e) => eval_error = Some(e),
            }
        }
    })?;
    bar.finish();
    if let Some(e) = eval_error {
        return Err(e.into());
    }
    let ck = Checkpoint {
        agent,
        vms: cluster.len(),
        hidden: cfg.hidden,
        scale: *env.observation_scale(),
        training: json!({
            "beta": a.beta, "workload": format!("{:?}", a.workload).to_lowercase(), "iterations": a.iterations,
            "seed": a.seed, "mode": a.mode, "cluster": a.cluster, "pricing": a.pricing,
        }),
    };
    ck.save(&net, &a.out)?;
    // stdout is the evaluation log as CSV; the note goes to stderr.
    let mut w = csv::Writer::from_writer(&mut out);
    for row in &log {
        w.serialize(row).map_err(std::io::Error::from)?;
    }
    w.flush()?;
    tracing::info!(checkpoint = %a.out.display(), "checkpoint written (+ .json)");
    Ok(())
}
