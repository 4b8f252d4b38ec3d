//! The campaign report: one aggregation used by patrol, the report route,
//! the UI and every export. Fixed-scenario figures come only from runs;
//! exploration data never enters them (it has its own block).

use crate::campaign::Campaign;
use crate::clock::to_ms;
use crate::error::Result;
use crate::exploration::findings::ExplorationFindings;
use crate::fixed::{RunMetrics, Verdict};
use crate::platform::Platform;
use crate::store::text;
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
    fn add(&mut self, v: Verdict) {
        match v {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed => self.failed += 1,
            Verdict::Error => self.errors += 1,
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
}

/// Per-scenario accumulator while aggregating.
struct ScenarioAcc {
    stat: ScenarioStat,
    latency_sum: f64,
    latency_n: u32,
    /// (check kind, detail) -> (count, example run)
    failing: BTreeMap<(String, String), (u32, Uuid)>,
}

/// Number of slices in the timeline.
const TIMELINE_SLICES: i64 = 12;

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[u64], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// What the report shows of a scenario, parsed once per scenario.
struct ScenarioInfo {
    title: Option<String>,
    pack: Option<String>,
    tags: Vec<String>,
    group: Option<String>,
}

/// The one field of a stored scenario definition the report needs.
#[derive(Deserialize)]
struct ScenarioGroup {
    group: Option<String>,
}

/// Fixed-scenario figures of a campaign; with `since`, only runs finished
/// after it (patrol's "new results"). Reads on a read connection (see
/// [`Platform::read`]).
pub(crate) fn fixed_summary(
    conn: &rusqlite::Connection,
    campaign: &Campaign,
    since: Option<DateTime<Utc>>,
) -> Result<FixedSummary> {
    let since_ms = since.map(to_ms).unwrap_or(i64::MIN);
    let mut statement = conn.prepare_cached(
        "SELECT r.id, r.scenario_id, r.status, r.verdict, r.metrics, r.check_results, r.error_reason,
                r.offset_ms, r.finished_at, s.title, s.pack, s.tags, s.definition
         FROM runs r LEFT JOIN scenarios s ON s.id = r.scenario_id
         WHERE r.campaign_id = ?",
    )?;
    let mut rows = statement.query([campaign.id.to_string()])?;
    let mut scenarios: HashMap<String, ScenarioInfo> = HashMap::new();

    let mut out = FixedSummary::default();
    let mut total = Tally::default();
    let mut per_scenario: BTreeMap<String, ScenarioAcc> = BTreeMap::new();
    let mut per_tag: BTreeMap<String, GroupStat> = BTreeMap::new();
    let mut per_group: BTreeMap<String, GroupStat> = BTreeMap::new();
    let mut reasons: BTreeMap<String, u32> = BTreeMap::new();
    let duration_ms = campaign.campaign_duration().num_milliseconds().max(1);
    let mut timeline: Vec<Tally> = vec![Tally::default(); TIMELINE_SLICES as usize];
    let (mut completed, mut finished_with_metrics) = (0u32, 0u32);
    let (mut coverage_sum, mut coverage_n) = (0.0f64, 0u32);

    while let Some(row) = rows.next()? {
        let status = text(row, "status")?.unwrap_or_default();
        let finished_at: Option<i64> = row.get("finished_at")?;
        let in_scope = since.is_none() || finished_at.is_some_and(|f| f > since_ms);
        if since.is_none() {
            out.runs_planned += 1;
            if status == "pending" {
                out.runs_pending += 1;
            }
        }
        if !in_scope || status != "done" {
            continue;
        }
        let Some(verdict) = text(row, "verdict")?.and_then(Verdict::parse) else {
            continue;
        };
        if verdict == Verdict::Skipped {
            out.runs_skipped += 1;
            continue;
        }
        out.runs_finished += 1;
        total.add(verdict);
        let run_id = crate::target::parse_id(text(row, "id")?.unwrap_or_default())?;
        let scenario_id: String = row.get("scenario_id")?;
        if !scenarios.contains_key(&scenario_id) {
            let info = ScenarioInfo {
                title: row.get("title")?,
                pack: row.get("pack")?,
                tags: text(row, "tags")?
                    .and_then(|s| serde_json::from_str(s).ok())
                    .unwrap_or_default(),
                group: text(row, "definition")?
                    .and_then(|s| serde_json::from_str::<ScenarioGroup>(s).ok())
                    .and_then(|d| d.group),
            };
            scenarios.insert(scenario_id.clone(), info);
        }
        let info = &scenarios[&scenario_id];
        let (title, pack, tags, group) = (&info.title, &info.pack, &info.tags, &info.group);
        let metrics: Option<RunMetrics> =
            text(row, "metrics")?.and_then(|s| serde_json::from_str(s).ok());
        let checks: Vec<crate::checks::CheckResult> = text(row, "check_results")?
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default();

        let entry = per_scenario
            .entry(scenario_id.clone())
            .or_insert_with(|| ScenarioAcc {
                stat: ScenarioStat {
                    scenario_id: scenario_id.clone(),
                    title: title.clone().unwrap_or_else(|| scenario_id.clone()),
                    pack: pack.clone().unwrap_or_default(),
                    group: group.clone(),
                    runs: 0,
                    tally: Tally::default(),
                    latency_ms_mean: None,
                    failing_checks: Vec::new(),
                },
                latency_sum: 0.0,
                latency_n: 0,
                failing: BTreeMap::new(),
            });
        entry.stat.runs += 1;
        entry.stat.tally.add(verdict);
        for c in checks.iter().filter(|c| !c.passed) {
            let e = entry
                .failing
                .entry((c.kind.clone(), c.detail.clone()))
                .or_insert((0, run_id));
            e.0 += 1;
        }
        if let Some(m) = &metrics {
            finished_with_metrics += 1;
            if m.completed {
                completed += 1;
            }
            if m.turns > 0 {
                entry.latency_sum += m.latency_ms_total as f64 / f64::from(m.turns);
                entry.latency_n += 1;
            }
            out.tokens_in += m.tokens_in;
            out.tokens_out += m.tokens_out;
            out.cost += m.cost;
            if let Some(c) = m.key_field_coverage {
                coverage_sum += c;
                coverage_n += 1;
            }
        }
        for tag in tags {
            let g = per_tag.entry(tag.clone()).or_insert_with(|| GroupStat {
                name: tag.clone(),
                runs: 0,
                tally: Tally::default(),
            });
            g.runs += 1;
            g.tally.add(verdict);
        }
        if let Some(group) = group {
            let g = per_group.entry(group.clone()).or_insert_with(|| GroupStat {
                name: group.clone(),
                runs: 0,
                tally: Tally::default(),
            });
            g.runs += 1;
            g.tally.add(verdict);
        }
        if verdict == Verdict::Error {
            let reason: Option<String> = row.get("error_reason")?;
            let reason = reason.unwrap_or_else(|| "unknown".into());
            // Group by the reason's kind (text before the first colon).
            let key = reason
                .split(':')
                .next()
                .unwrap_or(&reason)
                .trim()
                .to_string();
            *reasons.entry(key).or_default() += 1;
        }
        let offset: i64 = row.get("offset_ms")?;
        let slice = (offset * TIMELINE_SLICES / duration_ms).clamp(0, TIMELINE_SLICES - 1);
        timeline[slice as usize].add(verdict);
    }

    drop(rows);
    // Latency percentiles over every target reply of the runs in scope.
    let mut latencies: Vec<u64> = conn
        .prepare_cached(
            "SELECT t.latency_ms FROM run_turns t JOIN runs r ON r.id = t.run_id
             WHERE r.campaign_id = ?1 AND t.role = 'target' AND t.latency_ms IS NOT NULL
               AND r.status = 'done' AND (r.finished_at > ?2 OR ?3 = 0)",
        )?
        .query_map(
            rusqlite::params![campaign.id.to_string(), since_ms, since.is_some()],
            |r| r.get::<_, i64>(0),
        )?
        .map(|v| v.map(|v| v.max(0) as u64))
        .collect::<rusqlite::Result<_>>()?;
    latencies.sort_unstable();
    out.latency_p50_ms = percentile(&latencies, 50.0);
    out.latency_p95_ms = percentile(&latencies, 95.0);

    out.passed = total.passed;
    out.failed = total.failed;
    out.errors = total.errors;
    out.pass_rate = total.pass_rate;
    out.completion_rate =
        (finished_with_metrics > 0).then(|| f64::from(completed) / f64::from(out.runs_finished));
    out.key_field_coverage = (coverage_n > 0).then(|| coverage_sum / f64::from(coverage_n));
    out.per_scenario = per_scenario
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
    out.per_tag = per_tag.into_values().collect();
    out.per_group = per_group.into_values().collect();
    let mut reasons: Vec<ErrorReason> = reasons
        .into_iter()
        .map(|(reason, count)| ErrorReason { reason, count })
        .collect();
    reasons.sort_by_key(|r| std::cmp::Reverse(r.count));
    out.error_reasons = reasons;
    let slice_hours = duration_ms as f64 / TIMELINE_SLICES as f64 / 3_600_000.0;
    out.timeline = timeline
        .into_iter()
        .enumerate()
        .map(|(i, tally)| TimelinePoint {
            offset_hours: i as f64 * slice_hours,
            tally,
        })
        .collect();
    Ok(out)
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
        let (target, fixed, exploration, analysis, comparison, human_review) = tokio::try_join!(
            self.get_target(campaign.target_id),
            self.fixed_summary(&campaign, None),
            self.exploration_findings(id),
            self.latest_analysis(id),
            self.period_comparison(id),
            self.review_summary(id),
        )?;
        Ok(CampaignReport {
            analysis,
            comparison,
            human_review,
            target_name: target.name,
            target_model: target.channel.model_label(),
            campaign,
            generated_at: self.clock.now(),
            fixed,
            exploration,
        })
    }
}
