//! The guardrail ledger: an append-only record of every budget decision.
//!
//! A decision (create, message, close) is a task on the group-commit
//! writer's thread (`Writer::transact`): it reads the counts, performs the
//! action and appends the ledger row in one step of the writer's `BEGIN
//! IMMEDIATE` transaction, and decisions run one after another. The
//! immediate transaction takes SQLite's write lock up front, so two
//! processes on the same database cannot both read "one session left"
//! either. A decision is answered only once its transaction committed.

use crate::clock::from_ms;
use crate::domain::parse_id;
use crate::error::{Error, ErrorCode, Result};
use crate::platform::Platform;
use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};
use sqlx::Row;
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

    fn parse(s: &str) -> Result<Self> {
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
    pub fn allow(self, conn: &Connection) -> Result<()> {
        self.append(conn, None)
    }

    /// Appends the row as refused with `refusal`'s code and returns the
    /// refusal. An internal error is no decision: it is returned as it is,
    /// unrecorded, and undoes the caller's writes.
    pub fn refuse<T>(self, conn: &Connection, refusal: Error) -> Result<Decided<T>> {
        if refusal.code() == ErrorCode::Internal {
            return Err(refusal);
        }
        self.append(conn, Some(refusal.code()))?;
        Ok(Decided::Refused(refusal))
    }

    fn append(self, conn: &Connection, refusal: Option<ErrorCode>) -> Result<()> {
        conn.prepare_cached(
            "INSERT INTO ledger_entries (id, campaign_id, session_id, action, allowed, reason_code, at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )?
        .execute(params![
            self.id.to_string(),
            self.campaign_id.to_string(),
            self.session_id.map(|s| s.to_string()),
            self.action.as_str(),
            refusal.is_none(),
            refusal.map(|c| c.as_str()),
            self.at,
        ])?;
        Ok(())
    }
}

fn parse_code(s: &str) -> Result<ErrorCode> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).map_err(Error::internal)
}

impl Platform {
    /// The ledger of a campaign, oldest first.
    pub async fn ledger(&self, campaign_id: Uuid) -> Result<Vec<LedgerEntry>> {
        self.get_campaign(campaign_id).await?;
        let rows =
            sqlx::query("SELECT * FROM ledger_entries WHERE campaign_id = ? ORDER BY at, rowid")
                .bind(campaign_id.to_string())
                .fetch_all(&self.store.pool)
                .await?;
        rows.iter()
            .map(|row| {
                Ok(LedgerEntry {
                    id: parse_id(row.try_get("id")?)?,
                    campaign_id: parse_id(row.try_get("campaign_id")?)?,
                    session_id: row
                        .try_get::<Option<String>, _>("session_id")?
                        .map(|s| parse_id(&s))
                        .transpose()?,
                    action: LedgerAction::parse(row.try_get("action")?)?,
                    allowed: row.try_get("allowed")?,
                    reason_code: row
                        .try_get::<Option<String>, _>("reason_code")?
                        .map(|s| parse_code(&s))
                        .transpose()?,
                    at: from_ms(row.try_get("at")?),
                })
            })
            .collect()
    }
}
