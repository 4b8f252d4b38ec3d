//! The guardrail ledger: its rows appended inside a budget decision's
//! transaction, and a campaign's ledger as listed (see
//! `agenteval_engine::exploration::ledger`).

use super::sql::{Row, args};
use super::{Store, Tx};
use agenteval_domain::clock::from_ms;
use agenteval_domain::error::{Context, Error, ErrorCode, Result};
use agenteval_domain::ids::CampaignId;
use agenteval_domain::ledger::{Entry, LedgerAction, LedgerEntry};
use agenteval_domain::parse_id;

impl Store {
    /// The ledger of campaign `campaign_id`, oldest first.
    pub async fn ledger_entries(&self, campaign_id: CampaignId) -> Result<Vec<LedgerEntry>> {
        self.read(move |c| {
            c.rows(
                "SELECT * FROM ledger_entries WHERE campaign_id = ? ORDER BY at, rowid",
                args![campaign_id.to_string()],
                ledger_entry_from_row,
            )
        })
        .await
        .with_context(move || format!("store: reading the ledger of campaign {campaign_id}"))
    }
}

// Each budget decision appends a row (a hot path): the context is static.
impl Tx<'_> {
    /// Appends a decision's ledger row: allowed, or refused with the
    /// refusal's code.
    pub fn append_ledger_entry(&self, entry: &Entry, refusal: Option<ErrorCode>) -> Result<()> {
        self.0
            .exec(
                "INSERT INTO ledger_entries (id, campaign_id, session_id, action, allowed, reason_code, at)
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
                args![
                    entry.id.to_string(),
                    entry.campaign_id.to_string(),
                    entry.session_id.map(|s| s.to_string()),
                    entry.action.as_str(),
                    refusal.is_none(),
                    refusal.map(|c| c.as_str()),
                    entry.at,
                ],
            )
            .context("store: appending a ledger entry")?;
        Ok(())
    }
}

fn ledger_entry_from_row(row: &Row<'_>) -> Result<LedgerEntry> {
    Ok(LedgerEntry {
        id: parse_id(row.str("id")?)?,
        campaign_id: parse_id(row.str("campaign_id")?)?,
        session_id: row.text("session_id")?.map(parse_id).transpose()?,
        action: LedgerAction::parse(row.str("action")?)?,
        allowed: row.get("allowed")?,
        reason_code: row.text("reason_code")?.map(parse_code).transpose()?,
        at: from_ms(row.get("at")?),
    })
}

/// An error code as stored (its wire form, e.g. `SESSION_BUDGET_EXHAUSTED`).
pub(crate) fn parse_code(s: &str) -> Result<ErrorCode> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).map_err(Error::internal)
}
