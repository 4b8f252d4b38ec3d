//! Imports kept: each rebuilt conversation stored, or the stored one of
//! the same conversation extended (an OTLP exporter sends a
//! conversation's spans over several requests); the list and one
//! conversation read back.

use super::{Encoding, ImportSummary, Redactor, rebuild};
use crate::domain::ids::TargetId;
use crate::domain::traces::{ImportedConversation, ImportedConversationSummary};
use crate::error::{Error, Result};
use crate::msg;
use crate::platform::Platform;
use crate::store::trace_conversations::TraceFilter;
use serde::{Deserialize, Serialize};

/// Where an import comes from and what it does before keeping anything.
#[derive(Debug, Clone)]
pub struct ImportRequest {
    /// The file's name, or `otlp-http` for the receiver.
    pub source: String,
    pub encoding: Encoding,
    /// The target whose production it is, when known.
    pub target_id: Option<TargetId>,
    pub redactor: Redactor,
}

/// The longest name an import is listed under, in characters.
pub const MAX_SOURCE_CHARS: usize = 200;

impl ImportRequest {
    /// An import listed under `source` (trimmed, at most
    /// [`MAX_SOURCE_CHARS`]; `default_source` when none is given),
    /// for `target_id`, with the built-in redaction unless `redact` is
    /// false (the default is to redact).
    pub fn new(
        source: Option<&str>,
        default_source: &str,
        encoding: Encoding,
        target_id: Option<TargetId>,
        redact: Option<bool>,
    ) -> Self {
        let source = source.map(str::trim).filter(|s| !s.is_empty());
        Self {
            source: crate::text::truncate(source.unwrap_or(default_source), MAX_SOURCE_CHARS),
            encoding,
            target_id,
            redactor: if redact.unwrap_or(true) {
                Redactor::built_in()
            } else {
                Redactor::none()
            },
        }
    }
}

/// Which imported conversations, and which page of them (newest first).
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ImportedQuery {
    #[serde(default)]
    pub target_id: Option<TargetId>,
    /// Words the conversation contains (case-insensitive).
    #[serde(default)]
    pub text: Option<String>,
    /// Rows to skip (default 0).
    #[serde(default)]
    pub offset: Option<u32>,
    /// Rows per page: 1 to 500 (default 100).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ImportedPage {
    pub conversations: Vec<ImportedConversationSummary>,
    /// Conversations matching the filters, on every page.
    pub total: u64,
}

impl Platform {
    /// Reads OTLP `input`, rebuilds its conversations, redacts them and
    /// keeps them (extending those already kept), in one transaction:
    /// what was read, kept, replaced and skipped. Empty input is refused,
    /// and an unknown target is 404, before anything is read.
    pub async fn import_traces(&self, input: &[u8], req: ImportRequest) -> Result<ImportSummary> {
        if input.iter().all(u8::is_ascii_whitespace) {
            return Err(Error::invalid_msg(
                msg!("error-import-empty"),
                msg!("error-import-empty-suggestion"),
            ));
        }
        if let Some(target) = req.target_id {
            self.get_target(target).await?;
        }
        // Reading a body of up to 32 MiB is work for a blocking thread, not
        // for the threads that answer the other requests meanwhile.
        let (input, encoding, redactor) = (input.to_vec(), req.encoding, req.redactor);
        let (conversations, summary) =
            tokio::task::spawn_blocking(move || super::import(&input, encoding, &redactor))
                .await
                .map_err(Error::internal)?;
        let now = self.clock.now();
        let ids: Vec<uuid::Uuid> = conversations.iter().map(|_| self.ids.next_id()).collect();
        self.store
            .transact(move |tx| {
                tx.lock_trace_conversations()?;
                for (c, id) in conversations.into_iter().zip(ids) {
                    let kept = match tx.trace_conversation_by_key(&c.key)? {
                        Some(mut old) => {
                            rebuild::extend(&mut old.conversation, c);
                            old.updated_at = now;
                            old.target_id = req.target_id.or(old.target_id);
                            old
                        }
                        None => ImportedConversation {
                            id,
                            target_id: req.target_id,
                            source: req.source.clone(),
                            imported_at: now,
                            updated_at: now,
                            conversation: c,
                        },
                    };
                    tx.upsert_trace_conversation(&kept)?;
                }
                Ok(())
            })
            .await?;
        Ok(summary)
    }

    /// A page of the imported conversations, newest import first.
    pub async fn imported_conversations(&self, q: ImportedQuery) -> Result<ImportedPage> {
        let limit = crate::paging::page_limit(q.limit)? as u32;
        let (conversations, total) = self
            .store
            .trace_conversations(TraceFilter {
                target_id: q.target_id,
                text: q.text,
                limit,
                offset: q.offset.unwrap_or(0),
            })
            .await?;
        Ok(ImportedPage {
            conversations,
            total,
        })
    }

    /// Imported conversation `id`, whole.
    pub async fn imported_conversation(&self, id: uuid::Uuid) -> Result<ImportedConversation> {
        self.store
            .trace_conversation(id)
            .await?
            .ok_or_else(|| Error::not_found("conversation", id))
    }
}
