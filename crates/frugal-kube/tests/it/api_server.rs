//! frugal as the scheduler and node provisioner of a real kube-apiserver.
//!
//! No kubelet runs here: where a kubelet would report a pod's end, the test writes the
//! pod's phase itself (the part frugal's agent plays as a virtual kubelet).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Event, Node, Pod};
use kube::Api;
use kube::api::{ListParams, Patch, PatchParams, PostParams};
use serde_json::json;

use frugal_core::policy::PolicyKind;
use frugal_kube::KubeOptions;
use frugal_kube::gang::{APP_LABEL, DEADLINE, ESTIMATED_DURATION, EXECUTORS, ROLE_LABEL};

use crate::common::{control_plane, shell, shell_on, start, wait_for};

/// An executor pod of application `app` as Spark's backend makes it, with frugal's
/// scheduler name and the annotations given.
fn executor(app: &str, name: &str, cores: u32, ann: &[(&str, &str)]) -> Pod {
    let ann: BTreeMap<&str, &str> = ann.iter().copied().collect();
    serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": "spark", "annotations": ann,
                     "labels": {APP_LABEL: app, ROLE_LABEL: "executor"}},
        "spec": {"schedulerName": "frugal", "restartPolicy": "Never",
                 "containers": [{"name": "executor", "image": "spark",
                     "resources": {"requests": {"cpu": cores.to_string(), "memory": "1Gi"}}}]}
    }))
    .unwrap()
}

async fn pod(pods: &Api<Pod>, name: &str) -> Pod {
    pods.get(name).await.unwrap()
}

fn node_of(p: &Pod) -> Option<String> {
    p.spec.as_ref()?.node_name.clone()
}

fn condition(p: &Pod) -> Option<(String, String)> {
    let c = p
        .status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == "PodScheduled")?;
    Some((c.reason.clone()?, c.message.clone()?))
}

async fn managed_nodes(nodes: &Api<Node>) -> Vec<String> {
    nodes
        .list(&ListParams::default().labels("frugal.dev/managed=true"))
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|n| n.metadata.name)
        .collect()
}

/// The kubelet's part: pod `name` ran to `phase`.
async fn ended(pods: &Api<Pod>, name: &str, phase: &str) {
    let patch = json!({"status": {"phase": phase}});
    pods.patch_status(name, &PatchParams::default(), &Patch::Merge(patch))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs kube-apiserver and etcd in $FRUGAL_KUBE_BIN (.ci/run's kube stage)"]
async fn frugal_schedules_gangs_and_keeps_nodes_on_a_real_api_server() {
    let dir = std::env::temp_dir().join(format!("frugal-kube-test-{}", std::process::id()));
    let (cp, client) = control_plane(&dir).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), "spark");
    let nodes: Api<Node> = Api::all(client.clone());
    let (stop_tx, runner) = start(
        &client,
        shell(PolicyKind::FirstFit),
        None,
        Duration::from_millis(200),
    );
    let pp = PostParams::default();

    // A gang of three 1-core executors: nothing is bound until the third pod exists.
    let ann = [
        (EXECUTORS, "3"),
        (ESTIMATED_DURATION, "60"),
        (DEADLINE, "600"),
    ];
    for name in ["a-exec-1", "a-exec-2"] {
        pods.create(&pp, &executor("spark-a", name, 1, &ann))
            .await
            .unwrap();
    }
    // A pass may run between the two creations and first report 1 of 3; wait for the
    // pass that has seen both pods.
    let (reason, message) = wait_for("the waiting condition", 20, async || {
        condition(&pod(&pods, "a-exec-1").await).filter(|(_, m)| m.contains("2 of"))
    })
    .await;
    assert_eq!(reason, "WaitingForGang", "{message}");
    assert!(
        message.contains("2 of application spark-a's 3"),
        "{message}"
    );
    assert_eq!(node_of(&pod(&pods, "a-exec-2").await), None);
    pods.create(&pp, &executor("spark-a", "a-exec-3", 1, &ann))
        .await
        .unwrap();
    let bound = wait_for("the gang's bindings", 20, async || {
        let mut out = Vec::new();
        for n in ["a-exec-1", "a-exec-2", "a-exec-3"] {
            out.push(node_of(&pod(&pods, n).await)?);
        }
        Some(out)
    })
    .await;
    // First fit fills the first 2-core VM, then the second.
    assert_eq!(bound, ["frugal-vm-0", "frugal-vm-0", "frugal-vm-1"]);
    let on = wait_for("the VMs' nodes", 20, async || {
        let n = managed_nodes(&nodes).await;
        (n.len() == 2).then_some(n)
    })
    .await;
    assert_eq!(on, ["frugal-vm-0", "frugal-vm-1"]);
    let n0 = nodes.get("frugal-vm-0").await.unwrap();
    let labels = n0.metadata.labels.unwrap();
    assert_eq!(labels["node.kubernetes.io/instance-type"], "m.2");
    assert_eq!(labels["frugal.dev/site"], "local");
    assert_eq!(labels["frugal.dev/price-per-hour"], "0.1");

    // Bad input is named on the pod.
    let bare = executor("spark-b", "b-exec-1", 1, &[(EXECUTORS, "1")]);
    pods.create(&pp, &bare).await.unwrap();
    let (reason, message) = wait_for("the missing annotation", 20, async || {
        condition(&pod(&pods, "b-exec-1").await)
    })
    .await;
    assert_eq!(reason, "MissingAnnotation");
    assert!(message.contains(ESTIMATED_DURATION), "{message}");

    // An application larger than the cluster is refused with an event.
    let huge = [(EXECUTORS, "1"), (ESTIMATED_DURATION, "60")];
    pods.create(&pp, &executor("spark-c", "c-exec-1", 16, &huge))
        .await
        .unwrap();
    let (reason, _) = wait_for("the refusal", 20, async || {
        condition(&pod(&pods, "c-exec-1").await).filter(|c| c.0 == "Unschedulable")
    })
    .await;
    assert_eq!(reason, "Unschedulable");
    let events: Api<Event> = Api::namespaced(client.clone(), "spark");
    let ev = wait_for("the FailedScheduling event", 20, async || {
        events
            .list(&ListParams::default().fields("involvedObject.name=c-exec-1"))
            .await
            .ok()?
            .items
            .into_iter()
            .find(|e| e.reason.as_deref() == Some("FailedScheduling"))
    })
    .await;
    assert!(ev.message.unwrap().contains("16 cores"));

    // The API server goes away and comes back: no binding is lost, nothing is placed twice,
    // and a gang created after it returns is placed.
    cp.stop_api_server().unwrap();
    tokio::time::sleep(Duration::from_secs(2)).await;
    cp.start_api_server().unwrap();
    let d_ann = [(EXECUTORS, "2"), (ESTIMATED_DURATION, "60")];
    for name in ["d-exec-1", "d-exec-2"] {
        pods.create(&pp, &executor("spark-d", name, 2, &d_ann))
            .await
            .unwrap();
    }
    let d = wait_for("the second gang's bindings", 30, async || {
        Some([
            node_of(&pod(&pods, "d-exec-1").await)?,
            node_of(&pod(&pods, "d-exec-2").await)?,
        ])
    })
    .await;
    // VM 1 has one core left; first fit puts both 2-core executors on the 4-core VM.
    assert_eq!(d, ["frugal-vm-2", "frugal-vm-2"]);
    for n in ["a-exec-1", "a-exec-2", "a-exec-3"] {
        assert!(
            node_of(&pod(&pods, n).await).is_some(),
            "{n} lost its binding"
        );
    }

    // The first gang ends (as a kubelet would report): its VMs go off and their nodes go.
    for n in ["a-exec-1", "a-exec-2", "a-exec-3"] {
        ended(&pods, n, "Succeeded").await;
    }
    let on = wait_for("the first gang's nodes to go", 20, async || {
        let n = managed_nodes(&nodes).await;
        (n.len() == 1).then_some(n)
    })
    .await;
    assert_eq!(on, ["frugal-vm-2"]);
    for n in ["d-exec-1", "d-exec-2"] {
        ended(&pods, n, "Succeeded").await;
    }
    wait_for("every node to go", 20, async || {
        managed_nodes(&nodes).await.is_empty().then_some(())
    })
    .await;

    stop_tx.send(()).unwrap();
    let shell = runner.await.unwrap();
    let ctl = shell.controller();
    let a = shell.job_of("spark-a").expect("spark-a was placed");
    assert_eq!(
        ctl.record(a).state,
        frugal_core::lifecycle::JobState::Completed
    );
    // The bill: every VM's on-time × its price, and nothing else.
    let now = ctl.now();
    let by_vm: f64 = (0..3).map(|vm| ctl.fleet().vm_cost(vm, now)).sum();
    assert!(by_vm > 0.0);
    assert!((ctl.fleet().cost(now) - by_vm).abs() < 1e-12);
    drop(cp);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Twenty 8-core VMs.
const WIDE: &str = r#"
billing = "per-second"
[[instance_type]]
name = "m.8"
cores = 8
memory_gib = 32
[[vms]]
instance_type = "m.8"
site = "local"
count = 20
price_per_hour = 0.40
"#;

/// Pods bound per second and one gang's scheduling latency on this machine (printed; run
/// with `--nocapture`): 14 gangs of 10 one-core executors created before frugal starts,
/// timed from its start to the last binding; then one gang of 10 created on an idle
/// scheduler, timed from its last pod's creation to its last binding as a client sees it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs kube-apiserver and etcd in $FRUGAL_KUBE_BIN (.ci/run's kube stage)"]
async fn binding_rate_and_gang_latency() {
    let dir = std::env::temp_dir().join(format!("frugal-kube-rate-{}", std::process::id()));
    let (cp, client) = control_plane(&dir).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), "spark");
    let shell = shell_on(WIDE, PolicyKind::FirstFit);
    let pp = PostParams::default();
    let ann = [(EXECUTORS, "10"), (ESTIMATED_DURATION, "600")];
    let bound = async |pods: &Api<Pod>, app: &str| {
        pods.list(&ListParams::default().labels(&format!("{APP_LABEL}={app}")))
            .await
            .unwrap()
            .items
            .iter()
            .filter(|p| node_of(p).is_some())
            .count()
    };
    // Throughput: 140 pods in 14 gangs, all created before frugal starts; timed from its
    // start to the last binding.
    let gangs = 14;
    let created = Instant::now();
    for g in 0..gangs {
        for e in 0..10 {
            let p = executor(&format!("rate-{g}"), &format!("rate-{g}-{e}"), 1, &ann);
            pods.create(&pp, &p).await.unwrap();
        }
    }
    let create_s = created.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let (stop_tx, runner) = start(&client, shell, None, KubeOptions::default().resync);

    wait_for("every pod bound", 120, async || {
        let all = pods.list(&ListParams::default()).await.unwrap().items;
        (all.iter().filter(|p| node_of(p).is_some()).count() == gangs * 10).then_some(())
    })
    .await;
    let bind_s = t0.elapsed().as_secs_f64();
    // Latency: one gang on an idle scheduler.
    tokio::time::sleep(Duration::from_secs(2)).await;
    for e in 0..10 {
        let p = executor("lat", &format!("lat-{e}"), 1, &ann);
        pods.create(&pp, &p).await.unwrap();
    }
    let t1 = Instant::now();
    wait_for("the gang bound", 60, async || {
        (bound(&pods, "lat").await == 10).then_some(())
    })
    .await;
    let latency_s = t1.elapsed().as_secs_f64();
    eprintln!(
        "created {} pods in {create_s:.2} s; frugal bound them all in {bind_s:.2} s from its start: {:.0} pods/s; \
         one 10-pod gang bound {:.0} ms after its last pod's creation",
        gangs * 10,
        (gangs * 10) as f64 / bind_s,
        latency_s * 1e3
    );
    stop_tx.send(()).unwrap();
    runner.await.unwrap();
    drop(cp);
    let _ = std::fs::remove_dir_all(&dir);
}
