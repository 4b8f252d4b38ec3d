//! Group commit for the hot writes: fixed-run turns, run verdicts, the
//! target's replies in exploration sessions, audit events.
//!
//! Hundreds of runs execute at once; their writes queue to one task that
//! commits everything waiting in a single transaction, with multi-row
//! statements. One transaction per batch instead of one per row is what
//! lets the engine keep up with a fast target. A run queues its turns as
//! they happen and waits for all of them to be committed before it queues
//! its verdict, so a verdict is never stored without its turns.
//!
//! Audit events take the same path, so that an API call's audit row never
//! competes with the call's own transaction for SQLite's write lock. Each
//! batch holds the platform's write gate (`Platform::ledger_lock`): the
//! process's writers take turns in memory instead of meeting in SQLite's
//! busy handler, which sleeps for milliseconds.
//!
//! If a batch fails, its writes are retried one by one so that only the
//! faulty write reports the error. If the task is gone (its runtime shut
//! down), writes go straight to the database.

use crate::error::{Error, Result};
use crate::store::Db;
use sqlx::{QueryBuilder, Sqlite};
use std::sync::{Arc, OnceLock};
use tokio::sync::{mpsc, oneshot};

/// Most writes committed in one transaction.
const MAX_BATCH: usize = 2048;
/// Rows per multi-row statement, largest first (SQLite allows 32,766 bound
/// values). A batch is cut into pieces of these sizes only, so that a few
/// prepared statements serve every batch instead of one per batch length.
const STATEMENT_ROWS: [usize; 4] = [256, 32, 4, 1];

/// Cuts `rows` into pieces of the sizes in [`STATEMENT_ROWS`].
fn pieces<T>(mut rows: &[T]) -> Vec<&[T]> {
    let mut out = Vec::new();
    for size in STATEMENT_ROWS {
        while rows.len() >= size {
            let (piece, rest) = rows.split_at(size);
            out.push(piece);
            rows = rest;
        }
    }
    out
}

/// One turn of a fixed run.
#[derive(Debug, Clone)]
pub(crate) struct TurnRow {
    pub id: String,
    pub run_id: String,
    pub seq: i64,
    pub role: &'static str,
    pub content: String,
    pub latency_ms: Option<i64>,
    pub tokens_in: Option<i64>,
    pub tokens_out: Option<i64>,
    pub tool_calls: Option<String>,
    pub created_at: i64,
}

/// A run's verdict.
#[derive(Debug, Clone)]
pub(crate) struct FinishRow {
    pub id: String,
    pub verdict: &'static str,
    pub check_results: String,
    pub metrics: String,
    pub error_reason: Option<String>,
    pub finished_at: i64,
}

/// An audit event.
#[derive(Debug, Clone)]
pub(crate) struct AuditRow {
    pub id: String,
    pub at: i64,
    pub actor: String,
    pub action: String,
    pub subject: Option<String>,
    pub outcome: String,
}

/// The target's reply in an exploration session (its user turn and the
/// budget decision were committed before the target was called).
#[derive(Debug, Clone)]
pub(crate) struct ReplyRow {
    pub id: String,
    pub session_id: String,
    pub seq: i64,
    pub content: String,
    pub latency_ms: i64,
    pub at: i64,
}

#[derive(Debug, Clone)]
pub(crate) enum Write {
    Turn(TurnRow),
    Finish(FinishRow),
    Reply(ReplyRow),
    Audit(AuditRow),
}

type Job = (Write, oneshot::Sender<std::result::Result<(), String>>);

type Gate = Arc<tokio::sync::Mutex<()>>;

/// The queue in front of the writer task, started on first use.
pub(crate) struct Writer {
    db: Db,
    gate: Gate,
    queue: OnceLock<mpsc::UnboundedSender<Job>>,
}

/// A queued write; [`Pending::committed`] waits for its commit.
pub(crate) enum Pending {
    Queued(oneshot::Receiver<std::result::Result<(), String>>),
    /// The writer task is gone: written directly when awaited.
    Direct(Db, Gate, Box<Write>),
}

impl Pending {
    pub async fn committed(self) -> Result<()> {
        match self {
            Self::Queued(rx) => match rx.await {
                Ok(result) => result.map_err(|e| Error::internal(anyhow::anyhow!(e))),
                // The task stopped before answering: its runtime is ending.
                Err(_) => Err(Error::internal(anyhow::anyhow!("the writer stopped"))),
            },
            Self::Direct(db, gate, write) => apply(&db, &gate, &[&write]).await,
        }
    }
}

impl Writer {
    pub fn new(db: Db, gate: Gate) -> Self {
        Self {
            db,
            gate,
            queue: OnceLock::new(),
        }
    }

    /// Queues `write` to be committed with whatever else is waiting.
    pub fn enqueue(&self, write: Write) -> Pending {
        let queue = self
            .queue
            .get_or_init(|| spawn(self.db.clone(), self.gate.clone()));
        let (done, committed) = oneshot::channel();
        match queue.send((write, done)) {
            Ok(()) => Pending::Queued(committed),
            Err(mpsc::error::SendError((write, _))) => {
                Pending::Direct(self.db.clone(), self.gate.clone(), Box::new(write))
            }
        }
    }
}

fn spawn(db: Db, gate: Gate) -> mpsc::UnboundedSender<Job> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Job>();
    tokio::spawn(async move {
        let mut batch: Vec<Job> = Vec::new();
        while let Some(first) = rx.recv().await {
            batch.push(first);
            // Let the tasks that are about to write queue their writes too:
            // a bigger batch costs one commit all the same.
            tokio::task::yield_now().await;
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
            let writes: Vec<&Write> = batch.iter().map(|(w, _)| w).collect();
            let result = apply(&db, &gate, &writes).await;
            drop(writes);
            match result {
                Ok(()) => {
                    for (_, done) in batch.drain(..) {
                        let _ = done.send(Ok(()));
                    }
                }
                Err(e) => {
                    tracing::warn!(error = ?e, writes = batch.len(), "batch failed; retrying its writes one by one");
                    for (write, done) in batch.drain(..) {
                        let result = apply(&db, &gate, &[&write]).await;
                        let _ = done.send(result.map_err(|e| e.to_string()));
                    }
                }
            }
        }
    });
    tx
}

/// Writes everything in one transaction: turns first, then verdicts, then
/// session replies and audit events.
async fn apply(db: &Db, gate: &Gate, writes: &[&Write]) -> Result<()> {
    let turns: Vec<&TurnRow> = writes
        .iter()
        .filter_map(|w| match w {
            Write::Turn(t) => Some(t),
            _ => None,
        })
        .collect();
    let finishes: Vec<&FinishRow> = writes
        .iter()
        .filter_map(|w| match w {
            Write::Finish(f) => Some(f),
            _ => None,
        })
        .collect();
    let replies: Vec<&ReplyRow> = writes
        .iter()
        .filter_map(|w| match w {
            Write::Reply(r) => Some(r),
            _ => None,
        })
        .collect();
    let audits: Vec<&AuditRow> = writes
        .iter()
        .filter_map(|w| match w {
            Write::Audit(a) => Some(a),
            _ => None,
        })
        .collect();
    let _gate = gate.lock().await;
    let mut tx = db.begin().await?;
    for chunk in pieces(&turns) {
        let mut q: QueryBuilder<Sqlite> = QueryBuilder::new(
            "INSERT INTO run_turns (id, run_id, seq, role, content, latency_ms, tokens_in, tokens_out, tool_calls, created_at) ",
        );
        q.push_values(chunk, |mut b, t| {
            b.push_bind(&t.id)
                .push_bind(&t.run_id)
                .push_bind(t.seq)
                .push_bind(t.role)
                .push_bind(&t.content)
                .push_bind(t.latency_ms)
                .push_bind(t.tokens_in)
                .push_bind(t.tokens_out)
                .push_bind(&t.tool_calls)
                .push_bind(t.created_at);
        });
        q.build().execute(&mut *tx).await?;
    }
    for chunk in pieces(&finishes) {
        let mut q: QueryBuilder<Sqlite> = QueryBuilder::new(
            "WITH v(id, verdict, check_results, metrics, error_reason, finished_at) AS (",
        );
        q.push_values(chunk, |mut b, f| {
            b.push_bind(&f.id)
                .push_bind(f.verdict)
                .push_bind(&f.check_results)
                .push_bind(&f.metrics)
                .push_bind(&f.error_reason)
                .push_bind(f.finished_at);
        });
        q.push(
            ") UPDATE runs SET status = 'done', verdict = v.verdict, check_results = v.check_results,
                 metrics = v.metrics, error_reason = v.error_reason, finished_at = v.finished_at
             FROM v WHERE runs.id = v.id",
        );
        q.build().execute(&mut *tx).await?;
    }
    for chunk in pieces(&replies) {
        let mut q: QueryBuilder<Sqlite> = QueryBuilder::new(
            "INSERT INTO session_turns (id, session_id, seq, role, content, latency_ms, created_at) ",
        );
        q.push_values(chunk, |mut b, r| {
            b.push_bind(&r.id)
                .push_bind(&r.session_id)
                .push_bind(r.seq)
                .push_bind("target")
                .push_bind(&r.content)
                .push_bind(r.latency_ms)
                .push_bind(r.at);
        });
        q.build().execute(&mut *tx).await?;
        let mut q: QueryBuilder<Sqlite> = QueryBuilder::new("WITH v(id, at) AS (");
        q.push_values(chunk, |mut b, r| {
            b.push_bind(&r.session_id).push_bind(r.at);
        });
        q.push(
            ") UPDATE exploration_sessions SET updated_at = max(updated_at, v.at)
             FROM v WHERE exploration_sessions.id = v.id",
        );
        q.build().execute(&mut *tx).await?;
    }
    for chunk in pieces(&audits) {
        let mut q: QueryBuilder<Sqlite> = QueryBuilder::new(
            "INSERT INTO audit_events (id, at, actor, action, subject, outcome) ",
        );
        q.push_values(chunk, |mut b, a| {
            b.push_bind(&a.id)
                .push_bind(a.at)
                .push_bind(&a.actor)
                .push_bind(&a.action)
                .push_bind(&a.subject)
                .push_bind(&a.outcome);
        });
        q.build().execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::pieces;

    #[test]
    fn batches_are_cut_into_the_few_statement_sizes() {
        let rows: Vec<u32> = (0..299).collect();
        let sizes: Vec<usize> = pieces(&rows).iter().map(|p| p.len()).collect();
        assert_eq!(sizes, [256, 32, 4, 4, 1, 1, 1]);
        let joined: Vec<u32> = pieces(&rows).concat();
        assert_eq!(joined, rows, "every row once, in order");
        assert!(pieces::<u32>(&[]).is_empty());
    }
}
