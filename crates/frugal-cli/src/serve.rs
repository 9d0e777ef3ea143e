//! `frugal serve`: the scheduler service, on the emulated backend or a real Spark
//! standalone cluster.

use frugal_core::PolicySpec;
use frugal_core::spec::Choice;
use std::io::Write;
use std::net::SocketAddr;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use rand::RngExt;

use frugal_core::policy::{PlacementPolicy, PolicyParams};
use frugal_core::{DurationModel, SchedulerConfig};
use frugal_service::backend::{HostTimeouts, HostsConfig, ProvisionerKind, SparkConfig};
use frugal_service::provision::Testbed;
use frugal_service::{BackendConfig, Durability, Limits, ServiceConfig, StoreLimits};

use crate::Usage;
use crate::agent::AGENT_TOKEN_ENV;
use crate::values::number_in;
use crate::values::{ClusterParser, PolicyParser, choice};
use frugal_core::{PricingModel, QueueDiscipline};
use frugal_sim::options::choices::{ClusterSource, build_policy};

/// The bundled Spark applications (the default `--apps-dir` when it exists).
const BUNDLED_APPS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spark");

/// The environment variable holding the API token (overrides `--token-file`).
pub const TOKEN_ENV: &str = "FRUGAL_API_TOKEN";

/// Which backend runs the jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// In-process cluster in real time (× --speedup); nothing to install
    Emulated,
    /// A real Spark standalone master and workers on loopback (Java 17, pip pyspark)
    SparkStandalone,
}

/// How the spark-standalone backend provisions the VMs' hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProvisionerArg {
    /// Every VM a loopback address of this machine (127.0.0.{k+2}), its agent a local
    /// process
    Loopback,
    /// Every VM a network namespace with its own address on a bridge (root needed)
    Netns,
    /// Every VM an EC2 instance of its instance type, on demand or spot (a frugal built
    /// with `--features ec2`; settings: the --ec2-* flags)
    Ec2,
}

/// What powering an EC2 VM off does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Ec2PowerOffArg {
    /// TerminateInstances: nothing is left
    Terminate,
    /// StopInstances: the instance and its disk stay for the next power-on (not for spot)
    Stop,
}

/// Options of `frugal serve`.
#[derive(Args, Debug)]
#[command(allow_negative_numbers = true)]
pub struct ServeArgs {
    /// Address of the API.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// Also serve /healthz, /readyz and /metrics (no token) on this address.
    #[arg(long)]
    pub metrics_bind: Option<SocketAddr>,
    /// SQLite database file (created if missing); accepted jobs, placements and VM power
    /// history survive restarts there.
    #[arg(long, default_value = "frugal.db")]
    pub db: PathBuf,
    /// Database URL instead of --db, e.g. postgres://user:password@localhost/frugal.
    #[arg(long)]
    pub database_url: Option<String>,
    /// What an acknowledged submission survives.
    #[arg(long, value_parser = choice::<Durability>(), default_value = "process")]
    pub durability: Durability,
    /// The API token: read from this file, which is created (mode 0600, a random
    /// 256-bit token) if missing; the environment variable FRUGAL_API_TOKEN overrides it.
    /// Clients send `Authorization: Bearer <token>`.
    #[arg(long, default_value = "frugal.token")]
    pub token_file: PathBuf,
    /// Directory submitted applications must be in [default: the bundled spark/ apps].
    #[arg(long)]
    pub apps_dir: Option<PathBuf>,
    /// Backend.
    #[arg(long, value_enum, default_value = "emulated")]
    pub backend: BackendArg,
    /// spark-standalone: Python with pyspark (drivers and executors run it)
    /// [default: python3].
    #[arg(long)]
    pub python: Option<PathBuf>,
    /// spark-standalone: directory for logs, PID files and exit statuses
    /// [default: frugal-spark].
    #[arg(long)]
    pub spark_dir: Option<PathBuf>,
    /// spark-standalone: master RPC port (its web UI is on --spark-ui-port)
    /// [default: 17077].
    #[arg(long)]
    pub spark_port: Option<u16>,
    /// spark-standalone: master web UI port (bound to the control address)
    /// [default: 18080].
    #[arg(long)]
    pub spark_ui_port: Option<u16>,
    /// How VMs' hosts are powered on and off, each running a node agent: spark-standalone
    /// always has hosts [default: loopback]; emulated has them only with this flag
    /// (placeholder workers instead of Spark's), else runs all in-process.
    #[arg(long, value_enum)]
    pub provisioner: Option<ProvisionerArg>,
    /// netns: prefix of namespace, link and bridge names (1–8 letters or digits)
    /// [default: frugal].
    #[arg(long)]
    pub netns_prefix: Option<String>,
    /// netns: the /24 subnet of the hosts; the control node (this service, the master and
    /// the drivers) is .1, VM k is .(k+2) [default: 10.77.0.0].
    #[arg(long)]
    pub netns_subnet: Option<std::net::Ipv4Addr>,
    /// netns: a hybrid testbed on this machine — the cloud site's VMs on a second bridge
    /// behind a rate-limited link, every VM's link rate-limited, and each VM's processes
    /// in cgroups sized to its instance type (root, cgroup v1 `cpu` and `memory`, `tc`;
    /// the book's chapter on live experiments).
    #[arg(long)]
    pub testbed: bool,
    /// --testbed: share of one physical core each VM core gets [default: 0.25].
    #[arg(long, value_name = "SHARE", requires = "testbed", value_parser = number_in(1e-3, 64.0))]
    pub testbed_core_share: Option<f64>,
    /// --testbed: MiB of this machine's memory per GiB of a VM's instance type
    /// [default: 1024].
    #[arg(long, value_name = "MIB", requires = "testbed",
          value_parser = clap::value_parser!(u32).range(64..=65_536))]
    pub testbed_mib_per_gib: Option<u32>,
    /// --testbed: rate of each VM's link within its site, Mbit/s [default: 1000].
    #[arg(long, value_name = "MBIT", requires = "testbed", value_parser = number_in(1.0, 100_000.0))]
    pub testbed_in_site_mbit: Option<f64>,
    /// --testbed: rate of the link between the two sites, each direction, Mbit/s
    /// [default: 300, paper 000 §7.1's 2 Gbit/s within a region to 600 Mbit/s across].
    #[arg(long, value_name = "MBIT", requires = "testbed", value_parser = number_in(1.0, 100_000.0))]
    pub testbed_cross_site_mbit: Option<f64>,
    /// emulated with --provisioner: directory of the hosts' agents (vm<k>/: PID file,
    /// log, workers) [default: frugal-hosts]; spark-standalone keeps them in
    /// <--spark-dir>/hosts.
    #[arg(long)]
    pub hosts_dir: Option<PathBuf>,
    /// ec2: the cluster's id, the value of the frugal.io/cluster tag of its instances (1–24
    /// of [A-Za-z0-9-]) [default: frugal].
    #[arg(long)]
    pub ec2_cluster_id: Option<String>,
    /// ec2: region [default: the standard chain: AWS_REGION, the profile].
    #[arg(long)]
    pub ec2_region: Option<String>,
    /// ec2: endpoint of the EC2 API (e.g. a local server for tests) [default: AWS's, or
    /// AWS_ENDPOINT_URL].
    #[arg(long, value_name = "URL")]
    pub ec2_endpoint: Option<String>,
    /// ec2: AMI of the instances (with `frugal` on it, and Spark for the Spark backend).
    #[arg(long)]
    pub ec2_image_id: Option<String>,
    /// ec2: launch template id (lt-…) or name, instead of or besides --ec2-image-id.
    #[arg(long)]
    pub ec2_launch_template: Option<String>,
    /// ec2: subnet id to launch into.
    #[arg(long)]
    pub ec2_subnet: Option<String>,
    /// ec2: comma-separated security group ids.
    #[arg(long, value_delimiter = ',')]
    pub ec2_security_groups: Vec<String>,
    /// ec2: IAM instance profile name or ARN.
    #[arg(long)]
    pub ec2_instance_profile: Option<String>,
    /// ec2: SSH key pair name.
    #[arg(long)]
    pub ec2_key_name: Option<String>,
    /// ec2: a tag for every instance, KEY=VALUE; repeat for several.
    #[arg(long = "ec2-tag", value_name = "KEY=VALUE", value_parser = parse_tag)]
    pub ec2_tags: Vec<(String, String)>,
    /// ec2: what powering a VM off does [default: terminate].
    #[arg(long, value_enum)]
    pub ec2_power_off: Option<Ec2PowerOffArg>,
    /// ec2: the service's URL as the instances reach it (their agents heartbeat there),
    /// e.g. http://10.0.0.5:8080.
    #[arg(long, value_name = "URL")]
    pub ec2_service_url: Option<String>,
    /// ec2: user-data template file ({vm}, {host_id}, {cluster}, {service_url},
    /// {agent_token}, {frugal}, {runtime_args} are filled per VM) [default: the built-in
    /// one, the book's deployment chapter].
    #[arg(long, value_name = "FILE")]
    pub ec2_user_data: Option<PathBuf>,
    /// ec2: path of `frugal` on the image [default: /usr/local/bin/frugal].
    #[arg(long)]
    pub ec2_frugal_path: Option<String>,
    /// With hosts: file with the agents' token (created, mode 0600, if missing);
    /// FRUGAL_AGENT_TOKEN overrides it [default: frugal-agent.token].
    #[arg(long)]
    pub agent_token_file: Option<PathBuf>,
    /// With hosts: seconds without a heartbeat after which a host is lost, in [2, 3600]
    /// (agents beat every second) [default: 10].
    #[arg(long, value_parser = number_in(2.0, 3600.0))]
    pub host_timeout: Option<f64>,
    /// With hosts: seconds a powered-on host (or an ordered worker) has to show up, in
    /// [2, 3600] [default: 60].
    #[arg(long, value_parser = number_in(2.0, 3600.0))]
    pub boot_timeout: Option<f64>,
    /// Cluster preset or TOML file (as for `simulate`).
    #[arg(long, value_name = "PRESET|FILE", default_value = "small-hybrid", value_parser = ClusterParser)]
    pub cluster: ClusterSource,
    /// Pricing model of the hybrid presets [default: 1].
    #[arg(long, value_parser = choice::<PricingModel>())]
    pub pricing: Option<PricingModel>,
    /// Placement policy (any `simulate` policy, or rl:<checkpoint>).
    #[arg(long, default_value = "optimal", value_parser = PolicyParser)]
    pub policy: PolicySpec,
    /// Queue discipline [default: the policy's published one].
    #[arg(long, value_parser = choice::<QueueDiscipline>())]
    pub queue: Option<QueueDiscipline>,
    /// Drop jobs predicted to miss their deadline (paper 000 Eq. 15).
    #[arg(long)]
    pub admission_control: bool,
    /// Slowdown the policies' duration model gives a placement against the job kind's
    /// spread/consolidate preference (paper 002 §7.1), in [0, 100]; papers 000 and 004
    /// have none (0).
    #[arg(long, default_value_t = 0.3, value_parser = number_in(0.0, 100.0))]
    pub kind_penalty: f64,
    /// Jobs slow each other in the service's estimates: a contention model file (as
    /// `frugal simulate --contention`; frugal's extension) [default: none].
    #[arg(long, value_name = "FILE", value_parser = crate::simulate::contention_file)]
    pub contention: Option<frugal_core::ContentionModel>,
    /// Behind a head job that cannot be placed: EASY backfilling (no job waits forever
    /// behind it) or none (the papers' head-of-line blocking).
    #[arg(long, value_parser = choice::<frugal_core::Backfill>(), default_value = "easy")]
    pub backfill: frugal_core::Backfill,
    /// Cap on the fleet's running price, dollars per hour (> 0): a placement that would
    /// turn VMs on beyond it waits, its reason saying so.
    #[arg(long, value_name = "DOLLARS", value_parser = number_in(1e-9, 1e12))]
    pub budget_per_hour: Option<f64>,
    /// How long an idle VM stays on before it is turned off: service seconds, or
    /// `paid-hour` (until the hour it has paid for ends, under per-hour billing) — as
    /// `frugal simulate --keep-alive`.
    #[arg(long, default_value = "0", value_name = "SECONDS|paid-hour")]
    pub keep_alive: frugal_core::KeepAlive,
    /// emulated: service seconds per wall-clock second, in (0, 1e6] [default: 60].
    #[arg(long, value_parser = number_in(1e-6, 1e6))]
    pub speedup: Option<f64>,
    /// Open client connections at most.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_connections: u32,
    /// Seconds a client has to send a request's headers (slowloris), in (0, 3600].
    #[arg(long, default_value_t = 5.0, value_parser = number_in(0.001, 3600.0))]
    pub header_timeout: f64,
    /// Seconds to read and answer a request (408 past it), in (0, 3600].
    #[arg(long, default_value_t = 10.0, value_parser = number_in(0.001, 3600.0))]
    pub request_timeout: f64,
    /// Jobs waiting for placement at most (503 with Retry-After past it).
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_queued: u32,
    /// Service seconds an ended job stays in memory (then only in the database), in
    /// [0, 10 years].
    #[arg(long, default_value_t = 3600.0, value_parser = number_in(0.0, 315_576_000.0))]
    pub retention: f64,
    /// SQLite: WAL size (MiB) past which the WAL is truncated (it stays under this plus
    /// a tenth of a second of writes).
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub wal_limit_mib: u32,
}

/// Starts the service and serves until interrupted; an error (exit status 1) if the
/// scheduling loop ever stops.
pub fn run(a: &ServeArgs) -> Result<()> {
    raise_file_limit();
    let (cfg, policy) = build(a)?;
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(frugal_service::serve(cfg, policy))?;
    Ok(())
}

/// Raises the open-file limit to its hard maximum: every client connection is a file
/// descriptor, and the default soft limit (often 1,024) would let a few hundred idle
/// connections starve new clients. The connection cap stays below it.
pub fn raise_file_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
}

/// The API token: `FRUGAL_API_TOKEN`, else the file's first line, else a new random
/// token written to the file (mode 0600).
pub fn token(file: &Path) -> Result<String> {
    secret(file, TOKEN_ENV, true)
}

/// A bearer token: the environment variable `env`, else the file's first line, else (if
/// `create`) a new random 256-bit token written to the file (mode 0600).
pub fn secret(file: &Path, env: &str, create: bool) -> Result<String> {
    if let Ok(t) = std::env::var(env)
        && !t.trim().is_empty()
    {
        return Ok(t.trim().to_string());
    }
    match std::fs::read_to_string(file) {
        Ok(text) => {
            let t = text.lines().next().unwrap_or("").trim().to_string();
            anyhow::ensure!(!t.is_empty(), "token file {}: empty", file.display());
            Ok(t)
        }
        Err(e) if create && e.kind() == std::io::ErrorKind::NotFound => {
            let bytes: [u8; 32] = rand::rng().random();
            let t: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(file)
                .with_context(|| format!("token file {}", file.display()))?;
            writeln!(f, "{t}")?;
            tracing::info!(file = %file.display(), "wrote a new token");
            Ok(t)
        }
        Err(e) => Err(e).with_context(|| format!("token file {}", file.display())),
    }
}

fn parse_tag(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?}: expected KEY=VALUE"))?;
    if k.is_empty() || k.len() > 128 || v.len() > 256 {
        return Err(format!(
            "{s:?}: a key of 1–128 and a value of 0–256 characters"
        ));
    }
    Ok((k.to_string(), v.to_string()))
}

/// The `--ec2-*` flags given (for refusing them where they cannot apply).
fn ec2_flags(a: &ServeArgs) -> [(&'static str, bool); 14] {
    [
        ("--ec2-cluster-id", a.ec2_cluster_id.is_some()),
        ("--ec2-region", a.ec2_region.is_some()),
        ("--ec2-endpoint", a.ec2_endpoint.is_some()),
        ("--ec2-image-id", a.ec2_image_id.is_some()),
        ("--ec2-launch-template", a.ec2_launch_template.is_some()),
        ("--ec2-subnet", a.ec2_subnet.is_some()),
        ("--ec2-security-groups", !a.ec2_security_groups.is_empty()),
        ("--ec2-instance-profile", a.ec2_instance_profile.is_some()),
        ("--ec2-key-name", a.ec2_key_name.is_some()),
        ("--ec2-tag", !a.ec2_tags.is_empty()),
        ("--ec2-power-off", a.ec2_power_off.is_some()),
        ("--ec2-service-url", a.ec2_service_url.is_some()),
        ("--ec2-user-data", a.ec2_user_data.is_some()),
        ("--ec2-frugal-path", a.ec2_frugal_path.is_some()),
    ]
}

/// The EC2 provisioner's settings from the --ec2-* flags and the cluster file's VM groups
/// (instance types and capacity types).
fn ec2_settings(a: &ServeArgs) -> Result<frugal_service::provision::ec2::Ec2Settings> {
    use frugal_service::provision::ec2::{DEFAULT_USER_DATA, Ec2Settings, Ec2Vm, PowerOff};
    let usage = |m: String| anyhow::Error::from(Usage(anyhow::anyhow!(m)));
    let config = a.cluster.config(a.pricing)?;
    let vms = config
        .vm_capacities()
        .into_iter()
        .map(|(t, c)| Ec2Vm {
            instance_type: t.to_string(),
            spot: c == frugal_core::Capacity::Spot,
        })
        .collect();
    let user_data = match &a.ec2_user_data {
        Some(f) => std::fs::read_to_string(f)
            .map_err(|e| usage(format!("--ec2-user-data {}: {e}", f.display())))?,
        None => DEFAULT_USER_DATA.to_string(),
    };
    let service_url = a.ec2_service_url.clone().ok_or_else(|| {
        usage("--ec2-service-url: the URL the instances reach the service at is needed".into())
    })?;
    let settings = Ec2Settings {
        cluster: a.ec2_cluster_id.clone().unwrap_or_else(|| "frugal".into()),
        region: a.ec2_region.clone(),
        endpoint: a.ec2_endpoint.clone(),
        image_id: a.ec2_image_id.clone(),
        launch_template: a.ec2_launch_template.clone(),
        subnet: a.ec2_subnet.clone(),
        security_groups: a.ec2_security_groups.clone(),
        instance_profile: a.ec2_instance_profile.clone(),
        key_name: a.ec2_key_name.clone(),
        tags: a.ec2_tags.clone(),
        power_off: match a.ec2_power_off {
            Some(Ec2PowerOffArg::Stop) => PowerOff::Stop,
            _ => PowerOff::Terminate,
        },
        service_url,
        user_data,
        frugal_path: a
            .ec2_frugal_path
            .clone()
            .unwrap_or_else(|| "/usr/local/bin/frugal".into()),
        vms,
    };
    settings.validate().map_err(usage)?;
    Ok(settings)
}

/// The provisioner of the VMs' hosts; the API must be reachable on the control address,
/// where the agents call it (for EC2, at `--ec2-service-url`).
fn provisioner(a: &ServeArgs, agent_token: &str) -> Result<ProvisionerKind> {
    let chosen = a.provisioner.unwrap_or(ProvisionerArg::Loopback);
    if a.testbed && chosen != ProvisionerArg::Netns {
        anyhow::bail!(Usage(anyhow::anyhow!(
            "--testbed applies to --provisioner netns only"
        )));
    }
    if chosen != ProvisionerArg::Ec2
        && let Some((flag, _)) = ec2_flags(a).into_iter().find(|(_, given)| *given)
    {
        anyhow::bail!(Usage(anyhow::anyhow!(
            "{flag} applies to --provisioner ec2 only"
        )));
    }
    if chosen == ProvisionerArg::Ec2 {
        if a.netns_prefix.is_some() || a.netns_subnet.is_some() {
            anyhow::bail!(Usage(anyhow::anyhow!(
                "--netns-prefix and --netns-subnet apply to --provisioner netns only"
            )));
        }
        let control = match a.bind.ip() {
            std::net::IpAddr::V4(ip) => ip,
            std::net::IpAddr::V6(_) => anyhow::bail!(Usage(anyhow::anyhow!(
                "--bind {}: the EC2 provisioner's control node needs an IPv4 address",
                a.bind
            ))),
        };
        return Ok(ProvisionerKind::Ec2 {
            settings: Box::new(ec2_settings(a)?),
            agent_token: agent_token.to_string(),
            control,
        });
    }
    let kind = match chosen {
        ProvisionerArg::Loopback => {
            if a.netns_prefix.is_some() || a.netns_subnet.is_some() {
                anyhow::bail!(Usage(anyhow::anyhow!(
                    "--netns-prefix and --netns-subnet apply to --provisioner netns only"
                )));
            }
            ProvisionerKind::Loopback
        }
        ProvisionerArg::Netns => ProvisionerKind::Netns {
            prefix: a.netns_prefix.clone().unwrap_or_else(|| "frugal".into()),
            subnet: a
                .netns_subnet
                .unwrap_or(std::net::Ipv4Addr::new(10, 77, 0, 0)),
            testbed: testbed(a)?,
        },
        ProvisionerArg::Ec2 => unreachable!("handled above"),
    };
    let control = kind.control_address();
    let ip = a.bind.ip();
    if !(ip.is_unspecified() || ip == std::net::IpAddr::V4(control)) {
        anyhow::bail!(Usage(anyhow::anyhow!(
            "--bind {}: the hosts' agents call the service on the control address {control}; \
             bind to {control}:{port} or 0.0.0.0:{port}",
            a.bind,
            port = a.bind.port()
        )));
    }
    Ok(kind)
}

/// The testbed of `--testbed`, sized to the cluster's VMs, or `None`.
fn testbed(a: &ServeArgs) -> Result<Option<Testbed>> {
    if !a.testbed {
        return Ok(None);
    }
    let (cluster, _) = a.cluster.build(a.pricing, None, 1)?;
    Ok(Some(Testbed {
        core_share: a.testbed_core_share.unwrap_or(0.25),
        mib_per_gib: a.testbed_mib_per_gib.unwrap_or(1024),
        in_site_mbit: a.testbed_in_site_mbit.unwrap_or(1000.0),
        cross_site_mbit: a.testbed_cross_site_mbit.unwrap_or(300.0),
        vms: cluster.vms.iter().map(|v| (v.site, v.capacity)).collect(),
    }))
}

/// A usage error naming the first flag given that the chosen backend (and hosts or
/// none) cannot use.
fn reject_flags_that_cannot_apply(a: &ServeArgs) -> Result<()> {
    let spark = [
        ("--python", a.python.is_some()),
        ("--spark-dir", a.spark_dir.is_some()),
        ("--spark-port", a.spark_port.is_some()),
        ("--spark-ui-port", a.spark_ui_port.is_some()),
    ];
    let hosts = [
        ("--netns-prefix", a.netns_prefix.is_some()),
        ("--netns-subnet", a.netns_subnet.is_some()),
        ("--testbed", a.testbed),
        ("--hosts-dir", a.hosts_dir.is_some()),
        ("--agent-token-file", a.agent_token_file.is_some()),
        ("--host-timeout", a.host_timeout.is_some()),
        ("--boot-timeout", a.boot_timeout.is_some()),
    ];
    let (given, why): (Vec<(&str, bool)>, &str) = match a.backend {
        BackendArg::Emulated if a.provisioner.is_none() => (
            spark.into_iter().chain(hosts).chain(ec2_flags(a)).collect(),
            "the emulated backend without --provisioner runs in-process \
             (add --provisioner for hosts, or use --backend spark-standalone)",
        ),
        BackendArg::Emulated => (
            spark.into_iter().collect(),
            "it applies to --backend spark-standalone only",
        ),
        BackendArg::SparkStandalone => (
            vec![
                ("--speedup", a.speedup.is_some()),
                ("--hosts-dir", a.hosts_dir.is_some()),
            ],
            "spark-standalone runs in real time and keeps its hosts in <--spark-dir>/hosts",
        ),
    };
    match given.into_iter().find(|&(_, is_given)| is_given) {
        Some((flag, _)) => Err(Usage(anyhow::anyhow!("{flag} cannot apply: {why}")).into()),
        None => Ok(()),
    }
}

/// The VMs' hosts, their agents' files in `hosts_dir`, and the agent token.
fn hosts(a: &ServeArgs, hosts_dir: PathBuf) -> Result<(HostsConfig, String)> {
    let token_file = a
        .agent_token_file
        .as_deref()
        .unwrap_or(Path::new("frugal-agent.token"));
    let agent_token = secret(token_file, AGENT_TOKEN_ENV, true)?;
    let hosts = HostsConfig {
        provisioner: provisioner(a, &agent_token)?,
        frugal: std::env::current_exe()?,
        agent_token_file: std::path::absolute(token_file)?,
        service_port: a.bind.port(),
        hosts_dir,
        timeouts: HostTimeouts {
            lost_after: Duration::from_secs_f64(a.host_timeout.unwrap_or(10.0)),
            boot: Duration::from_secs_f64(a.boot_timeout.unwrap_or(60.0)),
        },
    };
    Ok((hosts, agent_token))
}

/// The service's configuration and policy from the command line.
pub fn build(a: &ServeArgs) -> Result<(ServiceConfig, Box<dyn PlacementPolicy>)> {
    let (cluster, billing) = a.cluster.build(a.pricing, None, 1)?;
    let choice = &a.policy;
    let params = PolicyParams::default();
    let policy = build_policy(choice, &params, &cluster, &frugal_agents::load_policy)?;
    let discipline = a.queue.unwrap_or(policy.default_queue());
    let apps_dir = match &a.apps_dir {
        Some(d) => d.clone(),
        None => PathBuf::from(BUNDLED_APPS),
    };
    let apps_dir = std::fs::canonicalize(&apps_dir)
        .with_context(|| format!("--apps-dir {}", apps_dir.display()))?;
    reject_flags_that_cannot_apply(a)?;
    let speedup = a.speedup.unwrap_or(60.0);
    let (backend, agent_token) = match a.backend {
        BackendArg::Emulated if a.provisioner.is_none() => {
            let hosts = None;
            (BackendConfig::Emulated { speedup, hosts }, None)
        }
        BackendArg::Emulated => {
            let dir = a.hosts_dir.as_deref().unwrap_or(Path::new("frugal-hosts"));
            let (hosts, agent_token) = hosts(a, std::path::absolute(dir)?)?;
            let hosts = Some(hosts);
            (
                BackendConfig::Emulated { speedup, hosts },
                Some(agent_token),
            )
        }
        BackendArg::SparkStandalone => {
            let spark_dir = a.spark_dir.as_deref().unwrap_or(Path::new("frugal-spark"));
            let work_dir = std::path::absolute(spark_dir)?;
            let (hosts, agent_token) = hosts(a, work_dir.join("hosts"))?;
            let python = a.python.as_deref().unwrap_or(Path::new("python3"));
            let mut spark = SparkConfig::discover(python, &work_dir, hosts)?;
            spark.master_port = a.spark_port.unwrap_or(17077);
            spark.master_ui_port = a.spark_ui_port.unwrap_or(18080);
            spark.apps_dir = apps_dir.clone();
            spark.exit_recorder = Some(std::env::current_exe()?);
            (
                BackendConfig::SparkStandalone(Box::new(spark)),
                Some(agent_token),
            )
        }
    };
    let database_url = a
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite:{}", a.db.display()));
    let cfg = ServiceConfig {
        bind: a.bind,
        metrics_bind: a.metrics_bind,
        database_url,
        durability: a.durability,
        cluster,
        billing,
        keep_alive: a.keep_alive,
        scheduler: SchedulerConfig {
            discipline,
            admission_control: a.admission_control,
            rut: params.rut,
            duration: DurationModel {
                kind_penalty: a.kind_penalty,
                contention: a.contention,
                ..DurationModel::default()
            },
            boot_latency_s: 0.0,
            charge_decision_time: false,
            backfill: a.backfill,
        },
        policy_label: choice.to_string(),
        budget_per_hour: a.budget_per_hour,
        backend,
        token: token(&a.token_file)?,
        agent_token,
        apps_dir,
        limits: Limits {
            max_connections: a.max_connections as usize,
            header_read_timeout: Duration::from_secs_f64(a.header_timeout),
            request_timeout: Duration::from_secs_f64(a.request_timeout),
            max_queued: a.max_queued as usize,
            retention_s: a.retention,
            store: StoreLimits {
                wal_limit_bytes: u64::from(a.wal_limit_mib) << 20,
                ..StoreLimits::default()
            },
            ..Limits::default()
        },
    };
    tracing::info!(
        bind = %a.bind,
        cluster = %a.cluster,
        vms = cfg.cluster.len(),
        policy = %choice.to_string(),
        queue = discipline.name(),
        backend = ?a.backend,
        "frugal serve"
    );
    Ok((cfg, policy))
}
