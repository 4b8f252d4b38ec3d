//! A session's lease: a running session nobody has spoken in for
//! [`SESSION_LEASE`] (a tab closed mid-session, a client that went away)
//! is closed as `abandoned`. It has no record, counts apart from the
//! findings and gives its slot of the session budget back. A person may
//! also discard a running session at once.

use super::guardrails::session_not_running;
use super::*;
use crate::domain::ids::{CampaignId, SessionId};

/// How long a running session may go without a user turn.
pub const SESSION_LEASE: Duration = Duration::minutes(30);

/// Closes the running sessions of `campaign` (of every campaign when
/// `None`) whose lease ran out by `now`, in the caller's transaction;
/// returns them with their campaigns.
pub(super) fn abandon_idle(
    tx: &Tx<'_>,
    campaign: Option<CampaignId>,
    now: DateTime<Utc>,
) -> Result<Vec<SessionId>> {
    let mut abandoned = Vec::new();
    for id in tx.idle_sessions(campaign, now - SESSION_LEASE)? {
        if tx.abandon_session(id, now)? {
            abandoned.push(id);
        }
    }
    Ok(abandoned)
}

impl Platform {
    /// Closes every running session whose lease ran out (the scheduler
    /// calls this on each step); how many it closed.
    pub async fn abandon_idle_sessions(&self) -> Result<usize> {
        let now = self.clock.now();
        let ids = self
            .store
            .transact(move |tx| abandon_idle(tx, None, now))
            .await?;
        for id in &ids {
            let session = self.get_session(*id).await?;
            self.session_changed("session.abandon", session.campaign_id, *id)
                .await;
        }
        self.prune_session_tools().await?;
        Ok(ids.len())
    }

    /// Discards a running session now: it ends as `abandoned`, without a
    /// record, and its budget slot is given back. Recorded in the ledger
    /// as a close.
    #[tracing::instrument(skip(self))]
    pub async fn discard_session(&self, session_id: SessionId) -> Result<ExplorationSession> {
        let discard = move |tx: &Tx<'_>, session: &SessionState, entry: Entry, now| {
            if !tx.abandon_session(session.id, now)? {
                return entry.refuse(
                    tx,
                    session_not_running(session.id.into(), session.status, session.end_reason),
                );
            }
            entry.allow(tx)?;
            Ok(Decided::Allowed(session.campaign.id))
        };
        let campaign_id = self
            .decide_on_session(session_id, LedgerAction::Close, discard)
            .await?;
        self.end_session_tools(session_id);
        self.session_changed("session.discard", campaign_id, session_id)
            .await;
        self.get_session(session_id).await
    }
}
