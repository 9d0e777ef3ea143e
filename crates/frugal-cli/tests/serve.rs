//! `frugal serve` as a process: killed with SIGKILL mid-run and restarted, it loses no
//! accepted job and finishes them all.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One HTTP/1.1 request on loopback; returns (status, body).
fn http(port: u16, method: &str, path: &str, body: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    let status = out.split_whitespace().nth(1)?.parse().ok()?;
    let body = out.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    Some((status, body))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn spawn(port: u16, db: &std::path::Path) -> Child {
    let child = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .args([
            "serve",
            "--bind",
            &format!("127.0.0.1:{port}"),
            "--db",
            db.to_str().unwrap(),
            "--speedup",
            "600",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("frugal serve starts");
    let t0 = Instant::now();
    while http(port, "GET", "/jobs", "").is_none() {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "the service did not come up"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}

fn states(port: u16) -> Vec<String> {
    let (_, body) = http(port, "GET", "/jobs", "").expect("the service answers");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    v["jobs"]
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
    let db = dir.join("state.db");
    let port = free_port();
    let mut first = spawn(port, &db);
    // 40 jobs of 300 s (0.5 s of wall time at 600x), more than the cluster runs at once.
    for i in 0..40 {
        let job = format!(
            r#"{{"id":"job_{i}","executors":3,"executor_cores":4,"executor_memory_gib":8,"estimated_duration_s":300}}"#
        );
        let (status, body) = http(port, "POST", "/jobs", &job).unwrap();
        assert_eq!(status, 202, "{body}");
    }
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    let mut second = spawn(port, &db);
    assert_eq!(states(port).len(), 40, "every accepted job is still known");
    let t0 = Instant::now();
    loop {
        let s = states(port);
        if s.iter().all(|x| x == "completed") {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "jobs did not finish: {s:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let (_, vms) = http(port, "GET", "/vms", "").unwrap();
    let vms: serde_json::Value = serde_json::from_str(&vms).unwrap();
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
