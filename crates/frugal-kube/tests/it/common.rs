//! What the tests share: the cluster, a shell on it, a control plane with the `spark`
//! namespace, frugal running against it.

use std::path::Path;
use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use kube::api::PostParams;
use kube::{Api, Client};
use serde_json::json;

use frugal_core::policy::PolicyKind;
use frugal_core::{ClusterConfig, QueueDiscipline};
use frugal_kube::control_plane::ControlPlane;
use frugal_kube::{KubeOptions, Kubelet, Shell};

/// Two 2-core VMs at $0.10/h and one 4-core VM at $0.20/h.
pub const CLUSTER: &str = r#"
billing = "per-second"
[[instance_type]]
name = "m.2"
cores = 2
memory_gib = 4
[[instance_type]]
name = "m.4"
cores = 4
memory_gib = 8
[[vms]]
instance_type = "m.2"
site = "local"
count = 2
price_per_hour = 0.10
[[vms]]
instance_type = "m.4"
site = "local"
count = 1
price_per_hour = 0.20
"#;

/// A shell on the cluster file `toml` placing with `policy` (FCFS, idle VMs off at once).
pub fn shell_on(toml: &str, policy: PolicyKind) -> Shell {
    let cluster = ClusterConfig::from_toml(toml, "test")
        .unwrap()
        .build("test")
        .unwrap();
    Shell::new(frugal_kube::setup(cluster, QueueDiscipline::Fcfs), policy)
}

/// A shell on [`CLUSTER`].
pub fn shell(policy: PolicyKind) -> Shell {
    shell_on(CLUSTER, policy)
}

/// A port `p` of 127.0.0.1 with `p + 1` and `p + 2` free as well (the API server and
/// etcd's two), so that a control plane left over by an earlier, killed run cannot
/// collide with this one. The ports are free when checked; the control plane starts
/// right after.
pub fn free_ports() -> u16 {
    use std::net::TcpListener;
    for _ in 0..100 {
        let first = TcpListener::bind("127.0.0.1:0").unwrap();
        let p = first.local_addr().unwrap().port();
        if p < u16::MAX - 2 && (1..=2).all(|i| TcpListener::bind(("127.0.0.1", p + i)).is_ok()) {
            return p;
        }
    }
    panic!("no three consecutive free ports on 127.0.0.1");
}

/// A control plane in `dir` with the API server on a free port ([`free_ports`]), its
/// client, and the namespace `spark`.
pub async fn control_plane(dir: &Path) -> (ControlPlane, Client) {
    let cp = ControlPlane::start(dir, free_ports()).unwrap();
    let client = cp.client().await.unwrap();
    let ns: Api<Namespace> = Api::all(client.clone());
    ns.create(
        &PostParams::default(),
        &serde_json::from_value(json!({"metadata": {"name": "spark"}})).unwrap(),
    )
    .await
    .unwrap();
    (cp, client)
}

/// frugal running `shell` (and `kubelet`) against `client`, a pass at least every
/// `resync`: the sender that stops it and the task that returns the shell.
pub fn start(
    client: &Client,
    shell: Shell,
    kubelet: Option<Kubelet>,
    resync: Duration,
) -> (
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<Shell>,
) {
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let opts = KubeOptions {
        resync,
        ..KubeOptions::default()
    };
    let runner = tokio::spawn(frugal_kube::run(
        client.clone(),
        shell,
        kubelet,
        opts,
        async {
            let _ = stop_rx.await;
        },
    ));
    (stop_tx, runner)
}

/// `f`'s first `Some`, polled every 100 ms for at most `secs` seconds.
///
/// # Panics
/// On time out, naming `what`.
pub async fn wait_for<T>(what: &str, secs: u64, mut f: impl AsyncFnMut() -> Option<T>) -> T {
    let until = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(t) = f().await {
            return t;
        }
        assert!(
            std::time::Instant::now() < until,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
