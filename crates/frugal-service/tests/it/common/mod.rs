//! Helpers: a service in process on a fresh SQLite file, and requests through its router.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use frugal_core::{
    Backfill, BillingGranularity, DurationModel, PolicyKind, PolicyParams, Preset, PricingModel,
    QueueDiscipline, Rut, SchedulerConfig,
};
use frugal_service::{BackendConfig, Durability, Limits, Service, ServiceConfig, router, start};

pub mod cost;

/// The token the test services run with.
pub const TOKEN: &str = "test-token";

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A service on `url` with the emulated backend at `speedup`: small-scale hybrid
/// cluster, EDF with EASY backfilling, the bundled applications.
pub fn config(url: &str, speedup: f64) -> ServiceConfig {
    ServiceConfig {
        bind: "127.0.0.1:0".parse().unwrap(),
        metrics_bind: None,
        database_url: url.to_string(),
        durability: Durability::Power,
        cluster: Preset::SmallHybrid
            .config(PricingModel::Model1)
            .build("small")
            .unwrap(),
        billing: BillingGranularity::PerSecond,
        keep_alive: frugal_core::KeepAlive::default(),
        scheduler: SchedulerConfig {
            discipline: QueueDiscipline::Edf,
            admission_control: false,
            rut: Rut::default(),
            duration: DurationModel::default(),
            boot_latency_s: 0.0,
            charge_decision_time: false,
            backfill: Backfill::Easy,
        },
        policy_label: String::new(),
        budget_per_hour: None,
        backend: BackendConfig::Emulated {
            speedup,
            hosts: None,
        },
        token: TOKEN.into(),
        agent_token: None,
        apps_dir: repo().join("spark"),
        limits: Limits::default(),
    }
}

/// A started service with the `optimal` policy.
pub async fn service(url: &str, speedup: f64) -> Arc<Service> {
    service_with(config(url, speedup), PolicyKind::Optimal).await
}

/// A started service.
pub async fn service_with(cfg: ServiceConfig, policy: PolicyKind) -> Arc<Service> {
    start(&cfg, policy.build(&PolicyParams::default()))
        .await
        .unwrap()
}

/// One request through the router; returns status, headers and body text.
pub async fn call_raw(
    svc: &Arc<Service>,
    method: &str,
    uri: &str,
    content_type: Option<&str>,
    token: Option<&str>,
    body: &str,
) -> (StatusCode, HeaderMap, String) {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    let req = req.body(Body::from(body.to_string())).unwrap();
    let resp = router(Arc::clone(svc)).oneshot(req).await.unwrap();
    let (status, headers) = (resp.status(), resp.headers().clone());
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        headers,
        String::from_utf8_lossy(&bytes).into_owned(),
    )
}

/// A request (a JSON `body`, which may be empty) with the `Authorization` header
/// `authorization`, as written: its status.
pub async fn with_authorization(
    svc: &Arc<Service>,
    method: &str,
    uri: &str,
    authorization: &str,
    body: &str,
) -> StatusCode {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .header("authorization", authorization)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    router(Arc::clone(svc)).oneshot(req).await.unwrap().status()
}

/// An authenticated JSON request; returns status and JSON body (Null if not JSON).
pub async fn call(
    svc: &Arc<Service>,
    method: &str,
    uri: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let text = body.map(|b| b.to_string()).unwrap_or_default();
    let (status, _, out) = call_raw(
        svc,
        method,
        uri,
        Some("application/json"),
        Some(TOKEN),
        &text,
    )
    .await;
    (status, serde_json::from_str(&out).unwrap_or(Value::Null))
}

/// `POST /jobs` with `job`: the status only.
pub async fn submit(svc: &Arc<Service>, job: Value) -> StatusCode {
    call(svc, "POST", "/jobs", Some(job)).await.0
}

/// A network-bound job of `executors` × (2 cores, 4 GiB) running `seconds`.
pub fn job(id: &str, executors: u32, seconds: f64) -> Value {
    json!({"id": id, "kind": "network_bound", "executors": executors, "executor_cores": 2,
           "executor_memory_gib": 4, "estimated_duration_s": seconds, "application_path": "pagerank.py"})
}

/// A fresh SQLite database URL.
pub fn tmp_db(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("frugal-svc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    format!("sqlite:{}", dir.join("state.db").display())
}

/// Runs one SQL statement on the database at `url` (to prepare a test case).
pub async fn run_sql(url: &str, sql: &str) {
    use sqlx::Connection;
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(url).await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string()))
        .execute(&mut conn)
        .await
        .unwrap();
}

/// Polls job `id` until it is in `state`; panics with the job after `within`.
pub async fn wait_state(svc: &Arc<Service>, id: &str, state: &str, within: Duration) -> Value {
    let t0 = std::time::Instant::now();
    loop {
        let (_, j) = call(svc, "GET", &format!("/jobs/{id}"), None).await;
        if j["state"] == state {
            return j;
        }
        assert!(
            t0.elapsed() < within,
            "{id} not {state} within {within:?}: {j}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
