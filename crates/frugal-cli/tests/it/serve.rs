//! `frugal serve` as a process: killed with SIGKILL mid-run and restarted, it loses no
//! accepted job and finishes them all.

use crate::common;

use std::time::Duration;

use common::{free_port, get, spawn_serve, wait_for};

fn spawn(port: u16, dir: &std::path::Path) -> std::process::Child {
    let db = dir.join("state.db");
    spawn_serve(
        port,
        &["--db", db.to_str().unwrap(), "--speedup", "600"],
        &dir.join("serve.log"),
        Duration::from_secs(20),
    )
}

fn states(port: u16) -> Vec<String> {
    get(port, "/jobs")["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["state"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn sigkill_and_restart_lose_no_accepted_job() {
    let dir = std::env::temp_dir().join(format!("frugal-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let port = free_port();
    let mut first = spawn(port, &dir);
    // 40 jobs of 300 s (0.5 s of wall time at 600x), more than the cluster runs at once.
    for i in 0..40 {
        let job = format!(
            r#"{{"id":"job_{i}","executors":3,"executor_cores":4,"executor_memory_gib":8,"estimated_duration_s":300,"application_path":"wordcount.py"}}"#
        );
        let (status, body) = common::http(port, "POST", "/jobs", &job).unwrap();
        assert_eq!(status, 202, "{body}");
    }
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    let mut second = spawn(port, &dir);
    assert_eq!(states(port).len(), 40, "every accepted job is still known");
    wait_for(Duration::from_secs(60), "every job to complete", || {
        states(port).iter().all(|x| x == "completed").then_some(())
    });
    let vms = get(port, "/vms");
    assert!(
        vms["vms"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v["state"] == "off")
    );
    second.kill().unwrap();
    second.wait().unwrap();
    std::fs::remove_dir_all(&dir).ok();
}
