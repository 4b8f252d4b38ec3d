//! Connection test of a target: one short chat request through the same
//! channel (policy, limits, secrets) the evaluations use.

use crate::channel::{ChannelError, ChannelErrorKind, ChatMessage, ChatRequest};
use crate::domain::ids::TargetId;
use crate::error::Result;
use crate::platform::Platform;
use crate::target::ChannelConfig;
use serde::{Deserialize, Serialize};

/// The outcome of a connection test. A target that does not answer is a
/// result (`ok: false` with the reason in plain words), not an error of
/// the operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TargetProbe {
    pub ok: bool,
    /// Wall time of the answer, when there was one.
    pub latency_ms: Option<u64>,
    /// The start of the reply (at most 200 characters).
    pub reply_excerpt: Option<String>,
    /// Why the target did not answer, in plain words (the same as
    /// `message`); never contains secrets.
    pub error: Option<String>,
    /// Why the target did not answer, in plain words, e.g. "nothing is
    /// listening at 127.0.0.1:9".
    pub message: Option<String>,
    /// What to do about it, e.g. "Start the agent, or fix the URL."
    pub suggestion: Option<String>,
    /// The technical cause as the connection reported it, for the log or
    /// a details view; never contains secrets.
    pub detail: Option<String>,
}

/// What the connection test says to the target.
pub const PROBE_MESSAGE: &str = "Hello, this is a connection test. Please reply briefly.";

/// `host:port` of the target's endpoint, as the user wrote it.
fn endpoint(channel: &ChannelConfig) -> Option<String> {
    let url = match channel {
        ChannelConfig::Openai { base_url, .. } => base_url,
        ChannelConfig::Http { url, .. } => url,
        ChannelConfig::Builtin { .. } => return None,
    };
    let parsed = reqwest::Url::parse(url).ok()?;
    let host = parsed.host_str()?;
    Some(match parsed.port_or_known_default() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    })
}

/// A failed connection in plain words: what happened and what to do.
pub fn plain_words(error: &ChannelError, channel: &ChannelConfig) -> (String, String) {
    let at = endpoint(channel).unwrap_or_else(|| "the target".into());
    let host = at.rsplit_once(':').map_or(at.as_str(), |(h, _)| h);
    let raw = error.message.to_lowercase();
    let (message, suggestion) = match error.kind {
        ChannelErrorKind::Connect
            if raw.contains("connection refused")
                || raw.contains("os error 111")
                || raw.contains("os error 61")
                || raw.contains("actively refused") =>
        {
            (
                format!("nothing is listening at {at}"),
                "Start the agent, or fix the URL's host and port.".to_string(),
            )
        }
        ChannelErrorKind::Connect
            if raw.contains("dns")
                || raw.contains("lookup address")
                || raw.contains("name or service not known")
                || raw.contains("no such host") =>
        {
            (
                format!("the host name {host} could not be found"),
                "Check the spelling of the host in the URL.".to_string(),
            )
        }
        ChannelErrorKind::Connect
            if raw.contains("certificate") || raw.contains("tls") || raw.contains("ssl") =>
        {
            (
                format!("a secure connection to {at} could not be made"),
                "Check whether the URL should start with http:// or https://, and that the certificate is valid.".to_string(),
            )
        }
        ChannelErrorKind::Connect
            if raw.contains("reset") || raw.contains("closed") || raw.contains("incomplete") =>
        {
            (
                format!("{at} closed the connection without answering"),
                "Check that the URL points at the agent's API and not at another service.".to_string(),
            )
        }
        ChannelErrorKind::Connect => (
            format!("{at} could not be reached"),
            "Check that the agent is running and that the URL is right.".to_string(),
        ),
        ChannelErrorKind::Timeout => (
            format!("{at} did not answer in time"),
            "Check that the agent is running; if it is slow, raise the target's timeout.".to_string(),
        ),
        ChannelErrorKind::RateLimited => (
            format!("{at} is limiting the request rate (HTTP 429)"),
            "Wait and test again, or lower the target's rate limit.".to_string(),
        ),
        ChannelErrorKind::Status => match error.status {
            Some(401 | 403) => (
                format!("{at} refused the credentials (HTTP {})", error.status.unwrap_or(401)),
                "Check the API key (or the environment variable that holds it).".to_string(),
            ),
            Some(404) => (
                format!("nothing answers at this path of {at} (HTTP 404)"),
                "Check the URL's path, e.g. it ends in /v1 for an OpenAI-compatible endpoint.".to_string(),
            ),
            Some(s) if s >= 500 => (
                format!("the agent at {at} failed (HTTP {s})"),
                "See the agent's log; test again once it is fixed.".to_string(),
            ),
            Some(s) => (
                format!("{at} refused the request (HTTP {s})"),
                "Check the channel settings: the model name, headers or request template.".to_string(),
            ),
            None => (
                format!("{at} answered with an error"),
                "Check the channel settings.".to_string(),
            ),
        },
        ChannelErrorKind::Malformed => (
            format!("{at} answered, but not in the form this channel expects"),
            "Check the channel kind (OpenAI-compatible or HTTP JSON) and the response path.".to_string(),
        ),
        ChannelErrorKind::TooLarge => (
            format!("the reply from {at} is too large"),
            "Check that the URL points at the agent's chat endpoint.".to_string(),
        ),
        ChannelErrorKind::Config => (
            format!("the channel settings cannot be used: {}", error.message),
            "Fix the target's channel settings.".to_string(),
        ),
    };
    (message, suggestion)
}

fn failed(message: String, suggestion: String, detail: String) -> TargetProbe {
    TargetProbe {
        ok: false,
        latency_ms: None,
        reply_excerpt: None,
        error: Some(message.clone()),
        message: Some(message),
        suggestion: Some(suggestion),
        detail: Some(detail),
    }
}

impl Platform {
    /// Sends one short message to the target and reports whether it answered.
    #[tracing::instrument(skip(self))]
    pub async fn test_target(&self, id: TargetId) -> Result<TargetProbe> {
        let target = self.get_target(id).await?;
        let channel = match self.channel_for(id).await {
            Ok(c) => c,
            Err(e) if e.code() == crate::ErrorCode::TargetUnavailable => {
                return Ok(failed(
                    e.body.message.clone(),
                    e.body.suggestion,
                    e.body.message,
                ));
            }
            Err(e) => return Err(e),
        };
        let request = ChatRequest {
            messages: vec![ChatMessage::user(PROBE_MESSAGE)],
            tools: Default::default(),
        };
        let probe = match channel.probe(&request).await {
            Ok(reply) => TargetProbe {
                ok: true,
                latency_ms: Some(reply.latency_ms),
                reply_excerpt: Some(reply.content.chars().take(200).collect()),
                error: None,
                message: None,
                suggestion: None,
                detail: None,
            },
            Err(e) => {
                let (message, suggestion) = plain_words(&e, &target.channel);
                failed(message, suggestion, e.message)
            }
        };
        self.audit_operation(
            "target.test",
            Some(id.into()),
            if probe.ok { "ok" } else { "unreachable" },
        )
        .await;
        Ok(probe)
    }
}
