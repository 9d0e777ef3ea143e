//! [`AgentSpec`]: every setting of `frugal agent` — its flags (derived here, feature
//! `clap`) and its configuration file (`--config`, one key per flag), the one form in which
//! a provisioner starts an agent: it writes the spec to the host's `agent.toml`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use frugal_core::spec::{ConfigFile, SpecError, each_in};

use super::protocol::HostedVm;
use super::{AgentConfig, Runtime};
use crate::spec::{AGENT_TOKEN_ENV, secret};

frugal_core::choice! {
    /// What an agent's reservation workers are.
    pub enum AgentRuntime {
        Spark = "spark": "Spark standalone workers",
        Emulated = "emulated": "Placeholder processes, for `frugal serve --backend emulated`",
    }
}

/// Options of `frugal agent`: each field is a flag (`--field-name`) and a key of the
/// configuration file (`field-name = …`); `None` takes the default named in the field's
/// doc.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "kebab-case", deny_unknown_fields)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct AgentSpec {
    /// The service's URL as this host reaches it, e.g. http://10.0.0.1:8080 (required).
    #[cfg_attr(feature = "clap", arg(long))]
    pub service: Option<String>,
    /// File holding the agent token (the service's --agent-token-file);
    /// FRUGAL_AGENT_TOKEN overrides it [default: frugal-agent.token].
    #[cfg_attr(feature = "clap", arg(long))]
    pub token_file: Option<PathBuf>,
    /// This host's id, unique in the cluster ([A-Za-z0-9_.-]; required).
    #[cfg_attr(feature = "clap", arg(long))]
    pub host_id: Option<String>,
    /// A VM this host runs, as ID=ADDRESS (the service's VM id and the IPv4 address its
    /// workers bind to); repeat for several (at least one).
    #[cfg_attr(feature = "clap", arg(long, value_name = "ID=ADDRESS"))]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub vm: Vec<String>,
    /// What the reservation workers are [default: spark].
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<AgentRuntime>()))]
    pub runtime: Option<AgentRuntime>,
    /// spark: the Spark installation [default: $SPARK_HOME].
    #[cfg_attr(feature = "clap", arg(long))]
    pub spark_home: Option<PathBuf>,
    /// Directory for worker logs, PID files and scratch space [default: frugal-agent].
    #[cfg_attr(feature = "clap", arg(long))]
    pub work_dir: Option<PathBuf>,
    /// Cores this host reports, in [1, 100,000] [default: the machine's].
    #[cfg_attr(feature = "clap", arg(long))]
    pub cores: Option<u32>,
    /// Memory this host reports, GiB in [0.001, 1e6] [default: the machine's].
    #[cfg_attr(feature = "clap", arg(long))]
    pub memory_gib: Option<f64>,
    /// On a cloud instance: poll this instance-metadata service (IMDSv2) every beat for a
    /// spot interruption notice and report it, e.g. http://169.254.169.254 on EC2 (the
    /// service then moves this host's executors before the instance is reclaimed).
    #[cfg_attr(feature = "clap", arg(long, value_name = "URL"))]
    pub interruption_notices: Option<String>,
    /// Testbeds (frugal serve --testbed sets it): run each reservation worker and its
    /// executors in a cgroup v1 cpu group of its own below the agent's, capped at this
    /// share of a physical core per core it offers, in [0.001, 64].
    #[cfg_attr(feature = "clap", arg(long, value_name = "SHARE"))]
    pub worker_core_share: Option<f64>,
}

impl ConfigFile for AgentSpec {}

impl AgentSpec {
    /// This spec with `runtime` as its `runtime` and `spark-home` (the one mapping from a
    /// provisioner's [`Runtime`] to an agent's settings).
    pub fn running(self, runtime: &Runtime) -> AgentSpec {
        let (runtime, spark_home) = match runtime {
            Runtime::Spark { spark_home } => (AgentRuntime::Spark, Some(spark_home.clone())),
            Runtime::Emulated => (AgentRuntime::Emulated, None),
        };
        AgentSpec {
            runtime: Some(runtime),
            spark_home,
            ..self
        }
    }

    /// The VMs, each `ID=ADDRESS` read.
    ///
    /// # Errors
    /// A [`SpecError`] of `vm` naming the value.
    pub fn vms(&self) -> Result<Vec<HostedVm>, SpecError> {
        if self.vm.is_empty() {
            return Err(SpecError::new(
                "vm",
                "is required (ID=ADDRESS, at least one)",
            ));
        }
        self.vm.iter().map(|s| hosted_vm(s)).collect()
    }

    /// Checks the settings: the required ones given, the ranges, the VMs.
    ///
    /// # Errors
    /// A [`SpecError`] naming the field.
    pub fn check(&self) -> Result<(), SpecError> {
        if self.service.is_none() {
            return Err(SpecError::new("service", "is required"));
        }
        if self.host_id.is_none() {
            return Err(SpecError::new("host-id", "is required"));
        }
        self.vms()?;
        each_in("cores", self.cores.as_slice(), 1, 100_000)?;
        each_in("memory-gib", self.memory_gib.as_slice(), 1e-3, 1e6)?;
        each_in(
            "worker-core-share",
            self.worker_core_share.as_slice(),
            1e-3,
            64.0,
        )?;
        if self.runtime == Some(AgentRuntime::Emulated) && self.spark_home.is_some() {
            return Err(SpecError::new(
                "spark-home",
                "applies to {runtime} spark only",
            ));
        }
        Ok(())
    }

    /// The agent's settings, the defaults filled in and its token read.
    ///
    /// # Errors
    /// A [`SpecError`] naming the field; the token file cannot be read; neither
    /// `spark-home` nor `SPARK_HOME` for Spark workers.
    pub fn build(&self) -> anyhow::Result<AgentConfig> {
        self.check()?;
        let token_file = self
            .token_file
            .clone()
            .unwrap_or_else(|| PathBuf::from("frugal-agent.token"));
        let token = secret(&token_file, AGENT_TOKEN_ENV, false)?;
        let runtime = match (
            self.runtime.unwrap_or(AgentRuntime::Spark),
            &self.spark_home,
        ) {
            (AgentRuntime::Emulated, _) => Runtime::Emulated,
            (AgentRuntime::Spark, Some(h)) => Runtime::Spark {
                spark_home: h.clone(),
            },
            (AgentRuntime::Spark, None) => Runtime::Spark {
                spark_home: std::env::var_os("SPARK_HOME")
                    .map(PathBuf::from)
                    .ok_or_else(|| {
                        SpecError::new("spark-home", "is not given and SPARK_HOME is not set")
                    })?,
            },
        };
        let work_dir = self
            .work_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from("frugal-agent"));
        Ok(AgentConfig {
            service_url: self.service.clone().expect("checked"),
            token,
            host: self.host_id.clone().expect("checked"),
            vms: self.vms()?,
            cores: self.cores.unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
            }),
            memory_gib: self.memory_gib.unwrap_or_else(machine_memory_gib),
            runtime,
            work_dir: std::path::absolute(work_dir)?,
            interruption_notices: self.interruption_notices.clone(),
            worker_core_share: self.worker_core_share,
        })
    }
}

/// `ID=ADDRESS` read as a hosted VM.
fn hosted_vm(s: &str) -> Result<HostedVm, SpecError> {
    let bad = |m: String| SpecError::new("vm", m);
    let (id, address) = s
        .split_once('=')
        .ok_or_else(|| bad(format!("{s:?}: expected ID=ADDRESS, e.g. 3=10.0.0.5")))?;
    let id = id
        .parse()
        .map_err(|_| bad(format!("{s:?}: the VM id {id:?} is not a whole number")))?;
    address
        .parse::<std::net::Ipv4Addr>()
        .map_err(|_| bad(format!("{s:?}: {address:?} is not an IPv4 address")))?;
    Ok(HostedVm {
        id,
        address: address.to_string(),
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> AgentSpec {
        toml::from_str(text).unwrap()
    }

    const REQUIRED: &str =
        "service = \"http://10.0.0.1:8080\"\nhost-id = \"h1\"\nvm = [\"3=10.0.0.5\"]\n";

    #[test]
    fn the_file_reads_back_and_its_check_names_the_key() {
        let s = spec(REQUIRED);
        assert_eq!(spec(&s.to_toml()), s);
        assert_eq!(s.vms().unwrap()[0].id, 3);
        s.check().unwrap();
        assert_eq!(
            spec("host-id = \"h\"").check().unwrap_err().field,
            "service"
        );
        let e = spec(&REQUIRED.replace("3=10.0.0.5", "3=10.0.0"))
            .check()
            .unwrap_err();
        assert!(e.field == "vm" && e.message.contains("IPv4"), "{e}");
        let e = spec(&format!("{REQUIRED}cores = 0")).check().unwrap_err();
        assert_eq!(e.field, "cores");
        let e = spec(&format!(
            "{REQUIRED}runtime = \"emulated\"\nspark-home = \"/s\""
        ))
        .check()
        .unwrap_err();
        assert_eq!(e.field, "spark-home");
        assert!(toml::from_str::<AgentSpec>("runtime = \"docker\"").is_err());
    }

    #[test]
    fn flags_win_over_the_file() {
        let file = spec(&format!("{REQUIRED}cores = 2\nwork-dir = \"w\""));
        let flags = AgentSpec {
            cores: Some(4),
            vm: vec!["1=10.0.0.9".into()],
            ..AgentSpec::default()
        };
        let merged = flags.over(&file);
        assert_eq!(merged.cores, Some(4));
        assert_eq!(merged.vm, vec!["1=10.0.0.9".to_string()]);
        assert_eq!(merged.work_dir, Some(PathBuf::from("w")));
        assert_eq!(merged.service, file.service);
    }
}
