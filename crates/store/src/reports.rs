//! The campaign report's fixed-scenario figures, read in a snapshot (see
//! `agenteval_engine::report`): the whole campaign from the tallies migration 0008
//! keeps, new results from the runs themselves. Each function streams what
//! it reads to a callback, without an allocation per row.

use crate::Read;
use crate::sql::{Row, Sql, args};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, RunId};
use agenteval_domain::parse_id;
use agenteval_domain::report::ScenarioInfo;
use agenteval_domain::run::CheckResult;
use agenteval_domain::run::RunMetrics;
use agenteval_domain::run::Verdict;
use agenteval_domain::tally::{RunSums, stored_results};
use serde::Deserialize;
use std::collections::HashMap;

/// A run finished after a given time, as the report adds it up.
pub struct FinishedRun<'a> {
    pub id: RunId,
    pub scenario_id: &'a str,
    pub verdict: Verdict,
    pub offset_ms: i64,
    pub metrics: Option<RunMetrics>,
    pub checks: Vec<CheckResult>,
    pub error_reason: Option<&'a str>,
}

impl Read<'_> {
    /// How many runs a campaign plans, and how many of them are running.
    pub fn planned_and_running_runs(&self, campaign_id: CampaignId) -> Result<(u32, u32)> {
        let doing = move || format!("store: counting the runs of campaign {campaign_id}");
        let id = campaign_id.to_string();
        // The partial index `runs_open` finds the few running ones.
        self.0
            .row(
                "SELECT (SELECT count(*) FROM runs WHERE campaign_id = ?),
                    (SELECT count(*) FROM runs
                     WHERE status != 'done' AND status = 'running' AND campaign_id = ?)",
                args![&id, &id],
                |r| Ok((r.get::<i64>(0)? as u32, r.get::<i64>(1)? as u32)),
            )
            .map(Option::unwrap_or_default)
            .with_context(doing)
    }

    /// Streams a campaign's verdict tallies (per scenario and verdict) to
    /// `each`, with the scenario's details (read once per scenario).
    /// Returns how many runs are tallied, with or without a verdict.
    pub fn verdict_tallies(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(&ScenarioInfo, &str, Verdict, RunSums),
    ) -> Result<u32> {
        let doing = move || format!("store: reading the verdict tallies of campaign {campaign_id}");
        let mut scenarios = HashMap::new();
        let mut done = 0;
        self.0
            .each(
                "SELECT t.*, s.title, s.pack, s.tags, s.definition
                 FROM run_verdict_tally t LEFT JOIN scenarios s ON s.id = t.scenario_id
                 WHERE t.campaign_id = ? AND t.runs > 0",
                args![campaign_id.to_string()],
                |row| {
                    let runs = row.get::<i64>("runs")? as u32;
                    done += runs;
                    let Some(verdict) = row.text("verdict")?.and_then(Verdict::parse) else {
                        return Ok(());
                    };
                    let scenario_id = row.str("scenario_id")?;
                    let info = scenario_info(&mut scenarios, scenario_id, row)?;
                    let count = |column| {
                        Ok::<_, agenteval_domain::error::Error>(row.get::<i64>(column)? as u32)
                    };
                    let sums = RunSums {
                        runs,
                        with_metrics: count("with_metrics")?,
                        completed: count("completed")?,
                        latency_runs: count("latency_runs")?,
                        latency_mean_sum: row.get("latency_mean_sum")?,
                        tokens_in: row.get::<i64>("tokens_in")? as u64,
                        tokens_out: row.get::<i64>("tokens_out")? as u64,
                        cost: row.get("cost")?,
                        coverage_runs: count("coverage_runs")?,
                        coverage_sum: row.get("coverage_sum")?,
                        task_completed: count("task_completed")?,
                        task_runs: count("task_runs")?,
                        latency_total_sum: row.get("latency_total_sum")?,
                        steps_runs: count("steps_runs")?,
                        steps_sum: row.get::<i64>("steps_sum")? as u64,
                    };
                    each(info, scenario_id, verdict, sums);
                    Ok(())
                },
            )
            .with_context(doing)?;
        Ok(done)
    }

    /// Streams a campaign's timeline tallies to `each` (slice, verdict,
    /// runs).
    pub fn timeline_tallies(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(i64, Verdict, u32),
    ) -> Result<()> {
        let doing =
            move || format!("store: reading the timeline tallies of campaign {campaign_id}");
        self.0
            .each(
                "SELECT slice, verdict, runs FROM run_timeline_tally WHERE campaign_id = ? AND runs > 0",
                args![campaign_id.to_string()],
                |row| {
                    if let Some(verdict) = row.text("verdict")?.and_then(Verdict::parse) {
                        each(row.get("slice")?, verdict, row.get::<i64>("runs")? as u32);
                    }
                    Ok(())
                },
            )
            .with_context(doing)
    }

    /// Streams a campaign's failed-check tallies to `each` (scenario, check
    /// kind, detail, count, an example run).
    pub fn failing_check_tallies(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(&str, &str, &str, u32, RunId),
    ) -> Result<()> {
        let doing =
            move || format!("store: reading the failed-check tallies of campaign {campaign_id}");
        self.0
            .each(
                "SELECT scenario_id, kind, detail, count, example_run_id
                 FROM run_failing_check_tally WHERE campaign_id = ?",
                args![campaign_id.to_string()],
                |row| {
                    let run = parse_id(row.str("example_run_id")?)?;
                    each(
                        row.str("scenario_id")?,
                        row.str("kind")?,
                        row.str("detail")?,
                        row.get::<i64>("count")? as u32,
                        run,
                    );
                    Ok(())
                },
            )
            .with_context(doing)
    }

    /// Streams a campaign's error tallies to `each` (reason kind, count).
    pub fn error_tallies(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(String, u32),
    ) -> Result<()> {
        let doing = move || format!("store: reading the error tallies of campaign {campaign_id}");
        self.0
            .each(
                "SELECT reason, count FROM run_error_tally WHERE campaign_id = ?",
                args![campaign_id.to_string()],
                |row| {
                    each(row.get("reason")?, row.get::<i64>("count")? as u32);
                    Ok(())
                },
            )
            .with_context(doing)
    }

    /// Streams a campaign's latency tallies to `each` (latency, replies).
    pub fn latency_tallies(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(u64, u64),
    ) -> Result<()> {
        let doing = move || format!("store: reading the latency tallies of campaign {campaign_id}");
        self.0
            .each(
                "SELECT latency_ms, count FROM run_latency_tally WHERE campaign_id = ? AND count > 0",
                args![campaign_id.to_string()],
                |row| {
                    each(
                        row.get::<i64>("latency_ms")? as u64,
                        row.get::<i64>("count")? as u64,
                    );
                    Ok(())
                },
            )
            .with_context(doing)
    }

    /// Streams the runs of a campaign that finished after `since_ms` with a
    /// verdict to `each`, with their scenario's details (read once per
    /// scenario).
    pub fn runs_finished_since(
        &self,
        campaign_id: CampaignId,
        since_ms: i64,
        mut each: impl FnMut(&ScenarioInfo, FinishedRun<'_>),
    ) -> Result<()> {
        let doing = move || {
            format!("store: reading the runs of campaign {campaign_id} finished since {since_ms}")
        };
        let mut scenarios = HashMap::new();
        self.0
            .each(
                "SELECT r.id, r.scenario_id, r.verdict, r.metrics, r.check_results, r.error_reason,
                    r.offset_ms, s.title, s.pack, s.tags, s.definition
                 FROM runs r LEFT JOIN scenarios s ON s.id = r.scenario_id
                 WHERE r.campaign_id = ? AND r.status = 'done' AND r.finished_at > ?",
                args![campaign_id.to_string(), since_ms],
                |row| {
                    let Some(verdict) = row.text("verdict")?.and_then(Verdict::parse) else {
                        return Ok(());
                    };
                    let scenario_id = row.str("scenario_id")?;
                    let info = scenario_info(&mut scenarios, scenario_id, row)?;
                    let (metrics, checks) =
                        stored_results(row.text("metrics")?, row.text("check_results")?);
                    let run = FinishedRun {
                        id: parse_id(row.str("id")?)?,
                        scenario_id,
                        verdict,
                        offset_ms: row.get("offset_ms")?,
                        metrics,
                        checks,
                        error_reason: row.text("error_reason")?,
                    };
                    each(info, run);
                    Ok(())
                },
            )
            .with_context(doing)
    }

    /// Streams the latencies of the target's replies in the runs of a
    /// campaign finished after `since_ms` to `each` (latency, replies).
    pub fn latencies_since(
        &self,
        campaign_id: CampaignId,
        since_ms: i64,
        mut each: impl FnMut(u64, u64),
    ) -> Result<()> {
        let doing = move || {
            format!(
                "store: reading the reply latencies of campaign {campaign_id} finished since {since_ms}"
            )
        };
        self.0
            .each(
                Sql::dialects(
                    "SELECT max(t.latency_ms, 0) AS latency_ms, count(*) AS count
                     FROM run_turns t JOIN runs r ON r.id = t.run_id
                     WHERE r.campaign_id = ? AND r.status = 'done' AND r.finished_at > ?
                       AND t.role = 'target' AND t.latency_ms IS NOT NULL
                     GROUP BY 1",
                    "SELECT GREATEST(t.latency_ms, 0) AS latency_ms, count(*) AS count
                     FROM run_turns t JOIN runs r ON r.id = t.run_id
                     WHERE r.campaign_id = ? AND r.status = 'done' AND r.finished_at > ?
                       AND t.role = 'target' AND t.latency_ms IS NOT NULL
                     GROUP BY 1",
                ),
                args![campaign_id.to_string(), since_ms],
                |row| {
                    each(
                        row.get::<i64>("latency_ms")? as u64,
                        row.get::<i64>("count")? as u64,
                    );
                    Ok(())
                },
            )
            .with_context(doing)
    }
}

/// The details of `scenario_id`, read from `row` into `scenarios` the
/// first time it is seen.
fn scenario_info<'s>(
    scenarios: &'s mut HashMap<String, ScenarioInfo>,
    scenario_id: &str,
    row: &Row<'_>,
) -> Result<&'s ScenarioInfo> {
    if !scenarios.contains_key(scenario_id) {
        scenarios.insert(scenario_id.to_string(), scenario_info_from_row(row)?);
    }
    Ok(&scenarios[scenario_id])
}

/// From the `title`, `pack`, `tags` and `definition` columns of
/// `scenarios` (all NULL when the scenario is no longer stored).
fn scenario_info_from_row(row: &Row<'_>) -> Result<ScenarioInfo> {
    /// The one field of a stored scenario definition the report needs.
    #[derive(Deserialize)]
    struct ScenarioGroup {
        group: Option<String>,
    }
    Ok(ScenarioInfo {
        title: row.get("title")?,
        pack: row.get("pack")?,
        tags: row
            .text("tags")?
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default(),
        group: row
            .text("definition")?
            .and_then(|s| serde_json::from_str::<ScenarioGroup>(s).ok())
            .and_then(|d| d.group),
    })
}
