//! [`ServeSpec`]: the service as a user configures it — one typed spec for every face.
//! `frugal serve`'s flags are derived on it (feature `clap`), its configuration file
//! (`frugal serve --config FILE`, TOML) has one key per flag (the flag's name without the
//! dashes), and `frugal live` builds one and writes it as that file. [`ServeSpec::check`]
//! holds every rule on the values (ranges, settings that go together), so a flag and a
//! file's key are refused in the same words; [`ServeSpec::build`] makes the
//! [`ServiceConfig`](crate::ServiceConfig) and the placement policy.
//!
//! Precedence: a flag given on the command line wins over the file's key, which wins over
//! the default ([`ServeSpec::over`]): every field is unset unless given (`None`, `false`,
//! empty), and its default is taken where it is used.

mod build;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use frugal_core::spec::{SpecError, each_in};
use frugal_core::{Backfill, KeepAlive, PolicySpec, PricingModel, QueueDiscipline};
use frugal_sim::options::choices::ClusterSource;

use crate::Durability;
use crate::provision::ec2::PowerOff;

pub use build::{AGENT_TOKEN_ENV, TOKEN_ENV, secret};

frugal_core::choice! {
    /// Which backend runs the jobs.
    pub enum Backend {
        Emulated = "emulated": "In-process cluster in real time (× --speedup); nothing to install",
        SparkStandalone = "spark-standalone": "A real Spark standalone master and workers on loopback (Java 17, pip pyspark)",
    }
}

frugal_core::choice! {
    /// How the VMs' hosts are provisioned (each runs a node agent).
    pub enum Provisioner {
        Loopback = "loopback": "Every VM a loopback address of this machine (127.0.0.{k+2}), its agent a local process",
        Netns = "netns": "Every VM a network namespace with its own address on a bridge (root needed)",
        Ec2 = "ec2": "Every VM an EC2 instance of its instance type, on demand or spot (a frugal built with `--features ec2`; settings: the ec2-* keys)",
    }
}

/// Options of `frugal serve`: each field is a flag (`--field-name`) and a key of the
/// configuration file (`field-name = …`). Durations are seconds, rates Mbit/s, prices
/// dollars; `None` takes the default named in the field's doc.
/// Its `Default` has every field unset: the defaults each field's doc names.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[cfg_attr(feature = "clap", command(allow_negative_numbers = true))]
#[serde(default, rename_all = "kebab-case", deny_unknown_fields)]
pub struct ServeSpec {
    /// Address of the API [default: 127.0.0.1:8080].
    #[cfg_attr(feature = "clap", arg(long))]
    pub bind: Option<SocketAddr>,
    /// Also serve /healthz, /readyz and /metrics (no token) on this address.
    #[cfg_attr(feature = "clap", arg(long))]
    pub metrics_bind: Option<SocketAddr>,
    /// SQLite database file (created if missing, mode 0600); accepted jobs, placements
    /// and VM power history survive restarts there [default: frugal.db].
    #[cfg_attr(feature = "clap", arg(long))]
    pub db: Option<PathBuf>,
    /// Database URL instead of --db, e.g. postgres://user:password@localhost/frugal.
    #[cfg_attr(feature = "clap", arg(long))]
    pub database_url: Option<String>,
    /// What an acknowledged submission survives [default: process].
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Durability>()))]
    pub durability: Option<Durability>,
    /// The API token: read from this file, which is created (mode 0600, a random
    /// 256-bit token) if missing; the environment variable FRUGAL_API_TOKEN overrides it.
    /// Clients send `Authorization: Bearer <token>` [default: frugal.token].
    #[cfg_attr(feature = "clap", arg(long))]
    pub token_file: Option<PathBuf>,
    /// Directory submitted applications must be in [default: the bundled spark/ apps].
    #[cfg_attr(feature = "clap", arg(long))]
    pub apps_dir: Option<PathBuf>,
    /// Backend [default: emulated].
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Backend>()))]
    pub backend: Option<Backend>,
    /// spark-standalone: Python with pyspark (drivers and executors run it)
    /// [default: python3].
    #[cfg_attr(feature = "clap", arg(long))]
    pub python: Option<PathBuf>,
    /// spark-standalone: directory for logs, PID files and exit statuses
    /// [default: frugal-spark].
    #[cfg_attr(feature = "clap", arg(long))]
    pub spark_dir: Option<PathBuf>,
    /// spark-standalone: master RPC port (its web UI is on --spark-ui-port)
    /// [default: 17077].
    #[cfg_attr(feature = "clap", arg(long))]
    pub spark_port: Option<u16>,
    /// spark-standalone: master web UI port (bound to the control address)
    /// [default: 18080].
    #[cfg_attr(feature = "clap", arg(long))]
    pub spark_ui_port: Option<u16>,
    /// How VMs' hosts are powered on and off, each running a node agent: spark-standalone
    /// always has hosts [default: loopback]; emulated has them only with this flag
    /// (placeholder workers instead of Spark's), else runs all in-process.
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Provisioner>()))]
    pub provisioner: Option<Provisioner>,
    /// netns: prefix of namespace, link and bridge names (1–8 letters or digits)
    /// [default: frugal].
    #[cfg_attr(feature = "clap", arg(long))]
    pub netns_prefix: Option<String>,
    /// netns: the /24 subnet of the hosts; the control node (this service, the master and
    /// the drivers) is .1, VM k is .(k+2) [default: 10.77.0.0].
    #[cfg_attr(feature = "clap", arg(long))]
    pub netns_subnet: Option<Ipv4Addr>,
    /// netns: a hybrid testbed on this machine — the cloud site's VMs on a second bridge
    /// behind a rate-limited link, every VM's link rate-limited, and each VM's processes
    /// in cgroups sized to its instance type (root, cgroup v1 `cpu` and `memory`, `tc`;
    /// the book's chapter on live experiments).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub testbed: bool,
    /// --testbed: share of one physical core each VM core gets, in [0.001, 64]
    /// [default: 0.25].
    #[cfg_attr(feature = "clap", arg(long, value_name = "SHARE"))]
    pub testbed_core_share: Option<f64>,
    /// --testbed: MiB of this machine's memory per GiB of a VM's instance type, in
    /// [64, 65,536] [default: 1024].
    #[cfg_attr(feature = "clap", arg(long, value_name = "MIB"))]
    pub testbed_mib_per_gib: Option<u32>,
    /// --testbed: rate of each VM's link within its site, Mbit/s in [1, 100,000]
    /// [default: 1000].
    #[cfg_attr(feature = "clap", arg(long, value_name = "MBIT"))]
    pub testbed_in_site_mbit: Option<f64>,
    /// --testbed: rate of the link between the two sites, each direction, Mbit/s in
    /// [1, 100,000] [default: 300, paper 000 §7.1's 2 Gbit/s within a region to 600 Mbit/s
    /// across].
    #[cfg_attr(feature = "clap", arg(long, value_name = "MBIT"))]
    pub testbed_cross_site_mbit: Option<f64>,
    /// emulated with --provisioner: directory of the hosts' agents (vm<k>/: PID file,
    /// log, workers) [default: frugal-hosts]; spark-standalone keeps them in
    /// <--spark-dir>/hosts.
    #[cfg_attr(feature = "clap", arg(long))]
    pub hosts_dir: Option<PathBuf>,
    /// ec2: the cluster's id, the value of the frugal.io/cluster tag of its instances (1–24
    /// of [A-Za-z0-9-]) [default: frugal].
    #[cfg_attr(feature = "clap", arg(long))]
    pub ec2_cluster_id: Option<String>,
    /// ec2: region [default: the standard chain: AWS_REGION, the profile].
    #[cfg_attr(feature = "clap", arg(long))]
    pub ec2_region: Option<String>,
    /// ec2: endpoint of the EC2 API (e.g. a local server for tests) [default: AWS's, or
    /// AWS_ENDPOINT_URL].
    #[cfg_attr(feature = "clap", arg(long, value_name = "URL"))]
    pub ec2_endpoint: Option<String>,
    /// ec2: AMI of the instances (with `frugal` on it, and Spark for the Spark backend).
    #[cfg_attr(feature = "clap", arg(long))]
    pub ec2_image_id: Option<String>,
    /// ec2: launch template id (lt-…) or name, instead of or besides --ec2-image-id.
    #[cfg_attr(feature = "clap", arg(long))]
    pub ec2_launch_template: Option<String>,
    /// ec2: subnet id to launch into.
    #[cfg_attr(feature = "clap", arg(long))]
    pub ec2_subnet: Option<String>,
    /// ec2: comma-separated security group ids.
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ','))]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ec2_security_groups: Vec<String>,
    /// ec2: IAM instance profile name or ARN.
    #[cfg_attr(feature = "clap", arg(long))]
    pub ec2_instance_profile: Option<String>,
    /// ec2: SSH key pair name.
    #[cfg_attr(feature = "clap", arg(long))]
    pub ec2_key_name: Option<String>,
    /// ec2: a tag for every instance, KEY=VALUE (a key of 1–128 and a value of 0–256
    /// characters); repeat for several.
    #[cfg_attr(feature = "clap", arg(long = "ec2-tag", value_name = "KEY=VALUE"))]
    #[serde(rename = "ec2-tag", skip_serializing_if = "Vec::is_empty")]
    pub ec2_tags: Vec<String>,
    /// ec2: what powering a VM off does [default: terminate].
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<PowerOff>()))]
    pub ec2_power_off: Option<PowerOff>,
    /// ec2: the service's URL as the instances reach it (their agents heartbeat there),
    /// e.g. http://10.0.0.5:8080.
    #[cfg_attr(feature = "clap", arg(long, value_name = "URL"))]
    pub ec2_service_url: Option<String>,
    /// ec2: user-data template file ({agent_toml}, the agent's configuration with its
    /// address as @address@; {vm}, {host_id}, {cluster}, {service_url}, {agent_token},
    /// {frugal}, {runtime_args} are filled per VM) [default: the built-in one, the book's
    /// deployment chapter].
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub ec2_user_data: Option<PathBuf>,
    /// ec2: path of `frugal` on the image [default: /usr/local/bin/frugal].
    #[cfg_attr(feature = "clap", arg(long))]
    pub ec2_frugal_path: Option<String>,
    /// With hosts: file with the agents' token (created, mode 0600, if missing);
    /// FRUGAL_AGENT_TOKEN overrides it [default: frugal-agent.token].
    #[cfg_attr(feature = "clap", arg(long))]
    pub agent_token_file: Option<PathBuf>,
    /// With hosts: seconds without a heartbeat after which a host is lost, in [2, 3600]
    /// (agents beat every second) [default: 10].
    #[cfg_attr(feature = "clap", arg(long))]
    pub host_timeout: Option<f64>,
    /// With hosts: seconds a powered-on host (or an ordered worker) has to show up, in
    /// [2, 3600] [default: 60].
    #[cfg_attr(feature = "clap", arg(long))]
    pub boot_timeout: Option<f64>,
    /// Cluster preset or TOML file (as for `simulate`) [default: small-hybrid].
    #[cfg_attr(feature = "clap", arg(long, value_name = "PRESET|FILE", value_parser = frugal_sim::options::choices::ClusterParser))]
    pub cluster: Option<ClusterSource>,
    /// Pricing model of the hybrid presets [default: 1].
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<PricingModel>()))]
    pub pricing: Option<PricingModel>,
    /// Placement policy (any `simulate` policy, or rl:<checkpoint>) [default: optimal].
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::PolicyParser))]
    pub policy: Option<PolicySpec>,
    /// Queue discipline [default: the policy's published one].
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<QueueDiscipline>()))]
    pub queue: Option<QueueDiscipline>,
    /// Drop jobs predicted to miss their deadline (paper 000 Eq. 15).
    #[cfg_attr(feature = "clap", arg(long))]
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub admission_control: bool,
    /// Slowdown the policies' duration model gives a placement against the job kind's
    /// spread/consolidate preference (paper 002 §7.1), in [0, 100]; papers 000 and 004
    /// have none (0) [default: 0.3].
    #[cfg_attr(feature = "clap", arg(long))]
    pub kind_penalty: Option<f64>,
    /// Jobs slow each other in the service's estimates: a contention model file (as
    /// `frugal simulate --contention`; frugal's extension) [default: none].
    #[cfg_attr(feature = "clap", arg(long, value_name = "FILE"))]
    pub contention: Option<PathBuf>,
    /// Behind a head job that cannot be placed: EASY backfilling (no job waits forever
    /// behind it) or none (the papers' head-of-line blocking) [default: easy].
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Backfill>()))]
    pub backfill: Option<Backfill>,
    /// Cap on the fleet's running price, dollars per hour (> 0): a placement that would
    /// turn VMs on beyond it waits, its reason saying so.
    #[cfg_attr(feature = "clap", arg(long, value_name = "DOLLARS"))]
    pub budget_per_hour: Option<f64>,
    /// How long an idle VM stays on before it is turned off: service seconds, or
    /// `paid-hour` (until the hour it has paid for ends, under per-hour billing) — as
    /// `frugal simulate --keep-alive` [default: 0].
    #[cfg_attr(feature = "clap", arg(long, value_name = "SECONDS|paid-hour"))]
    pub keep_alive: Option<KeepAlive>,
    /// emulated: service seconds per wall-clock second, in (0, 1e6] [default: 60].
    #[cfg_attr(feature = "clap", arg(long))]
    pub speedup: Option<f64>,
    /// Open client connections at most, in [1, 1,000,000] [default: 4096].
    #[cfg_attr(feature = "clap", arg(long))]
    pub max_connections: Option<u32>,
    /// Seconds a client has to send a request's headers (slowloris), in (0, 3600]
    /// [default: 5].
    #[cfg_attr(feature = "clap", arg(long))]
    pub header_timeout: Option<f64>,
    /// Seconds to read and answer a request (408 past it), in (0, 3600] [default: 10].
    #[cfg_attr(feature = "clap", arg(long))]
    pub request_timeout: Option<f64>,
    /// Jobs waiting for placement at most (503 with Retry-After past it), ≥ 1
    /// [default: 100,000].
    #[cfg_attr(feature = "clap", arg(long))]
    pub max_queued: Option<u32>,
    /// Service seconds an ended job stays in memory (then only in the database), in
    /// [0, 10 years] [default: 3600].
    #[cfg_attr(feature = "clap", arg(long))]
    pub retention: Option<f64>,
    /// SQLite: WAL size (MiB) past which the WAL is truncated (it stays under this plus
    /// a tenth of a second of writes), in [1, 65,536] [default: 128].
    #[cfg_attr(feature = "clap", arg(long))]
    pub wal_limit_mib: Option<u32>,
}

impl frugal_core::spec::ConfigFile for ServeSpec {}

impl ServeSpec {
    /// The cluster [default: `small-hybrid`].
    pub fn cluster(&self) -> ClusterSource {
        self.cluster
            .clone()
            .unwrap_or(ClusterSource::Preset(frugal_core::Preset::SmallHybrid))
    }

    /// The placement policy [default: `optimal`].
    pub fn policy(&self) -> PolicySpec {
        self.policy
            .clone()
            .unwrap_or(PolicySpec::Builtin(frugal_core::PolicyKind::Optimal))
    }

    /// The backend [default: emulated].
    pub fn backend(&self) -> Backend {
        self.backend.unwrap_or(Backend::Emulated)
    }

    /// The address of the API [default: 127.0.0.1:8080].
    pub fn bind(&self) -> SocketAddr {
        self.bind
            .unwrap_or(SocketAddr::from(([127, 0, 0, 1], 8080)))
    }

    /// Checks every value alone and the settings that must go together; the rules the
    /// command line and the configuration file share.
    ///
    /// # Errors
    /// [`SpecError`] naming the field at fault.
    pub fn check(&self) -> Result<(), SpecError> {
        if self.contention.is_none()
            && let Some(why) = PolicySpec::missing_contention(&[self.policy()])
        {
            return Err(SpecError::new("contention", why));
        }
        each_in(
            "testbed-core-share",
            self.testbed_core_share.as_slice(),
            1e-3,
            64.0,
        )?;
        each_in(
            "testbed-mib-per-gib",
            self.testbed_mib_per_gib.as_slice(),
            64,
            65_536,
        )?;
        each_in(
            "testbed-in-site-mbit",
            self.testbed_in_site_mbit.as_slice(),
            1.0,
            1e5,
        )?;
        each_in(
            "testbed-cross-site-mbit",
            self.testbed_cross_site_mbit.as_slice(),
            1.0,
            1e5,
        )?;
        each_in("host-timeout", self.host_timeout.as_slice(), 2.0, 3600.0)?;
        each_in("boot-timeout", self.boot_timeout.as_slice(), 2.0, 3600.0)?;
        each_in("kind-penalty", self.kind_penalty.as_slice(), 0.0, 100.0)?;
        each_in(
            "budget-per-hour",
            self.budget_per_hour.as_slice(),
            1e-9,
            1e12,
        )?;
        each_in("speedup", self.speedup.as_slice(), 1e-6, 1e6)?;
        each_in(
            "header-timeout",
            self.header_timeout.as_slice(),
            1e-3,
            3600.0,
        )?;
        each_in(
            "request-timeout",
            self.request_timeout.as_slice(),
            1e-3,
            3600.0,
        )?;
        each_in("retention", self.retention.as_slice(), 0.0, 315_576_000.0)?;
        each_in(
            "max-connections",
            self.max_connections.as_slice(),
            1,
            1_000_000,
        )?;
        each_in("max-queued", self.max_queued.as_slice(), 1, u32::MAX)?;
        each_in("wal-limit-mib", self.wal_limit_mib.as_slice(), 1, 65_536)?;
        let testbed_fields = [
            ("testbed-core-share", self.testbed_core_share.is_some()),
            ("testbed-mib-per-gib", self.testbed_mib_per_gib.is_some()),
            ("testbed-in-site-mbit", self.testbed_in_site_mbit.is_some()),
            (
                "testbed-cross-site-mbit",
                self.testbed_cross_site_mbit.is_some(),
            ),
        ];
        if !self.testbed
            && let Some((field, _)) = testbed_fields.iter().find(|(_, set)| *set)
        {
            return Err(SpecError::new(*field, "applies to {testbed} only"));
        }
        for tag in &self.ec2_tags {
            build::tag(tag).map_err(|m| SpecError::new("ec2-tag", m))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
