//! `frugal loadtest`: a bounded load test of the scheduler service on loopback — the
//! emulated backend, durable store on — reporting sustained submissions per second,
//! submit latency and submit-to-placement latency.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use serde_json::{Value, json};

use frugal_sim::metrics::percentile;

use crate::choices::{ClusterParser, ClusterSource, PolicyChoice, PolicyParser, number_in};
use crate::serve::{ServeArgs, build};

/// Options of `frugal loadtest`.
#[derive(Args, Debug)]
pub struct LoadtestArgs {
    /// Seconds of submissions, in (0, 3600] (the test then waits for every job to be
    /// placed and stops).
    #[arg(long, default_value_t = 10.0, value_parser = number_in(0.001, 3600.0))]
    pub seconds: f64,
    /// Concurrent clients, each with one keep-alive connection submitting back to back.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..))]
    pub clients: u16,
    /// Database URL; default: a fresh SQLite file in the temporary directory, removed
    /// afterwards.
    #[arg(long)]
    pub database_url: Option<String>,
    /// What an acknowledged submission survives: `process` or `power` (see `serve`).
    #[arg(long, default_value = "process")]
    pub durability: String,
    /// Cluster preset or TOML file.
    #[arg(long, value_name = "PRESET|FILE", default_value = "large-hybrid", value_parser = ClusterParser)]
    pub cluster: ClusterSource,
    /// Placement policy.
    #[arg(long, default_value = "first-fit", value_parser = PolicyParser)]
    pub policy: PolicyChoice,
    /// Run time of each job (1 executor, 1 core, 1 GiB), service seconds.
    #[arg(long, default_value_t = 1.0)]
    pub job_seconds: f64,
    /// Service seconds per wall-clock second of the emulated backend.
    #[arg(long, default_value_t = 100.0)]
    pub speedup: f64,
}

/// What one client saw.
struct ClientReport {
    accepted: usize,
    rejected: usize,
    latencies_s: Vec<f64>,
}

/// Runs the load test and prints its figures.
pub fn run(a: &LoadtestArgs) -> Result<()> {
    let db = std::env::temp_dir().join(format!("frugal-loadtest-{}.db", std::process::id()));
    let database_url = a
        .database_url
        .clone()
        .unwrap_or_else(|| format!("sqlite:{}", db.display()));
    let serve = ServeArgs {
        bind: "127.0.0.1:0".parse()?,
        db: PathBuf::new(),
        database_url: Some(database_url),
        durability: a.durability.clone(),
        backend: "emulated".into(),
        python: PathBuf::new(),
        spark_dir: PathBuf::new(),
        spark_port: 0,
        spark_ui_port: 0,
        cluster: a.cluster.clone(),
        pricing: None,
        policy: a.policy.clone(),
        queue: None,
        admission_control: false,
        backfill: crate::choices::BackfillArg::Easy,
        speedup: a.speedup,
    };
    let (cfg, policy) = build(&serve)?;
    let rt = tokio::runtime::Runtime::new()?;
    let (svc, addr) = rt.block_on(async {
        let svc = frugal_service::start(&cfg, policy).await?;
        let listener = tokio::net::TcpListener::bind(cfg.bind).await?;
        let addr = listener.local_addr()?;
        tokio::spawn(axum_serve(listener, Arc::clone(&svc)));
        anyhow::Ok((svc, addr))
    })?;

    let run_id = std::process::id();
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs_f64(a.seconds);
    // The clients share one thread, as remote clients would cost the service no CPU.
    let reports: Vec<ClientReport> = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(async {
            let clients: Vec<_> = (0..a.clients)
                .map(|c| {
                    tokio::spawn(client(
                        addr,
                        run_id,
                        usize::from(c),
                        deadline,
                        a.job_seconds,
                    ))
                })
                .collect();
            let mut reports = Vec::new();
            for c in clients {
                reports.push(c.await??);
            }
            anyhow::Ok(reports)
        })?;
    let elapsed = t0.elapsed().as_secs_f64();

    let agent = agent();
    let jobs = wait_placed(&agent, addr)?;
    let prefix = format!("lt{run_id}_");
    let stored = rt
        .block_on(svc.store.jobs())?
        .iter()
        .filter(|j| j.submission.id.starts_with(&prefix))
        .count();
    svc.shutdown();
    drop(rt);
    if a.database_url.is_none() {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
        }
    }

    let accepted: usize = reports.iter().map(|r| r.accepted).sum();
    let rejected: usize = reports.iter().map(|r| r.rejected).sum();
    let mut submit: Vec<f64> = reports.iter().flat_map(|r| r.latencies_s.clone()).collect();
    let mut placement: Vec<f64> = jobs
        .iter()
        .filter(|j| j["id"].as_str().is_some_and(|id| id.starts_with(&prefix)))
        .filter_map(|j| Some((j["start"].as_f64()? - j["submitted_at"].as_f64()?) / a.speedup))
        .collect();
    let ms = |v: &mut Vec<f64>, q: f64| percentile(v, q) * 1e3;
    println!(
        "loadtest: {} clients for {:.1} s, emulated backend x{}, {} store ({} durability), policy {}, cluster {}",
        a.clients,
        elapsed,
        a.speedup,
        cfg.database_url.split(':').next().unwrap_or_default(),
        a.durability,
        a.policy.label(),
        a.cluster
    );
    println!(
        "  submissions accepted    {accepted} ({:.0}/s), rejected {rejected}",
        accepted as f64 / elapsed
    );
    println!("  stored durably          {stored} of {accepted}");
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
    if stored != accepted || rejected > 0 {
        bail!("{rejected} submissions rejected, {stored} of {accepted} accepted jobs stored");
    }
    Ok(())
}

async fn axum_serve(listener: tokio::net::TcpListener, svc: Arc<frugal_service::Service>) {
    if let Err(e) = axum::serve(listener, frugal_service::router(svc)).await {
        eprintln!("loadtest: server: {e}");
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(30)))
        .http_status_as_error(false)
        .build()
        .into()
}

/// Submits jobs back to back on one keep-alive connection until `deadline`, timing
/// each request.
async fn client(
    addr: SocketAddr,
    run_id: u32,
    c: usize,
    deadline: Instant,
    job_seconds: f64,
) -> Result<ClientReport> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
    tokio::spawn(conn);
    let mut report = ClientReport {
        accepted: 0,
        rejected: 0,
        latencies_s: Vec::new(),
    };
    let mut k = 0;
    while Instant::now() < deadline {
        let body = json!({
            "id": format!("lt{run_id}_{c}_{k}"), "executors": 1, "executor_cores": 1,
            "executor_memory_gib": 1, "estimated_duration_s": job_seconds,
        });
        k += 1;
        let req = hyper::Request::post("/jobs")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body.to_string())))?;
        let t = Instant::now();
        let resp = sender.send_request(req).await?;
        let status = resp.status().as_u16();
        resp.into_body().collect().await?;
        report.latencies_s.push(t.elapsed().as_secs_f64());
        if status == 202 {
            report.accepted += 1;
        } else {
            report.rejected += 1;
        }
    }
    Ok(report)
}

/// Waits (up to 60 s) until no job is queued; returns every job's view.
fn wait_placed(agent: &ureq::Agent, addr: SocketAddr) -> Result<Vec<Value>> {
    let t0 = Instant::now();
    loop {
        let v: Value = agent
            .get(&format!("http://{addr}/jobs"))
            .call()?
            .body_mut()
            .read_json()
            .context("GET /jobs")?;
        let jobs = v["jobs"].as_array().cloned().unwrap_or_default();
        if jobs.iter().all(|j| j["state"] != "queued") {
            return Ok(jobs);
        }
        if t0.elapsed() > Duration::from_secs(60) {
            bail!("jobs still queued after 60 s");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
