//! Claiming due runs for a worker, under a lease (see the [parent
//! module](super) for the writer that runs the claim on SQLite).

use crate::sql::{Conn, Row, Sql, args};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::CampaignId;
use std::sync::Arc;
use uuid::Uuid;

/// A due run claimed for execution (`pending -> running`).
#[derive(Debug, Clone)]
pub struct ClaimedRow {
    pub id: Uuid,
    pub campaign_id: CampaignId,
    pub scenario_id: Arc<str>,
    pub offset_ms: i64,
    /// Which claim of the run this is: 1 for the first; more when the run
    /// was taken over from a worker whose lease expired. Its verdict is
    /// stored only if no later claim took the run meanwhile.
    pub attempt: i64,
}

/// A claimed run, from a row of `id, campaign_id, scenario_id, offset_ms,
/// attempts`: what a claim returns, of many runs here or of one
/// ([`crate::Store::claim_run`]).
pub(crate) fn claimed_from_row(row: &Row<'_>) -> Result<ClaimedRow> {
    Ok(ClaimedRow {
        id: row.uuid(0)?,
        campaign_id: CampaignId(row.uuid(1)?),
        scenario_id: row.str(2)?.into(),
        offset_ms: row.get(3)?,
        attempt: row.get(4)?,
    })
}

/// Whom a claim is for: the worker claiming and the end of its lease
/// (UTC milliseconds), which the worker renews while the run executes.
#[derive(Debug, Clone)]
pub struct Lease {
    pub worker: Arc<str>,
    pub until: i64,
}

/// Claims up to `limit` due runs of running campaigns (`pending ->
/// running`), oldest first, for `lease`; each claim counts in the run's
/// `attempts`. On PostgreSQL, where several workers share the database,
/// the runs are locked as they are picked and the runs another transaction
/// holds are skipped, so that workers claiming at once never claim the
/// same run; a run still `running` whose lease expired lost its worker and
/// is taken over: the turns it stored are deleted and it runs again. On
/// SQLite one process owns the database and recovers its runs at start
/// ([`crate::Tx::finish_interrupted_runs`]).
pub(crate) fn claim(
    conn: &Conn<'_>,
    limit: usize,
    now: i64,
    lease: &Lease,
) -> Result<Vec<ClaimedRow>> {
    conn.rows(
        CLAIM,
        args![now, limit as i64, &*lease.worker, lease.until],
        claimed_from_row,
    )
    .context("store: claiming the due runs")
}

const CLAIM: Sql = Sql::dialects(
    "UPDATE runs SET status = 'running', started_at = ?1, claimed_by = ?3, lease_until = ?4,
         attempts = attempts + 1
     WHERE rowid IN (SELECT r.rowid FROM runs r JOIN campaigns c ON c.id = r.campaign_id
                     WHERE r.status != 'done' AND r.status = 'pending' -- the partial index `runs_open`
                       AND r.scheduled_at <= ?1 AND c.status = 'running'
                     ORDER BY r.scheduled_at, r.seq LIMIT ?2)
       AND +status = 'pending' -- a guard, not an index choice
     RETURNING id, campaign_id, scenario_id, offset_ms, attempts",
    "WITH picked AS (
         SELECT r.id FROM runs r JOIN campaigns c ON c.id = r.campaign_id
         WHERE ((r.status = 'pending' AND r.scheduled_at <= $1)
                OR (r.status = 'running' AND r.lease_until < $1))
           AND c.status = 'running'
         ORDER BY r.scheduled_at, r.seq LIMIT $2
         FOR UPDATE OF r SKIP LOCKED),
     taken_over AS (DELETE FROM run_turns WHERE run_id IN (SELECT id FROM picked))
     UPDATE runs SET status = 'running', started_at = $1, claimed_by = $3, lease_until = $4,
         attempts = attempts + 1
     WHERE id IN (SELECT id FROM picked)
     RETURNING id, campaign_id, scenario_id, offset_ms, attempts",
);
