//! The service driving a Spark cluster across hosts: each VM a Linux network namespace
//! with its own address (`10.77.<n>.<k+2>`) on a bridge, running its own `frugal agent`;
//! the service, the Spark master and the drivers in a control namespace (`.1`). Real
//! TCP between real processes; nothing is mocked.
//!
//! Needs root (network namespaces), Java 17 and a Python with pyspark (`FRUGAL_PYTHON`).
//! `cargo test --release -- --ignored multi_host` runs exactly these; without root each
//! says so and passes nothing off as tested. Every namespace, link and process a test
//! starts is removed when it ends, pass or fail (its directory too, unless it failed:
//! the logs are there).

use crate::common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::{Api, TOKEN, free_port, http, output_lines, wait_for};

const JOB_TIMEOUT: Duration = Duration::from_secs(480);
/// The service's `--host-timeout` in these tests, seconds.
const HOST_TIMEOUT_S: f64 = 10.0;

fn python() -> String {
    std::env::var("FRUGAL_PYTHON").unwrap_or_else(|_| "python3".into())
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `ip args`, returning whether it succeeded.
fn ip(args: &[&str]) -> bool {
    Command::new("ip")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// True (after saying why not) if this machine can run the tests.
fn can_run() -> bool {
    if !nix::unistd::geteuid().is_root() {
        frugal_core::testing::skip("root (multi-host tests make network namespaces)");
        return false;
    }
    if !ip(&["-V"]) {
        frugal_core::testing::skip("iproute2's `ip` (multi-host tests make network namespaces)");
        return false;
    }
    true
}

/// SIGKILLs every process in namespace `ns`.
fn kill_namespace(ns: &str) {
    let out = Command::new("ip").args(["netns", "pids", ns]).output();
    for pid in out
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
        .split_whitespace()
    {
        let _ = Command::new("kill")
            .args(["-KILL", pid])
            .stderr(Stdio::null())
            .status();
    }
}

/// A control namespace with the service in it, on the netns provisioner. The test's
/// thread enters the control namespace, so its HTTP calls (and the service it starts)
/// are there.
struct MultiHost {
    n: u8,
    api: Api,
    child: Option<Child>,
}

impl std::ops::Deref for MultiHost {
    type Target = Api;
    fn deref(&self) -> &Api {
        &self.api
    }
}

impl MultiHost {
    fn prefix(&self) -> String {
        format!("fgmh{}", self.n)
    }

    fn control(&self) -> String {
        format!("{}-ctl", self.prefix())
    }

    fn namespace(&self, vm: u32) -> String {
        format!("{}-vm{vm}", self.prefix())
    }

    fn address(&self, vm: u32) -> String {
        format!("10.77.{}.{}", self.n, vm + 2)
    }

    fn start(n: u8) -> MultiHost {
        let dir =
            std::env::temp_dir().join(format!("frugal-multi-host-{n}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut m = MultiHost {
            n,
            api: Api {
                port: 0,
                dir,
                timeout: JOB_TIMEOUT,
            },
            child: None,
        };
        m.cleanup();
        let ctl = m.control();
        assert!(ip(&["netns", "add", &ctl]), "ip netns add {ctl}");
        assert!(ip(&["-n", &ctl, "link", "set", "lo", "up"]));
        let ns = std::fs::File::open(format!("/run/netns/{ctl}")).unwrap();
        nix::sched::setns(ns, nix::sched::CloneFlags::CLONE_NEWNET).expect("setns");
        let status = Command::new(python())
            .arg(repo().join("spark/generate_inputs.py"))
            .arg(m.dir.join("input"))
            .status()
            .expect("python runs");
        assert!(status.success(), "the input generator failed");
        m.api.port = free_port();
        m.serve();
        m
    }

    fn serve(&mut self) {
        let p = |x: &Path| x.to_str().unwrap().to_string();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("serve.log"))
            .unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_frugal"))
            .args(["serve", "--bind", &format!("0.0.0.0:{}", self.port)])
            .args(["--backend", "spark-standalone", "--provisioner", "netns"])
            .args(["--netns-prefix", &self.prefix()])
            .args(["--netns-subnet", &format!("10.77.{}.0", self.n)])
            .args(["--host-timeout", &HOST_TIMEOUT_S.to_string()])
            .args(["--python", &python()])
            .args(["--cluster", &p(&repo().join("spark/multi-host.toml"))])
            .args(["--policy", "optimal"])
            .args(["--db", &p(&self.dir.join("state.db"))])
            .args(["--spark-dir", &p(&self.dir.join("spark"))])
            .args(["--agent-token-file", &p(&self.dir.join("agent.token"))])
            .args(["--spark-port", &free_port().to_string()])
            .args(["--spark-ui-port", &free_port().to_string()])
            .env("FRUGAL_API_TOKEN", TOKEN)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("frugal serve starts");
        self.child = Some(child);
        wait_for(Duration::from_secs(180), "the service to be ready", || {
            http(self.port, "GET", "/readyz", "").filter(|(s, _)| *s == 200)
        });
    }

    /// SIGKILLs the service (its agents, master and driver live on).
    fn kill_service(&mut self) {
        let mut child = self.child.take().expect("running");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    fn submit(&self, id: &str, app: &str, args: &[&str]) {
        let (input, output) = match app {
            "wordcount.py" => ("words.txt", format!("out-{id}")),
            _ => ("graph.txt", format!("out-{id}")),
        };
        let job = json!({
            "id": id, "kind": "network_bound", "executors": 3, "executor_cores": 1,
            "executor_memory_gib": 0.5, "estimated_duration_s": 60,
            "application_path": app,
            "input_path": self.dir.join("input").join(input),
            "output_path": self.dir.join(output),
            "arguments": args,
        });
        let (status, body) = http(self.port, "POST", "/jobs", &job.to_string()).unwrap();
        assert_eq!(status, 202, "{body}");
    }

    fn namespace_exists(&self, vm: u32) -> bool {
        Path::new("/run/netns").join(self.namespace(vm)).exists()
    }

    /// The executors' host addresses as the job's driver reports them (its REST API).
    fn driver_hosts(&self, id: &str) -> Vec<String> {
        let ui =
            std::fs::read_to_string(self.dir.join(format!("spark/jobs/{id}/ui_port"))).unwrap();
        let base = format!(
            "http://10.77.{}.1:{}/api/v1/applications",
            self.n,
            ui.trim()
        );
        let apps: Value = ureq::get(&base)
            .call()
            .unwrap()
            .body_mut()
            .read_json()
            .unwrap();
        let app = apps[0]["id"].as_str().unwrap();
        let list: Value = ureq::get(&format!("{base}/{app}/allexecutors"))
            .call()
            .unwrap()
            .body_mut()
            .read_json()
            .unwrap();
        let mut hosts: Vec<String> = list
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["id"] != "driver" && e["isActive"] == true)
            .map(|e| {
                e["hostPort"]
                    .as_str()
                    .unwrap()
                    .rsplit_once(':')
                    .unwrap()
                    .0
                    .to_string()
            })
            .collect();
        hosts.sort();
        hosts
    }

    /// Removes every namespace, link and process of this test's prefix.
    fn cleanup(&self) {
        let listed = Command::new("ip").args(["netns", "list"]).output().unwrap();
        for line in String::from_utf8_lossy(&listed.stdout).lines() {
            let ns = line.split_whitespace().next().unwrap_or("");
            if ns.starts_with(&format!("{}-", self.prefix())) {
                kill_namespace(ns);
                ip(&["netns", "del", ns]);
            }
        }
    }
}

impl Drop for MultiHost {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            common::stop(&mut child, Duration::from_secs(60));
        }
        self.cleanup();
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn planned() -> Value {
    json!([{"vm": 1, "executors": 1}, {"vm": 2, "executors": 2}])
}

#[test]
#[ignore = "needs root, Java 17 and pyspark; run by .ci/run"]
fn multi_host_placement_spans_two_hosts_and_unused_vms_are_off() {
    if !can_run() {
        return;
    }
    let mut m = MultiHost::start(1);
    m.submit("wc_span", "wordcount.py", &[]);
    let running = m.wait_observed("wc_span", &planned());
    assert_eq!(running["placement"], planned());
    assert_eq!(
        m.driver_hosts("wc_span"),
        [m.address(1), m.address(2), m.address(2)],
        "the driver's executors are on exactly the planned hosts"
    );
    assert_eq!(m.vm_states(), ["off", "on", "on"]);
    assert!(
        !m.namespace_exists(0),
        "the unused VM's host does not exist"
    );
    assert!(m.namespace_exists(1) && m.namespace_exists(2));

    // A service killed outright comes back to the same agents, master and driver.
    m.kill_service();
    m.serve();
    let done = m.wait_ended("wc_span");
    assert_eq!(done["state"], "completed", "{done}\n{}", m.log());
    assert_eq!(
        done["reason"],
        Value::Null,
        "taken over, not re-run or replaced"
    );
    assert!(output_lines(&m.dir.join("out-wc_span")) > 1000);
    wait_for(Duration::from_secs(60), "the hosts to be removed", || {
        (0..3).all(|vm| !m.namespace_exists(vm)).then_some(())
    });
    assert_eq!(m.vm_states(), ["off", "off", "off"]);
}

/// Submits a long PageRank, waits for its planned placement, breaks VM 2's host with
/// `breaking`, and checks that the loss is detected within the host timeout and the job
/// completes on a replacement that its record names.
fn host_loss_is_survived(n: u8, id: &str, breaking: impl FnOnce(&MultiHost)) {
    let m = MultiHost::start(n);
    m.submit(id, "pagerank.py", &["12"]);
    m.wait_observed(id, &planned());
    let t0 = Instant::now();
    breaking(&m);
    wait_for(Duration::from_secs(60), "VM 2 to be found lost", || {
        (m.vm_states()[2] == "lost").then_some(())
    });
    let detected = t0.elapsed().as_secs_f64();
    eprintln!("{id}: VM 2 found lost {detected:.1} s after the break");
    assert!(
        detected <= HOST_TIMEOUT_S + 3.0,
        "lost after {detected:.1} s (timeout {HOST_TIMEOUT_S} s)"
    );
    let done = m.wait_ended(id);
    assert_eq!(done["state"], "completed", "{done}\n{}", m.log());
    let reason = done["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("lost with VM 2") && reason.contains("replaced by 2 on VM 0"),
        "{reason}"
    );
    assert_eq!(
        done["placement"],
        json!([{"vm": 0, "executors": 2}, {"vm": 1, "executors": 1}])
    );
    assert!(!m.namespace_exists(2), "the lost host was removed");
    assert!(output_lines(&m.dir.join(format!("out-{id}"))) > 1000);
}

#[test]
#[ignore = "needs root, Java 17 and pyspark; run by .ci/run"]
fn multi_host_killed_agent_and_workers_are_replaced() {
    if !can_run() {
        return;
    }
    host_loss_is_survived(2, "pr_kill", |m| kill_namespace(&m.namespace(2)));
}

#[test]
#[ignore = "needs root, Java 17 and pyspark; run by .ci/run"]
fn multi_host_partitioned_host_is_replaced() {
    if !can_run() {
        return;
    }
    host_loss_is_survived(3, "pr_link", |m| {
        let link = format!("{}v2", m.prefix());
        assert!(
            ip(&["link", "set", &link, "down"]),
            "ip link set {link} down"
        );
    });
}

#[test]
#[ignore = "needs root, Java 17 and pyspark; run by .ci/run"]
fn multi_host_restarted_agent_finds_its_workers() {
    if !can_run() {
        return;
    }
    let m = MultiHost::start(4);
    m.submit("pr_agent", "pagerank.py", &["12"]);
    m.wait_observed("pr_agent", &planned());
    // What a supervisor (systemd's Restart=always) does: the same command line again.
    let agent = m.dir.join("spark/hosts/vm2/agent.pid");
    let pid = std::fs::read_to_string(&agent).unwrap().trim().to_string();
    let argv: Vec<String> = std::fs::read(format!("/proc/{pid}/cmdline"))
        .unwrap()
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    assert!(
        Command::new("kill")
            .args(["-KILL", &pid])
            .status()
            .unwrap()
            .success()
    );
    let log = std::fs::File::create(m.dir.join("agent-restarted.log")).unwrap();
    let mut restarted = Command::new("ip")
        .args(["netns", "exec", &m.namespace(2)])
        .args(&argv)
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    std::fs::write(&agent, restarted.id().to_string()).unwrap();
    let done = m.wait_ended("pr_agent");
    let _ = restarted.kill();
    let _ = restarted.wait();
    assert_eq!(done["state"], "completed", "{done}\n{}", m.log());
    assert_eq!(done["reason"], Value::Null, "nothing was lost or replaced");
    assert_eq!(done["placement"], planned());
    let restarted_log = std::fs::read_to_string(m.dir.join("agent-restarted.log")).unwrap();
    assert!(restarted_log.contains("agent started"), "{restarted_log}");
    assert!(
        !restarted_log.contains("started a reservation worker"),
        "the restarted agent adopted the running worker: {restarted_log}"
    );
}
