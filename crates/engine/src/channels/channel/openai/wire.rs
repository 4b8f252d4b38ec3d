//! The OpenAI chat completions wire format of a message, a tool call, a
//! tool and the token usage, written once: the client sends messages and
//! tools and reads a reply's message; the demo target reads messages and
//! tools and sends a reply's message. Only the envelopes (a request, a
//! completion, a stream chunk) are each side's own.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;

use crate::domain::chat::{ChatMessage, Role, ToolCall, ToolSpec};

/// A message as it is read: from a reply's `choices[0].message` or a
/// request's `messages`.
#[derive(Debug, Deserialize)]
pub struct MessageIn {
    /// Absent in some replies (the client does not need it).
    #[serde(default)]
    pub role: Option<String>,
    /// A string, null (tool calls only) or an array of content parts: read
    /// with [`super::content_text`].
    #[serde(default)]
    pub content: Option<Value>,
    #[serde(default)]
    pub tool_calls: Option<Vec<ToolCallIn>>,
    #[serde(default)]
    pub tool_call_id: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct ToolCallIn {
    #[serde(default)]
    pub id: Option<String>,
    pub function: FunctionIn,
}

#[derive(Debug, Deserialize)]
pub struct FunctionIn {
    pub name: String,
    /// A JSON string, or the object itself from some servers: read with
    /// [`super::parse_arguments`].
    #[serde(default)]
    pub arguments: Option<Value>,
}

impl ToolCallIn {
    /// The call, its id `call_<i>` when the sender gave none.
    pub fn into_call(self, i: usize) -> ToolCall {
        ToolCall {
            id: self.id.unwrap_or_else(|| format!("call_{i}")),
            name: self.function.name,
            arguments: super::parse_arguments(self.function.arguments),
        }
    }
}

/// A message as it is sent, borrowed from the conversation.
#[derive(Debug, Serialize)]
pub struct MessageOut<'a> {
    pub role: &'static str,
    /// null only when a reply is tool calls alone, as OpenAI does; the
    /// client sends "" instead (several servers reject null).
    pub content: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<&'a str>,
}

impl<'a> MessageOut<'a> {
    /// A message of the conversation, as the client sends it.
    pub fn of(m: &'a ChatMessage) -> Self {
        Self {
            role: role_name(m.role),
            content: Some(&m.content),
            tool_calls: ToolCallOut::all(&m.tool_calls, false),
            tool_call_id: m.tool_call_id.as_deref(),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct ToolCallOut<'a> {
    /// The call's place, in a stream chunk only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    pub id: &'a str,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: FunctionOut<'a>,
}

#[derive(Debug, Serialize)]
pub struct FunctionOut<'a> {
    pub name: &'a str,
    /// A JSON string; a raw string kept from an invalid reply goes back
    /// unchanged.
    pub arguments: Cow<'a, str>,
}

impl<'a> ToolCallOut<'a> {
    /// `calls` on the wire, each with its `index` when `indexed`.
    pub fn all(calls: &'a [ToolCall], indexed: bool) -> Vec<Self> {
        calls
            .iter()
            .enumerate()
            .map(|(i, c)| Self {
                index: indexed.then_some(i),
                id: &c.id,
                kind: "function",
                function: FunctionOut {
                    name: &c.name,
                    arguments: arguments(&c.arguments),
                },
            })
            .collect()
    }
}

/// Arguments go over the wire as a JSON string; a raw string kept from an
/// invalid reply is sent back unchanged.
pub fn arguments(arguments: &Value) -> Cow<'_, str> {
    match arguments {
        Value::String(raw) => Cow::Borrowed(raw),
        other => Cow::Owned(other.to_string()),
    }
}

/// A tool the caller offers: written by the client, read by the demo target.
#[derive(Debug, Serialize, Deserialize)]
pub struct Tool<'a> {
    #[serde(rename = "type", default = "function")]
    pub kind: Cow<'a, str>,
    pub function: ToolFunction<'a>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ToolFunction<'a> {
    pub name: Cow<'a, str>,
    #[serde(default)]
    pub description: Cow<'a, str>,
    #[serde(default)]
    pub parameters: Option<Cow<'a, Value>>,
}

fn function() -> Cow<'static, str> {
    Cow::Borrowed("function")
}

impl<'a> Tool<'a> {
    /// A tool spec on the wire; no parameters are sent as an empty object
    /// schema.
    pub fn of(t: &'a ToolSpec) -> Self {
        Self {
            kind: function(),
            function: ToolFunction {
                name: Cow::Borrowed(&t.name),
                description: Cow::Borrowed(&t.description),
                parameters: Some(if t.parameters.is_null() {
                    Cow::Owned(serde_json::json!({"type": "object", "properties": {}}))
                } else {
                    Cow::Borrowed(&t.parameters)
                }),
            },
        }
    }

    /// The tool spec it describes.
    pub fn into_spec(self) -> ToolSpec {
        ToolSpec {
            name: self.function.name.into_owned(),
            description: self.function.description.into_owned(),
            parameters: self
                .function
                .parameters
                .map_or(Value::Null, Cow::into_owned),
            responses: Vec::new(),
        }
    }
}

/// Tokens of a completion: read by the client (any may be absent), written
/// by the demo target.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    #[serde(default)]
    pub completion_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
}

impl From<crate::domain::chat::Usage> for Usage {
    fn from(u: crate::domain::chat::Usage) -> Self {
        Self {
            prompt_tokens: Some(u.tokens_in.into()),
            completion_tokens: Some(u.tokens_out.into()),
            total_tokens: Some(u64::from(u.tokens_in) + u64::from(u.tokens_out)),
        }
    }
}

/// A role's name on the wire.
pub fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// A role read from the wire (`developer` is a system message, `function`
/// the older name of a tool's); `None` for any other.
pub fn role_of(name: &str) -> Option<Role> {
    match name {
        "system" | "developer" => Some(Role::System),
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        "tool" | "function" => Some(Role::Tool),
        _ => None,
    }
}
