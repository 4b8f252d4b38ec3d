//! Connection test of a target: one short chat request through the same
//! channel (policy, limits, secrets) the evaluations use.

use crate::channel::{ChatMessage, ChatRequest};
use crate::error::Result;
use crate::platform::Platform;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The outcome of a connection test. A target that does not answer is a
/// result (`ok: false` with the reason), not an error of the operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TargetProbe {
    pub ok: bool,
    /// Wall time of the answer, when there was one.
    pub latency_ms: Option<u64>,
    /// The start of the reply (at most 200 characters).
    pub reply_excerpt: Option<String>,
    /// Why the target did not answer; never contains secrets.
    pub error: Option<String>,
}

/// What the connection test says to the target.
pub const PROBE_MESSAGE: &str = "Hello, this is a connection test. Please reply briefly.";

impl Platform {
    /// Sends one short message to the target and reports whether it answered.
    #[tracing::instrument(skip(self))]
    pub async fn test_target(&self, id: Uuid) -> Result<TargetProbe> {
        let channel = match self.channel_for(id).await {
            Ok(c) => c,
            Err(e) if e.code() == crate::ErrorCode::TargetUnavailable => {
                return Ok(TargetProbe {
                    ok: false,
                    latency_ms: None,
                    reply_excerpt: None,
                    error: Some(e.body.message),
                });
            }
            Err(e) => return Err(e),
        };
        let request = ChatRequest {
            messages: vec![ChatMessage::user(PROBE_MESSAGE)],
            tools: Default::default(),
        };
        let probe = match channel.send(&request).await {
            Ok(reply) => TargetProbe {
                ok: true,
                latency_ms: Some(reply.latency_ms),
                reply_excerpt: Some(reply.content.chars().take(200).collect()),
                error: None,
            },
            Err(e) => TargetProbe {
                ok: false,
                latency_ms: None,
                reply_excerpt: None,
                error: Some(e.message),
            },
        };
        self.audit(
            "platform",
            "target.test",
            Some(id),
            if probe.ok { "ok" } else { "unreachable" },
        )
        .await;
        Ok(probe)
    }
}
