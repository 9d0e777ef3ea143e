//! The options of a policy comparison (`frugal simulate`, the `simulate` experiments, the
//! Python package's `simulate`): typed, parsed with clap from flags (the same words and
//! checks on every face), checked into a [`Plan`] before anything runs, and run into
//! tidy rows by [`compute`].

pub mod choices;
mod plan;
mod run;

use frugal_core::PolicySpec;
use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, ValueEnum};
use serde::Serialize;

pub use plan::{Input, MILP_DEFAULT_MAX_VMS, Plan, Workload, plan, sha256_hex};
pub use run::{Runs, aggregate, compute, slug, write_out};

use choices::{
    ApplicationArg, BackfillArg, BillingArg, ClusterParser, ClusterSource, HybridRuleArg,
    MilpBackendArg, PolicyParser, PricingArg, QueueArg, ReadingArg, number_in,
};

/// Load levels of the default SWIM replay and of the synthetic generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LoadArg {
    /// Trace: first 50 jobs of hour 0; synthetic: mean gap 100 s (paper 000 §6.1)
    Light,
    /// Trace: first 100 jobs of hour 6; synthetic: mean gap 5 s
    High,
    /// Both, one table each
    Both,
}

/// Arrival pattern of paper 002 §7.1 (`--paper002`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PatternArg {
    /// 50 jobs: the arrivals of FB-2009 hour 0's first 50 jobs (46 min)
    Normal,
    /// 100 jobs: the arrivals of FB-2009 hour 6's first 100 jobs (9 min)
    Burst,
}

/// `--hour`: one hour of the trace or the whole day.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HourArg {
    /// Hour 0–23.
    Hour(u32),
    /// The whole day (replayed day after day when `--jobs` asks for more).
    Day,
}

fn parse_hour(s: &str) -> Result<HourArg, String> {
    match s {
        "day" => Ok(HourArg::Day),
        _ => match s.parse::<u32>() {
            Ok(h) if h < 24 => Ok(HourArg::Hour(h)),
            _ => Err(format!("expected an hour 0–23 or `day`, got {s:?}")),
        },
    }
}

/// Largest workload `--jobs` accepts.
pub const MAX_JOBS: usize = 10_000_000;

/// Options of a policy comparison (`frugal simulate` adds only how to print and where to
/// write).
#[derive(Args, Debug, Serialize)]
#[command(allow_negative_numbers = true)]
#[command(group(ArgGroup::new("job_count_source").args(["hour", "synthetic", "swf", "alibaba"]).multiple(true)))]
pub struct SimulateOptions {
    /// Cluster: a preset or a TOML file (format in the README).
    #[arg(long, value_name = "PRESET|FILE", default_value = "small-hybrid", value_parser = ClusterParser)]
    pub cluster: ClusterSource,
    /// The K-fold cluster: every VM group of the preset or file K times (same types,
    /// sites and prices; at most 1,000,000 VMs). With --job-copies K the load per VM stays
    /// that of the original pair.
    #[arg(long, value_name = "K", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub cluster_scale: u32,
    /// K copies of every job at its arrival (ids `x#1`, `x#2`, …): the K-fold arrival rate,
    /// for scaled clusters. Jobs in all at most 10,000,000.
    #[arg(long, value_name = "K", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub job_copies: u32,
    /// Pricing model of the hybrid presets (paper 000 Table 3) [default: 1].
    #[arg(long, value_enum)]
    pub pricing: Option<PricingArg>,
    /// Billing granularity; overrides the cluster's.
    #[arg(long, value_enum)]
    pub billing: Option<BillingArg>,
    /// Load level(s) of the default trace replay or of --synthetic.
    #[arg(long, value_enum, default_value = "both", conflicts_with_all = ["hour", "jobs_csv"])]
    pub load: LoadArg,
    /// SWIM trace file (TSV) instead of the embedded FB-2009 day.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Replay this hour (0–23) or `day` of the trace instead of the --load hours.
    #[arg(long, value_parser = parse_hour)]
    pub hour: Option<HourArg>,
    /// With --hour: the first N jobs (default: all; with `day`, more than the day holds
    /// replays it day after day); with --synthetic: N jobs (default 1000); with --swf:
    /// the first N jobs (default: all).
    #[arg(long, value_name = "N", requires = "job_count_source",
          value_parser = clap::value_parser!(u64).range(1..=MAX_JOBS as u64))]
    pub jobs: Option<u64>,
    /// The synthetic workload of paper 000 §6.1 at the --load level(s).
    #[arg(long, conflicts_with_all = ["trace", "hour", "jobs_csv"])]
    pub synthetic: bool,
    /// Which reading of paper 000 §6.1 --synthetic follows: the paper's text or the
    /// workloads the authors published with their simulator (RM-Simulator); they differ in
    /// arrival gaps, deadline slack and memory (model chapter).
    #[arg(long, value_enum, default_value = "paper-text", requires = "synthetic")]
    pub synthetic_reading: ReadingArg,
    /// An SWF log instead of the SWIM trace: `nasa` or `kth` (shipped) or an SWF file,
    /// plain or gzip; each record becomes a job of one 1-core executor per processor
    /// (mapping in the README). With --jobs: the first N jobs.
    #[arg(long, value_name = "nasa|kth|FILE", conflicts_with_all = ["trace", "hour", "jobs_csv", "synthetic", "load"])]
    pub swf: Option<String>,
    /// The Alibaba GPU cluster trace of 2023 instead of the SWIM trace: `default` (the
    /// shipped task list) or a task-list CSV, plain or gzip; each scheduled task becomes a
    /// job of one executor with its CPU (rounded up to whole cores), memory and GPUs
    /// (mapping in the README). Its cluster is `--cluster alibaba-gpu-2023`. With --jobs:
    /// the first N tasks.
    #[arg(long, value_name = "default|FILE", conflicts_with_all = ["trace", "hour", "jobs_csv", "synthetic", "load", "swf"])]
    pub alibaba: Option<String>,
    /// Paper 002 §7.1's generated jobs instead of the trace's: `normal` (50 jobs) or
    /// `burst` (100 jobs) at the arrivals of FB-2009 hour 0 or 6 (`--hour` picks another
    /// hour), uniform kinds, executor sizes and counts, drawn with each run's seed (mapping
    /// in the README).
    #[arg(long, value_enum, value_name = "PATTERN", conflicts_with_all = ["trace", "jobs_csv", "synthetic", "load", "swf", "alibaba", "jobs"])]
    pub paper002: Option<PatternArg>,
    /// Jobs from a CSV file (format in the README) instead of a trace.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["trace", "hour"])]
    pub jobs_csv: Option<PathBuf>,
    /// VM losses and refused power-ons every run suffers: a CSV `time_s,vm,event` (event
    /// `lost` or `refused`), as the service can suffer them.
    #[arg(long, value_name = "FILE")]
    pub vm_events: Option<PathBuf>,
    /// Comma-separated policies [default: every built-in one].
    #[arg(long, value_delimiter = ',', value_parser = PolicyParser)]
    pub policies: Option<Vec<PolicySpec>>,
    /// Simulations the `offline` search may run per workload and repetition, in
    /// [1, 10,000,000] [default: 20,000].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub offline_budget: Option<u64>,
    /// Policy the "vs" column compares with; run as well if not among --policies.
    #[arg(long, default_value = "round-robin", value_parser = PolicyParser)]
    pub baseline: PolicySpec,
    /// Queue discipline for every policy [default: each policy's published one].
    #[arg(long, value_enum)]
    pub queue: Option<QueueArg>,
    /// Drop jobs predicted to miss their deadline (paper 000 Eq. 15).
    #[arg(long)]
    pub admission_control: bool,
    /// Behind a head job that cannot be placed (FCFS, EDF, deadline-first's deadline
    /// queue): block (the papers') or EASY backfilling.
    #[arg(long, value_enum, default_value = "none")]
    pub backfill: BackfillArg,
    /// RUT alpha, the CPU weight of best-fit-decreasing and the deadline-first queue
    /// (paper 004 Eq. 5), in [0, 1]; beta = 1 − alpha [default: 0.8].
    #[arg(long, value_parser = number_in(0.0, 1.0))]
    pub alpha: Option<f64>,
    /// Slowdown of a job placed across sites, T_C^H = (1 + p)·T_C^L, for trace and
    /// synthetic jobs and CSV rows without t_hybrid_s, in [0, 100] [default: 0.3].
    #[arg(long, value_parser = number_in(0.0, 100.0))]
    pub hybrid_penalty: Option<f64>,
    /// Which placements run at T_C^H.
    #[arg(long, value_enum, default_value = "any-remote")]
    pub hybrid_rule: HybridRuleArg,
    /// Slowdown of a placement against the job kind's spread/consolidate preference
    /// (paper 002 §7.1), in [0, 100].
    #[arg(long, default_value_t = 0.3, value_parser = number_in(0.0, 100.0))]
    pub kind_penalty: f64,
    /// Which reading of the policies whose paper text and authors' code differ:
    /// round-robin, round-robin-consolidate, first-fit, gio, asq and milp (paper 000's
    /// authors' simulator), best-fit-decreasing, morpheus and milp (paper 004's authors'
    /// prototype; model chapter).
    #[arg(long, value_enum, default_value = "paper-text")]
    pub policy_reading: ReadingArg,
    /// SWIM jobs: the application every job runs (paper 004 §6.1.2's one-application
    /// workloads), or `mixed`: each job's from its shuffle/input ratio (mapping in the
    /// README).
    #[arg(long, value_enum, default_value = "mixed", conflicts_with_all = ["synthetic", "swf", "alibaba", "paper002", "jobs_csv"])]
    pub application: ApplicationArg,
    /// Trace jobs: share given a deadline, in [0, 1] [default: 0.5].
    #[arg(long, value_parser = number_in(0.0, 1.0))]
    pub deadline_share: Option<f64>,
    /// Trace jobs: relative deadline as a multiple of T_C^L, in [1, 1000] [default: 2].
    #[arg(long, value_parser = number_in(1.0, 1000.0))]
    pub deadline_factor: Option<f64>,
    /// Solver of the `milp` policy [default: microlp].
    #[arg(long, value_enum)]
    pub milp_backend: Option<MilpBackendArg>,
    /// Per-decision time limit of the `milp` policy in seconds, in (0, 3600]; past it the
    /// decision falls back to GIO [default: 1].
    #[arg(long, value_parser = number_in(1e-6, 3600.0))]
    pub milp_time_limit: Option<f64>,
    /// Delay each start by the measured wall-clock decision time (results then depend on
    /// machine speed).
    #[arg(long)]
    pub charge_decision_time: bool,
    /// Seconds from turning a VM on until it runs executors, in [0, 86400].
    #[arg(long, default_value_t = 0.0, value_parser = number_in(0.0, 86_400.0))]
    pub boot_latency: f64,
    /// How long an idle VM stays on before it is turned off: seconds, or `paid-hour`
    /// (until the hour it has paid for ends, under per-hour billing).
    #[arg(long, default_value = "0", value_name = "SECONDS|paid-hour")]
    pub keep_alive: frugal_core::KeepAlive,
    /// Cap on the fleet's price, dollars per hour (> 0): a placement that would turn VMs
    /// on beyond it waits (as `frugal serve --budget-per-hour`).
    #[arg(long, value_name = "DOLLARS", value_parser = number_in(1e-9, 1e12))]
    pub budget_per_hour: Option<f64>,
    /// Seed of every random choice; repetition r uses seed + r.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Repetitions with seeds seed, seed + 1, …; tables show mean ± 95 % confidence
    /// interval (Student t).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub repetitions: u64,
    /// Report wall-clock decision times (mean / p99 / max µs); they differ from run to
    /// run, so they are left out otherwise and outputs are byte-reproducible.
    #[arg(long)]
    pub timings: bool,
}

impl SimulateOptions {
    /// Parses `flags` (without the subcommand word, e.g. `["--policies", "first-fit"]`)
    /// as `frugal simulate` does.
    ///
    /// # Errors
    /// clap's message: an unknown flag, a value out of range, conflicting flags.
    pub fn parse(flags: &[String]) -> Result<SimulateOptions, clap::Error> {
        #[derive(Parser)]
        #[command(name = "simulate", allow_negative_numbers = true)]
        struct Flags {
            #[command(flatten)]
            options: SimulateOptions,
        }
        Flags::try_parse_from(std::iter::once("simulate").chain(flags.iter().map(String::as_str)))
            .map(|f| f.options)
    }
}
