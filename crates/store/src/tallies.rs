//! The report's fixed-scenario tallies (migration 0008): what the runs of
//! a batch add, summed in memory and written once per tally row it touches
//! in the batch's own transaction (see [`agenteval_domain::tally`]), the runs that
//! finish without playing, and the backfill from the runs already finished.
//!
//! Both evidence lines' tallies are kept this way, by the store in Rust in
//! the transaction of the write: the exploration sessions' in
//! `session_tallies.rs` (since migration 0019; SQL triggers kept them
//! before).

use crate::sql::{Arg, Conn, Sql, args};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::CampaignId;
use agenteval_domain::run::Verdict;
use agenteval_domain::tally::{RunOutcome, RunSums, reason_kind, slice, stored_results};
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

/// What adding a run needs from the database, read before its verdict is
/// written so that adding it cannot fail.
pub struct Contribution {
    slice: i64,
    /// When the run does not carry them.
    latencies: Option<Vec<i64>>,
}

/// Campaign, scenario, check kind and detail of a failed check.
type FailingKey = (CampaignId, Arc<str>, String, String);

/// Tallies being added up for one transaction.
#[derive(Default)]
pub struct RunTallies {
    /// Campaign -> window length in campaign time (a window never changes).
    durations: HashMap<CampaignId, i64>,
    /// Keyed by campaign, scenario and verdict ('' for none).
    verdicts: HashMap<(CampaignId, Arc<str>, &'static str), RunSums>,
    /// Keyed by campaign, slice and verdict.
    timeline: HashMap<(CampaignId, i64, &'static str), u32>,
    failing: HashMap<FailingKey, (u32, String)>,
    errors: HashMap<(CampaignId, String), u32>,
    latencies: HashMap<(CampaignId, i64), u32>,
}

impl RunTallies {
    /// Reads what adding `run` needs: its slice and its replies' latencies.
    pub fn prepare(
        &mut self,
        conn: &Conn<'_>,
        run_id: &str,
        run: &RunOutcome,
    ) -> Result<Contribution> {
        let duration = match self.durations.get(&run.campaign_id) {
            Some(d) => *d,
            None => {
                let (start, end, scale): (i64, i64, f64) = conn
                    .row(
                        "SELECT window_start, window_end, time_scale FROM campaigns WHERE id = ?",
                        args![run.campaign_id.to_string()],
                        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                    )
                    .and_then(|row| {
                        row.ok_or_else(|| {
                            agenteval_domain::error::Error::internal(anyhow::anyhow!(
                                "the run's campaign is not stored"
                            ))
                        })
                    })
                    .context("store: reading a campaign's window for the run tallies")?;
                let d = agenteval_domain::campaign::scaled_ms(end - start, scale);
                self.durations.insert(run.campaign_id, d);
                d
            }
        };
        let latencies = match run.latencies {
            Some(_) => None,
            None => Some(
                conn.rows(
                    "SELECT latency_ms FROM run_turns
                     WHERE run_id = ? AND role = 'target' AND latency_ms IS NOT NULL",
                    args![run_id],
                    |r| r.get::<i64>(0),
                )
                .context("store: reading a run's latencies for the run tallies")?,
            ),
        };
        Ok(Contribution {
            slice: slice(run.offset_ms, duration),
            latencies,
        })
    }

    /// Adds a run that has just been written as finished (a stored run
    /// may lack a verdict).
    pub fn add(
        &mut self,
        run_id: &str,
        run: &RunOutcome,
        verdict: Option<Verdict>,
        error_reason: Option<&str>,
        c: Contribution,
    ) {
        let campaign = run.campaign_id;
        let verdict_str = verdict.map_or("", Verdict::as_str);
        self.verdicts
            .entry((campaign, run.scenario_id.clone(), verdict_str))
            .or_default()
            .add(&run.sums);
        *self
            .timeline
            .entry((campaign, c.slice, verdict_str))
            .or_default() += 1;
        let latencies = c.latencies.as_ref().or(run.latencies.as_ref());
        for &latency in latencies.into_iter().flatten() {
            *self
                .latencies
                .entry((campaign, latency.max(0)))
                .or_default() += 1;
        }
        let Some(verdict) = verdict else {
            return;
        };
        if verdict != Verdict::Skipped {
            for (kind, detail) in &run.failing {
                let key = (
                    campaign,
                    run.scenario_id.clone(),
                    kind.clone(),
                    detail.clone(),
                );
                self.failing.entry(key).or_insert((0, run_id.to_string())).0 += 1;
            }
        }
        if verdict == Verdict::Error {
            let reason = reason_kind(error_reason).to_string();
            *self.errors.entry((campaign, reason)).or_default() += 1;
        }
    }

    /// Writes what was added since the last flush. Each row is added to
    /// the stored one by an upsert, so that writers in concurrent
    /// transactions (PostgreSQL) add up exactly; there the rows are written
    /// in key order, so that two transactions never wait on each other's
    /// rows in opposite orders.
    pub fn flush(&mut self, conn: &Conn<'_>) -> Result<()> {
        // Once per batch of the writer's (a hot path): the contexts are
        // static.
        let ordered = conn.is_postgres();
        drain(
            &mut self.verdicts,
            ordered,
            |(campaign, scenario, verdict), s| {
                conn.exec(
                    ADD_VERDICTS,
                    args![
                        campaign.to_string(),
                        &*scenario,
                        verdict,
                        s.runs,
                        s.with_metrics,
                        s.completed,
                        s.latency_runs,
                        s.latency_mean_sum,
                        s.tokens_in as i64,
                        s.tokens_out as i64,
                        s.cost,
                        s.coverage_runs,
                        s.coverage_sum,
                        s.task_completed,
                        s.task_runs,
                        s.latency_total_sum,
                        s.steps_runs,
                        s.steps_sum as i64
                    ],
                )
                .context("store: adding to the run verdict tally")
            },
        )?;
        drain(
            &mut self.timeline,
            ordered,
            |(campaign, slice, verdict), runs| {
                conn.exec(
                    ADD_TIMELINE,
                    args![campaign.to_string(), slice, verdict, runs],
                )
                .context("store: adding to the run timeline tally")
            },
        )?;
        drain(
            &mut self.failing,
            ordered,
            |(campaign, scenario, kind, detail), (count, example)| {
                conn.exec(
                    ADD_FAILING,
                    args![
                        campaign.to_string(),
                        &*scenario,
                        kind,
                        detail,
                        count,
                        example
                    ],
                )
                .context("store: adding to the failing check tally")
            },
        )?;
        drain(&mut self.errors, ordered, |(campaign, reason), count| {
            conn.exec(ADD_ERRORS, args![campaign.to_string(), reason, count])
                .context("store: adding to the run error tally")
        })?;
        drain(
            &mut self.latencies,
            ordered,
            |(campaign, latency), count| {
                conn.exec(ADD_LATENCIES, args![campaign.to_string(), latency, count])
                    .context("store: adding to the run latency tally")
            },
        )
    }

    /// Forgets what was added since the last flush (its transaction was
    /// rolled back).
    pub fn discard(&mut self) {
        self.verdicts.clear();
        self.timeline.clear();
        self.failing.clear();
        self.errors.clear();
        self.latencies.clear();
    }

    /// Marks every run that matches `finish` (an `UPDATE ... RETURNING id,
    /// campaign_id, scenario_id, offset_ms`) finished with `verdict` and
    /// `error_reason`, and writes the tallies: for the runs that end
    /// without playing (interrupted, skipped).
    pub fn finish_bare(
        conn: &Conn<'_>,
        finish: impl Into<Sql>,
        finish_args: &[Arg<'_>],
        verdict: Verdict,
        error_reason: &str,
    ) -> Result<u64> {
        // The caller names what `finish` does.
        let runs = conn.rows(finish, finish_args, |r| {
            Ok((
                r.get::<String>(0)?,
                RunOutcome::bare(CampaignId(r.uuid(1)?), r.str(2)?.into(), r.get(3)?),
            ))
        })?;
        let mut tallies = RunTallies::default();
        for (id, run) in &runs {
            let c = tallies.prepare(conn, id, run)?;
            tallies.add(id, run, Some(verdict), Some(error_reason), c);
        }
        tallies.flush(conn)?;
        Ok(runs.len() as u64)
    }
}

/// Calls `each` on every entry of `map`, emptying it; in key order if
/// `ordered`. Upserts of tally rows are made in key order on PostgreSQL:
/// two transactions updating the same rows in different orders would each
/// wait for the other (a deadlock, one of them failing).
pub(crate) fn drain<K: Ord + Eq + Hash, V>(
    map: &mut HashMap<K, V>,
    ordered: bool,
    mut each: impl FnMut(K, V) -> Result<u64>,
) -> Result<()> {
    if ordered {
        let mut entries: Vec<(K, V)> = map.drain().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (k, v) in entries {
            each(k, v)?;
        }
    } else {
        for (k, v) in map.drain() {
            each(k, v)?;
        }
    }
    Ok(())
}

// The upserts of the tallies. The conflict target is named and the stored
// row's columns are qualified by its table, as PostgreSQL requires.

const ADD_VERDICTS: &str = "INSERT INTO run_verdict_tally (campaign_id, scenario_id, verdict, runs, with_metrics,
         completed, latency_runs, latency_mean_sum, tokens_in, tokens_out, cost, coverage_runs, coverage_sum,
         task_completed, task_runs, latency_total_sum, steps_runs, steps_sum)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (campaign_id, scenario_id, verdict) DO UPDATE SET
         runs = run_verdict_tally.runs + excluded.runs,
         with_metrics = run_verdict_tally.with_metrics + excluded.with_metrics,
         completed = run_verdict_tally.completed + excluded.completed,
         latency_runs = run_verdict_tally.latency_runs + excluded.latency_runs,
         latency_mean_sum = run_verdict_tally.latency_mean_sum + excluded.latency_mean_sum,
         tokens_in = run_verdict_tally.tokens_in + excluded.tokens_in,
         tokens_out = run_verdict_tally.tokens_out + excluded.tokens_out,
         cost = run_verdict_tally.cost + excluded.cost,
         coverage_runs = run_verdict_tally.coverage_runs + excluded.coverage_runs,
         coverage_sum = run_verdict_tally.coverage_sum + excluded.coverage_sum,
         task_completed = run_verdict_tally.task_completed + excluded.task_completed,
         task_runs = run_verdict_tally.task_runs + excluded.task_runs,
         latency_total_sum = run_verdict_tally.latency_total_sum + excluded.latency_total_sum,
         steps_runs = run_verdict_tally.steps_runs + excluded.steps_runs,
         steps_sum = run_verdict_tally.steps_sum + excluded.steps_sum";

const ADD_TIMELINE: &str =
    "INSERT INTO run_timeline_tally (campaign_id, slice, verdict, runs) VALUES (?, ?, ?, ?)
     ON CONFLICT (campaign_id, slice, verdict) DO UPDATE SET runs = run_timeline_tally.runs + excluded.runs";

const ADD_FAILING: &str = "INSERT INTO run_failing_check_tally (campaign_id, scenario_id, kind, detail, count, example_run_id)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (campaign_id, scenario_id, kind, detail) DO UPDATE SET
         count = run_failing_check_tally.count + excluded.count";

const ADD_ERRORS: &str = "INSERT INTO run_error_tally (campaign_id, reason, count) VALUES (?, ?, ?)
     ON CONFLICT (campaign_id, reason) DO UPDATE SET count = run_error_tally.count + excluded.count";

const ADD_LATENCIES: &str = "INSERT INTO run_latency_tally (campaign_id, latency_ms, count) VALUES (?, ?, ?)
     ON CONFLICT (campaign_id, latency_ms) DO UPDATE SET count = run_latency_tally.count + excluded.count";

/// Fills the tallies from the runs already finished, once, when a database
/// is first opened after migration 0008 (or marked for it again).
pub fn backfill(conn: &Conn<'_>) -> Result<()> {
    let doing = "store: filling the run tallies from the finished runs";
    if !super::backfill::backfill_pending(conn, "run_tallies").context(doing)? {
        return Ok(());
    }
    conn.batch(
        "DELETE FROM run_verdict_tally; DELETE FROM run_timeline_tally; DELETE FROM run_failing_check_tally;
         DELETE FROM run_error_tally; DELETE FROM run_latency_tally;",
    )
    .context(doing)?;
    let mut tallies = RunTallies::default();
    conn.each(
        "SELECT id, campaign_id, scenario_id, offset_ms, verdict, metrics, check_results, error_reason
         FROM runs WHERE status = 'done' ORDER BY finished_at, id",
        args![],
        |row| {
            let id = row.str("id")?;
            let (metrics, checks) = stored_results(row.text("metrics")?, row.text("check_results")?);
            let run = RunOutcome::new(
                CampaignId(row.uuid("campaign_id")?),
                row.str("scenario_id")?.into(),
                row.get("offset_ms")?,
                metrics.as_ref(),
                checks,
                None,
            );
            let c = tallies.prepare(conn, id, &run)?;
            let verdict = row.text("verdict")?.and_then(Verdict::parse);
            tallies.add(id, &run, verdict, row.text("error_reason")?, c);
            Ok(())
        },
    )
    .context(doing)?;
    tallies.flush(conn).context(doing)?;
    super::backfill::backfill_done(conn, "run_tallies").context(doing)?;
    Ok(())
}
