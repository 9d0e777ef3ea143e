//! Backends run placed jobs and power VMs on and off. The service tells a backend what
//! to do through [`Backend`]; the backend reports what happened as [`BackendEvent`]s on
//! the channel it was built with.

mod emulated;
mod fleet;
pub mod hosts;
mod spark;

pub use emulated::Emulated;
pub use fleet::{CHECK_INTERVAL_MS, HostFleet, HostsConfig, ProvisionerKind};
pub use hosts::HostTimeouts;
pub use spark::{NETWORK_TIMEOUT_S, SparkConfig, SparkError, SparkStandalone, WORKER_TIMEOUT_S};

use frugal_core::cluster::VmId;
use frugal_core::placement::Placement;
use frugal_core::resources::MIB_PER_GIB;

use crate::agent::protocol::{Heartbeat, Orders};
use crate::submission::Submission;

/// A placed job to run.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The service's job index (echoed in events).
    pub idx: usize,
    /// The job as submitted (id, application, executor size).
    pub submission: Submission,
    /// Executors per VM.
    pub placement: Placement,
    /// When the job started, service seconds.
    pub start_s: f64,
    /// Estimated run time under this placement, service seconds (the emulated backend
    /// runs the job for exactly this long).
    pub duration_s: f64,
}

impl Launch {
    /// Memory of one executor, MiB.
    pub fn executor_mib(&self) -> u64 {
        (self.submission.executor_memory_gib * f64::from(MIB_PER_GIB)) as u64
    }
}

/// What a backend reports.
#[derive(Clone, Debug, PartialEq)]
pub enum BackendEvent {
    /// The job ended successfully.
    Finished {
        /// Job index.
        idx: usize,
    },
    /// The job ended unsuccessfully.
    Failed {
        /// Job index.
        idx: usize,
        /// What the backend saw (exit code, last error line).
        reason: String,
    },
    /// Some of the job's executors on `vm` were lost (a worker died); the service
    /// re-places them or fails the job.
    Lost {
        /// Job index.
        idx: usize,
        /// The VM.
        vm: VmId,
        /// How many executors; `None` for all the job's executors on `vm` (the backend
        /// does not know how many the dead worker held).
        executors: Option<u32>,
    },
    /// VM `vm` is lost (its host stopped heartbeating or never came up): everything on
    /// it is gone; the service replaces its executors elsewhere and keeps it out of
    /// service for a while.
    VmLost {
        /// The VM.
        vm: VmId,
        /// Why (e.g. "no heartbeat from host lo8080-vm3 for 10 s").
        reason: String,
    },
    /// VM `vm` could not be powered on (the provider refused it, e.g. no spot
    /// capacity): handled as a lost VM that never ran, so it costs nothing.
    PowerOnFailed {
        /// The VM.
        vm: VmId,
        /// Why (the provider's code and message).
        reason: String,
    },
    /// The executors the job actually has per VM, as the backend reports them.
    Observed {
        /// Job index.
        idx: usize,
        /// `(vm, executors)` in VM order.
        executors_per_vm: Vec<(VmId, u32)>,
    },
}

/// A cluster that runs jobs. Calls return at once; the work happens in the background
/// and its outcome comes back as [`BackendEvent`]s.
pub trait Backend: Send + Sync {
    /// Name used in logs and the config (`emulated`, `spark-standalone`).
    fn name(&self) -> &'static str;

    /// Service seconds per wall-clock second (1 for real clusters).
    fn speedup(&self) -> f64 {
        1.0
    }

    /// True if it can take work now (for `/readyz`).
    fn ready(&self) -> bool {
        true
    }

    /// Turns `vm` on.
    fn power_on(&self, vm: VmId);

    /// Turns `vm` off, stopping anything still running on it.
    fn power_off(&self, vm: VmId);

    /// Starts a placed job.
    fn launch(&self, job: Launch);

    /// Adds executors to running job `job.idx` on `job.placement` (a replacement for
    /// lost ones).
    fn add_executors(&self, job: Launch);

    /// Stops job `idx` (cancelled); reports nothing more for it.
    fn stop(&self, idx: usize);

    /// After a restart: takes over `job` if the backend still runs it (or it ended while
    /// the service was down — its end is then reported). False if the backend knows
    /// nothing of it, so the service runs it again.
    fn reattach(&self, job: &Launch) -> bool;

    /// Every running job has been offered to [`Backend::reattach`] after a start.
    fn restored(&self) {}

    /// A node agent's heartbeat: its orders, or `None` if this backend has no agents
    /// or the heartbeat names a VM outside the cluster.
    fn heartbeat(&self, _hb: &Heartbeat) -> Option<Orders> {
        None
    }

    /// Stops everything the backend started (clean shutdown).
    fn shutdown(&self);
}
