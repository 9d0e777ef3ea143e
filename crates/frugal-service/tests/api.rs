//! The API in process, on a real SQLite file and the emulated backend.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use frugal_core::{
    BillingGranularity, DurationModel, PolicyKind, PolicyParams, Preset, PricingModel,
    QueueDiscipline, Rut, SchedulerConfig,
};
use frugal_service::{BackendConfig, Durability, Service, ServiceConfig, Store, router, start};

fn config(url: &str, speedup: f64) -> ServiceConfig {
    ServiceConfig {
        bind: "127.0.0.1:0".parse().unwrap(),
        database_url: url.to_string(),
        durability: Durability::Power,
        cluster: Preset::SmallHybrid
            .config(PricingModel::Model1)
            .build("small")
            .unwrap(),
        billing: BillingGranularity::PerSecond,
        scheduler: SchedulerConfig {
            discipline: QueueDiscipline::Edf,
            admission_control: false,
            rut: Rut::default(),
            duration: DurationModel::default(),
            boot_latency_s: 0.0,
            charge_decision_time: false,
            backfill: frugal_core::Backfill::Off,
        },
        backend: BackendConfig::Emulated { speedup },
    }
}

async fn service(url: &str, speedup: f64) -> Arc<Service> {
    start(
        &config(url, speedup),
        PolicyKind::Optimal.build(&PolicyParams::default()),
    )
    .await
    .unwrap()
}

async fn call(
    svc: &Arc<Service>,
    method: &str,
    uri: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    let req = Request::builder().method(method).uri(uri);
    let req = match body {
        Some(b) => req
            .header("content-type", "application/json")
            .body(Body::from(b.to_string())),
        None => req.body(Body::empty()),
    }
    .unwrap();
    let resp = router(Arc::clone(svc)).oneshot(req).await.unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn job(id: &str, executors: u32, seconds: f64) -> Value {
    json!({"id": id, "kind": "network_bound", "executors": executors, "executor_cores": 2,
           "executor_memory_gib": 4, "estimated_duration_s": seconds, "application_path": "pagerank.py"})
}

/// A fresh SQLite database URL.
fn tmp_db(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("frugal-svc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    format!("sqlite:{}", dir.join("state.db").display())
}

#[tokio::test]
async fn submissions_are_validated_and_idempotent() {
    let svc = service(&tmp_db("idem"), 1.0).await;
    let (s, body) = call(&svc, "POST", "/jobs", Some(job("pr_1", 2, 600.0))).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{body}");
    assert_eq!(
        call(&svc, "POST", "/jobs", Some(job("pr_1", 2, 600.0)))
            .await
            .0,
        StatusCode::OK
    );
    assert_eq!(
        call(&svc, "POST", "/jobs", Some(job("pr_1", 3, 600.0)))
            .await
            .0,
        StatusCode::CONFLICT
    );
    let mut bad = job("pr_2", 2, 600.0);
    bad["executor_cores"] = json!("two");
    let (s, body) = call(&svc, "POST", "/jobs", Some(bad)).await;
    assert_eq!(
        (s, body["field"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("executor_cores"))
    );
    assert_eq!(
        call(&svc, "GET", "/jobs/pr_2", None).await.0,
        StatusCode::NOT_FOUND
    );
    let (_, list) = call(&svc, "GET", "/jobs", None).await;
    assert_eq!(
        list["jobs"].as_array().unwrap().len(),
        1,
        "nothing half-valid is queued"
    );
}

#[tokio::test]
async fn jobs_run_vms_power_off_and_cost_is_on_time_times_price() {
    let db = tmp_db("run");
    // 60 s jobs at 600x: 0.1 s of wall time each.
    let svc = service(&db, 600.0).await;
    for i in 0..3 {
        assert_eq!(
            call(&svc, "POST", "/jobs", Some(job(&format!("j{i}"), 2, 60.0)))
                .await
                .0,
            StatusCode::ACCEPTED
        );
    }
    let (_, j) = call(&svc, "GET", "/jobs/j0", None).await;
    assert_eq!(j["state"], "running", "{j}");
    assert_eq!(j["placement"][0]["executors"], 2);
    tokio::time::sleep(Duration::from_millis(600)).await;
    for i in 0..3 {
        let (_, j) = call(&svc, "GET", &format!("/jobs/j{i}"), None).await;
        assert_eq!(j["state"], "completed", "{j}");
    }
    let (_, vms) = call(&svc, "GET", "/vms", None).await;
    let vms = vms["vms"].as_array().unwrap().clone();
    assert!(
        vms.iter().all(|v| v["state"] == "off"),
        "idle VMs are turned off"
    );
    assert_cost_is_on_time_times_price(&db, &vms).await;
    let (s, metrics) = call_text(&svc, "/metrics").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        metrics.contains("frugal_jobs{state=\"completed\"} 3"),
        "{metrics}"
    );
    assert!(
        metrics.contains("frugal_decision_latency_seconds_count"),
        "{metrics}"
    );
}

/// Every VM's accrued cost equals its stored on-time times its price.
async fn assert_cost_is_on_time_times_price(url: &str, vms: &[Value]) {
    let store = Store::open(url, Durability::Process).await.unwrap();
    let intervals = store.vm_intervals().await.unwrap();
    assert!(!intervals.is_empty());
    for v in vms {
        let id = v["id"].as_u64().unwrap() as u32;
        let on: f64 = intervals
            .iter()
            .filter(|i| i.0 == id)
            .map(|i| i.2.expect("closed") - i.1)
            .sum();
        let cost = on * v["price_per_second"].as_f64().unwrap();
        assert!(
            (cost - v["accrued_cost"].as_f64().unwrap()).abs() < 1e-6,
            "{v}"
        );
    }
}

async fn call_text(svc: &Arc<Service>, uri: &str) -> (StatusCode, String) {
    let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
    let resp = router(Arc::clone(svc)).oneshot(req).await.unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(bytes.to_vec()).unwrap())
}

/// Jobs run, one is cancelled, the service stops abruptly and a new one on the same
/// database restores every job, placement and VM power interval.
async fn store_scenario(url: &str) {
    let svc = service(url, 600.0).await;
    for i in 0..6 {
        let (s, body) = call(&svc, "POST", "/jobs", Some(job(&format!("s{i}"), 2, 60.0))).await;
        assert_eq!(s, StatusCode::ACCEPTED, "{body}");
    }
    assert_eq!(
        call(&svc, "POST", "/jobs", Some(job("s_long", 2, 1e6)))
            .await
            .0,
        StatusCode::ACCEPTED
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        call(&svc, "DELETE", "/jobs/s_long", None).await.0,
        StatusCode::OK
    );
    tokio::time::sleep(Duration::from_millis(800)).await;
    let (_, before) = call(&svc, "GET", "/jobs", None).await;
    svc.halt();
    drop(svc);

    let svc = service(url, 600.0).await;
    let (_, after) = call(&svc, "GET", "/jobs", None).await;
    assert_eq!(before, after, "every job and its state survive");
    let states: Vec<&str> = after["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["state"].as_str().unwrap())
        .collect();
    assert_eq!(
        states,
        ["completed"; 6]
            .into_iter()
            .chain(["cancelled"])
            .collect::<Vec<_>>()
    );
    let (_, s0) = call(&svc, "GET", "/jobs/s0", None).await;
    assert_eq!(s0["placement"][0]["executors"], 2, "{s0}");
    let (_, vms) = call(&svc, "GET", "/vms", None).await;
    let vms = vms["vms"].as_array().unwrap().clone();
    assert!(vms.iter().all(|v| v["state"] == "off"));
    assert_cost_is_on_time_times_price(url, &vms).await;
}

#[tokio::test]
async fn sqlite_store_restores_everything() {
    store_scenario(&tmp_db("scenario")).await;
}

#[tokio::test]
#[ignore = "needs FRUGAL_TEST_POSTGRES_URL, an empty database; run by .ci/run"]
async fn postgres_store_restores_everything() {
    let url = std::env::var("FRUGAL_TEST_POSTGRES_URL")
        .expect("FRUGAL_TEST_POSTGRES_URL=postgres://user@host:port/empty_database");
    store_scenario(&url).await;
}

#[tokio::test]
async fn a_restart_loses_no_accepted_job() {
    let db = tmp_db("restart");
    {
        // Long jobs: still queued or running when the first instance goes away.
        let svc = service(&db, 1.0).await;
        for i in 0..20 {
            assert_eq!(
                call(
                    &svc,
                    "POST",
                    "/jobs",
                    Some(job(&format!("k{i}"), 4, 3600.0))
                )
                .await
                .0,
                StatusCode::ACCEPTED
            );
        }
        assert_eq!(
            call(&svc, "DELETE", "/jobs/k19", None).await.0,
            StatusCode::OK
        );
        svc.halt();
    }
    let svc = service(&db, 1.0).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (_, list) = call(&svc, "GET", "/jobs", None).await;
    let jobs = list["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 20);
    assert_eq!(jobs[19]["state"], "cancelled");
    let running = jobs.iter().filter(|j| j["state"] == "running").count();
    assert!(running > 0, "re-queued jobs are placed again: {list}");
    let (_, k0) = call(&svc, "GET", "/jobs/k0", None).await;
    assert_eq!(k0["reason"], "re-queued after a restart");
}

#[tokio::test]
async fn openapi_lists_every_route() {
    let svc = service(&tmp_db("openapi"), 1.0).await;
    let (s, spec) = call(&svc, "GET", "/openapi.json", None).await;
    assert_eq!(s, StatusCode::OK);
    for p in ["/jobs", "/jobs/{id}", "/vms", "/metrics", "/openapi.json"] {
        assert!(spec["paths"][p].is_object(), "{p} missing");
    }
}
