//! The emulated backend: a cluster in real time, `speedup` service seconds per wall-clock
//! second, on which a job runs for exactly its estimated duration: it ends at service
//! time `start + duration`.
//!
//! Without hosts it is all in-process: power changes do nothing, nothing can fail, and
//! nothing survives a restart, so restarted jobs run again. With hosts (a [`HostFleet`]) the
//! VMs are powered on and off by the provisioner and each job's executors are held by
//! placeholder reservation workers that the VMs' node agents start, report and lose
//! exactly as on the Spark backend: a killed worker or a silent host is lost and its
//! executors are replaced, the agents' reports are the job's observed placement, and a
//! restarted service takes running jobs over (their workers outlive it) and ends them at
//! their original finish time instead of running them again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;
use tokio::task::AbortHandle;

use frugal_core::cluster::VmId;

use super::{Backend, BackendEvent, HostFleet, Launch};
use crate::agent::protocol::{Heartbeat, Orders};
use crate::clock::Clock;

/// Wall-clock milliseconds between two reports of a job's observed placement (with
/// hosts).
const OBSERVE_INTERVAL_MS: u64 = 500;

/// The emulated cluster.
pub struct Emulated {
    speedup: f64,
    events: UnboundedSender<BackendEvent>,
    fleet: Option<Arc<HostFleet>>,
    /// Running jobs by index: their timer and id.
    running: Arc<Mutex<HashMap<usize, (AbortHandle, String)>>>,
}

impl Emulated {
    /// An emulated cluster running `speedup` (> 0) service seconds per wall second,
    /// reporting on `events`, its VMs' hosts run by `fleet` (or in-process without one).
    /// Must be built inside a tokio runtime.
    pub fn new(
        speedup: f64,
        events: UnboundedSender<BackendEvent>,
        fleet: Option<Arc<HostFleet>>,
    ) -> Emulated {
        Emulated {
            speedup,
            events,
            fleet,
            running: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<usize, (AbortHandle, String)>> {
        lock(&self.running)
    }

    /// Runs `job` until service time `start + duration` (at once if that has passed). An
    /// end no timer can hold (submissions are bounded to 10 years, so only a bug gets
    /// here) is reported as a failure, never a panic in the scheduling loop.
    fn run(&self, job: &Launch) {
        let (idx, id) = (job.idx, job.submission.id.clone());
        let left_s = job.start_s + job.duration_s - Clock::new(self.speedup).now();
        let Ok(wall) = Duration::try_from_secs_f64((left_s / self.speedup).max(0.0)) else {
            let _ = self.events.send(BackendEvent::Failed {
                idx,
                reason: format!("run time {} s cannot be emulated", job.duration_s),
            });
            return;
        };
        let (events, fleet, running) = (
            self.events.clone(),
            self.fleet.clone(),
            Arc::clone(&self.running),
        );
        let job_id = id.clone();
        // Held until the task is registered, so that one ending at once cannot remove
        // its entry before it exists.
        let mut registered = self.running();
        let task = tokio::spawn(async move {
            let end = tokio::time::Instant::now() + wall;
            match &fleet {
                Some(fleet) => {
                    report_observed_until(fleet, &job_id, idx, &events, end).await;
                    fleet.forget(&job_id);
                }
                None => tokio::time::sleep_until(end).await,
            }
            lock(&running).remove(&idx);
            let _ = events.send(BackendEvent::Finished { idx });
        });
        registered.insert(idx, (task.abort_handle(), id));
    }
}

/// Until `end`, every [`OBSERVE_INTERVAL_MS`]: reports job `id`'s executors per VM as its
/// hosts' agents report its workers, whenever that changes (and is known).
async fn report_observed_until(
    fleet: &HostFleet,
    id: &str,
    idx: usize,
    events: &UnboundedSender<BackendEvent>,
    end: tokio::time::Instant,
) {
    let mut reported = None;
    while tokio::time::Instant::now() < end {
        let observed = fleet.observed(id);
        if let Some(executors_per_vm) = observed.clone()
            && observed != reported
        {
            let _ = events.send(BackendEvent::Observed {
                idx,
                executors_per_vm,
            });
            reported = observed;
        }
        let next = tokio::time::Instant::now() + Duration::from_millis(OBSERVE_INTERVAL_MS);
        tokio::time::sleep_until(next.min(end)).await;
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Backend for Emulated {
    fn name(&self) -> &'static str {
        "emulated"
    }

    fn speedup(&self) -> f64 {
        self.speedup
    }

    fn power_on(&self, vm: VmId) {
        if let Some(f) = &self.fleet {
            f.power_on(vm);
        }
    }

    fn power_off(&self, vm: VmId) {
        if let Some(f) = &self.fleet {
            f.power_off(vm);
        }
    }

    fn launch(&self, job: Launch) {
        if let Some(f) = &self.fleet {
            f.order(&job, "");
        }
        self.run(&job);
    }

    fn add_executors(&self, job: Launch) {
        if let Some(f) = &self.fleet {
            f.order(&job, "");
        }
    }

    fn stop(&self, idx: usize) {
        if let Some((task, id)) = self.running().remove(&idx) {
            task.abort();
            if let Some(f) = &self.fleet {
                f.forget(&id);
            }
        }
    }

    /// With hosts, takes every running job over (a job whose workers are gone by now is
    /// found lost at the first heartbeats, as any lost worker is); without, none.
    fn reattach(&self, job: &Launch) -> bool {
        let Some(f) = &self.fleet else {
            return false;
        };
        f.reattach(job);
        self.run(job);
        true
    }

    fn restored(&self) {
        if let Some(f) = &self.fleet {
            f.restored();
        }
    }

    fn heartbeat(&self, hb: &Heartbeat) -> Option<Orders> {
        self.fleet.as_ref()?.heartbeat(hb)
    }

    fn shutdown(&self) {
        for (_, (task, _)) in self.running().drain() {
            task.abort();
        }
        if let Some(f) = &self.fleet {
            f.shutdown();
        }
    }
}
