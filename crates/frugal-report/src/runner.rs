//! Running experiment files: every configuration read as its system's typed spec (so
//! a bad key fails before any run, with the file and configuration named), run through the
//! same function each front-end calls, in parallel; then the rows gathered in file ×
//! configuration order — so the files do not depend on the thread count — claims checked,
//! plots drawn and the report written.
//!
//! A sweep can be split: [`run`] with a shard `i/n` runs the configurations whose index
//! (in file × configuration order) is `i` modulo `n` and [`write_shard`] keeps their
//! outputs; [`merge`] joins the shards of every `i` and writes exactly what the unsplit run
//! writes.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use frugal_core::PolicySpec;
use frugal_core::progress::Progress;

use crate::html::{self, Section};
use crate::{Experiment, Figure, PlotKind, System, Table};

/// An experiment file, one of its configurations or a shard folder that cannot be used as
/// given, as opposed to a run that fails; front-ends find it in an error's chain
/// (`downcast_ref`) to tell the two apart.
#[derive(Debug)]
pub struct InputError(pub anyhow::Error);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for InputError {}

/// The part of a sweep one run takes: the configurations whose index is `index` modulo
/// `count` (`--shard index/count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// Which slice, from 0.
    pub index: usize,
    /// How many slices.
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// Parses `i/n` with 0 ≤ i < n.
    fn from_str(s: &str) -> Result<Shard, String> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("{s:?}: expected i/n, e.g. 0/4"))?;
        let (index, count): (usize, usize) = (
            i.trim()
                .parse()
                .map_err(|_| format!("{s:?}: i is not a number"))?,
            n.trim()
                .parse()
                .map_err(|_| format!("{s:?}: n is not a number"))?,
        );
        if count == 0 || index >= count {
            return Err(format!("{s:?}: need 0 ≤ i < n"));
        }
        Ok(Shard { index, count })
    }
}

/// What one configuration produced: its rows (with its labels in front) and the timelines
/// it can draw (by plot index).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Output {
    /// Index of the experiment in the list run.
    pub experiment: usize,
    /// Index of the configuration in the whole sweep (file × configuration order).
    pub configuration: usize,
    /// Its labels (case, swept flags).
    pub labels: Vec<(String, String)>,
    /// Its rows as CSV text.
    pub rows_csv: String,
    /// Timelines drawn from its runs: (plot index, figure).
    pub timelines: Vec<(usize, Figure)>,
}

/// Reads experiment files; ids are the file stems and must be distinct. Relative `rl:`
/// paths are taken from each file's folder (the checkpoints beside it).
///
/// # Errors
/// [`InputError`] naming the file of a file that cannot be read or used.
pub fn read(files: &[PathBuf]) -> Result<Vec<(String, Experiment)>> {
    let mut out: Vec<(String, Experiment)> = Vec::new();
    for f in files {
        let mut e = Experiment::read(f).map_err(|m| InputError(anyhow!(m)))?;
        e.resolve_agents(f.parent().unwrap_or(Path::new(".")));
        let id = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if out.iter().any(|(i, _)| *i == id) {
            bail!(InputError(anyhow!(
                "{}: a second experiment named {id}",
                f.display()
            )));
        }
        out.push((id, e));
    }
    Ok(out)
}

/// Runs the configurations of `experiments` (all, or `shard`'s) on `threads` workers (0:
/// one per core). Every configuration is parsed first. An experiment's recorded rows
/// (`[recorded]`, its quick ones under `quick`) are one more output, after its runs.
///
/// # Errors
/// [`InputError`] naming the experiment and configuration for a key its system's spec
/// refuses; a run's error with the configuration named.
pub fn run(
    experiments: &[(String, Experiment)],
    quick: bool,
    threads: usize,
    shard: Option<Shard>,
    progress: &dyn Progress,
) -> Result<Vec<Output>> {
    let mut work = Vec::new();
    let mut index = 0;
    for (k, (id, e)) in experiments.iter().enumerate() {
        for c in e.configurations(quick) {
            // Read and check now, so a bad key in the last file fails before any run.
            e.system.entry().runs.check(&c.spec).map_err(|m| {
                InputError(anyhow!(
                    "experiments {id}: configuration `frugal {}`: {m}",
                    c.argv.join(" ")
                ))
            })?;
            // Live runs are never made here: their recorded rows stand for them (below).
            if e.system == System::Live {
                continue;
            }
            let mine = shard.is_none_or(|s| index % s.count == s.index);
            if mine {
                work.push((k, index, c));
            }
            index += 1;
        }
    }
    // The recorded rows travel as one more output of the experiment (with the first shard).
    let mut recorded = Vec::new();
    if shard.is_none_or(|s| s.index == 0) {
        for (k, (id, e)) in experiments.iter().enumerate() {
            let Some(r) = &e.recorded else { continue };
            let path = if quick { &r.quick_rows } else { &r.rows };
            let rows_csv = std::fs::read_to_string(path)
                .with_context(|| format!("{id}: reading the recorded rows {}", path.display()))?;
            recorded.push(Output {
                experiment: k,
                configuration: usize::MAX,
                labels: Vec::new(),
                rows_csv,
                timelines: Vec::new(),
            });
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the worker threads")?;
    let live: Result<Vec<Output>> = pool.install(|| {
        work.par_iter()
            .map(|(k, index, c)| {
                let (id, e) = &experiments[*k];
                let (table, timelines) = e
                    .system
                    .entry()
                    .runs
                    .run(
                        &c.spec,
                        &crate::systems::Setting {
                            plots: &e.plots,
                            labels: &c.labels,
                            progress,
                        },
                    )
                    .with_context(|| format!("{id}: frugal {}", c.argv.join(" ")))?;
                let mut labelled = Table::default();
                labelled
                    .append(&c.labels, table)
                    .map_err(|m| anyhow!("{id}: {m}"))?;
                Ok(Output {
                    experiment: *k,
                    configuration: *index,
                    labels: c.labels.clone(),
                    rows_csv: labelled.to_csv()?,
                    timelines,
                })
            })
            .collect()
    });
    let mut outputs = live?;
    outputs.extend(recorded);
    Ok(outputs)
}

/// The shard file of a `--shard` run's output folder.
const SHARD_FILE: &str = "shard.json";

/// What a shard keeps: the experiment files' text, how it was run, and its outputs.
#[derive(Serialize, Deserialize)]
struct ShardFile {
    shard: Shard,
    quick: bool,
    command: String,
    /// (id, file text) of each experiment, in run order.
    experiments: Vec<(String, String)>,
    outputs: Vec<Output>,
}

/// Writes a shard's outputs to `out/shard.json` (and nothing else: [`merge`] writes the
/// results once every shard is there).
///
/// # Errors
/// I/O errors.
pub fn write_shard(
    out: &Path,
    shard: Shard,
    quick: bool,
    command: &str,
    sources: &[(String, String)],
    outputs: Vec<Output>,
) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let file = ShardFile {
        shard,
        quick,
        command: command.to_string(),
        experiments: sources.to_vec(),
        outputs,
    };
    let path = out.join(SHARD_FILE);
    std::fs::write(&path, serde_json::to_vec(&file)?)
        .with_context(|| format!("writing {}", path.display()))
}

/// Joins the shard folders `dirs` (every index of one `n`, from runs of the same
/// experiment files) and writes the results into `out` exactly as the unsplit run would,
/// under the unsplit command.
///
/// # Errors
/// [`InputError`] for a folder without a shard file, shards of different runs, a missing or
/// doubled index; I/O errors.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<()> {
    let mut shards: Vec<ShardFile> = Vec::new();
    for d in dirs {
        let path = d.join(SHARD_FILE);
        let text = std::fs::read(&path)
            .with_context(|| format!("{}: not the output of a --shard run", d.display()))
            .map_err(InputError)?;
        let s: ShardFile = serde_json::from_slice(&text)
            .with_context(|| format!("{}", path.display()))
            .map_err(InputError)?;
        shards.push(s);
    }
    let first = shards
        .first()
        .ok_or_else(|| InputError(anyhow!("no shard folder given")))?;
    let n = first.shard.count;
    for s in &shards {
        if s.experiments != first.experiments || s.quick != first.quick || s.shard.count != n {
            bail!(InputError(anyhow!(
                "the shards come from different runs (experiment files, --quick or n differ)"
            )));
        }
    }
    let mut seen = vec![false; n];
    for s in &shards {
        if std::mem::replace(&mut seen[s.shard.index], true) {
            bail!(InputError(anyhow!(
                "shard {}/{n} is given twice",
                s.shard.index
            )));
        }
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        bail!(InputError(anyhow!("shard {i}/{n} is missing")));
    }
    let experiments = first
        .experiments
        .iter()
        .map(|(id, text)| {
            Experiment::parse(text)
                .map(|e| (id.clone(), e))
                .map_err(|m| InputError(anyhow!("{id}: {m}")).into())
        })
        .collect::<Result<Vec<_>>>()?;
    let (command, quick) = (first.command.clone(), first.quick);
    let mut outputs: Vec<Output> = shards.into_iter().flat_map(|s| s.outputs).collect();
    outputs.sort_by_key(|o| o.configuration);
    write(&experiments, outputs, out, &command, quick).map(drop)
}

/// Gathers `outputs` (in configuration order) per experiment and writes `out/results/*.csv`,
/// `out/plots/*` and `out/report.html` and `out/results.md`; returns the report's
/// sections.
///
/// # Errors
/// [`InputError`] for a plot or claim the rows cannot make; I/O errors.
pub fn write(
    experiments: &[(String, Experiment)],
    outputs: Vec<Output>,
    out: &Path,
    command: &str,
    quick: bool,
) -> Result<Vec<Section>> {
    // A quick report says so on every page, with the full run's verdicts beside its own.
    let full = quick.then(|| html::verdicts_of_markdown(crate::embedded::SHIPPED_RESULTS));
    let full = full.as_deref();
    for sub in ["results", "plots"] {
        std::fs::create_dir_all(out.join(sub))
            .with_context(|| format!("creating {}", out.join(sub).display()))?;
    }
    let mut sections = Vec::new();
    for (k, (id, e)) in experiments.iter().enumerate() {
        let mut table = Table::default();
        let mut timelines: Vec<(usize, Figure)> = Vec::new();
        for o in outputs.iter().filter(|o| o.experiment == k) {
            let rows = Table::from_csv(o.rows_csv.as_bytes())?;
            table.append(&[], rows).map_err(|m| anyhow!("{id}: {m}"))?;
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
                    None => bail!(InputError(anyhow!(
                        "{id}: plot {}: no run matches its `where`",
                        spec.name
                    ))),
                },
                _ => spec
                    .figure(&table)
                    .map_err(|m| InputError(anyhow!("{id}: plot {}: {m}", spec.name)))?,
            };
            let stem = format!("{id}-{}", spec.name);
            let png = out.join("plots").join(format!("{stem}.png"));
            let mut marks = crate::marks::marks(&e.paper, spec, &figure, &e.claims);
            marks.quick = quick;
            let svg = spec.render(&figure, &marks, &png).map_err(|m| anyhow!(m))?;
            let svg_path = out.join("plots").join(format!("{stem}.svg"));
            std::fs::write(&svg_path, &svg)
                .with_context(|| format!("writing {}", svg_path.display()))?;
            plots.push((spec.title.clone(), svg, format!("plots/{stem}.png")));
        }
        let claims = e
            .claims
            .iter()
            .map(|c| {
                // Live rows are measurements: one run per series tells no spread.
                let runs = match e.system {
                    System::Live => crate::claim::Runs::Measured,
                    _ => crate::claim::Runs::Exact,
                };
                c.evaluate_runs(&table, runs)
                    .map(|o| (c.clone(), o))
                    .map_err(|m| InputError(anyhow!("{id}: claim {:?}: {m}", c.claim)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        sections.push(Section {
            id: id.clone(),
            experiment: e.clone(),
            claims,
            plots,
            runs: table.rows.len(),
            prediction: (e.system == System::Live)
                .then(|| crate::live::prediction_summary(&table))
                .flatten(),
        });
    }
    let report = out.join("report.html");
    std::fs::write(&report, html::html(&sections, command, full))
        .with_context(|| format!("writing {}", report.display()))?;
    let md = out.join("results.md");
    std::fs::write(&md, html::markdown(&sections, full))
        .with_context(|| format!("writing {}", md.display()))?;
    // One table per paper as well, for the book's paper chapters.
    let mut papers: Vec<&str> = sections
        .iter()
        .map(|s| s.experiment.paper.as_str())
        .collect();
    papers.dedup();
    for paper in papers {
        let of: Vec<Section> = sections
            .iter()
            .filter(|s| s.experiment.paper == paper)
            .cloned()
            .collect();
        let md = out.join(format!("results-{paper}.md"));
        std::fs::write(&md, html::markdown(&of, full))
            .with_context(|| format!("writing {}", md.display()))?;
    }
    Ok(sections)
}

/// Runs the recorded runs of `experiments` again (each one's [`Experiment::recording`]),
/// writes their rows to `out/recorded/<file name>` and points the experiments there.
///
/// # Errors
/// As [`run`]; an I/O error.
pub fn rerecord(
    experiments: &mut [(String, Experiment)],
    quick: bool,
    threads: usize,
    out: &Path,
    progress: &dyn Progress,
) -> Result<()> {
    for (id, e) in experiments.iter_mut() {
        let Some(recording) = e.recording() else {
            continue;
        };
        let outputs = run(&[(id.clone(), recording)], quick, threads, None, progress)?;
        let mut table = Table::default();
        for o in outputs {
            let rows = Table::from_csv(o.rows_csv.as_bytes())?;
            table.append(&[], rows).map_err(|m| anyhow!("{id}: {m}"))?;
        }
        store_recorded(id, e, quick, &table, out)?;
    }
    Ok(())
}

/// Runs every configuration of the live experiments `ids` (`frugal reproduce --live`) with
/// the `frugal` executable `frugal`, the Python `python` and the applications in
/// `apps_dir`, writes their rows to `out/recorded/<file name>` and points the experiments
/// there, as [`rerecord`] does for recorded runs. Each configuration is read as a
/// [`LiveSpec`](crate::live::LiveSpec) and its runs (databases, logs) go to
/// `out/live/<id>/<k>`.
///
/// # Errors
/// [`InputError`] for an id that is not a live experiment or a configuration its spec
/// refuses; what this machine lacks (root, Java 17, pyspark …), before anything runs; a
/// run's error.
pub fn record_live(
    experiments: &mut [(String, Experiment)],
    ids: &[String],
    tools: (&Path, &Path, &Path),
    quick: bool,
    out: &Path,
) -> Result<()> {
    let (frugal, python, apps_dir) = tools;
    let live: Vec<&str> = experiments
        .iter()
        .filter(|(_, e)| e.system == System::Live)
        .map(|(id, _)| id.as_str())
        .collect();
    if let Some(id) = ids.iter().find(|id| !live.contains(&id.as_str())) {
        let known = if live.is_empty() {
            "there is none".to_string()
        } else {
            format!("the live ones: {}", live.join(", "))
        };
        bail!(InputError(anyhow!(
            "--live {id}: not a live experiment (system = \"live\") among those run; {known}"
        )));
    }
    for (id, e) in experiments.iter_mut().filter(|(id, _)| ids.contains(id)) {
        let mut table = Table::default();
        for (k, c) in e.configurations(quick).into_iter().enumerate() {
            let mut spec =
                crate::systems::Typed::<crate::live::LiveSpec>::read(&c.spec).map_err(|m| {
                    let argv = c.argv.join(" ");
                    InputError(anyhow!(
                        "experiments {id}: configuration `frugal {argv}`: {m}"
                    ))
                })?;
            spec.python = python.to_path_buf();
            spec.apps_dir = apps_dir.to_path_buf();
            spec.out = out.join("live").join(&*id).join(k.to_string());
            let rows = tidy(&spec.run(frugal)?)?;
            table
                .append(&c.labels, rows)
                .map_err(|m| anyhow!("{id}: {m}"))?;
        }
        store_recorded(id, e, quick, &table, out)?;
    }
    Ok(())
}

/// Writes `table`, the new recorded rows of experiment `id` (its quick ones under
/// `quick`), to `out/recorded/<the shipped file's name>` and points `e` there.
///
/// # Errors
/// `e` has no `[recorded]`; an I/O error.
pub fn store_recorded(
    id: &str,
    e: &mut Experiment,
    quick: bool,
    table: &Table,
    out: &Path,
) -> Result<()> {
    let r = e
        .recorded
        .as_mut()
        .ok_or_else(|| anyhow!("{id}: no [recorded] rows"))?;
    let rows = if quick {
        &mut r.quick_rows
    } else {
        &mut r.rows
    };
    let name = rows
        .file_name()
        .map(std::ffi::OsStr::to_os_string)
        .unwrap_or_else(|| format!("{id}.csv").into());
    let path = out.join("recorded").join(name);
    std::fs::create_dir_all(out.join("recorded"))?;
    table
        .write_csv(&path)
        .with_context(|| format!("writing {}", path.display()))?;
    *rows = path;
    Ok(())
}

/// Rows as a subcommand's `--out` CSV writes them, read back as a table.
///
/// # Errors
/// A row that does not serialise.
pub fn tidy<T: serde::Serialize>(rows: &[T]) -> Result<Table> {
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
pub fn shorten_checkpoints(t: &mut Table) {
    let Ok(i) = t.column("policy") else { return };
    let seed = t.column("seed").ok();
    for row in &mut t.rows {
        if let Ok(PolicySpec::Rl(path)) = row[i].parse() {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let (name, trained) = match stem.rsplit_once("-s") {
                Some((n, s)) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                    (n.to_string(), Some(s.to_string()))
                }
                _ => (stem, None),
            };
            row[i] = PolicySpec::Rl(name.into()).to_string();
            if let (Some(j), Some(s)) = (seed, trained) {
                row[j] = s;
            }
        }
    }
}
