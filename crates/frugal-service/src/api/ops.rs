//! Operations: health, readiness, metrics, and the cluster's VMs.

use std::sync::Arc;

use axum::Router;
use axum::extract::State as AxState;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use frugal_core::cluster::PowerState;

use super::error;
use super::views::{ErrorBody, Readiness, VmList, VmView};
use crate::Service;

/// `/healthz`, `/readyz` and `/metrics`: no token needed (they reveal no job data), and
/// servable on their own address.
pub(crate) fn ops_router(svc: Arc<Service>) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .with_state(svc)
}

/// The process is up.
#[utoipa::path(get, path = "/healthz", tag = "operations", responses((status = 200, description = "ok")))]
pub(crate) async fn healthz() -> &'static str {
    "ok\n"
}

/// The service can take work: the database answers and its last transaction committed,
/// the scheduling loop runs, the backend is ready. 503 otherwise, naming the failed
/// checks.
#[utoipa::path(get, path = "/readyz", tag = "operations", responses(
    (status = 200, body = Readiness), (status = 503, body = Readiness)))]
pub(crate) async fn readyz(AxState(svc): AxState<Arc<Service>>) -> Response {
    let r = Readiness {
        database: svc.store.ready().await,
        scheduler: svc.scheduler_alive(),
        backend: svc.backend.ready(),
        ready: false,
    };
    let r = Readiness {
        ready: r.database && r.scheduler && r.backend,
        ..r
    };
    let status = if r.ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, axum::Json(r)).into_response()
}

/// Prometheus metrics: jobs by state, queue length, decisions and their latency, cost by
/// site, deadlines met and missed, submissions by outcome.
#[utoipa::path(get, path = "/metrics", tag = "operations", responses(
    (status = 200, description = "Prometheus text format", content_type = "text/plain")))]
pub(crate) async fn metrics(AxState(svc): AxState<Arc<Service>>) -> Response {
    let now = svc.now();
    let rendered = {
        let st = svc.lock();
        svc.metrics.render(&st, now)
    };
    match rendered {
        Ok(buf) => ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], buf).into_response(),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, None, &e.to_string()),
    }
}

/// The VMs: power state, free resources, accrued cost.
#[utoipa::path(get, path = "/vms", tag = "cluster", responses(
    (status = 200, body = VmList), (status = 401, body = ErrorBody)),
    security(("bearer" = [])))]
pub(crate) async fn vms(AxState(svc): AxState<Arc<Service>>) -> Response {
    let now = svc.now();
    let st = svc.lock();
    let vms = st
        .cluster()
        .vms
        .iter()
        .map(|v| VmView {
            id: v.id,
            instance_type: st.cluster().instance_types[v.instance_type].name.clone(),
            site: v.site.as_str().to_string(),
            state: match v.power {
                _ if st.out_of_service(v.id).is_some() => "lost",
                PowerState::Off => "off",
                PowerState::Booting { .. } => "booting",
                PowerState::On => "on",
            }
            .to_string(),
            executors: v.executors,
            free_cores: v.free.cores(),
            free_memory_gib: v.free.memory_gib(),
            price_per_second: v.price_per_second,
            accrued_cost_usd: st.vm_cost(v.id, now),
        })
        .collect();
    axum::Json(VmList {
        time: svc.clock.rfc3339(now),
        vms,
    })
    .into_response()
}
