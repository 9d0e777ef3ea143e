//! `frugal serve`: the scheduler service on the emulated backend.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;

use frugal_core::policy::PolicyParams;
use frugal_core::{DurationModel, QueueDiscipline, SchedulerConfig};
use frugal_service::ServiceConfig;

use crate::simulate::{build_cluster, parse_policies};

/// Options of `frugal serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// SQLite database file (created if missing); accepted jobs, placements and VM power
    /// history survive restarts there.
    #[arg(long, default_value = "frugal.db")]
    pub db: PathBuf,
    /// Cluster preset or TOML file (as for `simulate`).
    #[arg(long, default_value = "small-hybrid")]
    pub cluster: String,
    /// Pricing model of the hybrid presets.
    #[arg(long, default_value = "1")]
    pub pricing: String,
    /// Placement policy (any `simulate` policy, or rl:<checkpoint>).
    #[arg(long, default_value = "optimal")]
    pub policy: String,
    /// Queue discipline; default: the policy's published one.
    #[arg(long)]
    pub queue: Option<String>,
    /// Drop jobs predicted to miss their deadline (paper 000 Eq. 15).
    #[arg(long)]
    pub admission_control: bool,
    /// Emulated backend: service seconds per wall-clock second.
    #[arg(long, default_value_t = 60.0)]
    pub speedup: f64,
}

/// Starts the service and serves until interrupted.
pub fn run(a: &ServeArgs) -> Result<()> {
    let (cluster, billing) = build_cluster(&a.cluster, &a.pricing, None)?;
    let choice = parse_policies(Some(std::slice::from_ref(&a.policy)))?.remove(0);
    let params = PolicyParams::default();
    let policy = choice.build(&params)?;
    if !(a.speedup.is_finite() && a.speedup > 0.0) {
        bail!("--speedup: must be > 0");
    }
    let discipline = match &a.queue {
        None => policy.default_queue(),
        Some(q) => QueueDiscipline::parse(q)
            .with_context(|| format!("--queue: unknown discipline {q:?}"))?,
    };
    let cfg = ServiceConfig {
        bind: a.bind,
        database_url: format!("sqlite:{}", a.db.display()),
        cluster,
        billing,
        scheduler: SchedulerConfig {
            discipline,
            admission_control: a.admission_control,
            rut: params.rut,
            duration: DurationModel::default(),
            boot_latency_s: 0.0,
            charge_decision_time: false,
        },
        speedup: a.speedup,
    };
    eprintln!(
        "frugal serve: {} on {} ({} VMs, policy {}, {} queue, x{} emulated time), state in {}",
        a.bind,
        a.cluster,
        cfg.cluster.len(),
        choice.label(),
        discipline.name(),
        a.speedup,
        a.db.display()
    );
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(frugal_service::serve(cfg, policy))?;
    Ok(())
}
