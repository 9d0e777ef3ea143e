//! `frugal bag-of-tasks`: paper 003's comparison — HA, RA and FFD on bags of tasks from
//! SWF logs, on a hybrid cloud of free local PMs and VMs rented by the started hour.
//!
//! Options are checked and every input read first, so misuse fails before any run; the
//! runs (trace × scale × task count × α × policy) then execute in parallel and are
//! printed in that order, so the output does not depend on the thread count.

mod args;
mod table;

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::json;

use frugal_bot::bound::{RentBound, rent_lower_bound};
use frugal_bot::compare::{PAPER_CLAIMS, versus};
use frugal_bot::{Bag, BotRow, Policy, RunSpec, Setup, optimal};

pub use args::BagOfTasksArgs;

use crate::Usage;
use crate::choices::FormatArg;
use crate::progress::Progress;

/// A log turned into a bag, with what Table 2 reports about it.
#[derive(Serialize)]
struct Trace {
    /// `nasa`, `kth`, the file name, or such names joined by `+`.
    name: String,
    /// The logs read.
    files: Vec<Source>,
    records: usize,
    dropped_run_time: usize,
    dropped_processors: usize,
    tasks: usize,
    /// Tasks with work < 3,600 GHz·s, and ≤ (the paper's "short"), percent.
    short_lt_1h_pct: f64,
    short_le_1h_pct: f64,
    #[serde(skip)]
    bag: Bag,
}

/// A log file read, for provenance.
#[derive(Serialize)]
struct Source {
    /// The archive's file name for a shipped log, else the path given.
    path: String,
    sha256: String,
}

/// One block of the output: a bag on one machine set.
struct Block {
    trace: usize,
    scale: u32,
    tasks: usize,
    setup: Setup,
}

/// One run: a block, an α and a policy.
struct Key {
    block: usize,
    alpha: u32,
    policy: Policy,
}

/// The runs of a comparison, in order: trace × scale × task count × α × policy.
pub struct Runs {
    traces: Vec<Trace>,
    blocks: Vec<Block>,
    /// Each run's tidy row.
    pub rows: Vec<BotRow>,
}

/// Runs the comparison and prints it.
///
/// # Errors
/// [`Usage`] for options or inputs that cannot be used; a policy that cannot schedule a
/// bag; I/O errors writing the output.
pub fn run(a: &BagOfTasksArgs) -> Result<()> {
    let progress = Progress::new(0);
    let Runs {
        traces,
        blocks,
        rows,
    } = compute(a, &progress)?;
    progress.finish();
    if let Some(dir) = &a.out {
        write_out(dir, a, &traces, &blocks, &rows)?;
    }
    print(a, &traces, &blocks, &rows)
}

/// Reads the inputs and executes the runs of `a`, ticking `progress` (which it tells how
/// many).
///
/// # Errors
/// [`Usage`] for options or inputs that cannot be used; a policy that cannot schedule a
/// bag.
pub fn compute(a: &BagOfTasksArgs, progress: &Progress) -> Result<Runs> {
    let traces = a
        .trace
        .iter()
        .map(|t| load(t, a.replicate))
        .collect::<Result<Vec<_>>>()?;
    let machines_file = match &a.machines {
        Some(p) => Some((
            p,
            std::fs::read_to_string(p)
                .with_context(|| format!("--machines {}", p.display()))
                .map_err(Usage)?,
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
                return Err(Usage(anyhow!(
                    "--tasks {n}: the {} log has {} tasks (use --replicate for larger bags)",
                    trace.name,
                    trace.bag.tasks.len()
                ))
                .into());
            }
        }
        for &scale in &a.scale {
            let mut setup = match &machines_file {
                Some((p, text)) => Setup::from_toml(text, &p.display().to_string(), scale),
                None => Setup::from_toml(frugal_bot::model::PAPER003, "paper003.toml", scale),
            }
            .map_err(|e| Usage(anyhow!("--machines: {e}")))?;
            if let Some(price) = a.vm_usd_per_hour {
                match setup.vm_types.as_mut_slice() {
                    [vm] => vm.price_per_hour = Some(price),
                    types => {
                        return Err(Usage(anyhow!(
                            "--vm-usd-per-hour applies to a machine set with one VM type; this \
                             one has {}",
                            types.len()
                        ))
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
    let policies: Vec<Policy> = a.policies.iter().map(|p| p.policy()).collect();
    if policies.contains(&Policy::Optimal)
        && let Some(b) = blocks.iter().find(|b| b.tasks > optimal::MAX_TASKS)
    {
        return Err(Usage(anyhow!(
            "--policies optimal solves bags of at most {} tasks exactly; the {} bag has {} \
             (choose them with --tasks)",
            optimal::MAX_TASKS,
            traces[b.trace].name,
            b.tasks
        ))
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
    let rows = execute(a, &traces, &blocks, &keys, progress)?;
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
                let bytes = std::fs::read(part).with_context(|| {
                    format!("--trace {part}: not `nasa`, `kth` or a readable SWF file")
                });
                (part.to_string(), bytes.map_err(Usage)?)
            }
        };
        let log =
            frugal_traces::swf::read(&bytes, &path).map_err(|e| Usage(anyhow!("--trace: {e}")))?;
        let b =
            frugal_bot::tasks::from_swf(&log).map_err(|e| Usage(anyhow!("--trace {path}: {e}")))?;
        if b.tasks.is_empty() {
            return Err(Usage(anyhow!(
                "--trace {path}: no task: all {} records lack a positive run time or processor count",
                b.records
            ))
            .into());
        }
        files.push(Source {
            sha256: crate::simulate::sha256_hex(&bytes),
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
    let mut bag = bag.ok_or_else(|| Usage(anyhow!("--trace: empty")))?;
    if let Some(n) = replicate {
        bag = bag
            .replicated(n as usize)
            .map_err(|e| Usage(anyhow!("--replicate: {e}")))?;
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
    a: &BagOfTasksArgs,
    traces: &[Trace],
    blocks: &[Block],
    keys: &[Key],
    progress: &Progress,
) -> Result<Vec<BotRow>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(usize::from(a.threads))
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
                    implementation: a.implementation.implementation(),
                    usd_per_kwh: a.electricity_usd_per_kwh,
                };
                let alpha_index = a.alpha.iter().position(|&x| x == k.alpha).unwrap_or(0);
                let row = frugal_bot::run(
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
fn describe(setup: &Setup, scale: u32) -> String {
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

fn print(a: &BagOfTasksArgs, traces: &[Trace], blocks: &[Block], rows: &[BotRow]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match a.format {
        FormatArg::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            for row in rows {
                w.serialize(row).map_err(std::io::Error::from)?;
            }
            w.flush()?;
            return Ok(());
        }
        FormatArg::Json => {
            writeln!(out, "{}", serde_json::to_string_pretty(rows)?)?;
            return Ok(());
        }
        FormatArg::Table | FormatArg::Markdown => {}
    }
    let md = a.format == FormatArg::Markdown;
    writeln!(
        out,
        "Bags of tasks on a hybrid cloud (paper 003): each task's deadline is α × its run time on \
         a 2 GHz core; rent is the cost, PMs are free; gap = rent above a lower bound on any \
         schedule's rent."
    )?;
    let per_block = rows.len() / blocks.len().max(1);
    for (b, block) in blocks.iter().enumerate() {
        let t = &traces[block.trace];
        writeln!(
            out,
            "\n{}: {} of {} tasks ({} records; dropped {} without run time, {} without processors; \
             {:.2} % shorter than 1 h of a 1 GHz core)\n{}",
            t.name,
            block.tasks,
            t.tasks,
            t.records,
            t.dropped_run_time,
            t.dropped_processors,
            t.short_lt_1h_pct,
            describe(&block.setup, block.scale)
        )?;
        let block_rows = &rows[b * per_block..(b + 1) * per_block];
        writeln!(out, "{}", table::runs(block_rows, a.wide, md))?;
        let vs = versus(block_rows);
        if vs
            .iter()
            .any(|v| v.ha_rent_saving_pct.is_some() || v.ra_makespan_cut_ha_pct.is_some())
        {
            writeln!(
                out,
                "\nHA against FFD, and what RA changes (paper 003 §4.2–4.3):"
            )?;
            writeln!(out, "{}", table::versus(&vs, md))?;
        }
    }
    if rows.iter().any(|r| r.policy == "ha") && rows.iter().any(|r| r.policy == "ffd") {
        writeln!(
            out,
            "\nThe paper (NASA and UniLu Gaia logs, α = 1..4; it prints no absolute values):"
        )?;
        for (claim, text) in PAPER_CLAIMS {
            writeln!(out, "  {claim}: {text}")?;
        }
    }
    Ok(())
}

fn write_out(
    dir: &Path,
    a: &BagOfTasksArgs,
    traces: &[Trace],
    blocks: &[Block],
    rows: &[BotRow],
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("--out {}", dir.display()))?;
    let csv_file = |name: &str| {
        let path = dir.join(name);
        csv::Writer::from_path(&path).with_context(|| format!("writing {}", path.display()))
    };
    let mut w = csv_file("results.csv")?;
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    let mut w = csv_file("versus.csv")?;
    for v in versus(rows) {
        w.serialize(v)?;
    }
    w.flush()?;
    let summary = json!({
        "frugal_version": env!("CARGO_PKG_VERSION"),
        "git_commit": option_env!("FRUGAL_GIT_COMMIT"),
        "command": "bag-of-tasks",
        "configuration": a,
        "traces": traces,
        "machines": a.scale.iter().filter_map(|&s| {
            let b = blocks.iter().find(|b| b.scale == s)?;
            Some(json!({"scale": s, "setup": b.setup}))
        }).collect::<Vec<_>>(),
    });
    let path = dir.join("summary.json");
    std::fs::write(&path, serde_json::to_string_pretty(&summary)? + "\n")
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}
