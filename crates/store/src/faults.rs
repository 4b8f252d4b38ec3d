//! The check of the virtual user, as stored: the transcript a check reads
//! and the faults it found, in the transaction that ends a session (see
//! `agenteval_engine::exploration::simulator_faults`).

use super::Tx;
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::judge::{SessionForReview, SessionMessage};
use agenteval_domain::session::SimulatorFault;
use rusqlite::params;
use uuid::Uuid;

// The check runs as each session ends (a hot path): the contexts are
// static.
impl Tx<'_> {
    /// Session `id`'s transcript as the check of the virtual user reads it.
    pub fn transcript_to_check(&self, id: SessionId) -> Result<SessionForReview> {
        let id = id.to_string();
        let json = |s: Option<String>| s.and_then(|s| serde_json::from_str(&s).ok());
        let (persona, goal, experience, end_reason) = self
            .sqlite()?
            .prepare_cached(
                "SELECT persona, goal, experience, end_reason FROM exploration_sessions WHERE id = ?",
            )
            .and_then(|mut st| {
                st.query_row([&id], |r| {
                    Ok((
                        json(r.get(0)?),
                        json(r.get(1)?),
                        json(r.get(2)?),
                        r.get::<_, Option<String>>(3)?,
                    ))
                })
            })
            .context("store: reading a session to check its virtual user")?;
        let messages = self
            .sqlite()?
            .prepare_cached(
                "SELECT role, content, latency_ms FROM session_turns WHERE session_id = ? ORDER BY seq",
            )
            .and_then(|mut st| {
                st.query_map([&id], |r| {
                    Ok(SessionMessage {
                        role: r.get(0)?,
                        content: r.get(1)?,
                        latency_ms: r.get(2)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()
            })
            .context("store: reading a session's transcript to check its virtual user")?;
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
    pub fn store_simulator_faults(&self, id: SessionId, faults: &[SimulatorFault]) -> Result<()> {
        let doing = "store: storing the faults found in a session's virtual user";
        let faults = serde_json::to_string(faults).context(doing)?;
        crate::session_tallies::retally(self.sqlite()?, &[id], || {
            self.sqlite()?
                .prepare_cached("UPDATE exploration_sessions SET simulator_faults = ? WHERE id = ?")
                .and_then(|mut st| st.execute(params![faults, id.to_string()]))
                .context(doing)
        })?;
        Ok(())
    }

    /// The ended sessions not checked yet (of campaign `campaign_id`, or
    /// all), in the order they ended.
    pub fn unchecked_sessions(&self, campaign_id: Option<CampaignId>) -> Result<Vec<Uuid>> {
        let doing = "store: reading the sessions whose virtual user is not checked yet";
        let ids: Vec<String> = self
            .sqlite()?
            .prepare_cached(
                "SELECT id FROM exploration_sessions
                 WHERE simulator_faults IS NULL AND status != 'running'
                   AND (?1 IS NULL OR campaign_id = ?1)
                 ORDER BY ended_at, id",
            )
            .and_then(|mut st| {
                st.query_map([campaign_id.map(|c| c.to_string())], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()
            })
            .context(doing)?;
        ids.iter()
            .map(|id| agenteval_domain::parse_id(id))
            .collect::<Result<_>>()
            .context(doing)
    }

    /// Checks the ended sessions not checked yet (of campaign
    /// `campaign_id`, or all) with `check` and stores what it finds.
    pub fn check_unchecked_sessions(
        &self,
        campaign_id: Option<CampaignId>,
        check: impl Fn(&SessionForReview) -> Vec<SimulatorFault>,
    ) -> Result<()> {
        for id in self.unchecked_sessions(campaign_id)? {
            let faults = check(&self.transcript_to_check(SessionId(id))?);
            self.store_simulator_faults(SessionId(id), &faults)?;
        }
        Ok(())
    }
}
