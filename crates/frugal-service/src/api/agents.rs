//! `POST /agent/v1/heartbeat`: node agents report in and get their orders (see
//! [`crate::agent::protocol`]). Authenticated by the agent token, which grants nothing
//! else; the API token does not work here.

use std::sync::Arc;

use axum::extract::State as AxState;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::auth::{bearer_token, token_matches};
use super::error;
use super::views::ErrorBody;
use crate::Service;
use crate::agent::protocol::{Heartbeat, Orders, valid_name};

/// A node agent's heartbeat; the reply lists every reservation worker its host must run.
#[utoipa::path(post, path = "/agent/v1/heartbeat", tag = "agents",
    request_body = Heartbeat,
    responses(
        (status = 200, body = Orders),
        (status = 400, body = ErrorBody, description = "A malformed heartbeat"),
        (status = 401, body = ErrorBody, description = "Missing or wrong agent token"),
        (status = 409, body = ErrorBody, description = "This backend has no agents, or a VM is not in the cluster")),
    security(("agent" = [])))]
pub(crate) async fn heartbeat(
    AxState(svc): AxState<Arc<Service>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(bearer_token);
    let authorised = match (&svc.agent_token, presented) {
        (Some(expected), Some(t)) => token_matches(expected, t.trim()),
        _ => false,
    };
    if !authorised {
        return error(
            StatusCode::UNAUTHORIZED,
            None,
            "missing or wrong agent token (Authorization: Bearer <agent token>)",
        );
    }
    let hb: Heartbeat = match serde_json::from_slice(&body) {
        Ok(hb) => hb,
        Err(e) => return error(StatusCode::BAD_REQUEST, None, &format!("heartbeat: {e}")),
    };
    if !valid_name(&hb.host) {
        return error(
            StatusCode::BAD_REQUEST,
            Some("host"),
            "use 1–128 of [A-Za-z0-9_.-]",
        );
    }
    let backend = Arc::clone(&svc);
    match tokio::task::spawn_blocking(move || backend.backend.heartbeat(&hb)).await {
        Ok(Some(orders)) => axum::Json(orders).into_response(),
        Ok(None) => error(
            StatusCode::CONFLICT,
            None,
            "this backend runs no agents, or the heartbeat names a VM outside the cluster",
        ),
        Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, None, &e.to_string()),
    }
}
