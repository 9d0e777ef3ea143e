//! From a [`ServeSpec`] to the service's configuration: the backend, the hosts'
//! provisioner, the tokens, and the settings each backend refuses.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use rand::RngExt;

use frugal_core::policy::{PlacementPolicy, PolicyParams};
use frugal_core::spec::{Choice, SpecError};
use frugal_core::{DurationModel, SchedulerConfig};
use frugal_sim::options::choices::{AgentLoader, build_policy};

use super::{Backend, Provisioner, ServeSpec};
use crate::backend::{HostTimeouts, HostsConfig, ProvisionerKind, SparkConfig};
use crate::provision::Testbed;
use crate::{BackendConfig, Limits, ServiceConfig, StoreLimits};

/// The environment variable holding the API token (overrides `token-file`).
pub const TOKEN_ENV: &str = "FRUGAL_API_TOKEN";

/// The environment variable holding the agent token (overrides `agent-token-file`).
pub const AGENT_TOKEN_ENV: &str = "FRUGAL_AGENT_TOKEN";

/// The bundled Spark applications (the default `apps-dir` when it exists).
const BUNDLED_APPS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spark");

/// A bearer token: the environment variable `env`, else the file's first line, else (if
/// `create`) a new random 256-bit token written to the file (mode 0600).
///
/// # Errors
/// The file is empty, or cannot be read or created.
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

/// An EC2 tag `KEY=VALUE` as its key and value.
///
/// # Errors
/// No `=`, or a key outside 1–128 or a value over 256 characters.
pub(super) fn tag(s: &str) -> Result<(String, String), String> {
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

impl ServeSpec {
    /// The service's configuration and policy (`agents` loads an `rl:` checkpoint).
    /// Reads the cluster, contention and token files and makes the token files that are
    /// missing.
    ///
    /// # Errors
    /// [`SpecError`] naming the field at fault ([`ServeSpec::check`], a setting the
    /// chosen backend or provisioner cannot use); files that cannot be read.
    pub fn build(&self, agents: &AgentLoader) -> Result<(ServiceConfig, Box<dyn PlacementPolicy>)> {
        self.check()?;
        let source = self.cluster();
        let (cluster, billing) = source.build(self.pricing, None, 1)?;
        let choice = self.policy();
        let params = PolicyParams::default();
        let policy = build_policy(&choice, &params, &cluster, agents)?;
        let discipline = self.queue.unwrap_or(policy.default_queue());
        let apps_dir = match &self.apps_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(BUNDLED_APPS),
        };
        let apps_dir = std::fs::canonicalize(&apps_dir)
            .map_err(|e| SpecError::new("apps-dir", format!("{}: {e}", apps_dir.display())))?;
        self.reject_settings_that_cannot_apply()?;
        let speedup = self.speedup.unwrap_or(60.0);
        let (backend, agent_token) = match (self.backend(), self.provisioner) {
            (Backend::Emulated, None) => (
                BackendConfig::Emulated {
                    speedup,
                    hosts: None,
                },
                None,
            ),
            (Backend::Emulated, Some(_)) => {
                let dir = self
                    .hosts_dir
                    .as_deref()
                    .unwrap_or(Path::new("frugal-hosts"));
                let (hosts, agent_token) = self.hosts(std::path::absolute(dir)?)?;
                let hosts = Some(hosts);
                (
                    BackendConfig::Emulated { speedup, hosts },
                    Some(agent_token),
                )
            }
            (Backend::SparkStandalone, _) => {
                let spark_dir = self
                    .spark_dir
                    .as_deref()
                    .unwrap_or(Path::new("frugal-spark"));
                let work_dir = std::path::absolute(spark_dir)?;
                let (hosts, agent_token) = self.hosts(work_dir.join("hosts"))?;
                let python = self.python.as_deref().unwrap_or(Path::new("python3"));
                let mut spark = SparkConfig::discover(python, &work_dir, hosts)?;
                spark.master_port = self.spark_port.unwrap_or(17077);
                spark.master_ui_port = self.spark_ui_port.unwrap_or(18080);
                spark.apps_dir = apps_dir.clone();
                spark.exit_recorder = Some(std::env::current_exe()?);
                (
                    BackendConfig::SparkStandalone(Box::new(spark)),
                    Some(agent_token),
                )
            }
        };
        let database_url = self.database_url.clone().unwrap_or_else(|| {
            let db = self.db.as_deref().unwrap_or(Path::new("frugal.db"));
            format!("sqlite:{}", db.display())
        });
        let contention = match &self.contention {
            Some(f) => Some(
                frugal_core::ContentionModel::read(f)
                    .map_err(|e| SpecError::new("contention", e))?,
            ),
            None => None,
        };
        let token_file = self
            .token_file
            .as_deref()
            .unwrap_or(Path::new("frugal.token"));
        let defaults = Limits::default();
        let cfg = ServiceConfig {
            bind: self.bind(),
            metrics_bind: self.metrics_bind,
            database_url,
            durability: self.durability.unwrap_or_default(),
            cluster,
            billing,
            keep_alive: self.keep_alive.unwrap_or_default(),
            scheduler: SchedulerConfig {
                discipline,
                admission_control: self.admission_control,
                rut: params.rut,
                duration: DurationModel {
                    kind_penalty: self.kind_penalty.unwrap_or(0.3),
                    contention,
                    ..DurationModel::default()
                },
                boot_latency_s: 0.0,
                charge_decision_time: false,
                backfill: self.backfill.unwrap_or(frugal_core::Backfill::Easy),
            },
            policy_label: choice.to_string(),
            budget_per_hour: self.budget_per_hour,
            backend,
            token: secret(token_file, TOKEN_ENV, true)?,
            agent_token,
            apps_dir,
            limits: Limits {
                max_connections: self
                    .max_connections
                    .map_or(defaults.max_connections, |n| n as usize),
                header_read_timeout: self
                    .header_timeout
                    .map_or(defaults.header_read_timeout, Duration::from_secs_f64),
                request_timeout: self
                    .request_timeout
                    .map_or(defaults.request_timeout, Duration::from_secs_f64),
                max_queued: self.max_queued.map_or(defaults.max_queued, |n| n as usize),
                retention_s: self.retention.unwrap_or(defaults.retention_s),
                store: StoreLimits {
                    wal_limit_bytes: u64::from(self.wal_limit_mib.unwrap_or(128)) << 20,
                    ..StoreLimits::default()
                },
                ..defaults
            },
        };
        tracing::info!(
            bind = %cfg.bind,
            cluster = %source,
            vms = cfg.cluster.len(),
            policy = %choice,
            queue = discipline.name(),
            backend = self.backend().name(),
            "frugal serve"
        );
        Ok((cfg, policy))
    }

    /// The ec2 settings given (for refusing them where they cannot apply).
    fn ec2_fields(&self) -> [(&'static str, bool); 14] {
        [
            ("ec2-cluster-id", self.ec2_cluster_id.is_some()),
            ("ec2-region", self.ec2_region.is_some()),
            ("ec2-endpoint", self.ec2_endpoint.is_some()),
            ("ec2-image-id", self.ec2_image_id.is_some()),
            ("ec2-launch-template", self.ec2_launch_template.is_some()),
            ("ec2-subnet", self.ec2_subnet.is_some()),
            ("ec2-security-groups", !self.ec2_security_groups.is_empty()),
            ("ec2-instance-profile", self.ec2_instance_profile.is_some()),
            ("ec2-key-name", self.ec2_key_name.is_some()),
            ("ec2-tag", !self.ec2_tags.is_empty()),
            ("ec2-power-off", self.ec2_power_off.is_some()),
            ("ec2-service-url", self.ec2_service_url.is_some()),
            ("ec2-user-data", self.ec2_user_data.is_some()),
            ("ec2-frugal-path", self.ec2_frugal_path.is_some()),
        ]
    }

    /// The first setting given that the chosen backend (and hosts or none) cannot use.
    pub(super) fn reject_settings_that_cannot_apply(&self) -> Result<(), SpecError> {
        let spark = [
            ("python", self.python.is_some()),
            ("spark-dir", self.spark_dir.is_some()),
            ("spark-port", self.spark_port.is_some()),
            ("spark-ui-port", self.spark_ui_port.is_some()),
        ];
        let hosts = [
            ("netns-prefix", self.netns_prefix.is_some()),
            ("netns-subnet", self.netns_subnet.is_some()),
            ("testbed", self.testbed),
            ("hosts-dir", self.hosts_dir.is_some()),
            ("agent-token-file", self.agent_token_file.is_some()),
            ("host-timeout", self.host_timeout.is_some()),
            ("boot-timeout", self.boot_timeout.is_some()),
        ];
        let (given, why): (Vec<(&str, bool)>, &str) = match (self.backend(), self.provisioner) {
            (Backend::Emulated, None) => (
                spark
                    .into_iter()
                    .chain(hosts)
                    .chain(self.ec2_fields())
                    .collect(),
                "cannot apply: the emulated backend without {provisioner} runs in-process \
                 (add {provisioner} for hosts, or use {backend} spark-standalone)",
            ),
            (Backend::Emulated, Some(_)) => (
                spark.into_iter().collect(),
                "cannot apply: it applies to {backend} spark-standalone only",
            ),
            (Backend::SparkStandalone, _) => (
                vec![
                    ("speedup", self.speedup.is_some()),
                    ("hosts-dir", self.hosts_dir.is_some()),
                ],
                "cannot apply: spark-standalone runs in real time and keeps its hosts in \
                 <{spark-dir}>/hosts",
            ),
        };
        match given.into_iter().find(|&(_, is_given)| is_given) {
            Some((field, _)) => Err(SpecError::new(field, why)),
            None => Ok(()),
        }
    }

    /// The VMs' hosts, their agents' files in `hosts_dir`, and the agent token.
    fn hosts(&self, hosts_dir: PathBuf) -> Result<(HostsConfig, String)> {
        let token_file = self
            .agent_token_file
            .as_deref()
            .unwrap_or(Path::new("frugal-agent.token"));
        let agent_token = secret(token_file, AGENT_TOKEN_ENV, true)?;
        let hosts = HostsConfig {
            provisioner: self.provisioner_kind(&agent_token)?,
            frugal: std::env::current_exe()?,
            agent_token_file: std::path::absolute(token_file)?,
            service_port: self.bind().port(),
            hosts_dir,
            timeouts: HostTimeouts {
                lost_after: Duration::from_secs_f64(self.host_timeout.unwrap_or(10.0)),
                boot: Duration::from_secs_f64(self.boot_timeout.unwrap_or(60.0)),
            },
        };
        Ok((hosts, agent_token))
    }

    /// The provisioner of the VMs' hosts; the API must be reachable on the control
    /// address, where the agents call it (for EC2, at `ec2-service-url`).
    fn provisioner_kind(&self, agent_token: &str) -> Result<ProvisionerKind> {
        let chosen = self.provisioner.unwrap_or(Provisioner::Loopback);
        let bind = self.bind();
        if self.testbed && chosen != Provisioner::Netns {
            Err(SpecError::new(
                "testbed",
                "applies to {provisioner} netns only",
            ))?;
        }
        if chosen != Provisioner::Ec2
            && let Some((field, _)) = self.ec2_fields().into_iter().find(|(_, given)| *given)
        {
            Err(SpecError::new(field, "applies to {provisioner} ec2 only"))?;
        }
        if chosen != Provisioner::Netns {
            for (field, given) in [
                ("netns-prefix", self.netns_prefix.is_some()),
                ("netns-subnet", self.netns_subnet.is_some()),
            ] {
                if given {
                    Err(SpecError::new(field, "applies to {provisioner} netns only"))?;
                }
            }
        }
        let kind = match chosen {
            Provisioner::Ec2 => {
                let IpAddr::V4(control) = bind.ip() else {
                    Err(SpecError::new(
                        "bind",
                        format!("{bind}: the EC2 provisioner's control node needs an IPv4 address"),
                    ))?
                };
                return Ok(ProvisionerKind::Ec2 {
                    settings: Box::new(self.ec2_settings()?),
                    agent_token: agent_token.to_string(),
                    control,
                });
            }
            Provisioner::Loopback => ProvisionerKind::Loopback,
            Provisioner::Netns => ProvisionerKind::Netns {
                prefix: self.netns_prefix.clone().unwrap_or_else(|| "frugal".into()),
                subnet: self.netns_subnet.unwrap_or(Ipv4Addr::new(10, 77, 0, 0)),
                testbed: self.testbed_settings()?,
            },
        };
        let control = kind.control_address();
        let ip = bind.ip();
        if !(ip.is_unspecified() || ip == IpAddr::V4(control)) {
            Err(SpecError::new(
                "bind",
                format!(
                    "{bind}: the hosts' agents call the service on the control address \
                     {control}; bind to {control}:{port} or 0.0.0.0:{port}",
                    port = bind.port()
                ),
            ))?;
        }
        Ok(kind)
    }

    /// The EC2 provisioner's settings from the ec2 fields and the cluster file's VM
    /// groups (instance types and capacity types).
    fn ec2_settings(&self) -> Result<crate::provision::ec2::Ec2Settings> {
        use crate::provision::ec2::{DEFAULT_USER_DATA, Ec2Settings, Ec2Vm};
        let config = self.cluster().config(self.pricing)?;
        let vms = config
            .vm_capacities()
            .into_iter()
            .map(|(t, c)| Ec2Vm {
                instance_type: t.to_string(),
                spot: c == frugal_core::Capacity::Spot,
            })
            .collect();
        let user_data = match &self.ec2_user_data {
            Some(f) => std::fs::read_to_string(f)
                .map_err(|e| SpecError::new("ec2-user-data", format!("{}: {e}", f.display())))?,
            None => DEFAULT_USER_DATA.to_string(),
        };
        let service_url = self.ec2_service_url.clone().ok_or_else(|| {
            SpecError::new(
                "ec2-service-url",
                "the URL the instances reach the service at is needed",
            )
        })?;
        let tags = self
            .ec2_tags
            .iter()
            .map(|t| tag(t))
            .collect::<Result<_, _>>();
        let settings = Ec2Settings {
            cluster: self
                .ec2_cluster_id
                .clone()
                .unwrap_or_else(|| "frugal".into()),
            region: self.ec2_region.clone(),
            endpoint: self.ec2_endpoint.clone(),
            image_id: self.ec2_image_id.clone(),
            launch_template: self.ec2_launch_template.clone(),
            subnet: self.ec2_subnet.clone(),
            security_groups: self.ec2_security_groups.clone(),
            instance_profile: self.ec2_instance_profile.clone(),
            key_name: self.ec2_key_name.clone(),
            tags: tags.map_err(|m| SpecError::new("ec2-tag", m))?,
            power_off: self.ec2_power_off.unwrap_or_default(),
            service_url,
            user_data,
            frugal_path: self
                .ec2_frugal_path
                .clone()
                .unwrap_or_else(|| "/usr/local/bin/frugal".into()),
            vms,
        };
        settings.validate()?;
        Ok(settings)
    }

    /// The testbed of `testbed = true`, sized to the cluster's VMs, or `None`.
    fn testbed_settings(&self) -> Result<Option<Testbed>> {
        if !self.testbed {
            return Ok(None);
        }
        let (cluster, _) = self.cluster().build(self.pricing, None, 1)?;
        Ok(Some(Testbed {
            core_share: self.testbed_core_share.unwrap_or(0.25),
            mib_per_gib: self.testbed_mib_per_gib.unwrap_or(1024),
            in_site_mbit: self.testbed_in_site_mbit.unwrap_or(1000.0),
            cross_site_mbit: self.testbed_cross_site_mbit.unwrap_or(300.0),
            vms: cluster.vms.iter().map(|v| (v.site, v.capacity)).collect(),
        }))
    }
}
