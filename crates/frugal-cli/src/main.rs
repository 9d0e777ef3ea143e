//! `frugal`: compare cost- and deadline-aware executor placement policies.

mod agent;
mod bag_of_tasks;
mod cluster;
mod contention;
mod curves;
mod ephemeral;
mod kube;
mod live;
mod progress;
mod record_exit;
mod reproduce;
mod serve;
mod simulate;
mod spot;
mod table;
mod train;
mod values;
mod whatif;
mod zones;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// frugal schedules Spark executors onto cloud and hybrid clusters at the lowest VM cost
/// that meets deadlines. With no subcommand it runs `simulate` with its defaults.
#[derive(Parser)]
#[command(name = "frugal", version = VERSION)]
struct Cli {
    /// Log lines on stderr: human-readable text or one JSON object per line. The level
    /// comes from RUST_LOG (default: info).
    #[arg(long, global = true, value_enum, default_value = "text")]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Option<Command>,
}

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum LogFormat {
    /// Human-readable text
    Text,
    /// One JSON object per line
    Json,
}

/// Sends `tracing` events to stderr in `format`, at the level RUST_LOG asks for.
fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    use std::io::IsTerminal;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

#[derive(Subcommand)]
enum Command {
    /// Compare placement policies on a workload in the discrete-event simulator (default:
    /// every policy on the light- and high-load hours of the FB-2009 trace, small-scale
    /// hybrid cluster, pricing model 1).
    Simulate(Box<simulate::SimulateArgs>),
    /// Bags of tasks on a hybrid cloud (paper 003): HA, RA and FFD on SWF logs, with
    /// hourly rent, PM energy and deadlines (default: the NASA iPSC log, α = 1..4).
    BagOfTasks(Box<bag_of_tasks::BagOfTasksArgs>),
    /// MapReduce on ephemeral capacity (paper 001): Salamander's forecast-driven plans
    /// against Cuckoo on hosts that run a primary workload (default: University, 256 MiB
    /// chunks, margins 0–30 %, 48 start hours).
    Ephemeral(Box<ephemeral::EphemeralArgs>),
    /// One deadline job on spot and on-demand capacity ("Can't Be Late", NSDI 2024):
    /// greedy, Time Sliced, Uniform Progress and the omniscient optimum on windows of spot
    /// availability traces (default: the synthetic 2-week set, C(0) = 48 h, f = 0.8).
    Spot(Box<spot::SpotArgs>),
    /// One deadline job on spot capacity across many zones (SkyNomad, NSDI '27): Uniform
    /// Progress variants and the exact multi-zone optimum on a published scenario's windows,
    /// beside the artifact's published costs (default: Fig 9b's three V100 zones).
    Zones(Box<zones::ZonesArgs>),
    /// Re-run the papers' experiments (experiments/*.toml) in parallel and write their
    /// rows (CSV), plots (SVG, PNG) and report.html: each published value beside frugal's,
    /// with a verdict.
    Reproduce(reproduce::ReproduceArgs),
    /// Run your own experiment files (the format of experiments/*.toml) into rows, plots
    /// and a report, or one shard of their configurations.
    Run(reproduce::RunArgs),
    /// List the experiments built into frugal, or print one to copy and edit.
    Experiments(reproduce::ExperimentsArgs),
    /// Join the output folders of `frugal run --shard i/n` into what the unsharded run
    /// writes.
    Merge(reproduce::MergeArgs),
    /// Measure decision latency and whole-simulation speed and memory (build with
    /// --release).
    Bench(frugal_report::bench::BenchSpec),
    /// Train a DQN or REINFORCE placement agent on the RL environment (paper 002) and
    /// write a checkpoint usable as `--policies rl:<checkpoint>`.
    Train(frugal_agents::training::TrainSpec),
    /// Write a cluster file from a cloud's catalogue (EC2: instance types, on-demand and
    /// spot prices).
    Cluster(cluster::ClusterArgs),
    /// Print the learning curves stored in trained agents' checkpoints as CSV (paper 002
    /// Fig. 4–5: return of the greedy evaluation episode against training iterations).
    LearningCurves(curves::CurvesArgs),
    /// Run the scheduler service: HTTP API, durable state (SQLite or PostgreSQL), the
    /// emulated backend or a real Spark standalone cluster.
    Serve(Box<serve::ServeArgs>),
    /// Replay the service's own history (its database) in the simulator under other
    /// policies: the bill that was paid beside what each would have cost.
    Whatif(Box<whatif::WhatifArgs>),
    /// Replay a workload live: real Spark jobs on this machine's hybrid testbed (network
    /// namespaces as hosts, cgroups, rate-limited links between two sites) under `frugal
    /// serve`, one run per policy; each run's measured bill beside the simulator's
    /// replay and prediction (root, Java 17, pyspark).
    Live(Box<frugal_report::live::LiveSpec>),
    /// Run the node agent of one host: it heartbeats to the service and runs the Spark
    /// reservation workers the service orders for its VMs.
    Agent(agent::AgentArgs),
    /// Schedule a Kubernetes cluster's Spark executor pods as gangs at the lowest bill and
    /// keep a node per VM that is on (built with the `kube` feature).
    Kube(Box<kube::KubeArgs>),
    /// Load-test the service on loopback (emulated backend, durable store) for a bounded
    /// time: submissions per second, submit and submit-to-placement latency.
    Loadtest(frugal_report::loadtest::LoadtestSpec),
    /// Print a shell completion script (e.g. `frugal completions bash >
    /// /etc/bash_completion.d/frugal`).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Calibrate the contention model (frugal's extension: jobs slowing each other) on
    /// measured live runs and write the file `simulate`, `whatif` and `serve` read with
    /// --contention.
    Contention(contention::ContentionArgs),
    /// Run a program and record its exit status in a file (the Spark backend starts
    /// drivers through it, without a shell, so a restarted service learns how a driver
    /// ended while it was down).
    #[command(hide = true)]
    RecordExit(record_exit::RecordExitArgs),
}

/// What the user asked for cannot be done as asked (flags, input files), as opposed to a
/// failure while doing it: exit status 2. Found in an error's chain (`downcast_ref`).
#[derive(Debug)]
pub struct Usage(pub anyhow::Error);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for Usage {}
use frugal_core::spec::SpecError;

/// An error of a library run as the CLI reports it: a spec's field at fault stays a
/// [`SpecError`] (printed as its flag), anything else is a [`Usage`] error.
fn usage(e: anyhow::Error) -> anyhow::Error {
    if e.downcast_ref::<SpecError>().is_some() {
        e
    } else {
        Usage(e).into()
    }
}

/// `frugal --version`: the crate's version and the commit it was built from (with
/// `-dirty` for uncommitted changes; none outside a checkout), from `build.rs`.
const VERSION: &str = env!("FRUGAL_VERSION");

fn main() -> std::process::ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    init_logging(cli.log_format);
    let result = match cli.command {
        None => match Cli::try_parse_from(["frugal", "simulate"]) {
            Ok(Cli {
                command: Some(Command::Simulate(args)),
                ..
            }) => simulate::run(&args),
            _ => unreachable!("`frugal simulate` parses"),
        },
        Some(Command::Simulate(args)) => simulate::run(&args),
        Some(Command::BagOfTasks(args)) => bag_of_tasks::run(&args),
        Some(Command::Ephemeral(args)) => ephemeral::run(&args),
        Some(Command::Spot(args)) => spot::run(&args),
        Some(Command::Zones(args)) => zones::run(&args),
        Some(Command::Reproduce(args)) => reproduce::reproduce(&args),
        Some(Command::Run(args)) => reproduce::run(&args),
        Some(Command::Merge(args)) => reproduce::merge(&args),
        Some(Command::Experiments(args)) => reproduce::experiments(&args),
        Some(Command::Bench(args)) => {
            if cfg!(debug_assertions) {
                tracing::warn!("debug build: run `cargo run --release -- bench` for real figures");
            }
            frugal_report::bench::run(&args, &mut std::io::stdout().lock())
        }
        Some(Command::Train(args)) => train::run(&args),
        Some(Command::LearningCurves(args)) => curves::run(&args),
        Some(Command::Cluster(args)) => cluster::run(&args),
        Some(Command::Contention(args)) => contention::run(&args),
        Some(Command::Serve(args)) => serve::run(&args),
        Some(Command::Kube(args)) => kube::run(&args),
        Some(Command::Whatif(args)) => whatif::run(&args),
        Some(Command::Live(args)) => live::run_live(&args),
        Some(Command::Loadtest(spec)) => std::env::current_exe()
            .map_err(anyhow::Error::from)
            .and_then(|frugal| {
                frugal_report::loadtest::run(&spec, &frugal, &mut std::io::stdout().lock())
            }),
        Some(Command::Agent(args)) => agent::run(&args),
        Some(Command::Completions { shell }) => {
            clap_complete::generate(shell, &mut Cli::command(), "frugal", &mut std::io::stdout());
            Ok(())
        }
        Some(Command::RecordExit(args)) => record_exit::run(&args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // A closed pipe (`frugal | head`) is a normal end, not an error.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            std::process::ExitCode::SUCCESS
        }
        // A spec's field at fault, named as the flag that sets it.
        Err(e) if e.downcast_ref::<SpecError>().is_some() => {
            let s = e.downcast_ref::<SpecError>().expect("matched");
            eprintln!("error: {}", s.named(SpecError::flag));
            std::process::ExitCode::from(2)
        }
        Err(e)
            if e.downcast_ref::<Usage>().is_some()
                || e.downcast_ref::<frugal_report::runner::InputError>()
                    .is_some() =>
        {
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests;
