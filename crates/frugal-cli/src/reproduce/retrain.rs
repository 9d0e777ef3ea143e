//! `frugal reproduce --retrain`: the agents of `rl:<checkpoint>` policies trained again
//! from the settings stored beside each checkpoint (`<checkpoint>.json`, written by
//! `frugal train`), and the experiments pointed at the new files.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clap::Parser;

use frugal_report::Experiment;
use rayon::prelude::*;

use crate::progress::Progress;
use crate::{Cli, Command, Usage};
use frugal_agents::training::TrainSpec;
use frugal_core::PolicySpec;
use frugal_core::progress::Progress as _;
use frugal_sim::options::choices::checkpoints_matching;

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
    // Each checkpoint `<parent>/<file>` (a pattern names every file it matches) is trained
    // into `dir/<parent's name>/<file>`, so agents of one name in different folders stay
    // apart, and the policy is rewritten to the same pattern there.
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let mut rewrites: Vec<(String, String)> = Vec::new();
    for (id, e) in experiments.iter_mut() {
        for s in e.agent_paths_mut() {
            let Ok(PolicySpec::Rl(pattern)) = s.parse() else {
                unreachable!("agent_paths_mut yields rl: policies only")
            };
            let (parent, name) = match (pattern.parent(), pattern.file_name()) {
                (Some(p), Some(n)) => (p, n.to_string_lossy().into_owned()),
                _ => return Err(Usage(anyhow!("{id}: {s}: not a checkpoint path")).into()),
            };
            let folder = parent.file_name().map(|f| f.to_string_lossy().into_owned());
            if parent.to_string_lossy().contains(['*', '?', '[']) {
                return Err(Usage(anyhow!(
                    "{id}: {s}: --retrain takes patterns in the file name only"
                ))
                .into());
            }
            let target = dir.join(folder.unwrap_or_default());
            rewrites.push((s.clone(), PolicySpec::Rl(target.join(&name)).to_string()));
            for f in checkpoints_matching(&pattern).with_context(|| format!("{id}: {s}"))? {
                if !files.iter().any(|(_, g)| *g == f) {
                    files.push((id.clone(), f));
                }
            }
        }
    }
    if files.is_empty() {
        return Err(Usage(anyhow!(
            "--retrain: the selected experiments run no `rl:` agent (paper 002's do)"
        ))
        .into());
    }
    // Parse every settings file before training any agent.
    let work = files
        .iter()
        .map(|(id, f)| {
            let folder = f
                .parent()
                .and_then(Path::file_name)
                .map(|n| dir.join(n))
                .unwrap_or_else(|| dir.to_path_buf());
            std::fs::create_dir_all(&folder)
                .with_context(|| format!("creating {}", folder.display()))?;
            retrain_args(f, &folder).with_context(|| format!("{id}: retraining {}", f.display()))
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect::<Vec<_>>();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(usize::from(threads))
        .build()
        .context("starting the worker threads")?;
    let progress = Progress::new(work.len());
    pool.install(|| {
        work.par_iter()
            .map(|a| {
                let r = frugal_agents::training::train_checkpoint(a, &()).map(|_| ());
                progress.tick();
                r
            })
            .collect::<Result<Vec<()>>>()
    })?;
    progress.finish();
    for (_, e) in experiments.iter_mut() {
        for s in e.agent_paths_mut() {
            let (_, new) = rewrites
                .iter()
                .find(|(old, _)| old == s)
                .expect("every policy was collected above");
            *s = new.clone();
        }
    }
    Ok(())
}

/// The training spec that made `checkpoint` (its `.json`'s `training.argv`),
/// writing to `dir`. An agent frugal does not train (PPO, trained by the Python package's
/// example) is copied to `dir` as it is, and `None` returned.
fn retrain_args(checkpoint: &Path, dir: &Path) -> Result<Option<TrainSpec>> {
    let sidecar = PathBuf::from(format!("{}.json", checkpoint.display()));
    let text = std::fs::read_to_string(&sidecar)
        .with_context(|| format!("{}", sidecar.display()))
        .map_err(Usage)?;
    let meta: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{}", sidecar.display()))
        .map_err(Usage)?;
    let out = dir.join(
        checkpoint
            .file_name()
            .ok_or_else(|| anyhow!("no file name"))?,
    );
    if meta.get("agent").and_then(|a| a.as_str()) == Some("ppo") {
        for (from, to) in [
            (checkpoint.to_path_buf(), out.clone()),
            (
                sidecar.clone(),
                PathBuf::from(format!("{}.json", out.display())),
            ),
        ] {
            std::fs::copy(&from, &to)
                .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
        }
        tracing::info!(checkpoint = %checkpoint.display(), "PPO agent kept: the Python package trains it (examples/paper002_ppo.py)");
        return Ok(None);
    }
    let argv: Vec<String> = meta
        .pointer("/training/argv")
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .ok_or_else(|| Usage(anyhow!("{}: no `training.argv` list", sidecar.display())))?;
    let words = ["frugal".to_string(), "train".into()]
        .into_iter()
        .chain(argv)
        .chain(["--out".to_string(), out.display().to_string()]);
    let cli =
        Cli::try_parse_from(words).map_err(|e| Usage(anyhow!("{}: {e}", sidecar.display())))?;
    let Some(Command::Train(a)) = cli.command else {
        unreachable!("argv names `train`")
    };
    Ok(Some(a))
}
