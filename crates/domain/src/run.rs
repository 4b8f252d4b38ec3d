//! Fixed runs: one scripted conversation of a scenario, its turns, its
//! checks' results, its figures and its verdict.

use crate::chat::ToolCall;
use crate::i18n::{Msg, Text};
use crate::ids::{CampaignId, RunId};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The kind of an error reason: the text before its first colon, without
/// surrounding ASCII white space.
pub fn reason_kind(reason: Option<&str>) -> &str {
    let reason = reason.unwrap_or("unknown");
    reason
        .split(':')
        .next()
        .unwrap_or(reason)
        .trim_matches(|c: char| c.is_ascii_whitespace())
}

/// Why a run ended in error, for people: its kind (`target_error`,
/// `interrupted`, ...) and, when the stored reason says more, what happened
/// (a message of the catalogue, or a sentence stored before there were
/// messages, shown as it is).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RunError {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Text>,
}

impl RunError {
    /// The stored reason `kind` or `kind: detail` (the detail a
    /// [`Text::to_key`]).
    pub fn of(reason: &str) -> Self {
        Self {
            kind: reason_kind(Some(reason)).to_string(),
            detail: reason
                .split_once(':')
                .map(|(_, d)| d.trim())
                .filter(|d| !d.is_empty())
                .map(Text::from_key),
        }
    }

    /// In one sentence: the kind's name, and what happened.
    pub fn text(&self) -> Msg {
        let kind = Msg::name("error-reason", &self.kind);
        match &self.detail {
            Some(d) => crate::msg!("run-error", kind = kind, detail = d.clone()),
            None => kind,
        }
    }
}

/// The kind of the result that ends a run whose turn reached its step
/// limit (it is no check of the scenario's).
pub const STEP_LIMIT: &str = "max_steps";

/// The outcome of one check on one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CheckResult {
    /// 0-based turn index.
    pub turn: u32,
    /// The check type, e.g. `contains`.
    pub kind: String,
    pub passed: bool,
    /// Why it passed or failed, in plain words.
    pub detail: Text,
    /// The judge's 1-5 score of a `rubric` check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<u8>,
    /// The step (1-based, of the turn) the check is about, when it is
    /// about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
    /// Who scored a `rubric` check: the judge model or the offline
    /// heuristic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_by: Option<JudgeMethod>,
}

/// How a review was made.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum JudgeMethod {
    /// The judge role model reviewed a sample.
    Model,
    /// The offline heuristic judge (no model configured).
    Heuristic,
}

/// How a finished run ended. `skipped` runs never executed because the
/// campaign was finalized first; they count in no rate.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Passed,
    Failed,
    Error,
    Skipped,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Failed => "failed",
            Self::Error => "error",
            Self::Skipped => "skipped",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "passed" => Self::Passed,
            "failed" => Self::Failed,
            "error" => Self::Error,
            "skipped" => Self::Skipped,
            _ => return None,
        })
    }
}

/// Figures of one run.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct RunMetrics {
    /// Target replies received.
    pub turns: u32,
    /// Whether every scripted turn got a reply.
    pub completed: bool,
    pub latency_ms_total: u64,
    pub latency_ms_max: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// Estimated from the target's prices per million tokens.
    pub cost: f64,
    /// Fraction of the scenario's key fields present in the replies and
    /// the documents the agent produced.
    pub key_field_coverage: Option<f64>,
    /// Tool calls the engine answered, every turn together (`None` in
    /// runs stored before they were counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<u32>,
    /// For a scenario that asks for a document or file (a `document` or
    /// `file_exists` check), whether every such check passed; `None` for
    /// one that asks for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub produced: Option<bool>,
}

impl RunMetrics {
    /// Whether the task was completed in seed 002's sense: every scripted
    /// turn got a reply, and the document or file the task asks for was
    /// produced.
    pub fn task_completed(&self) -> bool {
        self.completed && self.produced != Some(false)
    }
}

/// A run as listed in reports and the UI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Run {
    pub id: RunId,
    pub campaign_id: CampaignId,
    pub scenario_id: String,
    pub seq: u32,
    /// Campaign-time offset from the window start, in milliseconds.
    pub offset_ms: i64,
    pub scheduled_at: DateTime<Utc>,
    /// `pending`, `running` or `done`.
    pub status: String,
    pub verdict: Option<Verdict>,
    pub check_results: Vec<CheckResult>,
    pub metrics: Option<RunMetrics>,
    pub error_reason: Option<String>,
    /// The error reason read for people: its kind and what happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// How many times the run was claimed: 1 normally; 2 or more when a
    /// worker of a team server died while executing it and another took it
    /// over after its lease expired (its turns were played again). 0 for a
    /// run never claimed, and in exports written before it was recorded.
    #[serde(default)]
    pub attempts: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RunTurn {
    pub seq: u32,
    /// `user` or `target`.
    pub role: String,
    pub content: String,
    pub latency_ms: Option<u64>,
    pub tokens_in: Option<u32>,
    pub tokens_out: Option<u32>,
    /// Tool calls that ended the turn: a tool played in one step, or the
    /// calls past the step limit. When the conversation went on, their
    /// answers are the turn's last steps.
    pub tool_calls: Vec<ToolCall>,
    /// The target's steps before this reply: each call the engine answered.
    #[serde(default)]
    pub steps: Vec<crate::steps::Step>,
    pub created_at: DateTime<Utc>,
}
