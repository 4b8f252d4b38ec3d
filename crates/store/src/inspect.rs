//! Reads that check what is stored, for tests, benches and operators.
//!
//! The engine's own reads answer product questions (a report, a page of
//! runs); these answer "which rows are there": counts, a stored turn, the
//! report's tallies recounted from the rows they count, SQLite's integrity
//! check. They let the test suites, the crash test and the benchmarks hold
//! the product to its database without a connection or SQL of their own.
//!
//! On a running platform through `Platform::inspect` (the connections the
//! engine reads on, so that a timed count costs what it costs the engine:
//! SQLite's read-only connections, or the PostgreSQL pool); on a data
//! folder that another process wrote (a server that was killed, a command
//! that ran) through [`Inspect::open_read_only`], which changes nothing in
//! the folder, so that it is seen as that process left it.

use super::readers::Readers;
use super::runs::run_from_row;
use super::sql::{Conn, Row, args};
use super::{DB_FILE, Store};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, RunId, SessionId};
use agenteval_domain::run::Run;
use std::path::Path;
use std::sync::Arc;
use uuid::Uuid;

/// Reads of what is stored (see the [module](self)).
#[derive(Clone)]
pub struct Inspect {
    db: Db,
}

/// Where [`Inspect`] reads: SQLite's read-only connections, or the
/// PostgreSQL pool.
#[derive(Clone)]
enum Db {
    Sqlite(Arc<Readers>),
    Postgres(sqlx::PgPool),
}

impl std::fmt::Debug for Inspect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let backend = match self.db {
            Db::Sqlite(_) => "sqlite",
            Db::Postgres(_) => "postgres",
        };
        f.debug_struct("Inspect")
            .field("backend", &backend)
            .finish()
    }
}

/// One row of the audit trail, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEvent {
    pub id: String,
    /// Milliseconds since the Unix epoch.
    pub at_ms: i64,
    pub actor: String,
    pub action: String,
    pub subject: Option<String>,
    pub outcome: String,
    /// JSON, when the event carries details.
    pub detail: Option<String>,
}

/// An exploration session's row as the budget accounts for it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredSession {
    pub id: Uuid,
    pub status: String,
    pub turn_count: i64,
}

/// A campaign's fixed runs as counted after a benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunCounts {
    pub runs: u64,
    /// Runs whose verdict is `error`.
    pub errors: u64,
    /// The target's replies in the runs' turns.
    pub target_turns: u64,
}

/// A figure counted twice: from the rows, and from the report's tally
/// that the engine keeps with them. They agree unless a write was lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recount<T> {
    pub rows: T,
    pub tallied: T,
}

impl Store {
    /// Reads of what this store holds (see [`Inspect`]).
    pub fn inspect(&self) -> Inspect {
        let db = match &self.backend {
            super::Backend::Sqlite { readers, .. } => Db::Sqlite(readers.clone()),
            super::Backend::Postgres { pool, .. } => Db::Postgres(pool.clone()),
        };
        Inspect { db }
    }
}

impl Inspect {
    /// Opens the database in `data_dir` read-only, without migrating or
    /// repairing anything: fails when there is no database there.
    pub async fn open_read_only(data_dir: &Path) -> Result<Self> {
        let inspect = Self {
            db: Db::Sqlite(Arc::new(Readers::new(data_dir.join(DB_FILE)))),
        };
        inspect
            .read(|c| c.value::<i64>("SELECT count(*) FROM sqlite_master", args![]))
            .await
            .with_context(|| format!("store: opening {} read-only", data_dir.display()))?;
        Ok(inspect)
    }

    /// Runs `work` on a connection of its own: one of SQLite's read-only
    /// connections, or a PostgreSQL read-only snapshot.
    pub(crate) async fn read<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Conn<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        match &self.db {
            Db::Sqlite(readers) => readers.read(move |conn| work(&Conn::Sqlite(conn))).await,
            Db::Postgres(pool) => {
                super::postgres::run(pool, super::postgres::Mode::Snapshot, move |session| {
                    work(&Conn::Postgres(session))
                })
                .await
            }
        }
    }

    /// SQLite's integrity check: `ok` for a sound file, else what is wrong.
    ///
    /// On PostgreSQL always `ok`: the server checks its own pages and
    /// keeps its own consistency (write-ahead log, checksums when the
    /// cluster has them), and has no check a client can run in its place.
    pub async fn integrity_check(&self) -> Result<String> {
        self.read(|c| {
            if c.is_postgres() {
                return Ok("ok".to_string());
            }
            c.value("PRAGMA integrity_check", args![])
        })
        .await
        .context("store: checking the database's integrity")
    }

    /// The version of AgentEval that last opened the database.
    pub async fn written_by(&self) -> Result<Option<String>> {
        self.read(|c| {
            c.row(
                "SELECT value FROM app_meta WHERE key = 'written_by'",
                args![],
                |r| r.get(0),
            )
        })
        .await
        .context("store: reading the version that wrote the database")
    }

    /// The whole audit trail, oldest first (then by action).
    pub async fn audit_events(&self) -> Result<Vec<AuditEvent>> {
        self.read(|c| {
            c.rows(
                "SELECT id, at, actor, action, subject, outcome, detail FROM audit_events
                 ORDER BY at, action",
                args![],
                audit_event_from_row,
            )
        })
        .await
        .context("store: reading the audit trail")
    }

    /// How many scenarios are stored.
    pub async fn scenario_count(&self) -> Result<i64> {
        self.read(|c| c.value("SELECT COUNT(*) FROM scenarios", args![]))
            .await
            .context("store: counting the scenarios")
    }

    /// How many fixed runs, of every campaign, have `status`.
    pub async fn run_count_with_status(&self, status: &str) -> Result<i64> {
        let owned = status.to_string();
        self.read(move |c| c.value("SELECT count(*) FROM runs WHERE status = ?", args![owned]))
            .await
            .with_context(|| format!("store: counting the runs with status {status}"))
    }

    /// How many turns are stored, sessions' and runs' together: a bare
    /// scan of the two turn tables, the floor a report is measured against.
    pub async fn turn_count(&self) -> Result<i64> {
        self.read(|c| {
            c.value(
                "SELECT (SELECT count(*) FROM session_turns) + (SELECT count(*) FROM run_turns)",
                args![],
            )
        })
        .await
        .context("store: counting the turns")
    }

    /// A campaign's runs, errors and target replies, counted from the rows.
    pub async fn campaign_run_counts(&self, campaign_id: CampaignId) -> Result<RunCounts> {
        let campaign = campaign_id.to_string();
        let (runs, errors, target_turns) = self
            .read(move |c| {
                c.row(
                    "SELECT count(*),
                            CAST(coalesce(sum(CASE WHEN verdict = 'error' THEN 1 ELSE 0 END), 0) AS BIGINT),
                            (SELECT count(*) FROM run_turns t JOIN runs r ON r.id = t.run_id
                             WHERE r.campaign_id = ? AND t.role = 'target')
                     FROM runs WHERE campaign_id = ?",
                    args![&campaign, &campaign],
                    |r| Ok((r.get::<i64>(0)?, r.get::<i64>(1)?, r.get::<i64>(2)?)),
                )?
                .ok_or_else(|| {
                    agenteval_domain::error::Error::internal(anyhow::anyhow!(
                        "a count returned no row"
                    ))
                })
            })
            .await
            .with_context(|| format!("store: counting the runs of campaign {campaign_id}"))?;
        Ok(RunCounts {
            runs: runs as u64,
            errors: errors as u64,
            target_turns: target_turns as u64,
        })
    }

    /// A campaign's runs as stored, in plan order.
    pub async fn campaign_runs(&self, campaign_id: CampaignId) -> Result<Vec<Run>> {
        self.read(move |c| {
            c.rows(
                "SELECT * FROM runs WHERE campaign_id = ? ORDER BY seq",
                args![campaign_id.to_string()],
                run_from_row,
            )
        })
        .await
        .with_context(move || format!("store: reading the runs of campaign {campaign_id}"))
    }

    /// The content of turn `seq` of a run, if it is stored.
    pub async fn run_turn_content(&self, run_id: RunId, seq: u32) -> Result<Option<String>> {
        self.read(move |c| {
            c.row(
                "SELECT content FROM run_turns WHERE run_id = ? AND seq = ?",
                args![run_id.to_string(), seq],
                |r| r.get(0),
            )
        })
        .await
        .with_context(|| format!("store: reading turn {seq} of run {run_id}"))
    }

    /// The content of turn `seq` of an exploration session, if it is
    /// stored.
    pub async fn session_turn_content(
        &self,
        session_id: SessionId,
        seq: u32,
    ) -> Result<Option<String>> {
        self.read(move |c| {
            c.row(
                "SELECT content FROM session_turns WHERE session_id = ? AND seq = ?",
                args![session_id.to_string(), seq],
                |r| r.get(0),
            )
        })
        .await
        .with_context(|| format!("store: reading turn {seq} of session {session_id}"))
    }

    /// The runs, of every campaign, whose turns' numbers are not one
    /// contiguous range (a turn missing or doubled), each as
    /// `<run id>: <its turns' numbers>`.
    pub async fn runs_with_turn_gaps(&self) -> Result<Vec<String>> {
        let turns: Vec<(String, i64)> = self
            .read(|c| {
                c.rows(
                    "SELECT run_id, seq FROM run_turns WHERE run_id IN (
                         SELECT run_id FROM run_turns GROUP BY run_id
                         HAVING MAX(seq) - MIN(seq) + 1 != COUNT(*))
                     ORDER BY run_id, seq",
                    args![],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
            })
            .await
            .context("store: listing the runs with turns missing")?;
        let mut runs: Vec<(String, Vec<String>)> = Vec::new();
        for (run, seq) in turns {
            match runs.last_mut() {
                Some((last, seqs)) if *last == run => seqs.push(seq.to_string()),
                _ => runs.push((run, vec![seq.to_string()])),
            }
        }
        Ok(runs
            .into_iter()
            .map(|(run, seqs)| format!("{run}: {}", seqs.join(",")))
            .collect())
    }

    /// The runs being played now, per worker that claimed them (a worker
    /// is named `worker-<pid>-<random>`), by worker name.
    pub async fn running_runs_by_worker(&self) -> Result<Vec<(String, i64)>> {
        self.read(|c| {
            c.rows(
                "SELECT claimed_by, count(*) FROM runs
                 WHERE status = 'running' AND claimed_by IS NOT NULL
                 GROUP BY claimed_by ORDER BY claimed_by",
                args![],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
        })
        .await
        .context("store: counting the runs being played per worker")
    }

    /// A campaign's exploration sessions as stored, in no set order.
    pub async fn campaign_sessions(&self, campaign_id: CampaignId) -> Result<Vec<StoredSession>> {
        self.read(move |c| {
            c.rows(
                "SELECT id, status, turn_count FROM exploration_sessions WHERE campaign_id = ?",
                args![campaign_id.to_string()],
                |r| {
                    Ok(StoredSession {
                        id: r.uuid("id")?,
                        status: r.get("status")?,
                        turn_count: r.get("turn_count")?,
                    })
                },
            )
        })
        .await
        .with_context(move || format!("store: reading the sessions of campaign {campaign_id}"))
    }

    /// How many user messages the sessions of a campaign hold.
    pub async fn session_user_turns(&self, campaign_id: CampaignId) -> Result<i64> {
        self.read(move |c| {
            c.value(
                "SELECT COUNT(*) FROM session_turns t JOIN exploration_sessions s ON s.id = t.session_id
                 WHERE s.campaign_id = ? AND t.role = 'user'",
                args![campaign_id.to_string()],
            )
        })
        .await
        .with_context(|| format!("store: counting the user turns of campaign {campaign_id}"))
    }

    /// How many of a campaign's budget decisions on `action` (`create`,
    /// `message`, `close`) the ledger records as allowed.
    pub async fn allowed_ledger_entries(
        &self,
        campaign_id: CampaignId,
        action: &str,
    ) -> Result<i64> {
        let owned = action.to_string();
        self.read(move |c| {
            c.value(
                "SELECT COUNT(*) FROM ledger_entries WHERE campaign_id = ? AND action = ?
                 AND allowed = TRUE",
                args![campaign_id.to_string(), owned],
            )
        })
        .await
        .with_context(|| {
            format!("store: counting the allowed {action} decisions of campaign {campaign_id}")
        })
    }

    /// How many of a campaign's budget decisions on `action` the ledger
    /// records as refused for `reason_code`.
    pub async fn refused_ledger_entries(
        &self,
        campaign_id: CampaignId,
        action: &str,
        reason_code: &str,
    ) -> Result<i64> {
        let (owned_action, owned_code) = (action.to_string(), reason_code.to_string());
        self.read(move |c| {
            c.value(
                "SELECT COUNT(*) FROM ledger_entries WHERE campaign_id = ? AND action = ?
                 AND allowed = FALSE AND reason_code = ?",
                args![campaign_id.to_string(), owned_action, owned_code],
            )
        })
        .await
        .with_context(|| {
            format!(
                "store: counting the {action} decisions of campaign {campaign_id} refused for {reason_code}"
            )
        })
    }

    /// A campaign's finished runs per verdict, from the runs and from the
    /// verdict tally (verdicts without runs left out), by verdict.
    pub async fn runs_by_verdict(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Recount<Vec<(String, i64)>>> {
        let campaign = campaign_id.to_string();
        self.read(move |c| {
            let rows = c.rows(
                "SELECT verdict, count(*) FROM runs WHERE campaign_id = ? AND status = 'done'
                 AND verdict IS NOT NULL GROUP BY verdict ORDER BY verdict",
                args![&campaign],
                text_and_count,
            )?;
            let tallied = c.rows(
                "SELECT verdict, CAST(sum(runs) AS BIGINT) FROM run_verdict_tally
                 WHERE campaign_id = ? GROUP BY verdict HAVING sum(runs) > 0 ORDER BY verdict",
                args![&campaign],
                text_and_count,
            )?;
            Ok(Recount { rows, tallied })
        })
        .await
        .with_context(move || {
            format!("store: counting the runs of campaign {campaign_id} by verdict")
        })
    }

    /// How many target replies with a latency a campaign's finished runs
    /// hold, from the turns and from the latency tally.
    pub async fn reply_latencies(&self, campaign_id: CampaignId) -> Result<Recount<i64>> {
        let campaign = campaign_id.to_string();
        self.read(move |c| {
            let rows = c.value(
                "SELECT count(*) FROM run_turns t JOIN runs r ON r.id = t.run_id
                 WHERE r.campaign_id = ? AND r.status = 'done' AND t.role = 'target'
                 AND t.latency_ms IS NOT NULL",
                args![&campaign],
            )?;
            let tallied = c.value(
                "SELECT CAST(coalesce(sum(count), 0) AS BIGINT) FROM run_latency_tally
                 WHERE campaign_id = ?",
                args![&campaign],
            )?;
            Ok(Recount { rows, tallied })
        })
        .await
        .with_context(move || {
            format!("store: counting the reply latencies of campaign {campaign_id}")
        })
    }

    /// A campaign's exploration sessions per status, from the sessions and
    /// from the session tally (statuses without sessions left out), by
    /// status.
    pub async fn sessions_by_status(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Recount<Vec<(String, i64)>>> {
        let campaign = campaign_id.to_string();
        self.read(move |c| {
            let rows = c.rows(
                "SELECT status, count(*) FROM exploration_sessions WHERE campaign_id = ?
                 GROUP BY status ORDER BY status",
                args![&campaign],
                text_and_count,
            )?;
            let tallied = c.rows(
                "SELECT status, CAST(sum(sessions) AS BIGINT) FROM session_tally
                 WHERE campaign_id = ? GROUP BY status HAVING sum(sessions) > 0 ORDER BY status",
                args![&campaign],
                text_and_count,
            )?;
            Ok(Recount { rows, tallied })
        })
        .await
        .with_context(move || {
            format!("store: counting the sessions of campaign {campaign_id} by status")
        })
    }
}

fn text_and_count(row: &Row<'_>) -> Result<(String, i64)> {
    Ok((row.get(0)?, row.get(1)?))
}

fn audit_event_from_row(row: &Row<'_>) -> Result<AuditEvent> {
    Ok(AuditEvent {
        id: row.get("id")?,
        at_ms: row.get("at")?,
        actor: row.get("actor")?,
        action: row.get("action")?,
        subject: row.get("subject")?,
        outcome: row.get("outcome")?,
        detail: row.get("detail")?,
    })
}
