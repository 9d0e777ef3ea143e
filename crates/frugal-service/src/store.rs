//! Durable state: accepted jobs with their state and placement, and VM power history, in
//! SQLite (the default, WAL journal) or PostgreSQL, chosen by URL.
//!
//! Every write goes through one writer task that commits whatever has queued up as one
//! transaction (group commit): under load one fsync covers many submissions, and each
//! submission is acknowledged only after its transaction committed.

use std::collections::{HashMap, HashSet};

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyPool, AssertSqlSafe, Executor};
use tokio::sync::{mpsc, oneshot};

use crate::submission::Submission;

/// Most writes committed in one transaction.
const MAX_BATCH: usize = 4096;

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

impl Durability {
    /// Parses `process` or `power`.
    pub fn parse(s: &str) -> Option<Durability> {
        match s {
            "process" => Some(Durability::Process),
            "power" => Some(Durability::Power),
            _ => None,
        }
    }
}

/// A stored job.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredJob {
    /// The submission as accepted.
    pub submission: Submission,
    /// Submission time, service seconds.
    pub arrival: f64,
    /// `queued`, `running`, `completed`, `failed`, `cancelled` or `dropped`.
    pub state: String,
    /// Placement as JSON `[[vm, executors], …]`, if started.
    pub placement: Option<String>,
    /// Start, service seconds.
    pub start: Option<f64>,
    /// Finish (or estimated finish while running), service seconds.
    pub finish: Option<f64>,
    /// Why it failed, was dropped or re-queued.
    pub reason: Option<String>,
    /// Executors per VM as last reported by the backend, JSON like `placement`.
    pub observed: Option<String>,
}

/// A job's new state, to persist.
#[derive(Clone, Debug, PartialEq)]
pub struct JobUpdate {
    /// Job id.
    pub id: String,
    /// State name.
    pub state: &'static str,
    /// Placement JSON.
    pub placement: Option<String>,
    /// Start, service seconds.
    pub start: Option<f64>,
    /// Finish, service seconds.
    pub finish: Option<f64>,
    /// Reason of a failure, drop or re-queue.
    pub reason: Option<String>,
    /// Observed executors per VM, JSON.
    pub observed: Option<String>,
}

/// Errors of the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database refused a statement or the connection failed.
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    /// The transaction holding this write failed (the message is the database's).
    #[error("database: the transaction failed: {0}")]
    Batch(String),
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

enum Write {
    Insert {
        id: String,
        submission: String,
        arrival: f64,
        ack: oneshot::Sender<Result<bool, String>>,
    },
    Update(JobUpdate),
    VmOn(u32, f64),
    VmOff(u32, f64),
    Barrier(oneshot::Sender<Result<bool, String>>),
}

/// The database.
#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
    writes: mpsc::UnboundedSender<Write>,
}

impl Store {
    /// Opens (creating if needed) the database at `url`: `sqlite:PATH` (the file is
    /// created), `sqlite::memory:` or `postgres://user:password@host:port/database`,
    /// with acknowledged writes surviving what `durability` says. Starts the writer task
    /// on the current tokio runtime.
    ///
    /// # Errors
    /// [`StoreError::Db`] if the database cannot be reached or its tables created.
    pub async fn open(url: &str, durability: Durability) -> Result<Store, StoreError> {
        install_default_drivers();
        let sqlite = url.starts_with("sqlite:");
        let url = if sqlite && !url.contains("memory") && !url.contains('?') {
            format!("{url}?mode=rwc")
        } else {
            url.to_string()
        };
        let pool = AnyPoolOptions::new()
            .max_connections(if sqlite { 2 } else { 4 })
            .after_connect(move |conn, _| {
                let setting = match (sqlite, durability) {
                    (true, Durability::Process) => {
                        "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
                         PRAGMA wal_autocheckpoint = 0"
                    }
                    (true, Durability::Power) => {
                        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
                         PRAGMA wal_autocheckpoint = 0"
                    }
                    (false, Durability::Process) => "SET synchronous_commit = off",
                    (false, Durability::Power) => "SET synchronous_commit = on",
                };
                Box::pin(async move {
                    conn.execute(setting).await?;
                    Ok(())
                })
            })
            .connect(&url)
            .await?;
        let seq = if sqlite {
            "INTEGER PRIMARY KEY AUTOINCREMENT"
        } else {
            "BIGSERIAL PRIMARY KEY"
        };
        let jobs = format!(
            "CREATE TABLE IF NOT EXISTS jobs (
                    seq {seq},
                    id TEXT NOT NULL UNIQUE,
                    submission TEXT NOT NULL,
                    arrival DOUBLE PRECISION NOT NULL,
                    state TEXT NOT NULL,
                    placement TEXT,
                    start DOUBLE PRECISION,
                    finish DOUBLE PRECISION,
                    reason TEXT,
                    observed TEXT)"
        );
        let vm_power = format!(
            "CREATE TABLE IF NOT EXISTS vm_power (
                    seq {seq},
                    vm BIGINT NOT NULL,
                    on_at DOUBLE PRECISION NOT NULL,
                    off_at DOUBLE PRECISION)"
        );
        for ddl in [jobs, vm_power] {
            sqlx::raw_sql(AssertSqlSafe(ddl)).execute(&pool).await?;
        }
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(writer(pool.clone(), rx));
        if sqlite {
            tokio::spawn(checkpointer(pool.clone(), tx.downgrade()));
        }
        Ok(Store { pool, writes: tx })
    }

    /// Stores a new job as `queued` and waits for the commit; returns false if the id
    /// exists already.
    ///
    /// # Errors
    /// [`StoreError::Batch`] if its transaction failed, [`StoreError::Closed`] at shutdown.
    pub async fn insert(&self, s: &Submission, arrival: f64) -> Result<bool, StoreError> {
        let (ack, done) = oneshot::channel();
        self.send(Write::Insert {
            id: s.id.clone(),
            submission: serde_json::to_string(s).expect("submissions serialise"),
            arrival,
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
    pub fn update(&self, u: JobUpdate) -> Result<(), StoreError> {
        self.send(Write::Update(u))
    }

    /// Queues the record that `vm` was turned on at `at` (service seconds).
    ///
    /// # Errors
    /// [`StoreError::Closed`] at shutdown.
    pub fn vm_on(&self, vm: u32, at: f64) -> Result<(), StoreError> {
        self.send(Write::VmOn(vm, at))
    }

    /// Queues the record that `vm` was turned off at `at` (closes its open interval).
    ///
    /// # Errors
    /// [`StoreError::Closed`] at shutdown.
    pub fn vm_off(&self, vm: u32, at: f64) -> Result<(), StoreError> {
        self.send(Write::VmOff(vm, at))
    }

    /// Waits until every write queued before this call has committed.
    ///
    /// # Errors
    /// [`StoreError::Batch`] if the last transaction failed, [`StoreError::Closed`].
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

    /// Every job in submission order.
    ///
    /// # Errors
    /// [`StoreError::Db`], or [`StoreError::Corrupt`] for a stored submission that no
    /// longer parses.
    pub async fn jobs(&self) -> Result<Vec<StoredJob>, StoreError> {
        type Row = (
            String,
            String,
            f64,
            String,
            Option<String>,
            Option<f64>,
            Option<f64>,
            Option<String>,
            Option<String>,
        );
        let rows: Vec<Row> = sqlx::query_as(
            "SELECT id, submission, arrival, state, placement, start, finish, reason, observed
             FROM jobs ORDER BY seq",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(
                |(id, sub, arrival, state, placement, start, finish, reason, observed)| {
                    let submission =
                        serde_json::from_str(&sub).map_err(|e| StoreError::Corrupt {
                            id,
                            message: e.to_string(),
                        })?;
                    Ok(StoredJob {
                        submission,
                        arrival,
                        state,
                        placement,
                        start,
                        finish,
                        reason,
                        observed,
                    })
                },
            )
            .collect()
    }

    /// Power-on intervals `(vm, on, off)` in seconds; `off` is None while on.
    ///
    /// # Errors
    /// [`StoreError::Db`].
    pub async fn vm_intervals(&self) -> Result<Vec<(u32, f64, Option<f64>)>, StoreError> {
        let rows: Vec<(i64, f64, Option<f64>)> =
            sqlx::query_as("SELECT vm, on_at, off_at FROM vm_power ORDER BY seq")
                .fetch_all(&self.pool)
                .await?;
        Ok(rows
            .into_iter()
            .map(|(vm, on, off)| (vm as u32, on, off))
            .collect())
    }
}

/// Copies the SQLite WAL into the database once a second on its own connection. A
/// passive checkpoint does not block the writer, whereas SQLite's automatic one would
/// run inside a commit and stall every submission waiting on it. Stops with the store.
async fn checkpointer(pool: AnyPool, alive: mpsc::WeakUnboundedSender<Write>) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
    while alive.upgrade().is_some() {
        tick.tick().await;
        if let Err(e) = pool.execute("PRAGMA wal_checkpoint(PASSIVE)").await {
            eprintln!("frugal serve: WAL checkpoint failed: {e}");
        }
    }
}

/// Commits queued writes in batches until every [`Store`] handle is dropped.
async fn writer(pool: AnyPool, mut rx: mpsc::UnboundedReceiver<Write>) {
    let mut batch = Vec::new();
    while let Some(w) = rx.recv().await {
        batch.push(w);
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(w) => batch.push(w),
                Err(_) => break,
            }
        }
        match commit(&pool, &batch).await {
            Ok(inserted) => {
                let mut inserted = inserted.into_iter();
                for w in batch.drain(..) {
                    match w {
                        Write::Insert { ack, .. } => {
                            let _ = ack.send(Ok(inserted.next().unwrap_or(false)));
                        }
                        Write::Barrier(ack) => {
                            let _ = ack.send(Ok(true));
                        }
                        _ => {}
                    }
                }
            }
            Err(e) => {
                let message = e.to_string();
                eprintln!(
                    "frugal serve: a transaction of {} writes failed: {message}",
                    batch.len()
                );
                for w in batch.drain(..) {
                    if let Write::Insert { ack, .. } | Write::Barrier(ack) = w {
                        let _ = ack.send(Err(message.clone()));
                    }
                }
            }
        }
    }
}

/// Rows per multi-row statement (at most 7 parameters each, under SQLite's limit).
const INSERT_CHUNK: usize = 500;

/// One transaction over `batch`; returns, per insert in order, whether it was new.
///
/// Inserts go first as multi-row statements (no update in a batch can refer to a job
/// inserted in the same batch: a job is updated only after its insert was acknowledged),
/// then job updates — only the last per job — then VM power records in order.
async fn commit(pool: &AnyPool, batch: &[Write]) -> Result<Vec<bool>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let mut seen = HashSet::new();
    let mut fresh = Vec::new();
    for w in batch {
        if let Write::Insert { id, .. } = w {
            fresh.push(seen.insert(id.as_str()));
        }
    }
    let rows: Vec<(&str, &str, f64)> = batch
        .iter()
        .filter_map(|w| match w {
            Write::Insert {
                id,
                submission,
                arrival,
                ..
            } => Some((id.as_str(), submission.as_str(), *arrival)),
            _ => None,
        })
        .zip(&fresh)
        .filter(|(_, f)| **f)
        .map(|(r, _)| r)
        .collect();
    let mut inserted = HashSet::new();
    for chunk in rows.chunks(INSERT_CHUNK) {
        let values: Vec<String> = (0..chunk.len())
            .map(|i| format!("(${}, ${}, ${}, 'queued')", 3 * i + 1, 3 * i + 2, 3 * i + 3))
            .collect();
        let sql = format!(
            "INSERT INTO jobs (id, submission, arrival, state) VALUES {}
             ON CONFLICT (id) DO NOTHING RETURNING id",
            values.join(", ")
        );
        let mut q = sqlx::query_as::<_, (String,)>(AssertSqlSafe(sql));
        for &(id, submission, arrival) in chunk {
            q = q.bind(id).bind(submission).bind(arrival);
        }
        inserted.extend(q.fetch_all(&mut *tx).await?.into_iter().map(|r| r.0));
    }
    let mut last_update = HashMap::new();
    for (i, w) in batch.iter().enumerate() {
        if let Write::Update(u) = w {
            last_update.insert(u.id.as_str(), i);
        }
    }
    let updates: Vec<&JobUpdate> = batch
        .iter()
        .enumerate()
        .filter_map(|(i, w)| match w {
            Write::Update(u) if last_update.get(u.id.as_str()) == Some(&i) => Some(u),
            _ => None,
        })
        .collect();
    for chunk in updates.chunks(INSERT_CHUNK) {
        let values: Vec<String> = (0..chunk.len())
            .map(|i| {
                let p: Vec<String> = (1..=7).map(|k| format!("${}", 7 * i + k)).collect();
                format!("({})", p.join(", "))
            })
            .collect();
        // VALUES columns are named column1… in both SQLite and PostgreSQL.
        let sql = format!(
            "UPDATE jobs SET state = v.column2, placement = v.column3, start = v.column4,
             finish = v.column5, reason = v.column6, observed = v.column7
             FROM (VALUES {}) AS v WHERE jobs.id = v.column1",
            values.join(", ")
        );
        let mut q = sqlx::query(AssertSqlSafe(sql));
        for u in chunk {
            q = q
                .bind(&u.id)
                .bind(u.state)
                .bind(&u.placement)
                .bind(u.start)
                .bind(u.finish)
                .bind(&u.reason)
                .bind(&u.observed);
        }
        q.execute(&mut *tx).await?;
    }
    for w in batch {
        match w {
            Write::VmOn(vm, at) => {
                sqlx::query("INSERT INTO vm_power (vm, on_at) VALUES ($1, $2)")
                    .bind(i64::from(*vm))
                    .bind(at)
                    .execute(&mut *tx)
                    .await?;
            }
            Write::VmOff(vm, at) => {
                sqlx::query("UPDATE vm_power SET off_at = $1 WHERE vm = $2 AND off_at IS NULL")
                    .bind(at)
                    .bind(i64::from(*vm))
                    .execute(&mut *tx)
                    .await?;
            }
            _ => {}
        }
    }
    tx.commit().await?;
    let mut fresh = fresh.into_iter();
    Ok(batch
        .iter()
        .filter_map(|w| match w {
            Write::Insert { id, .. } => {
                Some(fresh.next().unwrap_or(false) && inserted.contains(id))
            }
            _ => None,
        })
        .collect())
}
