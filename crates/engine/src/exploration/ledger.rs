//! The guardrail ledger: an append-only record of every budget decision.
//!
//! A decision (create, message, close) is a task on the group-commit
//! writer's thread (`Store::transact`): through the store's functions it
//! reads the counts, performs the action and appends the ledger row in one
//! step of the writer's `BEGIN IMMEDIATE` transaction, and decisions run
//! one after another. The
//! immediate transaction takes SQLite's write lock up front, so two
//! processes on the same database cannot both read "one session left"
//! either. A decision is answered only once its transaction committed.

use crate::error::{Error, ErrorCode, Result};
use crate::platform::Platform;
use crate::store::Tx;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum LedgerAction {
    Create,
    Message,
    Close,
}

impl LedgerAction {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Message => "message",
            Self::Close => "close",
        }
    }

    pub(crate) fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "create" => Self::Create,
            "message" => Self::Message,
            "close" => Self::Close,
            other => {
                return Err(Error::internal(anyhow::anyhow!(
                    "unknown ledger action {other}"
                )));
            }
        })
    }
}

/// One budget decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct LedgerEntry {
    pub id: Uuid,
    pub campaign_id: Uuid,
    /// The session acted on; for a refused create, none.
    pub session_id: Option<Uuid>,
    pub action: LedgerAction,
    pub allowed: bool,
    /// The refusal's error code (a guardrail reason code, or e.g.
    /// `INVALID_INPUT` for an unknown seed).
    pub reason_code: Option<ErrorCode>,
    pub at: DateTime<Utc>,
}

/// A decision that was recorded: the action allowed (with what it
/// produced) or refused (with why).
pub(crate) enum Decided<T> {
    Allowed(T),
    Refused(Error),
}

/// One ledger row about to be appended.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    pub id: Uuid,
    pub campaign_id: Uuid,
    pub session_id: Option<Uuid>,
    pub action: LedgerAction,
    pub at: i64,
}

impl Entry {
    /// Appends the row as allowed, inside the caller's transaction.
    pub fn allow(self, tx: &Tx<'_>) -> Result<()> {
        tx.append_ledger_entry(&self, None)
    }

    /// Appends the row as refused with `refusal`'s code and returns the
    /// refusal. An internal error is no decision: it is returned as it is,
    /// unrecorded, and undoes the caller's writes.
    pub fn refuse<T>(self, tx: &Tx<'_>, refusal: Error) -> Result<Decided<T>> {
        if refusal.code() == ErrorCode::Internal {
            return Err(refusal);
        }
        tx.append_ledger_entry(&self, Some(refusal.code()))?;
        Ok(Decided::Refused(refusal))
    }
}

impl Platform {
    /// The ledger of a campaign, oldest first.
    pub async fn ledger(&self, campaign_id: Uuid) -> Result<Vec<LedgerEntry>> {
        self.get_campaign(campaign_id).await?;
        self.store.ledger_entries(campaign_id).await
    }
}
