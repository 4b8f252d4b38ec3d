//! OpenAI-compatible chat completions (`POST {base_url}/chat/completions`).
//!
//! Works with OpenAI, DeepSeek, Qwen, vLLM, llama.cpp and the built-in
//! `agenteval demo-target`. Only non-streaming requests are sent.

pub mod wire;

use super::transport::Endpoint;
use super::{Channel, ChannelError, ChatReply, ChatRequest, ToolSpec, Usage};
use crate::domain::target::Header;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::time::Duration;

pub struct OpenAiChannel {
    http: reqwest::Client,
    model: String,
    /// A configuration problem (bad header, bad URL) is reported on the
    /// first send, because construction cannot fail.
    endpoint: Result<Endpoint, ChannelError>,
    /// Sent as `max_tokens` when set (role models cap their answers).
    max_tokens: Option<u32>,
}

impl OpenAiChannel {
    pub fn new(
        http: reqwest::Client,
        base_url: String,
        model: String,
        api_key: Option<String>,
        headers: Vec<Header>,
        timeout: Duration,
    ) -> Self {
        let url = format!("{}/chat/completions", base_url.trim_end_matches('/'));
        Self {
            http,
            model,
            endpoint: Endpoint::new(url, api_key.as_deref(), &headers, timeout),
            max_tokens: None,
        }
    }

    /// Caps every answer at `max_tokens` (sent in each request).
    pub fn with_max_tokens(mut self, max_tokens: Option<u32>) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// Refuses replies larger than `bytes` (default 4 MiB).
    pub fn with_max_reply_bytes(mut self, bytes: usize) -> Self {
        if let Ok(endpoint) = &mut self.endpoint {
            endpoint.max_reply_bytes = bytes;
        }
        self
    }

    fn body<'a>(
        &'a self,
        request: &'a ChatRequest,
        response_format: Option<&'a Value>,
    ) -> WireRequest<'a> {
        WireRequest {
            model: &self.model,
            max_tokens: self.max_tokens,
            messages: request.messages.iter().map(wire::MessageOut::of).collect(),
            tools: (!request.tools.is_empty()).then(|| request.tools.wire(wire_tools)),
            response_format,
        }
    }

    /// Sends `request` with a `response_format` (structured outputs) when
    /// one is given; [`Channel::send`] sends none.
    pub async fn send_with_format(
        &self,
        request: &ChatRequest,
        response_format: Option<&Value>,
    ) -> Result<ChatReply, ChannelError> {
        let endpoint = self.endpoint.as_ref().map_err(Clone::clone)?;
        let reply = endpoint
            .post_json(&self.http, &self.body(request, response_format))
            .await?;
        let completion: Completion = serde_json::from_slice(&reply.body)
            .map_err(|e| endpoint.unparseable("a chat completion", &reply.body, e))?;
        let message = completion
            .choices
            .into_iter()
            .next()
            .and_then(|c| c.message)
            .ok_or_else(|| endpoint.malformed("has no choices[0].message"))?;
        let content = content_text(message.content).map_err(|what| endpoint.malformed(what))?;
        let tool_calls = message
            .tool_calls
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, c)| c.into_call(i))
            .collect();
        let usage = completion.usage.map(|u| Usage {
            tokens_in: clamp_tokens(u.prompt_tokens),
            tokens_out: clamp_tokens(u.completion_tokens),
        });
        Ok(ChatReply {
            content,
            tool_calls,
            usage,
            latency_ms: reply.latency.as_millis() as u64,
            model: completion.model,
        })
    }
}

/// The tools in the wire form, built once per tool set.
fn wire_tools(specs: &[ToolSpec]) -> Box<RawValue> {
    let tools: Vec<wire::Tool<'_>> = specs.iter().map(wire::Tool::of).collect();
    serde_json::value::to_raw_value(&tools).expect("tool specs serialize to JSON")
}

/// The request body, borrowed from the request: no copy of the history.
#[derive(Serialize)]
struct WireRequest<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    messages: Vec<wire::MessageOut<'a>>,
    // Some servers reject an empty `tools` array, so it is left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a RawValue>,
    /// Structured outputs (role models only), in the form the endpoint takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<&'a Value>,
}

#[derive(Deserialize)]
struct Completion {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<wire::Usage>,
    #[serde(default)]
    model: Option<String>,
}

#[derive(Deserialize)]
struct Choice {
    message: Option<wire::MessageIn>,
}

/// Content is a string, null (tool calls only) or, on some servers, an
/// array of `{type: "text", text}` parts. Read the same way by the client
/// and by the demo target's endpoint.
pub fn content_text(content: Option<Value>) -> Result<String, &'static str> {
    match content {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s),
        Some(Value::Array(parts)) => Ok(parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("")),
        Some(_) => Err("has a message content that is neither text nor parts"),
    }
}

/// A tool call's arguments: the JSON string parsed (kept as a string when it
/// is not JSON), the object itself from servers that send one, `{}` when
/// absent. Read the same way by the client and by the demo target.
pub fn parse_arguments(arguments: Option<Value>) -> Value {
    match arguments {
        None | Some(Value::Null) => json!({}),
        Some(Value::String(raw)) if raw.trim().is_empty() => json!({}),
        Some(Value::String(raw)) => serde_json::from_str(&raw).unwrap_or(Value::String(raw)),
        // Some servers send the object itself instead of a string.
        Some(other) => other,
    }
}

fn clamp_tokens(n: Option<u64>) -> u32 {
    n.unwrap_or(0).min(u64::from(u32::MAX)) as u32
}

#[async_trait::async_trait]
impl Channel for OpenAiChannel {
    async fn send(&self, request: &ChatRequest) -> Result<ChatReply, ChannelError> {
        self.send_with_format(request, None).await
    }

    fn host(&self) -> Option<String> {
        let endpoint = self.endpoint.as_ref().ok()?;
        crate::domain::provenance::host_of(&endpoint.url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_parse_or_stay_raw() {
        assert_eq!(
            parse_arguments(Some(json!("{\"to\":\"a@b.c\"}"))),
            json!({"to": "a@b.c"}),
            "valid JSON strings are parsed"
        );
        assert_eq!(
            parse_arguments(Some(json!("{broken"))),
            json!("{broken"),
            "invalid JSON is kept raw so checks can report it"
        );
        assert_eq!(
            parse_arguments(None),
            json!({}),
            "missing means no arguments"
        );
    }

    #[test]
    fn raw_arguments_round_trip_unchanged() {
        assert_eq!(wire::arguments(&json!("{broken")), "{broken");
        assert_eq!(wire::arguments(&json!({"a": 1})), "{\"a\":1}");
    }
}
