//! A generic HTTP JSON channel: POST a body built from a template, read the
//! reply text at a JSONPath.
//!
//! In the template, a string that is exactly `"{{message}}"` becomes the
//! last user message and one that is exactly `"{{history}}"` becomes the
//! messages array; inside longer strings both are replaced by text (the
//! history as compact JSON).

use super::transport::Endpoint;
use super::{Channel, ChannelError, ChannelErrorKind, ChatMessage, ChatReply, ChatRequest, Role};
use crate::domain::target::Header;
use serde_json::{Value, json};
use serde_json_path::JsonPath;
use std::time::Duration;

const MESSAGE: &str = "{{message}}";
const HISTORY: &str = "{{history}}";
pub const DEFAULT_RESPONSE_PATH: &str = "$.reply";

/// `{"message": "{{message}}", "history": {{history}}}`.
pub fn default_template() -> Value {
    json!({"message": MESSAGE, "history": HISTORY})
}

pub struct HttpJsonChannel {
    http: reqwest::Client,
    endpoint: Endpoint,
    template: Value,
    path: JsonPath,
    path_text: String,
}

impl HttpJsonChannel {
    pub fn new(
        http: reqwest::Client,
        url: String,
        request_template: Option<serde_json::Value>,
        response_path: Option<String>,
        headers: Vec<Header>,
        timeout: Duration,
    ) -> Result<Self, ChannelError> {
        let path_text = response_path.unwrap_or_else(|| DEFAULT_RESPONSE_PATH.to_owned());
        let path = JsonPath::parse(&path_text).map_err(|e| {
            ChannelError::new(
                ChannelErrorKind::Config,
                format!("response_path {path_text:?} is not a valid JSONPath: {e}"),
            )
        })?;
        Ok(Self {
            http,
            endpoint: Endpoint::new(url, None, &headers, timeout)?,
            template: request_template.unwrap_or_else(default_template),
            path,
            path_text,
        })
    }

    /// Refuses replies larger than `bytes` (default 4 MiB).
    pub fn with_max_reply_bytes(mut self, bytes: usize) -> Self {
        self.endpoint.max_reply_bytes = bytes;
        self
    }
}

struct Fill<'a> {
    message: &'a str,
    history: Value,
    history_text: String,
}

impl Fill<'_> {
    fn apply(&self, template: &Value) -> Value {
        match template {
            Value::String(s) if s == MESSAGE => Value::String(self.message.to_owned()),
            Value::String(s) if s == HISTORY => self.history.clone(),
            Value::String(s) if s.contains("{{") => Value::String(
                s.replace(MESSAGE, self.message)
                    .replace(HISTORY, &self.history_text),
            ),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.apply(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.apply(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

/// Fills a request template with the conversation.
pub fn render(template: &Value, messages: &[ChatMessage]) -> Value {
    let message = messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User)
        .map_or("", |m| m.content.as_str());
    let history = serde_json::to_value(messages).unwrap_or(Value::Array(Vec::new()));
    // Serialized from the messages (not the Value) to keep field order.
    let history_text = serde_json::to_string(messages).unwrap_or_else(|_| "[]".into());
    Fill {
        message,
        history,
        history_text,
    }
    .apply(template)
}

#[async_trait::async_trait]
impl Channel for HttpJsonChannel {
    fn host(&self) -> Option<String> {
        crate::domain::provenance::host_of(&self.endpoint.url)
    }

    async fn send(&self, request: &ChatRequest) -> Result<ChatReply, ChannelError> {
        let body = render(&self.template, &request.messages);
        let reply = self.endpoint.post_json(&self.http, &body).await?;
        let value: Value = serde_json::from_slice(&reply.body)
            .map_err(|e| self.endpoint.unparseable("JSON", &reply.body, e))?;
        let node = self.path.query(&value).first().ok_or_else(|| {
            self.endpoint.malformed(format_args!(
                "has nothing at response_path {}",
                self.path_text
            ))
        })?;
        let content = match node {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        Ok(ChatReply {
            content,
            tool_calls: Vec::new(),
            usage: None,
            latency_ms: reply.latency.as_millis() as u64,
            model: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_template_puts_message_and_history() {
        let messages = vec![
            ChatMessage::system("be brief"),
            ChatMessage::user("hello"),
            ChatMessage::assistant("hi"),
            ChatMessage::user("send it"),
        ];
        let body = render(&default_template(), &messages);
        assert_eq!(body["message"], "send it", "last user message");
        assert_eq!(
            body["history"].as_array().map(Vec::len),
            Some(4),
            "whole-value history is the messages array"
        );
        assert_eq!(body["history"][0]["role"], "system");
    }

    #[test]
    fn placeholders_inside_strings_become_text() {
        let template = json!({"q": ["say: {{message}}"], "n": 3, "h": "log={{history}}"});
        let body = render(&template, &[ChatMessage::user("x")]);
        assert_eq!(body["q"][0], "say: x");
        assert_eq!(body["n"], 3, "non-string values are kept");
        assert_eq!(body["h"], "log=[{\"role\":\"user\",\"content\":\"x\"}]");
    }
}
