//! The guardrail ledger: its rows appended inside a budget decision's
//! transaction, and a campaign's ledger as listed (see
//! `agenteval_engine::exploration::ledger`).

use super::{Store, Tx};
use agenteval_domain::clock::from_ms;
use agenteval_domain::error::{Context, Error, ErrorCode, Result};
use agenteval_domain::ids::CampaignId;
use agenteval_domain::ledger::{Entry, LedgerAction, LedgerEntry};
use agenteval_domain::parse_id;
use rusqlite::params;
use sqlx::Row;
use sqlx::sqlite::SqliteRow;

impl Store {
    /// The ledger of campaign `campaign_id`, oldest first.
    pub async fn ledger_entries(&self, campaign_id: CampaignId) -> Result<Vec<LedgerEntry>> {
        let doing = move || format!("store: reading the ledger of campaign {campaign_id}");
        let rows =
            sqlx::query("SELECT * FROM ledger_entries WHERE campaign_id = ? ORDER BY at, rowid")
                .bind(campaign_id.to_string())
                .fetch_all(&self.pool)
                .await
                .with_context(doing)?;
        rows.iter()
            .map(ledger_entry_from_row)
            .collect::<Result<_>>()
            .with_context(doing)
    }
}

// Each budget decision appends a row (a hot path): the context is static.
impl Tx<'_> {
    /// Appends a decision's ledger row: allowed, or refused with the
    /// refusal's code.
    pub fn append_ledger_entry(&self, entry: &Entry, refusal: Option<ErrorCode>) -> Result<()> {
        self.0
            .prepare_cached(
                "INSERT INTO ledger_entries (id, campaign_id, session_id, action, allowed, reason_code, at)
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .and_then(|mut st| {
                st.execute(params![
                    entry.id.to_string(),
                    entry.campaign_id.to_string(),
                    entry.session_id.map(|s| s.to_string()),
                    entry.action.as_str(),
                    refusal.is_none(),
                    refusal.map(|c| c.as_str()),
                    entry.at,
                ])
            })
            .context("store: appending a ledger entry")?;
        Ok(())
    }
}

fn ledger_entry_from_row(row: &SqliteRow) -> Result<LedgerEntry> {
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
}

/// An error code as stored (its wire form, e.g. `SESSION_BUDGET_EXHAUSTED`).
fn parse_code(s: &str) -> Result<ErrorCode> {
    serde_json::from_value(serde_json::Value::String(s.to_string())).map_err(Error::internal)
}
