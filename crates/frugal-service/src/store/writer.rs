//! The writer task (group commit, rollback and retry) and the SQLite WAL checkpointer.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use sqlx::{AnyConnection, AnyPool, AssertSqlSafe, Connection, Executor};
use tokio::sync::{mpsc, oneshot};

use super::{Durability, Health, JobUpdate, RETRY_EVERY, connect};

/// Most writes committed in one transaction.
const MAX_BATCH: usize = 4096;

/// How often the checkpointer copies the WAL and checks its size.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(100);

/// Rows per multi-row statement (at most 9 parameters each, under SQLite's limit).
const ROWS_PER_STATEMENT: usize = 500;

/// One queued write.
pub(super) enum Write {
    Insert {
        id: String,
        submission: String,
        /// Wall-clock Unix seconds.
        arrival: f64,
        ack: oneshot::Sender<Result<bool, String>>,
    },
    Update(JobUpdate),
    /// VM turned on at (wall-clock Unix seconds).
    VmOn(u32, f64),
    /// VM turned off at (wall-clock Unix seconds).
    VmOff(u32, f64),
    /// A VM lost (false) or a power-on refused (true), wall-clock seconds.
    VmEvent(u32, f64, bool),
    Barrier(oneshot::Sender<Result<bool, String>>),
}

impl Write {
    /// True for writes that nobody waits on and that must not be lost: they are
    /// retried after a failed transaction.
    fn kept_on_failure(&self) -> bool {
        matches!(
            self,
            Write::Update(_) | Write::VmOn(..) | Write::VmOff(..) | Write::VmEvent(..)
        )
    }
}

/// Commits queued writes in batches until every `Store` handle is dropped. `conn` is
/// the connection the schema was checked on; it is replaced whenever a rollback fails.
pub(super) async fn writer(
    conn: AnyConnection,
    url: String,
    durability: Durability,
    mut rx: mpsc::UnboundedReceiver<Write>,
    health: Arc<Health>,
) {
    let mut conn = Some(conn);
    // Writes of failed transactions, committed first next time.
    let mut kept: Vec<Write> = Vec::new();
    loop {
        let mut batch = std::mem::take(&mut kept);
        if batch.is_empty() {
            match rx.recv().await {
                Some(w) => batch.push(w),
                None => return,
            }
        } else {
            // Retry the kept writes after a pause, or at once with new writes.
            match tokio::time::timeout(RETRY_EVERY, rx.recv()).await {
                Ok(Some(w)) => batch.push(w),
                Ok(None) => return,
                Err(_) => {}
            }
        }
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(w) => batch.push(w),
                Err(_) => break,
            }
        }
        let result = match conn.as_mut() {
            Some(c) => commit(c, &batch).await,
            None => match connect(&url, durability).await {
                Ok(c) => commit(conn.insert(c), &batch).await,
                Err(e) => Err(Failure {
                    message: e.to_string(),
                    connection_lost: true,
                }),
            },
        };
        match result {
            Ok(inserted) => {
                health.set(true);
                if health.wal_over_limit.swap(false, Ordering::Relaxed)
                    && let Some(c) = conn.as_mut()
                {
                    // As the only writer, the truncation waits for no other writer; the
                    // checkpointer has copied most frames already.
                    if let Err(e) = c.execute("PRAGMA wal_checkpoint(TRUNCATE)").await {
                        tracing::warn!(error = %e, "truncating WAL checkpoint failed");
                    }
                }
                let mut inserted = inserted.into_iter();
                for w in batch {
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
            Err(f) => {
                health.set(false);
                if f.connection_lost {
                    conn = None;
                }
                tracing::error!(
                    writes = batch.len(),
                    error = %f.message,
                    "a transaction failed: its submissions are refused, its other writes retried"
                );
                for w in batch {
                    match w {
                        Write::Insert { ack, .. } | Write::Barrier(ack) => {
                            let _ = ack.send(Err(f.message.clone()));
                        }
                        w if w.kept_on_failure() => kept.push(w),
                        _ => {}
                    }
                }
            }
        }
    }
}

/// Why a transaction did not commit.
struct Failure {
    message: String,
    /// The rollback failed too: the connection is discarded.
    connection_lost: bool,
}

/// One transaction over `batch`, rolled back explicitly if any statement fails; returns,
/// per insert in order, whether it was new.
async fn commit(conn: &mut AnyConnection, batch: &[Write]) -> Result<Vec<bool>, Failure> {
    let mut tx = conn.begin().await.map_err(|e| Failure {
        message: e.to_string(),
        connection_lost: true,
    })?;
    match statements(&mut tx, batch).await {
        Ok(inserted) => match tx.commit().await {
            Ok(()) => Ok(inserted),
            Err(e) => Err(Failure {
                message: e.to_string(),
                // A failed COMMIT may leave the transaction open: do not reuse it.
                connection_lost: true,
            }),
        },
        Err(e) => {
            let connection_lost = tx.rollback().await.is_err();
            Err(Failure {
                message: e.to_string(),
                connection_lost,
            })
        }
    }
}

/// The statements of one transaction.
///
/// Inserts go first as multi-row statements (no update in a batch can refer to a job
/// inserted in the same batch: a job is updated only after its insert was acknowledged),
/// then job updates — only the last per job — then VM power records in order.
async fn statements(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    batch: &[Write],
) -> Result<Vec<bool>, sqlx::Error> {
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
    for chunk in rows.chunks(ROWS_PER_STATEMENT) {
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
        inserted.extend(q.fetch_all(&mut **tx).await?.into_iter().map(|r| r.0));
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
    for chunk in updates.chunks(ROWS_PER_STATEMENT) {
        let values: Vec<String> = (0..chunk.len())
            .map(|i| {
                let p: Vec<String> = (1..=10).map(|k| format!("${}", 10 * i + k)).collect();
                format!("({})", p.join(", "))
            })
            .collect();
        // VALUES columns are named column1… in both SQLite and PostgreSQL.
        let sql = format!(
            "UPDATE jobs SET state = v.column2, placement = v.column3, start = v.column4,
             finish = v.column5, reason = v.column6, observed = v.column7,
             chosen_cost = v.column8, optimal_cost = v.column9, offered_at = v.column10
             FROM (VALUES {}) AS v WHERE jobs.id = v.column1",
            values.join(", ")
        );
        let mut q = sqlx::query(AssertSqlSafe(sql));
        for u in chunk {
            q = q
                .bind(&u.id)
                .bind(u.state.as_str())
                .bind(u.placement.as_ref().map(|p| json(p)))
                .bind(u.start)
                .bind(u.finish)
                .bind(&u.reason)
                .bind(u.observed.as_ref().map(|p| json(p)))
                .bind(u.chosen_cost)
                .bind(u.optimal_cost)
                .bind(u.offered_at);
        }
        q.execute(&mut **tx).await?;
    }
    for w in batch {
        match w {
            Write::VmOn(vm, at) => {
                sqlx::query("INSERT INTO vm_power (vm, on_at) VALUES ($1, $2)")
                    .bind(i64::from(*vm))
                    .bind(at)
                    .execute(&mut **tx)
                    .await?;
            }
            Write::VmOff(vm, at) => {
                sqlx::query("UPDATE vm_power SET off_at = $1 WHERE vm = $2 AND off_at IS NULL")
                    .bind(at)
                    .bind(i64::from(*vm))
                    .execute(&mut **tx)
                    .await?;
            }
            Write::VmEvent(vm, at, refused) => {
                sqlx::query("INSERT INTO vm_events (vm, at, kind) VALUES ($1, $2, $3)")
                    .bind(i64::from(*vm))
                    .bind(at)
                    .bind(if *refused { "refused" } else { "lost" })
                    .execute(&mut **tx)
                    .await?;
            }
            _ => {}
        }
    }
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

/// Copies the SQLite WAL into the database every [`CHECKPOINT_EVERY`] on its own
/// connection, so
/// checkpoints stay out of the writer's commits (SQLite's automatic checkpoint would run
/// inside one and stall every submission waiting on it). A passive checkpoint never
/// blocks the writer, but the WAL only starts over when a checkpoint has caught up at the
/// moment a transaction begins, which a busy writer never lets happen: when the WAL
/// exceeds `limit_bytes`, the checkpointer asks the writer to truncate it after its next
/// commit (a few milliseconds: most frames are copied already). So the WAL stays under
/// `limit_bytes` plus [`CHECKPOINT_EVERY`] of writes (at the load test's 11,000
/// submissions/s the WAL grows ~130 MB/s: ~13 MB). Stops with the store.
pub(super) async fn checkpointer(
    pool: AnyPool,
    alive: mpsc::WeakUnboundedSender<Write>,
    limit_bytes: u64,
    health: Arc<Health>,
) {
    let mut tick = tokio::time::interval(CHECKPOINT_EVERY);
    while alive.upgrade().is_some() {
        tick.tick().await;
        let passive: Result<(i64, i64, i64), _> = sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
            .fetch_one(&pool)
            .await;
        let page: Result<(i64,), _> = sqlx::query_as("PRAGMA page_size").fetch_one(&pool).await;
        match (passive, page) {
            (Ok((_, wal_pages, _)), Ok((page_size,))) => {
                let bytes = (wal_pages.max(0) as u64) * (page_size.max(0) as u64);
                if bytes > limit_bytes {
                    health.wal_over_limit.store(true, Ordering::Relaxed);
                }
            }
            (Err(e), _) | (_, Err(e)) => {
                tracing::warn!(error = %e, "WAL checkpoint failed");
            }
        }
    }
}

/// Executors per VM as the JSON the store keeps (`[[vm, executors], …]`).
fn json(p: &[(frugal_core::cluster::VmId, u32)]) -> String {
    serde_json::to_string(p).expect("pairs of integers serialise")
}
