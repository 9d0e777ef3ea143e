//! The HTTP API. Its OpenAPI 3 document is generated from the types and handlers here
//! ([`API_DOC`], served at `GET /openapi.json` and kept in `docs/openapi.json`).
//!
//! Every route but `/healthz`, `/readyz`, `/metrics`, the dashboard's static files under
//! `/ui` and the agents' heartbeat needs
//! `Authorization: Bearer <token>` (401 otherwise); the heartbeat needs the agent token. Requests time out after `request_timeout` (408), bodies
//! beyond `max_body_bytes` are refused (413), and `POST /jobs` takes only
//! `application/json` (415).

mod agents;
mod auth;
mod dashboard;
mod doc;
mod jobs;
mod ops;
mod ui;
mod views;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutLayer};

pub use doc::API_DOC;
pub(crate) use ops::ops_router;
use views::ErrorBody;

use crate::Service;

/// Seconds a client is told to wait (`Retry-After`) when the service is overloaded or
/// its database refuses writes.
pub const RETRY_AFTER_S: u32 = 1;

/// Builds the router over a started service.
pub fn router(svc: Arc<Service>) -> Router {
    let limits = svc.limits;
    let api = Router::new()
        .route("/jobs", get(jobs::list).post(jobs::submit))
        .route("/jobs/{id}", get(jobs::get).delete(jobs::cancel))
        .route("/vms", get(ops::vms))
        .route("/cost", get(dashboard::cost))
        .route("/dashboard", get(dashboard::dashboard))
        .route("/openapi.json", get(doc::openapi))
        .route_layer(middleware::from_fn_with_state(
            Arc::clone(&svc),
            auth::require_token,
        ))
        .with_state(Arc::clone(&svc));
    let agents = Router::new()
        .route("/agent/v1/heartbeat", post(agents::heartbeat))
        .with_state(Arc::clone(&svc));
    api.merge(agents)
        .merge(ops_router(svc))
        .merge(ui::ui_router())
        .layer(DefaultBodyLimit::max(limits.max_body_bytes))
        .layer(RequestBodyTimeoutLayer::new(limits.request_timeout))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            limits.request_timeout,
        ))
}

/// A JSON error body `{"error": …, "field": …}` with `status`.
fn error(status: StatusCode, field: Option<&str>, message: &str) -> Response {
    (
        status,
        axum::Json(ErrorBody {
            error: message.to_string(),
            field: field.map(String::from),
            cheapest_usd: None,
        }),
    )
        .into_response()
}

/// 503 with `Retry-After`.
fn unavailable(message: &str) -> Response {
    let mut r = error(StatusCode::SERVICE_UNAVAILABLE, None, message);
    r.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from_str(&RETRY_AFTER_S.to_string()).expect("digits"),
    );
    r
}
