//! `frugal reproduce --retrain`: the agents of `rl:<checkpoint>` policies trained again
//! from the settings stored beside each checkpoint (`<checkpoint>.json`, written by
//! `frugal train`), and the experiments pointed at the new files.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clap::Parser;

use frugal_report::Experiment;

use crate::{Cli, Command, Usage};

/// Retrains every checkpoint named in `experiments` into `dir` and rewrites the policies.
///
/// # Errors
/// [`Usage`] when no experiment runs an agent, or for a checkpoint without readable
/// settings; training errors.
pub fn checkpoints(experiments: &mut [(String, Experiment)], dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut done: Vec<(String, PathBuf)> = Vec::new();
    for (id, e) in experiments.iter_mut() {
        let values = e
            .args
            .values_mut()
            .chain(e.quick.values_mut())
            .chain(e.sweep.values_mut().flatten());
        for v in values {
            let toml::Value::Array(items) = v else {
                continue;
            };
            for item in items {
                let toml::Value::String(s) = item else {
                    continue;
                };
                let Some(path) = s.strip_prefix("rl:") else {
                    continue;
                };
                let new = match done.iter().find(|(p, _)| p == path) {
                    Some((_, n)) => n.clone(),
                    None => {
                        let n = train(Path::new(path), dir)
                            .with_context(|| format!("{id}: retraining {path}"))?;
                        done.push((path.to_string(), n.clone()));
                        n
                    }
                };
                *s = format!("rl:{}", new.display());
            }
        }
    }
    if done.is_empty() {
        return Err(Usage(anyhow!(
            "--retrain: the selected experiments run no `rl:` agent (paper 002's do)"
        ))
        .into());
    }
    Ok(())
}

/// Trains one agent with the settings of `checkpoint`; returns the new path.
fn train(checkpoint: &Path, dir: &Path) -> Result<PathBuf> {
    let sidecar = PathBuf::from(format!("{}.json", checkpoint.display()));
    let text = std::fs::read_to_string(&sidecar)
        .with_context(|| format!("{}", sidecar.display()))
        .map_err(Usage)?;
    let meta: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}", sidecar.display()))
        .map_err(Usage)?;
    let field = |k: &str| -> Result<String> {
        match meta
            .pointer(&format!("/training/{k}"))
            .or_else(|| meta.get(k))
        {
            Some(serde_json::Value::String(s)) => Ok(s.clone()),
            Some(v @ serde_json::Value::Number(_)) => Ok(v.to_string()),
            _ => Err(Usage(anyhow!("{}: no `{k}`", sidecar.display())).into()),
        }
    };
    let out = dir.join(
        checkpoint
            .file_name()
            .ok_or_else(|| anyhow!("no file name"))?,
    );
    let iterations = field("iterations")?;
    let argv = [
        "frugal".to_string(),
        "train".into(),
        "--agent".into(),
        field("agent")?,
        "--beta".into(),
        field("beta")?,
        "--workload".into(),
        field("workload")?,
        "--iterations".into(),
        iterations.clone(),
        "--eval-every".into(),
        iterations,
        "--seed".into(),
        field("seed")?,
        "--mode".into(),
        field("mode")?,
        "--cluster".into(),
        field("cluster")?,
        "--pricing".into(),
        field("pricing")?,
        "--out".into(),
        out.display().to_string(),
    ];
    let cli =
        Cli::try_parse_from(&argv).map_err(|e| Usage(anyhow!("{}: {e}", sidecar.display())))?;
    let Some(Command::Train(a)) = cli.command else {
        unreachable!("argv names `train`")
    };
    crate::train::run(&a)?;
    Ok(out)
}
