//! A bounded load test of the scheduler service on loopback (`frugal loadtest`). It starts
//! `frugal serve` (emulated backend, durable store, token on; configured by a
//! [`ServeSpec`] written as its `--config` file) as a child process and drives it with
//! keep-alive clients submitting back to back — optionally beside pollers listing jobs,
//! slowloris connections, and SIGKILL rounds that kill and restart the service mid-load —
//! then checks that every acknowledged job is stored and reports throughput, submit
//! latency, submit-to-placement latency, refusals and the service's peak memory.

mod clients;

use frugal_core::spec::ConfigFile;
use std::collections::HashSet;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

use frugal_core::PolicySpec;
use frugal_core::spec::{SpecError, each_in};
use frugal_service::spec::TOKEN_ENV;
use frugal_service::{Durability, ServeSpec};
use frugal_sim::metrics::percentile;
use frugal_sim::options::choices::ClusterSource;

use clients::{ClientReport, agent, client, poller, rfc3339, slowloris, wait_placed};

/// The load test's settings; each is a flag of `frugal loadtest` (feature `clap`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct LoadtestSpec {
    /// Seconds of submissions in all, in (0, 3600] (split evenly between kill rounds).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 10.0))]
    pub seconds: f64,
    /// Concurrent clients (≥ 1), each with one keep-alive connection submitting back to
    /// back.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 8))]
    pub clients: u16,
    /// Clients listing every job page by page (GET /jobs?limit=1000), one page per
    /// --poll-interval-ms.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0))]
    pub pollers: u16,
    /// Milliseconds between a poller's pages (0: back to back).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 100))]
    pub poll_interval_ms: u64,
    /// Slowloris connections: each sends a request's headers one byte per second and
    /// reconnects when the service closes it.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0))]
    pub slowloris: u16,
    /// Times the service is killed with SIGKILL mid-load and restarted on the same
    /// database.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0))]
    pub kill_rounds: u16,
    /// Database URL; default: a fresh SQLite file in a temporary directory, removed
    /// afterwards.
    #[cfg_attr(feature = "clap", arg(long))]
    pub database_url: Option<String>,
    /// What an acknowledged submission survives (see `serve`).
    #[cfg_attr(feature = "clap", arg(long, value_parser = frugal_core::flags::choice::<Durability>(), default_value = "process"))]
    pub durability: Durability,
    /// Cluster preset or TOML file.
    #[cfg_attr(feature = "clap", arg(long, value_name = "PRESET|FILE", default_value = "large-hybrid", value_parser = frugal_sim::options::choices::ClusterParser))]
    pub cluster: ClusterSource,
    /// Placement policy.
    #[cfg_attr(feature = "clap", arg(long, default_value = "first-fit", value_parser = frugal_core::flags::PolicyParser))]
    pub policy: PolicySpec,
    /// Run time of each job (1 executor, 1 core, 1 GiB), service seconds, in (0, 1e6].
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 1.0))]
    pub job_seconds: f64,
    /// Service seconds per wall-clock second of the emulated backend, in (0, 1e6].
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 100.0))]
    pub speedup: f64,
    /// The service's queue bound (jobs waiting for placement; 503 past it), ≥ 1.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 100_000))]
    pub max_queued: u32,
    /// The service's SQLite WAL limit, MiB in [1, 65,536] (see `serve`).
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 128))]
    pub wal_limit_mib: u32,
}

impl Default for LoadtestSpec {
    fn default() -> LoadtestSpec {
        LoadtestSpec {
            seconds: 10.0,
            clients: 8,
            pollers: 0,
            poll_interval_ms: 100,
            slowloris: 0,
            kill_rounds: 0,
            database_url: None,
            durability: Durability::Process,
            cluster: ClusterSource::Preset(frugal_core::Preset::LargeHybrid),
            policy: PolicySpec::Builtin(frugal_core::PolicyKind::FirstFit),
            job_seconds: 1.0,
            speedup: 100.0,
            max_queued: 100_000,
            wal_limit_mib: 128,
        }
    }
}

impl LoadtestSpec {
    /// Checks the ranges.
    ///
    /// # Errors
    /// [`SpecError`] naming the field.
    pub fn check(&self) -> Result<(), SpecError> {
        each_in("seconds", &[self.seconds], 1e-3, 3600.0)?;
        each_in("clients", &[self.clients], 1, u16::MAX)?;
        each_in("job-seconds", &[self.job_seconds], 1e-3, 1e6)?;
        each_in("speedup", &[self.speedup], 1e-3, 1e6)?;
        each_in("max-queued", &[self.max_queued], 1, u32::MAX)?;
        each_in("wal-limit-mib", &[self.wal_limit_mib], 1, 65_536)?;
        Ok(())
    }
}

/// The service under test: a `frugal serve` child process.
struct Served {
    child: Child,
    addr: SocketAddr,
}

/// Everything one run of the service needs.
struct Setup {
    dir: PathBuf,
    /// The `frugal` executable.
    frugal: PathBuf,
    token: String,
    /// The service's settings but its address (a free port at each start).
    service: ServeSpec,
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
        let config = self.dir.join("serve.toml");
        let service = ServeSpec {
            bind: Some(addr),
            ..self.service.clone()
        };
        std::fs::write(&config, service.to_toml())?;
        let child = Command::new(&self.frugal)
            .args(["--log-format", "json", "serve", "--config"])
            .arg(&config)
            .env(TOKEN_ENV, &self.token)
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
pub fn run(a: &LoadtestSpec, frugal: &Path, out: &mut dyn Write) -> Result<()> {
    a.check()?;
    frugal_service::raise_file_limit();
    let dir = std::env::temp_dir().join(format!("frugal-loadtest-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let database_url = a
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite:{}", dir.join("state.db").display()));
    let setup = Setup {
        dir: dir.clone(),
        frugal: frugal.to_path_buf(),
        token: format!("loadtest-{}", std::process::id()),
        service: ServeSpec {
            database_url: Some(database_url),
            cluster: Some(a.cluster.clone()),
            policy: Some(a.policy.clone()),
            speedup: Some(a.speedup),
            durability: Some(a.durability),
            max_queued: Some(a.max_queued),
            wal_limit_mib: Some(a.wal_limit_mib),
            token_file: Some(dir.join("token")),
            ..ServeSpec::default()
        },
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
    writeln!(
        out,
        "loadtest: {} clients, {} pollers (a page per {} ms), {} slowloris connections, {} SIGKILL rounds, {:.1} s; \
         emulated backend x{}, {} store ({:?} durability), policy {}, cluster {}",
        a.clients,
        a.pollers,
        a.poll_interval_ms,
        a.slowloris,
        a.kill_rounds,
        elapsed,
        a.speedup,
        setup
            .service
            .database_url
            .as_deref()
            .unwrap_or_default()
            .split(':')
            .next()
            .unwrap_or_default(),
        a.durability,
        a.policy,
        a.cluster
    )?;
    writeln!(
        out,
        "  submissions accepted    {} ({:.0}/s), refused with 503 {refused} ({bare} without Retry-After), other {}",
        accepted.len(),
        accepted.len() as f64 / elapsed,
        other.len()
    )?;
    writeln!(
        out,
        "  stored durably          {} of {}",
        accepted.len() - missing,
        accepted.len()
    )?;
    writeln!(
        out,
        "  submit latency          p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms(&mut submit, 0.5),
        ms(&mut submit, 0.99),
        ms(&mut submit, 1.0)
    )?;
    writeln!(
        out,
        "  submit-to-placement     p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} placed)",
        ms(&mut placement, 0.5),
        ms(&mut placement, 0.99),
        ms(&mut placement, 1.0),
        placement.len()
    )?;
    if a.pollers > 0 {
        writeln!(
            out,
            "  job-list pages served   {} ({:.0}/s)",
            polls.load(Ordering::SeqCst),
            polls.load(Ordering::SeqCst) as f64 / elapsed
        )?;
    }
    writeln!(out, "  service peak RSS        {peak_rss:.1} MiB")?;
    if missing > 0 || !other.is_empty() || bare > 0 {
        bail!(
            "{missing} acknowledged jobs missing, {} unexpected statuses {:?}, {bare} 503s without Retry-After",
            other.len(),
            &other[..other.len().min(10)]
        );
    }
    Ok(())
}
