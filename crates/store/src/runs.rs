//! Fixed runs: the scheduler's queries, claiming one run, restart
//! recovery, and the runs and turns as listed (the hot claims, turns and
//! verdicts go through the [`writer`](super::writer)).

use crate::tallies::RunTallies;
use crate::writer::ClaimedRow;
use crate::{Store, Tx};
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Error, Result};
use agenteval_domain::ids::{CampaignId, RunId};
use agenteval_domain::parse_id;
use agenteval_domain::run::{Run, RunTurn, Verdict};
use chrono::{DateTime, Utc};
use sqlx::Row;
use sqlx::sqlite::SqliteRow;
use uuid::Uuid;

// The scheduler's queries run each step and claiming runs once per run (a
// hot path): their contexts are static.
impl Store {
    /// Starts the scheduled campaigns whose window began by `now`; returns
    /// their ids.
    pub async fn start_due_campaigns(&self, now: DateTime<Utc>) -> Result<Vec<Uuid>> {
        let now = to_ms(now);
        let started: Vec<String> = sqlx::query_scalar(
            "UPDATE campaigns SET status = 'running', updated_at = ? WHERE status = 'scheduled' AND window_start <= ?
             RETURNING id",
        )
        .bind(now)
        .bind(now)
        .fetch_all(self.sqlite_pool()?)
        .await
        .context("store: starting the due campaigns")?;
        started
            .iter()
            .map(|id| parse_id(id))
            .collect::<Result<_>>()
            .context("store: starting the due campaigns")
    }

    /// The largest concurrency limit among the targets of running
    /// campaigns; `None` when no campaign runs.
    pub async fn most_concurrency_running(&self) -> Result<Option<i64>> {
        sqlx::query_scalar(
            "SELECT max(t.concurrency) FROM campaigns c JOIN targets t ON t.id = c.target_id
             WHERE c.status = 'running'",
        )
        .fetch_one(self.sqlite_pool()?)
        .await
        .context("store: reading the concurrency of the running campaigns")
    }

    /// The running campaigns whose window ended by `now` and whose runs
    /// are all done.
    pub async fn campaigns_to_finalize(&self, now: DateTime<Utc>) -> Result<Vec<Uuid>> {
        let ending: Vec<String> = sqlx::query_scalar(
            "SELECT id FROM campaigns c WHERE status = 'running' AND window_end <= ?
               AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.campaign_id = c.id AND r.status != 'done')",
        )
        .bind(to_ms(now))
        .fetch_all(self.sqlite_pool()?)
        .await
        .context("store: reading the campaigns to finalize")?;
        ending
            .iter()
            .map(|id| parse_id(id))
            .collect::<Result<_>>()
            .context("store: reading the campaigns to finalize")
    }

    /// Claims one run if it is still pending (`pending -> running`, started
    /// at `now`); `None` when it was claimed elsewhere or is not pending.
    pub async fn claim_run(&self, run_id: RunId, now: DateTime<Utc>) -> Result<Option<ClaimedRow>> {
        let claimed = sqlx::query(
            "UPDATE runs SET status = 'running', started_at = ? WHERE id = ? AND status = 'pending'
             RETURNING id, campaign_id, scenario_id, offset_ms",
        )
        .bind(to_ms(now))
        .bind(run_id.to_string())
        .fetch_optional(self.sqlite_pool()?)
        .await
        .context("store: claiming a run")?;
        claimed
            .as_ref()
            .map(claimed_from_row)
            .transpose()
            .context("store: claiming a run")
    }

    /// The runs of a campaign in plan order.
    pub async fn campaign_runs(&self, campaign_id: CampaignId) -> Result<Vec<Run>> {
        let doing = move || format!("store: reading the runs of campaign {campaign_id}");
        let rows = sqlx::query("SELECT * FROM runs WHERE campaign_id = ? ORDER BY seq")
            .bind(campaign_id.to_string())
            .fetch_all(self.sqlite_pool()?)
            .await
            .with_context(doing)?;
        rows.iter()
            .map(run_from_row)
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// One run's conversation in order; not found when the run does not
    /// exist.
    pub async fn run_turns(&self, run_id: RunId) -> Result<Vec<RunTurn>> {
        let doing = move || format!("store: reading the turns of run {run_id}");
        let exists: Option<i64> = sqlx::query_scalar("SELECT 1 FROM runs WHERE id = ?")
            .bind(run_id.to_string())
            .fetch_optional(self.sqlite_pool()?)
            .await
            .with_context(|| format!("store: looking up run {run_id}"))?;
        if exists.is_none() {
            return Err(Error::not_found("run", run_id));
        }
        let rows = sqlx::query("SELECT * FROM run_turns WHERE run_id = ? ORDER BY seq")
            .bind(run_id.to_string())
            .fetch_all(self.sqlite_pool()?)
            .await
            .with_context(doing)?;
        rows.iter()
            .map(run_turn_from_row)
            .collect::<Result<_>>()
            .with_context(doing)
    }
}

impl Tx<'_> {
    /// Marks the runs cut mid-flight by a crash (still `running`) as
    /// `error` / `interrupted`, finished at `now`, with their tallies; their
    /// committed turns stay. Returns how many were marked.
    pub fn finish_interrupted_runs(&self, now: DateTime<Utc>) -> Result<u64> {
        RunTallies::finish_bare(
            self.sqlite()?,
            "UPDATE runs SET status = 'done', verdict = 'error', error_reason = 'interrupted', finished_at = ?
             WHERE status != 'done' AND status = 'running'
             RETURNING id, campaign_id, scenario_id, offset_ms",
            [to_ms(now)],
            Verdict::Error,
            "interrupted",
        )
        .context("store: marking the runs cut by a restart as interrupted")
    }
}

/// A run claimed one by one, through the pool (see [`Store::claim_run`]).
fn claimed_from_row(row: &SqliteRow) -> Result<ClaimedRow> {
    Ok(ClaimedRow {
        id: parse_id(row.try_get("id")?)?,
        campaign_id: parse_id(row.try_get("campaign_id")?)?,
        scenario_id: row.try_get::<&str, _>("scenario_id")?.into(),
        offset_ms: row.try_get("offset_ms")?,
    })
}

fn run_turn_from_row(r: &SqliteRow) -> Result<RunTurn> {
    Ok(RunTurn {
        seq: r.try_get::<i64, _>("seq")? as u32,
        role: r.try_get("role")?,
        content: r.try_get("content")?,
        latency_ms: r.try_get::<Option<i64>, _>("latency_ms")?.map(|v| v as u64),
        tokens_in: r.try_get::<Option<i64>, _>("tokens_in")?.map(|v| v as u32),
        tokens_out: r.try_get::<Option<i64>, _>("tokens_out")?.map(|v| v as u32),
        tool_calls: r
            .try_get::<Option<String>, _>("tool_calls")?
            .map(|s| serde_json::from_str(&s))
            .transpose()?
            .unwrap_or_default(),
        created_at: from_ms(r.try_get("created_at")?),
    })
}

/// A run from a `SELECT * FROM runs` row.
pub fn run_from_row(row: &SqliteRow) -> Result<Run> {
    Ok(Run {
        id: parse_id(row.try_get("id")?)?,
        campaign_id: parse_id(row.try_get("campaign_id")?)?,
        scenario_id: row.try_get("scenario_id")?,
        seq: row.try_get::<i64, _>("seq")? as u32,
        offset_ms: row.try_get("offset_ms")?,
        scheduled_at: from_ms(row.try_get("scheduled_at")?),
        status: row.try_get("status")?,
        verdict: row
            .try_get::<Option<String>, _>("verdict")?
            .as_deref()
            .and_then(Verdict::parse),
        check_results: row
            .try_get::<Option<String>, _>("check_results")?
            .map(|s| serde_json::from_str(&s))
            .transpose()?
            .unwrap_or_default(),
        metrics: row
            .try_get::<Option<String>, _>("metrics")?
            .map(|s| serde_json::from_str(&s))
            .transpose()?,
        error_reason: row.try_get("error_reason")?,
        started_at: row.try_get::<Option<i64>, _>("started_at")?.map(from_ms),
        finished_at: row.try_get::<Option<i64>, _>("finished_at")?.map(from_ms),
    })
}
