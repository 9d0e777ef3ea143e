//! A bag-of-tasks comparison run from its spec ([`crate::spec::BagOfTasksSpec`]; `frugal
//! bag-of-tasks`, the `bag-of-tasks` experiments, the Python package's `bag_of_tasks`)
//! into tidy rows by [`compute`] — trace × scale × task count × α × policy, in parallel,
//! in that order, so the rows do not depend on the thread count — and written by
//! [`write_out`]. The spec is checked and every input read first; an input that cannot be
//! used is a [`SpecError`] naming its field.

use std::path::Path;

use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::json;

use frugal_core::progress::Progress;
use frugal_core::spec::SpecError;

use crate::bound::{RentBound, rent_lower_bound};
use crate::compare::versus;
use crate::spec::BagOfTasksSpec;
use crate::{Bag, BotRow, Policy, RunSpec, Setup, optimal};

/// A log turned into a bag, with what Table 2 reports about it.
#[derive(Serialize)]
pub struct Trace {
    /// `nasa`, `kth`, the file name, or such names joined by `+`.
    pub name: String,
    /// The logs read.
    pub files: Vec<Source>,
    /// Records read.
    pub records: usize,
    /// Records without a positive run time.
    pub dropped_run_time: usize,
    /// Records without a positive processor count.
    pub dropped_processors: usize,
    /// Tasks in the bag.
    pub tasks: usize,
    /// Tasks with work < 3,600 GHz·s (the paper's "short"), percent.
    pub short_lt_1h_pct: f64,
    /// Tasks with work ≤ 3,600 GHz·s, percent.
    pub short_le_1h_pct: f64,
    /// The bag.
    #[serde(skip)]
    pub bag: Bag,
}

/// A log file read, for provenance.
#[derive(Serialize)]
pub struct Source {
    /// The archive's file name for a shipped log, else the path given.
    pub path: String,
    /// SHA-256 of its bytes, hex.
    pub sha256: String,
}

/// One block of the output: a bag on one machine set.
pub struct Block {
    /// Index of its trace.
    pub trace: usize,
    /// PM scale factor.
    pub scale: u32,
    /// Tasks taken from the bag.
    pub tasks: usize,
    /// The machines.
    pub setup: Setup,
}

/// One run: a block, an α and a policy.
struct Key {
    block: usize,
    alpha: u32,
    policy: Policy,
}

/// The runs of a comparison, in order: trace × scale × task count × α × policy.
pub struct Runs {
    /// The bags read.
    pub traces: Vec<Trace>,
    /// The bag × machine-set blocks, in output order.
    pub blocks: Vec<Block>,
    /// Each run's tidy row.
    pub rows: Vec<BotRow>,
}

/// Checks `a`, reads its inputs and executes its runs on `threads` workers (0: one per
/// core), ticking `progress` (which it tells how many).
///
/// # Errors
/// [`SpecError`] naming the field or input that cannot be used; a policy that cannot
/// schedule a bag.
pub fn compute(a: &BagOfTasksSpec, threads: usize, progress: &dyn Progress) -> Result<Runs> {
    a.check()?;
    let traces = a
        .trace
        .iter()
        .map(|t| load(t, a.replicate))
        .collect::<Result<Vec<_>>>()?;
    let machines_file = match &a.machines {
        Some(p) => Some((
            p,
            std::fs::read_to_string(p)
                .map_err(|e| SpecError::new("machines", format!("{}: {e}", p.display())))?,
        )),
        None => None,
    };
    let mut blocks = Vec::new();
    for (t, trace) in traces.iter().enumerate() {
        let counts: Vec<usize> = if a.tasks.is_empty() {
            vec![trace.bag.tasks.len()]
        } else {
            a.tasks.iter().map(|&n| n as usize).collect()
        };
        for &n in &counts {
            if n > trace.bag.tasks.len() {
                return Err(SpecError::new(
                    "tasks",
                    format!(
                        "{n}: the {} log has {} tasks (use replicate for larger bags)",
                        trace.name,
                        trace.bag.tasks.len()
                    ),
                )
                .into());
            }
        }
        for &scale in &a.scale {
            let mut setup = match &machines_file {
                Some((p, text)) => Setup::from_toml(text, &p.display().to_string(), scale),
                None => Setup::from_toml(crate::model::PAPER003, "paper003.toml", scale),
            }
            .map_err(|e| SpecError::new("machines", e.to_string()))?;
            if let Some(price) = a.vm_usd_per_hour {
                match setup.vm_types.as_mut_slice() {
                    [vm] => vm.price_per_hour = Some(price),
                    types => {
                        return Err(SpecError::new(
                            "vm-usd-per-hour",
                            format!(
                                "applies to a machine set with one VM type; this one has {}",
                                types.len()
                            ),
                        )
                        .into());
                    }
                }
            }
            for &n in &counts {
                blocks.push(Block {
                    trace: t,
                    scale,
                    tasks: n,
                    setup: setup.clone(),
                });
            }
        }
    }
    let policies = &a.policies;
    if policies.contains(&Policy::Optimal)
        && let Some(b) = blocks.iter().find(|b| b.tasks > optimal::MAX_TASKS)
    {
        return Err(SpecError::new(
            "policies",
            format!(
                "optimal solves bags of at most {} tasks exactly; the {} bag has {} (choose \
                 them with tasks)",
                optimal::MAX_TASKS,
                traces[b.trace].name,
                b.tasks
            ),
        )
        .into());
    }
    let mut keys = Vec::new();
    for block in 0..blocks.len() {
        for &alpha in &a.alpha {
            keys.extend(policies.iter().map(|&policy| Key {
                block,
                alpha,
                policy,
            }));
        }
    }
    let rows = execute(a, threads, &traces, &blocks, &keys, progress)?;
    Ok(Runs {
        traces,
        blocks,
        rows,
    })
}

/// Reads one `--trace`: a log, or logs joined by `+` (their tasks concatenated in
/// order), replicated to `replicate` tasks if asked.
fn load(spec: &str, replicate: Option<u64>) -> Result<Trace> {
    let mut files = Vec::new();
    let mut bag: Option<Bag> = None;
    for part in spec.split('+') {
        let (path, bytes) = match frugal_traces::swf::embedded(part) {
            Some(e) => (e.file.to_string(), e.bytes.to_vec()),
            None => {
                let bytes = std::fs::read(part).map_err(|e| {
                    SpecError::new(
                        "trace",
                        format!("{part}: not `nasa`, `kth` or a readable SWF file ({e})"),
                    )
                })?;
                (part.to_string(), bytes)
            }
        };
        let log = frugal_traces::swf::read(&bytes, &path)
            .map_err(|e| SpecError::new("trace", e.to_string()))?;
        let b = crate::tasks::from_swf(&log)
            .map_err(|e| SpecError::new("trace", format!("{path}: {e}")))?;
        if b.tasks.is_empty() {
            return Err(SpecError::new(
                "trace",
                format!(
                    "{path}: no task: all {} records lack a positive run time or processor \
                     count",
                    b.records
                ),
            )
            .into());
        }
        files.push(Source {
            sha256: frugal_traces::sha256_hex(&bytes),
            path,
        });
        bag = Some(match bag {
            None => b,
            Some(mut all) => {
                all.tasks.extend(b.tasks);
                all.records += b.records;
                all.dropped_run_time += b.dropped_run_time;
                all.dropped_processors += b.dropped_processors;
                all
            }
        });
    }
    let mut bag = bag.ok_or_else(|| SpecError::new("trace", "empty"))?;
    if let Some(n) = replicate {
        bag = bag
            .replicated(n as usize)
            .map_err(|e| SpecError::new("replicate", e.to_string()))?;
    }
    let name = spec
        .split('+')
        .map(|p| {
            Path::new(p)
                .file_name()
                .map_or(p.into(), |n| n.to_string_lossy().into_owned())
        })
        .collect::<Vec<_>>()
        .join("+");
    let share = |n: usize| 100.0 * n as f64 / bag.tasks.len() as f64;
    Ok(Trace {
        name,
        files,
        records: bag.records,
        dropped_run_time: bag.dropped_run_time,
        dropped_processors: bag.dropped_processors,
        tasks: bag.tasks.len(),
        short_lt_1h_pct: share(bag.shorter_than(3600)),
        short_le_1h_pct: share(bag.shorter_than(3601)),
        bag,
    })
}

/// Runs every key in parallel; rows in key order.
fn execute(
    a: &BagOfTasksSpec,
    threads: usize,
    traces: &[Trace],
    blocks: &[Block],
    keys: &[Key],
    progress: &dyn Progress,
) -> Result<Vec<BotRow>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the worker threads")?;
    progress.add(keys.len());
    pool.install(|| {
        // One bound per (block, α), shared by its policies.
        let bounds: Vec<Vec<RentBound>> = blocks
            .par_iter()
            .map(|b| {
                let tasks = &traces[b.trace].bag.tasks[..b.tasks];
                a.alpha
                    .iter()
                    .map(|&alpha| rent_lower_bound(&b.setup, tasks, alpha))
                    .collect()
            })
            .collect();
        keys.par_iter()
            .map(|k| {
                let b = &blocks[k.block];
                let trace = &traces[b.trace];
                let spec = RunSpec {
                    trace: &trace.name,
                    alpha: k.alpha,
                    scale: b.scale,
                    setup: &b.setup,
                    repeats: a.repeats as usize,
                    implementation: a.implementation,
                    usd_per_kwh: a.electricity_usd_per_kwh,
                };
                let alpha_index = a.alpha.iter().position(|&x| x == k.alpha).unwrap_or(0);
                let row = crate::run(
                    &spec,
                    &trace.bag.tasks[..b.tasks],
                    k.policy,
                    &bounds[k.block][alpha_index],
                )
                .with_context(|| {
                    format!(
                        "{} on {} (α = {}, scale {})",
                        k.policy.name(),
                        trace.name,
                        k.alpha,
                        b.scale
                    )
                });
                progress.tick();
                row
            })
            .collect::<Result<Vec<_>>>()
    })
}

/// A one-line description of a machine set.
pub fn describe(setup: &Setup, scale: u32) -> String {
    let cores: u32 = setup.pms.iter().map(|p| p.cores).sum();
    let ghz: u64 = setup.pms.iter().map(|p| p.capacity_mhz()).sum();
    let vms: Vec<String> = setup
        .vm_types
        .iter()
        .map(|v| {
            format!(
                "{} ({} × {} GHz, ${}/h)",
                v.name,
                v.cores,
                v.mhz as f64 / 1000.0,
                v.price_per_hour.unwrap_or(0.0)
            )
        })
        .collect();
    format!(
        "{} PMs (scale {scale}: {cores} cores, {} GHz); VMs {} billed per started hour",
        setup.pms.len(),
        ghz as f64 / 1000.0,
        vms.join(", ")
    )
}

/// Writes `dir/results.csv` (one row per run), `dir/versus.csv` (HA against FFD and the
/// effect of RA) and `dir/summary.json` (provenance, the spec, the machines, the bags'
/// statistics) — what `frugal bag-of-tasks --out` and Python's `out=` write.
///
/// # Errors
/// [`SpecError`] of `out` if the folder cannot be made; I/O errors.
pub fn write_out(dir: &Path, a: &BagOfTasksSpec, runs: &Runs) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| SpecError::new("out", format!("{}: {e}", dir.display())))?;
    let csv_file = |name: &str| {
        let path = dir.join(name);
        csv::Writer::from_path(&path).with_context(|| format!("writing {}", path.display()))
    };
    let mut w = csv_file("results.csv")?;
    for r in &runs.rows {
        w.serialize(r)?;
    }
    w.flush()?;
    let mut w = csv_file("versus.csv")?;
    for v in versus(&runs.rows) {
        w.serialize(v)?;
    }
    w.flush()?;
    let summary = json!({
        "frugal_version": env!("CARGO_PKG_VERSION"),
        "git_commit": option_env!("FRUGAL_GIT_COMMIT"),
        "command": "bag-of-tasks",
        "configuration": a,
        "traces": runs.traces,
        "machines": a.scale.iter().filter_map(|&s| {
            let b = runs.blocks.iter().find(|b| b.scale == s)?;
            Some(json!({"scale": s, "setup": b.setup}))
        }).collect::<Vec<_>>(),
    });
    let path = dir.join("summary.json");
    std::fs::write(&path, serde_json::to_string_pretty(&summary)? + "\n")
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
