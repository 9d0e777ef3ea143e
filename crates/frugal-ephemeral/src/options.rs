//! The options of the paper 001 experiments (`frugal ephemeral` and `frugal ephemeral
//! planners`, the `ephemeral` and `ephemeral-planners` experiments, the Python package's
//! `ephemeral`): typed, parsed with clap from flags (the same words and checks on every
//! face), and run into tidy rows by [`compute`] and [`planners`]. Inputs are read and
//! checked first; the runs (data centre × chunk size × margin × start hour × strategy) then
//! execute in parallel and are returned in that order, so the rows do not depend on the
//! thread count.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use clap::{Args, Parser, ValueEnum};
use rayon::prelude::*;
use serde::Serialize;

use frugal_core::options::{Usage, number_in};
use frugal_core::progress::Progress;

use crate::experiment::{self, DcCoverage, EphemeralRow, RunSpec, Workload};
use crate::joint;
use crate::planner::{Effort, MILP_TIME_LIMIT, Planner};
use crate::solvers::{self, SolverRow, SolverSpec};
use crate::{DataCentre, ForecasterKind, Hosts, JobSpec, PrimaryWorkload, Strategy, Utilisation};

/// A data centre of paper 001 (Table II).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
pub enum DcArg {
    /// Private Company 1: 9 hosts, 2,208 GFLOP/s, 1.2 TB
    #[value(name = "pc-1")]
    Pc1,
    /// Private Company 2: 27 hosts, 3,552 GFLOP/s, 3.8 TB
    #[value(name = "pc-2")]
    Pc2,
    /// University: 6 hosts, 1,363 GFLOP/s, 1.5 TB
    University,
}

impl DcArg {
    /// The library's data centre.
    pub fn dc(self) -> DataCentre {
        match self {
            DcArg::Pc1 => DataCentre::Pc1,
            DcArg::Pc2 => DataCentre::Pc2,
            DcArg::University => DataCentre::University,
        }
    }
}

/// A scheduling strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
pub enum StrategyArg {
    /// Cuckoo: weighted round-robin placement with 3 replicas, Hadoop's slot scheduler,
    /// kill on any violation (paper 001 §II-C)
    Cuckoo,
    /// Cuckoo with Salamander's QoS controller (RQ3, Fig. 5)
    #[value(name = "cuckoo-newqos")]
    CuckooNewQos,
    /// Cuckoo as the paper describes it: every heartbeat fills all 20 map and 20 reduce
    /// slots, no load cap (`cuckoo` caps a tracker as Hadoop 1 does)
    CuckooFixedSlots,
    /// Salamander with the plan of Alg. 1 (Random First Fit Decreasing)
    SalamanderRffd,
    /// Salamander with the proven-optimal plan (exact; milliseconds)
    SalamanderExact,
    /// Salamander with the exact construction that also pays for the shuffle over the
    /// hosts' links (per-node caps; milliseconds)
    SalamanderExactNetwork,
    /// Salamander with NSGA-III's plan (--budget)
    SalamanderGa,
    /// Salamander with tabu + late-acceptance local search's plan (--budget)
    SalamanderLs,
}

impl StrategyArg {
    /// Whether the strategy searches (and so takes --budget and --wall-clock-s).
    pub fn searches(self) -> bool {
        matches!(self, StrategyArg::SalamanderGa | StrategyArg::SalamanderLs)
    }

    /// The library's strategy.
    pub fn strategy(self) -> Strategy {
        match self {
            StrategyArg::Cuckoo => Strategy::Cuckoo,
            StrategyArg::CuckooNewQos => Strategy::CuckooNewQos,
            StrategyArg::CuckooFixedSlots => Strategy::CuckooFixedSlots,
            StrategyArg::SalamanderRffd => Strategy::Salamander(Planner::Rffd),
            StrategyArg::SalamanderExact => Strategy::Salamander(Planner::Exact),
            StrategyArg::SalamanderExactNetwork => Strategy::Salamander(Planner::ExactNetwork),
            StrategyArg::SalamanderGa => Strategy::Salamander(Planner::Ga),
            StrategyArg::SalamanderLs => Strategy::Salamander(Planner::Ls),
        }
    }
}

/// A forecaster of the primary workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
pub enum ForecasterArg {
    /// The 0.99 quantile of the same time of day over the past days
    SeasonalQuantile,
    /// Linear quantile regression at 0.99 on the day before and the time of day, fitted
    /// per host and metric on days 1-4 (the paper's forecaster family)
    QuantileRegression,
    /// The actual utilisation (perfect forecasts; an ablation)
    Oracle,
}

impl ForecasterArg {
    /// The library's forecaster.
    pub fn kind(self) -> ForecasterKind {
        match self {
            ForecasterArg::SeasonalQuantile => ForecasterKind::SeasonalQuantile,
            ForecasterArg::QuantileRegression => ForecasterKind::QuantileRegression,
            ForecasterArg::Oracle => ForecasterKind::Oracle,
        }
    }
}

/// A shipped primary workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
pub enum PrimaryWorkloadArg {
    /// CPU and memory of 42 Google cluster jobs (data/ephemeral/utilisation.csv.gz)
    Gcd,
    /// The CPU-stress variant: PlanetLab VMs' CPU, the GCD trace's memory
    /// (data/ephemeral/utilisation-planetlab.csv.gz)
    Planetlab,
}

impl PrimaryWorkloadArg {
    /// The library's workload.
    pub fn workload(self) -> PrimaryWorkload {
        match self {
            PrimaryWorkloadArg::Gcd => PrimaryWorkload::Gcd,
            PrimaryWorkloadArg::Planetlab => PrimaryWorkload::Planetlab,
        }
    }
}

/// Options of the Salamander–Cuckoo comparison (`frugal ephemeral` adds only how to print
/// and where to write).
#[derive(Args, Debug, Serialize)]
#[command(allow_negative_numbers = true)]
pub struct EphemeralOptions {
    /// Data centres.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "university")]
    pub dc: Vec<DcArg>,
    /// Chunk sizes, MiB (the paper: 128 and 256; RAM per task is 3 GiB up to 128 MiB, 4
    /// GiB above).
    #[arg(long, value_delimiter = ',', default_value = "256",
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub chunk_mib: Vec<u32>,
    /// Safety margins S, percent of each host's CPU and RAM.
    #[arg(long, value_delimiter = ',', default_value = "0,5,10,15,20,25,30",
          value_parser = clap::value_parser!(u32).range(0..=99))]
    pub margins: Vec<u32>,
    /// Runs per configuration: the job is submitted at day 5 00:00 + h hours for h = 0 …
    /// N − 1.
    #[arg(long, value_name = "N", default_value_t = 48,
          value_parser = clap::value_parser!(u32).range(1..=48))]
    pub start_hours: u32,
    /// Strategies to compare.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "cuckoo,salamander-rffd,salamander-exact,salamander-exact-network"
    )]
    pub strategies: Vec<StrategyArg>,
    /// Forecasters of the primary workload (each run plans with one; the rows name it).
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "seasonal-quantile"
    )]
    pub forecaster: Vec<ForecasterArg>,
    /// Volatility factors of the primary workload, each in [0, 4]: every host's load
    /// becomes its mean + factor × its deviation from the mean (clipped to [0, 1]); 1 is
    /// the trace as recorded, 0 a constant load, 2 twice every swing.
    #[arg(long, value_delimiter = ',', default_value = "1", value_parser = number_in(0.0, 4.0))]
    pub volatility: Vec<f64>,
    /// Tasks in the job, split 16:1 between maps and reduces [default: 640 maps + 40
    /// reduces].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=100_000))]
    pub tasks: Option<u32>,
    /// Jobs of that shape submitted together at each start hour, every strategy planning
    /// and running all of them on the same hosts (the paper's experiments: 1); job time
    /// is then the mean over the jobs.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=20))]
    pub jobs: u32,
    /// Map output bytes per input byte (the shuffle volume; not stated in the paper).
    #[arg(long, default_value_t = 1.0, value_parser = number_in(0.0, 100.0))]
    pub map_output_ratio: f64,
    /// Simulate the client's upload of the input over its 50 Mbit/s link (one chunk at a
    /// time) instead of starting with every chunk in place.
    #[arg(long)]
    pub upload: bool,
    /// Seconds between extra checks of every host by the run-time controller, in
    /// [0.1, 180] [default: none: it checks when the primary load is injected, every 180 s].
    /// The paper's controller polls every 100 ms.
    #[arg(long, value_name = "S", value_parser = number_in(0.1, 180.0))]
    pub control_step: Option<f64>,
    /// Round plan durations up to a multiple of this many seconds (180 = Table I's
    /// 3-minute grid) [default: 1]. Applies to Salamander strategies only.
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub plan_slot_s: Option<u32>,
    /// Search effort of salamander-ga and salamander-ls: `full` (about 30 s per plan of 680
    /// tasks on one core, the paper's budget), `quick` (about 1 s) or a number of evaluated
    /// candidates. Counted, not timed, so results are reproducible [default: full].
    #[arg(long, value_name = "EFFORT", value_parser = parse_effort)]
    pub budget: Option<Effort>,
    /// Stop salamander-ga and salamander-ls after this many seconds as well (the paper's
    /// 30 s wall-clock limit); results then depend on the machine.
    #[arg(long, value_name = "S", value_parser = number_in(0.001, 86_400.0))]
    pub wall_clock_s: Option<f64>,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Host capacities (CSV `host,dc,configuration,cpu_gflops,ram_gib`) [default: the
    /// shipped data/ephemeral/hosts.csv].
    #[arg(long, value_name = "FILE")]
    pub hosts: Option<PathBuf>,
    /// Which shipped primary workload to replay.
    #[arg(long, value_enum, default_value = "gcd")]
    pub primary_workload: PrimaryWorkloadArg,
    /// Primary-workload utilisation (CSV, plain or gzip, `host,day,sample,cpu_pct,mem_pct`
    /// with 7 days × 288 five-minute samples per host) instead of a shipped one; an error
    /// with --primary-workload.
    #[arg(long, value_name = "FILE", conflicts_with = "primary_workload")]
    pub utilisation: Option<PathBuf>,
}

impl EphemeralOptions {
    /// Parses `flags` (without the subcommand words) as `frugal ephemeral` does.
    ///
    /// # Errors
    /// clap's message: an unknown flag, a value out of range, conflicting flags.
    pub fn parse(flags: &[String]) -> Result<EphemeralOptions, clap::Error> {
        #[derive(Parser)]
        #[command(name = "ephemeral", allow_negative_numbers = true)]
        struct Flags {
            #[command(flatten)]
            options: EphemeralOptions,
        }
        Flags::try_parse_from(std::iter::once("ephemeral").chain(flags.iter().map(String::as_str)))
            .map(|f| f.options)
    }
}

impl PlannersOptions {
    /// Parses `flags` (without the subcommand words) as `frugal ephemeral planners` does.
    ///
    /// # Errors
    /// clap's message: an unknown flag, a value out of range, conflicting flags.
    pub fn parse(flags: &[String]) -> Result<PlannersOptions, clap::Error> {
        #[derive(Parser)]
        #[command(name = "planners")]
        struct Flags {
            #[command(flatten)]
            options: PlannersOptions,
        }
        Flags::try_parse_from(std::iter::once("planners").chain(flags.iter().map(String::as_str)))
            .map(|f| f.options)
    }
}

/// Parses `full`, `quick` or a positive number of evaluations.
pub fn parse_effort(s: &str) -> Result<Effort, String> {
    match s {
        "full" => Ok(Effort::Full),
        "quick" => Ok(Effort::Quick),
        n => match n.parse::<u64>() {
            Ok(0) | Err(_) => Err(format!(
                "expected full, quick or a positive number of evaluations, got {n:?}"
            )),
            Ok(n) => Ok(Effort::Evaluations(n)),
        },
    }
}

/// A planner of Salamander's holistic scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
pub enum PlannerArg {
    /// Random First Fit Decreasing (Alg. 1)
    Rffd,
    /// The proven optimum
    Exact,
    /// The exact construction with the shuffle's cost (per-node caps)
    ExactNetwork,
    /// NSGA-III
    Ga,
    /// Tabu + late-acceptance local search
    Ls,
    /// The joint optimum by a MILP (HiGHS: needs a build with --features highs, and
    /// --plan-slot-s a multiple of 60)
    Milp,
    /// The same MILP from scratch: no starting plan, no stop at the construction's bound
    /// (as the paper ran its CP solver)
    MilpCold,
}

impl PlannerArg {
    /// The library's planner.
    pub fn planner(self) -> Planner {
        match self {
            PlannerArg::Rffd => Planner::Rffd,
            PlannerArg::Exact => Planner::Exact,
            PlannerArg::ExactNetwork => Planner::ExactNetwork,
            PlannerArg::Ga => Planner::Ga,
            PlannerArg::Ls => Planner::Ls,
            PlannerArg::Milp => Planner::Milp,
            PlannerArg::MilpCold => Planner::MilpCold,
        }
    }
}

/// When the metaheuristics stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
pub enum StopArg {
    /// After LS 1,000 steps or GA 50 generations without a better plan, or at the budget
    /// (paper 001 spec A14)
    Patience,
    /// At the budget only
    Budget,
}

/// Options of the planners' comparison (`frugal ephemeral planners` adds only how to
/// print).
#[derive(Args, Debug, Serialize)]
pub struct PlannersOptions {
    /// Data centre (the paper shows PC-1).
    #[arg(long, value_enum, default_value = "pc-1")]
    pub dc: DcArg,
    /// Problem sizes: tasks planned (over --jobs jobs), 16 maps per reduce.
    #[arg(long, value_delimiter = ',', default_value = "500,1000,1500,2000,2500",
          value_parser = clap::value_parser!(u32).range(2..=100_000))]
    pub tasks: Vec<u32>,
    /// Jobs per problem: each size is split into this many equal jobs (the paper: 1).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=20))]
    pub jobs: u32,
    /// Planners to compare.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "rffd,exact,ga,ls"
    )]
    pub planners: Vec<PlannerArg>,
    /// Metaheuristics' effort: full, quick or a number of evaluations [default: full].
    #[arg(long, value_name = "EFFORT", value_parser = parse_effort)]
    pub budget: Option<Effort>,
    /// Stop rule of the metaheuristics [default: patience].
    #[arg(long, value_enum)]
    pub stop: Option<StopArg>,
    /// Plan durations are rounded up to a multiple of this many seconds (the milp planner
    /// needs a multiple of 60; Table I's grid is 180).
    #[arg(long, value_name = "S", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub plan_slot_s: u32,
    /// The milp planner's time limit, seconds, per problem [default: 60].
    #[arg(long, value_name = "S", value_parser = number_in(1.0, 86_400.0))]
    pub milp_time_limit_s: Option<f64>,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The runs of a comparison (data centre × chunk size × margin × start hour × strategy)
/// and the forecasts' coverage per data centre.
pub struct Runs {
    /// Each run's tidy row.
    pub rows: Vec<EphemeralRow>,
    /// The forecasts' coverage per data centre.
    pub coverage: Vec<DcCoverage>,
}

/// Writes a comparison's files into `dir` (created if missing), as `frugal ephemeral --out`
/// does: `runs.csv` (one row per run), `cells.csv` (medians per cell), `improvements.csv`
/// (the paper's comparisons) and `summary.json` (version, commit, the options as given and
/// the forecasts' coverage).
///
/// # Errors
/// Any I/O error, with the path that failed.
pub fn write_out(dir: &Path, a: &EphemeralOptions, runs: &Runs) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    fn write<T: Serialize>(path: &Path, items: &[T]) -> Result<()> {
        let mut w =
            csv::Writer::from_path(path).with_context(|| format!("writing {}", path.display()))?;
        items.iter().try_for_each(|i| w.serialize(i))?;
        w.flush()?;
        Ok(())
    }
    let cells = crate::summary::cells(&runs.rows);
    write(&dir.join("runs.csv"), &runs.rows)?;
    write(&dir.join("cells.csv"), &cells)?;
    write(
        &dir.join("improvements.csv"),
        &crate::summary::improvements(&cells),
    )?;
    let summary = serde_json::json!({
        "frugal_version": env!("CARGO_PKG_VERSION"),
        "git_commit": option_env!("FRUGAL_GIT_COMMIT"),
        "command": "ephemeral",
        "configuration": a,
        "forecast_coverage": &runs.coverage,
    });
    let path = dir.join("summary.json");
    std::fs::write(&path, serde_json::to_string_pretty(&summary)? + "\n")
        .with_context(|| format!("writing {}", path.display()))
}

/// Reads the inputs and executes the runs of `a` on `threads` workers (0: one per core),
/// ticking `progress` (which it tells how many).
///
/// # Errors
/// [`Usage`] for flags that cannot apply or input files that cannot be used.
pub fn compute(a: &EphemeralOptions, threads: usize, progress: &dyn Progress) -> Result<Runs> {
    check_flags(a)?;
    let hosts = match &a.hosts {
        None => Hosts::embedded(),
        Some(p) => {
            let f = std::fs::File::open(p)
                .with_context(|| format!("--hosts {}", p.display()))
                .map_err(Usage)?;
            Hosts::parse(f, &p.display().to_string()).map_err(|e| Usage(anyhow!("--hosts: {e}")))?
        }
    };
    let util = match &a.utilisation {
        None => Utilisation::shipped(a.primary_workload.workload()),
        Some(p) => read_utilisation(p, hosts.0.len())?,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the worker threads")?;
    let kinds: Vec<ForecasterKind> = a.forecaster.iter().map(|f| f.kind()).collect();
    let dc_host_ids: Vec<usize> =
        a.dc.iter()
            .flat_map(|dc| hosts.of(dc.dc()))
            .map(|h| h.host)
            .collect();
    // One scaled workload per factor, its forecasters fitted once and shared by its runs.
    let workloads: Vec<Workload> = pool.install(|| {
        a.volatility
            .par_iter()
            .map(|&v| Workload::new(&util, v, &dc_host_ids, &kinds))
            .collect::<Result<_>>()
    })?;
    let mut specs = Vec::new();
    let mut workload_of = Vec::new();
    for (w, &volatility) in a.volatility.iter().enumerate() {
        for dc in &a.dc {
            for &chunk in &a.chunk_mib {
                let mut job = JobSpec::paper(chunk);
                job.map_output_ratio = a.map_output_ratio;
                if let Some(n) = a.tasks {
                    job = job.with_tasks(n as usize);
                }
                for &margin in &a.margins {
                    for h in 0..a.start_hours {
                        for &forecaster in &kinds {
                            for s in &a.strategies {
                                specs.push(RunSpec {
                                    dc: dc.dc(),
                                    job,
                                    jobs: a.jobs as usize,
                                    margin_pct: margin,
                                    start_hour: h,
                                    strategy: s.strategy(),
                                    forecaster,
                                    volatility,
                                    upload: a.upload,
                                    control_step_s: a.control_step,
                                    plan_slot_s: a.plan_slot_s.unwrap_or(1),
                                    effort: a.budget.unwrap_or(Effort::Full),
                                    wall_clock: a.wall_clock_s.map(Duration::from_secs_f64),
                                    seed: a.seed,
                                });
                                workload_of.push(w);
                            }
                        }
                    }
                }
            }
        }
    }
    progress.add(specs.len());
    let rows: Vec<EphemeralRow> = pool.install(|| {
        specs
            .par_iter()
            .zip(&workload_of)
            .map(|(s, &w)| {
                let row = experiment::run(s, &hosts, &workloads[w]);
                progress.tick();
                row
            })
            .collect()
    });
    let mut coverage = Vec::new();
    for workload in &workloads {
        for dc in &a.dc {
            for &kind in &kinds {
                coverage.push(experiment::coverage(
                    dc.dc(),
                    &hosts,
                    workload,
                    kind,
                    a.start_hours,
                ));
            }
        }
    }
    Ok(Runs { rows, coverage })
}

/// Refuses flags that cannot apply to the run asked for.
fn check_flags(a: &EphemeralOptions) -> Result<()> {
    let planned = a
        .strategies
        .iter()
        .any(|s| matches!(s.strategy(), Strategy::Salamander(_)));
    if a.plan_slot_s.is_some() && !planned {
        return Err(Usage(anyhow!(
            "--plan-slot-s applies to Salamander's plans; --strategies has no salamander-* \
             strategy"
        ))
        .into());
    }
    let searches = a.strategies.iter().any(|s| s.searches());
    for (flag, given) in [
        ("--budget", a.budget.is_some()),
        ("--wall-clock-s", a.wall_clock_s.is_some()),
    ] {
        if given && !searches {
            return Err(Usage(anyhow!(
                "{flag} applies to salamander-ga and salamander-ls; --strategies has neither"
            ))
            .into());
        }
    }
    Ok(())
}

/// Reads `--utilisation`, gunzipping it when it starts with the gzip magic number.
fn read_utilisation(p: &Path, hosts: usize) -> Result<Utilisation> {
    let bytes = std::fs::read(p)
        .with_context(|| format!("--utilisation {}", p.display()))
        .map_err(Usage)?;
    let name = p.display().to_string();
    let text: Box<dyn Read> = if bytes.starts_with(&[0x1f, 0x8b]) {
        Box::new(flate2::read::GzDecoder::new(bytes.as_slice()))
    } else {
        Box::new(bytes.as_slice())
    };
    Ok(Utilisation::parse(text, &name, hosts).map_err(|e| Usage(anyhow!("--utilisation: {e}")))?)
}

/// Solves the problems of `a` with each planner: one row per (tasks, planner).
///
/// # Errors
/// [`Usage`] for --budget or --stop without ga or ls among --planners.
pub fn planners(a: &PlannersOptions) -> Result<Vec<SolverRow>> {
    let searches = a
        .planners
        .iter()
        .any(|p| matches!(p, PlannerArg::Ga | PlannerArg::Ls));
    for (flag, given) in [
        ("--budget", a.budget.is_some()),
        ("--stop", a.stop.is_some()),
    ] {
        if given && !searches {
            return Err(Usage(anyhow!(
                "{flag} applies to the ga and ls planners; --planners has neither"
            ))
            .into());
        }
    }
    let milp = a.planners.contains(&PlannerArg::Milp) || a.planners.contains(&PlannerArg::MilpCold);
    if a.milp_time_limit_s.is_some() && !milp {
        return Err(Usage(anyhow!(
            "--milp-time-limit-s applies to the milp planner; --planners has none"
        ))
        .into());
    }
    if milp && !cfg!(feature = "highs") {
        return Err(Usage(anyhow!(
            "--planners milp needs HiGHS: build frugal with --features highs (microlp, the \
             solver built in, has no time limit and stalls on these sizes)"
        ))
        .into());
    }
    if milp && !a.plan_slot_s.is_multiple_of(joint::GRID_S) {
        return Err(Usage(anyhow!(
            "--planners milp plans on a {}-s grid: --plan-slot-s {} is not a multiple of it \
             (try 60, or Table I's 180)",
            joint::GRID_S,
            a.plan_slot_s
        ))
        .into());
    }
    let spec = SolverSpec {
        dc: a.dc.dc(),
        tasks: a.tasks.iter().map(|&n| n as usize).collect(),
        jobs: a.jobs as usize,
        planners: a.planners.iter().map(|p| p.planner()).collect(),
        effort: a.budget.unwrap_or(Effort::Full),
        patience: a.stop.unwrap_or(StopArg::Patience) == StopArg::Patience,
        plan_slot_s: a.plan_slot_s,
        milp_time_limit: a
            .milp_time_limit_s
            .map_or(MILP_TIME_LIMIT, Duration::from_secs_f64),
        seed: a.seed,
    };
    Ok(solvers::compare(
        &spec,
        &Hosts::embedded(),
        &Utilisation::embedded(),
    ))
}
