//! frugal-service: the long-running scheduler service (paper 004 §5, paper 000 §7.1).
//! It accepts job submissions over HTTP, stores them durably (SQLite or PostgreSQL),
//! schedules them with the simulator's queues, admission control and placement policies
//! (the same `frugal_core::Scheduler`), and drives a [`backend::Backend`] that runs jobs
//! and powers VMs on and off.
//!
//! Time is in service seconds: wall-clock seconds since the Unix epoch times the
//! backend's speed-up (1 on real clusters), so it keeps running across restarts.

#![warn(missing_docs)]

mod api;
pub mod backend;
mod state;
mod store;
mod submission;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use tokio::sync::{Notify, mpsc};

pub use api::router;
pub use state::{Effect, JobState, Restored, State};
pub use store::{Durability, Store, StoreError, StoredJob};
pub use submission::{Invalid, Submission};

use backend::{Backend, BackendEvent, Emulated, Launch, SparkConfig, SparkStandalone};
use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::Cluster;
use frugal_core::placement::Placement;
use frugal_core::policy::PlacementPolicy;
use frugal_core::scheduler::{Scheduler, SchedulerConfig};

/// Which backend runs the jobs.
#[derive(Clone, Debug)]
pub enum BackendConfig {
    /// In-process cluster in real time, `speedup` (> 0) service seconds per wall second.
    Emulated {
        /// Service seconds per wall-clock second.
        speedup: f64,
    },
    /// A real Spark standalone cluster on loopback.
    SparkStandalone(SparkConfig),
}

/// Settings of the service.
#[derive(Clone, Debug)]
pub struct ServiceConfig {
    /// Address to listen on.
    pub bind: SocketAddr,
    /// Database URL: `sqlite:PATH` (created if missing), `sqlite::memory:` or
    /// `postgres://user:password@host:port/database`.
    pub database_url: String,
    /// What an acknowledged submission survives.
    pub durability: Durability,
    /// The cluster (all off at first start).
    pub cluster: Cluster,
    /// Billing granularity.
    pub billing: BillingGranularity,
    /// Queue discipline, admission control, RUT and duration model.
    pub scheduler: SchedulerConfig,
    /// The backend.
    pub backend: BackendConfig,
}

/// Errors of the service.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The backend could not be set up.
    #[error(transparent)]
    Spark(#[from] backend::SparkError),
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
    backend: Box<dyn Backend>,
    wake: Notify,
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
            * self.backend.speedup()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What the backend needs to run job `idx` on `placement`.
    fn launch_of(&self, idx: usize, placement: Option<Placement>) -> Launch {
        let st = self.lock();
        let e = &st.entries[idx];
        Launch {
            idx,
            submission: e.submission.clone(),
            placement: placement
                .or_else(|| e.placement.clone())
                .unwrap_or_default(),
            duration_s: e.finish.unwrap_or(0.0) - e.start.unwrap_or(0.0),
        }
    }

    /// Persists `effects` (waiting for the commit), then acts on them.
    async fn apply(&self, effects: Vec<Effect>) -> Result<(), StoreError> {
        if effects.is_empty() {
            return Ok(());
        }
        for e in &effects {
            match *e {
                Effect::Changed(idx) => self.store.update(self.lock().update_of(idx))?,
                Effect::VmOn(vm, at) => self.store.vm_on(vm, at)?,
                Effect::VmOff(vm, at) => self.store.vm_off(vm, at)?,
                _ => {}
            }
        }
        self.store.flush().await?;
        for e in effects {
            match e {
                Effect::Launch(idx) => self.backend.launch(self.launch_of(idx, None)),
                Effect::AddExecutors { idx, placement } => {
                    self.backend
                        .add_executors(self.launch_of(idx, Some(placement)));
                }
                Effect::Stop(idx) => self.backend.stop(idx),
                Effect::VmOn(vm, _) => self.backend.power_on(vm),
                Effect::VmOff(vm, _) => self.backend.power_off(vm),
                Effect::Changed(_) => {}
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

    /// Stops the scheduling loop and everything the backend started (clean shutdown;
    /// running jobs run again after the next start).
    pub fn shutdown(&self) {
        self.halt();
        self.backend.shutdown();
    }

    /// Wakes the scheduling loop (after a submission).
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// The backend's name.
    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }
}

/// Opens the store and the backend, restores every accepted job — jobs the backend still
/// runs are taken over, other running jobs are queued again — and starts the scheduling
/// loop. Returns the shared service.
///
/// # Errors
/// [`ServiceError::Store`] if the database cannot be opened or read,
/// [`ServiceError::Spark`] if the Spark master cannot be started.
pub async fn start(
    cfg: &ServiceConfig,
    policy: Box<dyn PlacementPolicy>,
) -> Result<Arc<Service>, ServiceError> {
    let store = Store::open(&cfg.database_url, cfg.durability).await?;
    let (tx, rx) = mpsc::unbounded_channel();
    let backend: Box<dyn Backend> = match &cfg.backend {
        BackendConfig::Emulated { speedup } => Box::new(Emulated::new(*speedup, tx)),
        BackendConfig::SparkStandalone(spark) => {
            let (spark, vms) = (spark.clone(), cfg.cluster.len());
            Box::new(
                tokio::task::spawn_blocking(move || SparkStandalone::start(spark, vms, tx))
                    .await
                    .map_err(std::io::Error::other)??,
            )
        }
    };
    let scheduler = Scheduler::new(policy, cfg.scheduler);
    let svc = Arc::new(Service {
        store,
        state: Mutex::new(State::new(cfg.cluster.emptied(), scheduler, cfg.billing)),
        backend,
        wake: Notify::new(),
        metrics: api::Metrics::new(),
        scheduling: Mutex::new(None),
    });
    let effects = restore(&svc).await?;
    svc.apply(effects).await?;
    let task = tokio::spawn(scheduling_loop(Arc::clone(&svc), rx));
    *svc.scheduling.lock().unwrap_or_else(|p| p.into_inner()) = Some(task);
    svc.wake();
    Ok(svc)
}

/// Rebuilds the live state from the store, reconciling running jobs with the backend.
async fn restore(svc: &Service) -> Result<Vec<Effect>, StoreError> {
    let now = svc.now();
    let mut effects = Vec::new();
    for s in svc.store.jobs().await? {
        let job = s.submission.job(s.arrival);
        let restored = JobState::parse(&s.state).unwrap_or(JobState::Queued);
        let parse = |p: Option<String>| -> Option<Vec<(u32, u32)>> {
            p.and_then(|p| serde_json::from_str(&p).ok())
        };
        let placement = parse(s.placement).map(|v| Placement {
            executors_per_vm: v,
        });
        if restored == JobState::Running
            && let Some(placement) = placement.clone()
        {
            let launch = Launch {
                idx: svc.lock().entries.len(),
                submission: s.submission.clone(),
                placement: placement.clone(),
                duration_s: s.finish.unwrap_or(0.0) - s.start.unwrap_or(0.0),
            };
            if svc.backend.reattach(&launch) {
                let r = Restored {
                    placement,
                    start: s.start,
                    finish: s.finish,
                    observed: parse(s.observed),
                };
                svc.lock().add_running(s.submission, job, r);
                continue;
            }
        }
        let mut st = svc.lock();
        if restored == JobState::Running {
            let idx = st.add(s.submission, job, JobState::Queued);
            st.entries[idx].reason = Some("re-queued after a restart".into());
            effects.push(Effect::Changed(idx));
            continue;
        }
        let idx = st.add(s.submission, job, restored);
        if restored != JobState::Queued {
            let en = &mut st.entries[idx];
            en.start = s.start;
            en.finish = s.finish;
            en.reason = s.reason;
            en.placement = placement;
            en.observed = parse(s.observed);
        }
    }
    let intervals = svc.store.vm_intervals().await?;
    effects.extend(svc.lock().restore_power(&intervals, now));
    Ok(effects)
}

/// Serves the HTTP API on `cfg.bind` until SIGINT or SIGTERM, then shuts the backend
/// down.
///
/// # Errors
/// [`ServiceError`] if the store, the backend or the listener fails.
pub async fn serve(
    cfg: ServiceConfig,
    policy: Box<dyn PlacementPolicy>,
) -> Result<(), ServiceError> {
    let svc = start(&cfg, policy).await?;
    let listener = tokio::net::TcpListener::bind(cfg.bind).await?;
    axum::serve(listener, router(Arc::clone(&svc)))
        .with_graceful_shutdown(stop_signal())
        .await?;
    let stopping = Arc::clone(&svc);
    tokio::task::spawn_blocking(move || stopping.shutdown())
        .await
        .map_err(std::io::Error::other)?;
    Ok(())
}

async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

async fn scheduling_loop(svc: Arc<Service>, mut events: mpsc::UnboundedReceiver<BackendEvent>) {
    loop {
        let mut effects = Vec::new();
        tokio::select! {
            _ = svc.wake.notified() => {}
            Some(ev) = events.recv() => effects.extend(handle(&svc, ev)),
        }
        while let Ok(ev) = events.try_recv() {
            effects.extend(handle(&svc, ev));
        }
        let now = svc.now();
        let times = {
            let mut st = svc.lock();
            effects.extend(st.schedule(now));
            st.take_decision_times()
        };
        svc.metrics.observe_decisions(&times);
        if let Err(e) = svc.apply(effects).await {
            eprintln!("frugal serve: could not persist a change: {e}");
        }
    }
}

fn handle(svc: &Service, ev: BackendEvent) -> Vec<Effect> {
    let now = svc.now();
    let mut st = svc.lock();
    match ev {
        BackendEvent::Finished { idx } => st.finish(idx, now, JobState::Completed, None),
        BackendEvent::Failed { idx, reason } => st.finish(idx, now, JobState::Failed, Some(reason)),
        BackendEvent::Lost { idx, vm } => st.lost(idx, vm, now),
        BackendEvent::Observed {
            idx,
            executors_per_vm,
        } => st.observed(idx, executors_per_vm),
    }
}
