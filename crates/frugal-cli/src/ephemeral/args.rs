//! The options of `frugal ephemeral`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;

use frugal_ephemeral::planner::{Effort, Planner};
use frugal_ephemeral::{DataCentre, ForecasterKind, PrimaryWorkload, Strategy};

use super::planners::PlannersArgs;
use crate::choices::{FormatArg, number_in};

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
    /// Salamander with the plan of Alg. 1 (Random First Fit Decreasing)
    SalamanderRffd,
    /// Salamander with the proven-optimal plan (exact; milliseconds)
    SalamanderExact,
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
            StrategyArg::SalamanderRffd => Strategy::Salamander(Planner::Rffd),
            StrategyArg::SalamanderExact => Strategy::Salamander(Planner::Exact),
            StrategyArg::SalamanderGa => Strategy::Salamander(Planner::Ga),
            StrategyArg::SalamanderLs => Strategy::Salamander(Planner::Ls),
        }
    }
}

/// A forecaster of the primary workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
pub enum ForecasterArg {
    /// The 0.99 quantile of the same time of day over the past days (frugal's stand-in
    /// for the paper's quantile regression)
    SeasonalQuantile,
    /// The actual utilisation (perfect forecasts; an ablation)
    Oracle,
}

impl ForecasterArg {
    /// The library's forecaster.
    pub fn kind(self) -> ForecasterKind {
        match self {
            ForecasterArg::SeasonalQuantile => ForecasterKind::SeasonalQuantile,
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

/// A sub-command of `frugal ephemeral`.
#[derive(Subcommand, Debug, Serialize)]
pub enum EphemeralCommand {
    /// Solving time and plan makespan of the planners against the number of tasks
    /// (paper 001 RQ2, Fig. 4)
    Planners(PlannersArgs),
}

/// Options of `frugal ephemeral`.
#[derive(Args, Debug, Serialize)]
#[command(allow_negative_numbers = true, args_conflicts_with_subcommands = true)]
pub struct EphemeralArgs {
    /// Another experiment instead of the comparison.
    #[command(subcommand)]
    #[serde(skip)]
    pub command: Option<EphemeralCommand>,
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
        default_value = "cuckoo,salamander-rffd,salamander-exact"
    )]
    pub strategies: Vec<StrategyArg>,
    /// Forecaster of the primary workload.
    #[arg(long, value_enum, default_value = "seasonal-quantile")]
    pub forecaster: ForecasterArg,
    /// Tasks in the job, split 16:1 between maps and reduces [default: 640 maps + 40
    /// reduces].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..=100_000))]
    pub tasks: Option<u32>,
    /// Map output bytes per input byte (the shuffle volume; not stated in the paper).
    #[arg(long, default_value_t = 1.0, value_parser = number_in(0.0, 100.0))]
    pub map_output_ratio: f64,
    /// Simulate the client's upload of the input over its 50 Mbit/s link (one chunk at a
    /// time) instead of starting with every chunk in place.
    #[arg(long)]
    pub upload: bool,
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
    /// With --format csv or json (an error with the tables): one row per run instead of one per (data centre, chunk
    /// size, margin, strategy).
    #[arg(long)]
    pub per_run: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
    /// Worker threads (0: one per core). Any count gives the same rows.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16))]
    #[serde(skip)]
    pub threads: u16,
    /// Write DIR/runs.csv (one row per run), DIR/cells.csv (statistics per data centre,
    /// chunk size, margin and strategy), DIR/improvements.csv (against Cuckoo, beside the
    /// paper) and DIR/summary.json (configuration, forecast coverage).
    #[arg(long, value_name = "DIR")]
    #[serde(skip)]
    pub out: Option<PathBuf>,
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
