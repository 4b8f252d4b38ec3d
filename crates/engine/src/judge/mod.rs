//! The judge review (judge 复核) of exploration sessions: after close, a
//! sample of the conversation is reviewed for attitude, professionalism and
//! hallucination, and the virtual user itself is reviewed so that simulator
//! faults are not blamed on the target.
//!
//! With a judge role model the sample goes to it (at most `max_rounds`
//! rounds, each message truncated to `max_chars`); without one a heuristic
//! judge looks at the whole conversation (empty or repeated replies,
//! unverified numbers, refusal loops, latency). A failed review stores its
//! error and blocks nothing.

use crate::channel::ChatMessage;
use crate::clock::to_ms;
use crate::error::Result;
use crate::platform::{Event, Platform};
use crate::role_models::ChatClient;
use crate::structured::{OutputMode, OutputSchema, PerLanguage};
use crate::text::{is_refusal, truncate};
use crate::virtual_user::{Lang, lang_of};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock};

mod heuristic;
mod model;
mod second_pass;
mod worker;

pub use heuristic::heuristic_review;
pub use model::{
    REVIEW_SCHEMA, RubricWording, judge_prompt, judge_prompt_worded, model_review,
    model_review_worded, parse_judge_output, review_schema,
};
pub use second_pass::{REVERSED_AND_REWORDED, REVERSED_ROUNDS, reversed_rounds};
use uuid::Uuid;
pub use worker::{load_session, review_pending, review_session, spawn_worker};

pub use crate::domain::run::JudgeMethod;

/// One scored quality dimension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct DimensionScore {
    /// 1 (poor) to 5 (excellent). For hallucination, 5 = nothing invented.
    pub score: u8,
    /// Quoted evidence from the conversation behind the score.
    pub evidence: String,
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
    fn parse(s: &str) -> Option<Self> {
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
    pub text: String,
    /// The round (1-based user turn) it refers to, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
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
}

/// What the judge needs of one session.
#[derive(Debug, Clone)]
pub struct SessionForReview {
    pub persona: Value,
    pub goal: Value,
    pub experience: Option<Value>,
    pub end_reason: Option<String>,
    pub messages: Vec<SessionMessage>,
}

/// A round: a user message and what the target answered (if anything).
#[derive(Debug, Clone, PartialEq)]
pub struct Round<'a> {
    /// 1-based.
    pub number: u32,
    pub user: &'a str,
    pub target: Option<&'a str>,
}

pub fn rounds(messages: &[SessionMessage]) -> Vec<Round<'_>> {
    let mut out: Vec<Round<'_>> = Vec::new();
    for m in messages {
        if m.role == "user" {
            out.push(Round {
                number: out.len() as u32 + 1,
                user: &m.content,
                target: None,
            });
        } else if let Some(last) = out.last_mut()
            && last.target.is_none()
        {
            last.target = Some(&m.content);
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msg(role: &str, content: &str) -> SessionMessage {
        SessionMessage {
            role: role.into(),
            content: content.into(),
            latency_ms: Some(5),
        }
    }

    #[test]
    fn sampling_keeps_first_and_last_rounds() {
        let messages: Vec<SessionMessage> = (1..=10)
            .flat_map(|i| {
                [
                    msg("user", &format!("u{i}")),
                    msg("target", &format!("t{i}")),
                ]
            })
            .collect();
        let all = rounds(&messages);
        let picked: Vec<u32> = sample_rounds(&all, 3).iter().map(|r| r.number).collect();
        assert_eq!(picked.len(), 3);
        assert_eq!(picked.first(), Some(&1));
        assert_eq!(picked.last(), Some(&10));
        assert_eq!(
            sample_rounds(&all, 20).len(),
            10,
            "short conversations go whole"
        );
    }

    #[test]
    fn judge_output_follows_the_review_schema() {
        let en = REVIEW_SCHEMA.get(Lang::En);
        let (d, f, s) = parse_judge_output(
            "```json\n{\"attitude\": {\"score\": 4, \"evidence\": \"Sure\"},\
             \"professionalism\": {\"score\": 3, \"evidence\": \"\"},\
             \"hallucination\": {\"score\": 5, \"evidence\": \"none\"},\
             \"findings\": [{\"grade\": \"poor\", \"dimension\": \"hallucination\", \"text\": \"made up 42%\", \"turn\": 2}],\
             \"simulator\": {\"in_persona\": true, \"quit_early\": true, \"invented_facts\": false}}\n```",
            en,
        )
        .expect("an answer of the schema, in a code fence, is usable");
        assert_eq!(d.attitude.score, 4);
        assert_eq!(d.attitude.evidence, "Sure");
        assert_eq!(d.professionalism.score, 3);
        assert_eq!(d.hallucination.score, 5);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].grade, Grade::Poor);
        assert_eq!(f[0].turn, Some(2));
        assert!(
            s.quit_early && s.simulator_fault,
            "quitting early is the simulator's fault"
        );
        // What parses but breaks the schema is never half-used.
        let e = parse_judge_output(
            "{\"dimensions\": {\"attitude\": 4}, \"professionalism\": 3, \"hallucination\": 4}",
            en,
        )
        .unwrap_err();
        assert!(e.contains("schema"), "a schema violation is named: {e}");
        let e = parse_judge_output(
            "{\"attitude\": {\"score\": 9, \"evidence\": \"\"}, \"professionalism\": {\"score\": 3, \"evidence\": \"\"},\
             \"hallucination\": {\"score\": 4, \"evidence\": \"\"}, \"findings\": [],\
             \"simulator\": {\"in_persona\": true, \"quit_early\": false, \"invented_facts\": false}}",
            en,
        )
        .unwrap_err();
        assert!(
            e.contains("/attitude/score"),
            "an out-of-range score is named by its path: {e}"
        );
        assert!(parse_judge_output("no json", en).is_err());
    }

    #[test]
    fn every_output_schema_compiles_and_chinese_text_is_shorter() {
        use crate::virtual_user::model_user::{RECORD_SCHEMA, TURN_SCHEMA};
        // LazyLock panics on a schema that does not compile.
        for s in [&*REVIEW_SCHEMA, &*TURN_SCHEMA, &*RECORD_SCHEMA] {
            let (en, zh) = (s.get(Lang::En), s.get(Lang::Zh));
            assert_eq!(en.name, zh.name);
            assert!(en.schema.is_object());
            let longest = |schema: &OutputSchema| {
                let text = schema.schema.to_string();
                text.split("\"maxLength\":")
                    .skip(1)
                    .filter_map(|rest| {
                        rest.split(|c: char| !c.is_ascii_digit())
                            .next()?
                            .parse::<u32>()
                            .ok()
                    })
                    .max()
            };
            assert!(
                longest(zh) < longest(en),
                "{}: a Chinese answer gets fewer characters ({:?} < {:?})",
                en.name,
                longest(zh),
                longest(en)
            );
        }
        assert!(crate::analysis::ANALYSIS_SCHEMA.schema.is_object());
        // A Chinese review quoting a whole message breaks its schema.
        let quote = "这".repeat(60);
        let review = json!({
            "attitude": {"score": 4, "evidence": quote},
            "professionalism": {"score": 4, "evidence": ""},
            "hallucination": {"score": 4, "evidence": ""},
            "findings": [],
            "simulator": {"in_persona": true, "quit_early": false, "invented_facts": false},
        });
        assert!(REVIEW_SCHEMA.get(Lang::En).check(&review).is_ok());
        assert!(REVIEW_SCHEMA.get(Lang::Zh).check(&review).is_err());
    }

    #[test]
    fn heuristic_flags_unverified_numbers_and_refusal_loops() {
        let session = SessionForReview {
            persona: json!({"name": "Ann", "language": "en"}),
            goal: json!({"title": "Summarise sales", "slots": {"region": "north"}}),
            experience: None,
            end_reason: Some("user_gave_up".into()),
            messages: vec![
                msg("user", "Summarise the north region sales"),
                msg("target", "North grew 37% last quarter."),
                msg("user", "Where does that number come from?"),
                msg("target", "Sorry, I cannot help with that."),
                msg("user", "Please check the data"),
                msg("target", "Sorry, I cannot help with that."),
            ],
        };
        let r = heuristic_review(&session);
        assert_eq!(r.method, JudgeMethod::Heuristic);
        let d = r.dimensions.expect("heuristic reviews always score");
        assert!(
            d.hallucination.score <= 3,
            "an unverified figure lowers the score"
        );
        assert!(
            d.hallucination.evidence.contains("37%") || d.hallucination.evidence.contains("37")
        );
        assert!(r.findings.iter().any(|f| f.dimension == "hallucination"
            && f.grade == Grade::Poor
            && f.text.contains("37")
            && f.turn == Some(1)));
        assert!(
            r.findings
                .iter()
                .any(|f| f.dimension == "attitude" && f.text.contains("refusal loop"))
        );
        assert!(r.findings.iter().any(|f| f.text.contains("repeated")));
        assert_eq!(r.findings[0].grade, Grade::Poor, "poor findings come first");
        let sim = r.simulator.expect("simulator reviewed");
        assert!(
            !sim.simulator_fault,
            "an English persona speaking English with given facts is fine"
        );
    }
}
