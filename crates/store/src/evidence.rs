//! Where the runs and sessions a report cites stand: a run's number in
//! its campaign's plan, a session's place among the sessions of its
//! persona and goal (the names people read, see
//! `agenteval_domain::evidence`), and the names kept with the judge
//! findings.

use super::Store;
use super::sql::{Sql, args};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::evidence::SessionName;
use agenteval_domain::ids::{CampaignId, RunId, SessionId};
use agenteval_domain::parse_id;

/// A run, its scenario and its number in the campaign's plan, from 1.
pub struct RunPlace {
    pub id: RunId,
    pub scenario_id: String,
    pub number: u32,
}

/// A session, its persona and goal (JSON) and its place among the
/// sessions of that persona and goal, from 1.
pub struct SessionPlace {
    pub id: SessionId,
    pub persona: String,
    pub goal: String,
    pub ordinal: u32,
}

impl Store {
    /// The scenarios and numbers of the runs `ids` of campaign
    /// `campaign_id` (those that exist), in no particular order.
    pub async fn run_places(
        &self,
        campaign_id: CampaignId,
        ids: &[RunId],
    ) -> Result<Vec<RunPlace>> {
        let n = ids.len();
        let doing = move || format!("store: naming {n} runs of campaign {campaign_id}");
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids = serde_json::to_string(ids).with_context(doing)?;
        self.read(move |c| {
            c.rows(
                Sql::dialects(
                    // CROSS JOIN: SQLite looks each id up, rather than
                    // reading every run of the campaign.
                    "SELECT r.id, r.scenario_id, r.seq FROM json_each(?2) AS j
                     CROSS JOIN runs AS r ON r.id = j.value WHERE r.campaign_id = ?1",
                    "SELECT id, scenario_id, seq FROM runs
                     WHERE campaign_id = ? AND id IN (SELECT jsonb_array_elements_text(CAST(? AS jsonb)))",
                ),
                args![campaign_id.to_string(), ids],
                |r| {
                    Ok(RunPlace {
                        id: parse_id(r.str("id")?)?,
                        scenario_id: r.get("scenario_id")?,
                        number: r.get::<i64>("seq")? as u32 + 1,
                    })
                },
            )
        })
        .await
        .with_context(doing)
    }

    /// The places of the sessions `ids` of campaign `campaign_id` (those
    /// that exist), in no particular order. Sessions of one persona and
    /// goal of the seed set are counted together by start, and the
    /// sessions without a seed together: the place is kept as a session
    /// is created (migration 0028).
    pub async fn session_places(
        &self,
        campaign_id: CampaignId,
        ids: &[SessionId],
    ) -> Result<Vec<SessionPlace>> {
        let n = ids.len();
        let doing = move || format!("store: naming {n} sessions of campaign {campaign_id}");
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids = serde_json::to_string(ids).with_context(doing)?;
        self.read(move |c| {
            c.rows(
                Sql::dialects(
                    "SELECT s.id, s.persona, s.goal, s.seed_ordinal AS ordinal FROM json_each(?2) AS j
                     CROSS JOIN exploration_sessions AS s ON s.id = j.value WHERE s.campaign_id = ?1",
                    "SELECT id, persona, goal, seed_ordinal AS ordinal FROM exploration_sessions
                     WHERE campaign_id = ? AND id IN (SELECT jsonb_array_elements_text(CAST(? AS jsonb)))",
                ),
                args![campaign_id.to_string(), ids],
                |r| {
                    Ok(SessionPlace {
                        id: parse_id(r.str("id")?)?,
                        persona: r.get("persona")?,
                        goal: r.get("goal")?,
                        ordinal: r.get::<i64>("ordinal")? as u32,
                    })
                },
            )
        })
        .await
        .with_context(doing)
    }

    /// The names kept with the judge findings of campaign `campaign_id`
    /// (migration 0031): each reviewed session with a finding once, by
    /// start. A finding stored without them (none after the session
    /// tallies are filled again) leaves its session out.
    pub async fn reviewed_session_names(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<SessionName>> {
        self.read(move |c| {
            let mut names: Vec<SessionName> = Vec::new();
            c.each(
                // In the table's key order: a session's findings together.
                "SELECT session_id, persona_name, goal_title, seed_ordinal FROM session_findings
                 WHERE campaign_id = ? AND persona_name IS NOT NULL AND goal_title IS NOT NULL
                     AND seed_ordinal IS NOT NULL
                 ORDER BY started_at, session_id, seq",
                args![campaign_id.to_string()],
                |r| {
                    let id: SessionId = parse_id(r.str(0)?)?;
                    if names.last().is_none_or(|last| last.id != id) {
                        names.push(SessionName {
                            id,
                            persona: r.get(1)?,
                            goal: r.get(2)?,
                            ordinal: r.get::<i64>(3)? as u32,
                        });
                    }
                    Ok(())
                },
            )?;
            Ok(names)
        })
        .await
        .with_context(|| format!("store: naming the reviewed sessions of campaign {campaign_id}"))
    }
}
