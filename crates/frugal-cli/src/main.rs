//! `frugal`: compare cost- and deadline-aware executor placement policies.

mod bench;
mod loadtest;
mod serve;
mod simulate;
mod table;
mod train;

use clap::{Parser, Subcommand};

/// frugal schedules Spark executors onto cloud and hybrid clusters at the lowest VM cost
/// that meets deadlines. With no subcommand it runs `simulate` with its defaults.
#[derive(Parser)]
#[command(name = "frugal", version)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Compare placement policies on a workload in the discrete-event simulator (default:
    /// every policy on the light- and high-load hours of the FB-2009 trace, small-scale
    /// hybrid cluster, pricing model 1).
    Simulate(Box<simulate::SimulateArgs>),
    /// Measure decision latency and whole-simulation speed and memory (build with
    /// --release).
    Bench(bench::BenchArgs),
    /// Train a DQN or REINFORCE placement agent on the RL environment (paper 002) and
    /// write a checkpoint usable as `--policies rl:<checkpoint>`.
    Train(train::TrainArgs),
    /// Run the scheduler service: HTTP API, durable state (SQLite or PostgreSQL), the
    /// emulated backend or a real Spark standalone cluster.
    Serve(serve::ServeArgs),
    /// Load-test the service on loopback (emulated backend, durable store) for a bounded
    /// time: submissions per second, submit and submit-to-placement latency.
    Loadtest(loadtest::LoadtestArgs),
}

impl Cli {
    /// The `simulate` arguments, when that is the command.
    fn simulate_args(self) -> simulate::SimulateArgs {
        match self.command {
            Some(Command::Simulate(args)) => *args,
            _ => unreachable!("parsed from [frugal, simulate]"),
        }
    }
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        None => simulate::run(&Cli::parse_from(["frugal", "simulate"]).simulate_args()),
        Some(Command::Simulate(args)) => simulate::run(&args),
        Some(Command::Bench(args)) => bench::run(&args),
        Some(Command::Train(args)) => train::run(&args),
        Some(Command::Serve(args)) => serve::run(&args),
        Some(Command::Loadtest(args)) => loadtest::run(&args),
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
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
