//! frugal-service: the long-running scheduler service (paper 004 §5, paper 000 §7.1).
//! It accepts job submissions over an authenticated HTTP API, stores them durably
//! (SQLite or PostgreSQL), schedules them with the simulator's queues, admission control
//! and placement policies (the same `frugal_core::Scheduler`), and drives a
//! [`backend::Backend`] that runs jobs and powers VMs on and off.
//!
//! Entry points: [`start`] (the service without HTTP, for tests and embedding),
//! [`serve`] (the service behind its HTTP listeners until a signal, or an error exit if
//! the scheduling loop ever stops), [`router`] (the API as an axum router). Times: see
//! [`clock`]. Threat model and protections: `docs/book/src/service/security.md`.

#![warn(missing_docs)]

pub mod agent;
mod api;
pub mod backend;
pub mod clock;
pub mod ledger;
mod metrics;
mod process;
pub mod provision;
mod restore;
mod server;
pub mod spec;
mod state;
mod store;
mod submission;
pub mod whatif;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, mpsc};

pub use api::{API_DOC, router};
pub use restore::restore_state;
pub use spec::ServeSpec;
pub use state::{Effect, Entry, JobState, LOST_VM_QUARANTINE_S, Restored, State};
pub use store::{
    Durability, JobUpdate, SCHEMA_VERSION, StartRecord, Store, StoreError, StoreLimits, StoredJob,
};
pub use submission::{Invalid, Submission};

use agent::Runtime;
use backend::{
    Backend, BackendEvent, Emulated, HostFleet, HostsConfig, Launch, SparkConfig, SparkStandalone,
};
use clock::Clock;
use frugal_core::billing::BillingGranularity;
use frugal_core::cluster::Cluster;
use frugal_core::control::Event;
use frugal_core::placement::Placement;
use frugal_core::policy::PlacementPolicy;
use frugal_core::scheduler::{Scheduler, SchedulerConfig};

/// Which backend runs the jobs.
#[derive(Clone, Debug)]
pub enum BackendConfig {
    /// Emulated cluster in real time, `speedup` (> 0) service seconds per wall second.
    Emulated {
        /// Service seconds per wall-clock second.
        speedup: f64,
        /// The VMs' hosts and their agents; `None`: all in-process.
        hosts: Option<HostsConfig>,
    },
    /// A real Spark standalone cluster over provisioned hosts.
    SparkStandalone(Box<SparkConfig>),
}

/// Bounds that keep the service responsive under overload and slow clients.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Open client connections at most; past it the listener stops accepting until one
    /// closes (new clients wait in the kernel's backlog).
    pub max_connections: usize,
    /// A connection must send a request's headers within this (slowloris).
    pub header_read_timeout: Duration,
    /// A request, body included, must be read and answered within this (408 otherwise).
    pub request_timeout: Duration,
    /// Largest request body, bytes (413 beyond).
    pub max_body_bytes: usize,
    /// Jobs waiting for placement at most; past it submissions get 503 with
    /// `Retry-After` and nothing of them is stored.
    pub max_queued: usize,
    /// Service seconds an ended job stays in memory before only the database has it.
    pub retention_s: f64,
    /// Ended jobs kept in memory at most (the oldest leave first), so memory stays
    /// bounded whatever the submission rate: about 1.3 KiB per job in memory.
    pub max_ended_in_memory: usize,
    /// The store's bounds (submissions waiting for their commit, SQLite WAL size).
    pub store: StoreLimits,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 4096,
            header_read_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(10),
            max_body_bytes: 64 << 10,
            max_queued: 100_000,
            retention_s: 3600.0,
            max_ended_in_memory: 50_000,
            store: StoreLimits::default(),
        }
    }
}

/// Raises the open-file limit to its hard maximum: every client connection is a file
/// descriptor, and the default soft limit (often 1,024) would let a few hundred idle
/// connections starve new clients. The connection cap stays below it.
pub fn raise_file_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
}

/// Settings of the service.
#[derive(Clone, Debug)]
pub struct ServiceConfig {
    /// Address of the API.
    pub bind: SocketAddr,
    /// Another address serving only `/healthz`, `/readyz` and `/metrics` (they are on
    /// the API's address too), e.g. for a monitoring network.
    pub metrics_bind: Option<SocketAddr>,
    /// Database URL: `sqlite:PATH` (created if missing), `sqlite::memory:` or
    /// `postgres://user:password@host:port/database`.
    pub database_url: String,
    /// What an acknowledged submission survives.
    pub durability: Durability,
    /// The cluster (all off at first start).
    pub cluster: Cluster,
    /// Billing granularity.
    pub billing: BillingGranularity,
    /// How long an idle VM stays on before it is turned off (`frugal_core::fleet`).
    pub keep_alive: frugal_core::KeepAlive,
    /// Queue discipline, admission control, backfilling, RUT and duration model.
    pub scheduler: SchedulerConfig,
    /// The placement policy as the command line names it (e.g. `first-fit`,
    /// `rl:agent.safetensors`), recorded with each start for `frugal whatif`.
    pub policy_label: String,
    /// Cap on the fleet's running price, dollars per hour (> 0), if any
    /// ([`Scheduler::set_budget_per_hour`]).
    pub budget_per_hour: Option<f64>,
    /// The backend.
    pub backend: BackendConfig,
    /// The bearer token every API request must carry (all routes but `/healthz`,
    /// `/readyz` and `/metrics`).
    pub token: String,
    /// The bearer token node agents send (`POST /agent/v1/heartbeat`); it grants
    /// nothing else. `None`: the route refuses every request.
    pub agent_token: Option<String>,
    /// The directory submitted applications must be in (`application_path`).
    pub apps_dir: PathBuf,
    /// Bounds.
    pub limits: Limits,
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
    /// The configuration cannot work.
    #[error("configuration: {0}")]
    Config(String),
    /// The scheduling loop stopped (a bug): the process must exit so that its
    /// supervisor restarts it.
    #[error("the scheduling loop stopped: {0}")]
    SchedulerStopped(String),
}

/// The running service, shared by the HTTP handlers and the scheduling loop.
pub struct Service {
    /// Durable store.
    pub store: Store,
    /// Live state (short critical sections only; never held across an await).
    state: Mutex<State>,
    backend: Box<dyn Backend>,
    clock: Clock,
    wake: Notify,
    metrics: metrics::Metrics,
    scheduling: Mutex<Option<tokio::task::AbortHandle>>,
    loop_alive: AtomicBool,
    stopped: Notify,
    stop_reason: Mutex<Option<String>>,
    /// Backend actions waiting for their changes to commit (in order).
    pending: Mutex<Vec<Effect>>,
    token: String,
    agent_token: Option<String>,
    apps_dir: PathBuf,
    limits: Limits,
}

impl Service {
    /// Current service time, seconds (see [`clock`]).
    pub fn now(&self) -> f64 {
        self.clock.now()
    }

    /// The service's clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// Locks the live state (for inspection in tests; keep it short).
    pub fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What the backend needs to run job `idx` on `placement`.
    fn launch_of(&self, idx: usize, placement: Option<Placement>) -> Launch {
        let st = self.lock();
        let e = st.entry(idx);
        Launch {
            idx,
            submission: e.submission.clone(),
            placement: placement
                .or_else(|| e.placement.clone())
                .unwrap_or_default(),
            start_s: e.start.unwrap_or(0.0),
            duration_s: e.finish.unwrap_or(0.0) - e.start.unwrap_or(0.0),
        }
    }

    /// Persists `effects` and waits for the commit, then acts on them (and on actions
    /// held back by an earlier failed commit), in order. If the commit fails, the
    /// actions wait: the writes are retried by the store and the scheduling loop calls
    /// this again until they commit, so the backend never acts on unrecorded changes.
    ///
    /// # Errors
    /// [`StoreError`] if the changes have not committed (they will be).
    async fn apply(&self, effects: Vec<Effect>) -> Result<(), StoreError> {
        let mut actions = Vec::new();
        for e in effects {
            match e {
                Effect::Changed(idx) => self.store.update(self.lock().update_of(idx))?,
                Effect::VmOn(vm, at) => {
                    self.store.vm_on(vm, at)?;
                    actions.push(e);
                }
                Effect::VmOff(vm, at) => {
                    self.store.vm_off(vm, at)?;
                    actions.push(e);
                }
                Effect::VmLost { vm, at, refused } => self.store.vm_event(vm, at, refused)?,
                _ => actions.push(e),
            }
        }
        self.pending_actions().extend(actions);
        if self.pending_actions().is_empty() {
            // Nothing waits on the commit: the writer commits (and retries) it.
            return Ok(());
        }
        self.store.flush().await?;
        let ready = std::mem::take(&mut *self.pending_actions());
        for e in ready {
            match e {
                Effect::Launch(idx) => self.backend.launch(self.launch_of(idx, None)),
                Effect::AddExecutors { idx, placement } => {
                    self.backend
                        .add_executors(self.launch_of(idx, Some(placement)));
                }
                Effect::Stop(idx) => self.backend.stop(idx),
                Effect::VmOn(vm, _) => self.backend.power_on(vm),
                Effect::VmOff(vm, _) => self.backend.power_off(vm),
                Effect::Changed(_) | Effect::VmLost { .. } => {}
            }
        }
        Ok(())
    }

    fn pending_actions(&self) -> std::sync::MutexGuard<'_, Vec<Effect>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
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

    /// True while the scheduling loop runs.
    pub fn scheduler_alive(&self) -> bool {
        self.loop_alive.load(Ordering::SeqCst)
    }

    /// Waits until the scheduling loop has stopped; returns why.
    pub async fn scheduler_stopped(&self) -> String {
        loop {
            let notified = self.stopped.notified();
            if !self.scheduler_alive() {
                return self
                    .stop_reason
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone()
                    .unwrap_or_default();
            }
            notified.await;
        }
    }
}

/// Opens the store and the backend, restores every accepted job — jobs the backend still
/// runs are taken over, other running jobs are queued again — and starts the supervised
/// scheduling loop. Returns the shared service.
///
/// # Errors
/// [`ServiceError::Store`] if the database cannot be opened or read,
/// [`ServiceError::Spark`] if the Spark master cannot be started,
/// [`ServiceError::Config`] for an empty token or a missing applications directory.
pub async fn start(
    cfg: &ServiceConfig,
    policy: Box<dyn PlacementPolicy>,
) -> Result<Arc<Service>, ServiceError> {
    if cfg.token.trim().is_empty() {
        return Err(ServiceError::Config("the API token is empty".into()));
    }
    if !cfg.apps_dir.is_dir() {
        return Err(ServiceError::Config(format!(
            "the applications directory {} does not exist",
            cfg.apps_dir.display()
        )));
    }
    let speedup = match &cfg.backend {
        BackendConfig::Emulated { speedup, .. } => *speedup,
        BackendConfig::SparkStandalone(_) => 1.0,
    };
    if !(speedup.is_finite() && speedup > 0.0) {
        return Err(ServiceError::Config("the speed-up must be > 0".into()));
    }
    if let Some(b) = cfg.budget_per_hour
        && !(b.is_finite() && b > 0.0)
    {
        return Err(ServiceError::Config(format!(
            "the budget must be a number of dollars per hour > 0, not {b}"
        )));
    }
    let clock = Clock::new(speedup);
    let store = Store::open(&cfg.database_url, cfg.durability, clock, cfg.limits.store).await?;
    store
        .record_start(&StartRecord::of(cfg, policy.name(), speedup))
        .await?;
    let (tx, rx) = mpsc::unbounded_channel();
    let backend: Box<dyn Backend> = match &cfg.backend {
        BackendConfig::Emulated { speedup, hosts } => {
            let fleet = match hosts.clone() {
                // Setting up a provisioner may run commands (`ip`): off the runtime.
                Some(h) => {
                    let (vms, tx) = (cfg.cluster.len(), tx.clone());
                    let fleet = tokio::task::spawn_blocking(move || {
                        HostFleet::start(&h, Runtime::Emulated, vms, tx)
                    })
                    .await
                    .map_err(std::io::Error::other)?;
                    Some(fleet.map_err(|e| ServiceError::Config(e.to_string()))?)
                }
                None => None,
            };
            Box::new(Emulated::new(*speedup, tx, fleet))
        }
        BackendConfig::SparkStandalone(spark) => {
            let (spark, vms) = ((**spark).clone(), cfg.cluster.len());
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
        state: Mutex::new(State::new(
            cfg.cluster.emptied(),
            scheduler,
            cfg.billing,
            cfg.keep_alive,
            cfg.budget_per_hour,
        )),
        backend,
        clock,
        wake: Notify::new(),
        metrics: metrics::Metrics::new().with_budget(cfg.budget_per_hour),
        scheduling: Mutex::new(None),
        loop_alive: AtomicBool::new(true),
        stopped: Notify::new(),
        stop_reason: Mutex::new(None),
        pending: Mutex::new(Vec::new()),
        token: cfg.token.clone(),
        agent_token: cfg.agent_token.clone(),
        apps_dir: cfg.apps_dir.clone(),
        limits: cfg.limits,
    });
    let effects = restore(&svc).await?;
    svc.backend.restored();
    svc.apply(effects).await?;
    let task = tokio::spawn(scheduling_loop(Arc::clone(&svc), rx));
    *svc.scheduling.lock().unwrap_or_else(|p| p.into_inner()) = Some(task.abort_handle());
    tokio::spawn(supervise(Arc::clone(&svc), task));
    svc.wake();
    Ok(svc)
}

/// Waits for the scheduling loop to end — it never should — and records it: `/readyz`
/// fails from then on and [`serve`] returns an error, so the process exits non-zero.
async fn supervise(svc: Arc<Service>, task: tokio::task::JoinHandle<()>) {
    let reason = match task.await {
        Ok(()) => "it returned".to_string(),
        Err(e) if e.is_cancelled() => return,
        Err(e) => match e.try_into_panic() {
            Ok(p) => p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "it panicked".to_string()),
            Err(e) => e.to_string(),
        },
    };
    tracing::error!(reason = %reason, "the scheduling loop stopped");
    *svc.stop_reason.lock().unwrap_or_else(|p| p.into_inner()) = Some(reason);
    svc.loop_alive.store(false, Ordering::SeqCst);
    svc.stopped.notify_waiters();
}

/// Rebuilds the live state from the store ([`restore_state`]), reconciling running jobs
/// with the backend.
async fn restore(svc: &Service) -> Result<Vec<Effect>, StoreError> {
    let jobs = svc.store.jobs().await?;
    let intervals = svc.store.vm_intervals().await?;
    let vm_events = svc.store.vm_events().await?;
    let now = svc.now();
    let mut st = svc.lock();
    Ok(restore_state(
        &mut st,
        jobs,
        &intervals,
        &vm_events,
        now,
        &mut |l| svc.backend.reattach(l),
    ))
}

/// Serves the API on `cfg.bind` (and the health and metrics routes on
/// `cfg.metrics_bind`) until SIGINT or SIGTERM, then shuts the backend down.
///
/// # Errors
/// [`ServiceError`] if the store, the backend or a listener fails, or
/// [`ServiceError::SchedulerStopped`] if the scheduling loop ever stops (the caller
/// should exit non-zero).
pub async fn serve(
    cfg: ServiceConfig,
    policy: Box<dyn PlacementPolicy>,
) -> Result<(), ServiceError> {
    let svc = start(&cfg, policy).await?;
    let listener = tokio::net::TcpListener::bind(cfg.bind).await?;
    tracing::info!(address = %listener.local_addr()?, backend = svc.backend_name(), "serving the API");
    let stop = Arc::new(Notify::new());
    let mut servers = tokio::task::JoinSet::new();
    let limits = cfg.limits;
    {
        let (app, stop) = (router(Arc::clone(&svc)), Arc::clone(&stop));
        servers.spawn(async move { server::serve(listener, app, &limits, stop).await });
    }
    if let Some(addr) = cfg.metrics_bind {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        tracing::info!(address = %listener.local_addr()?, "serving health and metrics");
        let (app, stop) = (api::ops_router(Arc::clone(&svc)), Arc::clone(&stop));
        servers.spawn(async move { server::serve(listener, app, &limits, stop).await });
    }
    let outcome = tokio::select! {
        _ = stop_signal() => Ok(()),
        reason = svc.scheduler_stopped() => Err(ServiceError::SchedulerStopped(reason)),
        Some(r) = servers.join_next() => match r {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(ServiceError::Io(e)),
            Err(e) => Err(ServiceError::Io(std::io::Error::other(e))),
        },
    };
    stop.notify_waiters();
    while servers.join_next().await.is_some() {}
    let stopping = Arc::clone(&svc);
    tokio::task::spawn_blocking(move || stopping.shutdown())
        .await
        .map_err(std::io::Error::other)?;
    outcome
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

/// How often the loop evicts ended jobs past their retention.
const EVICT_EVERY: Duration = Duration::from_secs(5);

/// The scheduling loop. Each turn is one instant: the backend's events waiting now and
/// the pass are handled at one service time, so a VM emptied by a job and filled by the
/// next at that instant is never turned off (the controller's rule). It also wakes when
/// an idle VM's keep-alive runs out (or a boot completes, or a lost VM returns).
async fn scheduling_loop(svc: Arc<Service>, mut events: mpsc::UnboundedReceiver<BackendEvent>) {
    let mut evict = tokio::time::interval(EVICT_EVERY);
    loop {
        let retry = !svc.pending_actions().is_empty();
        let timer = svc.lock().next_wake().map(|t| {
            let wall = (t - svc.now()).max(0.0) / svc.clock.speedup();
            std::time::Duration::from_secs_f64(wall.min(3600.0))
        });
        let mut first = None;
        tokio::select! {
            _ = svc.wake.notified() => {}
            Some(ev) = events.recv() => first = Some(ev),
            _ = evict.tick() => {
                let before = svc.now() - svc.limits.retention_s;
                svc.lock().evict(before, svc.limits.max_ended_in_memory);
            }
            _ = tokio::time::sleep(store::RETRY_EVERY), if retry => {}
            _ = tokio::time::sleep(timer.unwrap_or_default()), if timer.is_some() => {}
        }
        let now = svc.now();
        let mut effects = Vec::new();
        if let Some(ev) = first {
            effects.extend(handle(&svc, ev, now));
        }
        while let Ok(ev) = events.try_recv() {
            effects.extend(handle(&svc, ev, now));
        }
        let (times, costs) = {
            let mut st = svc.lock();
            effects.extend(st.schedule(now));
            (st.take_decision_times(), st.ledger.take_new())
        };
        svc.metrics.observe_decisions(&times);
        svc.metrics.observe_costs(&costs);
        if let Err(e) = svc.apply(effects).await {
            tracing::warn!(error = %e, "changes not committed yet; their actions wait");
        }
    }
}

fn handle(svc: &Service, ev: BackendEvent, now: f64) -> Vec<Effect> {
    let mut st = svc.lock();
    let event = match ev {
        BackendEvent::Finished { idx } => Event::Finish {
            job: idx,
            state: JobState::Completed,
            reason: None,
        },
        BackendEvent::Failed { idx, reason } => Event::Finish {
            job: idx,
            state: JobState::Failed,
            reason: Some(reason),
        },
        BackendEvent::Lost { idx, vm, executors } => Event::ExecutorsLost {
            job: idx,
            vm,
            executors,
        },
        BackendEvent::VmLost { vm, reason } => Event::VmLost { vm, reason },
        BackendEvent::PowerOnFailed { vm, reason } => Event::PowerOnRefused { vm, reason },
        BackendEvent::Observed {
            idx,
            executors_per_vm,
        } => return st.observed(idx, executors_per_vm),
    };
    st.handle(event, now)
}
