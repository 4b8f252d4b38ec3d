//! The virtual user played by a role model through a [`ChatClient`]. The
//! model answers each turn with a JSON decision and, at close, with the
//! experience record; malformed output is retried once, then the session
//! ends with `simulator_error`.

use super::profile::Lang;
use super::{Decision, EndReason, ExperienceRecord, SimulatorError, Speaker, UserTurn, Utterance};
use crate::campaign::{Goal, Persona};
use crate::channel::ChatMessage;
use crate::role_models::ChatClient;
use crate::structured::{OutputMode, OutputSchema, PerLanguage};
use serde_json::{Value, json};
use std::sync::{Arc, LazyLock};

/// Longest message the virtual user may send (the platform also limits it).
const MAX_MESSAGE_CHARS: usize = 4000;
/// The conversation a turn is decided on: the last rounds, each message
/// cut to a length, so that the prompt fits a small model's context (4,096
/// tokens) with room for the answer, however long the session runs.
const RECENT_UTTERANCES: usize = 6;
const RECENT_CHARS: usize = 400;
/// The conversation the experience record is written from: its end.
const RECORD_UTTERANCES: usize = 8;
/// Steps of one reply the record's prompt lists (a line each).
const STEPS_SHOWN: usize = 5;

/// One turn of the virtual user: what it decides and what it says (a
/// short message: a user writes a sentence or two, and every character the
/// model writes costs time).
pub static TURN_SCHEMA: LazyLock<PerLanguage> = LazyLock::new(|| {
    PerLanguage::new(|chars| {
        OutputSchema::new(
            "virtual_user_turn",
            json!({
                "type": "object",
                "properties": {
                    "decision": {"type": "string", "enum": ["follow_up", "wait", "change_mind", "give_up", "done"]},
                    // Never empty: a model that may write nothing sometimes
                    // "follows up" with nothing (the message of give_up and
                    // done is dropped).
                    "message": {"type": "string", "minLength": 1, "maxLength": chars(160)},
                },
                "required": ["decision", "message"],
                "additionalProperties": false,
            }),
        )
    })
});

/// The virtual user's experience record at close, short enough to fit the
/// role's 300 answer tokens.
pub static RECORD_SCHEMA: LazyLock<PerLanguage> = LazyLock::new(|| {
    PerLanguage::new(|chars| {
        let list = json!({"type": "array", "maxItems": 2, "items": {"type": "string", "maxLength": chars(80)}});
        OutputSchema::new(
            "experience_record",
            json!({
                "type": "object",
                "properties": {
                    "goal_achieved": {"type": "boolean"},
                    "blockers": list,
                    "misled": list,
                    "emotion": {"type": "string", "enum": crate::exploration::EMOTIONS},
                    "notes": {"type": "string", "maxLength": chars(160)},
                },
                "required": ["goal_achieved", "blockers", "misled", "emotion", "notes"],
                "additionalProperties": false,
            }),
        )
    })
});

pub struct ModelUser {
    client: Arc<dyn ChatClient>,
    persona: Persona,
    goal: Goal,
    lang: Lang,
    /// How the model was last asked for its JSON.
    mode: Option<OutputMode>,
}

impl ModelUser {
    pub fn new(client: Arc<dyn ChatClient>, persona: Persona, goal: Goal) -> Self {
        let lang = super::lang_of(&persona, &goal);
        Self {
            client,
            persona,
            goal,
            lang,
            mode: None,
        }
    }

    fn character(&self) -> String {
        let persona = serde_json::to_string(&self.persona).unwrap_or_default();
        let slots = serde_json::to_string(&self.goal.slots).unwrap_or_default();
        let criteria = if self.goal.success_criteria.is_empty() {
            "the assistant confirms the task is done".to_string()
        } else {
            self.goal.success_criteria.join("; ")
        };
        let language = match self.lang {
            Lang::Zh => "Chinese (中文)",
            Lang::En => "English",
        };
        format!(
            "You are role-playing a human user who is talking to an AI assistant. Stay in \
             character for the whole conversation.\n\
             Persona: {persona}\n\
             Your goal: {title}. {description}\n\
             Facts you know (give them when asked or when natural; never invent other facts): {slots}\n\
             The goal is met when: {criteria}\n\
             Speak {language}, in the persona's style. Act on your patience: follow up when a \
             reply does not help, wait when the assistant says it is working, you may change \
             your mind once, give up when your patience runs out, and say done when the goal \
             is met. Never say that you are simulated.",
            title = self.goal.title,
            description = self.goal.description,
        )
    }

    /// Asks for an answer of `schema`; one that breaks it is retried once
    /// with the reason, then the session ends with `simulator_error`.
    async fn ask_json<T>(
        &mut self,
        mut messages: Vec<ChatMessage>,
        schema: &OutputSchema,
        validate: impl Fn(&Value) -> Result<T, String>,
    ) -> Result<T, SimulatorError> {
        let mut problem = String::new();
        for attempt in 0..2 {
            let answer = self
                .client
                .complete_structured(&messages, schema)
                .await
                .map_err(|e| {
                    SimulatorError(crate::msg!("user-model-failed", detail = e.to_string()))
                })?;
            self.mode = Some(answer.mode);
            let reply = answer.reply;
            let outcome = schema
                .read(&reply.content)
                .map_err(String::from)
                .and_then(|v| validate(&v));
            match outcome {
                Ok(t) => return Ok(t),
                Err(why) if attempt == 0 => {
                    messages.push(ChatMessage::assistant(reply.content));
                    messages.push(ChatMessage::user(format!(
                        "That output was not usable: {why}. Answer again with only the JSON object."
                    )));
                    problem = why;
                }
                Err(why) => problem = why,
            }
        }
        Err(SimulatorError(crate::msg!(
            "user-model-malformed",
            detail = problem
        )))
    }
}

fn parse_turn(v: &Value) -> Result<UserTurn, String> {
    let decision = v
        .get("decision")
        .and_then(Value::as_str)
        .ok_or("missing \"decision\"")?;
    let decision = Decision::parse(decision).ok_or_else(|| {
        format!("decision {decision:?} is not one of follow_up, wait, change_mind, give_up, done")
    })?;
    let message = v
        .get("message")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(|m| m.chars().take(MAX_MESSAGE_CHARS).collect::<String>());
    if !decision.ends() && message.is_none() {
        return Err(format!(
            "decision {decision:?} needs a non-empty \"message\""
        ));
    }
    Ok(UserTurn {
        decision,
        message: if decision.ends() { None } else { message },
    })
}

fn string_list(v: &Value, name: &str) -> Result<Vec<String>, String> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(vec![s.trim().to_string()]),
        Some(Value::Array(items)) => Ok(items
            .iter()
            .filter_map(|i| match i {
                Value::String(s) => Some(s.trim().to_string()),
                Value::Null => None,
                other => Some(other.to_string()),
            })
            .filter(|s| !s.is_empty())
            .collect()),
        Some(_) => Err(format!("\"{name}\" must be a list of strings")),
    }
}

fn parse_record(v: &Value) -> Result<ExperienceRecord, String> {
    let goal_achieved = match v.get("goal_achieved") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => true,
        Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => false,
        _ => return Err("\"goal_achieved\" must be true or false".into()),
    };
    Ok(ExperienceRecord {
        goal_achieved,
        blockers: string_list(v, "blockers")?,
        misled: string_list(v, "misled")?,
        emotion: v
            .get("emotion")
            .and_then(Value::as_str)
            .map(|s| s.trim().to_lowercase())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "neutral".into()),
        notes: v
            .get("notes")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .into(),
    })
}

#[async_trait::async_trait]
impl super::VirtualUser for ModelUser {
    async fn next_turn(&mut self, transcript: &[Utterance]) -> Result<UserTurn, SimulatorError> {
        // The model plays the user, so the roles are seen from its side:
        // the target's words arrive as `user`, its own as `assistant`.
        let mut messages = vec![ChatMessage::system(format!(
            "{}\n\nEach turn, answer with ONLY a JSON object of two fields: \"decision\", one \
             of follow_up, wait, change_mind, give_up, done; and \"message\", your next \
             message to the assistant, in character.",
            self.character()
        ))];
        if transcript.is_empty() {
            messages.push(ChatMessage::user(
                "(The conversation starts. Write your first message to the assistant.)",
            ));
        }
        let recent = &transcript[transcript.len().saturating_sub(RECENT_UTTERANCES)..];
        for u in recent {
            let content = crate::text::truncate(&u.content, RECENT_CHARS);
            messages.push(match u.speaker {
                Speaker::Target => ChatMessage::user(content),
                Speaker::User => ChatMessage::assistant(
                    serde_json::json!({"decision": "follow_up", "message": content}).to_string(),
                ),
            });
        }
        if transcript
            .last()
            .is_some_and(|u| u.speaker == Speaker::User)
        {
            messages.push(ChatMessage::user("(The assistant gave no reply.)"));
        }
        self.ask_json(messages, TURN_SCHEMA.get(self.lang), parse_turn)
            .await
    }

    async fn experience(
        &mut self,
        transcript: &[Utterance],
        end: EndReason,
    ) -> Result<ExperienceRecord, SimulatorError> {
        // The end of the conversation, as a turn sees it: a long session
        // must not outgrow a small model's context.
        let skipped = transcript.len().saturating_sub(RECORD_UTTERANCES);
        let mut conversation = if skipped > 0 {
            format!("({skipped} earlier messages left out)\n")
        } else {
            String::new()
        };
        let mut turn = transcript[..skipped]
            .iter()
            .filter(|u| u.speaker == Speaker::User)
            .count();
        for u in &transcript[skipped..] {
            let who = match u.speaker {
                Speaker::User => {
                    turn += 1;
                    "You"
                }
                Speaker::Target => "Assistant",
            };
            // The steps the workbench showed you before the reply.
            for (i, step) in u.steps.iter().enumerate().take(STEPS_SHOWN) {
                let answer = match step.answer.error() {
                    Some(e) => format!("failed: {}", e.code),
                    None => "ok".to_string(),
                };
                conversation.push_str(&format!(
                    "(turn {turn}, step {}: the assistant called {} -> {answer})\n",
                    i + 1,
                    step.call.name
                ));
            }
            let content = crate::text::truncate(&u.content, RECENT_CHARS);
            conversation.push_str(&format!("{who}: {content}\n"));
        }
        let messages = vec![
            ChatMessage::system(self.character()),
            ChatMessage::user(format!(
                "The conversation ended ({end}). Here it is:\n{conversation}\n\
                 Report your experience as the user with ONLY a JSON object: \
                 \"goal_achieved\" (true or false), \"blockers\" (a list of where you got \
                 stuck, empty if nowhere), \"misled\" (a list of where the assistant misled \
                 you, empty if nowhere; name the turn and step when a step shows it), \
                 \"emotion\" (one of {emotions}) and \"notes\" (a sentence).",
                emotions = crate::exploration::EMOTIONS.join(", "),
                end = end.as_str()
            )),
        ];
        self.ask_json(messages, RECORD_SCHEMA.get(self.lang), parse_record)
            .await
    }

    fn kind(&self) -> String {
        format!("model:{}", self.client.model_name())
    }

    fn output_mode(&self) -> Option<OutputMode> {
        self.mode
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn turns_and_records_are_validated() {
        let t = parse_turn(&json!({"decision": "follow-up", "message": " hi "})).unwrap();
        assert_eq!(t.decision, Decision::FollowUp);
        assert_eq!(t.message.as_deref(), Some("hi"));
        assert!(
            parse_turn(&json!({"decision": "follow_up"})).is_err(),
            "a follow-up must say something"
        );
        assert!(parse_turn(&json!({"decision": "dance", "message": "x"})).is_err());
        assert_eq!(
            parse_turn(&json!({"decision": "done", "message": "bye"}))
                .unwrap()
                .message,
            None
        );
        let r =
            parse_record(&json!({"goal_achieved": "true", "blockers": "slow", "emotion": "Happy"}))
                .unwrap();
        assert!(r.goal_achieved);
        assert_eq!(r.blockers, vec!["slow"]);
        assert_eq!(r.emotion, "happy");
        assert!(
            parse_record(&json!({"blockers": []})).is_err(),
            "goal_achieved is required"
        );
        assert!(parse_record(&json!({"goal_achieved": false, "misled": 3})).is_err());
        // The schema asks for a message every turn, so that a model cannot
        // follow up with nothing; a Chinese message is shorter.
        let turn = |m: &str| json!({"decision": "follow_up", "message": m});
        assert!(TURN_SCHEMA.get(Lang::En).check(&turn("")).is_err());
        assert!(
            TURN_SCHEMA
                .get(Lang::En)
                .check(&turn(&"a".repeat(150)))
                .is_ok()
        );
        assert!(
            TURN_SCHEMA
                .get(Lang::Zh)
                .check(&turn(&"好".repeat(40)))
                .is_ok()
        );
        assert!(
            TURN_SCHEMA
                .get(Lang::Zh)
                .check(&turn(&"好".repeat(150)))
                .is_err()
        );
    }
}
