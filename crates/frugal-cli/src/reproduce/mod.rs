//! `frugal reproduce`, `frugal run` and `frugal merge`: experiment files run by
//! `frugal_report::runner` — rows as tidy CSV, claims checked, plots and the report — here
//! only found, split into shards, and merged.

mod retrain;

use std::path::PathBuf;

use anyhow::{Context, Result, anyhow};
use clap::Args;

use frugal_report::runner::{self, Shard};

use crate::Usage;
use crate::progress::Progress;

/// Options of `frugal reproduce`.
#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Papers to reproduce [default: every one with an experiment file].
    #[arg(value_parser = ["000", "001", "002", "003", "004", "005", "006"])]
    pub papers: Vec<String>,
    /// The same experiments with fewer repetitions, smaller scales and solver budgets
    /// (each file's `[quick]` table): under a minute.
    #[arg(long)]
    pub quick: bool,
    /// Retrain paper 002's agents with the commands stored beside the shipped checkpoints
    /// (PATH.json), one per core, instead of loading them; the new checkpoints go to
    /// DIR/checkpoints/<folder>/ (PPO agents, which the Python package trains, are copied).
    /// The paper's full budget: about an hour and a half on two cores.
    #[arg(long)]
    pub retrain: bool,
    /// Run the experiments' recorded runs again (`[recorded]`: paper 001's MILP planner,
    /// which needs a build with --features highs) instead of reading the shipped rows; the
    /// new rows go to DIR/recorded/.
    #[arg(long)]
    pub rerecord: bool,
    /// Run these live experiments (system = "live") again on this machine's testbed
    /// instead of reading their recorded rows: real Spark jobs under `frugal serve`, each
    /// configuration through `frugal live` (needs root, Java 17 and a Python with pyspark,
    /// and names what is missing). The new rows go to DIR/recorded/, the runs to
    /// DIR/live/.
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub live: Vec<String>,
    /// With --live: the Python with pyspark that drivers and executors run.
    #[arg(long, default_value = "python3", requires = "live")]
    pub python: PathBuf,
    /// With --live: the bundled applications (spark/ of the repository).
    #[arg(long, default_value = "spark", requires = "live")]
    pub apps_dir: PathBuf,
    /// Directory of the experiment files [default: the ones built into frugal, with their
    /// checkpoints; `frugal experiments list` shows them].
    #[arg(long, value_name = "DIR")]
    pub experiments: Option<PathBuf>,
    /// Output directory: results/*.csv, plots/*.svg and *.png, report.html, results.md.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Worker threads (0: one per core); any count gives the same rows.
    #[arg(long, default_value_t = 0)]
    pub threads: u16,
}

/// Options of `frugal run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Experiment files (format in the book, "Experiment files"), or the names of
    /// experiments built into frugal (`frugal experiments list`).
    #[arg(required = true, value_name = "FILE|NAME")]
    pub files: Vec<PathBuf>,
    /// Use each file's `[quick]` overrides.
    #[arg(long)]
    pub quick: bool,
    /// Output directory, as for `frugal reproduce` (with --shard: the shard's outputs,
    /// for `frugal merge`).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Worker threads (0: one per core); any count gives the same rows.
    #[arg(long, default_value_t = 0)]
    pub threads: u16,
    /// Run only the i-th of n disjoint slices of the configurations (i = 0 … n − 1; the
    /// configurations whose index in file × configuration order is i modulo n), e.g. one
    /// per machine; `frugal merge` joins the n output folders.
    #[arg(long, value_name = "i/n")]
    pub shard: Option<Shard>,
}

/// Options of `frugal merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The output folders of `frugal run … --shard i/n`, one for every i.
    #[arg(required = true, value_name = "DIR")]
    pub shards: Vec<PathBuf>,
    /// Output directory: what the unsharded run would write there.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

/// `frugal reproduce`.
///
/// # Errors
/// [`Usage`] for an experiment file that cannot be used; a run or I/O error.
pub fn reproduce(a: &ReproduceArgs) -> Result<()> {
    let embedded;
    let dir = match &a.experiments {
        Some(d) => d,
        None => {
            embedded = frugal_report::embedded::folder()?;
            &embedded
        }
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("--experiments {}", dir.display()))
        .map_err(Usage)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("reading {}", dir.display()))?;
    files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    files.sort();
    let mut experiments = runner::read(&files)?;
    experiments.retain(|(_, e)| a.papers.is_empty() || a.papers.contains(&e.paper));
    if experiments.is_empty() {
        return Err(Usage(anyhow!(
            "no experiment file in {} for {:?}",
            dir.display(),
            a.papers
        ))
        .into());
    }
    if a.retrain {
        retrain::checkpoints(&mut experiments, &a.out.join("checkpoints"), a.threads)?;
    }
    let mut command = String::from("frugal reproduce");
    for p in &a.papers {
        command.push(' ');
        command.push_str(p);
    }
    if a.quick {
        command.push_str(" --quick");
    }
    if a.retrain {
        command.push_str(" --retrain");
    }
    if a.rerecord {
        command.push_str(" --rerecord");
    }
    if !a.live.is_empty() {
        command.push_str(&format!(" --live {}", a.live.join(",")));
    }
    let progress = Progress::new(0);
    if a.rerecord {
        runner::rerecord(
            &mut experiments,
            a.quick,
            usize::from(a.threads),
            &a.out,
            &progress,
        )?;
    }
    if !a.live.is_empty() {
        let (exe, apps) = (std::env::current_exe()?, std::path::absolute(&a.apps_dir)?);
        let tools = (exe.as_path(), a.python.as_path(), apps.as_path());
        runner::record_live(&mut experiments, &a.live, tools, a.quick, &a.out)?;
    }
    let outputs = runner::run(
        &experiments,
        a.quick,
        usize::from(a.threads),
        None,
        &progress,
    )?;
    progress.finish();
    let sections = runner::write(&experiments, outputs, &a.out, &command, a.quick)?;
    tracing::info!(out = %a.out.display(), experiments = experiments.len(), "report written");
    let shipped = a.quick.then(|| {
        frugal_report::html::verdicts_of_markdown(frugal_report::embedded::SHIPPED_RESULTS)
    });
    print!(
        "{}",
        frugal_report::html::summary(&sections, shipped.as_deref())
    );
    Ok(())
}

/// `frugal run`.
///
/// # Errors
/// As [`reproduce`].
pub fn run(a: &RunArgs) -> Result<()> {
    let files = a
        .files
        .iter()
        .map(|f| resolve(f))
        .collect::<Result<Vec<_>>>()?;
    let experiments = runner::read(&files)?;
    let names: Vec<String> = a.files.iter().map(|f| f.display().to_string()).collect();
    let command = format!(
        "frugal run {}{}",
        names.join(" "),
        if a.quick { " --quick" } else { "" }
    );
    let progress = Progress::new(0);
    let outputs = runner::run(
        &experiments,
        a.quick,
        usize::from(a.threads),
        a.shard,
        &progress,
    )?;
    progress.finish();
    match a.shard {
        None => {
            // What reproduce prints: each experiment's verdicts, and where the report is.
            let sections = runner::write(&experiments, outputs, &a.out, &command, a.quick)?;
            print!("{}", frugal_report::html::summary(&sections, None));
            println!("rows, plots and report.html in {}", a.out.display());
            Ok(())
        }
        Some(shard) => {
            let sources = files
                .iter()
                .zip(&experiments)
                .map(|(f, (id, _))| {
                    std::fs::read_to_string(f)
                        .map(|t| (id.clone(), t))
                        .with_context(|| format!("{}", f.display()))
                })
                .collect::<Result<Vec<_>>>()?;
            runner::write_shard(&a.out, shard, a.quick, &command, &sources, outputs)
        }
    }
}

/// `frugal merge`.
///
/// # Errors
/// [`Usage`] for folders that are not the shards of one run; I/O errors.
pub fn merge(a: &MergeArgs) -> Result<()> {
    runner::merge(&a.shards, &a.out)
}

/// An experiment file: `f` itself if it exists, else the built-in experiment of that name.
fn resolve(f: &std::path::Path) -> Result<PathBuf> {
    if f.exists() {
        return Ok(f.to_path_buf());
    }
    let name = f.to_string_lossy();
    let id = name.strip_suffix(".toml").unwrap_or(&name);
    if frugal_report::embedded::show(id).is_some() {
        return Ok(frugal_report::embedded::folder()?.join(format!("{id}.toml")));
    }
    Err(Usage(anyhow!(
        "{}: no such file, nor a built-in experiment (frugal experiments list)",
        f.display()
    ))
    .into())
}

/// Options of `frugal experiments`.
#[derive(Args, Debug)]
pub struct ExperimentsArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: ExperimentsCommand,
}

/// `frugal experiments list|show`.
#[derive(clap::Subcommand, Debug)]
pub enum ExperimentsCommand {
    /// The experiments built into frugal: name, paper, system and title.
    List,
    /// Print one as its file, to copy and edit (`frugal run my.toml`).
    Show {
        /// Its name, e.g. p002-burst.
        name: String,
    },
}

/// `frugal experiments`.
///
/// # Errors
/// [`Usage`] for a name that is not built in.
pub fn experiments(a: &ExperimentsArgs) -> Result<()> {
    match &a.command {
        ExperimentsCommand::List => {
            for (id, e) in frugal_report::embedded::list() {
                println!(
                    "{id:<22} {:<4} {:<19} {}",
                    e.paper,
                    e.system.entry().words.join(" "),
                    e.title
                );
            }
        }
        ExperimentsCommand::Show { name } => {
            let text = frugal_report::embedded::show(name).ok_or_else(|| {
                Usage(anyhow!(
                    "{name}: no built-in experiment of that name (frugal experiments list)"
                ))
            })?;
            print!("{text}");
        }
    }
    Ok(())
}
