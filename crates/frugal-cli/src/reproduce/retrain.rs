//! `frugal reproduce --retrain`: the agents of `rl:<checkpoint>` policies trained again
//! from the settings stored beside each checkpoint (`<checkpoint>.json`, written by
//! `frugal train`), and the experiments pointed at the new files.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clap::Parser;

use frugal_report::Experiment;
use rayon::prelude::*;

use crate::progress::Progress;
use crate::train::TrainArgs;
use crate::{Cli, Command, Usage};

/// Retrains every checkpoint named in `experiments` into `dir`, `threads` agents at a time
/// (0: one per core), and rewrites the policies.
///
/// # Errors
/// [`Usage`] when no experiment runs an agent, or for a checkpoint without readable
/// settings; training errors.
pub fn checkpoints(
    experiments: &mut [(String, Experiment)],
    dir: &Path,
    threads: u16,
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut paths: Vec<(String, String)> = Vec::new();
    for (id, e) in experiments.iter_mut() {
        for s in rl_policies(e) {
            let path = &s["rl:".len()..];
            if !paths.iter().any(|(_, p)| p == path) {
                paths.push((id.clone(), path.to_string()));
            }
        }
    }
    if paths.is_empty() {
        return Err(Usage(anyhow!(
            "--retrain: the selected experiments run no `rl:` agent (paper 002's do)"
        ))
        .into());
    }
    // Parse every settings file before training any agent.
    let work = paths
        .iter()
        .map(|(id, path)| {
            retrain_args(Path::new(path), dir).with_context(|| format!("{id}: retraining {path}"))
        })
        .collect::<Result<Vec<_>>>()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(usize::from(threads))
        .build()
        .context("starting the worker threads")?;
    let progress = Progress::new(work.len());
    pool.install(|| {
        work.par_iter()
            .map(|a| {
                let r = crate::train::run_quiet(a);
                progress.tick();
                r
            })
            .collect::<Result<Vec<()>>>()
    })?;
    progress.finish();
    for (_, e) in experiments.iter_mut() {
        for s in rl_policies(e) {
            let a = paths
                .iter()
                .zip(&work)
                .find(|((_, p), _)| *p == s["rl:".len()..])
                .map(|(_, a)| a)
                .expect("every agent was collected above");
            *s = format!("rl:{}", a.out.display());
        }
    }
    Ok(())
}

/// Every `rl:<checkpoint>` policy of `e` (in `[args]`, `[quick]`, the sweep and the
/// cases), mutable.
fn rl_policies(e: &mut Experiment) -> Vec<&mut String> {
    let values = e
        .args
        .values_mut()
        .chain(e.quick.values_mut())
        .chain(e.sweep.values_mut().flatten())
        .chain(e.cases.iter_mut().flat_map(|c| c.values_mut()));
    let mut out = Vec::new();
    for v in values {
        let toml::Value::Array(items) = v else {
            continue;
        };
        for item in items {
            if let toml::Value::String(s) = item
                && s.starts_with("rl:")
            {
                out.push(s);
            }
        }
    }
    out
}

/// The `frugal train` options that made `checkpoint` (its `.json`'s `training.argv`),
/// writing to `dir`.
fn retrain_args(checkpoint: &Path, dir: &Path) -> Result<TrainArgs> {
    let sidecar = PathBuf::from(format!("{}.json", checkpoint.display()));
    let text = std::fs::read_to_string(&sidecar)
        .with_context(|| format!("{}", sidecar.display()))
        .map_err(Usage)?;
    let meta: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}", sidecar.display()))
        .map_err(Usage)?;
    let argv: Vec<String> = meta
        .pointer("/training/argv")
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .ok_or_else(|| Usage(anyhow!("{}: no `training.argv` list", sidecar.display())))?;
    let out = dir.join(
        checkpoint
            .file_name()
            .ok_or_else(|| anyhow!("no file name"))?,
    );
    let words = ["frugal".to_string(), "train".into()]
        .into_iter()
        .chain(argv)
        .chain(["--out".to_string(), out.display().to_string()]);
    let cli =
        Cli::try_parse_from(words).map_err(|e| Usage(anyhow!("{}: {e}", sidecar.display())))?;
    let Some(Command::Train(a)) = cli.command else {
        unreachable!("argv names `train`")
    };
    Ok(a)
}
