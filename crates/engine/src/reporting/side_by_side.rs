//! Two campaigns of one target side by side: for each, the pass rate with
//! its Wilson interval, pass^k and the exploration figures (apart: they
//! never enter the pass rate); between them, the change with Newcombe's
//! interval and its verdict in plain words, and every scenario with its
//! result in each and whether it was fixed or broke.

use crate::campaign::Campaign;
use crate::comparison::{ModelsUsed, PassAtK, PeriodDelta, compare, pass_at_k};
use crate::domain::ids::CampaignId;
use crate::domain::stats::Interval;
use crate::error::{Error, Result};
use crate::msg;
use crate::platform::Platform;
use crate::report::CampaignReport;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One campaign's figures in a side-by-side comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CampaignSide {
    pub campaign_id: CampaignId,
    pub campaign_name: String,
    pub window_start: DateTime<Utc>,
    pub window_end: DateTime<Utc>,
    pub passed: u32,
    pub failed: u32,
    pub errors: u32,
    pub pass_rate: Option<f64>,
    /// 95% Wilson interval of the pass rate.
    pub pass_rate_interval: Option<Interval>,
    /// pass^k: the chance that k runs of one scenario all pass, averaged
    /// over the scenarios run at least k times.
    pub pass_at_k: Vec<PassAtK>,
    /// The exploration figures, when the campaign explored.
    pub exploration: Option<ExplorationSide>,
    pub models: ModelsUsed,
}

/// A campaign's exploration in a comparison: a separate line of evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ExplorationSide {
    pub sessions: u32,
    /// Sessions with an experience record.
    pub records: u32,
    pub goals_achieved: u32,
    pub goal_achievement_rate: Option<f64>,
    /// Distinct issues (blockers and misled points) reported.
    pub issues: u32,
    /// Sessions whose faults were the virtual user's, counted apart.
    pub simulator_faults: u32,
}

/// A scenario's judged runs in one campaign.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ScenarioResult {
    pub passed: u32,
    pub judged: u32,
}

/// How a scenario's majority verdict moved from the baseline.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    specta::Type,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ScenarioChange {
    /// Passed (by majority) in the baseline, fails now.
    Broke,
    /// Failed in the baseline, passes now.
    Fixed,
    Same,
    /// Judged only in the baseline.
    OnlyBaseline,
    /// Judged only in this campaign.
    OnlyCurrent,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ScenarioComparison {
    pub scenario_id: String,
    pub title: String,
    pub baseline: Option<ScenarioResult>,
    pub current: Option<ScenarioResult>,
    pub change: ScenarioChange,
}

/// Two campaigns of one target side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SideBySide {
    pub baseline: CampaignSide,
    pub current: CampaignSide,
    /// The current campaign against the baseline: the change, its interval,
    /// the verdict in plain words and warnings when the models differ.
    pub change: PeriodDelta,
    /// Every scenario judged in either, those that broke first, then those
    /// fixed, then the rest by title.
    pub scenarios: Vec<ScenarioComparison>,
}

fn side(report: &CampaignReport, pass_at_k: Vec<PassAtK>) -> CampaignSide {
    let c = &report.campaign;
    let f = &report.fixed;
    CampaignSide {
        campaign_id: c.id,
        campaign_name: c.name.clone(),
        window_start: c.window_start,
        window_end: c.window_end,
        passed: f.passed,
        failed: f.failed,
        errors: f.errors,
        pass_rate: f.pass_rate,
        pass_rate_interval: f.pass_rate_interval,
        pass_at_k,
        exploration: report.exploration.as_ref().map(|e| ExplorationSide {
            sessions: e.sessions_total,
            records: e.records,
            goals_achieved: e.goals_achieved,
            goal_achievement_rate: e.goal_achievement_rate,
            issues: e.issues.len() as u32,
            simulator_faults: e.simulator_faults,
        }),
        models: report.models.clone(),
    }
}

/// Each scenario's judged runs, by scenario id.
fn results(report: &CampaignReport) -> BTreeMap<&str, (&str, ScenarioResult)> {
    report
        .fixed
        .per_scenario
        .iter()
        .filter(|s| s.tally.passed + s.tally.failed > 0)
        .map(|s| {
            let result = ScenarioResult {
                passed: s.tally.passed,
                judged: s.tally.passed + s.tally.failed,
            };
            (s.scenario_id.as_str(), (s.title.as_str(), result))
        })
        .collect()
}

/// Every scenario of either report, with how it moved.
pub fn scenario_changes(
    baseline: &CampaignReport,
    current: &CampaignReport,
) -> Vec<ScenarioComparison> {
    let (before, after) = (results(baseline), results(current));
    let passes = |r: &ScenarioResult| r.passed * 2 >= r.judged;
    let mut ids: Vec<&str> = before.keys().chain(after.keys()).copied().collect();
    ids.sort_unstable();
    ids.dedup();
    let mut out: Vec<ScenarioComparison> = ids
        .into_iter()
        .map(|id| {
            let (b, a) = (before.get(id), after.get(id));
            let change = match (b, a) {
                (Some((_, b)), Some((_, a))) => match (passes(b), passes(a)) {
                    (true, false) => ScenarioChange::Broke,
                    (false, true) => ScenarioChange::Fixed,
                    _ => ScenarioChange::Same,
                },
                (Some(_), None) => ScenarioChange::OnlyBaseline,
                _ => ScenarioChange::OnlyCurrent,
            };
            ScenarioComparison {
                scenario_id: id.to_string(),
                title: a.or(b).map_or(id, |(title, _)| title).to_string(),
                baseline: b.map(|(_, r)| *r),
                current: a.map(|(_, r)| *r),
                change,
            }
        })
        .collect();
    out.sort_by(|x, y| x.change.cmp(&y.change).then_with(|| x.title.cmp(&y.title)));
    out
}

fn different_targets(current: &Campaign, baseline: &Campaign) -> Error {
    Error::invalid_msg(
        msg!(
            "error-compare-other-target",
            current = current.name.as_str(),
            baseline = baseline.name.as_str()
        ),
        msg!("error-compare-other-target-suggestion"),
    )
}

impl Platform {
    /// Campaign `current` beside campaign `baseline`; both must evaluate
    /// the same target and be different campaigns.
    pub async fn compare_campaigns(
        &self,
        current: CampaignId,
        baseline: CampaignId,
    ) -> Result<SideBySide> {
        if current == baseline {
            return Err(Error::invalid_msg(
                msg!("error-compare-same"),
                msg!("error-compare-same-suggestion"),
            ));
        }
        let (a, b) = tokio::try_join!(self.get_campaign(current), self.get_campaign(baseline))?;
        if a.target_id != b.target_id {
            return Err(different_targets(&a, &b));
        }
        let (now, then, now_outcomes, then_outcomes) = tokio::try_join!(
            self.campaign_report(current),
            self.campaign_report(baseline),
            self.outcomes(current),
            self.outcomes(baseline),
        )?;
        let change = compare(
            (&now.campaign, &now_outcomes, &now.models),
            &[(
                then.campaign.clone(),
                then_outcomes.clone(),
                then.models.clone(),
            )],
        )
        .periods
        .remove(0);
        Ok(SideBySide {
            baseline: side(&then, pass_at_k(&then_outcomes)),
            current: side(&now, pass_at_k(&now_outcomes)),
            change,
            scenarios: scenario_changes(&then, &now),
        })
    }
}
