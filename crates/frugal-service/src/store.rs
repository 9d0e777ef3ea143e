//! Durable state: accepted jobs with their state and placement, and VM power history, in
//! SQLite (the default: WAL, `synchronous = FULL`) or PostgreSQL, chosen by URL.
//!
//! Every write goes through one writer task that commits whatever has queued up as one
//! transaction (group commit): under load one fsync covers many submissions, and each
//! submission is acknowledged only after its transaction committed.

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::{AnyPool, AssertSqlSafe, Executor};
use tokio::sync::{mpsc, oneshot};

use crate::submission::Submission;

/// Most writes committed in one transaction.
const MAX_BATCH: usize = 4096;

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
    /// created), `sqlite::memory:` or `postgres://user:password@host:port/database`.
    /// Starts the writer task on the current tokio runtime.
    ///
    /// # Errors
    /// [`StoreError::Db`] if the database cannot be reached or its tables created.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
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
                Box::pin(async move {
                    if sqlite {
                        conn.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
                            .await?;
                    }
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

/// One transaction over `batch`; returns, per insert in order, whether it was new.
async fn commit(pool: &AnyPool, batch: &[Write]) -> Result<Vec<bool>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let mut inserted = Vec::new();
    for w in batch {
        match w {
            Write::Insert {
                id,
                submission,
                arrival,
                ..
            } => {
                let r = sqlx::query(
                    "INSERT INTO jobs (id, submission, arrival, state) VALUES ($1, $2, $3, 'queued')
                     ON CONFLICT (id) DO NOTHING",
                )
                .bind(id)
                .bind(submission)
                .bind(arrival)
                .execute(&mut *tx)
                .await?;
                inserted.push(r.rows_affected() == 1);
            }
            Write::Update(u) => {
                sqlx::query(
                    "UPDATE jobs SET state = $1, placement = $2, start = $3, finish = $4,
                     reason = $5, observed = $6 WHERE id = $7",
                )
                .bind(u.state)
                .bind(&u.placement)
                .bind(u.start)
                .bind(u.finish)
                .bind(&u.reason)
                .bind(&u.observed)
                .bind(&u.id)
                .execute(&mut *tx)
                .await?;
            }
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
            Write::Barrier(_) => {}
        }
    }
    tx.commit().await?;
    Ok(inserted)
}
