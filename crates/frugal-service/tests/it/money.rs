//! Dollars in the service: the gap to the optimum of every placement, the fleet's budget,
//! and a job's cost cap — hand-computed on the small-scale hybrid cluster under pricing
//! model 1 (local m1.large $0.001/s; m1.xlarge $0.002/s; cloud 4× local).

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use serde_json::json;

use common::{call, call_raw, config, job, service, service_with, tmp_db, wait_state};

const WITHIN: Duration = Duration::from_secs(10);
use frugal_core::{PolicyKind, PolicyParams};
use frugal_service::{Service, ServiceError, start};

async fn metrics(svc: &Arc<Service>) -> String {
    call_raw(svc, "GET", "/metrics", None, None, "").await.2
}

/// One executor of 2 cores and 4 GiB for 60 s: its cheapest placement on the idle cluster
/// is the local m1.large, 0.001 $/s × T_C^L = 60 s = $0.06.
#[tokio::test]
async fn a_cost_cap_below_the_cheapest_placement_is_refused_with_the_estimate() {
    let svc = service(&tmp_db("max-cost"), 600.0).await;
    let mut capped = job("capped", 1, 60.0);
    capped["max_cost_usd"] = json!(0.05);
    let (s, body) = call(&svc, "POST", "/jobs", Some(capped.clone())).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["field"], "max_cost_usd");
    assert!(
        (body["cheapest_usd"].as_f64().unwrap() - 0.06).abs() < 1e-12,
        "{body}"
    );
    assert!(
        body["error"].as_str().unwrap().contains("$0.0600"),
        "{body}"
    );
    for bad in [json!(0), json!(-1), json!(2e9)] {
        capped["max_cost_usd"] = bad;
        let (s, body) = call(&svc, "POST", "/jobs", Some(capped.clone())).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(body["field"], "max_cost_usd");
    }
    // Within the cap: placed, and its record shows its cost and the optimum's.
    capped["max_cost_usd"] = json!(0.07);
    assert_eq!(
        call(&svc, "POST", "/jobs", Some(capped)).await.0,
        StatusCode::ACCEPTED
    );
    let j = wait_state(&svc, "capped", "completed", WITHIN).await;
    assert!(
        (j["placement_cost_usd"].as_f64().unwrap() - 0.06).abs() < 1e-12,
        "{j}"
    );
    assert_eq!(
        j["placement_cost_usd"], j["optimal_cost_usd"],
        "optimal is the optimum"
    );
}

/// A budget of $3.60/h is one local m1.large (4 cores). A job of one 8-core executor
/// needs an m1.xlarge ($7.20/h) at least: the budget can never admit it, so it is refused
/// at submission, naming the dollars. A 2-core job runs on the local m1.large; a 4-core
/// job then needs at least the local m1.xlarge ($10.80/h with the first): it waits, and
/// says why. /cost and /metrics show the budget.
#[tokio::test]
async fn a_budget_holds_placements_beyond_it_and_the_reason_says_so() {
    let mut cfg = config(&tmp_db("budget"), 600.0);
    cfg.budget_per_hour = Some(3.6);
    let svc = service_with(cfg, PolicyKind::FirstFit).await;
    let mut wide = job("wide", 1, 60.0);
    wide["executor_cores"] = json!(8);
    let (s, body) = call(&svc, "POST", "/jobs", Some(wide)).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["field"], "executors");
    let e = body["error"].as_str().unwrap();
    assert!(
        e.contains("$7.2000/h") && e.contains("$3.6000/h budget"),
        "{e}"
    );
    // Ten hours of a 2-core job: the m1.large stays on while the next one waits.
    assert_eq!(
        call(&svc, "POST", "/jobs", Some(job("narrow", 1, 36000.0)))
            .await
            .0,
        StatusCode::ACCEPTED
    );
    wait_state(&svc, "narrow", "running", Duration::from_secs(5)).await;
    let mut four = job("four", 1, 60.0);
    four["executor_cores"] = json!(4);
    assert_eq!(
        call(&svc, "POST", "/jobs", Some(four)).await.0,
        StatusCode::ACCEPTED
    );
    let t0 = Instant::now();
    let j = loop {
        let (_, j) = call(&svc, "GET", "/jobs/four", None).await;
        if j["reason"].is_string() {
            break j;
        }
        assert!(t0.elapsed() < Duration::from_secs(5), "{j}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(j["state"], "queued");
    assert_eq!(
        j["reason"],
        "budget: placing it now would raise the fleet's price to $10.8000/h, over the \
         $3.6000/h budget"
    );
    let (_, cost) = call(&svc, "GET", "/cost", None).await;
    assert_eq!(cost["budget_per_hour"], 3.6, "{cost}");
    let m = metrics(&svc).await;
    assert!(m.contains("frugal_budget_dollars_per_hour 3.6"), "{m}");
    assert!(m.contains("frugal_fleet_price_dollars_per_hour"), "{m}");
    assert!(m.contains("frugal_spend_dollars"), "{m}");
}

#[tokio::test]
async fn a_budget_that_is_not_a_positive_number_is_refused_at_start() {
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let mut cfg = config(&tmp_db("bad-budget"), 1.0);
        cfg.budget_per_hour = Some(bad);
        let Err(ServiceError::Config(m)) =
            start(&cfg, PolicyKind::Optimal.build(&PolicyParams::default())).await
        else {
            panic!("a budget of {bad} was accepted");
        };
        assert!(m.contains("budget"), "{m}");
    }
}

/// Round robin spreads executors over VMs the optimum would not turn on: every decision
/// costs at least the optimum, the sums in /metrics and /cost agree with the jobs'
/// records, and they survive a restart.
#[tokio::test]
async fn the_gap_to_the_optimum_is_summed_exported_and_kept_across_restarts() {
    let db = tmp_db("gap");
    let svc = service_with(config(&db, 600.0), PolicyKind::RoundRobin).await;
    for i in 0..6 {
        let id = format!("g{i}");
        assert_eq!(
            call(&svc, "POST", "/jobs", Some(job(&id, 3, 60.0))).await.0,
            StatusCode::ACCEPTED
        );
        wait_state(&svc, &id, "completed", WITHIN).await;
    }
    let (mut chosen, mut optimal) = (0.0, 0.0);
    for i in 0..6 {
        let (_, j) = call(&svc, "GET", &format!("/jobs/g{i}"), None).await;
        let (c, o) = (
            j["placement_cost_usd"].as_f64().unwrap(),
            j["optimal_cost_usd"].as_f64().unwrap(),
        );
        assert!(c >= o && o > 0.0, "{j}");
        chosen += c;
        optimal += o;
    }
    assert!(
        chosen > optimal,
        "round robin spreads: {chosen} vs {optimal}"
    );
    let (_, cost) = call(&svc, "GET", "/cost", None).await;
    assert!((cost["decisions_chosen_usd"].as_f64().unwrap() - chosen).abs() < 1e-12);
    assert!((cost["decisions_optimal_usd"].as_f64().unwrap() - optimal).abs() < 1e-12);
    let gap = 100.0 * (chosen - optimal) / optimal;
    assert!(
        (cost["gap_pct"].as_f64().unwrap() - gap).abs() < 1e-9,
        "{cost}"
    );
    let m = metrics(&svc).await;
    assert!(
        m.contains("frugal_decision_cost_gap_dollars_count 6"),
        "{m}"
    );
    for (kind, total) in [("chosen", chosen), ("optimal", optimal)] {
        let line = m
            .lines()
            .find(|l| {
                l.starts_with(&format!(
                    "frugal_decision_cost_dollars_total{{kind=\"{kind}\"}}"
                ))
            })
            .unwrap();
        let v: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        assert!((v - total).abs() < 1e-9, "{line}");
    }
    svc.halt();
    drop(svc);
    let again = service(&db, 600.0).await;
    let (_, cost) = call(&again, "GET", "/cost", None).await;
    assert!((cost["decisions_chosen_usd"].as_f64().unwrap() - chosen).abs() < 1e-12);
    assert!((cost["decisions_optimal_usd"].as_f64().unwrap() - optimal).abs() < 1e-12);
    let (_, d) = call(&again, "GET", "/dashboard?limit=3", None).await;
    assert_eq!(d["gap_history"].as_array().unwrap().len(), 6, "{d}");
    assert_eq!(d["ended"].as_array().unwrap().len(), 3);
    let (s, body) = call(&again, "GET", "/dashboard?window_s=0", None).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["field"], "window_s");
}
