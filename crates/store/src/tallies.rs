//! The report's fixed-scenario tallies (migration 0008): what the runs of
//! a batch add, summed in memory and written once per tally row it touches
//! in the batch's own transaction (see [`agenteval_domain::tally`]), the runs that
//! finish without playing, and the backfill from the runs already finished.
//!
//! Both evidence lines' tallies are kept this way, by the store in Rust in
//! the transaction of the write: the exploration sessions' in
//! `session_tallies.rs` (since migration 0019; SQL triggers kept them
//! before).

use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::CampaignId;
use agenteval_domain::run::Verdict;
use agenteval_domain::tally::{RunOutcome, RunSums, reason_kind, slice, stored_results};
use rusqlite::{Connection, params};
use std::collections::HashMap;
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
        conn: &Connection,
        run_id: &str,
        run: &RunOutcome,
    ) -> Result<Contribution> {
        let duration = match self.durations.get(&run.campaign_id) {
            Some(d) => *d,
            None => {
                let (start, end, scale): (i64, i64, f64) = conn
                    .prepare_cached(
                        "SELECT window_start, window_end, time_scale FROM campaigns WHERE id = ?",
                    )
                    .and_then(|mut st| {
                        st.query_row([run.campaign_id.to_string()], |r| {
                            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
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
                conn.prepare_cached(
                    "SELECT latency_ms FROM run_turns
                     WHERE run_id = ? AND role = 'target' AND latency_ms IS NOT NULL",
                )
                .and_then(|mut st| {
                    st.query_map([run_id], |r| r.get(0))?
                        .collect::<rusqlite::Result<Vec<i64>>>()
                })
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

    /// Writes what was added since the last flush.
    pub fn flush(&mut self, conn: &Connection) -> Result<()> {
        // Once per batch of the writer's (a hot path): the contexts are
        // static.
        let doing = "store: adding to the run verdict tally";
        let mut upsert = conn.prepare_cached(
            "INSERT INTO run_verdict_tally (campaign_id, scenario_id, verdict, runs, with_metrics,
                 completed, latency_runs, latency_mean_sum, tokens_in, tokens_out, cost, coverage_runs, coverage_sum)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT DO UPDATE SET runs = runs + excluded.runs,
                 with_metrics = with_metrics + excluded.with_metrics,
                 completed = completed + excluded.completed,
                 latency_runs = latency_runs + excluded.latency_runs,
                 latency_mean_sum = latency_mean_sum + excluded.latency_mean_sum,
                 tokens_in = tokens_in + excluded.tokens_in,
                 tokens_out = tokens_out + excluded.tokens_out,
                 cost = cost + excluded.cost,
                 coverage_runs = coverage_runs + excluded.coverage_runs,
                 coverage_sum = coverage_sum + excluded.coverage_sum",
        )
        .context(doing)?;
        for ((campaign, scenario, verdict), s) in self.verdicts.drain() {
            upsert
                .execute(params![
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
                    s.coverage_sum
                ])
                .context(doing)?;
        }
        let doing = "store: adding to the run timeline tally";
        let mut upsert = conn.prepare_cached(
            "INSERT INTO run_timeline_tally (campaign_id, slice, verdict, runs) VALUES (?, ?, ?, ?)
             ON CONFLICT DO UPDATE SET runs = runs + excluded.runs",
        )
        .context(doing)?;
        for ((campaign, slice, verdict), runs) in self.timeline.drain() {
            upsert
                .execute(params![campaign.to_string(), slice, verdict, runs])
                .context(doing)?;
        }
        let doing = "store: adding to the failing check tally";
        let mut upsert = conn.prepare_cached(
            "INSERT INTO run_failing_check_tally (campaign_id, scenario_id, kind, detail, count, example_run_id)
             VALUES (?, ?, ?, ?, ?, ?)
             ON CONFLICT DO UPDATE SET count = count + excluded.count",
        )
        .context(doing)?;
        for ((campaign, scenario, kind, detail), (count, example)) in self.failing.drain() {
            upsert
                .execute(params![
                    campaign.to_string(),
                    &*scenario,
                    kind,
                    detail,
                    count,
                    example
                ])
                .context(doing)?;
        }
        let doing = "store: adding to the run error tally";
        let mut upsert = conn
            .prepare_cached(
                "INSERT INTO run_error_tally (campaign_id, reason, count) VALUES (?, ?, ?)
             ON CONFLICT DO UPDATE SET count = count + excluded.count",
            )
            .context(doing)?;
        for ((campaign, reason), count) in self.errors.drain() {
            upsert
                .execute(params![campaign.to_string(), reason, count])
                .context(doing)?;
        }
        let doing = "store: adding to the run latency tally";
        let mut upsert = conn
            .prepare_cached(
                "INSERT INTO run_latency_tally (campaign_id, latency_ms, count) VALUES (?, ?, ?)
             ON CONFLICT DO UPDATE SET count = count + excluded.count",
            )
            .context(doing)?;
        for ((campaign, latency), count) in self.latencies.drain() {
            upsert
                .execute(params![campaign.to_string(), latency, count])
                .context(doing)?;
        }
        Ok(())
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
        conn: &Connection,
        finish: &str,
        finish_params: impl rusqlite::Params,
        verdict: Verdict,
        error_reason: &str,
    ) -> Result<u64> {
        // The caller names what `finish` does.
        let runs = conn.prepare(finish).and_then(|mut st| {
            st.query_map(finish_params, |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    RunOutcome::bare(
                        CampaignId(crate::uuid_at(r, 1)?),
                        r.get_ref(2)?.as_str()?.into(),
                        r.get(3)?,
                    ),
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
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

/// Fills the tallies from the runs already finished, once, when a database
/// is first opened after migration 0008 (or marked for it again).
pub fn backfill(conn: &Connection) -> Result<()> {
    let doing = "store: filling the run tallies from the finished runs";
    if !super::backfill::backfill_pending(conn, "run_tallies").context(doing)? {
        return Ok(());
    }
    conn.execute_batch(
        "DELETE FROM run_verdict_tally; DELETE FROM run_timeline_tally; DELETE FROM run_failing_check_tally;
         DELETE FROM run_error_tally; DELETE FROM run_latency_tally;",
    )
    .context(doing)?;
    let mut statement = conn
        .prepare(
            "SELECT id, campaign_id, scenario_id, offset_ms, verdict, metrics, check_results, error_reason
         FROM runs WHERE status = 'done' ORDER BY finished_at, id",
        )
        .context(doing)?;
    let mut rows = statement.query([]).context(doing)?;
    let mut tallies = RunTallies::default();
    while let Some(row) = rows.next().context(doing)? {
        let text = |column| crate::text(row, column);
        let id = text("id")?.unwrap_or_default();
        let (metrics, checks) = stored_results(text("metrics")?, text("check_results")?);
        let run = RunOutcome::new(
            CampaignId(crate::uuid_at(row, "campaign_id")?),
            text("scenario_id")?.unwrap_or_default().into(),
            row.get("offset_ms")?,
            metrics.as_ref(),
            checks,
            None,
        );
        let c = tallies.prepare(conn, id, &run).context(doing)?;
        let verdict = text("verdict")?.and_then(Verdict::parse);
        tallies.add(id, &run, verdict, text("error_reason")?, c);
    }
    tallies.flush(conn).context(doing)?;
    super::backfill::backfill_done(conn, "run_tallies").context(doing)?;
    Ok(())
}
