//! Durable state: accepted jobs with their state and placement, and VM power history, in
//! SQLite (the default, WAL journal) or PostgreSQL, chosen by URL.
//!
//! Every write goes through one writer task on its own connection, which commits
//! whatever has queued up as one transaction (group commit): under load one flush
//! covers many submissions, and a submission is acknowledged only after its transaction
//! committed. A failed transaction is rolled back (the connection is replaced if even
//! that fails); its submissions are refused (the API answers 503), its other writes —
//! state changes and power records — are kept and committed with the next transaction,
//! retried every [`RETRY_EVERY`] until the database accepts writes again (e.g. after a
//! full disk has room again). The schema is versioned with sqlx migrations; a database
//! with a newer schema than this build knows is refused. Times are stored as wall-clock
//! Unix seconds (the [`Clock`] converts).

mod writer;

use frugal_core::spec::Choice;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions, install_default_drivers};
use sqlx::migrate::{MigrateError, Migration, MigrationType, Migrator};
use sqlx::{AnyConnection, AnyPool, ConnectOptions, SqlSafeStr};
use tokio::sync::{Semaphore, mpsc, oneshot};

use frugal_core::cluster::VmId;
use frugal_core::lifecycle::JobState;
use frugal_core::{Backfill, ClusterConfig, DurationModel, QueueDiscipline, Rut, SchedulerConfig};
use serde::{Deserialize, Serialize};

use crate::clock::Clock;
use crate::submission::Submission;
use writer::{Write, writer};

/// How long a failed write waits before it is retried.
pub const RETRY_EVERY: Duration = Duration::from_millis(500);

/// How long opening the database may take before start-up fails.
pub const OPEN_TIMEOUT: Duration = Duration::from_secs(2);

/// What an acknowledged write survives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// A crash of the service process, SIGKILL included: commits reach the OS before
    /// they are acknowledged (SQLite `synchronous = NORMAL` in WAL mode; PostgreSQL
    /// `synchronous_commit = off`, whose server flushes within 0.6 s).
    #[default]
    Process,
    /// Also an OS crash or power loss: every commit is flushed to disk before it is
    /// acknowledged (SQLite `synchronous = FULL`; PostgreSQL `synchronous_commit = on`).
    Power,
}

frugal_core::choice! {
    impl Choice for Durability {
        Process = "process": "A crash of frugal, SIGKILL included",
        Power = "power": "Also an OS crash or power loss (a disk flush per commit)",
    }
}

/// Bounds of the store.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StoreLimits {
    /// Submissions waiting for their commit at once; more are refused
    /// ([`StoreError::Busy`]).
    pub max_pending_inserts: usize,
    /// SQLite: WAL size in bytes past which the writer truncates it (the WAL stays under
    /// this plus a tenth of a second of writes).
    pub wal_limit_bytes: u64,
}

impl Default for StoreLimits {
    fn default() -> Self {
        StoreLimits {
            max_pending_inserts: 16_384,
            wal_limit_bytes: 128 << 20,
        }
    }
}

/// A stored job.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredJob {
    /// Acceptance order (the listing cursor).
    pub seq: i64,
    /// The submission as accepted.
    pub submission: Submission,
    /// Submission time, service seconds.
    pub arrival: f64,
    /// When the scheduler first passed the queue with it, service seconds (databases of
    /// schema 3 and older: unknown).
    pub offered_at: Option<f64>,
    /// Its state (stored by name; an unknown name is refused when read).
    pub state: JobState,
    /// Executors per VM, if started (stored as JSON `[[vm, executors], …]`).
    pub placement: Option<Vec<(VmId, u32)>>,
    /// Start, service seconds.
    pub start: Option<f64>,
    /// Finish (or estimated finish while running), service seconds.
    pub finish: Option<f64>,
    /// Why it failed, was dropped or re-queued.
    pub reason: Option<String>,
    /// Executors per VM as last reported by the backend.
    pub observed: Option<Vec<(VmId, u32)>>,
    /// Cost of its placement (paper 000 Eq. 16), dollars, if measured.
    pub chosen_cost: Option<f64>,
    /// Cost of the exact optimum at the same instant, dollars, if measured.
    pub optimal_cost: Option<f64>,
}

/// What a listing shows of a stored job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobBrief {
    /// Acceptance order (the listing cursor).
    pub seq: i64,
    /// Job id.
    pub id: String,
    /// Its state.
    pub state: JobState,
    /// Submission time, service seconds.
    pub arrival: f64,
    /// Start, service seconds.
    pub start: Option<f64>,
    /// Finish (or estimated finish while running), service seconds.
    pub finish: Option<f64>,
}

/// The configuration the service started with, stored at each start (table
/// `service_starts`) so that `frugal whatif` can replay the history under it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartRecord {
    /// The frugal version that started.
    pub frugal: String,
    /// The cluster, with its billing granularity and exact prices.
    pub cluster: ClusterConfig,
    /// The placement policy as the command line names it.
    pub policy: String,
    /// Queue discipline (`fcfs`, `edf`, …).
    pub queue: String,
    /// Deadline admission control.
    pub admission_control: bool,
    /// Backfilling: `none` or `easy` ([`Backfill`]'s names; records of older versions say
    /// `off` for `none`).
    pub backfill: String,
    /// RUT thresholds.
    pub rut: Rut,
    /// Completion-time model.
    pub duration: DurationModel,
    /// VM boot latency the scheduler assumed, seconds.
    pub boot_latency_s: f64,
    /// Service seconds per wall second.
    pub speedup: f64,
    /// Cap on the fleet's price, dollars per hour.
    pub budget_per_hour: Option<f64>,
    /// How long an idle VM stayed on (records of older versions: 0 s, which they did).
    #[serde(default)]
    pub keep_alive: frugal_core::KeepAlive,
}

impl StartRecord {
    /// The record of `cfg` (its policy named `policy` if it has no label) at `speedup`.
    pub fn of(cfg: &crate::ServiceConfig, policy: &str, speedup: f64) -> StartRecord {
        let s = &cfg.scheduler;
        StartRecord {
            frugal: env!("CARGO_PKG_VERSION").to_string(),
            cluster: ClusterConfig::of(&cfg.cluster, cfg.billing),
            policy: if cfg.policy_label.is_empty() {
                policy.to_string()
            } else {
                cfg.policy_label.clone()
            },
            queue: s.discipline.name().to_string(),
            admission_control: s.admission_control,
            backfill: s.backfill.to_string(),
            rut: s.rut,
            duration: s.duration,
            boot_latency_s: s.boot_latency_s,
            speedup,
            budget_per_hour: cfg.budget_per_hour,
            keep_alive: cfg.keep_alive,
        }
    }

    /// The scheduler settings it records.
    ///
    /// # Errors
    /// A message naming the field that this frugal does not know.
    pub fn scheduler(&self) -> Result<SchedulerConfig, String> {
        Ok(SchedulerConfig {
            discipline: QueueDiscipline::from_name(&self.queue)
                .map_err(|e| format!("queue {:?} is unknown: {e}", self.queue))?,
            admission_control: self.admission_control,
            rut: self.rut,
            duration: self.duration,
            boot_latency_s: self.boot_latency_s,
            charge_decision_time: false,
            // `off` is how stores written before one spelling named `none`.
            backfill: match self.backfill.as_str() {
                "off" => Backfill::None,
                b => b
                    .parse()
                    .map_err(|e| format!("backfill {b:?} is unknown: {e}"))?,
            },
        })
    }
}

/// A job's new state, to persist.
#[derive(Clone, Debug, PartialEq)]
pub struct JobUpdate {
    /// Job id.
    pub id: String,
    /// Its state.
    pub state: JobState,
    /// Executors per VM.
    pub placement: Option<Vec<(VmId, u32)>>,
    /// Start, service seconds.
    pub start: Option<f64>,
    /// Finish, service seconds.
    pub finish: Option<f64>,
    /// Reason of a failure, drop or re-queue.
    pub reason: Option<String>,
    /// Observed executors per VM.
    pub observed: Option<Vec<(VmId, u32)>>,
    /// Cost of its placement, dollars.
    pub chosen_cost: Option<f64>,
    /// Cost of the optimum at the same instant, dollars.
    pub optimal_cost: Option<f64>,
    /// When the scheduler first passed the queue with it, service seconds.
    pub offered_at: Option<f64>,
}

/// Errors of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot be opened or read at start-up (names it).
    #[error("database {db}: {message}")]
    Open {
        /// The database (file path or URL without password).
        db: String,
        /// What failed.
        message: String,
    },
    /// The database refused a statement or the connection failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    /// The transaction holding this write failed (the message is the database's).
    #[error("database: the transaction failed: {0}")]
    Batch(String),
    /// Too many submissions are waiting for their commit.
    #[error("database: too many submissions waiting for their commit")]
    Busy,
    /// The writer task is gone (the service is shutting down).
    #[error("database: the writer has stopped")]
    Closed,
    /// A stored submission no longer parses (the row's id is given).
    #[error("database: stored job {id}: {message}")]
    Corrupt {
        /// Job id of the row.
        id: String,
        /// What failed to parse.
        message: String,
    },
}

/// What the writer and the checkpointer share: whether the last transaction committed,
/// and whether the WAL has outgrown its limit (the writer then truncates it).
#[derive(Debug, Default)]
pub(crate) struct Health {
    failing: AtomicBool,
    pub(crate) wal_over_limit: AtomicBool,
}

impl Health {
    pub(crate) fn set(&self, ok: bool) {
        self.failing.store(!ok, Ordering::Relaxed);
    }

    fn ok(&self) -> bool {
        !self.failing.load(Ordering::Relaxed)
    }
}

/// The database.
#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    writes: mpsc::UnboundedSender<Write>,
    pending: Arc<Semaphore>,
    health: Arc<Health>,
    clock: Clock,
}

/// The SQL of each schema version for one database kind.
fn migrator(sqlite: bool) -> Migrator {
    let v = |version: i64, name: &'static str, sql: &'static str| {
        Migration::new(
            version,
            name.into(),
            MigrationType::Simple,
            sql.into_sql_str(),
            false,
        )
    };
    Migrator::with_migrations(if sqlite {
        vec![
            v(
                1,
                "jobs and vm_power",
                include_str!("../../migrations/sqlite/0001_jobs_and_vm_power.sql"),
            ),
            v(
                2,
                "listing indexes",
                include_str!("../../migrations/sqlite/0002_listing_indexes.sql"),
            ),
            v(
                3,
                "decision costs and service starts",
                include_str!("../../migrations/sqlite/0003_decision_costs_and_starts.sql"),
            ),
            v(
                4,
                "vm events",
                include_str!("../../migrations/sqlite/0004_vm_events.sql"),
            ),
            v(
                5,
                "offered_at",
                include_str!("../../migrations/sqlite/0005_offered_at.sql"),
            ),
        ]
    } else {
        vec![
            v(
                1,
                "jobs and vm_power",
                include_str!("../../migrations/postgres/0001_jobs_and_vm_power.sql"),
            ),
            v(
                2,
                "listing indexes",
                include_str!("../../migrations/postgres/0002_listing_indexes.sql"),
            ),
            v(
                3,
                "decision costs and service starts",
                include_str!("../../migrations/postgres/0003_decision_costs_and_starts.sql"),
            ),
            v(
                4,
                "vm events",
                include_str!("../../migrations/postgres/0004_vm_events.sql"),
            ),
            v(
                5,
                "offered_at",
                include_str!("../../migrations/postgres/0005_offered_at.sql"),
            ),
        ]
    })
}

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 5;

/// The per-connection settings for `durability`.
fn settings(sqlite: bool, durability: Durability) -> &'static str {
    match (sqlite, durability) {
        (true, Durability::Process) => {
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;
             PRAGMA busy_timeout = 5000"
        }
        (true, Durability::Power) => {
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA wal_autocheckpoint = 0;
             PRAGMA busy_timeout = 5000"
        }
        (false, Durability::Process) => "SET synchronous_commit = off",
        (false, Durability::Power) => "SET synchronous_commit = on",
    }
}

/// How errors name the database: the SQLite file, or the URL without its password.
fn describe(url: &str) -> String {
    if let Some(path) = url.strip_prefix("sqlite:") {
        return path.split('?').next().unwrap_or(path).to_string();
    }
    match url.split_once('@') {
        Some((scheme_user, host)) => {
            let user = scheme_user.split(':').take(2).collect::<Vec<_>>().join(":");
            format!("{user}@{host}")
        }
        None => url.to_string(),
    }
}

/// Creates the SQLite file of `url` readable and writable by its owner only (0600) if it
/// does not exist yet: it holds every job, their arguments included. SQLite gives its WAL
/// and shared-memory files the database file's permissions. An existing file keeps its
/// own.
fn create_private(url: &str) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = url.strip_prefix("sqlite:").unwrap_or(url);
    let path = path.split('?').next().unwrap_or(path);
    // `sqlite://PATH` and `sqlite:PATH` name the same file.
    let path = path.strip_prefix("//").unwrap_or(path);
    if path.is_empty() || std::path::Path::new(path).exists() {
        return Ok(());
    }
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Opens one connection with the durability settings applied.
async fn connect(url: &str, durability: Durability) -> Result<AnyConnection, sqlx::Error> {
    let sqlite = url.starts_with("sqlite:");
    let mut conn = AnyConnectOptions::from_url(&url.parse().map_err(sqlx::Error::config)?)?
        .disable_statement_logging()
        .connect()
        .await?;
    sqlx::raw_sql(settings(sqlite, durability))
        .execute(&mut conn)
        .await?;
    Ok(conn)
}

impl Store {
    /// Opens the database at `url` — `sqlite:PATH` (the file is created if missing),
    /// `sqlite::memory:` or `postgres://user:password@host:port/database` — within
    /// `OPEN_TIMEOUT` (2 s), brings its schema to [`SCHEMA_VERSION`], and starts the writer
    /// (and, for SQLite, the checkpointer) on the current tokio runtime. Acknowledged
    /// writes survive what `durability` says.
    ///
    /// # Errors
    /// [`StoreError::Open`] naming the database if it cannot be reached or read in time,
    /// is not a database (a corrupt file), or has a newer schema than this build.
    pub async fn open(
        url: &str,
        durability: Durability,
        clock: Clock,
        limits: StoreLimits,
    ) -> Result<Store, StoreError> {
        install_default_drivers();
        let db = describe(url);
        let open_err = |message: String| StoreError::Open {
            db: db.clone(),
            message,
        };
        let sqlite = url.starts_with("sqlite:");
        if sqlite && !url.contains("memory") {
            create_private(url).map_err(|e| open_err(e.to_string()))?;
        }
        let url = if sqlite && !url.contains("memory") && !url.contains('?') {
            format!("{url}?mode=rwc")
        } else {
            url.to_string()
        };
        let mut conn = tokio::time::timeout(OPEN_TIMEOUT, connect(&url, durability))
            .await
            .map_err(|_| open_err(format!("no answer within {OPEN_TIMEOUT:?}")))?
            .map_err(|e| open_err(e.to_string()))?;
        tokio::time::timeout(OPEN_TIMEOUT, migrator(sqlite).run(&mut conn))
            .await
            .map_err(|_| open_err(format!("schema check took over {OPEN_TIMEOUT:?}")))?
            .map_err(|e| {
                open_err(match e {
                    MigrateError::VersionMissing(v) => format!(
                        "its schema version {v} is newer than this frugal's {SCHEMA_VERSION}: \
                         use the frugal that wrote it, or a newer one"
                    ),
                    e => e.to_string(),
                })
            })?;
        let pool = AnyPoolOptions::new()
            .max_connections(if sqlite { 2 } else { 4 })
            .acquire_timeout(OPEN_TIMEOUT)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    sqlx::raw_sql(settings(sqlite, durability))
                        .execute(conn)
                        .await?;
                    Ok(())
                })
            })
            .connect(&url)
            .await
            .map_err(|e| open_err(e.to_string()))?;
        let (tx, rx) = mpsc::unbounded_channel();
        let health = Arc::new(Health::default());
        tokio::spawn(writer(
            conn,
            url.clone(),
            durability,
            rx,
            Arc::clone(&health),
        ));
        if sqlite {
            tokio::spawn(writer::checkpointer(
                pool.clone(),
                tx.downgrade(),
                limits.wal_limit_bytes,
                Arc::clone(&health),
            ));
        }
        Ok(Store {
            pool,
            writes: tx,
            pending: Arc::new(Semaphore::new(limits.max_pending_inserts)),
            health,
            clock,
        })
    }

    /// Stores a new job as `queued` (submitted at `arrival`, service seconds) and waits
    /// for the commit; returns false if the id exists already.
    ///
    /// # Errors
    /// [`StoreError::Busy`] past `max_pending_inserts`, [`StoreError::Batch`] if its
    /// transaction failed (nothing of it is stored), [`StoreError::Closed`] at shutdown.
    pub async fn insert(&self, s: &Submission, arrival: f64) -> Result<bool, StoreError> {
        let _permit = self.pending.try_acquire().map_err(|_| StoreError::Busy)?;
        let (ack, done) = oneshot::channel();
        self.send(Write::Insert {
            id: s.id.clone(),
            submission: serde_json::to_string(s).expect("submissions serialise"),
            arrival: self.clock.to_wall(arrival),
            ack,
        })?;
        done.await
            .map_err(|_| StoreError::Closed)?
            .map_err(StoreError::Batch)
    }

    /// Queues a job's new state (committed in order with every other write).
    ///
    /// # Errors
    /// [`StoreError::Closed`] at shutdown.
    pub fn update(&self, mut u: JobUpdate) -> Result<(), StoreError> {
        u.start = u.start.map(|t| self.clock.to_wall(t));
        u.finish = u.finish.map(|t| self.clock.to_wall(t));
        u.offered_at = u.offered_at.map(|t| self.clock.to_wall(t));
        self.send(Write::Update(u))
    }

    /// Queues the record that `vm` was turned on at `at` (service seconds).
    ///
    /// # Errors
    /// [`StoreError::Closed`] at shutdown.
    pub fn vm_on(&self, vm: u32, at: f64) -> Result<(), StoreError> {
        self.send(Write::VmOn(vm, self.clock.to_wall(at)))
    }

    /// Queues the record that `vm` was lost (`refused`: its power-on was refused) at `at`.
    ///
    /// # Errors
    /// [`StoreError::Closed`] at shutdown.
    pub fn vm_event(&self, vm: u32, at: f64, refused: bool) -> Result<(), StoreError> {
        self.send(Write::VmEvent(vm, self.clock.to_wall(at), refused))
    }

    /// Queues the record that `vm` was turned off at `at` (closes its open interval).
    ///
    /// # Errors
    /// [`StoreError::Closed`] at shutdown.
    pub fn vm_off(&self, vm: u32, at: f64) -> Result<(), StoreError> {
        self.send(Write::VmOff(vm, self.clock.to_wall(at)))
    }

    /// Waits until every write queued before this call has committed.
    ///
    /// # Errors
    /// [`StoreError::Batch`] if it has not (the writes stay queued and are retried),
    /// [`StoreError::Closed`].
    pub async fn flush(&self) -> Result<(), StoreError> {
        let (ack, done) = oneshot::channel();
        self.send(Write::Barrier(ack))?;
        done.await
            .map_err(|_| StoreError::Closed)?
            .map(|_| ())
            .map_err(StoreError::Batch)
    }

    fn send(&self, w: Write) -> Result<(), StoreError> {
        self.writes.send(w).map_err(|_| StoreError::Closed)
    }

    /// True if the last transaction committed and the database answers a query within
    /// a second.
    pub async fn ready(&self) -> bool {
        self.health.ok()
            && tokio::time::timeout(
                Duration::from_secs(1),
                sqlx::query("SELECT 1").execute(&self.pool),
            )
            .await
            .is_ok_and(|r| r.is_ok())
    }

    fn row(&self, r: JobRow) -> Result<StoredJob, StoreError> {
        let (
            seq,
            id,
            sub,
            arrival,
            state,
            placement,
            start,
            finish,
            reason,
            observed,
            chosen,
            optimal,
            offered_at,
        ) = r;
        let corrupt = |message: String| StoreError::Corrupt {
            id: id.clone(),
            message,
        };
        let state = state.parse::<JobState>().map_err(corrupt)?;
        let per_vm = |field: &str, text: Option<String>| {
            text.map(|t| {
                serde_json::from_str::<Vec<(VmId, u32)>>(&t)
                    .map_err(|e| corrupt(format!("{field} {t:?}: {e}")))
            })
            .transpose()
        };
        let placement = per_vm("placement", placement)?;
        let observed = per_vm("observed", observed)?;
        let submission = serde_json::from_str(&sub).map_err(|e| corrupt(e.to_string()))?;
        let c = self.clock;
        Ok(StoredJob {
            seq,
            submission,
            arrival: c.from_wall(arrival),
            offered_at: offered_at.map(|t| c.from_wall(t)),
            state,
            placement,
            start: start.map(|t| c.from_wall(t)),
            finish: finish.map(|t| c.from_wall(t)),
            reason,
            observed,
            chosen_cost: chosen,
            optimal_cost: optimal,
        })
    }

    /// Every job in submission order.
    ///
    /// # Errors
    /// [`StoreError::Db`], or [`StoreError::Corrupt`] for a stored submission that no
    /// longer parses.
    pub async fn jobs(&self) -> Result<Vec<StoredJob>, StoreError> {
        let rows: Vec<JobRow> = sqlx::query_as(SELECT_JOB_ORDERED)
            .fetch_all(&self.pool)
            .await?;
        rows.into_iter().map(|r| self.row(r)).collect()
    }

    /// The job with `id`, if stored.
    ///
    /// # Errors
    /// [`StoreError::Db`], [`StoreError::Corrupt`].
    pub async fn job(&self, id: &str) -> Result<Option<StoredJob>, StoreError> {
        let row: Option<JobRow> = sqlx::query_as(SELECT_JOB_BY_ID)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|r| self.row(r)).transpose()
    }

    /// At most `limit` jobs after acceptance position `after` (0: from the first), in
    /// acceptance order, optionally only those in `state`: one consistent snapshot (a
    /// single statement), read without the scheduler's lock, and only the columns a
    /// listing shows.
    ///
    /// # Errors
    /// [`StoreError::Db`].
    pub async fn list(
        &self,
        after: i64,
        limit: u32,
        state: Option<&str>,
    ) -> Result<Vec<JobBrief>, StoreError> {
        type Row = (i64, String, String, f64, Option<f64>, Option<f64>);
        let rows: Vec<Row> = match state {
            Some(s) => {
                sqlx::query_as(
                    "SELECT seq, id, state, arrival, start, finish FROM jobs
                     WHERE state = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                )
                .bind(s)
                .bind(after)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?
            }
            None => {
                sqlx::query_as(
                    "SELECT seq, id, state, arrival, start, finish FROM jobs
                     WHERE seq > $1 ORDER BY seq LIMIT $2",
                )
                .bind(after)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?
            }
        };
        let c = self.clock;
        rows.into_iter()
            .map(|(seq, id, state, arrival, start, finish)| {
                let state = state
                    .parse::<JobState>()
                    .map_err(|message| StoreError::Corrupt {
                        id: id.clone(),
                        message,
                    })?;
                Ok(JobBrief {
                    seq,
                    id,
                    state,
                    arrival: c.from_wall(arrival),
                    start: start.map(|t| c.from_wall(t)),
                    finish: finish.map(|t| c.from_wall(t)),
                })
            })
            .collect()
    }

    /// Records a start of the service with its configuration (committed before it
    /// returns).
    ///
    /// # Errors
    /// [`StoreError::Db`].
    pub async fn record_start(&self, r: &StartRecord) -> Result<(), StoreError> {
        let wall = self.clock.to_wall(self.clock.now());
        sqlx::query("INSERT INTO service_starts (at, config) VALUES ($1, $2)")
            .bind(wall)
            .bind(serde_json::to_string(r).expect("start records serialise"))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Every recorded start, oldest first: (service seconds, configuration).
    ///
    /// # Errors
    /// [`StoreError::Db`], or [`StoreError::Corrupt`] (id `service_starts/<seq>`) for a
    /// record this frugal cannot read.
    pub async fn starts(&self) -> Result<Vec<(f64, StartRecord)>, StoreError> {
        let rows: Vec<(i64, f64, String)> =
            sqlx::query_as("SELECT seq, at, config FROM service_starts ORDER BY seq")
                .fetch_all(&self.pool)
                .await?;
        rows.into_iter()
            .map(|(seq, at, config)| {
                let r = serde_json::from_str(&config).map_err(|e| StoreError::Corrupt {
                    id: format!("service_starts/{seq}"),
                    message: e.to_string(),
                })?;
                Ok((self.clock.from_wall(at), r))
            })
            .collect()
    }

    /// Power-on intervals `(vm, on, off)` in service seconds that are open or ended after
    /// `since` (service seconds), in recording order.
    ///
    /// # Errors
    /// [`StoreError::Db`].
    pub async fn vm_intervals_since(
        &self,
        since: f64,
    ) -> Result<Vec<(u32, f64, Option<f64>)>, StoreError> {
        let wall = self.clock.to_wall(since);
        let rows: Vec<(i64, f64, Option<f64>)> = sqlx::query_as(
            "SELECT vm, on_at, off_at FROM vm_power WHERE off_at IS NULL OR off_at > $1 \
             ORDER BY seq",
        )
        .bind(if wall.is_finite() { wall } else { f64::MIN })
        .fetch_all(&self.pool)
        .await?;
        let c = self.clock;
        Ok(rows
            .into_iter()
            .map(|(vm, on, off)| (vm as u32, c.from_wall(on), off.map(|t| c.from_wall(t))))
            .collect())
    }

    /// Every VM event `(vm, at, refused)` in service seconds, in recording order.
    ///
    /// # Errors
    /// [`StoreError::Db`], or [`StoreError::Corrupt`] for an unknown kind.
    pub async fn vm_events(&self) -> Result<Vec<(u32, f64, bool)>, StoreError> {
        let rows: Vec<(i64, f64, String)> =
            sqlx::query_as("SELECT vm, at, kind FROM vm_events ORDER BY seq")
                .fetch_all(&self.pool)
                .await?;
        let c = self.clock;
        rows.into_iter()
            .map(|(vm, at, kind)| {
                let refused = match kind.as_str() {
                    "lost" => false,
                    "refused" => true,
                    other => {
                        return Err(StoreError::Corrupt {
                            id: format!("vm event of VM {vm}"),
                            message: format!("unknown kind {other:?}"),
                        });
                    }
                };
                Ok((vm as u32, c.from_wall(at), refused))
            })
            .collect()
    }

    /// Every power-on interval `(vm, on, off)` in service seconds; `off` is None while on.
    ///
    /// # Errors
    /// [`StoreError::Db`].
    pub async fn vm_intervals(&self) -> Result<Vec<(u32, f64, Option<f64>)>, StoreError> {
        self.vm_intervals_since(f64::NEG_INFINITY).await
    }
}

type JobRow = (
    i64,
    String,
    String,
    f64,
    String,
    Option<String>,
    Option<f64>,
    Option<f64>,
    Option<String>,
    Option<String>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
);

/// The columns of a [`JobRow`], in order.
macro_rules! job_columns {
    () => {
        "seq, id, submission, arrival, state, placement, start, finish, reason, observed, \
         chosen_cost, optimal_cost, offered_at"
    };
}

const SELECT_JOB_ORDERED: &str = concat!("SELECT ", job_columns!(), " FROM jobs ORDER BY seq");
const SELECT_JOB_BY_ID: &str = concat!("SELECT ", job_columns!(), " FROM jobs WHERE id = $1");
#[cfg(test)]
mod tests {
    use super::*;

    /// `frugal serve --backfill none` is recorded as `none` — the name `frugal simulate
    /// --backfill` takes, so the command `whatif --export` prints runs — and a record of
    /// an older version, which wrote `off`, still reads.
    #[test]
    fn backfill_is_recorded_by_its_one_name() {
        let record = |backfill: &str| StartRecord {
            frugal: String::new(),
            cluster: ClusterConfig::of(
                &frugal_core::Preset::SmallHybrid
                    .config(frugal_core::PricingModel::Model1)
                    .build("small")
                    .unwrap(),
                frugal_core::BillingGranularity::PerSecond,
            ),
            policy: "first-fit".into(),
            queue: "fcfs".into(),
            admission_control: false,
            backfill: backfill.into(),
            rut: Rut::default(),
            duration: DurationModel::default(),
            boot_latency_s: 0.0,
            speedup: 1.0,
            budget_per_hour: None,
            keep_alive: frugal_core::KeepAlive::default(),
        };
        assert_eq!(Backfill::None.to_string(), "none");
        for (written, read) in [
            ("none", Backfill::None),
            ("off", Backfill::None),
            ("easy", Backfill::Easy),
        ] {
            assert_eq!(record(written).scheduler().unwrap().backfill, read);
        }
        let e = record("sometimes").scheduler().unwrap_err();
        assert!(e.contains("sometimes") && e.contains("none, easy"), "{e}");
    }

    #[test]
    fn databases_are_named_without_passwords() {
        assert_eq!(
            describe("sqlite:/var/lib/frugal.db?mode=rwc"),
            "/var/lib/frugal.db"
        );
        assert_eq!(
            describe("postgres://frugal:secret@db:5432/frugal"),
            "postgres://frugal@db:5432/frugal"
        );
    }
}
