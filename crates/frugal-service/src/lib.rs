//! frugal-service: the long-running scheduler service. It accepts job submissions over
//! HTTP, keeps them durably in SQLite, schedules them with the simulator's queues,
//! admission control and placement policies (the same `frugal_core::Scheduler`), and
//! drives a backend that runs jobs and powers VMs on and off.
//!
//! Backend: `emulated` — an in-process cluster in real time, `speedup` service seconds
//! per wall second. Time is in service seconds: wall-clock seconds since the Unix epoch
//! times `speedup`, so it keeps running across restarts.

#![warn(missing_docs)]

mod api;
mod state;
mod store;
mod submission;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::sync::{Notify, mpsc};

pub use api::router;
pub use state::{Effect, JobState, State};
pub use store::Store;
pub use submission::{Invalid, Submission};

use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::Cluster;
use frugal_core::policy::PlacementPolicy;
use frugal_core::scheduler::{Scheduler, SchedulerConfig};

/// Settings of the service.
#[derive(Clone, Debug)]
pub struct ServiceConfig {
    /// Address to listen on.
    pub bind: SocketAddr,
    /// Database URL: `sqlite:PATH` (created if missing) or `sqlite::memory:`.
    pub database_url: String,
    /// The cluster (all off at first start).
    pub cluster: Cluster,
    /// Billing granularity.
    pub billing: BillingGranularity,
    /// Queue discipline, admission control, RUT and duration model.
    pub scheduler: SchedulerConfig,
    /// Emulated backend: service seconds per wall-clock second (> 0).
    pub speedup: f64,
}

/// Errors of the service.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The database failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    /// Binding or serving failed.
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
}

/// The running service, shared by the HTTP handlers and the scheduling loop.
pub struct Service {
    /// Durable store.
    pub store: Store,
    /// Live state (short critical sections only; never held across an await).
    pub state: Mutex<State>,
    wake: Notify,
    done: mpsc::UnboundedSender<usize>,
    speedup: f64,
    metrics: api::Metrics,
    scheduling: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Service {
    /// Current service time, seconds.
    pub fn now(&self) -> f64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs_f64()
            * self.speedup
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Persists and acts on `effects`.
    async fn apply(self: &Arc<Self>, effects: Vec<Effect>) -> Result<(), sqlx::Error> {
        for e in effects {
            match e {
                Effect::Started { idx, duration } => {
                    let svc = Arc::clone(self);
                    let wall = Duration::from_secs_f64((duration / self.speedup).max(0.0));
                    tokio::spawn(async move {
                        tokio::time::sleep(wall).await;
                        let _ = svc.done.send(idx);
                    });
                }
                Effect::Changed(idx) => {
                    let (id, state, placement, start, finish, reason) = {
                        let st = self.lock();
                        let en = &st.entries[idx];
                        let placement = en.placement.as_ref().map(|p| {
                            serde_json::to_string(&p.executors_per_vm)
                                .expect("placements serialise")
                        });
                        (
                            en.submission.id.clone(),
                            en.state,
                            placement,
                            en.start,
                            en.finish,
                            en.reason.clone(),
                        )
                    };
                    self.store
                        .update(
                            &id,
                            state.as_str(),
                            placement.as_deref(),
                            start,
                            finish,
                            reason.as_deref(),
                        )
                        .await?;
                }
                Effect::VmOn(vm, at) => self.store.vm_on(vm, at).await?,
                Effect::VmOff(vm, at) => self.store.vm_off(vm, at).await?,
            }
        }
        Ok(())
    }

    /// Stops the scheduling loop where it is, without persisting anything more — what a
    /// crash does (for tests of recovery within one process).
    pub fn halt(&self) {
        if let Some(task) = self
            .scheduling
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            task.abort();
        }
    }

    /// Wakes the scheduling loop (after a submission).
    pub fn wake(&self) {
        self.wake.notify_one();
    }
}

/// Opens the store, restores every accepted job (jobs that were queued or running are
/// queued again: the emulated backend does not survive a restart) and starts the
/// scheduling loop. Returns the shared service.
///
/// # Errors
/// [`ServiceError::Db`] if the database cannot be opened or read.
pub async fn start(
    cfg: &ServiceConfig,
    policy: Box<dyn PlacementPolicy>,
) -> Result<Arc<Service>, ServiceError> {
    let store = Store::open(&cfg.database_url).await?;
    let scheduler = Scheduler::new(policy, cfg.scheduler);
    let (tx, rx) = mpsc::unbounded_channel();
    let svc = Arc::new(Service {
        store,
        state: Mutex::new(State::new(cfg.cluster.emptied(), scheduler, cfg.billing)),
        wake: Notify::new(),
        done: tx,
        speedup: cfg.speedup,
        metrics: api::Metrics::new(),
        scheduling: Mutex::new(None),
    });
    let now = svc.now();
    let stored = svc.store.jobs().await?;
    let intervals = svc.store.vm_intervals().await?;
    let mut effects = svc.lock().restore_power(&intervals, now);
    for s in stored {
        let job = s.submission.job(s.arrival);
        let restored = JobState::parse(&s.state).unwrap_or(JobState::Queued);
        let state = if matches!(restored, JobState::Running) {
            JobState::Queued
        } else {
            restored
        };
        let mut st = svc.lock();
        let idx = st.add(s.submission, job, state);
        let en = &mut st.entries[idx];
        if restored == JobState::Running {
            en.reason = Some("re-queued after a restart".into());
            effects.push(Effect::Changed(idx));
        } else if state != JobState::Queued {
            en.start = s.start;
            en.finish = s.finish;
            en.reason = s.reason;
            en.placement = s
                .placement
                .and_then(|p| serde_json::from_str(&p).ok())
                .map(|v| frugal_core::Placement {
                    executors_per_vm: v,
                });
        }
    }
    svc.apply(effects).await?;
    let task = tokio::spawn(scheduling_loop(Arc::clone(&svc), rx));
    *svc.scheduling.lock().unwrap_or_else(|p| p.into_inner()) = Some(task);
    svc.wake();
    Ok(svc)
}

/// Serves the HTTP API on `cfg.bind` until the process ends.
///
/// # Errors
/// [`ServiceError`] if the store or the listener fails.
pub async fn serve(
    cfg: ServiceConfig,
    policy: Box<dyn PlacementPolicy>,
) -> Result<(), ServiceError> {
    let svc = start(&cfg, policy).await?;
    let listener = tokio::net::TcpListener::bind(cfg.bind).await?;
    axum::serve(listener, router(svc)).await?;
    Ok(())
}

async fn scheduling_loop(svc: Arc<Service>, mut done: mpsc::UnboundedReceiver<usize>) {
    loop {
        let mut effects = Vec::new();
        tokio::select! {
            _ = svc.wake.notified() => {}
            Some(idx) = done.recv() => {
                let now = svc.now();
                effects.extend(svc.lock().finish(idx, now, JobState::Completed));
            }
        }
        while let Ok(idx) = done.try_recv() {
            let now = svc.now();
            effects.extend(svc.lock().finish(idx, now, JobState::Completed));
        }
        let now = svc.now();
        effects.extend(svc.lock().schedule(now));
        if let Err(e) = svc.apply(effects).await {
            eprintln!("frugal serve: could not persist a change: {e}");
        }
    }
}
