//! The check of the virtual user, as stored: the transcript a check reads
//! and the faults it found, in the transaction that ends a session (see
//! [`crate::exploration::simulator_faults`]).

use super::Tx;
use crate::domain::judge::{SessionForReview, SessionMessage};
use crate::domain::session::SimulatorFault;
use crate::error::Result;
use rusqlite::params;
use uuid::Uuid;

impl Tx<'_> {
    /// Session `id`'s transcript as the check of the virtual user reads it.
    pub(crate) fn transcript_to_check(&self, id: Uuid) -> Result<SessionForReview> {
        let id = id.to_string();
        let json = |s: Option<String>| s.and_then(|s| serde_json::from_str(&s).ok());
        let (persona, goal, experience, end_reason) = self
            .0
            .prepare_cached(
                "SELECT persona, goal, experience, end_reason FROM exploration_sessions WHERE id = ?",
            )?
            .query_row([&id], |r| {
                Ok((
                    json(r.get(0)?),
                    json(r.get(1)?),
                    json(r.get(2)?),
                    r.get::<_, Option<String>>(3)?,
                ))
            })?;
        let messages = self
            .0
            .prepare_cached(
                "SELECT role, content, latency_ms FROM session_turns WHERE session_id = ? ORDER BY seq",
            )?
            .query_map([&id], |r| {
                Ok(SessionMessage {
                    role: r.get(0)?,
                    content: r.get(1)?,
                    latency_ms: r.get(2)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(SessionForReview {
            persona: persona.unwrap_or_default(),
            goal: goal.unwrap_or_default(),
            experience,
            end_reason,
            messages,
        })
    }

    /// Stores what the check found in session `id` (an empty list when it
    /// found nothing).
    pub(crate) fn store_simulator_faults(&self, id: Uuid, faults: &[SimulatorFault]) -> Result<()> {
        self.0
            .prepare_cached("UPDATE exploration_sessions SET simulator_faults = ? WHERE id = ?")?
            .execute(params![serde_json::to_string(faults)?, id.to_string()])?;
        Ok(())
    }

    /// The ended sessions not checked yet (of campaign `campaign_id`, or
    /// all), in the order they ended.
    pub(crate) fn unchecked_sessions(&self, campaign_id: Option<Uuid>) -> Result<Vec<Uuid>> {
        let ids: Vec<String> = self
            .0
            .prepare_cached(
                "SELECT id FROM exploration_sessions
                 WHERE simulator_faults IS NULL AND status != 'running'
                   AND (?1 IS NULL OR campaign_id = ?1)
                 ORDER BY ended_at, id",
            )?
            .query_map([campaign_id.map(|c| c.to_string())], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        ids.iter().map(|id| crate::domain::parse_id(id)).collect()
    }

    /// Checks the ended sessions not checked yet (of campaign
    /// `campaign_id`, or all) with `check` and stores what it finds.
    pub(crate) fn check_unchecked_sessions(
        &self,
        campaign_id: Option<Uuid>,
        check: impl Fn(&SessionForReview) -> Vec<SimulatorFault>,
    ) -> Result<()> {
        for id in self.unchecked_sessions(campaign_id)? {
            let faults = check(&self.transcript_to_check(id)?);
            self.store_simulator_faults(id, &faults)?;
        }
        Ok(())
    }
}
