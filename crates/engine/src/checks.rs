//! Evaluation of scenario checks against a target's reply. (Implementation in progress.)

use crate::channel::{Channel, ChatMessage, ChatReply};
use crate::scenario::{Check, Scenario};
use serde::{Deserialize, Serialize};

/// The outcome of one check on one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CheckResult {
    /// 0-based turn index.
    pub turn: u32,
    /// The check type, e.g. `contains`.
    pub kind: String,
    pub passed: bool,
    /// Why it passed or failed, in plain words.
    pub detail: String,
}

/// What a check sees of one turn.
pub struct TurnContext<'a> {
    pub scenario: &'a Scenario,
    pub turn: usize,
    /// The conversation so far, including this turn's user message.
    pub history: &'a [ChatMessage],
    pub reply: &'a ChatReply,
}

/// Evaluates the checks of one turn. `judge` scores `rubric` checks; without
/// one an offline heuristic does.
pub async fn run_checks(
    checks: &[Check],
    ctx: &TurnContext<'_>,
    _judge: Option<&dyn Channel>,
) -> Vec<CheckResult> {
    checks
        .iter()
        .map(|c| CheckResult {
            turn: ctx.turn as u32,
            kind: c.kind().into(),
            passed: false,
            detail: "not implemented".into(),
        })
        .collect()
}

/// Fraction of the scenario's key fields that appear in the replies;
/// `None` when the scenario names none.
pub fn key_field_coverage(scenario: &Scenario, replies: &[&str]) -> Option<f64> {
    if scenario.key_fields.is_empty() {
        return None;
    }
    let all = replies.join("\n").to_lowercase();
    let hit = scenario
        .key_fields
        .iter()
        .filter(|f| all.contains(&f.to_lowercase()))
        .count();
    Some(hit as f64 / scenario.key_fields.len() as f64)
}
