//! The conversation as the platform and a target exchange it: messages,
//! roles, tools offered and tool calls made, requests and replies.

use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
    /// Tool calls the assistant made in this message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For `role: tool`: which call this answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }
}

/// An OpenAI-style function tool offered to the target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ToolSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// JSON schema of the arguments.
    #[serde(default)]
    pub parameters: serde_json::Value,
    /// How the engine answers a call (first match wins); none: a call ends
    /// the turn, and is what the checks read (see [`crate::steps`]). Never
    /// sent to the target.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub responses: Vec<crate::steps::ToolResponse>,
}

/// The tools offered in one scenario's requests. Every request of every
/// run shares one copy, and a channel that sends them in a fixed wire form
/// builds that form once.
#[derive(Clone, Default)]
pub struct Tools(Arc<ToolSet>);

#[derive(Default)]
struct ToolSet {
    specs: Vec<ToolSpec>,
    wire: std::sync::OnceLock<Box<serde_json::value::RawValue>>,
}

impl Tools {
    /// The tools in a channel's wire form, built by `build` on first use.
    /// Only one wire form is kept: the OpenAI-compatible channel's.
    pub fn wire(
        &self,
        build: impl FnOnce(&[ToolSpec]) -> Box<serde_json::value::RawValue>,
    ) -> &serde_json::value::RawValue {
        self.0.wire.get_or_init(|| build(&self.0.specs))
    }
}

impl From<Vec<ToolSpec>> for Tools {
    fn from(specs: Vec<ToolSpec>) -> Self {
        Self(Arc::new(ToolSet {
            specs,
            wire: Default::default(),
        }))
    }
}

impl std::ops::Deref for Tools {
    type Target = [ToolSpec];
    fn deref(&self) -> &[ToolSpec] {
        &self.0.specs
    }
}

impl std::fmt::Debug for Tools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.specs.fmt(f)
    }
}

impl PartialEq for Tools {
    fn eq(&self, other: &Self) -> bool {
        self.0.specs == other.0.specs
    }
}

impl Serialize for Tools {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.specs.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Tools {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<ToolSpec>::deserialize(d).map(Self::from)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// Parsed arguments (the raw string when it is not valid JSON).
    pub arguments: serde_json::Value,
}

#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct ChatRequest {
    pub messages: Vec<ChatMessage>,
    #[serde(default)]
    #[specta(type = Vec<ToolSpec>)]
    #[schema(value_type = Vec<ToolSpec>)]
    pub tools: Tools,
}

#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    specta::Type,
    utoipa::ToSchema,
)]
pub struct Usage {
    pub tokens_in: u32,
    pub tokens_out: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ChatReply {
    pub content: String,
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// `None` when the endpoint did not report usage.
    pub usage: Option<Usage>,
    /// Wall time of the successful attempt.
    pub latency_ms: u64,
    /// Model name the endpoint reported, if any.
    pub model: Option<String>,
}

/// A target's turn as the conversation that goes on sends it: each tool
/// round of `steps` as an assistant message with its calls followed by one
/// `tool` message per call, then the reply's words (valid for the
/// strictest OpenAI-compatible APIs).
pub fn with_steps(steps: &[crate::steps::Step], content: String) -> Vec<ChatMessage> {
    let mut out: Vec<ChatMessage> = Vec::new();
    for round in steps.chunk_by(|a, b| a.round == b.round) {
        let mut call = ChatMessage::assistant("");
        call.tool_calls = round.iter().map(|s| s.call.clone()).collect();
        out.push(call);
        for s in round {
            let mut answer = ChatMessage::new(Role::Tool, s.answer.content());
            answer.tool_call_id = Some(s.call.id.clone());
            out.push(answer);
        }
    }
    out.push(ChatMessage::assistant(content));
    out
}
