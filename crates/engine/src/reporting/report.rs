//! The campaign report: one aggregation used by patrol, the report route,
//! the UI and every export. Fixed-scenario figures come only from runs;
//! exploration data never enters them (it has its own block).

use crate::campaign::Campaign;
use crate::clock::to_ms;
use crate::domain::ids::{CampaignId, RunId};
use crate::domain::tally::{RunSums, TIMELINE_SLICES, reason_kind};
use crate::error::Result;
use crate::findings::ExplorationFindings;
use crate::fixed::Verdict;
use crate::platform::Platform;
use crate::store::Read;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub(crate) use crate::domain::report::ScenarioInfo;
pub use crate::domain::report::{
    ErrorReason, FailingCheck, FixedSummary, GroupStat, GroupTasks, ScenarioStat, Tally,
    TimelinePoint,
};

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CampaignReport {
    pub campaign: Campaign,
    pub target_name: String,
    /// Model identity of the target, for comparisons.
    pub target_model: String,
    pub generated_at: DateTime<Utc>,
    pub fixed: FixedSummary,
    /// Present only when the campaign has exploration data, or seeds and
    /// production conversations of its target (then with no session).
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
    /// The names of the runs and sessions the report cites (scenario and
    /// run number, persona × goal and session number).
    #[serde(default)]
    pub evidence: crate::domain::evidence::EvidenceNames,
    /// The scenarios of this campaign drafted from exploration findings,
    /// with their lineage and results: found by exploration, now guarded.
    #[serde(default)]
    pub guarded: Vec<crate::domain::report::GuardedScenario>,
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

/// Per-scenario accumulator while aggregating.
struct ScenarioAcc {
    stat: ScenarioStat,
    latency_sum: f64,
    latency_n: u32,
    /// (check kind, detail) -> (count, example run)
    failing: BTreeMap<(String, String), (u32, RunId)>,
}

/// The fixed-scenario figures being added up, from tallies or a scan.
struct FixedAcc {
    out: FixedSummary,
    total: Tally,
    per_scenario: BTreeMap<String, ScenarioAcc>,
    per_tag: BTreeMap<String, GroupStat>,
    per_group: BTreeMap<String, GroupStat>,
    group_sums: BTreeMap<String, RunSums>,
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
            per_scenario: BTreeMap::new(),
            per_tag: BTreeMap::new(),
            per_group: BTreeMap::new(),
            group_sums: BTreeMap::new(),
            reasons: BTreeMap::new(),
            timeline: vec![Tally::default(); TIMELINE_SLICES as usize],
            with_metrics: 0,
            completed: 0,
            coverage_sum: 0.0,
            coverage_n: 0,
            latencies: BTreeMap::new(),
        }
    }

    /// Adds finished runs of one scenario (described by `info`) and
    /// verdict.
    fn runs(&mut self, info: &ScenarioInfo, scenario_id: &str, verdict: Verdict, sums: RunSums) {
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
            self.group_sums.entry(group.clone()).or_default().add(&sums);
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
        run: RunId,
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
        out.pass_rate_interval = self.total.interval;
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
                        detail: crate::i18n::Text::from_key(&detail),
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
        out.per_group_tasks = self
            .group_sums
            .into_iter()
            .map(|(group, sums)| GroupTasks::of(group, &sums))
            .collect();
        // Seed 002's order: the easiest group first.
        let rank = |g: &str| {
            ["basic", "intermediate", "advanced"]
                .iter()
                .position(|k| *k == g)
        };
        out.per_group_tasks.sort_by(|a, b| {
            rank(&a.group)
                .unwrap_or(3)
                .cmp(&rank(&b.group).unwrap_or(3))
        });
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
/// after it (patrol's "new results"). Reads in a snapshot (see
/// [`crate::store::Store::snapshot`]): the whole campaign from the tallies
/// that migration 0008 keeps, new results from the runs themselves.
pub(crate) fn fixed_summary(
    read: &Read<'_>,
    campaign: &Campaign,
    since: Option<DateTime<Utc>>,
) -> Result<FixedSummary> {
    let acc = match since {
        None => from_tallies(read, campaign)?,
        Some(since) => from_runs(read, campaign, since)?,
    };
    let duration_ms = campaign.campaign_duration().num_milliseconds().max(1);
    Ok(acc.finish(duration_ms as f64 / TIMELINE_SLICES as f64 / 3_600_000.0))
}

/// The whole campaign, from its tallies.
fn from_tallies(read: &Read<'_>, campaign: &Campaign) -> Result<FixedAcc> {
    let id = campaign.id;
    let mut acc = FixedAcc::new();
    // Runs not yet done are those neither tallied nor running.
    let (planned, running) = read.planned_and_running_runs(id)?;
    let done = read.verdict_tallies(id, |info, scenario_id, verdict, sums| {
        acc.runs(info, scenario_id, verdict, sums)
    })?;
    read.timeline_tallies(id, |slice, verdict, runs| {
        acc.timeline(slice, verdict, runs)
    })?;
    acc.out.runs_planned = planned;
    acc.out.runs_pending = planned.saturating_sub(done + running);
    read.failing_check_tallies(id, |scenario_id, kind, detail, count, run| {
        acc.failing_check(scenario_id, kind, detail, count, run)
    })?;
    read.error_tallies(id, |reason, count| {
        *acc.reasons.entry(reason).or_default() += count;
    })?;
    read.latency_tallies(id, |latency_ms, count| {
        acc.latencies.insert(latency_ms, count);
    })?;
    Ok(acc)
}

/// The figures the campaign list shows of a campaign's fixed runs (runs
/// planned, finished, in error, the pass rate), from its verdict tallies
/// alone.
pub(crate) fn fixed_headline(read: &Read<'_>, id: CampaignId) -> Result<FixedSummary> {
    let (planned, running) = read.planned_and_running_runs(id)?;
    let mut acc = FixedAcc::new();
    let done = read.verdict_tallies(id, |info, scenario_id, verdict, sums| {
        acc.runs(info, scenario_id, verdict, sums)
    })?;
    let mut out = acc.finish(1.0);
    out.runs_planned = planned;
    out.runs_pending = planned.saturating_sub(done + running);
    Ok(out)
}

/// The runs finished after `since`, read one by one.
fn from_runs(read: &Read<'_>, campaign: &Campaign, since: DateTime<Utc>) -> Result<FixedAcc> {
    let (id, since_ms) = (campaign.id, to_ms(since));
    let duration_ms = campaign.campaign_duration().num_milliseconds().max(1);
    let mut acc = FixedAcc::new();
    read.runs_finished_since(id, since_ms, |info, run| {
        let verdict = run.verdict;
        let slice = crate::domain::tally::slice(run.offset_ms, duration_ms);
        acc.runs(
            info,
            run.scenario_id,
            verdict,
            RunSums::of_run(run.metrics.as_ref()),
        );
        acc.timeline(slice, verdict, 1);
        if verdict == Verdict::Skipped {
            return;
        }
        for c in run.checks.iter().filter(|c| !c.passed) {
            acc.failing_check(run.scenario_id, &c.kind, &c.detail.to_key(), 1, run.id);
        }
        if verdict == Verdict::Error {
            let reason = reason_kind(run.error_reason).to_string();
            *acc.reasons.entry(reason).or_default() += 1;
        }
    })?;
    read.latencies_since(id, since_ms, |latency_ms, count| {
        acc.latencies.insert(latency_ms, count);
    })?;
    Ok(acc)
}

impl Platform {
    /// The campaign's scenarios that carry a lineage (drafted from an
    /// exploration finding), with their results.
    fn guarded_scenarios(
        &self,
        fixed: &FixedSummary,
    ) -> Vec<crate::domain::report::GuardedScenario> {
        fixed
            .per_scenario
            .iter()
            .filter_map(|s| {
                let lineage = self.scenarios.get(&s.scenario_id)?.lineage.clone()?;
                Some(crate::domain::report::GuardedScenario {
                    scenario_id: s.scenario_id.clone(),
                    title: s.title.clone(),
                    lineage,
                    tally: s.tally.clone(),
                })
            })
            .collect()
    }

    /// A campaign's task figures per difficulty group (seed 002's table),
    /// from its verdict tallies alone.
    pub async fn group_tasks(&self, campaign: &Campaign) -> Result<Vec<GroupTasks>> {
        let id = campaign.id;
        self.store
            .snapshot(move |read| {
                let mut acc = FixedAcc::new();
                read.verdict_tallies(id, |info, scenario_id, verdict, sums| {
                    acc.runs(info, scenario_id, verdict, sums)
                })?;
                Ok(acc.finish(1.0).per_group_tasks)
            })
            .await
    }

    /// Fixed-scenario figures of a campaign; with `since`, only runs
    /// finished after it (patrol's "new results").
    pub async fn fixed_summary(
        &self,
        campaign: &Campaign,
        since: Option<DateTime<Utc>>,
    ) -> Result<FixedSummary> {
        let campaign = campaign.clone();
        self.store
            .snapshot(move |read| fixed_summary(read, &campaign, since))
            .await
    }

    /// The campaign's report. The `exploration` block is present only when
    /// the campaign has exploration data, or seeds whose cells production
    /// reaches.
    pub async fn campaign_report(&self, id: CampaignId) -> Result<CampaignReport> {
        let campaign = self.get_campaign(id).await?;
        // The two large aggregations run on read connections of their own,
        // one per core; the rest is read meanwhile.
        let (target, fixed, mut exploration, analysis, comparison, human_review, models) = tokio::try_join!(
            self.get_target(campaign.target_id),
            self.fixed_summary(&campaign, None),
            self.exploration_findings(id),
            self.latest_analysis(id),
            self.period_comparison(id),
            self.review_summary(id),
            self.models_used(id),
        )?;
        match exploration.as_mut() {
            Some(e) => self.place_production(&campaign, &mut e.coverage).await?,
            // Seeds not explored yet: the block shows only when production
            // reaches their cells, every one untried.
            None if !campaign.seed_set.is_empty() => {
                let mut e = crate::findings::unexplored(&campaign.seed_set);
                self.place_production(&campaign, &mut e.coverage).await?;
                if e.coverage.production_conversations > 0 {
                    exploration = Some(e);
                }
            }
            None => {}
        }
        let judged_sessions = exploration.as_ref().is_some_and(|e| e.judge.reviewed > 0);
        let judge_calibration = if judged_sessions || self.rubric_run_count(id).await? > 0 {
            Some(self.judge_calibration(id).await?)
        } else {
            None
        };
        let provenance = self.campaign_provenance(campaign.id).await?;
        let mut report = CampaignReport {
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
            evidence: Default::default(),
            guarded: Vec::new(),
        };
        report.guarded = self.guarded_scenarios(&report.fixed);
        report.evidence = self.report_evidence(&report).await?;
        Ok(report)
    }
}
