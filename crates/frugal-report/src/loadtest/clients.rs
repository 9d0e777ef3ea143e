//! The load test's clients: keep-alive submitters, job-list pollers and slowloris
//! connections, and the wait for the queue to drain.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

/// What one client saw.
#[derive(Default)]
pub(super) struct ClientReport {
    pub(super) accepted: Vec<String>,
    pub(super) refused: usize,
    pub(super) refused_without_retry_after: usize,
    pub(super) other: Vec<u16>,
    pub(super) latencies_s: Vec<f64>,
}

/// Seconds since the Unix epoch of an RFC 3339 timestamp.
pub(super) fn rfc3339(s: &str) -> Option<f64> {
    let t = time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).ok()?;
    Some(t.unix_timestamp_nanos() as f64 / 1e9)
}

pub(super) fn agent() -> ureq::Agent {
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
pub(super) async fn client(
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
pub(super) async fn poller(
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
pub(super) async fn slowloris(addr: SocketAddr, stop: Arc<AtomicBool>) {
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
pub(super) fn wait_placed(addr: &SocketAddr, token: &str, limit: Duration) -> Result<Vec<Value>> {
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
