//! The scheduler service on a real Spark standalone cluster (loopback VMs, reservation
//! workers). Needs Java 17 and a Python with pyspark (`FRUGAL_PYTHON`, default
//! `python3`); `.ci/run` installs them and runs these with `--ignored`. One job at a time,
//! 3 executors of 512 MiB, as a 2-core machine allows.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};

use common::{
    Api, assert_cost_is_on_time_times_price, free_port, get, http, output_lines, spawn_serve,
};

/// Both tests start Spark daemons: run them one after the other.
static SPARK: Mutex<()> = Mutex::new(());

const JOB_TIMEOUT: Duration = Duration::from_secs(420);

fn python() -> String {
    std::env::var("FRUGAL_PYTHON").unwrap_or_else(|_| "python3".into())
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A Spark service on the bundled 4-VM loopback cluster.
struct Spark {
    api: Api,
    args: Vec<String>,
    child: Option<Child>,
}

impl std::ops::Deref for Spark {
    type Target = Api;
    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Spark {
    fn new(name: &str) -> Spark {
        let dir = std::env::temp_dir().join(format!("frugal-spark-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let status = Command::new(python())
            .arg(repo().join("spark/generate_inputs.py"))
            .arg(dir.join("input"))
            .status()
            .expect("python runs");
        assert!(status.success(), "the input generator failed");
        let p = |x: &Path| x.to_str().unwrap().to_string();
        let args = vec![
            "--backend".into(),
            "spark-standalone".into(),
            "--python".into(),
            python(),
            "--cluster".into(),
            p(&repo().join("spark/cluster.toml")),
            "--policy".into(),
            "optimal".into(),
            "--db".into(),
            p(&dir.join("state.db")),
            "--spark-dir".into(),
            p(&dir.join("spark")),
            "--spark-port".into(),
            free_port().to_string(),
            "--spark-ui-port".into(),
            free_port().to_string(),
            "--agent-token-file".into(),
            p(&dir.join("agent.token")),
        ];
        let mut s = Spark {
            api: Api {
                port: free_port(),
                dir,
                timeout: JOB_TIMEOUT,
            },
            args,
            child: None,
        };
        s.start();
        s
    }

    fn start(&mut self) {
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        self.child = Some(spawn_serve(
            self.port,
            &args,
            &self.dir.join("serve.log"),
            Duration::from_secs(180),
        ));
    }

    fn signal(&mut self, signal: &str) {
        let mut child = self.child.take().expect("running");
        Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        child.wait().unwrap();
    }

    /// Submits a 3-executor PageRank (10 rounds: long enough to act mid-job).
    fn submit_pagerank(&self, id: &str) {
        let job = json!({
            "id": id, "kind": "network_bound", "executors": 3, "executor_cores": 1,
            "executor_memory_gib": 0.5, "estimated_duration_s": 60,
            "application_path": "pagerank.py",
            "input_path": self.dir.join("input/graph.txt"),
            "output_path": self.dir.join(format!("out-{id}")),
            "arguments": ["10"],
        });
        let (status, body) = http(self.port, "POST", "/jobs", &job.to_string()).unwrap();
        assert_eq!(status, 202, "{body}");
    }
}

impl Drop for Spark {
    fn drop(&mut self) {
        if self.child.is_some() {
            self.signal("-TERM");
        }
    }
}

fn expected_placement() -> Value {
    json!([{"vm": 2, "executors": 1}, {"vm": 3, "executors": 2}])
}

#[test]
#[ignore = "needs Java 17 and pyspark; run by .ci/run"]
fn exact_placement_vms_off_cost_and_restart_mid_job() {
    let _one = SPARK.lock().unwrap_or_else(|p| p.into_inner());
    let mut spark = Spark::new("place");
    spark.submit_pagerank("pr_place");
    let running = spark.wait_observed("pr_place", &expected_placement());
    assert_eq!(running["placement"], expected_placement());
    let vms = get(spark.port, "/vms");
    let power: Vec<&str> = vms["vms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["state"].as_str().unwrap())
        .collect();
    assert_eq!(
        power,
        ["off", "off", "on", "on"],
        "VMs without executors are off"
    );

    spark.signal("-KILL");
    spark.start();
    let done = spark.wait_ended("pr_place");
    assert_eq!(done["state"], "completed", "{done}\n{}", spark.log());
    assert_eq!(done["reason"], Value::Null, "it was taken over, not re-run");
    assert!(output_lines(&spark.dir.join("out-pr_place")) > 1000);

    let vms = get(spark.port, "/vms");
    spark.signal("-TERM");
    let on = assert_cost_is_on_time_times_price(&spark.dir.join("state.db"), 1.0, &vms);
    for (id, on) in on.iter().enumerate() {
        assert_eq!(*on > 0.0, id >= 2, "VM {id} was on {on} s");
    }
}

#[test]
#[ignore = "needs Java 17 and pyspark; run by .ci/run"]
fn a_lost_worker_gets_a_replacement_and_the_job_finishes() {
    let _one = SPARK.lock().unwrap_or_else(|p| p.into_inner());
    let spark = Spark::new("lost");
    spark.submit_pagerank("pr_lost");
    spark.wait_observed("pr_lost", &expected_placement());
    // Workers are named <job>-<vm>-<k>, k counting the job's workers.
    let hosts = spark.dir.join("spark/hosts");
    let pid =
        std::fs::read_to_string(hosts.join("vm3/workers/pr_lost-3-1.pid")).expect("VM 3's worker");
    let status = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", pid.trim())])
        .status()
        .unwrap();
    assert!(status.success());
    let done = spark.wait_ended("pr_lost");
    assert_eq!(done["state"], "completed", "{done}\n{}", spark.log());
    let reason = done["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("lost on VM 3") && reason.contains("replaced"),
        "{reason}"
    );
    let replacement = (0..4).any(|vm| {
        hosts
            .join(format!("vm{vm}/workers/pr_lost-{vm}-2.log"))
            .exists()
    });
    assert!(replacement, "a third worker was started for the job");
    assert!(output_lines(&spark.dir.join("out-pr_lost")) > 1000);
}
