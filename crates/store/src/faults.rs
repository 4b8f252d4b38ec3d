//! The check of the virtual user, as stored: the transcript a check reads
//! and the faults it found, in the transaction that ends a session (see
//! `agenteval_engine::exploration::simulator_faults`).

use super::Tx;
use super::sql::{Sql, args};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::judge::SessionForReview;
use agenteval_domain::session::{PlayedBy, SimulatorFault};
use uuid::Uuid;

// The check runs as each session ends (a hot path): the contexts are
// static.
impl Tx<'_> {
    /// Session `id`'s transcript as the check of the virtual user reads it.
    pub fn transcript_to_check(&self, session_id: SessionId) -> Result<SessionForReview> {
        let id = session_id.to_string();
        let json = |s: Option<&str>| s.and_then(|s| serde_json::from_str(s).ok());
        let (persona, goal, experience, end_reason, played_by) = self
            .0
            .row(
                "SELECT persona, goal, experience, end_reason, played_by FROM exploration_sessions WHERE id = ?",
                args![&id],
                |r| {
                    Ok((
                        json(r.text(0)?),
                        json(r.text(1)?),
                        json(r.text(2)?),
                        r.get::<Option<String>>(3)?,
                        PlayedBy::parse(r.str(4)?).unwrap_or_default(),
                    ))
                },
            )
            .and_then(|found| {
                found.ok_or_else(|| {
                    agenteval_domain::error::Error::internal(anyhow::anyhow!("no session {id}"))
                })
            })
            .context("store: reading a session to check its virtual user")?;
        let messages = crate::judge::session_messages(&self.0, session_id)
            .context("store: reading a session's transcript to check its virtual user")?;
        Ok(SessionForReview {
            persona: persona.unwrap_or_default(),
            goal: goal.unwrap_or_default(),
            experience,
            end_reason,
            played_by,
            messages,
            // The check of the virtual user reads no tools.
            tools: Vec::new(),
            max_steps: None,
        })
    }

    /// Stores what the check found in session `id` (an empty list when it
    /// found nothing).
    pub fn store_simulator_faults(&self, id: SessionId, faults: &[SimulatorFault]) -> Result<()> {
        let doing = "store: storing the faults found in a session's virtual user";
        let faults = serde_json::to_string(faults).context(doing)?;
        crate::session_tallies::retally(&self.0, &[id], || {
            self.0
                .exec(
                    "UPDATE exploration_sessions SET simulator_faults = ? WHERE id = ?",
                    args![&faults, id.to_string()],
                )
                .context(doing)
        })?;
        Ok(())
    }

    /// The ended sessions not checked yet (of campaign `campaign_id`, or
    /// all), in the order they ended.
    pub fn unchecked_sessions(&self, campaign_id: Option<CampaignId>) -> Result<Vec<Uuid>> {
        let campaign_id = campaign_id.map(|c| c.to_string());
        self.0
            .rows(
                Sql::dialects(
                    "SELECT id FROM exploration_sessions
                     WHERE simulator_faults IS NULL AND status != 'running'
                       AND (?1 IS NULL OR campaign_id = ?1)
                     ORDER BY ended_at, id",
                    "SELECT id FROM exploration_sessions
                     WHERE simulator_faults IS NULL AND status != 'running'
                       AND (CAST($1 AS text) IS NULL OR campaign_id = $1)
                     ORDER BY ended_at NULLS FIRST, id",
                ),
                args![&campaign_id],
                |r| r.uuid(0),
            )
            .context("store: reading the sessions whose virtual user is not checked yet")
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
