//! Fixed runs: the scheduler's queries, claiming one run, restart
//! recovery, and the runs and turns as listed (the hot claims, turns and
//! verdicts go through the [`writer`](super::writer)).

use crate::sql::{Row, Sql, args};
use crate::tallies::RunTallies;
use crate::writer::{ClaimedRow, claimed_from_row};
use crate::{Store, Tx};
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Error, Result};
use agenteval_domain::ids::{CampaignId, RunId};
use agenteval_domain::parse_id;
use agenteval_domain::run::{Run, RunTurn, Verdict};
use chrono::{DateTime, Utc};
use std::time::Duration;
use uuid::Uuid;

/// How long a claim holds a run for its worker without being renewed: a
/// run still `running` after that lost its worker and is taken over by
/// another ([`crate::writer::claim`], on PostgreSQL).
pub const RUN_LEASE: Duration = Duration::from_secs(30);
/// How often a worker renews the leases of the runs it executes: three
/// renewals fit in one lease, so that one late renewal loses nothing.
pub const RENEW_RUN_LEASES_EVERY: Duration = Duration::from_secs(10);

/// When a lease taken or renewed at `now` (epoch ms) ends.
pub(crate) fn lease_until(now: i64) -> i64 {
    now + RUN_LEASE.as_millis() as i64
}

/// The leases of the runs a worker plays, renewed (ids as a JSON list).
const RENEW_LEASES: Sql = Sql::dialects(
    "UPDATE runs SET lease_until = ? WHERE status = 'running' AND claimed_by = ?
     AND id IN (SELECT value FROM json_each(?))",
    "UPDATE runs SET lease_until = ? WHERE status = 'running' AND claimed_by = ?
     AND id IN (SELECT json_array_elements_text(CAST(? AS json)))",
);

// The scheduler's queries run each step and claiming runs once per run (a
// hot path): their contexts are static.
impl Store {
    /// Starts the scheduled campaigns whose window began by `now`; returns
    /// their ids.
    pub async fn start_due_campaigns(&self, now: DateTime<Utc>) -> Result<Vec<Uuid>> {
        let now = to_ms(now);
        self.write(move |c| {
            c.rows(
                "UPDATE campaigns SET status = 'running', updated_at = ? WHERE status = 'scheduled' AND window_start <= ?
                 RETURNING id",
                args![now, now],
                |r| parse_id(r.str(0)?),
            )
        })
        .await
        .context("store: starting the due campaigns")
    }

    /// The largest concurrency limit among the targets of running
    /// campaigns; `None` when no campaign runs.
    pub async fn most_concurrency_running(&self) -> Result<Option<i64>> {
        self.read(|c| {
            c.value(
                "SELECT max(t.concurrency) FROM campaigns c JOIN targets t ON t.id = c.target_id
                 WHERE c.status = 'running'",
                args![],
            )
        })
        .await
        .context("store: reading the concurrency of the running campaigns")
    }

    /// The running campaigns whose window ended by `now` and whose runs
    /// are all done.
    pub async fn campaigns_to_finalize(&self, now: DateTime<Utc>) -> Result<Vec<Uuid>> {
        let now = to_ms(now);
        self.read(move |c| {
            c.rows(
                "SELECT id FROM campaigns c WHERE status = 'running' AND window_end <= ?
                   AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.campaign_id = c.id AND r.status != 'done')",
                args![now],
                |r| parse_id(r.str(0)?),
            )
        })
        .await
        .context("store: reading the campaigns to finalize")
    }

    /// Claims one run if it is still pending (`pending -> running`, started
    /// at `now`); `None` when it was claimed elsewhere or is not pending.
    pub async fn claim_run(&self, run_id: RunId, now: DateTime<Utc>) -> Result<Option<ClaimedRow>> {
        let now = to_ms(now);
        let worker = self.worker.clone();
        self.write(move |c| {
            c.row(
                "UPDATE runs SET status = 'running', started_at = ?, claimed_by = ?, lease_until = ?,
                     attempts = attempts + 1
                 WHERE id = ? AND status = 'pending'
                 RETURNING id, campaign_id, scenario_id, offset_ms, attempts",
                args![now, &*worker, lease_until(now), run_id.to_string()],
                claimed_from_row,
            )
        })
        .await
        .context("store: claiming a run")
    }

    /// Renews the leases of the runs this worker executes (`playing`: a run
    /// whose play ended without its verdict is not renewed, and another
    /// worker takes it over), until [`RUN_LEASE`] after `now`; returns how
    /// many it holds.
    pub async fn renew_run_leases(&self, now: DateTime<Utc>, playing: &[Uuid]) -> Result<u64> {
        let now = to_ms(now);
        let worker = self.worker.clone();
        let ids = serde_json::to_string(&playing.iter().map(Uuid::to_string).collect::<Vec<_>>())?;
        self.write(move |c| c.exec(RENEW_LEASES, args![lease_until(now), &*worker, &ids]))
            .await
            .context("store: renewing the leases of the runs being executed")
    }

    /// Takes (or keeps) the cluster-wide lease `name` for this worker until
    /// `until`, if no other worker holds it past `now`; returns whether
    /// this worker holds it. A job that one worker of the cluster runs at a
    /// time (the patrol agent's wake-up) runs only while it holds its
    /// lease.
    pub async fn take_lease(
        &self,
        name: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<bool> {
        let (now, until) = (to_ms(now), to_ms(until));
        let worker = self.worker.clone();
        let name = name.to_string();
        let named = name.clone();
        self.write(move |c| {
            c.row(
                "INSERT INTO leases (name, holder, until) VALUES (?, ?, ?)
                 ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
                 WHERE leases.until <= ? OR leases.holder = excluded.holder
                 RETURNING holder",
                args![&*named, &*worker, until, now],
                |_| Ok(()),
            )
        })
        .await
        .map(|taken| taken.is_some())
        .with_context(move || format!("store: taking the lease {name}"))
    }

    /// Gives up the lease `name` if this worker holds it, so that the job
    /// it guarded is free again at once rather than when it would expire.
    pub async fn release_lease(&self, name: &str) -> Result<()> {
        let worker = self.worker.clone();
        let name = name.to_string();
        let named = name.clone();
        self.write(move |c| {
            c.exec(
                "DELETE FROM leases WHERE name = ? AND holder = ?",
                args![&*named, &*worker],
            )
        })
        .await
        .map(drop)
        .with_context(move || format!("store: releasing the lease {name}"))
    }

    /// The runs of a campaign in plan order.
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

    /// The last `limit` runs of a campaign that ended in error, the latest
    /// first.
    pub async fn errored_runs(&self, campaign_id: CampaignId, limit: u32) -> Result<Vec<Run>> {
        self.read(move |c| {
            c.rows(
                "SELECT * FROM runs WHERE campaign_id = ? AND verdict = 'error' \
                 ORDER BY finished_at DESC, seq DESC LIMIT ?",
                args![campaign_id.to_string(), i64::from(limit)],
                run_from_row,
            )
        })
        .await
        .with_context(move || format!("store: reading the errored runs of campaign {campaign_id}"))
    }

    /// The first `limit` failed runs of a campaign (plan order) with a turn
    /// that took steps: read without listing the campaign's other runs.
    pub async fn failed_runs_with_steps(
        &self,
        campaign_id: CampaignId,
        limit: u32,
    ) -> Result<Vec<Run>> {
        self.read(move |c| {
            c.rows(
                "SELECT * FROM runs r WHERE r.campaign_id = ? AND r.verdict = 'failed' \
                 AND EXISTS (SELECT 1 FROM run_turns t WHERE t.run_id = r.id AND t.steps IS NOT NULL) \
                 ORDER BY r.seq LIMIT ?",
                args![campaign_id.to_string(), i64::from(limit)],
                run_from_row,
            )
        })
        .await
        .with_context(move || format!("store: reading the failed runs of campaign {campaign_id}"))
    }

    /// A page of a campaign's runs in plan order: the first `limit` in
    /// slots after `after_seq`.
    pub async fn campaign_runs_after(
        &self,
        campaign_id: CampaignId,
        after_seq: i64,
        limit: u32,
    ) -> Result<Vec<Run>> {
        self.read(move |c| {
            c.rows(
                "SELECT * FROM runs WHERE campaign_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                args![campaign_id.to_string(), after_seq, i64::from(limit)],
                run_from_row,
            )
        })
        .await
        .with_context(move || {
            format!("store: reading a page of the runs of campaign {campaign_id}")
        })
    }

    /// Whether any run of a campaign took a step.
    pub async fn campaign_has_steps(&self, campaign_id: CampaignId) -> Result<bool> {
        self.read(move |c| {
            c.value::<i64>(
                "SELECT COUNT(*) FROM (SELECT 1 FROM run_turns t JOIN runs r ON r.id = t.run_id \
                 WHERE r.campaign_id = ? AND t.steps IS NOT NULL LIMIT 1) AS s",
                args![campaign_id.to_string()],
            )
        })
        .await
        .map(|n| n > 0)
        .with_context(move || format!("store: reading whether campaign {campaign_id} took steps"))
    }

    /// The steps of the runs of a campaign in slots `(after_seq,
    /// up_to_seq]`, each turn's with its run, in plan and turn order.
    pub async fn campaign_steps_between(
        &self,
        campaign_id: CampaignId,
        after_seq: i64,
        up_to_seq: i64,
    ) -> Result<Vec<(RunId, Vec<agenteval_domain::steps::Step>)>> {
        self.read(move |c| {
            c.rows(
                "SELECT t.run_id, t.steps FROM run_turns t JOIN runs r ON r.id = t.run_id \
                 WHERE r.campaign_id = ? AND r.seq > ? AND r.seq <= ? AND t.steps IS NOT NULL \
                 ORDER BY r.seq, t.seq",
                args![campaign_id.to_string(), after_seq, up_to_seq],
                |r| {
                    let steps = r.text(1)?.map(serde_json::from_str).transpose()?;
                    Ok((parse_id(r.str(0)?)?, steps.unwrap_or_default()))
                },
            )
        })
        .await
        .with_context(move || format!("store: reading the steps of campaign {campaign_id}"))
    }

    /// One run; not found when it does not exist.
    pub async fn run(&self, run_id: RunId) -> Result<Run> {
        self.read(move |c| {
            c.row(
                "SELECT * FROM runs WHERE id = ?",
                args![run_id.to_string()],
                run_from_row,
            )
        })
        .await
        .with_context(|| format!("store: reading run {run_id}"))?
        .ok_or_else(|| Error::not_found("run", run_id))
    }

    /// One run's conversation in order; not found when the run does not
    /// exist.
    pub async fn run_turns(&self, run_id: RunId) -> Result<Vec<RunTurn>> {
        let exists = self
            .read(move |c| {
                c.row(
                    "SELECT 1 FROM runs WHERE id = ?",
                    args![run_id.to_string()],
                    |_| Ok(()),
                )
            })
            .await
            .with_context(|| format!("store: looking up run {run_id}"))?;
        if exists.is_none() {
            return Err(Error::not_found("run", run_id));
        }
        self.read(move |c| {
            c.rows(
                "SELECT * FROM run_turns WHERE run_id = ? ORDER BY seq",
                args![run_id.to_string()],
                run_turn_from_row,
            )
        })
        .await
        .with_context(move || format!("store: reading the turns of run {run_id}"))
    }
}

impl Tx<'_> {
    /// Marks the runs cut mid-flight by a crash (still `running`) as
    /// `error` / `interrupted`, finished at `now`, with their tallies; their
    /// committed turns stay. Returns how many were marked.
    ///
    /// On SQLite the process that starts owns the database, so every run
    /// still running was cut. On PostgreSQL other workers may be executing
    /// theirs: only runs claimed without a lease are marked; a run whose
    /// worker died is taken over once its lease expires
    /// ([`crate::writer::claim`]).
    pub fn finish_interrupted_runs(&self, now: DateTime<Utc>) -> Result<u64> {
        const INTERRUPTED: Sql = Sql::dialects(
            "UPDATE runs SET status = 'done', verdict = 'error', error_reason = 'interrupted', finished_at = ?
             WHERE status != 'done' AND status = 'running'
             RETURNING id, campaign_id, scenario_id, offset_ms",
            "UPDATE runs SET status = 'done', verdict = 'error', error_reason = 'interrupted', finished_at = ?
             WHERE status = 'running' AND lease_until IS NULL
             RETURNING id, campaign_id, scenario_id, offset_ms",
        );
        RunTallies::finish_bare(
            &self.0,
            INTERRUPTED,
            args![to_ms(now)],
            Verdict::Error,
            "interrupted",
        )
        .context("store: marking the runs cut by a restart as interrupted")
    }
}

fn run_turn_from_row(r: &Row<'_>) -> Result<RunTurn> {
    Ok(RunTurn {
        seq: r.get::<i64>("seq")? as u32,
        role: r.get("role")?,
        content: r.get("content")?,
        latency_ms: r.get::<Option<i64>>("latency_ms")?.map(|v| v as u64),
        tokens_in: r.get::<Option<i64>>("tokens_in")?.map(|v| v as u32),
        tokens_out: r.get::<Option<i64>>("tokens_out")?.map(|v| v as u32),
        tool_calls: r
            .text("tool_calls")?
            .map(serde_json::from_str)
            .transpose()?
            .unwrap_or_default(),
        steps: r
            .text("steps")?
            .map(serde_json::from_str)
            .transpose()?
            .unwrap_or_default(),
        created_at: from_ms(r.get("created_at")?),
    })
}

/// A run from a `SELECT * FROM runs` row.
pub fn run_from_row(row: &Row<'_>) -> Result<Run> {
    Ok(Run {
        id: parse_id(row.str("id")?)?,
        campaign_id: parse_id(row.str("campaign_id")?)?,
        scenario_id: row.get("scenario_id")?,
        seq: row.get::<i64>("seq")? as u32,
        offset_ms: row.get("offset_ms")?,
        scheduled_at: from_ms(row.get("scheduled_at")?),
        status: row.get("status")?,
        verdict: row.text("verdict")?.and_then(Verdict::parse),
        check_results: row
            .text("check_results")?
            .map(serde_json::from_str)
            .transpose()?
            .unwrap_or_default(),
        metrics: row.text("metrics")?.map(serde_json::from_str).transpose()?,
        error: row
            .text("error_reason")?
            .map(agenteval_domain::run::RunError::of),
        error_reason: row.get("error_reason")?,
        started_at: row.get::<Option<i64>>("started_at")?.map(from_ms),
        finished_at: row.get::<Option<i64>>("finished_at")?.map(from_ms),
        attempts: row.get::<i64>("attempts")? as u32,
    })
}
