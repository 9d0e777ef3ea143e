//! The emulated backend with hosts (`serve --backend emulated --provisioner loopback`):
//! real `frugal agent` processes, one per powered-on VM, heartbeating over HTTP and
//! holding placeholder reservation workers. The same protocol, failure detection and
//! restart as the Spark multi-host tests (`multi_host.rs`), with no JVM and no root, so
//! they run in every test run: exact placement and VMs off, a service SIGKILLed and
//! restarted mid-job, a killed host, a frozen (partitioned) host, a restarted agent.

use crate::common;

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::{
    Api, assert_cost_is_on_time_times_price, free_port, get, http, spawn_serve, wait_for,
};

/// Service seconds per wall second: the 60 s job runs 15 s of wall time.
const SPEEDUP: f64 = 4.0;
/// `--host-timeout`, wall seconds: short, with a beat (1 s) of margin over the minimum so
/// that a loaded test machine does not lose a healthy host.
const HOST_TIMEOUT_S: f64 = 3.0;
const JOB_TIMEOUT: Duration = Duration::from_secs(90);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A service on the emulated backend with loopback hosts, in its own directory.
struct Cluster {
    api: Api,
    child: Option<Child>,
}

impl std::ops::Deref for Cluster {
    type Target = Api;
    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Cluster {
    fn start(name: &str) -> Cluster {
        let dir =
            std::env::temp_dir().join(format!("frugal-emu-hosts-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let api = Api {
            port: free_port(),
            dir,
            timeout: JOB_TIMEOUT,
        };
        let mut c = Cluster { api, child: None };
        c.serve();
        c
    }

    fn serve(&mut self) {
        let p = |x: PathBuf| x.to_str().unwrap().to_string();
        let args = [
            ("--provisioner", "loopback".to_string()),
            ("--hosts-dir", p(self.dir.join("hosts"))),
            ("--agent-token-file", p(self.dir.join("agent.token"))),
            ("--host-timeout", HOST_TIMEOUT_S.to_string()),
            ("--boot-timeout", "5".to_string()),
            ("--cluster", p(repo().join("spark/multi-host.toml"))),
            ("--policy", "optimal".to_string()),
            ("--db", p(self.dir.join("state.db"))),
            ("--speedup", SPEEDUP.to_string()),
        ];
        let argv: Vec<&str> = args.iter().flat_map(|(f, v)| [*f, v.as_str()]).collect();
        let log = self.dir.join("serve.log");
        self.child = Some(spawn_serve(self.port, &argv, &log, Duration::from_secs(30)));
    }

    /// SIGKILLs the service (its agents and workers live on).
    fn kill_service(&mut self) {
        let mut child = self.child.take().expect("running");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// Submits a 3-executor job of 60 service seconds.
    fn submit(&self, id: &str) {
        let job = json!({
            "id": id, "kind": "network_bound", "executors": 3, "executor_cores": 1,
            "executor_memory_gib": 0.5, "estimated_duration_s": 60,
            "application_path": "wordcount.py",
        });
        let (status, body) = http(self.port, "POST", "/jobs", &job.to_string()).unwrap();
        assert_eq!(status, 202, "{body}");
    }

    /// VM `vm`'s agent's PID, if it runs.
    fn agent(&self, vm: u32) -> Option<u32> {
        let file = self.dir.join(format!("hosts/vm{vm}/agent.pid"));
        let pid: u32 = std::fs::read_to_string(file).ok()?.trim().parse().ok()?;
        alive(pid).then_some(pid)
    }

    /// PIDs of VM `vm`'s reservation workers, found by their marker.
    fn workers(&self, vm: u32) -> Vec<u32> {
        let host = format!("lo{}-vm{vm}", self.port);
        frugal_service::agent::worker::running(&host)
            .into_values()
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            common::stop(&mut child, Duration::from_secs(30));
        }
        for vm in 0..3 {
            for pid in self.agent(vm).into_iter().chain(self.workers(vm)) {
                signal("-KILL", pid);
            }
        }
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// True if `pid` runs (exists and is not a zombie).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z'))
    })
}

fn signal(sig: &str, pid: u32) {
    let _ = Command::new("kill").args([sig, &pid.to_string()]).status();
}

/// The cheapest placement on `spark/multi-host.toml`.
fn planned() -> Value {
    json!([{"vm": 1, "executors": 1}, {"vm": 2, "executors": 2}])
}

#[test]
fn emulated_hosts_place_exactly_and_a_restarted_service_takes_the_job_over() {
    let mut c = Cluster::start("place");
    c.submit("job_place");
    let running = c.wait_observed("job_place", &planned());
    assert_eq!(running["placement"], planned());
    assert_eq!(c.vm_states(), ["off", "on", "on"]);
    assert_eq!(c.agent(0), None, "the unused VM's host does not run");
    assert_eq!((c.workers(1).len(), c.workers(2).len()), (1, 1));

    c.kill_service();
    c.serve();
    let done = c.wait_ended("job_place");
    assert_eq!(done["state"], "completed", "{done}\n{}", c.log());
    assert_eq!(done["reason"], Value::Null, "taken over, not re-run");
    assert_eq!(done["started_at"], running["started_at"]);
    wait_for(Duration::from_secs(30), "the hosts to be removed", || {
        (0..3)
            .all(|vm| c.agent(vm).is_none() && c.workers(vm).is_empty())
            .then_some(())
    });

    // Accrued cost = Σ stored on-time × price, across the restart.
    let vms = get(c.port, "/vms");
    let on = assert_cost_is_on_time_times_price(&c.dir.join("state.db"), SPEEDUP, &vms);
    assert_eq!(on[0], 0.0, "VM 0 was never on");
    assert!(
        on[1] >= 60.0 && on[2] >= 60.0,
        "VMs 1 and 2 ran the job: {on:?}"
    );
}

/// Breaks VM 2's host with `breaking` once the job runs as planned, and checks that the
/// loss is found within the host timeout and the job completes on a replacement that
/// its record names.
fn host_loss_is_survived(name: &str, breaking: impl FnOnce(&Cluster)) {
    let c = Cluster::start(name);
    let id = format!("job_{name}");
    c.submit(&id);
    c.wait_observed(&id, &planned());
    let t0 = Instant::now();
    breaking(&c);
    wait_for(Duration::from_secs(30), "VM 2 to be found lost", || {
        (c.vm_states()[2] == "lost").then_some(())
    });
    let detected = t0.elapsed().as_secs_f64();
    eprintln!("{name}: VM 2 found lost {detected:.1} s after the break");
    // The last beat came up to one interval (1 s, more under load) before the break; the
    // service checks every 0.5 s and this test polls every 0.2 s.
    assert!(
        (HOST_TIMEOUT_S - 1.5..=HOST_TIMEOUT_S + 2.0).contains(&detected),
        "lost after {detected:.1} s (timeout {HOST_TIMEOUT_S} s)"
    );
    let replaced = json!([{"vm": 0, "executors": 2}, {"vm": 1, "executors": 1}]);
    c.wait_observed(&id, &replaced);
    let done = c.wait_ended(&id);
    assert_eq!(done["state"], "completed", "{done}\n{}", c.log());
    let reason = done["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("2 executor(s) lost with VM 2")
            && reason.contains(&format!("no heartbeat from host lo{}-vm2", c.port))
            && reason.contains("replaced by 2 on VM 0"),
        "{reason}"
    );
    assert_eq!(done["placement"], replaced);
    assert_eq!(c.agent(2), None, "the lost host was powered off");
    wait_for(
        Duration::from_secs(10),
        "VM 2's workers to be stopped",
        || c.workers(2).is_empty().then_some(()),
    );
}

#[test]
fn emulated_hosts_killed_host_is_replaced() {
    host_loss_is_survived("kill", |c| {
        for pid in c.agent(2).into_iter().chain(c.workers(2)) {
            signal("-KILL", pid);
        }
    });
}

/// A stopped agent sends nothing, as a host behind a downed link: the service cannot
/// tell the two apart, and need not.
#[test]
fn emulated_hosts_frozen_host_is_replaced() {
    host_loss_is_survived("freeze", |c| {
        signal("-STOP", c.agent(2).expect("VM 2's agent runs"));
    });
}

#[test]
fn emulated_hosts_restarted_agent_adopts_its_workers() {
    let c = Cluster::start("agent");
    c.submit("job_agent");
    c.wait_observed("job_agent", &planned());
    let pid = c.agent(2).expect("VM 2's agent runs");
    let worker = c.workers(2);
    let argv: Vec<String> = std::fs::read(format!("/proc/{pid}/cmdline"))
        .unwrap()
        .split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    signal("-KILL", pid);
    // What a supervisor (systemd's Restart=always) does: the same command line again.
    let log = std::fs::File::create(c.dir.join("agent-restarted.log")).unwrap();
    let mut restarted = Command::new(&argv[0])
        .args(&argv[1..])
        .process_group(0)
        .stderr(log)
        .spawn()
        .unwrap();
    std::fs::write(
        c.dir.join("hosts/vm2/agent.pid"),
        restarted.id().to_string(),
    )
    .unwrap();
    let done = c.wait_ended("job_agent");
    assert_eq!(done["state"], "completed", "{done}\n{}", c.log());
    assert_eq!(done["reason"], Value::Null, "nothing was lost or replaced");
    assert_eq!(done["placement"], planned());
    let restarted_log = std::fs::read_to_string(c.dir.join("agent-restarted.log")).unwrap();
    assert!(restarted_log.contains("agent started"), "{restarted_log}");
    assert!(
        !restarted_log.contains("started a reservation worker"),
        "the restarted agent adopted the running worker {worker:?}: {restarted_log}"
    );
    let _ = restarted.wait();
}
