//! `frugal reproduce` and `frugal run`: experiment files run in parallel, their rows
//! written as tidy CSV, their claims checked, plotted and reported.
//!
//! Every configuration of every experiment is parsed as the command line of its
//! subcommand (so a bad flag fails before any run, with the file and configuration named)
//! and executed through the same `compute` function that the subcommand prints from. The
//! configurations run in parallel (each one's runs in parallel too); rows are gathered in
//! file × configuration × run order, so the CSV files do not depend on the thread count.

mod retrain;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clap::{Args, Parser};
use rayon::prelude::*;

use frugal_report::html::{self, Section};
use frugal_report::{Experiment, Figure, PlotKind, System, Table};

use crate::progress::Progress;
use crate::{Cli, Command, Usage};

/// Options of `frugal reproduce`.
#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Papers to reproduce [default: every one with an experiment file].
    #[arg(value_parser = ["000", "001", "002", "003", "004"])]
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
    /// Directory of the experiment files.
    #[arg(long, value_name = "DIR", default_value = "experiments")]
    pub experiments: PathBuf,
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
    /// Experiment files (format in the README, "Experiment files").
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Use each file's `[quick]` overrides.
    #[arg(long)]
    pub quick: bool,
    /// Output directory, as for `frugal reproduce`.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Worker threads (0: one per core); any count gives the same rows.
    #[arg(long, default_value_t = 0)]
    pub threads: u16,
}

/// `frugal reproduce`.
///
/// # Errors
/// [`Usage`] for an experiment file that cannot be used; a run or I/O error.
pub fn reproduce(a: &ReproduceArgs) -> Result<()> {
    let dir = &a.experiments;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("--experiments {}", dir.display()))
        .map_err(Usage)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("reading {}", dir.display()))?;
    files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    files.sort();
    let mut experiments = read(&files)?;
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
    execute(&experiments, a.quick, a.threads, &a.out, &command)
}

/// `frugal run`.
///
/// # Errors
/// As [`reproduce`].
pub fn run(a: &RunArgs) -> Result<()> {
    let experiments = read(&a.files)?;
    let names: Vec<String> = a.files.iter().map(|f| f.display().to_string()).collect();
    let command = format!(
        "frugal run {}{}",
        names.join(" "),
        if a.quick { " --quick" } else { "" }
    );
    execute(&experiments, a.quick, a.threads, &a.out, &command)
}

/// Reads experiment files; ids are the file stems and must be distinct.
fn read(files: &[PathBuf]) -> Result<Vec<(String, Experiment)>> {
    let mut out: Vec<(String, Experiment)> = Vec::new();
    for f in files {
        let e = Experiment::read(f).map_err(|m| Usage(anyhow!(m)))?;
        let id = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if out.iter().any(|(i, _)| *i == id) {
            return Err(Usage(anyhow!("{}: a second experiment named {id}", f.display())).into());
        }
        out.push((id, e));
    }
    Ok(out)
}

/// One configuration's output: its rows and the timelines it can draw.
struct Output {
    table: Table,
    timelines: Vec<(usize, Figure)>,
}

/// The parsed subcommand of a configuration.
enum Job {
    Simulate(Box<crate::simulate::SimulateArgs>),
    BagOfTasks(Box<crate::bag_of_tasks::BagOfTasksArgs>),
    Ephemeral(Box<crate::ephemeral::EphemeralArgs>),
    Planners(Box<crate::ephemeral::PlannersArgs>),
    Curves(crate::curves::CurvesArgs),
}

fn parse(system: System, argv: &[String]) -> Result<Job, String> {
    let cli = Cli::try_parse_from(std::iter::once("frugal").chain(argv.iter().map(String::as_str)))
        .map_err(|e| {
            let text = e.to_string();
            text.split("\n\n")
                .next()
                .unwrap_or(&text)
                .trim()
                .to_string()
        })?;
    Ok(match (system, cli.command) {
        (System::Simulate, Some(Command::Simulate(a))) => Job::Simulate(a),
        (System::BagOfTasks, Some(Command::BagOfTasks(a))) => Job::BagOfTasks(a),
        (System::EphemeralPlanners, Some(Command::Ephemeral(a))) => match a.command {
            Some(crate::ephemeral::EphemeralCommand::Planners(p)) => Job::Planners(Box::new(p)),
            None => return Err("expected `ephemeral planners`".into()),
        },
        (System::Ephemeral, Some(Command::Ephemeral(a))) => Job::Ephemeral(a),
        (System::LearningCurves, Some(Command::LearningCurves(a))) => Job::Curves(a),
        _ => unreachable!("argv starts with the system's words"),
    })
}

/// Runs every configuration, writes the rows, plots and the report.
fn execute(
    experiments: &[(String, Experiment)],
    quick: bool,
    threads: u16,
    out: &Path,
    command: &str,
) -> Result<()> {
    // Parse everything first: a bad flag in the last file fails before any run.
    let mut work = Vec::new();
    for (k, (id, e)) in experiments.iter().enumerate() {
        for c in e.configurations(quick) {
            let job = parse(e.system, &c.argv).map_err(|m| {
                Usage(anyhow!(
                    "experiments {id}: configuration `frugal {}`: {m}",
                    c.argv.join(" ")
                ))
            })?;
            work.push((k, c, job));
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(usize::from(threads))
        .build()
        .context("starting the worker threads")?;
    let progress = Progress::new(0);
    let outputs: Vec<Output> = pool.install(|| {
        work.par_iter()
            .map(|(k, c, job)| {
                let (id, e) = &experiments[*k];
                configuration(e, &c.labels, job, &progress)
                    .with_context(|| format!("{id}: frugal {}", c.argv.join(" ")))
            })
            .collect::<Result<Vec<_>>>()
    })?;
    progress.finish();
    for sub in ["results", "plots"] {
        std::fs::create_dir_all(out.join(sub))
            .with_context(|| format!("creating {}", out.join(sub).display()))?;
    }
    let mut sections = Vec::new();
    for (k, (id, e)) in experiments.iter().enumerate() {
        let mut table = Table::default();
        let mut timelines: Vec<(usize, Figure)> = Vec::new();
        for ((_, c, _), o) in work.iter().zip(&outputs).filter(|((j, _, _), _)| *j == k) {
            table
                .append(&c.labels, o.table.clone())
                .map_err(|m| anyhow!("{id}: {m}"))?;
            for (p, f) in &o.timelines {
                if !timelines.iter().any(|(q, _)| q == p) {
                    timelines.push((*p, f.clone()));
                }
            }
        }
        let csv = out.join("results").join(format!("{id}.csv"));
        table
            .write_csv(&csv)
            .with_context(|| format!("writing {}", csv.display()))?;
        let mut plots = Vec::new();
        for (p, spec) in e.plots.iter().enumerate() {
            let figure = match spec.kind {
                PlotKind::Timeline => match timelines.iter().find(|(q, _)| *q == p) {
                    Some((_, f)) => f.clone(),
                    None => {
                        return Err(Usage(anyhow!(
                            "{id}: plot {}: no run matches its `where`",
                            spec.name
                        ))
                        .into());
                    }
                },
                _ => spec
                    .figure(&table)
                    .map_err(|m| Usage(anyhow!("{id}: plot {}: {m}", spec.name)))?,
            };
            let stem = format!("{id}-{}", spec.name);
            let png = out.join("plots").join(format!("{stem}.png"));
            let svg = spec.render(&figure, &png).map_err(|m| anyhow!(m))?;
            let svg_path = out.join("plots").join(format!("{stem}.svg"));
            std::fs::write(&svg_path, &svg)
                .with_context(|| format!("writing {}", svg_path.display()))?;
            plots.push((spec.title.clone(), svg, format!("plots/{stem}.png")));
        }
        let claims = e
            .claims
            .iter()
            .map(|c| {
                c.evaluate(&table)
                    .map(|o| (c.clone(), o))
                    .map_err(|m| Usage(anyhow!("{id}: claim {:?}: {m}", c.claim)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        sections.push(Section {
            id: id.clone(),
            experiment: e.clone(),
            claims,
            plots,
            runs: table.rows.len(),
        });
    }
    let report = out.join("report.html");
    std::fs::write(&report, html::html(&sections, command))
        .with_context(|| format!("writing {}", report.display()))?;
    let md = out.join("results.md");
    std::fs::write(&md, html::markdown(&sections))
        .with_context(|| format!("writing {}", md.display()))?;
    tracing::info!(report = %report.display(), experiments = sections.len(), "report written");
    Ok(())
}

/// Runs one configuration.
fn configuration(
    e: &Experiment,
    labels: &[(String, String)],
    job: &Job,
    progress: &Progress,
) -> Result<Output> {
    let mut timelines = Vec::new();
    let table = match job {
        Job::Simulate(a) => {
            let runs = crate::simulate::compute(a, progress)?;
            let mut t = tidy(&runs.rows)?;
            shorten_checkpoints(&mut t);
            // Timelines: the first run of this configuration that matches the plot, its
            // row found in the rows with this configuration's labels.
            let mut labelled = Table::default();
            for (p, spec) in e.plots.iter().enumerate() {
                if spec.kind != PlotKind::Timeline {
                    continue;
                }
                if labelled.header.is_empty() {
                    labelled.append(labels, t.clone()).map_err(|m| anyhow!(m))?;
                }
                let matching = labelled.matching(&spec.filter).map_err(|m| anyhow!(m))?;
                if let Some(&i) = matching.first() {
                    let r = &runs.results[i];
                    timelines.push((
                        p,
                        Figure::Timeline {
                            vms: r
                                .vms
                                .iter()
                                .filter(|v| !v.intervals.is_empty())
                                .map(|v| {
                                    (format!("{} {}", v.id, v.instance_type), v.intervals.clone())
                                })
                                .collect(),
                            cost: r.cumulative_cost(),
                        },
                    ));
                }
            }
            t
        }
        Job::BagOfTasks(a) => tidy(&crate::bag_of_tasks::compute(a, progress)?.rows)?,
        Job::Curves(a) => {
            let mut t = tidy(&crate::curves::compute(a)?)?;
            shorten_checkpoints(&mut t);
            t
        }
        Job::Ephemeral(a) => tidy(&crate::ephemeral::compute(a, progress)?.rows)?,
        Job::Planners(a) => {
            let rows = crate::ephemeral::planners::compute(a)?;
            progress.add(rows.len());
            for _ in &rows {
                progress.tick();
            }
            tidy(&rows)?
        }
    };
    Ok(Output { table, timelines })
}

/// Rows as the CSV the subcommand's `--out` writes, read back as a table.
fn tidy<T: serde::Serialize>(rows: &[T]) -> Result<Table> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r)?;
    }
    let bytes = w.into_inner().map_err(|e| anyhow!("{e}"))?;
    Ok(Table::from_csv(&bytes)?)
}

/// `rl:<dir>/<name>.safetensors` → `rl:<name>` in the policy column, so that rows, plots
/// and claims name an agent the same wherever its checkpoint lives (shipped or retrained);
/// a name that ends in `-s<seed>` (one of several training seeds) loses it to the row's
/// `seed` column, which for agent rows is then the training seed.
fn shorten_checkpoints(t: &mut Table) {
    let Ok(i) = t.column("policy") else { return };
    let seed = t.column("seed").ok();
    for row in &mut t.rows {
        if let Some(path) = row[i].strip_prefix("rl:") {
            let stem = Path::new(path)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let (name, trained) = match stem.rsplit_once("-s") {
                Some((n, s)) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                    (n.to_string(), Some(s.to_string()))
                }
                _ => (stem, None),
            };
            row[i] = format!("rl:{name}");
            if let (Some(j), Some(s)) = (seed, trained) {
                row[j] = s;
            }
        }
    }
}
