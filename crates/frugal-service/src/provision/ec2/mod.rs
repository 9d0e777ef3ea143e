//! EC2: every VM an instance of its instance type, launched on the spot market or on
//! demand, whose user data starts the node agent. The settings and the user data are
//! plain data (always built); the provisioner itself talks to EC2 through the official
//! AWS SDK for Rust and is built with the `ec2` cargo feature ([`Ec2`]).
//!
//! Rules the provisioner keeps (stated here, tested against a real EC2 API server):
//!
//! - **Power on** = `RunInstances` of one instance with a fresh `ClientToken` (retries of
//!   that call — the SDK's, on throttling and transient errors — can never start two),
//!   tagged `frugal.io/cluster=<id>` and `frugal.io/vm=<k>`. A VM whose newest instance is
//!   already pending or running is left as it is. With `power_off = "stop"`, a stopped
//!   instance of the VM is started instead.
//! - **Power off** = `TerminateInstances` (or `StopInstances`) of every live instance of
//!   the VM.
//! - **No leaked instance**: at start and every minute, `DescribeInstances` by the cluster
//!   tag. The newest pending or running instance of a VM the service has on is adopted
//!   (its id and address become the VM's); every other instance of the cluster — of a VM
//!   the service has off, an older duplicate, one whose `frugal.io/vm` tag names no VM of
//!   the cluster — is terminated (stopped instances are kept in `stop` mode, they cost no
//!   compute). A service killed between `RunInstances` and the store's commit therefore
//!   finds the instance at its next start and terminates it (the VM is off in the store),
//!   and the job is placed again.
//! - **Refusals**: a call EC2 refuses (`UnauthorizedOperation`, `InvalidAMIID.*`,
//!   `InsufficientInstanceCapacity`, a spot price or capacity refusal, …) fails that
//!   power-on at once with EC2's code and message; the service then handles the VM as
//!   lost: its executors are re-placed by the policy elsewhere and the reason is on the
//!   job. For a spot VM this is the **fallback** to on-demand: the policy places on the
//!   next cheapest VM that fits, which in a cluster from `frugal cluster ec2 --spot` is
//!   the on-demand VM of the same type (counted in `frugal_spot_fallbacks_total`).
//! - **Interruptions**: the agent polls the instance-metadata endpoint for a spot
//!   interruption notice and reports it in its heartbeat; the service handles the VM as
//!   lost at once — executors re-placed before the two minutes are up, the VM billed
//!   until it is terminated, now.

#[cfg(feature = "ec2")]
mod client;
pub mod prices;

#[cfg(feature = "ec2")]
pub use client::{Ec2, describe_instance_types, latest_spot_prices};

use frugal_core::spec::SpecError;

use frugal_core::spec::ConfigFile;

use crate::agent::{AgentSpec, Runtime};

/// The tag naming a frugal cluster's instances.
pub const CLUSTER_TAG: &str = "frugal.io/cluster";
/// The tag naming the VM an instance is.
pub const VM_TAG: &str = "frugal.io/vm";

/// What powering a VM off does to its instance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PowerOff {
    /// `TerminateInstances`: nothing is left (the default; spot instances are always
    /// terminated).
    #[default]
    Terminate,
    /// `StopInstances`: the instance and its disk stay, and the next power-on starts it
    /// again (faster boots; the disk is billed while stopped).
    Stop,
}

frugal_core::choice! {
    impl Choice for PowerOff {
        Terminate = "terminate": "TerminateInstances: nothing is left",
        Stop = "stop": "StopInstances: the instance and its disk stay for the next power-on (not for spot)",
    }
}

/// One VM as EC2 launches it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ec2Vm {
    /// EC2 instance type, e.g. `m5.xlarge`.
    pub instance_type: String,
    /// Launched on the spot market.
    pub spot: bool,
}

/// The settings of the EC2 provisioner (`frugal serve --provisioner ec2 --ec2-*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ec2Settings {
    /// The cluster's id, the value of every instance's `frugal.io/cluster` tag (1–24 of
    /// `[A-Za-z0-9-]`).
    pub cluster: String,
    /// Region; `None`: the standard chain (`AWS_REGION`, the profile).
    pub region: Option<String>,
    /// Endpoint override (e.g. a local EC2 API server); `AWS_ENDPOINT_URL` also works.
    pub endpoint: Option<String>,
    /// AMI of the instances (it must have `frugal` on its path, and Spark for the Spark
    /// backend); or give `launch_template`.
    pub image_id: Option<String>,
    /// Launch template id (`lt-…`) or name, instead of or besides the AMI.
    pub launch_template: Option<String>,
    /// Subnet to launch into.
    pub subnet: Option<String>,
    /// Security group ids.
    pub security_groups: Vec<String>,
    /// IAM instance profile name or ARN.
    pub instance_profile: Option<String>,
    /// SSH key pair name.
    pub key_name: Option<String>,
    /// More tags for every instance.
    pub tags: Vec<(String, String)>,
    /// What a power-off does.
    pub power_off: PowerOff,
    /// The service's URL as the instances reach it (their agents heartbeat there).
    pub service_url: String,
    /// The user-data template (see [`DEFAULT_USER_DATA`]).
    pub user_data: String,
    /// Path of `frugal` on the image.
    pub frugal_path: String,
    /// Per VM, in id order.
    pub vms: Vec<Ec2Vm>,
}

/// The user data that starts the node agent on an instance. `{name}` placeholders are
/// replaced per VM ([`Ec2Settings::user_data_for`]): `{agent_toml}` (the agent's
/// configuration file, [`AgentSpec`] as every provisioner writes it, with its address as
/// [`ADDRESS`]), `{vm}`, `{host_id}`, `{cluster}`, `{service_url}`, `{agent_token}`,
/// `{frugal}` and `{runtime_args}` (the runtime as flags, for a template of one's own).
/// The instance fills in its address from the instance-metadata service (IMDSv2), which
/// the agent also polls for spot interruption notices.
pub const DEFAULT_USER_DATA: &str = r#"#!/bin/sh
# frugal node agent of VM {vm} in cluster {cluster}, rendered by frugal serve.
set -eu
imds=http://169.254.169.254
token=$(curl -sf -X PUT "$imds/latest/api/token" -H "X-aws-ec2-metadata-token-ttl-seconds: 21600")
address=$(curl -sf -H "X-aws-ec2-metadata-token: $token" "$imds/latest/meta-data/local-ipv4")
mkdir -p /var/lib/frugal/work
umask 077
printf '%s\n' '{agent_token}' > /var/lib/frugal/agent.token
cat > /var/lib/frugal/agent.toml <<'FRUGAL_AGENT_TOML'
{agent_toml}FRUGAL_AGENT_TOML
sed -i "s/@address@/$address/" /var/lib/frugal/agent.toml
exec {frugal} agent --config /var/lib/frugal/agent.toml
"#;

/// The placeholder of the instance's address in `{agent_toml}`, replaced on the instance.
pub const ADDRESS: &str = "@address@";

impl Ec2Settings {
    /// The host id of VM `vm`'s instance: `<cluster>-vm<k>`.
    pub fn host_id(&self, vm: u32) -> String {
        format!("{}-vm{vm}", self.cluster)
    }

    /// VM `vm`'s user data: the template with its placeholders filled.
    pub fn user_data_for(&self, vm: u32, agent_token: &str, runtime: &Runtime) -> String {
        let runtime_args = match runtime {
            Runtime::Spark { spark_home } => format!("--spark-home {}", spark_home.display()),
            Runtime::Emulated => "--runtime emulated".to_string(),
        };
        let agent = AgentSpec {
            service: Some(self.service_url.clone()),
            token_file: Some("/var/lib/frugal/agent.token".into()),
            host_id: Some(self.host_id(vm)),
            vm: vec![format!("{vm}={ADDRESS}")],
            work_dir: Some("/var/lib/frugal/work".into()),
            interruption_notices: Some("http://169.254.169.254".into()),
            ..AgentSpec::default()
        }
        .running(runtime);
        [
            ("{agent_toml}", agent.to_toml()),
            ("{vm}", vm.to_string()),
            ("{host_id}", self.host_id(vm)),
            ("{cluster}", self.cluster.clone()),
            ("{service_url}", self.service_url.clone()),
            ("{agent_token}", agent_token.to_string()),
            ("{frugal}", self.frugal_path.clone()),
            ("{runtime_args}", runtime_args),
        ]
        .iter()
        .fold(self.user_data.clone(), |text, (k, v)| text.replace(k, v))
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// The setting that cannot work, named by its field of the service's spec
    /// (`ec2-cluster-id`; the command line's `--ec2-cluster-id`).
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.cluster.is_empty()
            || self.cluster.len() > 24
            || !self
                .cluster
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return Err(SpecError::new(
                "ec2-cluster-id",
                format!("{:?}: use 1–24 of [A-Za-z0-9-]", self.cluster),
            ));
        }
        if self.image_id.is_none() && self.launch_template.is_none() {
            return Err(SpecError::new(
                "ec2-image-id",
                "EC2 needs it or {ec2-launch-template}",
            ));
        }
        if self.vms.iter().any(|v| v.spot) && self.power_off == PowerOff::Stop {
            return Err(SpecError::new(
                "ec2-power-off",
                "stop: spot instances cannot be stopped and started again here (one-time \
                 requests); use terminate",
            ));
        }
        if !(self.service_url.starts_with("http://") || self.service_url.starts_with("https://")) {
            return Err(SpecError::new(
                "ec2-service-url",
                format!(
                    "{:?}: the URL the instances reach the service at, e.g. \
                     http://10.0.0.5:8080",
                    self.service_url
                ),
            ));
        }
        for (k, _) in &self.tags {
            if k.starts_with("frugal.io/") || k.starts_with("aws:") {
                return Err(SpecError::new(
                    "ec2-tag",
                    format!("{k}: the frugal.io/ and aws: keys are reserved"),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Ec2Settings {
        Ec2Settings {
            cluster: "prod-1".into(),
            region: None,
            endpoint: None,
            image_id: Some("ami-12345678".into()),
            launch_template: None,
            subnet: None,
            security_groups: vec![],
            instance_profile: None,
            key_name: None,
            tags: vec![],
            power_off: PowerOff::Terminate,
            service_url: "http://10.0.0.5:8080".into(),
            user_data: DEFAULT_USER_DATA.into(),
            frugal_path: "/usr/local/bin/frugal".into(),
            vms: vec![
                Ec2Vm {
                    instance_type: "m5.xlarge".into(),
                    spot: false,
                },
                Ec2Vm {
                    instance_type: "m5.xlarge".into(),
                    spot: true,
                },
            ],
        }
    }

    #[test]
    fn the_user_data_starts_the_vms_agent_with_its_id_and_the_token() {
        let text = settings().user_data_for(1, "s3cret", &Runtime::Emulated);
        assert!(text.starts_with("#!/bin/sh\n"));
        assert!(text.contains("printf '%s\\n' 's3cret'"));
        assert!(
            text.contains("exec /usr/local/bin/frugal agent --config /var/lib/frugal/agent.toml")
        );
        assert!(
            !text.contains("{vm}") && !text.contains("{agent_toml}"),
            "{text}"
        );
        // The configuration file between the here-document's markers is the agent's spec:
        // with the address the instance fills in, it reads back and checks.
        let file = text
            .split("<<'FRUGAL_AGENT_TOML'\n")
            .nth(1)
            .and_then(|t| t.split("FRUGAL_AGENT_TOML\n").next())
            .expect("the agent's file in a here-document");
        let spec: AgentSpec = toml::from_str(&file.replace(ADDRESS, "10.0.0.9")).unwrap();
        assert_eq!(spec.host_id.as_deref(), Some("prod-1-vm1"));
        assert_eq!(spec.service.as_deref(), Some("http://10.0.0.5:8080"));
        assert_eq!(spec.vm, ["1=10.0.0.9"]);
        assert_eq!(spec.runtime, Some(crate::agent::AgentRuntime::Emulated));
        assert_eq!(
            spec.interruption_notices.as_deref(),
            Some("http://169.254.169.254")
        );
        let spark = Runtime::Spark {
            spark_home: "/opt/spark".into(),
        };
        let text = settings().user_data_for(0, "t", &spark);
        assert!(text.contains("spark-home = \"/opt/spark\""), "{text}");
    }

    #[test]
    fn settings_that_cannot_work_are_refused_by_flag() {
        let ok = settings();
        assert_eq!(ok.validate(), Ok(()));
        let mut s = ok.clone();
        s.cluster = "has space".into();
        assert!(
            s.validate()
                .unwrap_err()
                .to_string()
                .contains("ec2-cluster-id")
        );
        let mut s = ok.clone();
        s.image_id = None;
        assert!(
            s.validate()
                .unwrap_err()
                .to_string()
                .contains("ec2-image-id")
        );
        let mut s = ok.clone();
        s.power_off = PowerOff::Stop;
        assert!(s.validate().unwrap_err().to_string().contains("spot"));
        let mut s = ok.clone();
        s.service_url = "10.0.0.5:8080".into();
        assert!(
            s.validate()
                .unwrap_err()
                .to_string()
                .contains("ec2-service-url")
        );
        let mut s = ok;
        s.tags = vec![("frugal.io/vm".into(), "3".into())];
        assert!(s.validate().unwrap_err().to_string().contains("reserved"));
    }
}
