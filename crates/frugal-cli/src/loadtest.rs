//! `frugal loadtest`: a bounded load test of the scheduler service on loopback. It starts
//! `frugal serve` (this executable; emulated backend, durable store, token on) as a child
//! process and drives it with keep-alive clients submitting back to back — optionally
//! beside pollers listing jobs, slowloris connections, and SIGKILL rounds that kill and
//! restart the service mid-load — then checks that every acknowledged job is stored and
//! reports throughput, submit latency, submit-to-placement latency, refusals and the
//! service's peak memory.

use frugal_core::PolicySpec;
use std::collections::HashSet;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use frugal_sim::metrics::percentile;

use crate::values::number_in;
use crate::values::{ClusterParser, PolicyParser};
use frugal_sim::options::choices::ClusterSource;

/// Options of `frugal loadtest`.
#[derive(Args, Debug)]
pub struct LoadtestArgs {
    /// Seconds of submissions in all, in (0, 3600] (split evenly between kill rounds).
    #[arg(long, default_value_t = 10.0, value_parser = number_in(0.001, 3600.0))]
    pub seconds: f64,
    /// Concurrent clients, each with one keep-alive connection submitting back to back.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..))]
    pub clients: u16,
    /// Clients listing every job page by page (GET /jobs?limit=1000), one page per
    /// --poll-interval-ms.
    #[arg(long, default_value_t = 0)]
    pub pollers: u16,
    /// Milliseconds between a poller's pages (0: back to back).
    #[arg(long, default_value_t = 100)]
    pub poll_interval_ms: u64,
    /// Slowloris connections: each sends a request's headers one byte per second and
    /// reconnects when the service closes it.
    #[arg(long, default_value_t = 0)]
    pub slowloris: u16,
    /// Times the service is killed with SIGKILL mid-load and restarted on the same
    /// database.
    #[arg(long, default_value_t = 0)]
    pub kill_rounds: u16,
    /// Database URL; default: a fresh SQLite file in a temporary directory, removed
    /// afterwards.
    #[arg(long)]
    pub database_url: Option<String>,
    /// What an acknowledged submission survives (see `serve`).
    #[arg(long, value_parser = crate::values::choice::<frugal_service::Durability>(), default_value = "process")]
    pub durability: frugal_service::Durability,
    /// Cluster preset or TOML file.
    #[arg(long, value_name = "PRESET|FILE", default_value = "large-hybrid", value_parser = ClusterParser)]
    pub cluster: ClusterSource,
    /// Placement policy.
    #[arg(long, default_value = "first-fit", value_parser = PolicyParser)]
    pub policy: PolicySpec,
    /// Run time of each job (1 executor, 1 core, 1 GiB), service seconds, in (0, 1e6].
    #[arg(long, default_value_t = 1.0, value_parser = number_in(1e-3, 1e6))]
    pub job_seconds: f64,
    /// Service seconds per wall-clock second of the emulated backend.
    #[arg(long, default_value_t = 100.0, value_parser = number_in(1e-3, 1e6))]
    pub speedup: f64,
    /// The service's queue bound (jobs waiting for placement; 503 past it).
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_queued: u32,
    /// The service's SQLite WAL limit, MiB (see `serve`).
    #[arg(long, default_value_t = 128, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub wal_limit_mib: u32,
}

/// What one client saw.
#[derive(Default)]
struct ClientReport {
    accepted: Vec<String>,
    refused: usize,
    refused_without_retry_after: usize,
    other: Vec<u16>,
    latencies_s: Vec<f64>,
}

/// The service under test: a `frugal serve` child process.
struct Served {
    child: Child,
    addr: SocketAddr,
}

/// Everything one run of the service needs.
struct Setup {
    dir: PathBuf,
    database_url: String,
    token: String,
    args: Vec<String>,
}

impl Setup {
    /// Starts `frugal serve` and waits until `/readyz` answers 200.
    fn start(&self) -> Result<Served> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse()?;
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("serve.log"))?;
        let child = Command::new(std::env::current_exe()?)
            .args(["--log-format", "json", "serve", "--bind", &addr.to_string()])
            .args(["--database-url", &self.database_url])
            .args(&self.args)
            .env(frugal_service::spec::TOKEN_ENV, &self.token)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()?;
        let mut served = Served { child, addr };
        let t0 = Instant::now();
        let agent = agent();
        while agent
            .get(&format!("http://{addr}/readyz"))
            .call()
            .map_or(true, |r| r.status() != 200)
        {
            if let Some(status) = served.child.try_wait()? {
                bail!(
                    "frugal serve exited with {status} (see {})",
                    self.dir.join("serve.log").display()
                );
            }
            if t0.elapsed() > Duration::from_secs(30) {
                let _ = served.child.kill();
                bail!("frugal serve was not ready within 30 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(served)
    }
}

impl Served {
    /// Peak resident memory so far, MiB.
    fn peak_rss_mib(&self) -> Option<f64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        Some(line.split_whitespace().nth(1)?.parse::<f64>().ok()? / 1024.0)
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    fn stop(mut self) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGTERM,
        );
        let _ = self.child.wait();
    }
}

/// Runs the load test and prints its figures; an error if an acknowledged job is
/// missing or the service answered anything but 202, 200 or 503.
pub fn run(a: &LoadtestArgs) -> Result<()> {
    crate::serve::raise_file_limit();
    let dir = std::env::temp_dir().join(format!("frugal-loadtest-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let database_url = a
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite:{}", dir.join("state.db").display()));
    let setup = Setup {
        dir: dir.clone(),
        database_url,
        token: format!("loadtest-{}", std::process::id()),
        args: vec![
            "--cluster".into(),
            a.cluster.to_string(),
            "--policy".into(),
            a.policy.to_string(),
            "--speedup".into(),
            a.speedup.to_string(),
            "--durability".into(),
            a.durability.to_string(),
            "--max-queued".into(),
            a.max_queued.to_string(),
            "--wal-limit-mib".into(),
            a.wal_limit_mib.to_string(),
            "--token-file".into(),
            dir.join("token").display().to_string(),
        ],
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let rounds = u32::from(a.kill_rounds) + 1;
    let segment = Duration::from_secs_f64(a.seconds / f64::from(rounds));
    let mut reports: Vec<ClientReport> = Vec::new();
    let mut peak_rss: f64 = 0.0;
    let polls = Arc::new(AtomicU64::new(0));
    let t0 = Instant::now();
    let mut served = setup.start()?;
    for round in 0..rounds {
        let deadline = Instant::now() + segment;
        let addr = served.addr;
        let stop = Arc::new(AtomicBool::new(false));
        let background: Vec<_> = rt.block_on(async {
            let mut tasks = Vec::new();
            for _ in 0..a.pollers {
                tasks.push(tokio::spawn(poller(
                    addr,
                    setup.token.clone(),
                    Duration::from_millis(a.poll_interval_ms),
                    Arc::clone(&stop),
                    Arc::clone(&polls),
                )));
            }
            for _ in 0..a.slowloris {
                tasks.push(tokio::spawn(slowloris(addr, Arc::clone(&stop))));
            }
            tasks
        });
        let clients: Vec<ClientReport> = rt.block_on(async {
            let handles: Vec<_> = (0..a.clients)
                .map(|c| {
                    tokio::spawn(client(
                        addr,
                        setup.token.clone(),
                        format!("lt{}_{round}_{c}", std::process::id()),
                        deadline,
                        a.job_seconds,
                    ))
                })
                .collect();
            let mut out = Vec::new();
            for h in handles {
                out.push(h.await??);
            }
            anyhow::Ok(out)
        })?;
        stop.store(true, Ordering::SeqCst);
        rt.block_on(async {
            for t in background {
                let _ = t.await;
            }
        });
        reports.extend(clients);
        peak_rss = peak_rss.max(served.peak_rss_mib().unwrap_or(0.0));
        if round + 1 < rounds {
            served.kill();
            served = setup.start()?;
        }
    }
    let elapsed = t0.elapsed().as_secs_f64();
    let jobs = wait_placed(&served.addr, &setup.token, Duration::from_secs(60));
    peak_rss = peak_rss.max(served.peak_rss_mib().unwrap_or(0.0));
    served.stop();
    if a.database_url.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let jobs = jobs?;

    let stored: HashSet<&str> = jobs.iter().filter_map(|j| j["id"].as_str()).collect();
    let accepted: Vec<&String> = reports.iter().flat_map(|r| &r.accepted).collect();
    let missing = accepted
        .iter()
        .filter(|id| !stored.contains(id.as_str()))
        .count();
    let refused: usize = reports.iter().map(|r| r.refused).sum();
    let bare: usize = reports.iter().map(|r| r.refused_without_retry_after).sum();
    let other: Vec<u16> = reports.iter().flat_map(|r| r.other.clone()).collect();
    let mut submit: Vec<f64> = reports.iter().flat_map(|r| r.latencies_s.clone()).collect();
    let mut placement: Vec<f64> = jobs
        .iter()
        .filter_map(|j| {
            Some(rfc3339(j["started_at"].as_str()?)? - rfc3339(j["submitted_at"].as_str()?)?)
        })
        .collect();
    let ms = |v: &mut Vec<f64>, q: f64| percentile(v, q) * 1e3;
    println!(
        "loadtest: {} clients, {} pollers (a page per {} ms), {} slowloris connections, {} SIGKILL rounds, {:.1} s; \
         emulated backend x{}, {} store ({:?} durability), policy {}, cluster {}",
        a.clients,
        a.pollers,
        a.poll_interval_ms,
        a.slowloris,
        a.kill_rounds,
        elapsed,
        a.speedup,
        setup.database_url.split(':').next().unwrap_or_default(),
        a.durability,
        a.policy,
        a.cluster
    );
    println!(
        "  submissions accepted    {} ({:.0}/s), refused with 503 {refused} ({bare} without Retry-After), other {}",
        accepted.len(),
        accepted.len() as f64 / elapsed,
        other.len()
    );
    println!(
        "  stored durably          {} of {}",
        accepted.len() - missing,
        accepted.len()
    );
    println!(
        "  submit latency          p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms(&mut submit, 0.5),
        ms(&mut submit, 0.99),
        ms(&mut submit, 1.0)
    );
    println!(
        "  submit-to-placement     p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} placed)",
        ms(&mut placement, 0.5),
        ms(&mut placement, 0.99),
        ms(&mut placement, 1.0),
        placement.len()
    );
    if a.pollers > 0 {
        println!(
            "  job-list pages served   {} ({:.0}/s)",
            polls.load(Ordering::SeqCst),
            polls.load(Ordering::SeqCst) as f64 / elapsed
        );
    }
    println!("  service peak RSS        {peak_rss:.1} MiB");
    if missing > 0 || !other.is_empty() || bare > 0 {
        bail!(
            "{missing} acknowledged jobs missing, {} unexpected statuses {:?}, {bare} 503s without Retry-After",
            other.len(),
            &other[..other.len().min(10)]
        );
    }
    Ok(())
}

/// Seconds since the Unix epoch of an RFC 3339 timestamp.
fn rfc3339(s: &str) -> Option<f64> {
    let t = time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).ok()?;
    Some(t.unix_timestamp_nanos() as f64 / 1e9)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(30)))
        .http_status_as_error(false)
        .build()
        .into()
}

/// A keep-alive HTTP/1.1 connection to `addr`.
async fn connect(addr: SocketAddr) -> Result<hyper::client::conn::http1::SendRequest<Full<Bytes>>> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
    tokio::spawn(conn);
    Ok(sender)
}

/// Submits jobs back to back on one keep-alive connection until `deadline`, timing
/// each request. A connection the service drops (it was killed) ends the client.
async fn client(
    addr: SocketAddr,
    token: String,
    prefix: String,
    deadline: Instant,
    job_seconds: f64,
) -> Result<ClientReport> {
    let mut sender = connect(addr).await?;
    let mut report = ClientReport::default();
    let mut k = 0;
    while Instant::now() < deadline {
        let id = format!("{prefix}_{k}");
        k += 1;
        let body = json!({
            "id": id, "executors": 1, "executor_cores": 1, "executor_memory_gib": 1,
            "estimated_duration_s": job_seconds, "application_path": "wordcount.py",
        });
        let req = hyper::Request::post("/jobs")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .body(Full::new(Bytes::from(body.to_string())))?;
        let t = Instant::now();
        let Ok(resp) = sender.send_request(req).await else {
            break;
        };
        let status = resp.status().as_u16();
        let retry_after = resp.headers().contains_key("retry-after");
        if resp.into_body().collect().await.is_err() {
            break;
        }
        report.latencies_s.push(t.elapsed().as_secs_f64());
        match status {
            200 | 202 => report.accepted.push(id),
            503 => {
                report.refused += 1;
                report.refused_without_retry_after += usize::from(!retry_after);
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            s => report.other.push(s),
        }
    }
    Ok(report)
}

/// Lists every job, page by page, one page per `interval`, until told to stop; counts
/// the pages.
async fn poller(
    addr: SocketAddr,
    token: String,
    interval: Duration,
    stop: Arc<AtomicBool>,
    pages: Arc<AtomicU64>,
) {
    let Ok(mut sender) = connect(addr).await else {
        return;
    };
    let mut cursor = String::new();
    while !stop.load(Ordering::SeqCst) {
        let uri = format!("/jobs?limit=1000{cursor}");
        let Ok(req) = hyper::Request::get(uri)
            .header("host", "localhost")
            .header("authorization", format!("Bearer {token}"))
            .body(Full::new(Bytes::new()))
        else {
            return;
        };
        let Ok(resp) = sender.send_request(req).await else {
            return;
        };
        let Ok(body) = resp.into_body().collect().await else {
            return;
        };
        pages.fetch_add(1, Ordering::SeqCst);
        let page: Value = serde_json::from_slice(&body.to_bytes()).unwrap_or(Value::Null);
        cursor = page["next_cursor"]
            .as_str()
            .map(|c| format!("&cursor={c}"))
            .unwrap_or_default();
        tokio::time::sleep(interval).await;
    }
}

/// Holds a connection that sends a request's headers one byte per second, reconnecting
/// whenever the service closes it, until told to stop.
async fn slowloris(addr: SocketAddr, stop: Arc<AtomicBool>) {
    const HEAD: &[u8] =
        b"POST /jobs HTTP/1.1\r\nHost: localhost\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    while !stop.load(Ordering::SeqCst) {
        let Ok(mut stream) = tokio::net::TcpStream::connect(addr).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        for byte in HEAD.iter().cycle() {
            if stop.load(Ordering::SeqCst) || stream.write_all(&[*byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }
}

/// Waits (up to `limit`) until no job is queued; returns every job, listed page by page.
fn wait_placed(addr: &SocketAddr, token: &str, limit: Duration) -> Result<Vec<Value>> {
    let agent = agent();
    let get = |path: &str| -> Result<Value> {
        agent
            .get(&format!("http://{addr}{path}"))
            .header("authorization", &format!("Bearer {token}"))
            .call()?
            .body_mut()
            .read_json()
            .with_context(|| format!("GET {path}"))
    };
    let t0 = Instant::now();
    while get("/jobs?state=queued&limit=1")?["jobs"]
        .as_array()
        .is_some_and(|j| !j.is_empty())
    {
        if t0.elapsed() > limit {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut jobs = Vec::new();
    let mut cursor = String::new();
    loop {
        let page = get(&format!("/jobs?limit=1000{cursor}"))?;
        jobs.extend(page["jobs"].as_array().cloned().unwrap_or_default());
        match page["next_cursor"].as_str() {
            Some(c) => cursor = format!("&cursor={c}"),
            None => return Ok(jobs),
        }
    }
}
