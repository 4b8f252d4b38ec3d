//! Connection test of a target: one short chat request through the same
//! channel (policy, limits, secrets) the evaluations use.

use crate::channel::{ChannelError, ChannelErrorKind, ChatMessage, ChatRequest};
use crate::domain::ids::{SessionId, TargetId};
use crate::error::ErrorText;
use crate::error::Result;
use crate::i18n::{Lang, Msg};
use crate::msg;
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
    /// The message and the suggestion as catalogue messages, for a reader
    /// in another language (`message` and `suggestion` are them rendered
    /// in the request's language).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<Box<ErrorText>>,
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
pub fn plain_words(error: &ChannelError, channel: &ChannelConfig) -> (Msg, Msg) {
    let at = endpoint(channel).unwrap_or_else(|| msg!("target-this").render(Lang::En));
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
                msg!("target-not-listening", at = at.as_str()),
                msg!("target-not-listening-suggestion"),
            )
        }
        ChannelErrorKind::Connect
            if raw.contains("dns")
                || raw.contains("lookup address")
                || raw.contains("name or service not known")
                || raw.contains("no such host") =>
        {
            (
                msg!("target-host-unknown", host = host),
                msg!("target-host-unknown-suggestion"),
            )
        }
        ChannelErrorKind::Connect
            if raw.contains("certificate") || raw.contains("tls") || raw.contains("ssl") =>
        {
            (
                msg!("target-tls", at = at.as_str()),
                msg!("target-tls-suggestion"),
            )
        }
        ChannelErrorKind::Connect
            if raw.contains("reset") || raw.contains("closed") || raw.contains("incomplete") =>
        {
            (
                msg!("target-closed", at = at.as_str()),
                msg!("target-closed-suggestion"),
            )
        }
        ChannelErrorKind::Connect => (
            msg!("target-unreachable", at = at.as_str()),
            msg!("target-unreachable-suggestion"),
        ),
        ChannelErrorKind::Timeout => (
            msg!("target-timeout", at = at.as_str()),
            msg!("target-timeout-suggestion"),
        ),
        ChannelErrorKind::RateLimited => (
            msg!("target-rate-limited", at = at.as_str()),
            msg!("target-rate-limited-suggestion"),
        ),
        ChannelErrorKind::Status => match error.status {
            Some(s @ (401 | 403)) => (
                msg!("target-credentials", at = at.as_str(), status = s),
                msg!("target-credentials-suggestion"),
            ),
            Some(404) => (
                msg!("target-no-path", at = at.as_str()),
                msg!("target-no-path-suggestion"),
            ),
            Some(s) if s >= 500 => (
                msg!("target-failed", at = at.as_str(), status = s),
                msg!("target-failed-suggestion"),
            ),
            Some(s) => (
                msg!("target-refused", at = at.as_str(), status = s),
                msg!("target-refused-suggestion"),
            ),
            None => (
                msg!("target-error-answer", at = at.as_str()),
                msg!("target-error-answer-suggestion"),
            ),
        },
        ChannelErrorKind::Malformed => (
            msg!("target-malformed", at = at.as_str()),
            msg!("target-malformed-suggestion"),
        ),
        ChannelErrorKind::TooLarge => (
            msg!("target-too-large", at = at.as_str()),
            msg!("target-too-large-suggestion"),
        ),
        ChannelErrorKind::Config => (
            msg!("target-config", detail = error.message.as_str()),
            msg!("target-config-suggestion"),
        ),
    };
    (message, suggestion)
}

fn failed(message: Msg, suggestion: Msg, detail: String) -> TargetProbe {
    TargetProbe {
        ok: false,
        latency_ms: None,
        reply_excerpt: None,
        error: None,
        message: None,
        suggestion: None,
        detail: Some(detail),
        text: Some(Box::new(ErrorText {
            message,
            suggestion,
        })),
    }
    .in_lang(Lang::En)
}

impl TargetProbe {
    /// The probe with its message and suggestion in `lang`.
    pub fn in_lang(mut self, lang: Lang) -> Self {
        if let Some(t) = &self.text {
            let message = t.message.render(lang);
            self.error = Some(message.clone());
            self.message = Some(message);
            self.suggestion = Some(t.suggestion.render(lang));
        }
        self
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
                let detail = e.body.message.clone();
                let (message, suggestion) = e.body.into_msgs();
                return Ok(failed(message, suggestion, detail));
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
                text: None,
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

    /// What a target's failure in session `session_id` was, in the
    /// reader's words, as the connection test says it (the client's own
    /// words go to the log, once: here).
    pub(crate) async fn target_failure(
        &self,
        target_id: TargetId,
        session_id: SessionId,
        error: &ChannelError,
    ) -> Msg {
        tracing::warn!(target = %target_id, session = %session_id, %error, "the target failed");
        match self.get_target(target_id).await {
            Ok(target) => plain_words(error, &target.channel).0,
            Err(_) => msg!("error-plain", text = error.to_string()),
        }
    }
}
