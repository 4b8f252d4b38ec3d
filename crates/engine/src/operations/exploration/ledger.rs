//! The guardrail ledger: an append-only record of every budget decision.
//!
//! A decision (create, message, close) is a task on the group-commit
//! writer's thread (`Store::transact`): through the store's functions it
//! reads the counts, performs the action and appends the ledger row in one
//! step of the writer's `BEGIN IMMEDIATE` transaction, and decisions run
//! one after another. The
//! immediate transaction takes SQLite's write lock up front, so two
//! processes on the same database cannot both read "one session left"
//! either. On PostgreSQL a start and a message are first put to the
//! server, which takes them in one statement (`Store::start_session_at_once`,
//! `Store::take_turn_at_once`) when the same guardrails allow them or (a
//! start) refuse them; what it leaves undecided is decided in a
//! transaction that locks the budget's row first. A decision is answered
//! only once it committed.

use crate::domain::ids::CampaignId;
use crate::error::{Error, ErrorCode, Result};
use crate::platform::Platform;
use crate::store::Tx;

pub use crate::domain::ledger::{Entry, LedgerAction, LedgerEntry};

/// A decision that was recorded: the action allowed (with what it
/// produced) or refused (with why).
pub(crate) enum Decided<T> {
    Allowed(T),
    Refused(Error),
}

impl<T> Decided<T> {
    /// What the allowed action produced, or the refusal as the error.
    pub(crate) fn into_result(self) -> Result<T> {
        match self {
            Decided::Allowed(done) => Ok(done),
            Decided::Refused(refusal) => Err(refusal),
        }
    }
}

/// What a decision does with its ledger row, inside the caller's
/// transaction.
pub(crate) trait Record {
    /// Appends the row as allowed.
    fn allow(self, tx: &Tx<'_>) -> Result<()>;
    /// Appends the row as refused with `refusal`'s code and returns the
    /// refusal. An internal error is no decision: it is returned as it is,
    /// unrecorded, and undoes the caller's writes.
    fn refuse<T>(self, tx: &Tx<'_>, refusal: Error) -> Result<Decided<T>>;
}

impl Record for Entry {
    fn allow(self, tx: &Tx<'_>) -> Result<()> {
        tx.append_ledger_entry(&self, None)
    }

    fn refuse<T>(self, tx: &Tx<'_>, refusal: Error) -> Result<Decided<T>> {
        if refusal.code() == ErrorCode::Internal {
            return Err(refusal);
        }
        tx.append_ledger_entry(&self, Some(refusal.code()))?;
        Ok(Decided::Refused(refusal))
    }
}

impl Platform {
    /// The ledger of a campaign, oldest first.
    pub async fn ledger(&self, campaign_id: CampaignId) -> Result<Vec<LedgerEntry>> {
        self.get_campaign(campaign_id).await?;
        self.store.ledger_entries(campaign_id).await
    }
}
