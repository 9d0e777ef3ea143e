//! `frugal agent`: the node agent of one host (see `frugal_service::agent`). It runs
//! until SIGTERM or SIGINT, then stops the host's workers.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};

use frugal_service::agent::protocol::HostedVm;
use frugal_service::agent::{AgentConfig, Runtime, run as run_agent};

use crate::values::number_in;

use frugal_service::spec::AGENT_TOKEN_ENV;

/// Options of `frugal agent`.
#[derive(Args, Debug)]
pub struct AgentArgs {
    /// The service's URL as this host reaches it, e.g. http://10.0.0.1:8080.
    #[arg(long)]
    pub service: String,
    /// File holding the agent token (the service's --agent-token-file);
    /// FRUGAL_AGENT_TOKEN overrides it.
    #[arg(long, default_value = "frugal-agent.token")]
    pub token_file: PathBuf,
    /// This host's id, unique in the cluster ([A-Za-z0-9_.-]).
    #[arg(long)]
    pub host_id: String,
    /// A VM this host runs, as ID=ADDRESS (the service's VM id and the IPv4 address its
    /// workers bind to); repeat for several.
    #[arg(long = "vm", value_name = "ID=ADDRESS", required = true, value_parser = parse_vm)]
    pub vms: Vec<HostedVm>,
    /// What the reservation workers are: Spark standalone workers, or placeholder
    /// processes for `frugal serve --backend emulated`.
    #[arg(long, value_enum, default_value = "spark")]
    pub runtime: RuntimeArg,
    /// spark: the Spark installation [default: $SPARK_HOME].
    #[arg(long)]
    pub spark_home: Option<PathBuf>,
    /// Directory for worker logs, PID files and scratch space.
    #[arg(long, default_value = "frugal-agent")]
    pub work_dir: PathBuf,
    /// Cores this host reports [default: the machine's].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub cores: Option<u32>,
    /// Memory this host reports, GiB [default: the machine's].
    #[arg(long, value_parser = number_in(0.001, 1e6))]
    pub memory_gib: Option<f64>,
    /// On a cloud instance: poll this instance-metadata service (IMDSv2) every beat for a
    /// spot interruption notice and report it, e.g. http://169.254.169.254 on EC2 (the
    /// service then moves this host's executors before the instance is reclaimed).
    #[arg(long, value_name = "URL")]
    pub interruption_notices: Option<String>,
    /// Testbeds (frugal serve --testbed sets it): run each reservation worker and its
    /// executors in a cgroup v1 cpu group of its own below the agent's, capped at this
    /// share of a physical core per core it offers.
    #[arg(long, value_name = "SHARE", value_parser = number_in(0.001, 64.0))]
    pub worker_core_share: Option<f64>,
}

/// The agent's `--runtime`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RuntimeArg {
    /// Spark standalone workers.
    Spark,
    /// Placeholder workers (the emulated backend).
    Emulated,
}

fn parse_vm(s: &str) -> Result<HostedVm, String> {
    let (id, address) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?}: expected ID=ADDRESS, e.g. 3=10.0.0.5"))?;
    let id = id
        .parse()
        .map_err(|_| format!("{s:?}: the VM id {id:?} is not a whole number"))?;
    address
        .parse::<std::net::Ipv4Addr>()
        .map_err(|_| format!("{s:?}: {address:?} is not an IPv4 address"))?;
    Ok(HostedVm {
        id,
        address: address.to_string(),
    })
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: nix::libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Runs the agent until a signal.
pub fn run(a: &AgentArgs) -> Result<()> {
    use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};
    let token = frugal_service::spec::secret(&a.token_file, AGENT_TOKEN_ENV, false)?;
    let runtime = match (a.runtime, &a.spark_home) {
        (RuntimeArg::Emulated, Some(_)) => {
            anyhow::bail!(crate::Usage(anyhow::anyhow!(
                "--spark-home applies to --runtime spark only"
            )))
        }
        (RuntimeArg::Emulated, None) => Runtime::Emulated,
        (RuntimeArg::Spark, Some(h)) => Runtime::Spark {
            spark_home: h.clone(),
        },
        (RuntimeArg::Spark, None) => Runtime::Spark {
            spark_home: std::env::var_os("SPARK_HOME")
                .map(PathBuf::from)
                .context("neither --spark-home nor SPARK_HOME is set")?,
        },
    };
    let cfg = AgentConfig {
        service_url: a.service.clone(),
        token,
        host: a.host_id.clone(),
        vms: a.vms.clone(),
        cores: a
            .cores
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32)),
        memory_gib: a.memory_gib.unwrap_or_else(machine_memory_gib),
        runtime,
        work_dir: std::path::absolute(&a.work_dir)?,
        interruption_notices: a.interruption_notices.clone(),
        worker_core_share: a.worker_core_share,
    };
    let action = SigAction::new(
        SigHandler::Handler(on_signal),
        SaFlags::empty(),
        SigSet::empty(),
    );
    for s in [Signal::SIGTERM, Signal::SIGINT] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        unsafe { sigaction(s, &action) }.context("installing the signal handler")?;
    }
    run_agent(&cfg, &STOP).map_err(|e| crate::Usage(e.into()).into())
}

/// The machine's memory, GiB (`MemTotal` of /proc/meminfo; 0 if unreadable).
fn machine_memory_gib() -> f64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / (1024.0 * 1024.0))
}
