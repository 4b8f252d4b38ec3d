//! The judge model's review: its schema, its prompt (a sample of the
//! conversation), reading its answer, one retry on a malformed one.

use super::*;

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
                                "dimension": {"type": "string", "enum": ["attitude", "professionalism", "hallucination", "trajectory", "simulator"]},
                                "text": {"type": "string", "maxLength": chars(100)},
                                // 0: no particular turn, or step
                                // (grammar-constrained servers do not
                                // enforce a minimum).
                                "turn": {"type": "integer", "minimum": 0},
                                "step": {"type": "integer", "minimum": 0},
                            },
                            "required": ["grade", "dimension", "text", "turn", "step"],
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

/// How the judge's rubric is worded: the second pass of a consistency
/// check asks the same questions in other words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RubricWording {
    Standard,
    Reworded,
}

/// The prompt for the judge model.
pub fn judge_prompt(
    session: &SessionForReview,
    sampling: JudgeSampling,
) -> (Vec<ChatMessage>, SampleInfo) {
    judge_prompt_worded(session, sampling, RubricWording::Standard)
}

/// The prompt for the judge model, with the rubric in the given words.
pub fn judge_prompt_worded(
    session: &SessionForReview,
    sampling: JudgeSampling,
    wording: RubricWording,
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
        for (i, step) in r.steps.iter().enumerate() {
            transcript.push_str(&format!(
                "[round {} step {}] {}\n",
                r.number,
                i + 1,
                step_line(step, sampling.max_chars)
            ));
        }
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
    let system = match wording {
        RubricWording::Standard => {
            "You are an independent, strict quality judge. A simulated user (the virtual \
        user) talked with an AI assistant (the target). Review the assistant on attitude, \
        professionalism and hallucination (5 = nothing invented), each scored 1-5 with a short \
        quote from the conversation as evidence. Also review the virtual user: did it stay in \
        its persona and goal, did it quit too early, did it invent facts it was not given? \
        Answer with ONLY a JSON object."
        }
        RubricWording::Reworded => {
            "Act as an impartial evaluator of an AI assistant. The person writing to it is \
        simulated. Rate from 1 (very poor) to 5 (very good): the assistant's attitude (courtesy, \
        patience, willingness to help), its professionalism (accuracy, completeness, doing what \
        was asked) and hallucination (5 = it stated nothing it could not know), and back each \
        rating with a brief quote. Then say whether the simulated person kept to its persona \
        and goal, gave up too soon, or made up facts it was not given. Reply with a JSON object \
        and nothing else."
        }
    };
    let user = format!(
        "Persona of the virtual user: {persona}\nGoal: {title}. {description}\nFacts the user \
         was given: {slots}\nSuccess criteria: {criteria}\nEnd reason: {end}\nThe user's own \
         experience record: {experience}\n\nSampled conversation ({rounds} of {total} rounds, \
         messages truncated to {max} characters; a STEP line is a tool call the assistant made \
         before its reply and what the tool answered):\n{transcript}\nAnswer with a JSON object: \
         \"attitude\", \"professionalism\" and \"hallucination\", each an object with \
         \"score\" (1 to 5) and \"evidence\" (a short quote from the conversation); \
         \"findings\", a list of at most two objects with \"grade\" (good, fair or poor), \
         \"dimension\" (attitude, professionalism, hallucination, trajectory for the tool calls, \
         or simulator), \"text\" (what you found, in a sentence), \"turn\" (the round it is \
         in, 0 if none) and \"step\" (the step of that round it is about, 0 if none); a reply \
         that claims an action no successful step did, or a figure no tool returned, is a \
         poor finding; \
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

/// How much of a step's arguments and answer the judge reads.
const STEP_CHARS: usize = 200;

/// A step as the judge reads it: the call and what came back, each cut
/// short (at most `max_chars`, and [`STEP_CHARS`]).
fn step_line(step: &crate::domain::steps::Step, max_chars: usize) -> String {
    let cut = |s: &str| truncate(s, max_chars.min(STEP_CHARS));
    let call = format!(
        "CALL {}({})",
        step.call.name,
        cut(&step.call.arguments.to_string())
    );
    match step.answer.error() {
        Some(e) => format!("{call} -> ERROR {}: {}", e.code, cut(&e.message)),
        None => format!("{call} -> RESULT {}", cut(&step.answer.content())),
    }
}

pub(super) fn parse_dimension(v: &Value, name: &str) -> Result<DimensionScore, String> {
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
        evidence: truncate(&evidence, 500).into(),
    })
}

pub(super) fn as_bool(v: Option<&Value>) -> Option<bool> {
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
                        text: truncate(&text, 500).into(),
                        turn: positive(f.get("turn")),
                        step: positive(f.get("turn")).and(positive(f.get("step"))),
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

/// A 1-based position the model gave (0 or anything else: none).
fn positive(v: Option<&Value>) -> Option<u32> {
    v.and_then(Value::as_u64)
        .and_then(|t| u32::try_from(t).ok())
        .filter(|&t| t > 0)
}

pub(super) fn sort_findings(findings: &mut [JudgeFinding]) {
    findings.sort_by(|a, b| {
        a.grade
            .cmp(&b.grade)
            .then(a.turn.cmp(&b.turn))
            .then(a.step.cmp(&b.step))
    });
}

/// Reviews one session with the judge model; malformed output is retried
/// once. The error is a message of the catalogue, for storing.
pub async fn model_review(
    judge: &dyn ChatClient,
    session: &SessionForReview,
    sampling: JudgeSampling,
) -> Result<JudgeReview, crate::i18n::Msg> {
    model_review_worded(judge, session, sampling, RubricWording::Standard).await
}

/// [`model_review`] with the rubric in the given words.
pub async fn model_review_worded(
    judge: &dyn ChatClient,
    session: &SessionForReview,
    sampling: JudgeSampling,
    wording: RubricWording,
) -> Result<JudgeReview, crate::i18n::Msg> {
    let (mut messages, info) = judge_prompt_worded(session, sampling, wording);
    let schema = review_schema(session);
    let mut problem = String::new();
    for attempt in 0..2 {
        let answer = judge
            .complete_structured(&messages, schema)
            .await
            .map_err(|e| crate::msg!("judge-model-failed", detail = e.to_string()))?;
        let reply = answer.reply;
        match parse_judge_output(&reply.content, schema) {
            Ok((dimensions, mut findings, mut simulator)) => {
                // The deterministic check of the virtual user stands: the
                // model may add to it, never clear it.
                let checked = crate::exploration::simulator_faults::simulator_review(
                    &crate::exploration::simulator_faults::check(session),
                    session.end_reason.as_deref(),
                );
                simulator.in_persona &= checked.in_persona;
                simulator.quit_early |= checked.quit_early;
                simulator.invented_facts |= checked.invented_facts;
                simulator.simulator_fault |= checked.simulator_fault;
                if session.played_by == crate::exploration::PlayedBy::Person {
                    // A person is not a simulator: what the model says of
                    // the user's play says nothing of the virtual user.
                    simulator = checked;
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
    Err(crate::msg!("judge-model-malformed", detail = problem))
}
