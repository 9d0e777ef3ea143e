//! The emulated backend: an in-process cluster in real time, `speedup` service seconds
//! per wall-clock second. A job runs for exactly its estimated duration. Nothing
//! survives a restart, so restarted jobs run again.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;
use tokio::task::AbortHandle;

use frugal_core::cluster::VmId;

use super::{Backend, BackendEvent, Launch};

/// The emulated cluster.
pub struct Emulated {
    speedup: f64,
    events: UnboundedSender<BackendEvent>,
    running: Mutex<HashMap<usize, AbortHandle>>,
}

impl Emulated {
    /// An emulated cluster running `speedup` (> 0) service seconds per wall second,
    /// reporting on `events`. Must be built inside a tokio runtime.
    pub fn new(speedup: f64, events: UnboundedSender<BackendEvent>) -> Emulated {
        Emulated {
            speedup,
            events,
            running: Mutex::new(HashMap::new()),
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<usize, AbortHandle>> {
        self.running.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Backend for Emulated {
    fn name(&self) -> &'static str {
        "emulated"
    }

    fn speedup(&self) -> f64 {
        self.speedup
    }

    fn power_on(&self, _vm: VmId) {}

    fn power_off(&self, _vm: VmId) {}

    /// Runs the job for its estimated duration, scaled to wall time. A duration no
    /// timer can hold (submissions are bounded to 10 years, so only a bug gets here) is
    /// reported as a failure, never a panic in the scheduling loop.
    fn launch(&self, job: Launch) {
        let events = self.events.clone();
        let idx = job.idx;
        let Ok(wall) = Duration::try_from_secs_f64((job.duration_s / self.speedup).max(0.0)) else {
            let _ = events.send(BackendEvent::Failed {
                idx,
                reason: format!("run time {} s cannot be emulated", job.duration_s),
            });
            return;
        };
        let task = tokio::spawn(async move {
            tokio::time::sleep(wall).await;
            let _ = events.send(BackendEvent::Finished { idx });
        });
        self.running().insert(idx, task.abort_handle());
    }

    fn add_executors(&self, _job: Launch) {}

    fn stop(&self, idx: usize) {
        if let Some(task) = self.running().remove(&idx) {
            task.abort();
        }
    }

    fn reattach(&self, _job: &Launch) -> bool {
        false
    }

    fn shutdown(&self) {
        for (_, task) in self.running().drain() {
            task.abort();
        }
    }
}
