//! `frugal agent`: the node agent, one per host. It heartbeats to the service every
//! [`protocol::HEARTBEAT_INTERVAL_S`] (who it is, which VMs it hosts, which reservation
//! workers run) and makes the host run exactly the workers the reply lists. It keeps no
//! state: a restarted agent finds its running workers by their command-line marker and
//! is re-told the rest by the service.
//!
//! Failure behaviour: a heartbeat that fails (timeout [`REQUEST_TIMEOUT_S`], refused,
//! 5xx) changes nothing on the host — the workers keep running and the next beat retries
//! — because only the service can tell a slow network from a lost host. On SIGTERM or
//! SIGINT the agent stops its workers and exits (the host is being powered off).

pub mod cgroup;
pub mod protocol;
pub mod spec;
pub mod worker;

pub use spec::{AgentRuntime, AgentSpec};

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use protocol::{FailedWorker, Heartbeat, HostedVm, Orders, WorkerOrder};

use crate::process::{alive, stop_group};

/// Seconds an agent waits for the service's answer to one heartbeat.
pub const REQUEST_TIMEOUT_S: f64 = 2.0;

/// Settings of an agent.
#[derive(Clone, Debug)]
pub struct AgentConfig {
    /// The service's base URL, e.g. `http://10.77.0.1:8080`.
    pub service_url: String,
    /// The agent token (`Authorization: Bearer`).
    pub token: String,
    /// This host's id.
    pub host: String,
    /// The VMs this host runs, each with its address.
    pub vms: Vec<HostedVm>,
    /// Cores and memory (GiB) the host reports.
    pub cores: u32,
    /// Memory of the host, GiB.
    pub memory_gib: f64,
    /// What a reservation worker is on this host.
    pub runtime: Runtime,
    /// Where worker logs, PID files and discovery scripts go.
    pub work_dir: PathBuf,
    /// The instance-metadata service to poll for spot interruption notices each beat
    /// (EC2: `http://169.254.169.254`); `None` on hosts that are not cloud instances.
    pub interruption_notices: Option<String>,
    /// Testbeds: run each reservation worker in a cgroup v1 `cpu` group of its own below
    /// the agent's, capped at this share of a physical core per core it offers
    /// ([`cgroup`]); `None` leaves workers in the agent's group.
    pub worker_core_share: Option<f64>,
}

/// What the agent runs as a reservation worker.
#[derive(Clone, Debug, PartialEq)]
pub enum Runtime {
    /// A Spark standalone worker from this installation (`SPARK_HOME`).
    Spark {
        /// The Spark installation.
        spark_home: PathBuf,
    },
    /// A placeholder process holding the worker's place for the emulated backend: it
    /// runs nothing, but is started, found, lost and stopped like a Spark worker, so the
    /// agent protocol and host failures are exercised without a JVM.
    Emulated,
}

/// Errors of the agent's configuration.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// A setting cannot work.
    #[error("agent: {0}")]
    Config(String),
}

impl AgentConfig {
    /// Checks the settings.
    ///
    /// # Errors
    /// [`AgentError::Config`] naming the setting at fault.
    pub fn validate(&self) -> Result<(), AgentError> {
        let bad = |m: String| Err(AgentError::Config(m));
        if !protocol::valid_name(&self.host) {
            return bad(format!(
                "--host-id {:?}: use 1–128 of [A-Za-z0-9_.-]",
                self.host
            ));
        }
        if self.vms.is_empty() {
            return bad("no --vm given: the agent must host at least one VM".into());
        }
        let mut seen = BTreeSet::new();
        for v in &self.vms {
            if v.address.parse::<std::net::Ipv4Addr>().is_err() {
                return bad(format!("--vm {}={}: not an IPv4 address", v.id, v.address));
            }
            if !seen.insert(v.id) {
                return bad(format!("--vm {}: given twice", v.id));
            }
        }
        if let Runtime::Spark { spark_home } = &self.runtime
            && !spark_home.join("bin/spark-class").exists()
        {
            return bad(format!(
                "--spark-home {}: no bin/spark-class",
                spark_home.display()
            ));
        }
        if let Some(share) = self.worker_core_share
            && !(share > 0.0 && share <= 64.0)
        {
            return bad(format!("--worker-core-share {share}: must be in (0, 64]"));
        }
        if self.token.trim().is_empty() {
            return bad("the agent token is empty".into());
        }
        Ok(())
    }
}

/// Runs the agent until `stop` is set (by a signal handler), then stops its workers.
///
/// # Errors
/// [`AgentError::Config`] for settings that cannot work.
pub fn run(cfg: &AgentConfig, stop: &AtomicBool) -> Result<(), AgentError> {
    cfg.validate()?;
    let groups = cfg
        .worker_core_share
        .map(cgroup::WorkerGroups::of_this_process)
        .transpose()
        .map_err(|e| AgentError::Config(format!("--worker-core-share: {e}")))?;
    let http: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs_f64(REQUEST_TIMEOUT_S)))
        .http_status_as_error(false)
        .build()
        .into();
    let url = format!(
        "{}/agent/v1/heartbeat",
        cfg.service_url.trim_end_matches('/')
    );
    let interval = Duration::from_secs_f64(protocol::HEARTBEAT_INTERVAL_S);
    // Workers started in this life, by name: a worker is listed as running from its
    // start, before its JVM's command line (and marker) exists.
    let mut started: BTreeMap<String, u32> = BTreeMap::new();
    let mut failed: Vec<FailedWorker> = Vec::new();
    let mut failing_since: Option<Instant> = None;
    let mut notice: Option<String> = None;
    tracing::info!(host = %cfg.host, service = %cfg.service_url, vms = cfg.vms.len(), "agent started");
    while !stop.load(Ordering::SeqCst) {
        let beat_at = Instant::now();
        started.retain(|_, pid| alive(*pid));
        let mut running = worker::running(&cfg.host);
        for (name, pid) in &started {
            running.entry(name.clone()).or_insert(*pid);
        }
        if notice.is_none()
            && let Some(imds) = &cfg.interruption_notices
        {
            notice = interruption_notice(&http, imds);
            if let Some(n) = &notice {
                tracing::warn!(notice = %n, "spot interruption notice: this host is being reclaimed");
            }
        }
        let hb = Heartbeat {
            host: cfg.host.clone(),
            vms: cfg.vms.clone(),
            cores: cfg.cores,
            memory_gib: cfg.memory_gib,
            running: running.keys().cloned().collect(),
            failed: std::mem::take(&mut failed),
            interruption: notice.clone(),
        };
        match beat(&http, &url, &cfg.token, &hb) {
            Ok(orders) => {
                if failing_since.take().is_some() {
                    tracing::info!("the service answers again");
                }
                if let Some(list) = orders.workers {
                    reconcile(
                        cfg,
                        groups.as_ref(),
                        &list,
                        &running,
                        &mut started,
                        &mut failed,
                    );
                }
            }
            Err(e) => {
                // Failed starts are reported on the next beat that gets through.
                failed = hb.failed;
                if failing_since.is_none() {
                    tracing::warn!(error = %e, "heartbeat failed; retrying every beat, workers keep running");
                    failing_since = Some(Instant::now());
                }
            }
        }
        if let Some(g) = &groups {
            g.prune(&running);
        }
        if let Some(rest) = interval.checked_sub(beat_at.elapsed()) {
            std::thread::sleep(rest);
        }
    }
    let running = worker::running(&cfg.host);
    tracing::info!(workers = running.len(), "stopping the host's workers");
    let stops: Vec<_> = running
        .into_values()
        .chain(started.into_values())
        .map(|pid| std::thread::spawn(move || stop_group(pid, 3000)))
        .collect();
    for s in stops {
        let _ = s.join();
    }
    if let Some(g) = &groups {
        g.prune(&BTreeMap::new());
    }
    Ok(())
}

/// The spot interruption notice of the instance-metadata service at `imds` (IMDSv2: a
/// session token from `PUT /latest/api/token`, then
/// `GET /latest/meta-data/spot/instance-action`), or `None` while there is none (404) or
/// the service does not answer.
fn interruption_notice(http: &ureq::Agent, imds: &str) -> Option<String> {
    let base = imds.trim_end_matches('/');
    let mut token = http
        .put(&format!("{base}/latest/api/token"))
        .header("X-aws-ec2-metadata-token-ttl-seconds", "60")
        .send_empty()
        .ok()?;
    if !token.status().is_success() {
        return None;
    }
    let token = token.body_mut().read_to_string().ok()?;
    let mut resp = http
        .get(&format!("{base}/latest/meta-data/spot/instance-action"))
        .header("X-aws-ec2-metadata-token", token.trim())
        .call()
        .ok()?;
    if !resp.status().is_success() {
        return None;
    }
    let text = resp.body_mut().read_to_string().ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.chars().take(300).collect())
}

/// One heartbeat: the orders, or why there are none.
fn beat(http: &ureq::Agent, url: &str, token: &str, hb: &Heartbeat) -> Result<Orders, String> {
    let mut resp = http
        .post(url)
        .header("Authorization", &format!("Bearer {token}"))
        .send_json(hb)
        .map_err(|e| e.to_string())?;
    let status = resp.status();
    if !status.is_success() {
        let body = resp.body_mut().read_to_string().unwrap_or_default();
        return Err(format!(
            "{status}: {}",
            body.chars().take(300).collect::<String>()
        ));
    }
    resp.body_mut()
        .read_json::<Orders>()
        .map_err(|e| format!("unreadable orders: {e}"))
}

/// Starts the ordered workers that do not run and stops the running ones not ordered.
fn reconcile(
    cfg: &AgentConfig,
    groups: Option<&cgroup::WorkerGroups>,
    orders: &[WorkerOrder],
    running: &BTreeMap<String, u32>,
    started: &mut BTreeMap<String, u32>,
    failed: &mut Vec<FailedWorker>,
) {
    let wanted: BTreeSet<&str> = orders.iter().map(|o| o.name.as_str()).collect();
    for (name, &pid) in running {
        if !wanted.contains(name.as_str()) {
            tracing::info!(worker = %name, pid, "stopping a worker no longer ordered");
            started.remove(name);
            std::thread::spawn(move || stop_group(pid, 3000));
        }
    }
    for o in orders.iter().filter(|o| !running.contains_key(&o.name)) {
        let result = match cfg.vms.iter().find(|v| v.id == o.vm) {
            _ if !protocol::valid_name(&o.name) || !protocol::valid_name(&o.resource) => {
                Err("invalid worker or resource name".to_string())
            }
            None => Err(format!("VM {} is not on this host", o.vm)),
            Some(vm) => worker::start(
                &cfg.runtime,
                groups,
                &cfg.work_dir.join("workers"),
                &cfg.host,
                &vm.address,
                o,
            )
            .map_err(|e| e.to_string()),
        };
        match result {
            Ok(pid) => {
                tracing::info!(worker = %o.name, vm = o.vm, executors = o.executors, pid, "started a reservation worker");
                started.insert(o.name.clone(), pid);
            }
            Err(error) => {
                tracing::warn!(worker = %o.name, %error, "could not start a worker");
                failed.push(FailedWorker {
                    name: o.name.clone(),
                    error,
                });
            }
        }
    }
}
