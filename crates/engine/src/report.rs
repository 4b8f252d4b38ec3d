//! The campaign report: one aggregation used by patrol, the report route,
//! the UI and every export. Fixed-scenario figures come only from runs;
//! exploration data never enters them (it has its own block).

use crate::campaign::Campaign;
use crate::clock::to_ms;
use crate::error::Result;
use crate::exploration::findings::ExplorationFindings;
use crate::fixed::Verdict;
use crate::platform::Platform;
use crate::store::text;
use crate::tally::{RunSums, TIMELINE_SLICES, reason_kind};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use uuid::Uuid;

/// Counts and rate over a set of runs. Pass rate = passed / (passed +
/// failed); runs in `error` are counted apart and never in the rate.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct Tally {
    pub passed: u32,
    pub failed: u32,
    pub errors: u32,
    /// `None` when no run passed or failed.
    pub pass_rate: Option<f64>,
}

impl Tally {
    /// Counts `n` runs with `verdict`.
    fn add(&mut self, verdict: Verdict, n: u32) {
        match verdict {
            Verdict::Passed => self.passed += n,
            Verdict::Failed => self.failed += n,
            Verdict::Error => self.errors += n,
            Verdict::Skipped => {}
        }
        let judged = self.passed + self.failed;
        self.pass_rate = (judged > 0).then(|| f64::from(self.passed) / f64::from(judged));
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ScenarioStat {
    pub scenario_id: String,
    pub title: String,
    pub pack: String,
    pub group: Option<String>,
    pub runs: u32,
    pub tally: Tally,
    pub latency_ms_mean: Option<f64>,
    /// Plain-words details of the checks that failed, most frequent first.
    pub failing_checks: Vec<FailingCheck>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct FailingCheck {
    pub kind: String,
    pub detail: String,
    pub count: u32,
    /// One run where it happened, for drill-down.
    pub example_run_id: Uuid,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct GroupStat {
    pub name: String,
    pub runs: u32,
    pub tally: Tally,
}

/// A slice of the window in campaign time, for the pass-rate chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TimelinePoint {
    /// Start of the slice, hours of campaign time from the window start.
    pub offset_hours: f64,
    pub tally: Tally,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ErrorReason {
    pub reason: String,
    pub count: u32,
}

/// Fixed-scenario results of a campaign.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct FixedSummary {
    pub runs_planned: u32,
    pub runs_finished: u32,
    pub runs_pending: u32,
    pub runs_skipped: u32,
    pub passed: u32,
    pub failed: u32,
    pub errors: u32,
    /// passed / (passed + failed); `None` before any verdict.
    pub pass_rate: Option<f64>,
    /// Runs whose every scripted turn got a reply, over finished runs.
    pub completion_rate: Option<f64>,
    /// Mean key-field coverage over runs whose scenario names key fields.
    pub key_field_coverage: Option<f64>,
    pub latency_p50_ms: Option<u64>,
    pub latency_p95_ms: Option<u64>,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: f64,
    pub per_scenario: Vec<ScenarioStat>,
    pub per_tag: Vec<GroupStat>,
    pub per_group: Vec<GroupStat>,
    pub error_reasons: Vec<ErrorReason>,
    pub timeline: Vec<TimelinePoint>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CampaignReport {
    pub campaign: Campaign,
    pub target_name: String,
    /// Model identity of the target, for comparisons.
    pub target_model: String,
    pub generated_at: DateTime<Utc>,
    pub fixed: FixedSummary,
    /// Present only when the campaign has exploration data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exploration: Option<ExplorationFindings>,
    /// The latest analysis, when one was generated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<crate::analysis::Analysis>,
    /// Against earlier periods of the same target and plan, when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<crate::comparison::PeriodComparison>,
    /// Human ratings and judge agreement, when anyone rated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human_review: Option<crate::review::HumanReviewSummary>,
    /// Which models played each role, and how each was asked for its JSON.
    #[serde(default)]
    pub models: crate::comparison::ModelsUsed,
    /// Judge-human agreement per criterion (blind labels), when the judge
    /// reviewed any session: until a criterion is calibrated its judge
    /// figures are advisory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_calibration: Option<crate::calibration::JudgeCalibration>,
    /// Every host contacted, per role; whether anything left this machine.
    #[serde(default)]
    pub provenance: crate::provenance::Provenance,
}

/// Nearest-rank percentile of a value -> count table.
fn percentile(counts: &BTreeMap<u64, u64>, p: f64) -> Option<u64> {
    let total: u64 = counts.values().sum();
    if total == 0 {
        return None;
    }
    let rank = (((p / 100.0) * total as f64).ceil() as u64).clamp(1, total);
    let mut seen = 0;
    counts.iter().find_map(|(&value, &n)| {
        seen += n;
        (seen >= rank).then_some(value)
    })
}

/// What the report shows of a scenario, parsed once per scenario.
struct ScenarioInfo {
    title: Option<String>,
    pack: Option<String>,
    tags: Vec<String>,
    group: Option<String>,
}

impl ScenarioInfo {
    /// From the `title`, `pack`, `tags` and `definition` columns of
    /// `scenarios` (all NULL when the scenario is no longer stored).
    fn read(row: &rusqlite::Row<'_>) -> Result<Self> {
        /// The one field of a stored scenario definition the report needs.
        #[derive(Deserialize)]
        struct ScenarioGroup {
            group: Option<String>,
        }
        Ok(ScenarioInfo {
            title: row.get("title")?,
            pack: row.get("pack")?,
            tags: text(row, "tags")?
                .and_then(|s| serde_json::from_str(s).ok())
                .unwrap_or_default(),
            group: text(row, "definition")?
                .and_then(|s| serde_json::from_str::<ScenarioGroup>(s).ok())
                .and_then(|d| d.group),
        })
    }
}

/// Per-scenario accumulator while aggregating.
struct ScenarioAcc {
    stat: ScenarioStat,
    latency_sum: f64,
    latency_n: u32,
    /// (check kind, detail) -> (count, example run)
    failing: BTreeMap<(String, String), (u32, Uuid)>,
}

/// The fixed-scenario figures being added up, from tallies or a scan.
struct FixedAcc {
    out: FixedSummary,
    total: Tally,
    scenarios: HashMap<String, ScenarioInfo>,
    per_scenario: BTreeMap<String, ScenarioAcc>,
    per_tag: BTreeMap<String, GroupStat>,
    per_group: BTreeMap<String, GroupStat>,
    reasons: BTreeMap<String, u32>,
    timeline: Vec<Tally>,
    with_metrics: u32,
    completed: u32,
    coverage_sum: f64,
    coverage_n: u32,
    latencies: BTreeMap<u64, u64>,
}

impl FixedAcc {
    fn new() -> Self {
        FixedAcc {
            out: FixedSummary::default(),
            total: Tally::default(),
            scenarios: HashMap::new(),
            per_scenario: BTreeMap::new(),
            per_tag: BTreeMap::new(),
            per_group: BTreeMap::new(),
            reasons: BTreeMap::new(),
            timeline: vec![Tally::default(); TIMELINE_SLICES as usize],
            with_metrics: 0,
            completed: 0,
            coverage_sum: 0.0,
            coverage_n: 0,
            latencies: BTreeMap::new(),
        }
    }

    /// Reads a scenario's details from `row` the first time it is seen.
    fn scenario(&mut self, scenario_id: &str, row: &rusqlite::Row<'_>) -> Result<()> {
        if !self.scenarios.contains_key(scenario_id) {
            self.scenarios
                .insert(scenario_id.to_string(), ScenarioInfo::read(row)?);
        }
        Ok(())
    }

    /// Adds finished runs of one scenario (seen by [`Self::scenario`]) and
    /// verdict.
    fn runs(&mut self, scenario_id: &str, verdict: Verdict, sums: RunSums) {
        if verdict == Verdict::Skipped {
            self.out.runs_skipped += sums.runs;
            return;
        }
        let n = sums.runs;
        self.out.runs_finished += n;
        self.total.add(verdict, n);
        self.with_metrics += sums.with_metrics;
        self.completed += sums.completed;
        self.out.tokens_in += sums.tokens_in;
        self.out.tokens_out += sums.tokens_out;
        self.out.cost += sums.cost;
        self.coverage_sum += sums.coverage_sum;
        self.coverage_n += sums.coverage_runs;
        let info = &self.scenarios[scenario_id];
        let entry = self
            .per_scenario
            .entry(scenario_id.to_string())
            .or_insert_with(|| ScenarioAcc {
                stat: ScenarioStat {
                    scenario_id: scenario_id.to_string(),
                    title: info
                        .title
                        .clone()
                        .unwrap_or_else(|| scenario_id.to_string()),
                    pack: info.pack.clone().unwrap_or_default(),
                    group: info.group.clone(),
                    runs: 0,
                    tally: Tally::default(),
                    latency_ms_mean: None,
                    failing_checks: Vec::new(),
                },
                latency_sum: 0.0,
                latency_n: 0,
                failing: BTreeMap::new(),
            });
        entry.stat.runs += n;
        entry.stat.tally.add(verdict, n);
        entry.latency_sum += sums.latency_mean_sum;
        entry.latency_n += sums.latency_runs;
        fn count(map: &mut BTreeMap<String, GroupStat>, name: &str, verdict: Verdict, n: u32) {
            let g = map.entry(name.to_string()).or_insert_with(|| GroupStat {
                name: name.to_string(),
                runs: 0,
                tally: Tally::default(),
            });
            g.runs += n;
            g.tally.add(verdict, n);
        }
        for tag in &info.tags {
            count(&mut self.per_tag, tag, verdict, n);
        }
        if let Some(group) = &info.group {
            count(&mut self.per_group, group, verdict, n);
        }
    }

    /// Adds `n` finished runs of one timeline slice and verdict.
    fn timeline(&mut self, slice: i64, verdict: Verdict, n: u32) {
        let slice = slice.clamp(0, TIMELINE_SLICES - 1);
        self.timeline[slice as usize].add(verdict, n);
    }

    /// Adds `count` failures of one check in runs of a scenario already
    /// added by [`Self::runs`].
    fn failing_check(
        &mut self,
        scenario_id: &str,
        kind: &str,
        detail: &str,
        count: u32,
        run: Uuid,
    ) {
        if let Some(entry) = self.per_scenario.get_mut(scenario_id) {
            let e = entry
                .failing
                .entry((kind.to_string(), detail.to_string()))
                .or_insert((0, run));
            e.0 += count;
        }
    }

    /// The summary; `slice_hours` is the length of a timeline slice.
    fn finish(mut self, slice_hours: f64) -> FixedSummary {
        let mut out = self.out;
        out.latency_p50_ms = percentile(&self.latencies, 50.0);
        out.latency_p95_ms = percentile(&self.latencies, 95.0);
        out.passed = self.total.passed;
        out.failed = self.total.failed;
        out.errors = self.total.errors;
        out.pass_rate = self.total.pass_rate;
        out.completion_rate = (self.with_metrics > 0)
            .then(|| f64::from(self.completed) / f64::from(out.runs_finished));
        out.key_field_coverage =
            (self.coverage_n > 0).then(|| self.coverage_sum / f64::from(self.coverage_n));
        out.per_scenario = std::mem::take(&mut self.per_scenario)
            .into_values()
            .map(|acc| {
                let ScenarioAcc {
                    mut stat,
                    latency_sum,
                    latency_n,
                    failing,
                } = acc;
                stat.latency_ms_mean = (latency_n > 0).then(|| latency_sum / f64::from(latency_n));
                let mut f: Vec<FailingCheck> = failing
                    .into_iter()
                    .map(|((kind, detail), (count, example_run_id))| FailingCheck {
                        kind,
                        detail,
                        count,
                        example_run_id,
                    })
                    .collect();
                f.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.kind.cmp(&b.kind)));
                stat.failing_checks = f;
                stat
            })
            .collect();
        out.per_tag = self.per_tag.into_values().collect();
        out.per_group = self.per_group.into_values().collect();
        let mut reasons: Vec<ErrorReason> = self
            .reasons
            .into_iter()
            .map(|(reason, count)| ErrorReason { reason, count })
            .collect();
        reasons.sort_by_key(|r| std::cmp::Reverse(r.count));
        out.error_reasons = reasons;
        out.timeline = self
            .timeline
            .into_iter()
            .enumerate()
            .map(|(i, tally)| TimelinePoint {
                offset_hours: i as f64 * slice_hours,
                tally,
            })
            .collect();
        out
    }
}

/// Fixed-scenario figures of a campaign; with `since`, only runs finished
/// after it (patrol's "new results"). Reads on a read connection (see
/// [`Platform::read`]): the whole campaign from the tallies that migration
/// 0008 keeps, new results from the runs themselves.
pub(crate) fn fixed_summary(
    conn: &rusqlite::Connection,
    campaign: &Campaign,
    since: Option<DateTime<Utc>>,
) -> Result<FixedSummary> {
    let acc = match since {
        None => from_tallies(conn, campaign)?,
        Some(since) => from_runs(conn, campaign, since)?,
    };
    let duration_ms = campaign.campaign_duration().num_milliseconds().max(1);
    Ok(acc.finish(duration_ms as f64 / TIMELINE_SLICES as f64 / 3_600_000.0))
}

/// The whole campaign, from its tallies.
fn from_tallies(conn: &rusqlite::Connection, campaign: &Campaign) -> Result<FixedAcc> {
    let id = campaign.id.to_string();
    let mut acc = FixedAcc::new();
    // Runs not yet done are those neither tallied nor running (the
    // partial index `runs_open` finds the few running ones).
    let (planned, running): (u32, u32) = conn
        .prepare_cached(
            "SELECT (SELECT count(*) FROM runs WHERE campaign_id = ?1),
                    (SELECT count(*) FROM runs
                     WHERE status != 'done' AND status = 'running' AND campaign_id = ?1)",
        )?
        .query_row([&id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let mut done = 0;
    let mut statement = conn.prepare_cached(
        "SELECT t.*, s.title, s.pack, s.tags, s.definition
         FROM run_verdict_tally t LEFT JOIN scenarios s ON s.id = t.scenario_id
         WHERE t.campaign_id = ? AND t.runs > 0",
    )?;
    let mut rows = statement.query([&id])?;
    while let Some(row) = rows.next()? {
        done += row.get::<_, u32>("runs")?;
        let Some(verdict) = text(row, "verdict")?.and_then(Verdict::parse) else {
            continue;
        };
        let scenario_id: String = row.get("scenario_id")?;
        acc.scenario(&scenario_id, row)?;
        let sums = RunSums {
            runs: row.get("runs")?,
            with_metrics: row.get("with_metrics")?,
            completed: row.get("completed")?,
            latency_runs: row.get("latency_runs")?,
            latency_mean_sum: row.get("latency_mean_sum")?,
            tokens_in: row.get("tokens_in")?,
            tokens_out: row.get("tokens_out")?,
            cost: row.get("cost")?,
            coverage_runs: row.get("coverage_runs")?,
            coverage_sum: row.get("coverage_sum")?,
        };
        acc.runs(&scenario_id, verdict, sums);
    }
    let mut statement = conn.prepare_cached(
        "SELECT slice, verdict, runs FROM run_timeline_tally WHERE campaign_id = ? AND runs > 0",
    )?;
    let mut rows = statement.query([&id])?;
    while let Some(row) = rows.next()? {
        if let Some(verdict) = text(row, "verdict")?.and_then(Verdict::parse) {
            acc.timeline(row.get("slice")?, verdict, row.get("runs")?);
        }
    }
    acc.out.runs_planned = planned;
    acc.out.runs_pending = planned.saturating_sub(done + running);

    let mut statement = conn.prepare_cached(
        "SELECT scenario_id, kind, detail, count, example_run_id
         FROM run_failing_check_tally WHERE campaign_id = ?",
    )?;
    let mut rows = statement.query([&id])?;
    while let Some(row) = rows.next()? {
        let run = crate::target::parse_id(text(row, "example_run_id")?.unwrap_or_default())?;
        acc.failing_check(
            text(row, "scenario_id")?.unwrap_or_default(),
            text(row, "kind")?.unwrap_or_default(),
            text(row, "detail")?.unwrap_or_default(),
            row.get("count")?,
            run,
        );
    }

    let mut statement =
        conn.prepare_cached("SELECT reason, count FROM run_error_tally WHERE campaign_id = ?")?;
    let mut rows = statement.query([&id])?;
    while let Some(row) = rows.next()? {
        *acc.reasons.entry(row.get("reason")?).or_default() += row.get::<_, u32>("count")?;
    }

    let mut statement = conn.prepare_cached(
        "SELECT latency_ms, count FROM run_latency_tally WHERE campaign_id = ? AND count > 0",
    )?;
    let mut rows = statement.query([&id])?;
    while let Some(row) = rows.next()? {
        acc.latencies
            .insert(row.get("latency_ms")?, row.get("count")?);
    }
    Ok(acc)
}

/// The runs finished after `since`, read one by one.
fn from_runs(
    conn: &rusqlite::Connection,
    campaign: &Campaign,
    since: DateTime<Utc>,
) -> Result<FixedAcc> {
    let (id, since_ms) = (campaign.id.to_string(), to_ms(since));
    let duration_ms = campaign.campaign_duration().num_milliseconds().max(1);
    let mut acc = FixedAcc::new();
    let mut statement = conn.prepare_cached(
        "SELECT r.id, r.scenario_id, r.verdict, r.metrics, r.check_results, r.error_reason,
                r.offset_ms, s.title, s.pack, s.tags, s.definition
         FROM runs r LEFT JOIN scenarios s ON s.id = r.scenario_id
         WHERE r.campaign_id = ? AND r.status = 'done' AND r.finished_at > ?",
    )?;
    let mut rows = statement.query(rusqlite::params![id, since_ms])?;
    while let Some(row) = rows.next()? {
        let Some(verdict) = text(row, "verdict")?.and_then(Verdict::parse) else {
            continue;
        };
        let scenario_id: String = row.get("scenario_id")?;
        acc.scenario(&scenario_id, row)?;
        let (metrics, checks) =
            crate::tally::stored_results(text(row, "metrics")?, text(row, "check_results")?);
        let slice = crate::tally::slice(row.get("offset_ms")?, duration_ms);
        acc.runs(&scenario_id, verdict, RunSums::of_run(metrics.as_ref()));
        acc.timeline(slice, verdict, 1);
        if verdict == Verdict::Skipped {
            continue;
        }
        let run_id = crate::target::parse_id(text(row, "id")?.unwrap_or_default())?;
        for c in checks.iter().filter(|c| !c.passed) {
            acc.failing_check(&scenario_id, &c.kind, &c.detail, 1, run_id);
        }
        if verdict == Verdict::Error {
            let reason = reason_kind(text(row, "error_reason")?).to_string();
            *acc.reasons.entry(reason).or_default() += 1;
        }
    }
    drop(rows);

    let mut statement = conn.prepare_cached(
        "SELECT max(t.latency_ms, 0) AS latency_ms, count(*) AS count
         FROM run_turns t JOIN runs r ON r.id = t.run_id
         WHERE r.campaign_id = ? AND r.status = 'done' AND r.finished_at > ?
           AND t.role = 'target' AND t.latency_ms IS NOT NULL
         GROUP BY 1",
    )?;
    let mut rows = statement.query(rusqlite::params![id, since_ms])?;
    while let Some(row) = rows.next()? {
        acc.latencies
            .insert(row.get("latency_ms")?, row.get("count")?);
    }
    Ok(acc)
}

impl Platform {
    /// Fixed-scenario figures of a campaign; with `since`, only runs
    /// finished after it (patrol's "new results").
    pub async fn fixed_summary(
        &self,
        campaign: &Campaign,
        since: Option<DateTime<Utc>>,
    ) -> Result<FixedSummary> {
        let campaign = campaign.clone();
        self.read(move |conn| fixed_summary(conn, &campaign, since))
            .await
    }

    /// The campaign's report. The `exploration` block is present only when
    /// the campaign has exploration data.
    pub async fn campaign_report(&self, id: Uuid) -> Result<CampaignReport> {
        let campaign = self.get_campaign(id).await?;
        // The two large aggregations run on read connections of their own,
        // one per core; the rest is read meanwhile.
        let (target, fixed, exploration, analysis, comparison, human_review, models) = tokio::try_join!(
            self.get_target(campaign.target_id),
            self.fixed_summary(&campaign, None),
            self.exploration_findings(id),
            self.latest_analysis(id),
            self.period_comparison(id),
            self.review_summary(id),
            self.models_used(id),
        )?;
        let judge_calibration = match &exploration {
            Some(e) if e.judge.reviewed > 0 => Some(self.judge_calibration(id).await?),
            _ => None,
        };
        let provenance = self.campaign_provenance(campaign.id).await?;
        Ok(CampaignReport {
            judge_calibration,
            provenance,
            analysis,
            comparison,
            human_review,
            models,
            target_name: target.name,
            target_model: target.channel.model_label(),
            campaign,
            generated_at: self.clock.now(),
            fixed,
            exploration,
        })
    }
}
