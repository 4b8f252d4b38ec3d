//! The guardrail ledger as stored: every budget decision, allowed or
//! refused with its reason code.

use crate::error::{Error, ErrorCode, Result};
use crate::ids::{CampaignId, SessionId};
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

    pub fn parse(s: &str) -> Result<Self> {
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
    pub campaign_id: CampaignId,
    /// The session acted on; for a refused create, none.
    pub session_id: Option<SessionId>,
    pub action: LedgerAction,
    pub allowed: bool,
    /// The refusal's error code (a guardrail reason code, or e.g.
    /// `INVALID_INPUT` for an unknown seed).
    pub reason_code: Option<ErrorCode>,
    pub at: DateTime<Utc>,
}

/// One ledger row about to be appended.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub id: Uuid,
    pub campaign_id: CampaignId,
    pub session_id: Option<SessionId>,
    pub action: LedgerAction,
    pub at: i64,
}
