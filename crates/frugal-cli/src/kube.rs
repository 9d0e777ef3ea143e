//! `frugal kube`: frugal as the gang scheduler and node provisioner of a Kubernetes API
//! server (`frugal_kube`), until interrupted; then the bill and its replay.

//!
//! The command and its flags exist in every build, so `--help` and the book's command
//! reference are one text; without the `kube` feature it refuses with a message that names
//! the feature.

use std::path::PathBuf;

use clap::Args;

use frugal_core::PricingModel;
use frugal_core::{PolicySpec, QueueDiscipline};
use frugal_sim::options::choices::ClusterSource;

use crate::values::{ClusterParser, PolicyParser, choice};

#[cfg(feature = "kube")]
pub use with_kube::run;

/// Options of `frugal kube`.
#[derive(Args, Debug)]
pub struct KubeArgs {
    /// The kubeconfig file of the API server (its server, certificate authority and
    /// credentials).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: PathBuf,
    /// The VMs frugal may turn on as nodes (preset or TOML file).
    #[arg(long, value_name = "PRESET|FILE", value_parser = ClusterParser, default_value = "small-hybrid")]
    pub cluster: ClusterSource,
    /// Pricing model of a hybrid preset [default: 1].
    #[arg(long, value_parser = choice::<PricingModel>())]
    pub pricing: Option<PricingModel>,
    /// The placement policy (a built-in one).
    #[arg(long, value_parser = PolicyParser, default_value = "best-fit-decreasing")]
    pub policy: PolicySpec,
    /// Queue discipline: fcfs, edf, deadline-first or morpheus [default: the policy's
    /// published one].
    #[arg(long, value_parser = choice::<QueueDiscipline>())]
    pub queue: Option<QueueDiscipline>,
    /// The scheduler name pods ask for (`spec.schedulerName`; Spark's
    /// `spark.kubernetes.scheduler.name`).
    #[arg(long, default_value = "frugal")]
    pub scheduler_name: String,
    /// Also play the kubelet's part where no kubelet runs: run each bound pod's process
    /// on this machine (Spark's executors from --spark-home) and report its phase.
    #[arg(long)]
    pub kubelet: bool,
    /// Spark's home (its `jars/`) for the executors --kubelet runs.
    #[arg(long, value_name = "DIR", requires = "kubelet")]
    pub spark_home: Option<PathBuf>,
    /// Where --kubelet keeps each pod's log and local folders.
    #[arg(long, value_name = "DIR", default_value = "frugal-kube-pods")]
    pub work_dir: PathBuf,
}

#[cfg(feature = "kube")]
mod with_kube {
    use std::time::Duration;

    use anyhow::{Context, Result, bail};
    use frugal_core::{PolicySpec, QueueDiscipline};
    use frugal_kube::{KubeOptions, Kubelet, Loopback, Shell};

    use super::KubeArgs;
    use crate::Usage;

    /// Runs `frugal kube` until Ctrl-C.
    ///
    /// # Errors
    /// Bad flags or files ([`Usage`]); the API server unreachable at start.
    pub fn run(args: &KubeArgs) -> Result<()> {
        let PolicySpec::Builtin(policy) = args.policy else {
            return Err(Usage(anyhow::anyhow!(
                "--policy {}: frugal kube runs the built-in policies",
                args.policy
            ))
            .into());
        };
        let cluster = args
            .cluster
            .config(args.pricing)
            .and_then(|c| Ok(c.build(&args.cluster.to_string())?))
            .map_err(Usage)?;
        let mut setup = frugal_kube::setup(cluster, QueueDiscipline::Fcfs);
        setup.queue = args.queue;
        let kubelet = if args.kubelet {
            let home = args
                .spark_home
                .clone()
                .context("--kubelet needs --spark-home (Spark's home, with jars/)")
                .map_err(Usage)?;
            if !home.join("jars").is_dir() {
                bail!(Usage(anyhow::anyhow!(
                    "--spark-home {}: no jars/ folder in it",
                    home.display()
                )));
            }
            Some(Kubelet::new(
                Box::new(Loopback),
                home,
                args.work_dir.clone(),
            ))
        } else {
            None
        };
        let opts = KubeOptions {
            scheduler_name: args.scheduler_name.clone(),
            resync: Duration::from_secs(1),
        };
        let rt = tokio::runtime::Runtime::new()?;
        rt.block_on(async {
            let client = frugal_kube::control_plane::client_from(&args.kubeconfig)
                .await
                .map_err(Usage)?;
            client
                .apiserver_version()
                .await
                .with_context(|| format!("reaching the API server of {}", args.kubeconfig.display()))?;
            tracing::info!(
                "frugal schedules pods named {:?} with {} (Ctrl-C stops)",
                args.scheduler_name,
                policy.name()
            );
            let shell = frugal_kube::run(
                client,
                Shell::new(setup, policy),
                kubelet,
                opts,
                async {
                    let _ = tokio::signal::ctrl_c().await;
                },
            )
            .await;
            let ctl = shell.controller();
            let bill = ctl.fleet().cost(ctl.now());
            let replay = shell.whatif(policy).summary.total_cost;
            println!(
                "{} applications; bill ${bill:.6} (the simulator's replay of this history: ${replay:.6})",
                ctl.records().count()
            );
            Ok(())
        })
    }
}

/// Without the `kube` feature: refuses, naming the feature.
///
/// # Errors
/// Always ([`crate::Usage`]).
#[cfg(not(feature = "kube"))]
pub fn run(_: &KubeArgs) -> anyhow::Result<()> {
    Err(crate::Usage(anyhow::anyhow!(
        "this frugal was built without Kubernetes support: build it with `--features kube`"
    ))
    .into())
}
