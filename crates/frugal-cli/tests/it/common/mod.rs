//! Helpers for tests that run `frugal` as a process: its output, scratch directories, and
//! a `frugal serve` to talk to over HTTP.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "../../../../frugal-service/tests/it/common/cost.rs"]
mod cost;

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

/// Runs `frugal` with `argv` and asserts that it refuses them as misuse: exit code 2,
/// `want` (the flag, keyword or file it must name) on stderr, nothing on stdout, no panic.
pub fn refused(argv: &[&str], want: &str) {
    let (code, out, err) = frugal(argv);
    assert_eq!(code, 2, "{argv:?}: {err}");
    assert!(err.contains(want), "{argv:?} should name {want}: {err}");
    assert!(
        out.is_empty() && !err.contains("panicked"),
        "{argv:?}: {out}{err}"
    );
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

/// The words of `args` (an argv written as one line; no word holds a space).
pub fn words(args: &str) -> Vec<&str> {
    args.split_whitespace().collect()
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

/// A `frugal serve` under test, as its API and its directory (log in `serve.log`) show it.
pub struct Api {
    /// Its API port on loopback (or the test's namespace).
    pub port: u16,
    /// Its directory: database, log, and whatever the test puts there.
    pub dir: PathBuf,
    /// How long a job may take to be observed or to end.
    pub timeout: Duration,
}

impl Api {
    /// Job `id` as `GET /jobs/<id>` answers.
    pub fn job(&self, id: &str) -> Value {
        get(self.port, &format!("/jobs/{id}"))
    }

    /// Every VM's power state, in VM order.
    pub fn vm_states(&self) -> Vec<String> {
        get(self.port, "/vms")["vms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["state"].as_str().unwrap().to_string())
            .collect()
    }

    /// Waits until job `id`'s observed placement is `expected` (its executors run exactly
    /// where placed); panics with the service's log if the job fails first.
    pub fn wait_observed(&self, id: &str, expected: &Value) -> Value {
        wait_for(self.timeout, "every executor to run where placed", || {
            let j = self.job(id);
            assert_ne!(j["state"], "failed", "{j}\n{}", self.log());
            (j["observed_placement"] == *expected).then_some(j)
        })
    }

    /// Waits until job `id` has ended; returns its record.
    pub fn wait_ended(&self, id: &str) -> Value {
        wait_for(self.timeout, "the job to end", || {
            let j = self.job(id);
            (j["state"] != "running" && j["state"] != "queued").then_some(j)
        })
    }

    /// The service's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("serve.log")).unwrap_or_default()
    }
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

/// Checks that every VM in `vms` (a `/vms` answer) is off (or lost: out of service, not
/// billed) and accrued exactly its stored on-time × price, reading the power intervals
/// from the SQLite database `db` written at `speedup`; returns each VM's on-time, service
/// seconds, in `/vms` order.
pub fn assert_cost_is_on_time_times_price(db: &Path, speedup: f64, vms: &Value) -> Vec<f64> {
    let vms = vms["vms"].as_array().unwrap();
    assert!(
        vms.iter()
            .all(|v| v["state"] == "off" || v["state"] == "lost"),
        "{vms:?}"
    );
    let url = format!("sqlite:{}", db.display());
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(cost::assert_cost_is_on_time_times_price(&url, speedup, vms))
}

/// Every file under `dir`, relative path → bytes.
pub fn tree(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Stops a service as an operator would: SIGTERM, up to `grace` for it to exit, then
/// SIGKILL; reaped either way.
pub fn stop(child: &mut Child, grace: Duration) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let t0 = Instant::now();
    while t0.elapsed() < grace && child.try_wait().ok().flatten().is_none() {
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
}
