//! Channels: how the platform talks to a target. One trait, three kinds
//! (OpenAI-compatible chat completions, generic HTTP JSON, the built-in demo
//! agent), wrapped with the target's retry policy, concurrency limit and
//! rate limit by [`build`].

pub mod http_json;
pub mod openai;
pub mod policy;
mod transport;

use serde::{Deserialize, Serialize};
use std::sync::Arc;

pub use crate::domain::chat::*;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ChannelErrorKind {
    Timeout,
    Connect,
    /// HTTP status from the endpoint.
    Status,
    RateLimited,
    /// The body could not be understood.
    Malformed,
    /// The reply exceeded the size limit.
    TooLarge,
    /// The channel is misconfigured (bad URL, missing key).
    Config,
}

/// A failure to get a reply. Messages never contain secrets.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct ChannelError {
    pub kind: ChannelErrorKind,
    pub message: String,
    /// HTTP status, when there was one.
    pub status: Option<u16>,
    /// For 429: how long the endpoint asked us to wait.
    pub retry_after_ms: Option<u64>,
}

impl ChannelError {
    pub fn new(kind: ChannelErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            status: None,
            retry_after_ms: None,
        }
    }

    /// Whether retrying may help: timeouts, connection failures, 429 and 5xx.
    pub fn retryable(&self) -> bool {
        match self.kind {
            ChannelErrorKind::Timeout
            | ChannelErrorKind::Connect
            | ChannelErrorKind::RateLimited => true,
            ChannelErrorKind::Status => self.status.is_some_and(|s| s >= 500),
            ChannelErrorKind::Malformed | ChannelErrorKind::TooLarge | ChannelErrorKind::Config => {
                false
            }
        }
    }
}

/// Something that answers chat requests: a target, or a role model.
#[async_trait::async_trait]
pub trait Channel: Send + Sync {
    async fn send(&self, request: &ChatRequest) -> Result<ChatReply, ChannelError>;

    /// Sends one request now, as a connection test does: not paced by the
    /// target's rate limit, which spaces the evaluations' requests (a test
    /// behind a limit of one request per minute would otherwise wait for
    /// the evaluations queued before it). The default sends as `send`.
    async fn probe(&self, request: &ChatRequest) -> Result<ChatReply, ChannelError> {
        self.send(request).await
    }

    /// `scheme://host:port` of the endpoint it talks to (see
    /// [`crate::domain::provenance::host_of`]); `None` for an in-process agent.
    fn host(&self) -> Option<String> {
        None
    }
}

/// A channel that answers with a deterministic local agent.
pub struct Builtin(pub Arc<crate::demo_agent::DemoAgent>);

#[async_trait::async_trait]
impl Channel for Builtin {
    async fn send(&self, request: &ChatRequest) -> Result<ChatReply, ChannelError> {
        let started = std::time::Instant::now();
        let reply = self.0.respond(&request.messages, &request.tools);
        Ok(ChatReply {
            content: reply.content,
            tool_calls: reply.tool_calls,
            usage: Some(reply.usage),
            latency_ms: started.elapsed().as_millis() as u64,
            model: Some("agenteval-demo".into()),
        })
    }
}

/// Builds the channel for a target, wrapped with its policy (timeout,
/// retries with exponential backoff, concurrency and rate limits).
pub fn build(
    target: &crate::domain::target::Target,
    secrets: &crate::secrets::Secrets,
    http: &reqwest::Client,
) -> Result<Arc<dyn Channel>, ChannelError> {
    use crate::domain::target::ChannelConfig;
    let inner: Arc<dyn Channel> = match &target.channel {
        ChannelConfig::Builtin { .. } => {
            Arc::new(Builtin(Arc::new(crate::demo_agent::DemoAgent::new())))
        }
        ChannelConfig::Openai {
            base_url,
            model,
            api_key_env,
            api_key_ref,
            headers,
            ..
        } => {
            let key = match (api_key_ref, api_key_env) {
                (Some(r), _) => Some(secrets.get(r).map_err(|e| {
                    ChannelError::new(
                        ChannelErrorKind::Config,
                        format!("the target's API key is unavailable: {}", e.body.message),
                    )
                })?),
                (None, Some(var)) => Some(std::env::var(var).map_err(|_| {
                    ChannelError::new(
                        ChannelErrorKind::Config,
                        format!("environment variable {var} is not set"),
                    )
                })?),
                (None, None) => None,
            };
            Arc::new(openai::OpenAiChannel::new(
                http.clone(),
                base_url.clone(),
                model.clone(),
                key,
                headers.clone(),
                std::time::Duration::from_millis(target.timeout_ms),
            ))
        }
        ChannelConfig::Http {
            url,
            request_template,
            response_path,
            headers,
        } => Arc::new(http_json::HttpJsonChannel::new(
            http.clone(),
            url.clone(),
            request_template.clone(),
            response_path.clone(),
            headers.clone(),
            std::time::Duration::from_millis(target.timeout_ms),
        )?),
    };
    Ok(Arc::new(policy::Policy::new(
        inner,
        policy::PolicyConfig::for_target(target),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_read_and_write_as_a_plain_list_and_share_their_wire_form() {
        let json = serde_json::json!([{"name": "send_email", "description": "Sends", "parameters": {"type": "object"}}]);
        let tools: Tools = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(tools.len(), 1);
        assert_eq!(serde_json::to_value(&tools).unwrap(), json);

        let copy = tools.clone();
        let built = tools.wire(|specs| serde_json::value::to_raw_value(&specs.len()).unwrap());
        let reused = copy.wire(|_| unreachable!("a copy shares the built wire form"));
        assert_eq!(built.get(), "1");
        assert!(std::ptr::eq(built, reused));
    }
}
