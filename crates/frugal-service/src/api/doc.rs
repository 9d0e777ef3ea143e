//! The OpenAPI 3 document, generated from the handlers and types (so it cannot drift
//! from them); `docs/openapi.json` is a copy that a test keeps equal.

use axum::http::header;
use axum::response::IntoResponse;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::dashboard::{CostView, DashboardView, JobCounts, VmTimeline};
use super::views::{
    ErrorBody, JobPage, JobSummary, JobView, Readiness, VmExecutors, VmList, VmView,
};
use super::{agents, dashboard, jobs, ops};
use crate::agent::protocol::{FailedWorker, Heartbeat, HostedVm, Orders, WorkerOrder};
use crate::ledger::DecisionRecord;
use crate::state::JobState;
use crate::submission::Submission;

/// The API's description.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "frugal scheduler service",
        description = "Cost- and deadline-aware placement of Spark jobs on a hybrid cluster. \
            Every route but /healthz, /readyz, /metrics and the dashboard's page at /ui needs \
            `Authorization: Bearer <token>`. \
            Instants are RFC 3339 UTC timestamps; durations are in seconds.",
        license(name = "Apache-2.0")
    ),
    paths(
        jobs::submit, jobs::get, jobs::list, jobs::cancel,
        ops::vms, dashboard::cost, dashboard::dashboard, ops::healthz, ops::readyz,
        ops::metrics, agents::heartbeat
    ),
    components(schemas(
        Submission, JobView, JobSummary, JobPage, JobState, VmExecutors, VmView, VmList,
        CostView, DashboardView, JobCounts, VmTimeline, DecisionRecord,
        ErrorBody, Readiness, Heartbeat, HostedVm, FailedWorker, Orders, WorkerOrder
    )),
    modifiers(&BearerAuth),
    tags(
        (name = "jobs", description = "Submit, read, list and cancel jobs"),
        (name = "cluster", description = "The VMs, the bill, the budget, the gap to the optimum, and the dashboard's data"),
        (name = "operations", description = "Health, readiness and metrics (no token)"),
        (name = "agents", description = "Node agents' heartbeats (agent token)")
    )
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        for name in ["bearer", "agent"] {
            components.add_security_scheme(
                name,
                SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
            );
        }
    }
}

/// The OpenAPI document as pretty-printed JSON.
pub static API_DOC: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    ApiDoc::openapi()
        .to_pretty_json()
        .expect("the document serialises")
});

pub(crate) async fn openapi() -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        API_DOC.as_str(),
    )
}
