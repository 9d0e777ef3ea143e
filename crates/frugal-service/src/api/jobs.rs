//! `/jobs`: submit, read, list and cancel jobs.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Query, State as AxState};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::IntoParams;

use super::views::{ErrorBody, JobPage, JobSummary, JobView};
use super::{error, unavailable};
use crate::Service;
use crate::state::JobState;
use crate::store::StoreError;
use crate::submission::Submission;

/// True for `application/json` (with or without parameters such as a charset).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

/// Submit a job.
///
/// The job is committed to the database before 202 answers (a 202 always means
/// "stored"). The same id again with the same body answers 200 with the job, with
/// another body 409.
#[utoipa::path(
    post, path = "/jobs", tag = "jobs",
    request_body(content = Submission, content_type = "application/json"),
    responses(
        (status = 202, description = "Accepted and stored", body = JobView),
        (status = 200, description = "This exact job was accepted before", body = JobView),
        (status = 400, description = "Not well-formed JSON, or data after it", body = ErrorBody),
        (status = 401, description = "Missing or wrong bearer token", body = ErrorBody),
        (status = 409, description = "Another job has this id", body = ErrorBody),
        (status = 413, description = "Body too large"),
        (status = 415, description = "Not application/json", body = ErrorBody),
        (status = 422, description = "A field is invalid (named in `field`), even the cheapest placement on the idle cluster costs more than `max_cost_usd` (then in `cheapest_usd`), or the service's budget can never admit the job (`field` is `executors`; the message gives the dollars per hour)", body = ErrorBody),
        (status = 503, description = "Overloaded or the database refuses writes; retry after `Retry-After` seconds", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn submit(
    AxState(svc): AxState<Arc<Service>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !is_json(&headers) {
        svc.metrics.submission("invalid");
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            "the body must be application/json",
        );
    }
    let s = match Submission::parse(&body) {
        Ok(s) => s,
        Err(e) => {
            svc.metrics.submission("invalid");
            let status = if e.syntax {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::UNPROCESSABLE_ENTITY
            };
            return error(status, Some(&e.field), &e.message);
        }
    };
    if let Err(e) = s.application(&svc.apps_dir) {
        svc.metrics.submission("invalid");
        return error(StatusCode::UNPROCESSABLE_ENTITY, Some(&e.field), &e.message);
    }
    if let Some(r) = existing(&svc, &s) {
        return r;
    }
    if let Some(cap) = s.max_cost_usd {
        let cheapest = svc.lock().cheapest_usd(&s.job(0.0));
        if cheapest.is_finite() && cheapest > cap {
            svc.metrics.submission("invalid");
            let message = format!(
                "even the cheapest placement on the idle cluster costs ${cheapest:.4}, \
                 over the ${cap} cap"
            );
            let body = ErrorBody {
                error: message,
                field: Some("max_cost_usd".into()),
                cheapest_usd: Some(cheapest),
            };
            return (StatusCode::UNPROCESSABLE_ENTITY, axum::Json(body)).into_response();
        }
    }
    let budget = svc.lock().budget_per_hour;
    if let Some(budget) = budget {
        // A job the budget can never admit would wait for ever: refused now.
        let least = svc.lock().least_fleet_price_per_hour(&s.job(0.0));
        if least.is_finite() && least > budget * (1.0 + 1e-9) {
            svc.metrics.submission("invalid");
            let message = format!(
                "even the cheapest VMs that can hold its executors take the fleet to \
                 ${least:.4}/h, over the service's ${budget:.4}/h budget: it could never \
                 start"
            );
            return error(
                StatusCode::UNPROCESSABLE_ENTITY,
                Some("executors"),
                &message,
            );
        }
    }
    if svc.lock().queued() >= svc.limits.max_queued {
        svc.metrics.submission("overloaded");
        return unavailable("the queue is full");
    }
    let arrival = svc.now();
    match svc.store.insert(&s, arrival).await {
        Ok(true) => {}
        Ok(false) => return stored_duplicate(&svc, &s).await,
        Err(StoreError::Busy) => {
            svc.metrics.submission("overloaded");
            return unavailable("too many submissions waiting for the database");
        }
        Err(e) => {
            svc.metrics.submission("unavailable");
            return unavailable(&format!("not stored: {e}"));
        }
    }
    let (view, effects) = {
        let mut st = svc.lock();
        let (idx, effects) = st.add(s.clone(), s.job(arrival), JobState::Queued, arrival);
        (JobView::of(&st.entry(idx), svc.clock), effects)
    };
    if !effects.is_empty() {
        // A job no placement can ever hold: dropped, and the drop persisted.
        let _ = svc.apply(effects).await;
    }
    svc.metrics.submission("accepted");
    svc.wake();
    (StatusCode::ACCEPTED, axum::Json(view)).into_response()
}

/// The answer to a resubmission of an id held in memory: 200 with the job if the body
/// is identical, 409 otherwise.
fn existing(svc: &Service, s: &Submission) -> Option<Response> {
    let st = svc.lock();
    let e = st.entry(st.find(&s.id)?);
    Some(if *e.submission == *s {
        svc.metrics.submission("duplicate");
        (StatusCode::OK, axum::Json(JobView::of(&e, svc.clock))).into_response()
    } else {
        svc.metrics.submission("conflict");
        error(
            StatusCode::CONFLICT,
            Some("id"),
            "another job with this id was accepted",
        )
    })
}

/// The answer when the database already has the id: a concurrent identical retry, or a
/// job evicted from memory. Compared with the stored submission: 200 or 409.
async fn stored_duplicate(svc: &Service, s: &Submission) -> Response {
    if let Some(r) = existing(svc, s) {
        return r;
    }
    match svc.store.job(&s.id).await {
        Ok(Some(stored)) if stored.submission == *s => {
            svc.metrics.submission("duplicate");
            (
                StatusCode::OK,
                axum::Json(JobView::of_stored(&stored, svc.clock)),
            )
                .into_response()
        }
        Ok(Some(_)) => {
            svc.metrics.submission("conflict");
            error(
                StatusCode::CONFLICT,
                Some("id"),
                "another job with this id was accepted",
            )
        }
        Ok(None) => unavailable("the job is being accepted; retry"),
        Err(e) => unavailable(&format!("database: {e}")),
    }
}

/// Read one job.
#[utoipa::path(
    get, path = "/jobs/{id}", tag = "jobs",
    params(("id" = String, Path, description = "Job id")),
    responses(
        (status = 200, body = JobView),
        (status = 401, body = ErrorBody),
        (status = 404, description = "No such job", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn get(AxState(svc): AxState<Arc<Service>>, Path(id): Path<String>) -> Response {
    let view = {
        let st = svc.lock();
        st.find(&id).map(|i| JobView::of(&st.entry(i), svc.clock))
    };
    if let Some(v) = view {
        return axum::Json(v).into_response();
    }
    match svc.store.job(&id).await {
        Ok(Some(s)) => axum::Json(JobView::of_stored(&s, svc.clock)).into_response(),
        Ok(None) => error(StatusCode::NOT_FOUND, Some("id"), "no such job"),
        Err(e) => unavailable(&format!("database: {e}")),
    }
}

/// Paging of `GET /jobs`.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct ListQuery {
    /// Jobs per page, 1–1000 (default 100).
    #[param(minimum = 1, maximum = 1000)]
    limit: Option<u32>,
    /// `next_cursor` of the previous page.
    cursor: Option<String>,
    /// Only jobs in this state.
    #[param(value_type = Option<JobState>)]
    state: Option<String>,
}

/// List jobs, in acceptance order, a page at a time.
///
/// Read from the database as one consistent snapshot, without the scheduler's lock: the
/// listing reflects every committed change (within milliseconds of the scheduler's) and
/// includes jobs that have left memory.
#[utoipa::path(
    get, path = "/jobs", tag = "jobs",
    params(ListQuery),
    responses(
        (status = 200, body = JobPage),
        (status = 400, description = "A bad parameter", body = ErrorBody),
        (status = 401, body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn list(
    AxState(svc): AxState<Arc<Service>>,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(q)) = query else {
        return error(StatusCode::BAD_REQUEST, None, "bad query parameters");
    };
    let limit = q.limit.unwrap_or(100);
    if !(1..=1000).contains(&limit) {
        return error(
            StatusCode::BAD_REQUEST,
            Some("limit"),
            "must be in 1..=1000",
        );
    }
    let after = match q.cursor.as_deref().map(str::parse::<i64>) {
        None => 0,
        Some(Ok(c)) if c >= 0 => c,
        Some(_) => return error(StatusCode::BAD_REQUEST, Some("cursor"), "not a cursor"),
    };
    if let Some(s) = &q.state
        && let Err(why) = s.parse::<JobState>()
    {
        return error(StatusCode::BAD_REQUEST, Some("state"), &why);
    }
    match svc.store.list(after, limit, q.state.as_deref()).await {
        Ok(rows) => {
            let next_cursor = (rows.len() == limit as usize)
                .then(|| rows.last().map(|r| r.seq.to_string()))
                .flatten();
            let at = |t: f64| svc.clock.rfc3339(t);
            let jobs = rows
                .iter()
                .map(|r| {
                    let state = r.state;
                    JobSummary {
                        id: r.id.clone(),
                        state,
                        submitted_at: at(r.arrival),
                        started_at: r.start.map(at),
                        finished_at: r.finish.filter(|_| state.has_ended()).map(at),
                    }
                })
                .collect();
            axum::Json(JobPage { jobs, next_cursor }).into_response()
        }
        Err(e) => unavailable(&format!("database: {e}")),
    }
}

/// Cancel a job: a queued job leaves the queue, a running one is stopped. Cancelling a
/// cancelled job again answers 200.
#[utoipa::path(
    delete, path = "/jobs/{id}", tag = "jobs",
    params(("id" = String, Path, description = "Job id")),
    responses(
        (status = 200, description = "Cancelled", body = JobView),
        (status = 401, body = ErrorBody),
        (status = 404, description = "No such job", body = ErrorBody),
        (status = 409, description = "It had already ended", body = ErrorBody),
        (status = 503, description = "Cancelled, but not yet committed: retry", body = ErrorBody),
    ),
    security(("bearer" = []))
)]
pub(crate) async fn cancel(
    AxState(svc): AxState<Arc<Service>>,
    Path(id): Path<String>,
) -> Response {
    let now = svc.now();
    let outcome = {
        let mut st = svc.lock();
        st.find(&id).map(|idx| {
            let effects = st.cancel(idx, now);
            (effects, JobView::of(&st.entry(idx), svc.clock))
        })
    };
    match outcome {
        Some((Some(effects), view)) => {
            if let Err(e) = svc.apply(effects).await {
                return unavailable(&format!("cancelled but not yet stored: {e}"));
            }
            svc.wake();
            axum::Json(view).into_response()
        }
        Some((None, _)) => error(
            StatusCode::CONFLICT,
            Some("id"),
            "the job has already ended",
        ),
        None => match svc.store.job(&id).await {
            Ok(Some(s)) if s.state == JobState::Cancelled => {
                axum::Json(JobView::of_stored(&s, svc.clock)).into_response()
            }
            Ok(Some(_)) => error(
                StatusCode::CONFLICT,
                Some("id"),
                "the job has already ended",
            ),
            Ok(None) => error(StatusCode::NOT_FOUND, Some("id"), "no such job"),
            Err(e) => unavailable(&format!("database: {e}")),
        },
    }
}
