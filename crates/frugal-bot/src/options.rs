//! The options of a bag-of-tasks comparison (`frugal bag-of-tasks`, the `bag-of-tasks`
//! experiments, the Python package's `bag_of_tasks`): typed, parsed with clap from flags
//! (the same words and checks on every face), and run into tidy rows by [`compute`] —
//! trace × scale × task count × α × policy, in parallel, in that order, so the rows do not
//! depend on the thread count. Options are checked and every input read first.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use clap::{Args, Parser, ValueEnum};
use rayon::prelude::*;
use serde::Serialize;

use frugal_core::options::{Usage, number_in};
use frugal_core::progress::Progress;

use crate::bound::{RentBound, rent_lower_bound};
use crate::experiment::Implementation;
use crate::{Bag, BotRow, Policy, RunSpec, Setup, optimal};

/// A bag-of-tasks policy (paper 003).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BotPolicyArg {
    /// First Fit Decreasing (the paper's baseline)
    Ffd,
    /// FFD, then the reassignment algorithm RA
    FfdRa,
    /// The heuristic algorithm HA (least slack first)
    Ha,
    /// HA, then RA
    HaRa,
    /// The exact minimum rent by integer programming (bags of at most 12 tasks)
    Optimal,
}

impl BotPolicyArg {
    /// The library's policy.
    pub fn policy(self) -> Policy {
        match self {
            BotPolicyArg::Ffd => Policy::Ffd,
            BotPolicyArg::FfdRa => Policy::FfdRa,
            BotPolicyArg::Ha => Policy::Ha,
            BotPolicyArg::HaRa => Policy::HaRa,
            BotPolicyArg::Optimal => Policy::Optimal,
        }
    }
}

/// `--implementation`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ImplementationArg {
    /// Ordered-set HA and one-pointer FFD
    Fast,
    /// The paper's all-pairs HA and scanning FFD
    Reference,
}

impl ImplementationArg {
    /// The library's setting.
    pub fn implementation(self) -> Implementation {
        match self {
            ImplementationArg::Fast => Implementation::Fast,
            ImplementationArg::Reference => Implementation::Reference,
        }
    }
}

/// Options of a bag-of-tasks comparison (`frugal bag-of-tasks` adds only how to print and
/// where to write).
#[derive(Args, Debug, Serialize)]
#[command(allow_negative_numbers = true)]
pub struct BagOfTasksOptions {
    /// SWF logs: `nasa` or `kth` (shipped inside frugal) or the path of an SWF file,
    /// plain or gzip (write `./nasa` for a file of that name); `a+b` concatenates the
    /// tasks of logs a and b.
    #[arg(
        long,
        value_name = "nasa|kth|FILE",
        value_delimiter = ',',
        default_value = "nasa"
    )]
    pub trace: Vec<String>,
    /// Deadline factors: each task's deadline is α × its run time on a 2 GHz core.
    #[arg(long, value_delimiter = ',', default_value = "1,2,3,4",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub alpha: Vec<u32>,
    /// Policies to compare.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "ffd,ffd-ra,ha,ha-ra"
    )]
    pub policies: Vec<BotPolicyArg>,
    /// PM scale factors s: s × every PM count (the paper's Fig. 10–11 use 1..10).
    #[arg(long, value_delimiter = ',', default_value = "1",
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub scale: Vec<u32>,
    /// Run on the first N tasks of each log (log order; Fig. 12), for each N listed
    /// [default: all].
    #[arg(long, value_delimiter = ',', conflicts_with = "replicate",
          value_parser = clap::value_parser!(u64).range(1..=50_000_000))]
    pub tasks: Vec<u64>,
    /// Repeat each log until the bag holds N tasks (numbered 1..N), for scale tests.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=50_000_000))]
    pub replicate: Option<u64>,
    /// Machine file (TOML: [[pm]] and [[vm]] entries; format in the book) [default:
    /// the paper's 15 PMs and EC2 c3.large].
    #[arg(long, value_name = "FILE")]
    pub machines: Option<PathBuf>,
    /// Rent of the VM type, dollars per started hour (the machine set must have one
    /// VM type).
    #[arg(long, value_name = "USD", value_parser = number_in(1e-6, 10_000.0))]
    pub vm_usd_per_hour: Option<f64>,
    /// Electricity price for the PMs' energy, dollars per kWh; reported as energy cost
    /// and total cost beside the rent (the paper prices only rent).
    #[arg(long, value_name = "USD", default_value_t = 0.0, value_parser = number_in(0.0, 100.0))]
    pub electricity_usd_per_kwh: f64,
    /// Timed repeats per run for the decision overhead (median, CPU seconds); 0 leaves
    /// overhead_s empty and makes the output byte-reproducible.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub repeats: u32,
    /// Implementation of HA and FFD to run and time: `fast` (O(T·N·log T) HA, linear
    /// FFD) or `reference` (the paper's all-pairs HA and scanning FFD, for the shape of
    /// its CPU-time figures). Both give the same schedules.
    #[arg(long, value_enum, default_value = "fast")]
    pub implementation: ImplementationArg,
}

impl BagOfTasksOptions {
    /// Parses `flags` (without the subcommand word) as `frugal bag-of-tasks` does.
    ///
    /// # Errors
    /// clap's message: an unknown flag, a value out of range, conflicting flags.
    pub fn parse(flags: &[String]) -> Result<BagOfTasksOptions, clap::Error> {
        #[derive(Parser)]
        #[command(name = "bag-of-tasks", allow_negative_numbers = true)]
        struct Flags {
            #[command(flatten)]
            options: BagOfTasksOptions,
        }
        Flags::try_parse_from(
            std::iter::once("bag-of-tasks").chain(flags.iter().map(String::as_str)),
        )
        .map(|f| f.options)
    }
}

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

/// Reads the inputs and executes the runs of `a` on `threads` workers (0: one per core),
/// ticking `progress` (which it tells how many).
///
/// # Errors
/// A message naming the option or input that cannot be used; a policy that cannot
/// schedule a bag.
pub fn compute(a: &BagOfTasksOptions, threads: usize, progress: &dyn Progress) -> Result<Runs> {
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
                None => Setup::from_toml(crate::model::PAPER003, "paper003.toml", scale),
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
                let bytes = std::fs::read(part).with_context(|| {
                    format!("--trace {part}: not `nasa`, `kth` or a readable SWF file")
                });
                (part.to_string(), bytes.map_err(Usage)?)
            }
        };
        let log =
            frugal_traces::swf::read(&bytes, &path).map_err(|e| Usage(anyhow!("--trace: {e}")))?;
        let b = crate::tasks::from_swf(&log).map_err(|e| Usage(anyhow!("--trace {path}: {e}")))?;
        if b.tasks.is_empty() {
            return Err(Usage(anyhow!(
                "--trace {path}: no task: all {} records lack a positive run time or processor count",
                b.records
            ))
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
    a: &BagOfTasksOptions,
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
                    implementation: a.implementation.implementation(),
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
