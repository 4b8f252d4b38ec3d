//! Group commit for the hot writes: fixed-run turns, run verdicts, the
//! target's replies in exploration sessions, audit events.
//!
//! Hundreds of runs execute at once; their writes queue to one task that
//! commits everything waiting in a single transaction, with multi-row
//! statements. One transaction per batch instead of one per row is what
//! lets the engine keep up with a fast target. A run queues its turns as
//! they happen and its verdict after them. Writes are applied in the order
//! they were queued, so a verdict is committed with or after its turns; if
//! one of a run's turns could not be stored, its verdict is stored as
//! `error` (`storage_error`) instead, and [`Committed::TurnsMissing`] tells
//! the run so. A verdict is thus never stored over missing turns.
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

/// How a queued write was committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Committed {
    AsQueued,
    /// A run's verdict, stored as `error` because one of its turns could
    /// not be stored.
    TurnsMissing,
}

type Outcome = std::result::Result<Committed, String>;
type Job = (Write, oneshot::Sender<Outcome>);

type Gate = Arc<tokio::sync::Mutex<()>>;

/// The queue in front of the writer task, started on first use.
pub(crate) struct Writer {
    db: Db,
    gate: Gate,
    queue: OnceLock<mpsc::UnboundedSender<Job>>,
}

/// A queued write; [`Pending::committed`] waits for its commit.
pub(crate) enum Pending {
    Queued(oneshot::Receiver<Outcome>),
    /// The writer task is gone: written directly when awaited.
    Direct(Db, Gate, Box<Write>),
}

impl Pending {
    pub async fn committed(self) -> Result<Committed> {
        match self {
            Self::Queued(rx) => match rx.await {
                Ok(result) => result.map_err(|e| Error::internal(anyhow::anyhow!(e))),
                // The task stopped before answering: its runtime is ending.
                Err(_) => Err(Error::internal(anyhow::anyhow!("the writer stopped"))),
            },
            Self::Direct(db, gate, write) => {
                apply(&db, &gate, &[&write]).await?;
                Ok(Committed::AsQueued)
            }
        }
    }

    /// Whether the write still needs [`Pending::committed`] to be awaited
    /// to happen at all (the writer task is gone). A queued write is
    /// committed whether or not anyone waits for it.
    pub fn is_direct(&self) -> bool {
        matches!(self, Self::Direct(..))
    }
}

/// A verdict stored in place of one whose run lost a turn.
pub(crate) const TURN_LOST: &str = "storage_error: a turn could not be stored";

/// Runs with a turn that could not be stored, until their verdict comes.
#[derive(Default)]
struct LostTurns(std::collections::HashSet<String>);

impl LostTurns {
    /// Turns `write` into an `error` verdict if it is the verdict of a run
    /// that lost a turn.
    fn downgrade(&mut self, write: &mut Write) -> Committed {
        match write {
            Write::Finish(f) if self.0.remove(&f.id) => {
                f.verdict = "error";
                f.error_reason = Some(TURN_LOST.into());
                Committed::TurnsMissing
            }
            _ => Committed::AsQueued,
        }
    }

    fn failed(&mut self, write: &Write) {
        if let Write::Turn(t) = write {
            self.0.insert(t.run_id.clone());
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
        let mut lost = LostTurns::default();
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
            let outcomes: Vec<Committed> =
                batch.iter_mut().map(|(w, _)| lost.downgrade(w)).collect();
            let writes: Vec<&Write> = batch.iter().map(|(w, _)| w).collect();
            let result = apply(&db, &gate, &writes).await;
            drop(writes);
            match result {
                Ok(()) => {
                    for ((_, done), outcome) in batch.drain(..).zip(outcomes) {
                        let _ = done.send(Ok(outcome));
                    }
                }
                Err(e) => {
                    tracing::warn!(error = ?e, writes = batch.len(), "batch failed; retrying its writes one by one");
                    for ((mut write, done), outcome) in batch.drain(..).zip(outcomes) {
                        // A turn that fails here may be followed by its
                        // run's verdict in this very batch.
                        let outcome = match lost.downgrade(&mut write) {
                            Committed::AsQueued => outcome,
                            downgraded => downgraded,
                        };
                        let result = apply(&db, &gate, &[&write]).await;
                        if let Err(e) = &result {
                            tracing::error!(error = ?e, "a write could not be stored");
                            lost.failed(&write);
                        }
                        let _ = done.send(result.map(|()| outcome).map_err(|e| e.to_string()));
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
    use super::*;
    use crate::Platform;
    use crate::campaign::{CreateCampaign, Plan, PlanEntry};
    use crate::scenario::{Scenario, ScenarioTurn};
    use crate::target::CreateTarget;

    fn turn(run_id: &str, seq: i64) -> Write {
        Write::Turn(TurnRow {
            id: uuid::Uuid::now_v7().to_string(),
            run_id: run_id.into(),
            seq,
            role: "user",
            content: format!("turn {seq}"),
            latency_ms: None,
            tokens_in: None,
            tokens_out: None,
            tool_calls: None,
            created_at: 1,
        })
    }

    fn finish(run_id: &str) -> Write {
        Write::Finish(FinishRow {
            id: run_id.into(),
            verdict: "passed",
            check_results: "[]".into(),
            metrics: serde_json::to_string(&crate::fixed::RunMetrics::default()).unwrap(),
            error_reason: None,
            finished_at: 2,
        })
    }

    #[tokio::test]
    async fn a_verdict_over_a_lost_turn_is_stored_as_an_error_and_the_rest_of_the_batch_lands() {
        let dir = tempfile::tempdir().unwrap();
        let p = Platform::builder(dir.path()).open().await.unwrap();
        p.scenarios.insert_all([Scenario {
            id: "s".into(),
            title: "S".into(),
            pack: "test".into(),
            tags: vec![],
            group: None,
            system: None,
            facts: vec![],
            key_fields: vec![],
            tools: vec![],
            turns: vec![ScenarioTurn {
                user: "hi".into(),
                checks: vec![],
            }],
            source_file: "s.yaml".into(),
            source_line: 1,
            content_hash: "h".into(),
        }]);
        let target = p
            .create_target(CreateTarget::builtin_demo("demo"))
            .await
            .unwrap();
        let campaign = p
            .create_campaign(CreateCampaign {
                name: "c".into(),
                target_id: target.id,
                plan: Some(Plan {
                    entries: vec![PlanEntry {
                        scenario_id: "s".into(),
                        rounds: Some(2),
                        ..Default::default()
                    }],
                }),
                duration_hours: Some(1.0),
                ..Default::default()
            })
            .await
            .unwrap();
        let runs = p.list_runs(campaign.id).await.unwrap();
        let (lossy, sound) = (runs[0].id.to_string(), runs[1].id.to_string());

        // Queued together, so they meet in one batch; the second turn of
        // `lossy` repeats a (run, seq) pair and cannot be stored.
        let queued: Vec<Pending> = [
            turn(&lossy, 0),
            turn(&lossy, 0),
            turn(&sound, 0),
            finish(&lossy),
            finish(&sound),
        ]
        .into_iter()
        .map(|w| p.writer.enqueue(w))
        .collect();
        let mut outcomes = Vec::new();
        for q in queued {
            outcomes.push(q.committed().await.map_err(|e| e.body.code));
        }
        assert!(outcomes[0].is_ok() && outcomes[2].is_ok(), "{outcomes:?}");
        assert!(outcomes[1].is_err(), "the repeated turn fails alone");
        assert_eq!(outcomes[3], Ok(Committed::TurnsMissing));
        assert_eq!(outcomes[4], Ok(Committed::AsQueued));

        let runs = p.list_runs(campaign.id).await.unwrap();
        assert_eq!(runs[0].verdict, Some(crate::fixed::Verdict::Error));
        assert_eq!(runs[0].error_reason.as_deref(), Some(TURN_LOST));
        assert_eq!(runs[1].verdict, Some(crate::fixed::Verdict::Passed));
        assert_eq!(p.run_turns(runs[0].id).await.unwrap().len(), 1);
        assert_eq!(p.run_turns(runs[1].id).await.unwrap().len(), 1);
    }

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
