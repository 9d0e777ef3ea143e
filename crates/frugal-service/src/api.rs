//! The HTTP API (spec: `GET /openapi.json`).

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State as AxState};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use prometheus::{
    Encoder, Gauge, GaugeVec, Histogram, HistogramOpts, IntGaugeVec, Opts, Registry, TextEncoder,
};
use serde_json::{Value, json};

use frugal_core::cluster::{PowerState, Site};

use crate::state::{Entry, JobState};
use crate::submission::Submission;
use crate::{Service, ServiceError};

/// The OpenAPI 3 description of this API.
pub const OPENAPI: &str = include_str!("openapi.json");

/// Builds the router over a started service.
pub fn router(svc: Arc<Service>) -> Router {
    Router::new()
        .route("/jobs", get(list_jobs).post(submit))
        .route("/jobs/{id}", get(get_job).delete(cancel))
        .route("/vms", get(vms))
        .route("/metrics", get(metrics))
        .route(
            "/openapi.json",
            get(|| async { ([(header::CONTENT_TYPE, "application/json")], OPENAPI) }),
        )
        .with_state(svc)
}

fn error(status: StatusCode, field: Option<&str>, message: &str) -> Response {
    (
        status,
        axum::Json(json!({ "error": message, "field": field })),
    )
        .into_response()
}

fn view(e: &Entry) -> Value {
    json!({
        "id": e.submission.id,
        "state": e.state,
        "submitted_at": e.job.arrival,
        "deadline": e.job.deadline,
        "start": e.start,
        "finish": e.finish,
        "placement": e.placement.as_ref().map(|p| per_vm(&p.executors_per_vm)),
        "observed_placement": e.observed.as_deref().map(per_vm),
        "reason": e.reason,
    })
}

fn per_vm(executors_per_vm: &[(u32, u32)]) -> Vec<Value> {
    executors_per_vm
        .iter()
        .map(|(vm, n)| json!({"vm": vm, "executors": n}))
        .collect()
}

impl IntoResponse for ServiceError {
    fn into_response(self) -> Response {
        error(StatusCode::INTERNAL_SERVER_ERROR, None, &self.to_string())
    }
}

async fn submit(AxState(svc): AxState<Arc<Service>>, body: Bytes) -> Response {
    let s = match Submission::parse(&body) {
        Ok(s) => s,
        Err(e) => return error(StatusCode::UNPROCESSABLE_ENTITY, Some(&e.field), &e.message),
    };
    if let Some(r) = existing(&svc, &s) {
        return r;
    }
    let arrival = svc.now();
    match svc.store.insert(&s, arrival).await {
        Ok(true) => {}
        Ok(false) => {
            return existing(&svc, &s).unwrap_or_else(|| {
                error(
                    StatusCode::CONFLICT,
                    Some("id"),
                    "a job with this id is being accepted",
                )
            });
        }
        Err(e) => return ServiceError::from(e).into_response(),
    }
    let body = {
        let mut st = svc.lock();
        let idx = st.add(s.clone(), s.job(arrival), JobState::Queued);
        view(&st.entries[idx])
    };
    svc.wake();
    (StatusCode::ACCEPTED, axum::Json(body)).into_response()
}

/// The response for a resubmission of an id: the job if identical, 409 otherwise.
fn existing(svc: &Service, s: &Submission) -> Option<Response> {
    let st = svc.lock();
    let idx = st.find(&s.id)?;
    let e = &st.entries[idx];
    Some(if e.submission == *s {
        (StatusCode::OK, axum::Json(view(e))).into_response()
    } else {
        error(
            StatusCode::CONFLICT,
            Some("id"),
            "another job with this id was accepted",
        )
    })
}

async fn get_job(AxState(svc): AxState<Arc<Service>>, Path(id): Path<String>) -> Response {
    let st = svc.lock();
    match st.find(&id) {
        Some(idx) => axum::Json(view(&st.entries[idx])).into_response(),
        None => error(StatusCode::NOT_FOUND, Some("id"), "no such job"),
    }
}

async fn list_jobs(AxState(svc): AxState<Arc<Service>>) -> Response {
    let st = svc.lock();
    let jobs: Vec<Value> = st
        .entries
        .iter()
        .map(|e| {
            json!({"id": e.submission.id, "state": e.state,
                         "submitted_at": e.job.arrival, "start": e.start})
        })
        .collect();
    axum::Json(json!({ "jobs": jobs })).into_response()
}

async fn cancel(AxState(svc): AxState<Arc<Service>>, Path(id): Path<String>) -> Response {
    let now = svc.now();
    let (effects, body) = {
        let mut st = svc.lock();
        let Some(idx) = st.find(&id) else {
            return error(StatusCode::NOT_FOUND, Some("id"), "no such job");
        };
        match st.cancel(idx, now) {
            Some(effects) => (effects, view(&st.entries[idx])),
            None => {
                return error(
                    StatusCode::CONFLICT,
                    Some("id"),
                    "the job has already ended",
                );
            }
        }
    };
    if let Err(e) = svc.apply(effects).await {
        return ServiceError::from(e).into_response();
    }
    svc.wake();
    axum::Json(body).into_response()
}

async fn vms(AxState(svc): AxState<Arc<Service>>) -> Response {
    let now = svc.now();
    let st = svc.lock();
    let vms: Vec<Value> = st
        .cluster
        .vms
        .iter()
        .map(|v| {
            json!({
                "id": v.id,
                "instance_type": st.cluster.instance_types[v.instance_type].name,
                "site": v.site,
                "state": match v.power { PowerState::Off => "off", PowerState::Booting { .. } => "booting", PowerState::On => "on" },
                "executors": v.executors,
                "free_cores": v.free.cores(),
                "free_memory_gib": v.free.memory_gib(),
                "price_per_second": v.price_per_second,
                "accrued_cost": st.vm_cost(v.id, now),
            })
        })
        .collect();
    axum::Json(json!({ "time": now, "vms": vms })).into_response()
}

/// Prometheus metrics, refreshed at each scrape.
pub(crate) struct Metrics {
    registry: Registry,
    jobs: IntGaugeVec,
    queue: prometheus::IntGauge,
    cost: GaugeVec,
    decisions: prometheus::IntCounter,
    latency: Histogram,
    deadline: IntGaugeVec,
    time: Gauge,
}

impl Metrics {
    pub(crate) fn new() -> Metrics {
        let registry = Registry::new();
        let jobs = IntGaugeVec::new(
            Opts::new("frugal_jobs", "Accepted jobs by state"),
            &["state"],
        )
        .expect("valid");
        let queue = prometheus::IntGauge::new("frugal_queue_length", "Jobs waiting in the queue")
            .expect("valid");
        let cost = GaugeVec::new(
            Opts::new("frugal_cost_dollars", "VM cost accrued, by site"),
            &["site"],
        )
        .expect("valid");
        let decisions =
            prometheus::IntCounter::new("frugal_decisions_total", "Placement decisions made")
                .expect("valid");
        let latency = Histogram::with_opts(
            HistogramOpts::new(
                "frugal_decision_latency_seconds",
                "Wall-clock time of one placement decision",
            )
            .buckets(prometheus::exponential_buckets(1e-7, 4.0, 12).expect("valid")),
        )
        .expect("valid");
        let deadline = IntGaugeVec::new(
            Opts::new("frugal_deadlines", "Completed deadline jobs by outcome"),
            &["outcome"],
        )
        .expect("valid");
        let time = Gauge::new("frugal_service_time_seconds", "Service clock").expect("valid");
        for c in [
            Box::new(jobs.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(queue.clone()),
            Box::new(cost.clone()),
            Box::new(decisions.clone()),
            Box::new(latency.clone()),
            Box::new(deadline.clone()),
            Box::new(time.clone()),
        ] {
            registry.register(c).expect("unique metric names");
        }
        Metrics {
            registry,
            jobs,
            queue,
            cost,
            decisions,
            latency,
            deadline,
            time,
        }
    }
}

impl Metrics {
    /// Records decision times (seconds) in the latency histogram.
    pub(crate) fn observe_decisions(&self, seconds: &[f64]) {
        self.decisions.inc_by(seconds.len() as u64);
        for &t in seconds {
            self.latency.observe(t);
        }
    }
}

async fn metrics(AxState(svc): AxState<Arc<Service>>) -> Response {
    let now = svc.now();
    let m = &svc.metrics;
    {
        let st = svc.lock();
        for s in JobState::ALL {
            m.jobs
                .with_label_values(&[s.as_str()])
                .set(st.entries.iter().filter(|e| e.state == s).count() as i64);
        }
        m.queue.set(st.queued() as i64);
        for site in [Site::Local, Site::Cloud] {
            m.cost
                .with_label_values(&[site.as_str()])
                .set(st.site_cost(site, now));
        }
        let (mut met, mut missed) = (0, 0);
        for e in st.entries.iter().filter(|e| e.job.deadline.is_some()) {
            match (e.state, e.finish, e.job.deadline) {
                (JobState::Completed, Some(f), Some(d)) if f <= d => met += 1,
                (JobState::Completed | JobState::Failed | JobState::Dropped, ..) => missed += 1,
                _ => {}
            }
        }
        m.deadline.with_label_values(&["met"]).set(met);
        m.deadline.with_label_values(&["missed"]).set(missed);
        m.time.set(now);
    }
    let mut buf = Vec::new();
    if let Err(e) = TextEncoder::new().encode(&m.registry.gather(), &mut buf) {
        return error(StatusCode::INTERNAL_SERVER_ERROR, None, &e.to_string());
    }
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], buf).into_response()
}
