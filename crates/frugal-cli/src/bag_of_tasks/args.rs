//! The options of `frugal bag-of-tasks`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde::Serialize;

use frugal_bot::Policy;
use frugal_bot::experiment::Implementation;

use crate::choices::{FormatArg, number_in};

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

/// Options of `frugal bag-of-tasks`.
#[derive(Args, Debug, Serialize)]
#[command(allow_negative_numbers = true)]
pub struct BagOfTasksArgs {
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
    /// Machine file (TOML: [[pm]] and [[vm]] entries; format in the README) [default:
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
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
    /// Table format: show every column (the default fits 120 columns).
    #[arg(long)]
    pub wide: bool,
    /// Worker threads (0: one per core). Any count gives the same rows; overhead is
    /// CPU time of the scheduling thread, but cores shared with other runs make it
    /// noisier — use 1 to measure it.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u16))]
    #[serde(skip)]
    pub threads: u16,
    /// Write DIR/results.csv (one row per run), DIR/versus.csv (HA against FFD and the
    /// effect of RA) and DIR/summary.json (provenance, machines, the bags' statistics).
    #[arg(long, value_name = "DIR")]
    #[serde(skip)]
    pub out: Option<PathBuf>,
}
