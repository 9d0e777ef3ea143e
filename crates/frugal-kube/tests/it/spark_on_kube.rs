//! Spark's own Kubernetes backend against a real kube-apiserver, with frugal as its
//! scheduler, node provisioner and (no container runtime here) kubelet: pyspark's
//! `spark-submit --master k8s://…` in client mode, executors created by the driver, bound
//! by frugal as one gang, run as processes on their VM's host — a network namespace that
//! frugal creates when it turns the VM on and removes when it turns it off — and deleted
//! by the driver at the end. Ignored by default; needs `$FRUGAL_KUBE_BIN`
//! (tools/kube/build.sh), `$FRUGAL_PYTHON` (a Python with pyspark) and root; fails
//! without the first two, and without root where real parts are required (CI).

use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use frugal_core::lifecycle::JobState;
use frugal_core::policy::PolicyKind;
use frugal_kube::{Kubelet, NetnsHosts};
use frugal_service::provision::{Netns, Provisioner};

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::ListParams;

use crate::common::{control_plane, shell, start, wait_for};

const JOB: &str = r#"
import sys
from pyspark.sql import SparkSession
s = SparkSession.builder.getOrCreate()
n = s.range(int(sys.argv[1])).selectExpr("sum(id)").collect()[0][0]
print("SUM", n)
s.stop()
"#;

fn python() -> PathBuf {
    PathBuf::from(
        std::env::var_os("FRUGAL_PYTHON")
            .expect("FRUGAL_PYTHON is not set: point it at a Python with pyspark (.ci/run's venv)"),
    )
}

fn spark_home(python: &Path) -> PathBuf {
    let out = Command::new(python)
        .args([
            "-c",
            "import os, pyspark; print(os.path.dirname(pyspark.__file__))",
        ])
        .output()
        .expect("running FRUGAL_PYTHON");
    assert!(out.status.success(), "FRUGAL_PYTHON has no pyspark");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// `spark-submit` of the job summing `0..n`, with `executors` one-core executors; the
/// driver listens on `driver` (where the executors' hosts reach it).
fn submit(
    dir: &Path,
    cp: &Path,
    port: u16,
    driver: Ipv4Addr,
    name: &str,
    executors: u32,
    n: u64,
) -> std::process::Child {
    let py = python();
    let home = spark_home(&py);
    let conf = [
        "spark.kubernetes.namespace=spark".to_string(),
        "spark.kubernetes.container.image=apache/spark".into(),
        format!(
            "spark.kubernetes.authenticate.caCertFile={}",
            cp.join("ca.crt").display()
        ),
        format!(
            "spark.kubernetes.authenticate.oauthTokenFile={}",
            cp.join("token").display()
        ),
        format!("spark.driver.host={driver}"),
        format!("spark.driver.bindAddress={driver}"),
        "spark.kubernetes.scheduler.name=frugal".into(),
        format!("spark.app.name={name}"),
        format!("spark.executor.instances={executors}"),
        "spark.executor.cores=1".into(),
        "spark.executor.memory=512m".into(),
        "spark.driver.memory=512m".into(),
        "spark.ui.enabled=false".into(),
        format!("spark.kubernetes.executor.annotation.frugal.dev/executors={executors}"),
        "spark.kubernetes.executor.annotation.frugal.dev/estimated-duration-s=30".into(),
        "spark.kubernetes.executor.annotation.frugal.dev/deadline-s=600".into(),
    ];
    let mut cmd = Command::new(home.join("bin/spark-submit"));
    cmd.arg("--master")
        .arg(format!("k8s://https://127.0.0.1:{port}"))
        .args(["--deploy-mode", "client"]);
    for c in &conf {
        cmd.arg("--conf").arg(c);
    }
    let script = dir.join("job.py");
    std::fs::write(&script, JOB).unwrap();
    let out = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
    cmd.arg(&script)
        .arg(n.to_string())
        .env("SPARK_HOME", &home)
        .env("PYSPARK_PYTHON", &py)
        .env(
            "PATH",
            format!(
                "{}:{}",
                py.parent().unwrap().display(),
                std::env::var("PATH").unwrap()
            ),
        )
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .stdin(Stdio::null())
        .spawn()
        .expect("spark-submit")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs $FRUGAL_KUBE_BIN (kube-apiserver, etcd) and $FRUGAL_PYTHON with pyspark"]
async fn spark_applications_run_to_completion_under_two_policies() {
    let uid = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| {
            l.strip_prefix("Uid:")
                .map(|u| u.split_whitespace().next().unwrap().to_string())
        })
        .unwrap();
    if uid != "0" {
        return frugal_core::testing::skip("root, for the VMs' network-namespace hosts");
    }
    let root = std::env::temp_dir().join(format!("frugal-kube-spark-{}", std::process::id()));
    let cp_dir = root.join("cp");
    let (cp, client) = control_plane(&cp_dir).await;
    let port = cp.port();
    let home = spark_home(&python());
    let mut bills = Vec::new();
    for policy in [PolicyKind::FirstFit, PolicyKind::SparkConsolidate] {
        let dir = root.join(policy.name());
        std::fs::create_dir_all(&dir).unwrap();
        let netns = Netns::new("fgk", Ipv4Addr::new(10, 79, 0, 0), None, None).unwrap();
        let driver = netns.control_address();
        let kubelet = Kubelet::new(Box::new(NetnsHosts(netns)), home.clone(), dir.join("pods"));
        let (stop_tx, runner) = start(
            &client,
            shell(policy),
            Some(kubelet),
            Duration::from_millis(250),
        );
        // Two applications arriving together: 2 and 3 one-core executors.
        let mut apps = vec![
            (
                "two",
                submit(&dir, &cp_dir, port, driver, "two", 2, 2_000_000),
            ),
            (
                "three",
                submit(&dir, &cp_dir, port, driver, "three", 3, 3_000_000),
            ),
        ];
        // While they run, the VMs' nodes are Ready and their Leases renewed, as a
        // kubelet keeps them.
        let leases: Api<Lease> = Api::namespaced(client.clone(), "kube-node-lease");
        let nodes: Api<Node> = Api::all(client.clone());
        let node = wait_for("a node with a lease", 120, async || {
            let l = leases.list(&ListParams::default()).await.ok()?;
            l.items.into_iter().find_map(|l| {
                let name = l.metadata.name?;
                (name.starts_with("frugal-vm-") && l.spec?.renew_time.is_some()).then_some(name)
            })
        })
        .await;
        let ready = nodes
            .get(&node)
            .await
            .unwrap()
            .status
            .unwrap()
            .conditions
            .unwrap();
        assert!(
            ready
                .iter()
                .any(|c| c.type_ == "Ready" && c.status == "True"),
            "{ready:?}"
        );
        for (name, child) in &mut apps {
            let status = tokio::task::block_in_place(|| child.wait()).unwrap();
            let log = std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap();
            assert!(status.success(), "{name} under {}:\n{log}", policy.name());
            let n: u64 = if *name == "two" { 2_000_000 } else { 3_000_000 };
            assert!(
                log.contains(&format!("SUM {}", n * (n - 1) / 2)),
                "{name}: no sum in its output:\n{log}"
            );
        }
        // The drivers deleted their executors: the gangs' jobs end, the VMs go off.
        let until = std::time::Instant::now() + Duration::from_secs(60);
        tokio::time::sleep(Duration::from_secs(2)).await;
        stop_tx.send(()).unwrap();
        let shell = runner.await.unwrap();
        let ctl = shell.controller();
        let mut placed = 0;
        for (_, r) in ctl.records() {
            assert_eq!(r.state, JobState::Completed, "{r:?}");
            placed += r.placement.as_ref().unwrap().executors();
        }
        assert_eq!(ctl.records().count(), 2);
        assert_eq!(
            placed, 5,
            "every executor of both gangs was placed by frugal"
        );
        assert!(std::time::Instant::now() < until);
        assert_eq!(shell.vms_on().count(), 0, "every VM is off once both ended");
        let namespaces = Command::new("ip").args(["netns", "list"]).output().unwrap();
        let namespaces = String::from_utf8_lossy(&namespaces.stdout);
        assert!(
            !namespaces.contains("fgk-vm"),
            "a host outlived its VM: {namespaces}"
        );
        let bill = ctl.fleet().cost(ctl.now());
        assert!(bill > 0.0);
        // The simulator replaying this history under the same policy bills the same.
        let replay = shell.whatif(policy).summary.total_cost;
        assert!(
            (replay - bill).abs() <= 1e-9 * bill,
            "{}: the fleet ledger says ${bill}, whatif's replay ${replay}",
            policy.name()
        );
        bills.push((policy.name(), bill));
    }
    eprintln!("bills: {bills:?}");
    drop(cp);
    let _ = std::fs::remove_dir_all(&root);
}
