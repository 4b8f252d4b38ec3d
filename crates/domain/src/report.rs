//! What reports are made of as stored: the analysis and its claims, the
//! models that played each role, the outcomes a comparison reads, what a
//! report shows of a scenario.

use crate::i18n::Text;
use crate::ids::{CampaignId, RunId};
use crate::models::OutputMode;
use crate::run::Verdict;
use crate::stats::{Interval, wilson};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use uuid::Uuid;

/// One claim and the evidence behind it.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct Claim {
    pub text: Text,
    #[serde(default)]
    pub run_ids: Vec<String>,
    #[serde(default)]
    pub session_ids: Vec<String>,
    #[serde(default)]
    pub turn_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Analysis {
    pub id: Uuid,
    pub campaign_id: CampaignId,
    /// Model identity, or `template` offline.
    pub model: String,
    /// True for the template analysis built without a model.
    pub offline: bool,
    /// The conclusion in a few sentences.
    pub summary: Text,
    pub claims: Vec<Claim>,
    /// Why the template was used although a model was configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_reason: Option<Text>,
    /// How the analyst model was asked for its JSON (model analyses only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_mode: Option<OutputMode>,
    /// The language the analyst model was asked to write in (model
    /// analyses only: a template analysis is messages, read in any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<crate::i18n::Lang>,
    pub created_at: DateTime<Utc>,
}

/// Which models played each role in a campaign.
#[derive(
    Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct ModelsUsed {
    pub target: String,
    #[serde(default)]
    pub virtual_user: Option<String>,
    #[serde(default)]
    pub judge: Option<String>,
    /// How each role model was asked for its JSON, as last seen in this
    /// campaign (a role played offline has none).
    #[serde(default)]
    pub output_modes: RoleOutputModes,
}

/// The structured-output form each role model took (see
/// [`OutputMode`]).
#[derive(
    Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct RoleOutputModes {
    #[serde(default)]
    pub virtual_user: Option<OutputMode>,
    #[serde(default)]
    pub judge: Option<OutputMode>,
    #[serde(default)]
    pub analyst: Option<OutputMode>,
    #[serde(default)]
    pub tool_simulator: Option<OutputMode>,
}

/// Passed/failed outcomes of one scenario in one campaign (errors and
/// skipped runs excluded, as from the pass rate).
pub type Outcomes = BTreeMap<String, Vec<bool>>;

/// What the report shows of a scenario, parsed once per scenario.
pub struct ScenarioInfo {
    pub title: Option<String>,
    pub pack: Option<String>,
    pub tags: Vec<String>,
    pub group: Option<String>,
}

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
    /// 95% Wilson interval of `pass_rate`.
    #[serde(default)]
    pub interval: Option<Interval>,
}

impl Tally {
    /// A tally of these counts, its rate and interval worked out.
    pub fn of(passed: u32, failed: u32, errors: u32) -> Self {
        let mut t = Self::default();
        t.add(Verdict::Passed, passed);
        t.add(Verdict::Failed, failed);
        t.add(Verdict::Error, errors);
        t
    }

    /// Counts `n` runs with `verdict`.
    pub fn add(&mut self, verdict: Verdict, n: u32) {
        match verdict {
            Verdict::Passed => self.passed += n,
            Verdict::Failed => self.failed += n,
            Verdict::Error => self.errors += n,
            Verdict::Skipped => {}
        }
        let judged = self.passed + self.failed;
        self.pass_rate = (judged > 0).then(|| f64::from(self.passed) / f64::from(judged));
        self.interval = wilson(self.passed, judged);
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
    pub detail: Text,
    pub count: u32,
    /// One run where it happened, for drill-down.
    pub example_run_id: RunId,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct GroupStat {
    pub name: String,
    pub runs: u32,
    pub tally: Tally,
}

/// Seed 002's table (§5.2-5.3) for one difficulty group, over its finished
/// runs, those in error included: a run in error did not complete its task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct GroupTasks {
    pub group: String,
    pub runs: u32,
    /// Runs that reached their final answer and produced the document or
    /// file their task asks for, over finished runs.
    pub completion_rate: Option<f64>,
    /// Mean key-field coverage of the runs whose scenario names key fields.
    pub key_field_coverage: Option<f64>,
    /// Mean tool calls answered per run.
    pub steps_mean: Option<f64>,
    /// Mean tokens (in and out) per run.
    pub tokens_mean: Option<f64>,
    /// Mean time of a whole run, every reply together.
    pub latency_ms_mean: Option<f64>,
}

impl GroupTasks {
    /// The row of these sums.
    pub fn of(group: String, s: &crate::tally::RunSums) -> Self {
        let mean = |sum: f64, n: u32| (n > 0).then(|| sum / f64::from(n));
        GroupTasks {
            group,
            runs: s.runs,
            completion_rate: mean(f64::from(s.task_completed), s.runs),
            key_field_coverage: mean(s.coverage_sum, s.coverage_runs),
            steps_mean: mean(s.steps_sum as f64, s.steps_runs),
            tokens_mean: mean((s.tokens_in + s.tokens_out) as f64, s.with_metrics),
            latency_ms_mean: mean(s.latency_total_sum, s.task_runs),
        }
    }
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
    /// 95% Wilson interval of `pass_rate`.
    #[serde(default)]
    pub pass_rate_interval: Option<Interval>,
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
    /// Seed 002's table: each difficulty group's task figures.
    #[serde(default)]
    pub per_group_tasks: Vec<GroupTasks>,
    pub error_reasons: Vec<ErrorReason>,
    pub timeline: Vec<TimelinePoint>,
}

/// A scenario drafted from an exploration finding, as this campaign ran it:
/// what exploration found is now guarded by the fixed line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct GuardedScenario {
    pub scenario_id: String,
    pub title: String,
    pub lineage: crate::scenario::Lineage,
    /// Its runs in this campaign.
    pub tally: Tally,
}
