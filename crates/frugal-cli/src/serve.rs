//! `frugal serve`: the scheduler service, on the emulated backend or a real Spark
//! standalone cluster.

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Args;

use frugal_core::policy::{PlacementPolicy, PolicyParams};
use frugal_core::{DurationModel, SchedulerConfig};
use frugal_service::backend::SparkConfig;
use frugal_service::{BackendConfig, Durability, ServiceConfig};

use crate::choices::{
    BackfillArg, ClusterParser, ClusterSource, PolicyChoice, PolicyParser, PricingArg, QueueArg,
};

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
    /// Database URL instead of --db, e.g. postgres://user:password@localhost/frugal.
    #[arg(long)]
    pub database_url: Option<String>,
    /// What an acknowledged submission survives: `process` (a crash of frugal, SIGKILL
    /// included) or `power` (also an OS crash or power loss: a disk flush per commit).
    #[arg(long, default_value = "process")]
    pub durability: String,
    /// Backend: `emulated` (in-process, no setup) or `spark-standalone` (a real Spark
    /// master and workers on loopback; needs Java 17 and `pip install pyspark`).
    #[arg(long, default_value = "emulated")]
    pub backend: String,
    /// spark-standalone: Python with pyspark (drivers and executors run it).
    #[arg(long, default_value = "python3")]
    pub python: PathBuf,
    /// spark-standalone: directory for logs, PID files and exit statuses.
    #[arg(long, default_value = "frugal-spark")]
    pub spark_dir: PathBuf,
    /// spark-standalone: master RPC port (its web UI is on --spark-ui-port).
    #[arg(long, default_value_t = 17077)]
    pub spark_port: u16,
    /// spark-standalone: master web UI port.
    #[arg(long, default_value_t = 18080)]
    pub spark_ui_port: u16,
    /// Cluster preset or TOML file (as for `simulate`).
    #[arg(long, value_name = "PRESET|FILE", default_value = "small-hybrid", value_parser = ClusterParser)]
    pub cluster: ClusterSource,
    /// Pricing model of the hybrid presets [default: 1].
    #[arg(long, value_enum)]
    pub pricing: Option<PricingArg>,
    /// Placement policy (any `simulate` policy, or rl:<checkpoint>).
    #[arg(long, default_value = "optimal", value_parser = PolicyParser)]
    pub policy: PolicyChoice,
    /// Queue discipline [default: the policy's published one].
    #[arg(long, value_enum)]
    pub queue: Option<QueueArg>,
    /// Drop jobs predicted to miss their deadline (paper 000 Eq. 15).
    #[arg(long)]
    pub admission_control: bool,
    /// Behind a head job that cannot be placed: EASY backfilling (no job waits forever
    /// behind it) or none (the papers' head-of-line blocking).
    #[arg(long, value_enum, default_value = "easy")]
    pub backfill: BackfillArg,
    /// emulated: service seconds per wall-clock second.
    #[arg(long, default_value_t = 60.0)]
    pub speedup: f64,
}

/// Starts the service and serves until interrupted.
pub fn run(a: &ServeArgs) -> Result<()> {
    let (cfg, policy) = build(a)?;
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(frugal_service::serve(cfg, policy))?;
    Ok(())
}

/// The service's configuration and policy from the command line.
pub fn build(a: &ServeArgs) -> Result<(ServiceConfig, Box<dyn PlacementPolicy>)> {
    let (cluster, billing) = a.cluster.build(a.pricing, None)?;
    let choice = &a.policy;
    let params = PolicyParams::default();
    let policy = choice.build(&params, &cluster)?;
    if !(a.speedup.is_finite() && a.speedup > 0.0) {
        bail!("--speedup: must be > 0");
    }
    let discipline = a.queue.map_or(policy.default_queue(), QueueArg::discipline);
    let backend = match a.backend.as_str() {
        "emulated" => BackendConfig::Emulated { speedup: a.speedup },
        "spark-standalone" => {
            let work_dir = std::path::absolute(&a.spark_dir)?;
            let mut spark = SparkConfig::discover(&a.python, &work_dir)?;
            spark.master_port = a.spark_port;
            spark.master_ui_port = a.spark_ui_port;
            BackendConfig::SparkStandalone(spark)
        }
        other => bail!("--backend: unknown backend {other:?} (emulated, spark-standalone)"),
    };
    let database_url = a
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite:{}", a.db.display()));
    let durability = Durability::parse(&a.durability)
        .with_context(|| format!("--durability: {:?} is not process or power", a.durability))?;
    let cfg = ServiceConfig {
        bind: a.bind,
        database_url: database_url.clone(),
        durability,
        cluster,
        billing,
        scheduler: SchedulerConfig {
            discipline,
            admission_control: a.admission_control,
            rut: params.rut,
            duration: DurationModel::default(),
            boot_latency_s: 0.0,
            charge_decision_time: false,
            backfill: a.backfill.mode(),
        },
        backend,
    };
    let speed = match &cfg.backend {
        BackendConfig::Emulated { speedup } => format!("emulated backend x{speedup}"),
        BackendConfig::SparkStandalone(s) => format!("Spark {}", s.spark_home.display()),
    };
    eprintln!(
        "frugal serve: {} on {} ({} VMs, policy {}, {} queue, {speed}), state in {}",
        a.bind,
        a.cluster,
        cfg.cluster.len(),
        choice.label(),
        discipline.name(),
        database_url.split('@').next_back().unwrap_or_default(),
    );
    Ok((cfg, policy))
}
