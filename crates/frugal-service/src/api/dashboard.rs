//! `/cost` (the bill, the fleet's price against the budget, the gap to the optimum) and
//! `/dashboard` (everything the web dashboard shows, in one call).

use std::sync::Arc;

use axum::extract::{Query, State as AxState};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::views::{ErrorBody, JobView};
use super::{error, unavailable};
use crate::Service;
use crate::ledger::DecisionRecord;
use crate::state::{JobState, State};
use frugal_core::lifecycle::StateCount;

/// Money: what was spent, what the fleet costs now, and what the decisions cost against
/// the optimum.
#[derive(Serialize, ToSchema)]
pub(crate) struct CostView {
    /// When this was read (RFC 3339).
    pub time: String,
    /// VM cost accrued since the database began, dollars.
    pub spend_usd: f64,
    /// The summed price of the VMs being billed now, dollars per hour.
    pub fleet_price_per_hour: f64,
    /// The cap on the fleet's price, dollars per hour, if any.
    pub budget_per_hour: Option<f64>,
    /// Σ cost of the placements made (paper 000 Eq. 16), dollars.
    pub decisions_chosen_usd: f64,
    /// Σ cost of the exact optimum at the same instants, dollars.
    pub decisions_optimal_usd: f64,
    /// How much more the placements cost than the optimum, percent (absent before any
    /// decision with a non-zero optimum).
    pub gap_pct: Option<f64>,
}

impl CostView {
    fn of(st: &State, svc: &Service, now: f64) -> CostView {
        let (chosen, optimal) = st.ledger.totals();
        CostView {
            time: svc.clock.rfc3339(now),
            spend_usd: st.spend(now),
            fleet_price_per_hour: st.fleet_price_per_hour(),
            budget_per_hour: st.budget_per_hour,
            decisions_chosen_usd: chosen,
            decisions_optimal_usd: optimal,
            gap_pct: (optimal > 0.0).then(|| 100.0 * (chosen - optimal) / optimal),
        }
    }
}

/// The bill so far, the fleet's price against the budget, and the gap to the optimum.
#[utoipa::path(get, path = "/cost", tag = "cluster", responses(
    (status = 200, body = CostView), (status = 401, body = ErrorBody)),
    security(("bearer" = [])))]
pub(crate) async fn cost(AxState(svc): AxState<Arc<Service>>) -> Response {
    let now = svc.now();
    let view = CostView::of(&svc.lock(), &svc, now);
    axum::Json(view).into_response()
}

/// A VM's recent power history.
#[derive(Serialize, ToSchema)]
pub(crate) struct VmTimeline {
    /// VM id.
    pub id: u32,
    /// Instance type name.
    pub instance_type: String,
    /// `local` or `cloud`.
    pub site: String,
    /// Price, dollars per hour.
    pub price_per_hour: f64,
    /// Power-on intervals overlapping the window, `[on, off]` in service seconds (`off`
    /// null while on).
    #[schema(value_type = Vec<Vec<Option<f64>>>)]
    pub on: Vec<(f64, Option<f64>)>,
}

/// Every accepted job by state (those `/jobs` lists, evicted from memory or not), and
/// their deadlines (`frugal_core::lifecycle`).
#[derive(Serialize, ToSchema)]
pub(crate) struct JobCounts {
    /// Waiting.
    pub queued: usize,
    /// Running.
    pub running: usize,
    /// Completed.
    pub completed: usize,
    /// Failed.
    pub failed: usize,
    /// Cancelled.
    pub cancelled: usize,
    /// Dropped by admission control.
    pub dropped: usize,
    /// The policy cannot place them even on the empty cluster.
    pub unschedulable: usize,
    /// Deadline jobs that completed by their deadline.
    pub deadline_met: usize,
    /// Deadline jobs that missed it: completed late, failed, dropped, unschedulable, or
    /// still unfinished past it.
    pub deadline_missed: usize,
    /// Deadline jobs still unfinished before their deadline.
    pub deadline_pending: usize,
}

impl JobCounts {
    fn of(c: &StateCount) -> JobCounts {
        JobCounts {
            queued: c.of(JobState::Queued),
            running: c.of(JobState::Running),
            completed: c.of(JobState::Completed),
            failed: c.of(JobState::Failed),
            cancelled: c.of(JobState::Cancelled),
            dropped: c.of(JobState::Dropped),
            unschedulable: c.of(JobState::Unschedulable),
            deadline_met: c.deadlines.met,
            deadline_missed: c.deadlines.missed,
            deadline_pending: c.deadlines.pending,
        }
    }
}

/// What the dashboard shows.
#[derive(Serialize, ToSchema)]
pub(crate) struct DashboardView {
    /// Now, service seconds (the charts' clock; instants elsewhere are RFC 3339).
    pub now_s: f64,
    /// The window start, service seconds.
    pub since_s: f64,
    /// Money.
    pub cost: CostView,
    /// Every accepted job by state, and deadlines.
    pub counts: JobCounts,
    /// Queued jobs, in acceptance order (the first `limit`).
    pub queued: Vec<JobView>,
    /// Running jobs, by start (the first `limit`).
    pub running: Vec<JobView>,
    /// Ended jobs, the newest `limit`, newest first.
    pub ended: Vec<JobView>,
    /// The VMs' power history in the window.
    pub vms: Vec<VmTimeline>,
    /// The newest placement decisions, newest last.
    pub decisions: Vec<DecisionRecord>,
    /// Σ chosen and Σ optimal cost after each decision, `[t, chosen, optimal]` (service
    /// seconds, dollars), oldest first.
    #[schema(value_type = Vec<Vec<f64>>)]
    pub gap_history: Vec<(f64, f64, f64)>,
}

/// The dashboard's window and list lengths.
#[derive(Deserialize, IntoParams)]
pub(crate) struct DashboardQuery {
    /// Service seconds of power history to return, (0, 10 years] (default 3600).
    pub window_s: Option<f64>,
    /// Jobs per list, 1–1,000 (default 50).
    pub limit: Option<usize>,
}

/// Everything the web dashboard shows, in one call.
#[utoipa::path(get, path = "/dashboard", tag = "cluster", params(DashboardQuery), responses(
    (status = 200, body = DashboardView), (status = 400, body = ErrorBody),
    (status = 401, body = ErrorBody), (status = 503, body = ErrorBody)),
    security(("bearer" = [])))]
pub(crate) async fn dashboard(
    AxState(svc): AxState<Arc<Service>>,
    Query(q): Query<DashboardQuery>,
) -> Response {
    let window = q.window_s.unwrap_or(3600.0);
    if !(window.is_finite() && window > 0.0 && window <= frugal_core::job::MAX_SECONDS) {
        return error(
            StatusCode::BAD_REQUEST,
            Some("window_s"),
            "must be in (0, 315576000] seconds",
        );
    }
    let limit = q.limit.unwrap_or(50);
    if !(1..=1000).contains(&limit) {
        return error(
            StatusCode::BAD_REQUEST,
            Some("limit"),
            "must be in 1..=1000",
        );
    }
    let now = svc.now();
    let since = now - window;
    let intervals = match svc.store.vm_intervals_since(since).await {
        Ok(i) => i,
        Err(e) => return unavailable(&format!("database: {e}")),
    };
    let st = svc.lock();
    let mut vms: Vec<VmTimeline> = st
        .cluster()
        .vms
        .iter()
        .map(|v| VmTimeline {
            id: v.id,
            instance_type: st.cluster().instance_types[v.instance_type].name.clone(),
            site: v.site.as_str().to_string(),
            price_per_hour: v.price_per_second * 3600.0,
            on: Vec::new(),
        })
        .collect();
    for (vm, on, off) in intervals {
        if let Some(v) = vms.get_mut(vm as usize) {
            v.on.push((on, off));
        }
    }
    let counts = JobCounts::of(&st.tally(now));
    let (mut queued, mut running, mut ended) = (Vec::new(), Vec::new(), Vec::new());
    for e in st.entries() {
        match e.state {
            JobState::Queued => queued.push(e),
            JobState::Running => running.push(e),
            _ => ended.push(e),
        }
    }
    queued.sort_by(|a, b| a.job.arrival.total_cmp(&b.job.arrival));
    running.sort_by(|a, b| a.start.unwrap_or(0.0).total_cmp(&b.start.unwrap_or(0.0)));
    ended.sort_by(|a, b| b.finish.unwrap_or(0.0).total_cmp(&a.finish.unwrap_or(0.0)));
    let view = |list: Vec<crate::state::Entry>| {
        list.into_iter()
            .take(limit)
            .map(|e| JobView::of(&e, svc.clock))
            .collect()
    };
    let body = DashboardView {
        now_s: now,
        since_s: since,
        cost: CostView::of(&st, &svc, now),
        counts,
        queued: view(queued),
        running: view(running),
        ended: view(ended),
        vms,
        decisions: st.ledger.recent().cloned().collect(),
        gap_history: st.ledger.history().copied().collect(),
    };
    drop(st);
    axum::Json(body).into_response()
}
