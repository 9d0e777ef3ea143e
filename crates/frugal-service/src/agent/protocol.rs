//! What a node agent and the service say to each other. The agent calls the service
//! (`POST /agent/v1/heartbeat`, agent token) once per [`HEARTBEAT_INTERVAL_S`]; the reply
//! is the complete list of reservation workers the service wants on the agent's VMs. The
//! agent keeps no state of its own: it starts what is ordered and missing, stops what
//! runs and is not ordered, and finds its running workers again after a restart by the
//! marker on their command line ([`worker_marker`]).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use frugal_core::cluster::VmId;

/// Seconds between two heartbeats of an agent.
pub const HEARTBEAT_INTERVAL_S: f64 = 1.0;

/// One VM an agent hosts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HostedVm {
    /// The VM's id in the service's cluster.
    #[schema(value_type = u32)]
    pub id: VmId,
    /// The IPv4 address its workers bind to (and executors report).
    pub address: String,
}

/// A heartbeat: who the agent is and what runs on its host now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Heartbeat {
    /// The host's id (unique in the cluster).
    pub host: String,
    /// The VMs it hosts.
    pub vms: Vec<HostedVm>,
    /// Cores of the host.
    pub cores: u32,
    /// Memory of the host, GiB.
    pub memory_gib: f64,
    /// Names of the reservation workers running on the host now.
    pub running: Vec<String>,
    /// Workers the agent was ordered to start but could not, with why.
    pub failed: Vec<FailedWorker>,
    /// The cloud's notice that the host is about to be reclaimed (an EC2 spot
    /// interruption: its action and time, as the instance-metadata service gives them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interruption: Option<String>,
}

/// A worker that could not be started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FailedWorker {
    /// Its name.
    pub name: String,
    /// What went wrong.
    pub error: String,
}

/// One reservation worker (see `notes`: a Spark standalone worker offering the job's
/// custom resource, so only that job's executors land on it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkerOrder {
    /// Unique name, `<job id>-<k>`.
    pub name: String,
    /// The VM it runs for (its address is the worker's `--host`).
    #[schema(value_type = u32)]
    pub vm: VmId,
    /// The custom resource it offers (the job id) …
    pub resource: String,
    /// … in this amount: the executors it takes.
    pub executors: u32,
    /// Cores it offers (executors × executor cores).
    pub cores: u32,
    /// Memory it offers, MiB (executors × executor memory).
    pub memory_mib: u64,
    /// The master to register with (`spark://host:port`; empty for placeholder workers).
    pub master_url: String,
}

/// The service's reply to a heartbeat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Orders {
    /// Every worker the host must run; `None` while the service is still restoring its
    /// state after a start (the agent then changes nothing).
    pub workers: Option<Vec<WorkerOrder>>,
}

/// The JVM system property that marks a reservation worker of `host` named `name` on
/// its command line, so that a restarted agent finds its workers again (and only its own:
/// hosts on one machine share the process table).
pub fn worker_marker(host: &str, name: &str) -> String {
    format!("-Dfrugal.worker={host}/{name}")
}

/// True for names that are safe as file names, Spark resource names and JVM properties.
pub fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}
