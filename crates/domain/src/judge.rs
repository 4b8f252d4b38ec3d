//! The judge's review of a session as stored: dimensions and their scores,
//! findings, the virtual user's check, the sample it saw; and the session
//! as the judge reads it, in rounds.

use crate::i18n::Text;
use crate::models::OutputMode;
pub use crate::run::JudgeMethod;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;

/// One scored quality dimension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct DimensionScore {
    /// 1 (poor) to 5 (excellent). For hallucination, 5 = nothing invented.
    pub score: u8,
    /// Quoted evidence from the conversation behind the score.
    pub evidence: Text,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Dimensions {
    pub attitude: DimensionScore,
    pub professionalism: DimensionScore,
    pub hallucination: DimensionScore,
}

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
pub enum Grade {
    Poor,
    Fair,
    Good,
}

impl Grade {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "good" | "positive" | "excellent" => Self::Good,
            "fair" | "ok" | "medium" | "neutral" | "minor" => Self::Fair,
            "poor" | "bad" | "negative" | "severe" | "major" => Self::Poor,
            _ => return None,
        })
    }
}

/// One finding of the review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct JudgeFinding {
    pub grade: Grade,
    /// The same as `grade`, under the name generic report readers look for.
    #[serde(default)]
    pub severity: Option<Grade>,
    /// `attitude`, `professionalism`, `hallucination` or `simulator`.
    pub dimension: String,
    pub text: Text,
    /// The round (1-based user turn) it refers to, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// The step (1-based, within the round's tool calls) it refers to,
    /// when it is about one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u32>,
}

/// The review of the virtual user (DESIGN §11: simulator faults are not
/// blamed on the target).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    specta::Type,
    utoipa::ToSchema,
)]
pub struct SimulatorReview {
    pub in_persona: bool,
    pub quit_early: bool,
    pub invented_facts: bool,
    /// The session's outcome is the simulator's fault rather than the
    /// target's: counted apart in reports.
    pub simulator_fault: bool,
}

/// What was sent to the judge.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct SampleInfo {
    pub rounds: u32,
    pub messages: u32,
    pub max_chars: u32,
}

/// The judge review stored as JSON in `exploration_sessions.judge_review`.
///
/// Shape (what report aggregation reads):
/// ```json
/// {
///   "method": "model" | "heuristic",
///   "model": "name (model method only)",
///   "dimensions": {
///     "attitude":        {"score": 1-5, "evidence": "quoted text"},
///     "professionalism": {"score": 1-5, "evidence": "..."},
///     "hallucination":   {"score": 1-5, "evidence": "..."}   // 5 = nothing invented
///   },
///   "findings": [{"grade": "good"|"fair"|"poor", "severity": same as grade, "dimension": "attitude"|"professionalism"|"hallucination"|"simulator", "text": "...", "turn": 2}],
///   "simulator": {"in_persona": true, "quit_early": false, "invented_facts": false, "simulator_fault": false},
///   "simulator_fault": false,                       // copy of simulator.simulator_fault
///   "sample": {"rounds": 3, "messages": 6, "max_chars": 500},
///   "error": "set only when the review failed (judge_status 'failed'); dimensions and simulator are then absent"
/// }
/// ```
/// Findings are sorted poor first. A failed review is inconclusive, never a
/// failure of the target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct JudgeReview {
    pub method: JudgeMethod,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<Dimensions>,
    #[serde(default)]
    pub findings: Vec<JudgeFinding>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulator: Option<SimulatorReview>,
    /// `simulator.simulator_fault`, at the top for readers that count
    /// simulator faults without knowing the simulator block.
    #[serde(default)]
    pub simulator_fault: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<SampleInfo>,
    /// Why a model review failed: a message of the catalogue (the cause a
    /// parameter), or a sentence stored before there were messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<crate::i18n::Text>,
    /// How the judge model was asked for its JSON (model reviews only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_mode: Option<OutputMode>,
}

impl JudgeReview {
    /// Fills the mirrored fields (`severity`, `simulator_fault`) before the
    /// review is stored.
    pub fn finalize(mut self) -> Self {
        for f in &mut self.findings {
            f.severity = Some(f.grade);
        }
        self.simulator_fault = self.simulator.is_some_and(|s| s.simulator_fault);
        self
    }
}

/// How much of a conversation the judge model sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct JudgeSampling {
    /// Rounds (a user message and the reply to it) sent, default 3.
    pub max_rounds: usize,
    /// Characters kept of each message, default 500.
    pub max_chars: usize,
}

impl Default for JudgeSampling {
    fn default() -> Self {
        Self {
            max_rounds: 3,
            max_chars: 500,
        }
    }
}

/// One stored message of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionMessage {
    /// `user` or `target`.
    pub role: String,
    pub content: String,
    pub latency_ms: Option<i64>,
    /// A reply's steps: the tool calls the engine answered before it.
    pub steps: Vec<crate::steps::Step>,
}

/// What the judge needs of one session.
#[derive(Debug, Clone)]
pub struct SessionForReview {
    pub persona: Value,
    pub goal: Value,
    pub experience: Option<Value>,
    pub end_reason: Option<String>,
    /// Who played the user: a person's session is never the simulator's
    /// fault.
    pub played_by: crate::session::PlayedBy,
    pub messages: Vec<SessionMessage>,
    /// The tools the target was offered (its campaign's tool environment),
    /// by name; empty when it was offered none.
    pub tools: Vec<String>,
    /// The tool rounds a turn could take (the tool environment's step
    /// limit), when it was offered tools.
    pub max_steps: Option<u32>,
}

impl SessionForReview {
    /// Whether the target could act through tools the engine played: it
    /// was offered some, or took steps.
    pub fn acts(&self) -> bool {
        !self.tools.is_empty() || self.messages.iter().any(|m| !m.steps.is_empty())
    }
}

/// A round: a user message and what the target answered (if anything).
#[derive(Debug, Clone, PartialEq)]
pub struct Round<'a> {
    /// 1-based.
    pub number: u32,
    pub user: &'a str,
    pub target: Option<&'a str>,
    /// The steps the target took before its reply.
    pub steps: &'a [crate::steps::Step],
}

pub fn rounds(messages: &[SessionMessage]) -> Vec<Round<'_>> {
    let mut out: Vec<Round<'_>> = Vec::new();
    for m in messages {
        if m.role == "user" {
            out.push(Round {
                number: out.len() as u32 + 1,
                user: &m.content,
                target: None,
                steps: &[],
            });
        } else if let Some(last) = out.last_mut()
            && last.target.is_none()
        {
            last.target = Some(&m.content);
            last.steps = &m.steps;
        }
    }
    out
}

/// Chooses at most `max_rounds` rounds spread evenly over the conversation,
/// always keeping the first and the last (where goals are met or lost).
pub fn sample_rounds<'a>(all: &[Round<'a>], max_rounds: usize) -> Vec<Round<'a>> {
    let n = all.len();
    if n <= max_rounds {
        return all.to_vec();
    }
    if max_rounds == 0 {
        return Vec::new();
    }
    if max_rounds == 1 {
        return vec![all[n - 1].clone()];
    }
    let mut picked = BTreeSet::new();
    for i in 0..max_rounds {
        picked.insert((i * (n - 1) + (max_rounds - 1) / 2) / (max_rounds - 1));
    }
    picked.into_iter().map(|i| all[i].clone()).collect()
}
