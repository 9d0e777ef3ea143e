//! The shell's I/O: reads frugal's pods and nodes from the API server, runs a
//! [`Shell`] pass, and writes bindings, nodes, conditions and events back.
//!
//! A pass runs when a watched pod changes and at least every
//! [`KubeOptions::resync`]; every write that fails is logged and asked for again by a
//! later pass (see [`crate::shell`]), so the API server may go away at any time.
//!
//! Nodes carry the VM's instance type (`node.kubernetes.io/instance-type`), site
//! (`frugal.dev/site`), price (`frugal.dev/price-per-hour`, dollars) and the label
//! `frugal.dev/managed=true`, by which frugal finds its own nodes; their capacity is the
//! instance type's cores and memory.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::{Event, Node, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, Time};
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::watcher;
use kube::{Api, Client};
use serde_json::json;
use tracing::{debug, warn};

use frugal_core::cluster::{Cluster, VmId};

use crate::kubelet::{Kubelet, bound_pods};
use crate::shell::{Action, PodKey, Shell, node_name, vm_of_node};

/// The label on every node frugal made.
pub const MANAGED_LABEL: &str = "frugal.dev/managed";

/// How the shell talks to the API server.
#[derive(Clone, Debug)]
pub struct KubeOptions {
    /// The scheduler name pods ask for (`spec.schedulerName`, Spark's
    /// `spark.kubernetes.scheduler.name`).
    pub scheduler_name: String,
    /// Longest time between two passes, also without pod changes.
    pub resync: Duration,
}

impl Default for KubeOptions {
    fn default() -> Self {
        KubeOptions {
            scheduler_name: "frugal".into(),
            resync: Duration::from_secs(1),
        }
    }
}

/// Most binding requests in flight at once.
pub const BINDS_IN_FLIGHT: usize = 16;

/// What one pass did, for logs and tests.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PassReport {
    /// Pods bound.
    pub bound: usize,
    /// Writes that failed (retried by a later pass).
    pub failed: usize,
}

/// Runs the shell against the API server until `stop` resolves: a pass on every change of
/// a pod with frugal's scheduler name and every [`KubeOptions::resync`], followed by the
/// `kubelet`'s pass where frugal also runs the bound pods. Returns the shell (its
/// controller holds the jobs and the bill).
pub async fn run(
    client: Client,
    mut shell: Shell,
    mut kubelet: Option<Kubelet>,
    opts: KubeOptions,
    stop: impl std::future::Future<Output = ()>,
) -> Shell {
    let origin = Instant::now();
    let wall_origin = std::time::SystemTime::now();
    let pods: Api<Pod> = Api::all(client.clone());
    let selector = format!("spec.schedulerName={}", opts.scheduler_name);
    let mut changes = watcher(pods.clone(), watcher::Config::default().fields(&selector)).boxed();
    let mut tick = tokio::time::interval(opts.resync);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            _ = tick.tick() => {}
            ev = changes.next() => {
                if let Some(Err(e)) = ev {
                    debug!("pod watch: {e}");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        }
        let now = origin.elapsed().as_secs_f64();
        let _ = pass(&client, &mut shell, &selector, now, wall_origin).await;
        if let Some(k) = &mut kubelet {
            k.hosts_for(&shell.vms_on().collect());
            k.heartbeat(&client).await;
            if let Ok(bound) = bound_pods(&client, &selector).await {
                k.pass(&client, &bound).await;
            }
        }
    }
    shell
}

/// One pass at `now` (seconds since `wall_origin`).
///
/// # Errors
/// The API server's error if the pods or nodes cannot be listed (nothing was changed).
pub async fn pass(
    client: &Client,
    shell: &mut Shell,
    selector: &str,
    now: f64,
    wall_origin: std::time::SystemTime,
) -> Result<PassReport, kube::Error> {
    let pods: Api<Pod> = Api::all(client.clone());
    let list = pods.list(&ListParams::default().fields(selector)).await?;
    let origin_s = wall_origin
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64());
    let created = |p: &Pod| {
        let t = p.metadata.creation_timestamp.as_ref()?;
        Some(t.0.as_second() as f64 + f64::from(t.0.subsec_nanosecond()) * 1e-9 - origin_s)
    };
    let actions = shell.observe(&list.items, now, created);
    let mut report = PassReport::default();
    // Nodes first: a bound pod's node exists.
    let nodes: Api<Node> = Api::all(client.clone());
    let have: BTreeSet<VmId> = nodes
        .list(&ListParams::default().labels(&format!("{MANAGED_LABEL}=true")))
        .await?
        .items
        .iter()
        .filter_map(|n| n.metadata.name.as_deref().and_then(vm_of_node))
        .collect();
    let want: BTreeSet<VmId> = shell.vms_on().collect();
    for &vm in want.difference(&have) {
        let node = node_object(shell.controller().cluster(), vm);
        match nodes.create(&PostParams::default(), &node).await {
            Ok(_) => debug!("node {} created", node_name(vm)),
            Err(kube::Error::Api(s)) if s.code == 409 => {}
            Err(e) => {
                warn!("creating node {}: {e}", node_name(vm));
                report.failed += 1;
            }
        }
    }
    for &vm in have.difference(&want) {
        match nodes.delete(&node_name(vm), &DeleteParams::default()).await {
            Ok(_) => debug!("node {} deleted", node_name(vm)),
            Err(kube::Error::Api(s)) if s.code == 404 => {}
            Err(e) => {
                warn!("deleting node {}: {e}", node_name(vm));
                report.failed += 1;
            }
        }
    }
    // Binds go out together (at most BINDS_IN_FLIGHT at once), as each is one request.
    let (binds, others): (Vec<Action>, Vec<Action>) = actions
        .into_iter()
        .partition(|a| matches!(a, Action::Bind { .. }));
    let mut results = futures::stream::iter(binds.into_iter().filter_map(|a| match a {
        Action::Bind { pod, vm } => Some(async move {
            let r = bind(client, &pod, vm).await;
            (pod, vm, r)
        }),
        _ => None,
    }))
    .buffer_unordered(BINDS_IN_FLIGHT);
    while let Some((pod, vm, r)) = results.next().await {
        match r {
            Ok(()) => report.bound += 1,
            Err(e) => {
                warn!("binding {pod} to {}: {e}", node_name(vm));
                report.failed += 1;
            }
        }
    }
    for a in others {
        match a {
            Action::Bind { .. } => unreachable!("binds went out above"),
            Action::Wait { pod, why } => {
                let api: Api<Pod> = Api::namespaced(client.clone(), &pod.namespace);
                let patch = json!({"status": {"conditions": [{
                    "type": "PodScheduled", "status": "False",
                    "reason": why.reason, "message": why.message,
                    "lastTransitionTime": Time(now_ts()),
                }]}});
                if let Err(e) = api
                    .patch_status(&pod.name, &PatchParams::default(), &Patch::Strategic(patch))
                    .await
                {
                    warn!("setting {pod}'s condition: {e}");
                    shell.forget(&pod);
                    report.failed += 1;
                }
            }
            Action::Warn {
                pod,
                reason,
                message,
            } => {
                if let Err(e) = warn_event(client, &pod, reason, &message).await {
                    warn!("recording an event on {pod}: {e}");
                    report.failed += 1;
                }
            }
        }
    }
    Ok(report)
}

/// Binds `pod` to VM `vm`'s node (the `Binding` subresource, as kube-scheduler does).
async fn bind(client: &Client, pod: &PodKey, vm: VmId) -> Result<(), kube::Error> {
    let api: Api<Pod> = Api::namespaced(client.clone(), &pod.namespace);
    let binding = json!({
        "apiVersion": "v1", "kind": "Binding",
        "metadata": {"name": pod.name, "namespace": pod.namespace},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node_name(vm)},
    });
    api.create_subresource::<_, serde_json::Value>(
        "binding",
        &pod.name,
        &PostParams::default(),
        &binding,
    )
    .await
    .map(|_| ())
}

/// A `Warning` event on `pod` from `frugal`.
async fn warn_event(
    client: &Client,
    pod: &PodKey,
    reason: &str,
    message: &str,
) -> Result<(), kube::Error> {
    let api: Api<Event> = Api::namespaced(client.clone(), &pod.namespace);
    let ev: Event = serde_json::from_value(json!({
        "metadata": {"generateName": format!("{}.", pod.name), "namespace": pod.namespace},
        "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": pod.name,
                           "namespace": pod.namespace},
        "reason": reason, "message": message, "type": "Warning",
        "source": {"component": "frugal"},
        "reportingComponent": "frugal", "reportingInstance": "frugal",
        "firstTimestamp": Time(now_ts()), "lastTimestamp": Time(now_ts()),
        "eventTime": MicroTime(now_ts()), "action": "Scheduling", "count": 1,
    }))
    .map_err(kube::Error::SerdeError)?;
    api.create(&PostParams::default(), &ev).await.map(|_| ())
}

/// VM `vm`'s node: labels for its instance type, site and price; capacity of its type.
pub fn node_object(cluster: &Cluster, vm: VmId) -> Node {
    let v = cluster.vm(vm);
    let it = &cluster.instance_types[v.instance_type];
    let labels: BTreeMap<String, String> = [
        (MANAGED_LABEL, "true".to_string()),
        ("node.kubernetes.io/instance-type", it.name.clone()),
        ("frugal.dev/site", v.site.as_str().to_string()),
        (
            "frugal.dev/price-per-hour",
            format!("{}", v.price_per_second * 3600.0),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let capacity = json!({
        "cpu": v.capacity.0[frugal_core::resources::CPU].to_string(),
        "memory": format!("{}Mi", v.capacity.0[frugal_core::resources::MEMORY]),
        "pods": "110",
    });
    serde_json::from_value(json!({
        "metadata": {"name": node_name(vm), "labels": labels},
        "spec": {},
        "status": {"capacity": capacity, "allocatable": capacity},
    }))
    .expect("a node object")
}

fn now_ts() -> jiff::Timestamp {
    jiff::Timestamp::now()
}
