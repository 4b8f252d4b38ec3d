//! Steps: what an agent that acts does within one turn. The target calls a
//! tool, the engine answers it (a response the pack declares, or an error
//! the agent can act on), and the target goes on until it answers in words
//! or reaches the turn's step limit. Every answered call is a [`Step`],
//! stored with the turn and read by the trajectory checks.

use crate::chat::ToolCall;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Tool rounds a turn may take when neither the scenario nor the turn
/// says otherwise.
pub const DEFAULT_MAX_STEPS: u32 = 10;
/// The most tool rounds a scenario may allow in one turn.
pub const MOST_MAX_STEPS: u32 = 50;
/// Consecutive tool errors after which an agent should stop calling tools
/// and tell the user (seed 002 §4.3, the session-level fault tolerance).
pub const ERRORS_BEFORE_REFLECTION: usize = 3;

/// An error as a tool reports it (seed 002 §4.3): a code the agent can
/// branch on, what happened, and how to go on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolError {
    pub code: String,
    pub message: String,
    #[serde(default)]
    pub suggestion: String,
}

/// One declared answer of a tool: with `when`, only for calls whose
/// arguments hold that JSON (a subset); without, the default. Exactly one
/// of `result` and `error` (the loader checks it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
}

impl ToolResponse {
    /// Whether this response answers a call with these arguments.
    pub fn matches(&self, arguments: &Value) -> bool {
        self.when.as_ref().is_none_or(|w| is_subset(w, arguments))
    }

    /// The answer it gives.
    pub fn answer(&self) -> StepAnswer {
        match (&self.error, &self.result) {
            (Some(e), _) => StepAnswer::Error(e.clone()),
            (None, r) => StepAnswer::Result(r.clone().unwrap_or(Value::Null)),
        }
    }
}

/// Whether `part` is held by `whole`: every key of an object equal (nested
/// objects by the same rule), numbers equal as numbers (3 and 3.0), any
/// other value equal.
pub fn is_subset(part: &Value, whole: &Value) -> bool {
    match (part, whole) {
        (Value::Object(p), Value::Object(w)) => p
            .iter()
            .all(|(k, v)| w.get(k).is_some_and(|x| is_subset(v, x))),
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => part == whole,
    }
}

/// What the engine sent back for one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum StepAnswer {
    /// A declared result.
    Result(Value),
    /// A declared error, or one of the engine's own (`UNKNOWN_TOOL`,
    /// `INVALID_ARGUMENTS`, `NO_RESPONSE`).
    Error(ToolError),
    /// A result made up by the tool-simulator model, not declared.
    Simulated(Value),
    /// An error made up by the tool-simulator model, not declared; an
    /// error to the checks as a declared one is.
    SimulatedError(ToolError),
}

impl StepAnswer {
    /// The tool message's content: a result as JSON text (a string as it
    /// is), an error as seed 002's `{"status": {code, message, suggestion}}`.
    pub fn content(&self) -> String {
        match self {
            Self::Result(Value::String(s)) | Self::Simulated(Value::String(s)) => s.clone(),
            Self::Result(v) | Self::Simulated(v) => v.to_string(),
            Self::Error(e) | Self::SimulatedError(e) => {
                serde_json::json!({ "status": e }).to_string()
            }
        }
    }

    /// The error answered, declared, the engine's own or simulated.
    pub fn error(&self) -> Option<&ToolError> {
        match self {
            Self::Error(e) | Self::SimulatedError(e) => Some(e),
            _ => None,
        }
    }

    /// Whether the tool-simulator model made this answer up.
    pub fn is_simulated(&self) -> bool {
        matches!(self, Self::Simulated(_) | Self::SimulatedError(_))
    }
}

/// One answered tool call of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Step {
    /// The tool round (1-based within the turn): the target's reply that
    /// made the call; the calls of one reply share it.
    pub round: u32,
    /// The call as the target sent it.
    pub call: ToolCall,
    pub answer: StepAnswer,
    /// Of the target's reply that made the call.
    pub latency_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_in: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_out: Option<u32>,
    /// The document this call created or changed in the run's workspace,
    /// as text after the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<DocumentText>,
}

/// Characters of a document's text kept as evidence; past them the text
/// is cut and marked `truncated`.
pub const DOCUMENT_TEXT_LIMIT: usize = 20_000;

/// A document an agent created or changed in a run's workspace, as text
/// (never the file's bytes): what the `document` checks and the number
/// gate read, and what a person opens from the step that made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct DocumentText {
    /// Relative to the workspace, `/`-separated.
    pub path: String,
    pub text: String,
    /// Whether `text` was cut at [`DOCUMENT_TEXT_LIMIT`] characters.
    #[serde(default)]
    pub truncated: bool,
}

impl DocumentText {
    /// A document's text, cut at [`DOCUMENT_TEXT_LIMIT`] characters.
    pub fn new(path: impl Into<String>, text: &str) -> Self {
        let truncated = text.chars().count() > DOCUMENT_TEXT_LIMIT;
        let text = if truncated {
            text.chars().take(DOCUMENT_TEXT_LIMIT).collect()
        } else {
            text.to_string()
        };
        Self {
            path: path.into(),
            text,
            truncated,
        }
    }
}

impl Step {
    /// Whether `other` is the identical call: same tool, same arguments.
    pub fn same_call(&self, other: &Step) -> bool {
        self.call.name == other.call.name && self.call.arguments == other.call.arguments
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_when_is_a_subset_of_the_arguments() {
        let args = json!({"file_path": "a.xlsx", "sheet": "S1", "opts": {"top": 3, "desc": true}});
        assert!(is_subset(&json!({"file_path": "a.xlsx"}), &args));
        assert!(is_subset(&json!({"opts": {"top": 3.0}}), &args));
        assert!(!is_subset(&json!({"opts": {"top": 4}}), &args));
        assert!(!is_subset(&json!({"missing": 1}), &args));
        assert!(
            is_subset(&json!({}), &args),
            "an empty when matches any call"
        );
        let r = ToolResponse {
            when: None,
            result: Some(json!({"ok": true})),
            error: None,
        };
        assert!(
            r.matches(&json!("not an object")),
            "a default matches anything"
        );
    }

    #[test]
    fn an_error_goes_to_the_agent_in_seed_002s_shape() {
        let e = StepAnswer::Error(ToolError {
            code: "FILE_NOT_FOUND".into(),
            message: "文件不存在".into(),
            suggestion: "先调用 FILE_LIST".into(),
        });
        let sent: Value = serde_json::from_str(&e.content()).unwrap();
        assert_eq!(sent["status"]["code"], "FILE_NOT_FOUND");
        assert_eq!(sent["status"]["suggestion"], "先调用 FILE_LIST");
        assert_eq!(StepAnswer::Result(json!("plain")).content(), "plain");
        assert_eq!(StepAnswer::Result(json!({"n": 1})).content(), r#"{"n":1}"#);
    }
}
