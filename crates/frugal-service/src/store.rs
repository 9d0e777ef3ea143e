//! Durable state in SQLite (WAL): accepted jobs with their state and placement, and VM
//! power history. Every accepted submission is committed before it is acknowledged.

use std::str::FromStr;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use crate::submission::Submission;

/// A stored job.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredJob {
    /// The submission as accepted.
    pub submission: Submission,
    /// Submission time, service seconds.
    pub arrival: f64,
    /// `queued`, `running`, `completed`, `cancelled`, `dropped` or `failed`.
    pub state: String,
    /// Placement as JSON `[[vm, executors], …]`, if started.
    pub placement: Option<String>,
    /// Start and finish, service seconds.
    pub start: Option<f64>,
    /// Finish (or estimated finish while running).
    pub finish: Option<f64>,
    /// Why it failed, was dropped or re-queued.
    pub reason: Option<String>,
}

/// The database.
#[derive(Clone)]
pub struct Store {
    pool: SqlitePool,
}

impl Store {
    /// Opens (creating if needed) the SQLite database at `url` (`sqlite:path` or
    /// `sqlite::memory:`).
    ///
    /// # Errors
    /// The database error.
    pub async fn open(url: &str) -> Result<Store, sqlx::Error> {
        let opts = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal);
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await?;
        sqlx::query(
            "CREATE TABLE IF NOT EXISTS jobs (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                id TEXT NOT NULL UNIQUE,
                submission TEXT NOT NULL,
                arrival REAL NOT NULL,
                state TEXT NOT NULL,
                placement TEXT,
                start REAL,
                finish REAL,
                reason TEXT)",
        )
        .execute(&pool)
        .await?;
        sqlx::query(
            "CREATE TABLE IF NOT EXISTS vm_power (
                vm INTEGER NOT NULL,
                on_at REAL NOT NULL,
                off_at REAL)",
        )
        .execute(&pool)
        .await?;
        Ok(Store { pool })
    }

    /// Inserts a new job as `queued`; returns false if the id exists already.
    ///
    /// # Errors
    /// The database error.
    pub async fn insert(&self, s: &Submission, arrival: f64) -> Result<bool, sqlx::Error> {
        let body = serde_json::to_string(s).expect("submissions serialise");
        let r = sqlx::query("INSERT OR IGNORE INTO jobs (id, submission, arrival, state) VALUES (?, ?, ?, 'queued')")
            .bind(&s.id)
            .bind(body)
            .bind(arrival)
            .execute(&self.pool)
            .await?;
        Ok(r.rows_affected() == 1)
    }

    /// Records a job's new state.
    ///
    /// # Errors
    /// The database error.
    pub async fn update(
        &self,
        id: &str,
        state: &str,
        placement: Option<&str>,
        start: Option<f64>,
        finish: Option<f64>,
        reason: Option<&str>,
    ) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE jobs SET state = ?, placement = ?, start = ?, finish = ?, reason = ? WHERE id = ?")
            .bind(state)
            .bind(placement)
            .bind(start)
            .bind(finish)
            .bind(reason)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Every job in submission order.
    ///
    /// # Errors
    /// The database error, or a stored submission that no longer parses.
    pub async fn jobs(&self) -> Result<Vec<StoredJob>, sqlx::Error> {
        type Row = (
            String,
            f64,
            String,
            Option<String>,
            Option<f64>,
            Option<f64>,
            Option<String>,
        );
        let rows: Vec<Row> =
            sqlx::query_as("SELECT submission, arrival, state, placement, start, finish, reason FROM jobs ORDER BY seq")
                .fetch_all(&self.pool)
                .await?;
        rows.into_iter()
            .map(|(sub, arrival, state, placement, start, finish, reason)| {
                let submission =
                    serde_json::from_str(&sub).map_err(|e| sqlx::Error::Decode(Box::new(e)))?;
                Ok(StoredJob {
                    submission,
                    arrival,
                    state,
                    placement,
                    start,
                    finish,
                    reason,
                })
            })
            .collect()
    }

    /// Records that `vm` was turned on at `at`.
    ///
    /// # Errors
    /// The database error.
    pub async fn vm_on(&self, vm: u32, at: f64) -> Result<(), sqlx::Error> {
        sqlx::query("INSERT INTO vm_power (vm, on_at) VALUES (?, ?)")
            .bind(vm)
            .bind(at)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Records that `vm` was turned off at `at` (closes its open interval).
    ///
    /// # Errors
    /// The database error.
    pub async fn vm_off(&self, vm: u32, at: f64) -> Result<(), sqlx::Error> {
        sqlx::query("UPDATE vm_power SET off_at = ? WHERE vm = ? AND off_at IS NULL")
            .bind(at)
            .bind(vm)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Power-on intervals `(vm, on, off)`; `off` is None while on.
    ///
    /// # Errors
    /// The database error.
    pub async fn vm_intervals(&self) -> Result<Vec<(u32, f64, Option<f64>)>, sqlx::Error> {
        sqlx::query_as("SELECT vm, on_at, off_at FROM vm_power ORDER BY rowid")
            .fetch_all(&self.pool)
            .await
    }
}
