//! The kubelet's part for the pods frugal binds: each bound pod's container runs as a
//! process on its VM's host, and its phase and IP go back to the API server — what a
//! virtual kubelet does, because no container runtime runs on the project's machines.
//!
//! **What runs.** A container with a `command` runs it with its `args`. A container
//! without one runs its image's entrypoint, which only Spark's is known: the image's
//! `executor` argument starts
//! `java <SPARK_JAVA_OPT_*> -Xms<mem> -Xmx<mem> -cp <spark home>/jars/* KubernetesExecutorBackend …`
//! exactly as Spark's `entrypoint.sh` would, with the pod's environment; any other image
//! fails the pod with a message saying so. Environment values from the downward API
//! (`status.podIP`, `status.hostIP`, `metadata.name`, `metadata.namespace`,
//! `spec.nodeName`) are filled in; `SPARK_LOCAL_DIRS` and `SPARK_CONF_DIR` (volumes in the
//! pod) become folders under the pod's work folder.
//!
//! **Where it runs** is the [`Hosts`] seam: a VM's host is a command prefix and an address
//! (loopback processes here; a network namespace's `ip netns exec`; on a real cluster, a
//! real kubelet takes over and none of this runs).
//!
//! **Life cycle**, each pass ([`Kubelet::pass`]): a bound pod not yet started starts and is
//! reported `Running` with its host's address as `podIP`; a process that exited is
//! reported `Succeeded` (exit 0) or `Failed`; a pod being deleted (its
//! `deletionTimestamp` set, as Spark deletes its executors) has its process killed and is
//! removed at once (grace period 0), which is the kubelet's confirmation the API server
//! waits for.

use std::collections::HashMap;
use std::fs::File;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use k8s_openapi::api::core::v1::{Container, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams};
use kube::{Api, Client};
use serde_json::json;
use tracing::{debug, warn};

use frugal_core::cluster::VmId;

use crate::shell::{PodKey, vm_of_node};

/// Where a VM's processes run: the VM's host exists while the VM is on.
pub trait Hosts: Send + Sync {
    /// The address of VM `vm`'s host (the pods' `podIP`).
    fn address(&self, vm: VmId) -> Ipv4Addr;
    /// The command prefix that runs a program on VM `vm`'s host (empty: here).
    fn wrapper(&self, vm: VmId) -> Vec<String>;
    /// Makes VM `vm`'s host exist (nothing if it does).
    ///
    /// # Errors
    /// Why it cannot.
    fn power_on(&self, _vm: VmId) -> Result<(), String> {
        Ok(())
    }
    /// Removes VM `vm`'s host and whatever still runs on it.
    fn power_off(&self, _vm: VmId) {}
}

/// Every VM is a network namespace on a bridge (`frugal_service`'s netns provisioner,
/// without node agents): its own address, real TCP to the others. Needs root.
pub struct NetnsHosts(pub frugal_service::provision::Netns);

impl Hosts for NetnsHosts {
    fn address(&self, vm: VmId) -> Ipv4Addr {
        use frugal_service::provision::Provisioner;
        self.0.address(vm)
    }
    fn wrapper(&self, vm: VmId) -> Vec<String> {
        self.0.wrapper(vm)
    }
    fn power_on(&self, vm: VmId) -> Result<(), String> {
        use frugal_service::provision::Provisioner;
        self.0.power_on(vm).map_err(|e| e.to_string())
    }
    fn power_off(&self, vm: VmId) {
        use frugal_service::provision::Provisioner;
        if let Err(e) = self.0.power_off(vm) {
            warn!("removing VM {vm}'s host: {e}");
        }
    }
}

impl Drop for NetnsHosts {
    fn drop(&mut self) {
        use frugal_service::provision::Provisioner;
        self.0.teardown();
    }
}

/// Every host is this machine's loopback: processes run here, on 127.0.0.1.
pub struct Loopback;

impl Hosts for Loopback {
    fn address(&self, _vm: VmId) -> Ipv4Addr {
        Ipv4Addr::LOCALHOST
    }
    fn wrapper(&self, _vm: VmId) -> Vec<String> {
        Vec::new()
    }
}

/// The kubelet's part; see the module doc.
pub struct Kubelet {
    hosts: Box<dyn Hosts>,
    /// Spark's home (its `jars/`), as `/opt/spark` in Spark's image.
    spark_home: PathBuf,
    /// `work/<namespace>/<pod>/` holds each pod's log and local folders.
    work: PathBuf,
    running: HashMap<PodKey, Child>,
    /// The VMs whose host exists.
    up: std::collections::BTreeSet<VmId>,
    /// When each up VM's node last had its heartbeat (Lease renewed).
    beats: HashMap<VmId, std::time::Instant>,
}

/// Seconds between two renewals of a node's Lease (the kubelet's default).
pub const LEASE_RENEW_S: u64 = 10;
/// A Lease's duration, seconds (the kubelet's default).
pub const LEASE_DURATION_S: i32 = 40;

impl Kubelet {
    /// A kubelet running pods on `hosts`, Spark's entrypoint from `spark_home`, pods'
    /// folders under `work`.
    pub fn new(hosts: Box<dyn Hosts>, spark_home: PathBuf, work: PathBuf) -> Kubelet {
        Kubelet {
            hosts,
            spark_home,
            work,
            running: HashMap::new(),
            up: Default::default(),
            beats: HashMap::new(),
        }
    }

    /// Pods whose process runs.
    pub fn running(&self) -> usize {
        self.running.len()
    }

    /// Makes the hosts match the VMs that are on (`on`): a VM turned on gets its host, a
    /// VM turned off loses it with whatever still runs there.
    pub fn hosts_for(&mut self, on: &std::collections::BTreeSet<VmId>) {
        for &vm in on.difference(&self.up.clone()) {
            match self.hosts.power_on(vm) {
                Ok(()) => {
                    self.up.insert(vm);
                }
                Err(e) => warn!("making VM {vm}'s host: {e}"),
            }
        }
        for vm in self.up.difference(on).copied().collect::<Vec<_>>() {
            self.hosts.power_off(vm);
            self.up.remove(&vm);
        }
    }

    /// The node heartbeats a kubelet sends: for every VM whose host is up, its node is
    /// marked `Ready` when first seen and its Lease (`kube-node-lease/<node>`) renewed
    /// every [`LEASE_RENEW_S`]; a VM no longer up loses its Lease. Without them a real
    /// cluster's node lifecycle controller would mark the nodes unreachable and evict
    /// their pods.
    pub async fn heartbeat(&mut self, client: &Client) {
        use k8s_openapi::api::coordination::v1::Lease;
        use k8s_openapi::api::core::v1::Node;
        let leases: Api<Lease> = Api::namespaced(client.clone(), "kube-node-lease");
        let nodes: Api<Node> = Api::all(client.clone());
        let now = std::time::Instant::now();
        for &vm in &self.up {
            let fresh = self
                .beats
                .get(&vm)
                .is_some_and(|t| now.duration_since(*t).as_secs() < LEASE_RENEW_S);
            if fresh {
                continue;
            }
            let name = crate::shell::node_name(vm);
            let ts = jiff::Timestamp::now();
            if !self.beats.contains_key(&vm) {
                let ready = json!({"status": {"conditions": [{
                    "type": "Ready", "status": "True", "reason": "KubeletReady",
                    "message": "frugal plays the kubelet's part on this VM's host",
                    "lastHeartbeatTime": Time(ts), "lastTransitionTime": Time(ts),
                }]}});
                if let Err(e) = nodes
                    .patch_status(&name, &PatchParams::default(), &Patch::Strategic(ready))
                    .await
                {
                    debug!("marking node {name} ready: {e}");
                    continue; // the node may not exist yet: the next pass tries again
                }
            }
            let lease = json!({
                "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": name, "namespace": "kube-node-lease"},
                "spec": {"holderIdentity": name, "leaseDurationSeconds": LEASE_DURATION_S,
                         "renewTime": k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime(ts)},
            });
            match leases
                .patch(
                    &name,
                    &PatchParams::apply("frugal").force(),
                    &Patch::Apply(lease),
                )
                .await
            {
                Ok(_) => {
                    self.beats.insert(vm, now);
                }
                Err(e) => warn!("renewing node {name}'s lease: {e}"),
            }
        }
        let gone: Vec<VmId> = self
            .beats
            .keys()
            .filter(|vm| !self.up.contains(vm))
            .copied()
            .collect();
        for vm in gone {
            self.beats.remove(&vm);
            let _ = leases
                .delete(&crate::shell::node_name(vm), &DeleteParams::default())
                .await;
        }
    }

    /// One pass over the pods bound to frugal's nodes (`pods`, listed by the caller).
    pub async fn pass(&mut self, client: &Client, pods: &[Pod]) {
        let mut seen = std::collections::HashSet::new();
        for pod in pods {
            let Some(vm) = pod
                .spec
                .as_ref()
                .and_then(|s| s.node_name.as_deref())
                .and_then(vm_of_node)
            else {
                continue;
            };
            let key = PodKey::of(pod);
            seen.insert(key.clone());
            let api: Api<Pod> = Api::namespaced(client.clone(), &key.namespace);
            if pod.metadata.deletion_timestamp.is_some() {
                if let Some(mut child) = self.running.remove(&key) {
                    let _ = child.kill();
                    let _ = child.wait();
                }
                let dp = DeleteParams {
                    grace_period_seconds: Some(0),
                    ..DeleteParams::default()
                };
                if let Err(e) = api.delete(&key.name, &dp).await {
                    debug!("removing {key}: {e}");
                }
                continue;
            }
            let phase = pod.status.as_ref().and_then(|s| s.phase.as_deref());
            if matches!(phase, Some("Succeeded" | "Failed")) {
                continue;
            }
            if let Some(child) = self.running.get_mut(&key) {
                if let Ok(Some(status)) = child.try_wait() {
                    self.running.remove(&key);
                    let ok = status.success();
                    let code = status.code().unwrap_or(-1);
                    let reason = if ok { "Completed" } else { "Error" };
                    let patch = json!({"status": {
                        "phase": if ok { "Succeeded" } else { "Failed" },
                        "containerStatuses": [container_status(pod, json!({"terminated": {
                            "exitCode": code, "reason": reason, "finishedAt": Time(jiff::Timestamp::now()),
                        }}), false)],
                    }});
                    patch_status(&api, &key, patch).await;
                }
                continue;
            }
            if phase == Some("Running") {
                // Running, but not by this kubelet (it restarted): it cannot be resumed.
                let patch = json!({"status": {"phase": "Failed", "reason": "KubeletRestarted",
                    "message": "frugal's kubelet restarted and no longer runs this pod's process"}});
                patch_status(&api, &key, patch).await;
                continue;
            }
            if !self.up.contains(&vm) {
                continue; // its host is not there yet: a later pass starts it
            }
            match self.start(pod, &key, vm) {
                Ok(child) => {
                    self.running.insert(key.clone(), child);
                    let ip = self.hosts.address(vm).to_string();
                    let now = Time(jiff::Timestamp::now());
                    let patch = json!({"status": {
                        "phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}], "hostIP": ip,
                        "startTime": now,
                        "conditions": [
                            {"type": "PodScheduled", "status": "True"},
                            {"type": "Initialized", "status": "True"},
                            {"type": "ContainersReady", "status": "True"},
                            {"type": "Ready", "status": "True"},
                        ],
                        "containerStatuses": [container_status(pod, json!({"running": {"startedAt": now}}), true)],
                    }});
                    patch_status(&api, &key, patch).await;
                }
                Err(why) => {
                    warn!("{key}: {why}");
                    let patch = json!({"status": {"phase": "Failed", "reason": "CannotRun", "message": why}});
                    patch_status(&api, &key, patch).await;
                }
            }
        }
        // Pods gone from the API server: their processes go too.
        let gone: Vec<PodKey> = self
            .running
            .keys()
            .filter(|k| !seen.contains(*k))
            .cloned()
            .collect();
        for k in gone {
            if let Some(mut child) = self.running.remove(&k) {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }

    /// Starts `pod`'s container on VM `vm`'s host.
    fn start(&self, pod: &Pod, key: &PodKey, vm: VmId) -> Result<Child, String> {
        let c = pod
            .spec
            .as_ref()
            .and_then(|s| s.containers.first())
            .ok_or("the pod has no container")?;
        let dir = self.work.join(&key.namespace).join(&key.name);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let ip = self.hosts.address(vm).to_string();
        let env = environment(pod, c, &ip, &dir)?;
        let argv = match (&c.command, c.args.as_deref()) {
            (Some(cmd), args) if !cmd.is_empty() => {
                let mut v = cmd.clone();
                v.extend(args.unwrap_or_default().iter().cloned());
                v
            }
            (_, Some([first, ..])) if first == "executor" => self.spark_executor(&env)?,
            _ => {
                return Err(format!(
                    "container {} has no command, and only Spark's image entrypoint (args [executor]) is known without a container runtime",
                    c.name
                ));
            }
        };
        let mut full = self.hosts.wrapper(vm);
        full.extend(argv);
        let (program, args) = full.split_first().ok_or("an empty command")?;
        let log = File::create(dir.join("log")).map_err(|e| e.to_string())?;
        let mut cmd = Command::new(program);
        cmd.args(args)
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log);
        debug!("{key}: starting {program} on VM {vm}");
        cmd.spawn().map_err(|e| format!("starting {program}: {e}"))
    }

    /// Spark's `entrypoint.sh executor`, with the pod's environment `env`.
    fn spark_executor(&self, env: &[(String, String)]) -> Result<Vec<String>, String> {
        let get = |k: &str| {
            env.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
                .ok_or_else(|| format!("Spark's executor needs {k} in the pod's environment"))
        };
        let mut opts: Vec<(u32, String)> = env
            .iter()
            .filter_map(|(k, v)| {
                Some((k.strip_prefix("SPARK_JAVA_OPT_")?.parse().ok()?, v.clone()))
            })
            .collect();
        opts.sort();
        let mem = get("SPARK_EXECUTOR_MEMORY")?;
        let mut argv = vec!["java".to_string()];
        argv.extend(opts.into_iter().map(|(_, v)| v));
        argv.extend([
            format!("-Xms{mem}"),
            format!("-Xmx{mem}"),
            "-cp".into(),
            format!("{}/jars/*", self.spark_home.display()),
            "org.apache.spark.scheduler.cluster.k8s.KubernetesExecutorBackend".into(),
            "--driver-url".into(),
            get("SPARK_DRIVER_URL")?,
            "--executor-id".into(),
            get("SPARK_EXECUTOR_ID")?,
            "--cores".into(),
            get("SPARK_EXECUTOR_CORES")?,
            "--app-id".into(),
            get("SPARK_APPLICATION_ID")?,
            "--hostname".into(),
            get("SPARK_EXECUTOR_POD_IP")?,
            "--resourceProfileId".into(),
            get("SPARK_RESOURCE_PROFILE_ID").unwrap_or_else(|_| "0".into()),
            "--podName".into(),
            get("SPARK_EXECUTOR_POD_NAME")?,
        ]);
        Ok(argv)
    }
}

impl Drop for Kubelet {
    fn drop(&mut self) {
        for (_, mut child) in self.running.drain() {
            let _ = child.kill();
            let _ = child.wait();
        }
        for vm in std::mem::take(&mut self.up) {
            self.hosts.power_off(vm);
        }
    }
}

/// The container's environment with the downward API filled in and the pod's volumes
/// (`SPARK_LOCAL_DIRS`, `SPARK_CONF_DIR`) as folders under `dir`.
fn environment(
    pod: &Pod,
    c: &Container,
    ip: &str,
    dir: &std::path::Path,
) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for e in c.env.as_deref().unwrap_or_default() {
        let value = match (&e.value, &e.value_from) {
            (Some(v), _) => v.clone(),
            (None, Some(from)) => {
                let path = from
                    .field_ref
                    .as_ref()
                    .map(|f| f.field_path.as_str())
                    .ok_or_else(|| {
                        format!("env {}: only fieldRef values can be filled in", e.name)
                    })?;
                match path {
                    "status.podIP" | "status.hostIP" => ip.to_string(),
                    "metadata.name" => pod.metadata.name.clone().unwrap_or_default(),
                    "metadata.namespace" => pod.metadata.namespace.clone().unwrap_or_default(),
                    "spec.nodeName" => pod
                        .spec
                        .as_ref()
                        .and_then(|s| s.node_name.clone())
                        .unwrap_or_default(),
                    other => {
                        return Err(format!("env {}: fieldRef {other} is not filled in", e.name));
                    }
                }
            }
            (None, None) => String::new(),
        };
        let value = match e.name.as_str() {
            "SPARK_LOCAL_DIRS" | "SPARK_CONF_DIR" => {
                let d = dir.join(e.name.to_ascii_lowercase());
                std::fs::create_dir_all(&d).map_err(|err| format!("{}: {err}", d.display()))?;
                d.display().to_string()
            }
            _ => value,
        };
        out.push((e.name.clone(), value));
    }
    Ok(out)
}

fn container_status(pod: &Pod, state: serde_json::Value, ready: bool) -> serde_json::Value {
    let c = pod.spec.as_ref().and_then(|s| s.containers.first());
    json!({
        "name": c.map(|c| c.name.clone()).unwrap_or_default(),
        "image": c.and_then(|c| c.image.clone()).unwrap_or_default(),
        "imageID": "", "ready": ready, "started": ready, "restartCount": 0, "state": state,
    })
}

async fn patch_status(api: &Api<Pod>, key: &PodKey, patch: serde_json::Value) {
    if let Err(e) = api
        .patch_status(&key.name, &PatchParams::default(), &Patch::Strategic(patch))
        .await
    {
        warn!("updating {key}'s status: {e}");
    }
}

/// The pods bound to frugal's nodes, for [`Kubelet::pass`].
///
/// # Errors
/// The API server's.
pub async fn bound_pods(client: &Client, selector: &str) -> Result<Vec<Pod>, kube::Error> {
    let pods: Api<Pod> = Api::all(client.clone());
    Ok(pods
        .list(&ListParams::default().fields(selector))
        .await?
        .items
        .into_iter()
        .filter(|p| p.spec.as_ref().is_some_and(|s| s.node_name.is_some()))
        .collect())
}
