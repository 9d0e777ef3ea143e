//! `frugal train`: trains a DQN or REINFORCE agent on the RL environment.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;

use frugal_agents::{AgentKind, Checkpoint, TrainConfig, evaluate, train};
use frugal_core::{Preset, PricingModel};
use frugal_env::workloads::{Pattern, Split, swim_workloads};
use frugal_env::{EnvConfig, Mode, SparkPlacementEnv};

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

/// Options of `frugal train`.
#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Algorithm.
    #[arg(long, value_enum, default_value = "reinforce")]
    pub agent: AgentArg,
    /// Weight of cost against job run time in the episodic reward (paper 002 Eq. 14).
    #[arg(long, default_value_t = 0.5)]
    pub beta: f64,
    /// Arrival pattern.
    #[arg(long, value_enum, default_value = "burst")]
    pub workload: WorkloadArg,
    /// Training iterations (paper 002 Table 5: 10,000 normal, 20,000 burst).
    #[arg(long, default_value_t = 2000)]
    pub iterations: usize,
    /// Cluster preset (paper 002 Table 4 by default).
    #[arg(long, default_value = "paper002-cloud")]
    pub cluster: String,
    /// Pricing model of hybrid presets.
    #[arg(long, default_value = "real")]
    pub pricing: String,
    /// Invalid-action handling: masked (action masks) or paper (−200 and end).
    #[arg(long, default_value = "masked", value_parser = ["masked", "paper"])]
    pub mode: String,
    /// Seed of weights, exploration and episode draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Iterations between greedy evaluations on the evaluation hour.
    #[arg(long, default_value_t = 100)]
    pub eval_every: usize,
    /// Checkpoint path (weights; the description goes to PATH.json).
    #[arg(long, default_value = "agent.safetensors")]
    pub out: PathBuf,
}

/// Trains, evaluating periodically, and writes the checkpoint.
pub fn run(a: &TrainArgs) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let preset = Preset::parse(&a.cluster)
        .with_context(|| format!("--cluster: unknown preset {:?}", a.cluster))?;
    let pricing = PricingModel::parse(&a.pricing)
        .with_context(|| format!("--pricing: unknown model {:?}", a.pricing))?;
    let cluster = preset.config(pricing).build(&a.cluster)?;
    let pattern = match a.workload {
        WorkloadArg::Normal => Pattern::Normal,
        WorkloadArg::Burst => Pattern::Burst,
    };
    let mode = if a.mode == "paper" {
        Mode::Paper
    } else {
        Mode::Masked
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
    let cfg = TrainConfig::paper002(agent, a.iterations, a.seed);
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
        if stats.iteration % a.eval_every.max(1) == 0 || stats.iteration == a.iterations {
            match evaluate(&mut eval_env, net, a.seed) {
                Ok((k, ret)) => {
                    bar.set_message(format!(
                        "eval: cost ${:.2}, mean JCT {:.0} s, return {:.0}",
                        k.cost, k.mean_jct_s, ret
                    ));
                    log.push((
                        stats.iteration,
                        t0.elapsed().as_secs_f64(),
                        k.cost,
                        k.mean_jct_s,
                        ret,
                    ));
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
    writeln!(
        out,
        "iteration,wall_s,eval_cost,eval_mean_jct_s,eval_return"
    )?;
    for (it, wall, cost, jct, ret) in &log {
        writeln!(out, "{it},{wall:.1},{cost:.4},{jct:.1},{ret:.1}")?;
    }
    writeln!(out, "checkpoint written to {} (+ .json)", a.out.display())?;
    Ok(())
}
