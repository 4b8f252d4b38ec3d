//! Reads that check what is stored, for tests, benches and operators.
//!
//! The engine's own reads answer product questions (a report, a page of
//! runs); these answer "which rows are there": counts, a stored turn, the
//! report's tallies recounted from the rows they count, SQLite's integrity
//! check. They let the test suites, the crash test and the benchmarks hold
//! the product to its database without a connection or SQL of their own.
//!
//! On a running platform through `Platform::inspect` (the platform's own
//! pool, so that a timed count costs what it costs the engine); on a data
//! folder that another process wrote (a server that was killed, a command
//! that ran) through [`Inspect::open_read_only`], which changes nothing in
//! the folder, so that it is seen as that process left it.

use super::paging::run_from_row;
use super::{DB_FILE, Store};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, RunId, SessionId};
use agenteval_domain::run::Run;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions, SqliteRow};
use sqlx::{Row, SqlitePool};
use std::path::Path;
use uuid::Uuid;

/// Reads of what is stored (see the [module](self)).
#[derive(Debug, Clone)]
pub struct Inspect {
    pub(crate) pool: SqlitePool,
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
        match &self.backend {
            super::Backend::Sqlite { pool, .. } => Inspect { pool: pool.clone() },
            super::Backend::Postgres { .. } => {
                unimplemented!("inspecting a PostgreSQL store is not available yet")
            }
        }
    }
}

impl Inspect {
    /// Opens the database in `data_dir` read-only, without migrating or
    /// repairing anything: fails when there is no database there.
    pub async fn open_read_only(data_dir: &Path) -> Result<Self> {
        let options = SqliteConnectOptions::new()
            .filename(data_dir.join(DB_FILE))
            .read_only(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await
            .with_context(|| format!("store: opening {} read-only", data_dir.display()))?;
        Ok(Self { pool })
    }

    /// SQLite's integrity check: `ok` for a sound file, else what is wrong.
    pub async fn integrity_check(&self) -> Result<String> {
        sqlx::query_scalar("PRAGMA integrity_check")
            .fetch_one(&self.pool)
            .await
            .context("store: checking the database's integrity")
    }

    /// The version of AgentEval that last opened the database.
    pub async fn written_by(&self) -> Result<Option<String>> {
        sqlx::query_scalar("SELECT value FROM app_meta WHERE key = 'written_by'")
            .fetch_optional(&self.pool)
            .await
            .context("store: reading the version that wrote the database")
    }

    /// The whole audit trail, oldest first (then by action).
    pub async fn audit_events(&self) -> Result<Vec<AuditEvent>> {
        let doing = "store: reading the audit trail";
        let rows = sqlx::query(
            "SELECT id, at, actor, action, subject, outcome, detail FROM audit_events
             ORDER BY at, action",
        )
        .fetch_all(&self.pool)
        .await
        .context(doing)?;
        rows.iter()
            .map(audit_event_from_row)
            .collect::<Result<_>>()
            .context(doing)
    }

    /// How many scenarios are stored.
    pub async fn scenario_count(&self) -> Result<i64> {
        sqlx::query_scalar("SELECT COUNT(*) FROM scenarios")
            .fetch_one(&self.pool)
            .await
            .context("store: counting the scenarios")
    }

    /// How many fixed runs, of every campaign, have `status`.
    pub async fn run_count_with_status(&self, status: &str) -> Result<i64> {
        sqlx::query_scalar("SELECT count(*) FROM runs WHERE status = ?")
            .bind(status)
            .fetch_one(&self.pool)
            .await
            .with_context(|| format!("store: counting the runs with status {status}"))
    }

    /// How many turns are stored, sessions' and runs' together: a bare
    /// scan of the two turn tables, the floor a report is measured against.
    pub async fn turn_count(&self) -> Result<i64> {
        sqlx::query_scalar(
            "SELECT (SELECT count(*) FROM session_turns) + (SELECT count(*) FROM run_turns)",
        )
        .fetch_one(&self.pool)
        .await
        .context("store: counting the turns")
    }

    /// A campaign's runs, errors and target replies, counted from the rows.
    pub async fn campaign_run_counts(&self, campaign_id: CampaignId) -> Result<RunCounts> {
        let (runs, errors, target_turns): (i64, i64, i64) = sqlx::query_as(
            "SELECT count(*), coalesce(sum(verdict = 'error'), 0),
                    (SELECT count(*) FROM run_turns t JOIN runs r ON r.id = t.run_id
                     WHERE r.campaign_id = ?1 AND t.role = 'target')
             FROM runs WHERE campaign_id = ?1",
        )
        .bind(campaign_id.to_string())
        .fetch_one(&self.pool)
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
        let doing = move || format!("store: reading the runs of campaign {campaign_id}");
        let rows = sqlx::query("SELECT * FROM runs WHERE campaign_id = ? ORDER BY seq")
            .bind(campaign_id.to_string())
            .fetch_all(&self.pool)
            .await
            .with_context(doing)?;
        rows.iter()
            .map(run_from_row)
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// The content of turn `seq` of a run, if it is stored.
    pub async fn run_turn_content(&self, run_id: RunId, seq: u32) -> Result<Option<String>> {
        sqlx::query_scalar("SELECT content FROM run_turns WHERE run_id = ? AND seq = ?")
            .bind(run_id.to_string())
            .bind(i64::from(seq))
            .fetch_optional(&self.pool)
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
        sqlx::query_scalar("SELECT content FROM session_turns WHERE session_id = ? AND seq = ?")
            .bind(session_id.to_string())
            .bind(i64::from(seq))
            .fetch_optional(&self.pool)
            .await
            .with_context(|| format!("store: reading turn {seq} of session {session_id}"))
    }

    /// How many runs, of every campaign, have turns missing or doubled:
    /// their turns' numbers are not one contiguous range.
    pub async fn runs_with_turn_gaps(&self) -> Result<i64> {
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM (SELECT run_id, COUNT(*) AS n, MIN(seq) AS lo, MAX(seq) AS hi
             FROM run_turns GROUP BY run_id) WHERE hi - lo + 1 != n",
        )
        .fetch_one(&self.pool)
        .await
        .context("store: counting the runs with turns missing")
    }

    /// A campaign's exploration sessions as stored, in no set order.
    pub async fn campaign_sessions(&self, campaign_id: CampaignId) -> Result<Vec<StoredSession>> {
        let doing = move || format!("store: reading the sessions of campaign {campaign_id}");
        let rows: Vec<(String, String, i64)> = sqlx::query_as(
            "SELECT id, status, turn_count FROM exploration_sessions WHERE campaign_id = ?",
        )
        .bind(campaign_id.to_string())
        .fetch_all(&self.pool)
        .await
        .with_context(doing)?;
        rows.into_iter()
            .map(|(id, status, turn_count)| {
                Ok(StoredSession {
                    id: agenteval_domain::parse_id(&id)?,
                    status,
                    turn_count,
                })
            })
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// How many user messages the sessions of a campaign hold.
    pub async fn session_user_turns(&self, campaign_id: CampaignId) -> Result<i64> {
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM session_turns t JOIN exploration_sessions s ON s.id = t.session_id
             WHERE s.campaign_id = ? AND t.role = 'user'",
        )
        .bind(campaign_id.to_string())
        .fetch_one(&self.pool)
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
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM ledger_entries WHERE campaign_id = ? AND action = ? AND allowed = 1",
        )
        .bind(campaign_id.to_string())
        .bind(action)
        .fetch_one(&self.pool)
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
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM ledger_entries WHERE campaign_id = ? AND action = ? AND allowed = 0
             AND reason_code = ?",
        )
        .bind(campaign_id.to_string())
        .bind(action)
        .bind(reason_code)
        .fetch_one(&self.pool)
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
        let doing =
            move || format!("store: counting the runs of campaign {campaign_id} by verdict");
        let campaign = campaign_id.to_string();
        let rows = sqlx::query_as(
            "SELECT verdict, count(*) FROM runs WHERE campaign_id = ? AND status = 'done'
             AND verdict IS NOT NULL GROUP BY verdict ORDER BY verdict",
        )
        .bind(&campaign)
        .fetch_all(&self.pool)
        .await
        .with_context(doing)?;
        let tallied = sqlx::query_as(
            "SELECT verdict, sum(runs) FROM run_verdict_tally WHERE campaign_id = ?
             GROUP BY verdict HAVING sum(runs) > 0 ORDER BY verdict",
        )
        .bind(&campaign)
        .fetch_all(&self.pool)
        .await
        .with_context(doing)?;
        Ok(Recount { rows, tallied })
    }

    /// How many target replies with a latency a campaign's finished runs
    /// hold, from the turns and from the latency tally.
    pub async fn reply_latencies(&self, campaign_id: CampaignId) -> Result<Recount<i64>> {
        let doing =
            move || format!("store: counting the reply latencies of campaign {campaign_id}");
        let campaign = campaign_id.to_string();
        let rows = sqlx::query_scalar(
            "SELECT count(*) FROM run_turns t JOIN runs r ON r.id = t.run_id WHERE r.campaign_id = ?
             AND r.status = 'done' AND t.role = 'target' AND t.latency_ms IS NOT NULL",
        )
        .bind(&campaign)
        .fetch_one(&self.pool)
        .await
        .with_context(doing)?;
        let tallied = sqlx::query_scalar(
            "SELECT coalesce(sum(count), 0) FROM run_latency_tally WHERE campaign_id = ?",
        )
        .bind(&campaign)
        .fetch_one(&self.pool)
        .await
        .with_context(doing)?;
        Ok(Recount { rows, tallied })
    }

    /// A campaign's exploration sessions per status, from the sessions and
    /// from the session tally (statuses without sessions left out), by
    /// status.
    pub async fn sessions_by_status(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Recount<Vec<(String, i64)>>> {
        let doing =
            move || format!("store: counting the sessions of campaign {campaign_id} by status");
        let campaign = campaign_id.to_string();
        let rows = sqlx::query_as(
            "SELECT status, count(*) FROM exploration_sessions WHERE campaign_id = ?
             GROUP BY status ORDER BY status",
        )
        .bind(&campaign)
        .fetch_all(&self.pool)
        .await
        .with_context(doing)?;
        let tallied = sqlx::query_as(
            "SELECT status, sum(sessions) FROM session_tally WHERE campaign_id = ?
             GROUP BY status HAVING sum(sessions) > 0 ORDER BY status",
        )
        .bind(&campaign)
        .fetch_all(&self.pool)
        .await
        .with_context(doing)?;
        Ok(Recount { rows, tallied })
    }
}

fn audit_event_from_row(row: &SqliteRow) -> Result<AuditEvent> {
    Ok(AuditEvent {
        id: row.try_get("id")?,
        at_ms: row.try_get("at")?,
        actor: row.try_get("actor")?,
        action: row.try_get("action")?,
        subject: row.try_get("subject")?,
        outcome: row.try_get("outcome")?,
        detail: row.try_get("detail")?,
    })
}
