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
use sqlx::Row;
use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock};
use uuid::Uuid;

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

/// The judge model's review: three scored dimensions with evidence, the
/// findings, and the review of the virtual user; in the session's language
/// (see [`PerLanguage`]), short enough to fit the role's 800 answer tokens.
pub static REVIEW_SCHEMA: LazyLock<PerLanguage> = LazyLock::new(|| {
    PerLanguage::new(|chars| {
        let dimension = json!({
            "type": "object",
            "properties": {
                // An enum, not minimum/maximum: grammar-constrained servers
                // (llama.cpp) enforce enums but not numeric bounds.
                "score": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
                "evidence": {"type": "string", "maxLength": chars(80)},
            },
            "required": ["score", "evidence"],
            "additionalProperties": false,
        });
        OutputSchema::new(
            "judge_review",
            json!({
                "type": "object",
                "properties": {
                    "attitude": dimension,
                    "professionalism": dimension,
                    "hallucination": dimension,
                    "findings": {
                        "type": "array",
                        "maxItems": 2,
                        "items": {
                            "type": "object",
                            "properties": {
                                "grade": {"type": "string", "enum": ["good", "fair", "poor"]},
                                "dimension": {"type": "string", "enum": ["attitude", "professionalism", "hallucination", "simulator"]},
                                "text": {"type": "string", "maxLength": chars(100)},
                                // 0: no particular turn (grammar-constrained
                                // servers do not enforce a minimum).
                                "turn": {"type": "integer", "minimum": 0},
                            },
                            "required": ["grade", "dimension", "text", "turn"],
                            "additionalProperties": false,
                        },
                    },
                    "simulator": {
                        "type": "object",
                        "properties": {
                            "in_persona": {"type": "boolean"},
                            "quit_early": {"type": "boolean"},
                            "invented_facts": {"type": "boolean"},
                        },
                        "required": ["in_persona", "quit_early", "invented_facts"],
                        "additionalProperties": false,
                    },
                },
                "required": ["attitude", "professionalism", "hallucination", "findings", "simulator"],
                "additionalProperties": false,
            }),
        )
    })
});

/// The schema of a review of this session: in the language its user spoke.
pub fn review_schema(session: &SessionForReview) -> &'static OutputSchema {
    let goal = crate::virtual_user::parse_goal(&session.goal);
    let persona = crate::virtual_user::parse_persona(&session.persona);
    REVIEW_SCHEMA.get(lang_of(&persona, &goal))
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

/// The prompt for the judge model.
pub fn judge_prompt(
    session: &SessionForReview,
    sampling: JudgeSampling,
) -> (Vec<ChatMessage>, SampleInfo) {
    let all = rounds(&session.messages);
    let sample = sample_rounds(&all, sampling.max_rounds);
    let mut transcript = String::new();
    let mut messages = 0;
    for r in &sample {
        transcript.push_str(&format!(
            "[round {}] USER: {}\n",
            r.number,
            truncate(r.user, sampling.max_chars)
        ));
        messages += 1;
        if let Some(t) = r.target {
            transcript.push_str(&format!(
                "[round {}] ASSISTANT: {}\n",
                r.number,
                truncate(t, sampling.max_chars)
            ));
            messages += 1;
        }
    }
    let info = SampleInfo {
        rounds: sample.len() as u32,
        messages,
        max_chars: sampling.max_chars as u32,
    };
    let goal = crate::virtual_user::parse_goal(&session.goal);
    let persona = crate::virtual_user::parse_persona(&session.persona);
    let experience = session
        .experience
        .as_ref()
        .map(Value::to_string)
        .unwrap_or_else(|| "none".into());
    let system = "You are an independent, strict quality judge. A simulated user (the virtual \
        user) talked with an AI assistant (the target). Review the assistant on attitude, \
        professionalism and hallucination (5 = nothing invented), each scored 1-5 with a short \
        quote from the conversation as evidence. Also review the virtual user: did it stay in \
        its persona and goal, did it quit too early, did it invent facts it was not given? \
        Answer with ONLY a JSON object.";
    let user = format!(
        "Persona of the virtual user: {persona}\nGoal: {title}. {description}\nFacts the user \
         was given: {slots}\nSuccess criteria: {criteria}\nEnd reason: {end}\nThe user's own \
         experience record: {experience}\n\nSampled conversation ({rounds} of {total} rounds, \
         messages truncated to {max} characters):\n{transcript}\nAnswer with a JSON object: \
         \"attitude\", \"professionalism\" and \"hallucination\", each an object with \
         \"score\" (1 to 5) and \"evidence\" (a short quote from the conversation); \
         \"findings\", a list of at most two objects with \"grade\" (good, fair or poor), \
         \"dimension\" (attitude, professionalism, hallucination or simulator), \"text\" (what \
         you found, in a sentence) and \"turn\" (the round it is in, 0 if none); \
         \"simulator\", an object with the booleans \"in_persona\", \"quit_early\" and \
         \"invented_facts\".",
        persona = serde_json::to_string(&persona).unwrap_or_default(),
        title = goal.title,
        description = goal.description,
        slots = serde_json::to_string(&goal.slots).unwrap_or_default(),
        criteria = goal.success_criteria.join("; "),
        end = session.end_reason.as_deref().unwrap_or("unknown"),
        rounds = sample.len(),
        total = all.len(),
        max = sampling.max_chars,
    );
    (
        vec![ChatMessage::system(system), ChatMessage::user(user)],
        info,
    )
}

fn parse_dimension(v: &Value, name: &str) -> Result<DimensionScore, String> {
    let d = v
        .get(name)
        .or_else(|| v.get("dimensions").and_then(|d| d.get(name)))
        .ok_or_else(|| format!("missing \"{name}\""))?;
    let (score, evidence) = match d {
        Value::Number(_) | Value::String(_) => (d, &Value::Null),
        _ => (
            d.get("score")
                .ok_or_else(|| format!("\"{name}\" has no score"))?,
            d.get("evidence").unwrap_or(&Value::Null),
        ),
    };
    let score = match score {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
    .filter(|s| s.is_finite() && (1.0..=5.0).contains(s))
    .ok_or_else(|| format!("\"{name}\" score must be a number from 1 to 5"))?;
    let evidence = match evidence {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ => String::new(),
    };
    Ok(DimensionScore {
        score: score.round() as u8,
        evidence: truncate(&evidence, 500),
    })
}

fn as_bool(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("yes") => {
            Some(true)
        }
        Value::String(s) if s.eq_ignore_ascii_case("false") || s.eq_ignore_ascii_case("no") => {
            Some(false)
        }
        _ => None,
    }
}

/// Parses the judge model's answer, which must follow `schema` (one of
/// [`REVIEW_SCHEMA`]); findings that cannot be read are dropped, missing or
/// out-of-range scores make the answer unusable.
pub fn parse_judge_output(
    text: &str,
    schema: &OutputSchema,
) -> Result<(Dimensions, Vec<JudgeFinding>, SimulatorReview), String> {
    let v = schema.read(text)?;
    let dimensions = Dimensions {
        attitude: parse_dimension(&v, "attitude")?,
        professionalism: parse_dimension(&v, "professionalism")?,
        hallucination: parse_dimension(&v, "hallucination")?,
    };
    let findings = v
        .get("findings")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|f| {
                    let text = f.get("text").and_then(Value::as_str)?.trim().to_string();
                    if text.is_empty() {
                        return None;
                    }
                    Some(JudgeFinding {
                        grade: Grade::parse(f.get("grade").and_then(Value::as_str)?)?,
                        severity: None,
                        dimension: f
                            .get("dimension")
                            .and_then(Value::as_str)
                            .unwrap_or("general")
                            .trim()
                            .to_lowercase(),
                        text: truncate(&text, 500),
                        turn: f
                            .get("turn")
                            .and_then(Value::as_u64)
                            .and_then(|t| u32::try_from(t).ok())
                            .filter(|&t| t > 0),
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let sim = v.get("simulator").cloned().unwrap_or(Value::Null);
    let in_persona = as_bool(sim.get("in_persona")).unwrap_or(true);
    let quit_early = as_bool(sim.get("quit_early")).unwrap_or(false);
    let invented_facts = as_bool(sim.get("invented_facts")).unwrap_or(false);
    let simulator = SimulatorReview {
        in_persona,
        quit_early,
        invented_facts,
        simulator_fault: as_bool(sim.get("simulator_fault"))
            .unwrap_or(!in_persona || quit_early || invented_facts),
    };
    Ok((dimensions, findings, simulator))
}

fn sort_findings(findings: &mut [JudgeFinding]) {
    findings.sort_by(|a, b| a.grade.cmp(&b.grade).then(a.turn.cmp(&b.turn)));
}

/// Reviews one session with the judge model; malformed output is retried
/// once. The error is returned as text, for storing.
pub async fn model_review(
    judge: &dyn ChatClient,
    session: &SessionForReview,
    sampling: JudgeSampling,
) -> Result<JudgeReview, String> {
    let (mut messages, info) = judge_prompt(session, sampling);
    let schema = review_schema(session);
    let mut problem = String::new();
    for attempt in 0..2 {
        let answer = judge
            .complete_structured(&messages, schema)
            .await
            .map_err(|e| format!("the judge model failed: {e}"))?;
        let reply = answer.reply;
        match parse_judge_output(&reply.content, schema) {
            Ok((dimensions, mut findings, mut simulator)) => {
                if session.end_reason.as_deref() == Some("simulator_error") {
                    simulator.simulator_fault = true;
                }
                sort_findings(&mut findings);
                return Ok(JudgeReview {
                    method: JudgeMethod::Model,
                    model: Some(reply.model.unwrap_or_else(|| judge.model_name())),
                    dimensions: Some(dimensions),
                    findings,
                    simulator: Some(simulator),
                    simulator_fault: false,
                    sample: Some(info),
                    error: None,
                    output_mode: Some(answer.mode),
                }
                .finalize());
            }
            Err(why) if attempt == 0 => {
                messages.push(ChatMessage::assistant(reply.content));
                messages.push(ChatMessage::user(format!(
                    "That answer was not usable: {why}. Answer again with only the JSON object."
                )));
            }
            Err(why) => problem = why,
        }
    }
    Err(format!(
        "the judge model gave malformed output twice: {problem}"
    ))
}

/// Replies slower than this get a fair finding; four times it, poor.
const SLOW_MS: i64 = 10_000;

/// Numbers of two or more digits: single digits ("step 1") are noise here.
fn numbers(text: &str) -> BTreeSet<String> {
    crate::checks::canonical_numbers(text)
        .into_iter()
        .filter(|n| n.chars().filter(char::is_ascii_digit).count() >= 2)
        .collect()
}

fn quote(text: &str) -> String {
    format!("\"{}\"", truncate(text.trim(), 120))
}

/// The offline judge: rule-based, over the whole conversation.
pub fn heuristic_review(session: &SessionForReview) -> JudgeReview {
    let goal = crate::virtual_user::parse_goal(&session.goal);
    let persona = crate::virtual_user::parse_persona(&session.persona);
    let all = rounds(&session.messages);
    let mut findings = Vec::new();
    let mut finding = |grade, dimension: &str, text: String, turn: Option<u32>| {
        findings.push(JudgeFinding {
            grade,
            severity: None,
            dimension: dimension.into(),
            text,
            turn,
        })
    };

    let mut given = format!("{} {}", goal.title, goal.description);
    for v in goal.slots.values() {
        given.push(' ');
        given.push_str(v);
    }
    let goal_numbers = numbers(&given);
    for r in &all {
        given.push(' ');
        given.push_str(r.user);
    }
    let known = numbers(&given);

    let (mut empty, mut repeated, mut refusals, mut max_refusal_run, mut run) = (0, 0, 0, 0, 0);
    let mut unverified: Vec<(u32, String, &str)> = Vec::new();
    let mut prof_evidence = None;
    let mut att_evidence = None;
    let mut previous: Option<&str> = None;
    for r in &all {
        let Some(reply) = r.target else { continue };
        if reply.trim().is_empty() {
            empty += 1;
            finding(
                Grade::Poor,
                "professionalism",
                "the target gave an empty reply".into(),
                Some(r.number),
            );
        } else if previous.is_some_and(|p| p.trim() == reply.trim()) {
            repeated += 1;
            prof_evidence.get_or_insert_with(|| quote(reply));
            finding(
                Grade::Poor,
                "professionalism",
                format!("the target repeated its previous reply {}", quote(reply)),
                Some(r.number),
            );
        }
        if is_refusal(reply) {
            refusals += 1;
            run += 1;
            max_refusal_run = max_refusal_run.max(run);
            att_evidence.get_or_insert_with(|| quote(reply));
        } else {
            run = 0;
        }
        for n in numbers(reply) {
            if !known.contains(&n) {
                unverified.push((r.number, n, reply));
            }
        }
        previous = Some(reply);
    }
    for (turn, n, reply) in &unverified {
        finding(
            Grade::Poor,
            "hallucination",
            format!(
                "stated the figure {n}, which appears nowhere in what the user gave: {}",
                quote(reply)
            ),
            Some(*turn),
        );
    }
    if max_refusal_run >= 2 {
        finding(
            Grade::Poor,
            "attitude",
            format!("refusal loop: {max_refusal_run} refusals in a row"),
            None,
        );
    } else if refusals == 1 {
        finding(
            Grade::Fair,
            "attitude",
            "the target refused once".into(),
            None,
        );
    }
    let replies: Vec<(u32, i64)> = {
        let mut out = Vec::new();
        let mut round = 0;
        for m in &session.messages {
            if m.role == "user" {
                round += 1;
            } else if let Some(l) = m.latency_ms {
                out.push((round, l));
            }
        }
        out
    };
    let mut slow = 0;
    for (turn, latency) in &replies {
        if *latency > SLOW_MS {
            slow += 1;
            let grade = if *latency > 4 * SLOW_MS {
                Grade::Poor
            } else {
                Grade::Fair
            };
            finding(
                grade,
                "professionalism",
                format!("slow reply: {latency} ms"),
                Some(*turn),
            );
        }
    }
    let answered = all.iter().filter(|r| r.target.is_some()).count();
    if answered > 0 && empty == 0 && repeated == 0 && slow == 0 {
        finding(
            Grade::Good,
            "professionalism",
            format!("all {answered} replies were non-empty, varied and timely"),
            None,
        );
    }
    if answered > 0 && unverified.is_empty() {
        finding(
            Grade::Good,
            "hallucination",
            "every figure in the replies was given by the user".into(),
            None,
        );
    }
    if answered > 0 && refusals == 0 {
        finding(Grade::Good, "attitude", "no refusals".into(), None);
    }

    let score = |penalty: u32| (5u32.saturating_sub(penalty)).max(1) as u8;
    let clean = |what: &str| format!("no {what} found in {answered} replies");
    let dimensions = Dimensions {
        attitude: DimensionScore {
            score: score(if max_refusal_run >= 2 {
                3
            } else {
                refusals.min(2)
            }),
            evidence: att_evidence.unwrap_or_else(|| clean("refusal")),
        },
        professionalism: DimensionScore {
            score: score(empty * 2 + repeated + slow),
            evidence: prof_evidence.unwrap_or_else(|| clean("empty, repeated or slow reply")),
        },
        hallucination: DimensionScore {
            score: score(unverified.len() as u32 * 2),
            evidence: unverified
                .first()
                .map(|(_, _, reply)| quote(reply))
                .unwrap_or_else(|| clean("unverified figure")),
        },
    };

    // The virtual user: language kept, facts not invented, not quitting at once.
    let zh = lang_of(&persona, &goal) == Lang::Zh;
    let user_text: String = all.iter().map(|r| r.user).collect::<Vec<_>>().join(" ");
    let in_persona = all.is_empty() || crate::virtual_user::has_cjk(&user_text) == zh;
    let invented_facts = numbers(&user_text)
        .iter()
        .any(|n| !goal_numbers.contains(n) && !known_from_replies(&all, n));
    let end = session.end_reason.as_deref().unwrap_or("");
    let quit_early = end == "user_gave_up" && all.len() < 2;
    let simulator_fault = !in_persona || invented_facts || quit_early || end == "simulator_error";
    let sim_findings: [(bool, &str); 4] = [
        (!in_persona, "the virtual user left its persona's language"),
        (
            invented_facts,
            "the virtual user gave a figure it was never given",
        ),
        (quit_early, "the virtual user gave up after a single round"),
        (
            end == "simulator_error",
            "the virtual user failed (simulator error)",
        ),
    ];
    for (hit, text) in sim_findings {
        if hit {
            finding(Grade::Poor, "simulator", text.into(), None);
        }
    }
    sort_findings(&mut findings);
    JudgeReview {
        method: JudgeMethod::Heuristic,
        model: None,
        dimensions: Some(dimensions),
        findings,
        simulator: Some(SimulatorReview {
            in_persona,
            quit_early,
            invented_facts,
            simulator_fault,
        }),
        simulator_fault: false,
        sample: Some(SampleInfo {
            rounds: all.len() as u32,
            messages: session.messages.len() as u32,
            max_chars: 0,
        }),
        error: None,
        output_mode: None,
    }
    .finalize()
}

/// A user may repeat a figure the target said (e.g. a confirmation number).
fn known_from_replies(all: &[Round<'_>], n: &str) -> bool {
    all.iter()
        .filter_map(|r| r.target)
        .any(|t| numbers(t).contains(n))
}

/// Loads what the judge needs of one session.
pub async fn load_session(
    platform: &Platform,
    session_id: Uuid,
) -> Result<(Uuid, SessionForReview)> {
    let row = sqlx::query(
        "SELECT campaign_id, persona, goal, experience, end_reason FROM exploration_sessions WHERE id = ?",
    )
    .bind(session_id.to_string())
    .fetch_optional(&platform.db)
    .await?
    .ok_or_else(|| crate::Error::not_found("session", session_id))?;
    let json = |col: &str| -> Option<Value> {
        row.try_get::<Option<String>, _>(col)
            .ok()
            .flatten()
            .and_then(|s| serde_json::from_str(&s).ok())
    };
    let campaign_id: String = row.try_get("campaign_id")?;
    let campaign_id = Uuid::parse_str(&campaign_id).map_err(crate::Error::internal)?;
    let turns = sqlx::query(
        "SELECT role, content, latency_ms FROM session_turns WHERE session_id = ? ORDER BY seq",
    )
    .bind(session_id.to_string())
    .fetch_all(&platform.db)
    .await?;
    let messages = turns
        .iter()
        .map(|t| {
            Ok(SessionMessage {
                role: t.try_get("role")?,
                content: t.try_get("content")?,
                latency_ms: t.try_get("latency_ms")?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    Ok((
        campaign_id,
        SessionForReview {
            persona: json("persona").unwrap_or(Value::Null),
            goal: json("goal").unwrap_or(Value::Null),
            experience: json("experience"),
            end_reason: row.try_get("end_reason")?,
            messages,
        },
    ))
}

/// Reviews one session whose judge review is pending and stores the
/// result; returns `None` when it was not pending (already reviewed, or
/// never closed). A model failure is stored as a `failed` review.
pub async fn review_session(
    platform: &Platform,
    session_id: Uuid,
    judge: Option<&dyn ChatClient>,
    sampling: JudgeSampling,
) -> Result<Option<JudgeReview>> {
    let status: Option<String> =
        sqlx::query_scalar("SELECT judge_status FROM exploration_sessions WHERE id = ?")
            .bind(session_id.to_string())
            .fetch_optional(&platform.db)
            .await?;
    if status.as_deref() != Some("pending") {
        return Ok(None);
    }
    let (campaign_id, session) = load_session(platform, session_id).await?;
    let (review, status) = match judge {
        None => (heuristic_review(&session), "done"),
        Some(client) => match model_review(client, &session, sampling).await {
            Ok(r) => {
                if let Some(mode) = r.output_mode {
                    platform
                        .note_output_mode(campaign_id, crate::role_models::Role::Judge, mode)
                        .await;
                }
                (r, "done")
            }
            Err(error) => {
                tracing::warn!(%session_id, %error, "judge review failed");
                (
                    JudgeReview {
                        method: JudgeMethod::Model,
                        model: Some(client.model_name()),
                        dimensions: None,
                        findings: Vec::new(),
                        simulator: None,
                        simulator_fault: false,
                        sample: None,
                        error: Some(error),
                        output_mode: None,
                    },
                    "failed",
                )
            }
        },
    };
    let review = review.finalize();
    let now = to_ms(platform.clock.now());
    // Only a still-pending row is written: a concurrent reviewer that
    // finished first keeps its result.
    let written = sqlx::query(
        "UPDATE exploration_sessions SET judge_review = ?, judge_status = ?, updated_at = ? \
         WHERE id = ? AND judge_status = 'pending'",
    )
    .bind(serde_json::to_string(&review)?)
    .bind(status)
    .bind(now)
    .bind(session_id.to_string())
    .execute(&platform.db)
    .await?
    .rows_affected();
    if written == 0 {
        return Ok(None);
    }
    platform.notify(Event::SessionChanged {
        campaign_id,
        session_id,
    });
    Ok(Some(review))
}

/// Reviews every session whose judge review is pending; returns how many
/// were reviewed (done or failed).
pub async fn review_pending(
    platform: &Platform,
    judge: Option<&dyn ChatClient>,
    sampling: JudgeSampling,
) -> Result<usize> {
    let ids: Vec<String> = sqlx::query_scalar(
        "SELECT id FROM exploration_sessions WHERE judge_status = 'pending' ORDER BY ended_at, id",
    )
    .fetch_all(&platform.db)
    .await?;
    let mut reviewed = 0;
    for id in ids {
        let id = Uuid::parse_str(&id).map_err(crate::Error::internal)?;
        if review_session(platform, id, judge, sampling)
            .await?
            .is_some()
        {
            reviewed += 1;
        }
    }
    Ok(reviewed)
}

/// Starts the judge worker: reviews every pending session at start and
/// again whenever a session changes, so that sessions closed through the
/// API (external assistants) are judged promptly. Each pass uses the judge
/// model in force at that moment ([`Platform::role_clients`]). A failing
/// judge is recorded per session and never stops the worker.
pub fn spawn_worker(
    platform: Arc<Platform>,
    sampling: JudgeSampling,
) -> tokio::task::JoinHandle<()> {
    let mut events = platform.subscribe();
    tokio::spawn(async move {
        loop {
            let judge = platform.role_clients().judge;
            if let Err(e) = review_pending(&platform, judge.as_deref(), sampling).await {
                tracing::warn!(error = ?e, "judge worker could not review pending sessions");
            }
            // Wait for the next session change; a lagged receiver just
            // means several changes happened: one pass covers them all.
            loop {
                match events.recv().await {
                    Ok(crate::platform::Event::SessionChanged { .. }) => break,
                    Ok(_) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => break,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        }
    })
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
