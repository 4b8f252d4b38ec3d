//! The tool player: how the engine answers one call of a target. A call
//! that names no offered tool, or whose arguments do not validate against
//! the tool's schema, gets the engine's own error; a call of a played tool
//! (one with `responses`) gets the first declared response whose `when`
//! holds. A call no response matches is answered by the tool-simulator
//! model when one is configured ([`Role::ToolSimulator`]), asked with the
//! tool's schema, its declared responses as examples and the scenario's
//! facts, and labelled as simulated; otherwise, or when the model fails or
//! answers unusably, `NO_RESPONSE`. The simulator never fails a run.

use crate::channel::{ChatMessage, ToolCall, ToolSpec};
use crate::checks::check_call;
use crate::domain::steps::{StepAnswer, ToolError};
use crate::platform::Platform;
use crate::provenance::HostRole;
use crate::role_models::{ChatClient, Role};
use crate::structured::OutputSchema;
use serde_json::{Value, json};
use std::sync::{Arc, LazyLock};
use uuid::Uuid;

/// How the engine answers one call.
pub(crate) enum Play<'t> {
    Answer(StepAnswer),
    /// A played tool, and no declared response matches the call: the
    /// simulator's, or `NO_RESPONSE`.
    Unmatched(&'t ToolSpec),
    /// A tool without responses: the call ends the turn.
    EndsTurn(&'t ToolSpec),
    /// An office tool without declared responses, in a run with a
    /// workspace: the engine plays it over the workspace's files.
    Office(&'t ToolSpec),
}

/// How the engine answers `call`; `workspace` when the exchange has one.
pub(crate) fn play<'t>(tools: &'t [ToolSpec], call: &ToolCall, workspace: bool) -> Play<'t> {
    match check_call(tools, call) {
        Err(e) => Play::Answer(StepAnswer::Error(e)),
        Ok(tool)
            if workspace
                && tool.responses.is_empty()
                && crate::office::is_office_tool(&tool.name) =>
        {
            Play::Office(tool)
        }
        Ok(tool) if tool.responses.is_empty() => Play::EndsTurn(tool),
        Ok(tool) => tool
            .responses
            .iter()
            .find(|r| r.matches(&call.arguments))
            .map_or(Play::Unmatched(tool), |r| Play::Answer(r.answer())),
    }
}

/// The engine's answer to a call without asking any model: its error when
/// it names no offered tool or its arguments are invalid, else the first
/// declared response that holds, else `NO_RESPONSE`.
pub(crate) fn answer(tools: &[ToolSpec], call: &ToolCall) -> StepAnswer {
    match play(tools, call, false) {
        Play::Answer(a) => a,
        Play::Unmatched(tool) | Play::EndsTurn(tool) | Play::Office(tool) => no_response(tool),
    }
}

pub(crate) fn no_response(tool: &ToolSpec) -> StepAnswer {
    StepAnswer::Error(ToolError {
        code: "NO_RESPONSE".into(),
        message: format!("`{}` has no result for these arguments.", tool.name),
        suggestion: "Go on without this result, or tell the user what could not be done.".into(),
    })
}

/// The simulator's answer: a result (any JSON) or an error in seed 002's
/// shape, exactly one of them.
pub static TOOL_ANSWER_SCHEMA: LazyLock<OutputSchema> = LazyLock::new(|| {
    OutputSchema::new(
        "tool_answer",
        json!({
            "type": "object",
            "properties": {
                "result": {"description": "What the tool returns: any JSON."},
                "error": {
                    "type": "object",
                    "properties": {
                        "code": {"type": "string", "minLength": 1, "maxLength": 64},
                        "message": {"type": "string", "maxLength": 500},
                        "suggestion": {"type": "string", "maxLength": 500}
                    },
                    "required": ["code", "message", "suggestion"],
                    "additionalProperties": false
                }
            },
            "minProperties": 1,
            "maxProperties": 1,
            "additionalProperties": false
        }),
    )
});

const SYSTEM_PROMPT: &str = "You simulate a software tool that an AI agent is calling. \
    Answer the call as the tool would: with `{\"result\": ...}`, the tool's output as JSON, \
    or with `{\"error\": {\"code\", \"message\", \"suggestion\"}}` when the call cannot \
    succeed (e.g. what it asks for does not exist). Follow the shape of the declared \
    responses, which are examples of this tool's answers, and never contradict the facts \
    of the scenario; invent nothing a fact does not allow. Write text in the language of \
    the examples. Answer with the JSON object alone.";

/// The simulator's request for one call: the tool (name, description,
/// parameters schema), the call's arguments, the declared responses as
/// examples of the shape, and the scenario's facts.
pub(crate) fn simulator_prompt(
    tool: &ToolSpec,
    call: &ToolCall,
    facts: &[String],
) -> Vec<ChatMessage> {
    let input = json!({
        "tool": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
        "arguments": call.arguments,
        "declared_responses": tool.responses,
        "facts": facts,
    });
    vec![
        ChatMessage::system(SYSTEM_PROMPT),
        ChatMessage::user(input.to_string()),
    ]
}

/// Reads the simulator's answer, labelled as simulated; what is wrong
/// otherwise.
pub(crate) fn read_simulated(text: &str) -> Result<StepAnswer, String> {
    let value = TOOL_ANSWER_SCHEMA.read(text).map_err(String::from)?;
    match value {
        Value::Object(mut o) => {
            if let Some(error) = o.remove("error") {
                let e: ToolError = serde_json::from_value(error).map_err(|e| e.to_string())?;
                Ok(StepAnswer::SimulatedError(e))
            } else {
                Ok(StepAnswer::Simulated(
                    o.remove("result").unwrap_or(Value::Null),
                ))
            }
        }
        _ => Err("the answer is not a JSON object".into()),
    }
}

/// The tool simulator of one exchange: the model in force when the
/// exchange began, counted with its campaign's provenance.
pub(crate) struct Simulator<'a> {
    platform: &'a Platform,
    campaign: Uuid,
    client: Option<Arc<dyn ChatClient>>,
    facts: &'a [String],
}

impl<'a> Simulator<'a> {
    pub(crate) fn new(platform: &'a Platform, campaign: Uuid, facts: &'a [String]) -> Self {
        Self {
            platform,
            campaign,
            client: platform.role_clients().tool_simulator,
            facts,
        }
    }

    /// The answer to a call of `tool` that no declared response matches:
    /// the simulator's, or `NO_RESPONSE` without one or when it fails
    /// (logged, never the run's failure).
    pub(crate) async fn answer(&self, tool: &ToolSpec, call: &ToolCall) -> StepAnswer {
        let Some(client) = &self.client else {
            return no_response(tool);
        };
        let client = self
            .platform
            .metered(client.clone(), self.campaign, HostRole::ToolSimulator);
        let messages = simulator_prompt(tool, call, self.facts);
        let asked = client
            .complete_structured(&messages, &TOOL_ANSWER_SCHEMA)
            .await;
        let reply = match asked {
            Ok(reply) => reply,
            Err(e) => {
                tracing::warn!(tool = %tool.name, error = %e,
                    "the tool-simulator model failed; the call is answered NO_RESPONSE");
                return no_response(tool);
            }
        };
        self.platform
            .note_output_mode(self.campaign.into(), Role::ToolSimulator, reply.mode)
            .await;
        match read_simulated(&reply.reply.content) {
            Ok(answer) => answer,
            Err(why) => {
                tracing::warn!(tool = %tool.name, error = %why, answer = %reply.reply.content,
                    "the tool-simulator model's answer is unusable; the call is answered NO_RESPONSE");
                no_response(tool)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_simulated_answer_is_a_result_or_an_error_labelled_as_simulated() {
        assert_eq!(
            read_simulated(r#"{"result": {"rows": 3}}"#).unwrap(),
            StepAnswer::Simulated(json!({"rows": 3}))
        );
        let e = read_simulated(
            r#"{"error": {"code": "FILE_NOT_FOUND", "message": "不存在", "suggestion": "先调用 FILE_LIST"}}"#,
        )
        .unwrap();
        assert!(e.is_simulated());
        assert_eq!(e.error().map(|e| e.code.as_str()), Some("FILE_NOT_FOUND"));
        assert!(read_simulated("no json").is_err());
        assert!(read_simulated(r#"{"result": 1, "error": {}}"#).is_err());
        assert!(read_simulated(r#"{"answer": 1}"#).is_err());
        assert!(read_simulated(r#"{"error": {"code": "X"}}"#).is_err());
    }
}
