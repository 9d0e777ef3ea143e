//! The learning curves stored in trained agents' checkpoints as tidy rows (one per
//! checkpoint and evaluation point), for paper 002 Fig. 4–5 (`frugal learning-curves`, the
//! `learning-curves` experiments).

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Deserialize;

use frugal_core::policy::{PolicySpec, PolicySpecError};
use frugal_core::spec::one_or_many;
use frugal_sim::options::choices::checkpoints_matching;

use crate::Checkpoint;

/// Which checkpoints' curves (`frugal learning-curves`, the `learning-curves`
/// experiments).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurvesSpec {
    /// Checkpoints written by `frugal train`, or patterns (`*`, `?`, `[`) matching several
    /// (e.g. every training seed of an agent); an `rl:` prefix, as policies take them, is
    /// allowed.
    #[serde(deserialize_with = "checkpoints")]
    pub checkpoints: Vec<PathBuf>,
}

/// A checkpoint path, with or without the `rl:` prefix of policies.
///
/// # Errors
/// An empty path, or `rl:` without one.
pub fn checkpoint_path(s: &str) -> Result<PathBuf, String> {
    match s.parse::<PolicySpec>() {
        Ok(PolicySpec::Rl(path)) => Ok(path),
        Err(e @ PolicySpecError::NoCheckpoint) => Err(e.to_string()),
        _ if s.is_empty() => Err("a checkpoint path, e.g. agent.safetensors".into()),
        _ => Ok(PathBuf::from(s)),
    }
}

fn checkpoints<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
    let texts: Vec<String> = one_or_many(d)?;
    if texts.is_empty() {
        return Err(serde::de::Error::custom("give at least one checkpoint"));
    }
    texts
        .iter()
        .map(|t| checkpoint_path(t).map_err(serde::de::Error::custom))
        .collect()
}

/// One row: which agent, how it was trained, and one point of its curve.
#[derive(serde::Serialize)]
pub struct CurveRow {
    /// `rl:<checkpoint>`, as `frugal simulate` names the agent.
    pub policy: String,
    /// `dqn` or `reinforce`.
    pub agent: String,
    /// Arrival pattern, `normal` or `burst`.
    pub workload: String,
    /// `paper` or `held-out`.
    pub protocol: String,
    /// What the episodes' jobs are: `swim` or `generator`.
    pub job_source: String,
    /// β of the episodic reward.
    pub beta: f64,
    /// Training seed.
    pub seed: u64,
    /// Training iterations done.
    pub iteration: u64,
    /// Mean return of the training episodes since the previous point.
    pub train_return: Option<f64>,
    /// Return of the greedy evaluation episode.
    pub eval_return: f64,
    /// Its bill, dollars.
    pub eval_cost_usd: f64,
    /// Its mean JCT, seconds.
    pub eval_mean_jct_s: f64,
    /// Its mean job run time, seconds.
    pub eval_mean_run_s: f64,
}

/// The rows of every checkpoint `a` names, in name order and iteration order.
///
/// # Errors
/// A pattern that matches nothing, an unreadable checkpoint or curve, or one trained
/// before curves were recorded (the message names the file).
pub fn curve_rows(a: &CurvesSpec) -> Result<Vec<CurveRow>> {
    let mut rows = Vec::new();
    for pattern in &a.checkpoints {
        for path in checkpoints_matching(pattern)? {
            let (ck, _) = Checkpoint::load(&path).with_context(|| format!("{}", path.display()))?;
            let curve = ck.curve().with_context(|| format!("{}", path.display()))?;
            if curve.is_empty() {
                anyhow::bail!("{}: no learning curve recorded", path.display());
            }
            let text = |k: &str| {
                ck.training
                    .get(k)
                    .and_then(|v| v.as_str())
                    .unwrap_or_default()
                    .to_string()
            };
            let number = |k: &str| ck.training.get(k).and_then(serde_json::Value::as_f64);
            for p in curve {
                rows.push(CurveRow {
                    policy: PolicySpec::Rl(path.clone()).to_string(),
                    agent: format!("{:?}", ck.agent).to_lowercase(),
                    workload: text("workload"),
                    protocol: text("protocol"),
                    job_source: text("jobs"),
                    beta: number("beta").unwrap_or_default(),
                    seed: number("seed").unwrap_or_default() as u64,
                    iteration: p.iteration,
                    train_return: p.train_return,
                    eval_return: p.eval_return,
                    eval_cost_usd: p.eval_cost_usd,
                    eval_mean_jct_s: p.eval_mean_jct_s,
                    eval_mean_run_s: p.eval_mean_run_s,
                });
            }
        }
    }
    Ok(rows)
}
