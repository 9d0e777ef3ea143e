//! Helpers for tests that run `frugal` as a process: its output, scratch directories, and
//! a `frugal serve` to talk to over HTTP.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Runs `frugal` with `args`: (exit code, stdout, stderr).
pub fn frugal(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .args(args)
        .output()
        .expect("frugal runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A scratch directory unique to this test process.
pub fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("frugal-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The API token the test services run with.
pub const TOKEN: &str = "frugal-test-token";

/// One HTTP/1.1 request on loopback with the test token; returns (status, body), or None
/// if nothing answers.
pub fn http(port: u16, method: &str, path: &str, body: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    let status = out.split_whitespace().nth(1)?.parse().ok()?;
    let body = out.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    Some((status, body))
}

/// GET `path` as JSON; panics if the service does not answer with JSON.
pub fn get(port: u16, path: &str) -> Value {
    let (_, body) = http(port, "GET", path, "").expect("the service answers");
    serde_json::from_str(&body).expect("a JSON body")
}

/// A TCP port free on loopback right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `frugal serve --bind 127.0.0.1:<port> <args>` with its output in `log`, and
/// waits up to `timeout` until it answers.
pub fn spawn_serve(port: u16, args: &[&str], log: &Path, timeout: Duration) -> Child {
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_frugal"))
        .args(["serve", "--bind", &format!("127.0.0.1:{port}")])
        .args(args)
        .env("FRUGAL_API_TOKEN", TOKEN)
        .stdout(Stdio::null())
        .stderr(out)
        .spawn()
        .expect("frugal serve starts");
    let t0 = Instant::now();
    while http(port, "GET", "/readyz", "").is_none_or(|(s, _)| s != 200) {
        assert!(
            t0.elapsed() < timeout,
            "the service did not come up: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    child
}

/// Polls `check` every 200 ms until it returns Some, or panics after `timeout` with
/// `what`.
pub fn wait_for<T>(timeout: Duration, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let t0 = Instant::now();
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(t0.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Lines in the `part-*` files of a Spark job's output directory (0 if it has none).
pub fn output_lines(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("part-"))
                .map(|e| std::fs::read_to_string(e.path()).unwrap().lines().count())
                .sum()
        })
        .unwrap_or(0)
}

/// Checks that every VM in `vms` (a `/vms` answer) is off and accrued exactly its stored
/// on-time × price, reading the power intervals from the SQLite database `db` written at
/// `speedup`; returns each VM's on-time, service seconds, in `/vms` order.
pub fn assert_cost_is_on_time_times_price(db: &Path, speedup: f64, vms: &Value) -> Vec<f64> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let intervals = rt.block_on(async {
        let store = frugal_service::Store::open(
            &format!("sqlite:{}", db.display()),
            frugal_service::Durability::Process,
            frugal_service::clock::Clock::new(speedup),
            frugal_service::StoreLimits::default(),
        )
        .await
        .unwrap();
        store.vm_intervals().await.unwrap()
    });
    let mut on_times = Vec::new();
    for v in vms["vms"].as_array().unwrap() {
        assert_eq!(v["state"], "off");
        let id = v["id"].as_u64().unwrap() as u32;
        let on: f64 = intervals
            .iter()
            .filter(|i| i.0 == id)
            .map(|i| i.2.expect("closed") - i.1)
            .sum();
        let cost = v["accrued_cost_usd"].as_f64().unwrap();
        let expected = on * v["price_per_second"].as_f64().unwrap();
        assert!(
            (cost - expected).abs() < 1e-9,
            "VM {id}: {cost} vs {expected}"
        );
        on_times.push(on);
    }
    on_times
}
