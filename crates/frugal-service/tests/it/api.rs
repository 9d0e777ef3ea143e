//! The API in process, on a real SQLite file and the emulated backend.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::{Value, json};

use common::{
    call, call_raw, config, job, repo, service, service_with, submit, tmp_db, wait_state,
    with_authorization,
};
use frugal_core::{PolicyKind, PolicyParams};
use frugal_service::start;

#[tokio::test]
async fn submissions_are_validated_and_idempotent() {
    let svc = service(&tmp_db("idem"), 1.0).await;
    let (s, body) = call(&svc, "POST", "/jobs", Some(job("pr_1", 2, 600.0))).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{body}");
    assert!(
        body["submitted_at"].as_str().unwrap().ends_with('Z'),
        "{body}"
    );
    assert_eq!(submit(&svc, job("pr_1", 2, 600.0)).await, StatusCode::OK);
    assert_eq!(
        submit(&svc, job("pr_1", 3, 600.0)).await,
        StatusCode::CONFLICT
    );
    let mut bad = job("pr-2", 2, 600.0);
    bad["executor_cores"] = json!("two");
    let (s, body) = call(&svc, "POST", "/jobs", Some(bad)).await;
    assert_eq!(
        (s, body["field"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("executor_cores"))
    );
    assert_eq!(
        call(&svc, "GET", "/jobs/pr-2", None).await.0,
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
async fn every_route_but_health_and_metrics_needs_the_token() {
    let svc = service(&tmp_db("auth"), 1.0).await;
    let body = job("a_1", 1, 60.0).to_string();
    for (method, uri) in [
        ("POST", "/jobs"),
        ("GET", "/jobs"),
        ("GET", "/jobs/a_1"),
        ("DELETE", "/jobs/a_1"),
        ("GET", "/vms"),
        ("GET", "/openapi.json"),
    ] {
        for token in [None, Some("wrong"), Some("")] {
            let (s, headers, _) =
                call_raw(&svc, method, uri, Some("application/json"), token, &body).await;
            assert_eq!(s, StatusCode::UNAUTHORIZED, "{method} {uri} with {token:?}");
            assert!(headers.contains_key("www-authenticate"));
        }
    }
    assert_eq!(
        call(&svc, "GET", "/jobs/a_1", None).await.0,
        StatusCode::NOT_FOUND
    );
    for uri in ["/healthz", "/readyz", "/metrics"] {
        let (s, _, _) = call_raw(&svc, "GET", uri, None, None, "").await;
        assert_eq!(s, StatusCode::OK, "{uri}");
    }
}

#[tokio::test]
async fn the_bearer_scheme_is_any_case_and_the_database_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let db = tmp_db("private");
    let svc = service(&db, 1.0).await;
    // RFC 9110 §11.1: the auth scheme is case-insensitive.
    let token = common::TOKEN;
    for v in [
        format!("Bearer {token}"),
        format!("bearer {token}"),
        format!("BEARER  {token}"),
    ] {
        assert_eq!(
            with_authorization(&svc, "GET", "/jobs", &v, "").await,
            StatusCode::OK,
            "{v}"
        );
    }
    for v in [
        format!("Basic {token}"),
        format!("Bearer{token}"),
        "bearer".into(),
    ] {
        assert_eq!(
            with_authorization(&svc, "GET", "/jobs", &v, "").await,
            StatusCode::UNAUTHORIZED,
            "{v}"
        );
    }
    // The file holds every job: its owner alone reads it, and so its WAL.
    let path = db.strip_prefix("sqlite:").unwrap();
    for f in [path.to_string(), format!("{path}-wal")] {
        if let Ok(meta) = std::fs::metadata(&f) {
            assert_eq!(meta.permissions().mode() & 0o777, 0o600, "{f}");
        }
    }
    assert!(std::fs::metadata(path).is_ok());
}

#[tokio::test]
async fn the_agent_route_takes_the_agent_token_and_nothing_else_does() {
    let mut cfg = common::config(&tmp_db("agent_auth"), 1.0);
    cfg.agent_token = Some("agent-secret".into());
    let svc = common::service_with(cfg, frugal_core::PolicyKind::Optimal).await;
    let hb = json!({"host": "vm1", "vms": [{"id": 1, "address": "10.0.0.3"}], "cores": 2,
                    "memory_gib": 2.0, "running": [], "failed": []})
    .to_string();
    let post = |token: Option<&'static str>, body: String| {
        let svc = Arc::clone(&svc);
        async move {
            call_raw(
                &svc,
                "POST",
                "/agent/v1/heartbeat",
                Some("application/json"),
                token,
                &body,
            )
            .await
            .0
        }
    };
    for token in [None, Some(""), Some("wrong"), Some(common::TOKEN)] {
        assert_eq!(
            post(token, hb.clone()).await,
            StatusCode::UNAUTHORIZED,
            "{token:?}"
        );
    }
    // Authenticated; the emulated backend has no agents.
    assert_eq!(
        post(Some("agent-secret"), hb.clone()).await,
        StatusCode::CONFLICT
    );
    // The scheme is matched as the API's is, whatever its case (RFC 9110 §11.1).
    for v in ["bearer agent-secret", "BEARER  agent-secret"] {
        assert_eq!(
            with_authorization(&svc, "POST", "/agent/v1/heartbeat", v, &hb).await,
            StatusCode::CONFLICT,
            "{v}"
        );
    }
    assert_eq!(
        post(Some("agent-secret"), "{".into()).await,
        StatusCode::BAD_REQUEST
    );
    let bad_host = hb.replace("\"vm1\"", "\"../x\"");
    assert_eq!(
        post(Some("agent-secret"), bad_host).await,
        StatusCode::BAD_REQUEST
    );
    let unknown_field = hb.replace("\"cores\"", "\"cpus\"");
    assert_eq!(
        post(Some("agent-secret"), unknown_field).await,
        StatusCode::BAD_REQUEST
    );
    // The agent token opens nothing else.
    let (s, _, _) = call_raw(&svc, "GET", "/jobs", None, Some("agent-secret"), "").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn bad_bodies_get_the_right_status_and_no_panic() {
    let svc = service(&tmp_db("bodies"), 60.0).await;
    let ok = job("b_1", 1, 60.0).to_string();
    let status = |ct: &str, body: String| {
        let svc = Arc::clone(&svc);
        let ct = ct.to_string();
        async move {
            call_raw(&svc, "POST", "/jobs", Some(&ct), Some(common::TOKEN), &body)
                .await
                .0
        }
    };
    assert_eq!(
        status("text/plain", ok.clone()).await,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    assert_eq!(
        status("application/x-www-form-urlencoded", ok.clone()).await,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    assert_eq!(
        status("application/json", format!("{ok}xyz")).await,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        status("application/json", "{".into()).await,
        StatusCode::BAD_REQUEST
    );
    let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(100 << 10));
    assert_eq!(
        status("application/json", big).await,
        StatusCode::PAYLOAD_TOO_LARGE
    );
    for (field, value) in [
        ("estimated_duration_s", json!(1e22)),
        ("deadline_s", json!(1e300)),
        ("hybrid_duration_s", json!(f64::MAX)),
        ("executors", json!(u32::MAX)),
        ("executor_memory_gib", json!(1e12)),
        ("application_path", json!("../../etc/passwd")),
        ("application_path", json!("/bin/sh")),
        ("main_class", json!("--conf spark.x=y")),
    ] {
        let mut b = job("b_2", 1, 60.0);
        b[field] = value;
        let (s, body) = call(&svc, "POST", "/jobs", Some(b)).await;
        assert_eq!(
            (s, body["field"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some(field)),
            "{body}"
        );
    }
    // The loop is alive and places what comes next.
    assert_eq!(
        submit(&svc, job("b_3", 1, 60.0)).await,
        StatusCode::ACCEPTED
    );
    wait_state(&svc, "b_3", "completed", Duration::from_secs(5)).await;
}

#[tokio::test]
async fn concurrent_identical_retries_all_succeed() {
    let svc = service(&tmp_db("retries"), 1.0).await;
    let calls: Vec<_> = (0..32)
        .map(|_| {
            let svc = Arc::clone(&svc);
            tokio::spawn(async move {
                call(&svc, "POST", "/jobs", Some(job("same", 1, 60.0)))
                    .await
                    .0
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for c in calls {
        statuses.push(c.await.unwrap());
    }
    assert_eq!(
        statuses
            .iter()
            .filter(|s| **s == StatusCode::ACCEPTED)
            .count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses
            .iter()
            .all(|s| *s == StatusCode::ACCEPTED || *s == StatusCode::OK),
        "{statuses:?}"
    );
}

#[tokio::test]
async fn jobs_run_vms_power_off_and_cost_is_on_time_times_price() {
    let db = tmp_db("run");
    // 60 s jobs at 600x: 0.1 s of wall time each.
    let svc = service(&db, 600.0).await;
    for i in 0..3 {
        assert_eq!(
            submit(&svc, job(&format!("j{i}"), 2, 60.0)).await,
            StatusCode::ACCEPTED
        );
    }
    let (_, j) = call(&svc, "GET", "/jobs/j0", None).await;
    assert_eq!(j["state"], "running", "{j}");
    assert_eq!(j["placement"][0]["executors"], 2);
    assert!(
        j["estimated_finish_at"].is_string() && j["finished_at"].is_null(),
        "{j}"
    );
    for i in 0..3 {
        wait_state(&svc, &format!("j{i}"), "completed", Duration::from_secs(5)).await;
    }
    let (_, vms) = call(&svc, "GET", "/vms", None).await;
    let vms = vms["vms"].as_array().unwrap().clone();
    assert!(
        vms.iter().all(|v| v["state"] == "off"),
        "idle VMs are turned off"
    );
    common::cost::assert_cost_is_on_time_times_price(&db, 600.0, &vms).await;
    let (s, _, metrics) = call_raw(&svc, "GET", "/metrics", None, None, "").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        metrics.contains("frugal_jobs{state=\"completed\"} 3"),
        "{metrics}"
    );
    assert!(
        metrics.contains("frugal_submissions_total{outcome=\"accepted\"} 3"),
        "{metrics}"
    );
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
        submit(&svc, job("s_long", 2, 1e6)).await,
        StatusCode::ACCEPTED
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        call(&svc, "DELETE", "/jobs/s_long", None).await.0,
        StatusCode::OK
    );
    assert_eq!(
        call(&svc, "DELETE", "/jobs/s_long", None).await.0,
        StatusCode::OK,
        "idempotent"
    );
    // The listing reads committed state: wait until it shows every job's end.
    let t0 = Instant::now();
    let before = loop {
        let (_, list) = call(&svc, "GET", "/jobs", None).await;
        let ended = list["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|j| j["state"] == "completed" || j["state"] == "cancelled");
        if ended {
            break list;
        }
        assert!(t0.elapsed() < Duration::from_secs(5), "{list}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
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
    // An idle VM whose keep-alive ran out while the service was down goes off at the
    // restored service's first pass, which may come after this listing: wait for it.
    let t0 = Instant::now();
    let vms = loop {
        let (_, vms) = call(&svc, "GET", "/vms", None).await;
        let vms = vms["vms"].as_array().unwrap().clone();
        if vms.iter().all(|v| v["state"] == "off") {
            break vms;
        }
        assert!(t0.elapsed() < Duration::from_secs(5), "{vms:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    common::cost::assert_cost_is_on_time_times_price(url, 600.0, &vms).await;
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
async fn listing_is_paginated_and_filtered() {
    let svc = service(&tmp_db("pages"), 1.0).await;
    for i in 0..25 {
        call(
            &svc,
            "POST",
            "/jobs",
            Some(job(&format!("p{i:02}"), 1, 3600.0)),
        )
        .await;
    }
    call(&svc, "DELETE", "/jobs/p03", None).await;
    let mut seen = Vec::new();
    let mut cursor = String::new();
    loop {
        let (s, page) = call(&svc, "GET", &format!("/jobs?limit=10{cursor}"), None).await;
        assert_eq!(s, StatusCode::OK, "{page}");
        seen.extend(
            page["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| j["id"].as_str().unwrap().to_string()),
        );
        match page["next_cursor"].as_str() {
            Some(c) => cursor = format!("&cursor={c}"),
            None => break,
        }
    }
    assert_eq!(
        seen,
        (0..25).map(|i| format!("p{i:02}")).collect::<Vec<_>>()
    );
    let (_, cancelled) = call(&svc, "GET", "/jobs?state=cancelled", None).await;
    assert_eq!(cancelled["jobs"][0]["id"], "p03");
    assert_eq!(cancelled["jobs"].as_array().unwrap().len(), 1);
    for bad in [
        "limit=0",
        "limit=5000",
        "cursor=x",
        "state=sleeping",
        "limit=-1",
    ] {
        assert_eq!(
            call(&svc, "GET", &format!("/jobs?{bad}"), None).await.0,
            StatusCode::BAD_REQUEST,
            "{bad}"
        );
    }
}

#[tokio::test]
async fn ended_jobs_leave_memory_and_stay_readable_and_idempotent() {
    let mut cfg = config(&tmp_db("evict"), 600.0);
    cfg.limits.retention_s = 0.0;
    let svc = service_with(cfg, PolicyKind::FirstFit).await;
    let mut e1 = job("e1", 1, 6.0);
    e1["deadline_s"] = json!(3600.0);
    call(&svc, "POST", "/jobs", Some(e1.clone())).await;
    wait_state(&svc, "e1", "completed", Duration::from_secs(5)).await;
    let t0 = Instant::now();
    while svc.lock().find("e1").is_some() {
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "e1 was never evicted"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (s, j) = call(&svc, "GET", "/jobs/e1", None).await;
    assert_eq!(
        (s, j["state"].as_str()),
        (StatusCode::OK, Some("completed")),
        "{j}"
    );
    // The dashboard and /metrics count the evicted job as /jobs lists it, deadline
    // included (met: 6 s of run time against 3,600 s).
    let (_, list) = call(&svc, "GET", "/jobs", None).await;
    assert_eq!(list["jobs"].as_array().map(Vec::len), Some(1), "{list}");
    let (_, d) = call(&svc, "GET", "/dashboard", None).await;
    let c = &d["counts"];
    assert_eq!(
        (c["completed"].as_u64(), c["queued"].as_u64()),
        (Some(1), Some(0)),
        "{c}"
    );
    assert_eq!(
        (c["deadline_met"].as_u64(), c["deadline_missed"].as_u64()),
        (Some(1), Some(0)),
        "{c}"
    );
    let (_, _, m) = call_raw(&svc, "GET", "/metrics", None, Some(common::TOKEN), "").await;
    assert!(m.contains("frugal_jobs{state=\"completed\"} 1"), "{m}");
    assert!(m.contains("frugal_deadlines{outcome=\"met\"} 1"), "{m}");
    assert_eq!(
        call(&svc, "POST", "/jobs", Some(e1)).await.0,
        StatusCode::OK
    );
    assert_eq!(
        call(&svc, "POST", "/jobs", Some(job("e1", 2, 6.0))).await.0,
        StatusCode::CONFLICT
    );
    assert_eq!(
        call(&svc, "DELETE", "/jobs/e1", None).await.0,
        StatusCode::CONFLICT
    );
}

#[tokio::test]
async fn a_long_job_and_a_whole_cluster_job_do_not_starve_the_queue() {
    // EDF, small-hybrid (72 cores). `huge` (8 × 4 cores) runs ~forever; `whole` needs all
    // 72 cores: it waits for `huge`, and without backfilling so would everything behind it.
    let svc = service(&tmp_db("starve"), 600.0).await;
    let mut huge = job("huge", 8, 3e8);
    huge["executor_cores"] = json!(4);
    assert_eq!(
        call(&svc, "POST", "/jobs", Some(huge)).await.0,
        StatusCode::ACCEPTED
    );
    let mut whole = job("whole", 18, 60.0);
    whole["executor_cores"] = json!(4);
    whole["deadline_s"] = json!(100);
    assert_eq!(
        call(&svc, "POST", "/jobs", Some(whole)).await.0,
        StatusCode::ACCEPTED
    );
    for i in 0..5 {
        let mut small = job(&format!("small{i}"), 1, 60.0);
        small["deadline_s"] = json!(200 + i);
        call(&svc, "POST", "/jobs", Some(small)).await;
    }
    for i in 0..5 {
        wait_state(
            &svc,
            &format!("small{i}"),
            "completed",
            Duration::from_secs(10),
        )
        .await;
    }
    let (_, w) = call(&svc, "GET", "/jobs/whole", None).await;
    assert_eq!(
        w["state"], "queued",
        "the head waits for its reservation: {w}"
    );
}

#[tokio::test]
async fn a_corrupt_database_fails_start_up_quickly_naming_the_file() {
    let url = tmp_db("corrupt");
    let path = url.strip_prefix("sqlite:").unwrap();
    std::fs::write(path, vec![0x5a_u8; 8192]).unwrap();
    let t0 = Instant::now();
    let e = start(
        &config(&url, 1.0),
        PolicyKind::FirstFit.build(&PolicyParams::default()),
    )
    .await
    .err()
    .expect("start-up fails");
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    let message = e.to_string();
    assert!(
        message.contains(path) && message.contains("not a database"),
        "{message}"
    );
}

#[tokio::test]
async fn a_database_with_a_newer_schema_is_refused() {
    let url = tmp_db("newer");
    drop(service(&url, 1.0).await);
    common::run_sql(
        &url,
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (99, 'from the future', TRUE, x'00', 0)",
    )
    .await;
    let e = start(
        &config(&url, 1.0),
        PolicyKind::FirstFit.build(&PolicyParams::default()),
    )
    .await
    .err()
    .expect("start-up fails");
    let message = e.to_string();
    assert!(message.contains("schema version 99 is newer"), "{message}");
}

#[tokio::test]
async fn an_invalid_stored_job_is_failed_not_scheduled_after_a_restart() {
    let url = tmp_db("stored-invalid");
    drop(service(&url, 1.0).await);
    let bad = json!({"id": "old", "kind": "cpu_bound", "executors": 1, "executor_cores": 1,
        "executor_memory_gib": 1.0, "estimated_duration_s": 1e22, "hybrid_duration_s": null,
        "deadline_s": null, "application_path": "wordcount.py", "main_class": "",
        "arguments": [], "input_path": "", "output_path": ""});
    common::run_sql(
        &url,
        &format!(
            "INSERT INTO jobs (id, submission, arrival, state) VALUES ('old', '{bad}', 0, 'queued')"
        ),
    )
    .await;
    let svc = service(&url, 60.0).await;
    let (_, old) = call(&svc, "GET", "/jobs/old", None).await;
    assert_eq!(old["state"], "failed", "{old}");
    assert!(
        old["reason"]
            .as_str()
            .unwrap()
            .contains("estimated_duration_s"),
        "{old}"
    );
    call(&svc, "POST", "/jobs", Some(job("new", 1, 6.0))).await;
    wait_state(&svc, "new", "completed", Duration::from_secs(5)).await;
}

/// A placement policy that panics on a job named `boom`: a stand-in for any bug in the
/// scheduling loop.
struct Boom;

impl frugal_core::PlacementPolicy for Boom {
    fn name(&self) -> &'static str {
        "boom"
    }

    fn place(
        &mut self,
        job: &frugal_core::Job,
        cluster: &frugal_core::Cluster,
        now: f64,
    ) -> Option<frugal_core::Placement> {
        assert!(job.id != "boom", "a bug in the scheduling loop");
        frugal_core::policy::FirstFit::default().place(job, cluster, now)
    }

    fn default_queue(&self) -> frugal_core::QueueDiscipline {
        frugal_core::QueueDiscipline::Fcfs
    }
}

#[tokio::test]
async fn a_dead_scheduling_loop_fails_readiness() {
    let svc = start(&config(&tmp_db("dead"), 60.0), Box::new(Boom))
        .await
        .unwrap();
    let (s, _, _) = call_raw(&svc, "GET", "/readyz", None, None, "").await;
    assert_eq!(s, StatusCode::OK);
    call(&svc, "POST", "/jobs", Some(job("boom", 1, 60.0))).await;
    let reason = tokio::time::timeout(Duration::from_secs(5), svc.scheduler_stopped())
        .await
        .expect("the supervisor notices");
    assert!(reason.contains("a bug in the scheduling loop"), "{reason}");
    let (s, _, body) = call_raw(&svc, "GET", "/readyz", None, None, "").await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
    assert!(body.contains("\"scheduler\":false"), "{body}");
}

#[tokio::test]
async fn the_openapi_document_is_generated_and_committed() {
    let svc = service(&tmp_db("openapi"), 1.0).await;
    let (s, _, served) =
        call_raw(&svc, "GET", "/openapi.json", None, Some(common::TOKEN), "").await;
    assert_eq!(s, StatusCode::OK);
    let spec: Value = serde_json::from_str(&served).unwrap();
    for p in [
        "/jobs",
        "/jobs/{id}",
        "/vms",
        "/metrics",
        "/healthz",
        "/readyz",
        "/agent/v1/heartbeat",
    ] {
        assert!(spec["paths"][p].is_object(), "{p} missing");
    }
    assert!(spec["components"]["securitySchemes"]["bearer"].is_object());
    let committed = repo().join("docs/openapi.json");
    if std::env::var_os("FRUGAL_UPDATE_OPENAPI").is_some() {
        std::fs::write(&committed, format!("{served}\n")).unwrap();
    }
    let on_disk = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(
        on_disk.trim_end() == served.trim_end(),
        "docs/openapi.json differs from the API: rerun with FRUGAL_UPDATE_OPENAPI=1"
    );
}

#[tokio::test]
async fn a_job_no_placement_can_hold_is_unschedulable_and_stays_so() {
    let url = tmp_db("never-fits");
    let svc = service(&url, 1.0).await;
    let (s, j) = call(&svc, "POST", "/jobs", Some(job("giant", 1000, 60.0))).await;
    assert_eq!(
        (s, j["state"].as_str()),
        (StatusCode::ACCEPTED, Some("unschedulable")),
        "{j}"
    );
    svc.halt();
    drop(svc);
    let svc = service(&url, 1.0).await;
    let (_, j) = call(&svc, "GET", "/jobs/giant", None).await;
    assert_eq!(j["state"], "unschedulable", "the state was stored: {j}");
    assert!(
        j["reason"].as_str().unwrap().contains("cannot place"),
        "{j}"
    );
}
