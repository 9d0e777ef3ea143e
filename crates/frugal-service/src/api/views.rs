//! What the API returns (JSON), with its OpenAPI schemas. Instants are RFC 3339 UTC
//! timestamps of wall-clock time; durations and prices are in service seconds (see
//! [`crate::clock`]).

use serde::Serialize;
use utoipa::ToSchema;

use frugal_core::cluster::VmId;

use crate::clock::Clock;
use crate::state::{Entry, JobState};
use crate::store::StoredJob;

/// An error.
#[derive(Serialize, ToSchema)]
pub(crate) struct ErrorBody {
    /// What is wrong.
    pub error: String,
    /// The request field at fault, if one is.
    pub field: Option<String>,
    /// A refused `max_cost_usd`: the cheapest placement's cost on the idle cluster,
    /// dollars.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cheapest_usd: Option<f64>,
}

/// Executors of a job on one VM.
#[derive(Serialize, ToSchema)]
pub(crate) struct VmExecutors {
    /// VM id.
    #[schema(value_type = u32)]
    pub vm: VmId,
    /// Executors on it.
    pub executors: u32,
}

fn per_vm(executors_per_vm: &[(VmId, u32)]) -> Vec<VmExecutors> {
    executors_per_vm
        .iter()
        .map(|&(vm, executors)| VmExecutors { vm, executors })
        .collect()
}

/// One job.
#[derive(Serialize, ToSchema)]
pub(crate) struct JobView {
    /// Its id.
    pub id: String,
    /// Its state.
    pub state: JobState,
    /// When it was accepted (RFC 3339).
    pub submitted_at: String,
    /// Its absolute deadline, if it has one (RFC 3339).
    pub deadline_at: Option<String>,
    /// When its executors started (RFC 3339).
    pub started_at: Option<String>,
    /// While running: when it is estimated to finish (RFC 3339).
    pub estimated_finish_at: Option<String>,
    /// Once ended: when (RFC 3339).
    pub finished_at: Option<String>,
    /// Where its executors were placed.
    pub placement: Option<Vec<VmExecutors>>,
    /// Where the backend reports them.
    pub observed_placement: Option<Vec<VmExecutors>>,
    /// Why it was re-queued, dropped or failed, or why it waits.
    pub reason: Option<String>,
    /// What its placement cost (paper 000 Eq. 16: each VM it uses, price × the time the
    /// job adds to the VM's on-time), dollars, once placed.
    pub placement_cost_usd: Option<f64>,
    /// What the exact optimum would have cost at the same instant, dollars.
    pub optimal_cost_usd: Option<f64>,
}

impl JobView {
    pub(crate) fn of(e: &Entry, clock: Clock) -> JobView {
        let at = |t: f64| clock.rfc3339(t);
        let running = e.state == JobState::Running;
        JobView {
            id: e.submission.id.clone(),
            state: e.state,
            submitted_at: at(e.job.arrival),
            deadline_at: e.job.deadline.map(at),
            started_at: e.start.map(at),
            estimated_finish_at: e.finish.filter(|_| running).map(at),
            finished_at: e.finish.filter(|_| e.state.has_ended()).map(at),
            placement: e.placement.as_ref().map(|p| per_vm(&p.executors_per_vm)),
            observed_placement: e.observed.map(per_vm),
            reason: e.reason.clone(),
            placement_cost_usd: e.cost.map(|c| c.chosen),
            optimal_cost_usd: e.cost.map(|c| c.optimal),
        }
    }

    pub(crate) fn of_stored(s: &StoredJob, clock: Clock) -> JobView {
        let at = |t: f64| clock.rfc3339(t);
        let state = s.state;
        JobView {
            id: s.submission.id.clone(),
            state,
            submitted_at: at(s.arrival),
            deadline_at: s.submission.deadline_s.map(|d| at(s.arrival + d)),
            started_at: s.start.map(at),
            estimated_finish_at: s.finish.filter(|_| state == JobState::Running).map(at),
            finished_at: s.finish.filter(|_| state.has_ended()).map(at),
            placement: s.placement.as_deref().map(per_vm),
            observed_placement: s.observed.as_deref().map(per_vm),
            reason: s.reason.clone(),
            placement_cost_usd: s.chosen_cost,
            optimal_cost_usd: s.optimal_cost,
        }
    }
}

/// A job in a listing.
#[derive(Serialize, ToSchema)]
pub(crate) struct JobSummary {
    /// Its id.
    pub id: String,
    /// Its state.
    pub state: JobState,
    /// When it was accepted (RFC 3339).
    pub submitted_at: String,
    /// When it started (RFC 3339).
    pub started_at: Option<String>,
    /// Once ended: when (RFC 3339).
    pub finished_at: Option<String>,
}

/// One page of jobs, in acceptance order.
#[derive(Serialize, ToSchema)]
pub(crate) struct JobPage {
    /// The jobs.
    pub jobs: Vec<JobSummary>,
    /// Pass as `cursor` for the next page; absent on the last page.
    pub next_cursor: Option<String>,
}

/// One VM.
#[derive(Serialize, ToSchema)]
pub(crate) struct VmView {
    /// VM id.
    #[schema(value_type = u32)]
    pub id: VmId,
    /// Instance type name.
    pub instance_type: String,
    /// `local` or `cloud`.
    pub site: String,
    /// `off`, `booting`, `on`, or `lost` (its host was lost; out of service for a while,
    /// not billed).
    pub state: String,
    /// Executors it hosts.
    pub executors: u32,
    /// Free cores.
    pub free_cores: u32,
    /// Free memory, GiB.
    pub free_memory_gib: f64,
    /// Price, dollars per service second.
    pub price_per_second: f64,
    /// Dollars billed so far.
    pub accrued_cost_usd: f64,
}

/// The cluster.
#[derive(Serialize, ToSchema)]
pub(crate) struct VmList {
    /// When this was read (RFC 3339).
    pub time: String,
    /// Every VM.
    pub vms: Vec<VmView>,
}

/// What `/readyz` checked.
#[derive(Serialize, ToSchema)]
pub(crate) struct Readiness {
    /// True if every check passed.
    pub ready: bool,
    /// The last transaction committed and the database answers.
    pub database: bool,
    /// The scheduling loop runs.
    pub scheduler: bool,
    /// The backend can take work.
    pub backend: bool,
}
