//! Production conversations rebuilt from OpenTelemetry traces (the GenAI
//! semantic conventions): what an import yields and what it says about
//! the input it could not read.

use crate::chat::{ChatMessage, Role};
use crate::i18n::Msg;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One conversation as production had it, rebuilt from the spans of one
/// conversation id (or one trace, when the spans name no conversation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TraceConversation {
    /// The conversation id the spans carried (`gen_ai.conversation.id`,
    /// `session.id`), else the trace id.
    pub key: String,
    /// Every trace the conversation's spans came from (hex), in the order
    /// they started: its lineage.
    pub trace_ids: Vec<String>,
    /// The model that answered (`gen_ai.response.model`, else
    /// `gen_ai.request.model`), when a span said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// When its first span started (RFC 3339), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// The conversation, tool calls and their results kept; system
    /// instructions too.
    pub messages: Vec<ChatMessage>,
    /// The tools the agent was offered (`gen_ai.tool.definitions`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<crate::chat::ToolSpec>,
}

impl TraceConversation {
    /// What the users said, in order.
    pub fn user_turns(&self) -> impl Iterator<Item = &str> {
        self.messages
            .iter()
            .filter(|m| m.role == Role::User)
            .map(|m| m.content.as_str())
    }
}

/// Something of the input an import skipped, by its line (1-based; for a
/// protobuf body, the request is line 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ImportProblem {
    pub line: usize,
    pub msg: Msg,
}

/// What an import read, kept and skipped.
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct ImportSummary {
    /// Conversations rebuilt.
    pub conversations: usize,
    /// The users' turns in them.
    pub user_turns: usize,
    /// Every message in them (system, user, assistant, tool).
    pub messages: usize,
    /// GenAI spans read.
    pub spans: usize,
    /// What was replaced before anything was kept, by kind (`email`,
    /// `phone`, `id`, or the name of a pattern the user gave).
    pub redacted: BTreeMap<String, u32>,
    /// Lines or spans skipped, each with why.
    pub problems: Vec<ImportProblem>,
}

impl ImportSummary {
    /// The summary of `conversations` read from `spans` GenAI spans.
    pub fn of(
        conversations: &[TraceConversation],
        spans: usize,
        redacted: BTreeMap<String, u32>,
        problems: Vec<ImportProblem>,
    ) -> Self {
        Self {
            conversations: conversations.len(),
            user_turns: conversations.iter().map(|c| c.user_turns().count()).sum(),
            messages: conversations.iter().map(|c| c.messages.len()).sum(),
            spans,
            redacted,
            problems,
        }
    }
}

/// A conversation an import kept: later spans of the same conversation
/// extend it rather than make another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ImportedConversation {
    pub id: uuid::Uuid,
    /// The target whose production it is, when the import named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<crate::ids::TargetId>,
    /// Where it came from: the file's name, or `otlp-http` for the
    /// receiver.
    pub source: String,
    pub imported_at: chrono::DateTime<chrono::Utc>,
    /// When a later import last extended it.
    pub updated_at: chrono::DateTime<chrono::Utc>,
    #[serde(flatten)]
    pub conversation: TraceConversation,
}

/// A line of the list of imported conversations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ImportedConversationSummary {
    pub id: uuid::Uuid,
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_id: Option<crate::ids::TargetId>,
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    pub imported_at: chrono::DateTime<chrono::Utc>,
    pub user_turns: u32,
    pub messages: u32,
    pub traces: u32,
    /// The user's first turn (at most 160 characters): the preview.
    pub first_user: String,
}

/// The longest preview of a conversation, in characters.
pub const PREVIEW_CHARS: usize = 160;

impl ImportedConversation {
    /// Its line in the list.
    pub fn summary(&self) -> ImportedConversationSummary {
        let c = &self.conversation;
        ImportedConversationSummary {
            id: self.id,
            key: c.key.clone(),
            target_id: self.target_id,
            source: self.source.clone(),
            model: c.model.clone(),
            started_at: c.started_at.clone(),
            imported_at: self.imported_at,
            user_turns: c.user_turns().count() as u32,
            messages: c.messages.len() as u32,
            traces: c.trace_ids.len() as u32,
            first_user: crate::text::truncate(
                c.user_turns().next().unwrap_or_default(),
                PREVIEW_CHARS,
            ),
        }
    }
}
