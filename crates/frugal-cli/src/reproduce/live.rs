//! `frugal reproduce --live <id>`: a live experiment's runs (`system = "live"`) made again
//! on this machine's testbed, each configuration through `frugal live`; the rows replace
//! the shipped recorded ones, as `--rerecord` does for recorded runs.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};
use clap::Parser;

use frugal_report::runner::{store_recorded, tidy};
use frugal_report::{Experiment, System, Table};

use crate::Usage;
use crate::live::{LiveArgs, live_rows};

/// `frugal live`'s options, parsed from an experiment configuration's argument vector.
#[derive(Parser, Debug)]
#[command(name = "frugal live", no_binary_name = true)]
struct LiveCommand {
    #[command(flatten)]
    live: LiveArgs,
}

/// Runs every configuration of the live experiments `ids` with the Python `python` and
/// the applications in `apps_dir`, writes their rows to `out/recorded/<file name>` and
/// points the experiments there. Each configuration's runs (databases, logs) go to
/// `out/live/<id>/<k>`.
///
/// # Errors
/// [`Usage`] for an id that is not a live experiment or a configuration `frugal live`
/// refuses; what this machine lacks (root, Java 17, pyspark …), before anything runs; a
/// run's error.
pub fn record(
    experiments: &mut [(String, Experiment)],
    ids: &[String],
    python: &Path,
    apps_dir: &Path,
    quick: bool,
    out: &Path,
) -> Result<()> {
    let live: Vec<&str> = experiments
        .iter()
        .filter(|(_, e)| e.system == System::Live)
        .map(|(id, _)| id.as_str())
        .collect();
    for id in ids {
        if !live.contains(&id.as_str()) {
            let known = if live.is_empty() {
                "there is none".to_string()
            } else {
                format!("the live ones: {}", live.join(", "))
            };
            return Err(Usage(anyhow!(
                "--live {id}: not a live experiment (system = \"live\") among those run; {known}"
            ))
            .into());
        }
    }
    for (id, e) in experiments.iter_mut().filter(|(id, _)| ids.contains(id)) {
        let mut table = Table::default();
        for (k, c) in e.configurations(quick).into_iter().enumerate() {
            let mut argv: Vec<String> = c.argv[1..].to_vec();
            let dir: PathBuf = out.join("live").join(&*id).join(k.to_string());
            argv.extend(["--python".into(), python.display().to_string()]);
            argv.extend(["--apps-dir".into(), apps_dir.display().to_string()]);
            argv.extend(["--out".into(), dir.display().to_string()]);
            let parsed = LiveCommand::try_parse_from(&argv).map_err(|err| {
                Usage(anyhow!(
                    "experiments {id}: configuration `frugal {}`: {err}",
                    c.argv.join(" ")
                ))
            })?;
            let rows = tidy(&live_rows(&parsed.live)?)?;
            table
                .append(&c.labels, rows)
                .map_err(|m| anyhow!("{id}: {m}"))?;
        }
        store_recorded(id, e, quick, &table, out)?;
    }
    Ok(())
}
