//! `frugal agent`: the node agent of one host (see `frugal_service::agent`). It runs
//! until SIGTERM or SIGINT, then stops the host's workers.

use frugal_core::spec::ConfigFile;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result};
use clap::Args;

use frugal_service::agent::{AgentSpec, run as run_agent};

/// Options of `frugal agent`.
#[derive(Args, Debug)]
pub struct AgentArgs {
    /// A configuration file (TOML, one key per flag, e.g. `host-id = "h1"`, `vm =
    /// ["3=10.0.0.5"]`); a flag given on the command line wins over its key.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The agent's settings.
    #[command(flatten)]
    pub spec: AgentSpec,
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: nix::libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Runs the agent until a signal.
pub fn run(a: &AgentArgs) -> Result<()> {
    use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};
    let spec = match &a.config {
        Some(file) => a
            .spec
            .over(&AgentSpec::read(file).map_err(|m| crate::Usage(anyhow::anyhow!(m)))?),
        None => a.spec.clone(),
    };
    let cfg = spec.build()?;
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
