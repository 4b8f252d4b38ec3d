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

    /// Everything the users said, a turn a line: what a conversation is
    /// placed on the coverage grid by.
    pub fn said(&self) -> String {
        self.user_turns().collect::<Vec<_>>().join("\n")
    }
}

/// How a production user writes, as the rules read it: in which language
/// (mostly Chinese characters, else English) and whether tersely (under
/// 15 Chinese characters a turn, or 45 Latin ones: a Chinese character
/// says about as much as three Latin letters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Voice {
    pub chinese: bool,
    pub terse: bool,
}

impl Voice {
    /// The voice of `said`, the users' words over `turns` turns.
    pub fn of(said: &str, turns: usize) -> Self {
        let han = said.chars().filter(|c| is_han(*c)).count();
        let latin = said.chars().filter(char::is_ascii_alphabetic).count();
        let chinese = han * 2 >= latin.max(1);
        let per_turn = said.chars().count() / turns.max(1);
        Self {
            chinese,
            terse: per_turn < if chinese { 15 } else { 45 },
        }
    }

    /// Its language's code: `zh` or `en`.
    pub fn lang(self) -> &'static str {
        if self.chinese { "zh" } else { "en" }
    }

    /// `terse` or `detailed`, as a persona's style says it, in words the
    /// virtual user reads (`style_msg`).
    pub fn style(self) -> crate::i18n::Msg {
        style_msg(self.terse)
    }
}

/// A persona's style, terse or detailed, as a message: its words in the
/// reader's language are what a proposed persona is given, and what a
/// persona's style is matched against.
pub fn style_msg(terse: bool) -> crate::i18n::Msg {
    if terse {
        crate::msg!("persona-style-terse")
    } else {
        crate::msg!("persona-style-detailed")
    }
}

/// Whether `c` is a CJK unified ideograph (the common Chinese characters).
pub fn is_han(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

/// What a production user said, as kept for placing the conversation on
/// a coverage grid without reading it whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    /// The user turns, a turn a line.
    pub text: String,
    pub turns: usize,
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
    /// GenAI spans read but skipped (each is also among `problems`); a
    /// line that could not be read at all is a problem whose spans are
    /// not counted.
    pub skipped_spans: usize,
    /// Lines or spans skipped, each with why.
    pub problems: Vec<ImportProblem>,
}

impl ImportSummary {
    /// The summary of `conversations` read from `spans` GenAI spans.
    pub fn of(
        conversations: &[TraceConversation],
        (spans, skipped_spans): (usize, usize),
        redacted: BTreeMap<String, u32>,
        problems: Vec<ImportProblem>,
    ) -> Self {
        Self {
            conversations: conversations.len(),
            user_turns: conversations.iter().map(|c| c.user_turns().count()).sum(),
            messages: conversations.iter().map(|c| c.messages.len()).sum(),
            spans,
            skipped_spans,
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

/// Seeds proposed from production conversations, and by whom.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SeedProposal {
    pub seed_set: crate::campaign::SeedSet,
    pub proposed_by: SeedProposer,
    /// Why the analyst model's proposal was not used (it failed, or
    /// answered unusably), when one is configured and the rules proposed
    /// instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analyst_problem: Option<Msg>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SeedProposer {
    /// The analyst model read the conversations.
    Analyst,
    /// Simple rules did, without a model.
    Rules,
}
