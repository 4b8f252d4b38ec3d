//! The exploration block of the campaign report, as stored: the session
//! tallies (migration 0009, kept by `session_tallies.rs`), read in a
//! snapshot and streamed to a callback without an allocation per row, and
//! the issue tally added to as sessions close (see
//! `agenteval_engine::findings`).

use super::{Read, Tx, text};
use agenteval_domain::campaign::SeedSet;
use agenteval_domain::error::{Context, Result};
use agenteval_domain::findings::{
    ISSUE_SESSIONS_LISTED, ISSUE_TEXTS_LISTED, IssueKind, JudgeFinding, SessionGroup,
};
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::parse_id;
use agenteval_domain::session::{EndReason, Trigger};
use rusqlite::{OptionalExtension, params};

impl Read<'_> {
    /// The seed set of campaign `campaign_id`; `None` when there is no such
    /// campaign.
    pub fn campaign_seed_set(&self, campaign_id: CampaignId) -> Result<Option<SeedSet>> {
        let doing = move || format!("store: reading the seed set of campaign {campaign_id}");
        let seed_set: Option<String> = self
            .sqlite()?
            .prepare_cached("SELECT seed_set FROM campaigns WHERE id = ?")
            .and_then(|mut st| {
                st.query_row([campaign_id.to_string()], |r| r.get(0))
                    .optional()
            })
            .with_context(doing)?;
        seed_set
            .map(|s| serde_json::from_str(&s))
            .transpose()
            .with_context(doing)
    }

    /// Streams a campaign's session tallies (sessions alike in what the
    /// report counts) to `each`.
    pub fn session_tallies(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(SessionGroup<'_>),
    ) -> Result<()> {
        let mut read = || -> Result<()> {
            let mut statement = self.sqlite()?.prepare_cached(
                "SELECT * FROM session_tally WHERE campaign_id = ? AND sessions > 0",
            )?;
            let mut rows = statement.query([campaign_id.to_string()])?;
            while let Some(row) = rows.next()? {
                let seeded: bool = row.get("seeded")?;
                let seed = match seeded {
                    true => Some((
                        text(row, "persona_id")?.unwrap_or_default(),
                        text(row, "goal_id")?.unwrap_or_default(),
                    )),
                    false => None,
                };
                each(SessionGroup {
                    status: text(row, "status")?.unwrap_or_default(),
                    end_reason: text(row, "end_reason")?.and_then(EndReason::parse),
                    trigger: match text(row, "trigger_kind")? {
                        Some("manual") => Trigger::Manual,
                        _ => Trigger::Auto,
                    },
                    judge_status: text(row, "judge_status")?.unwrap_or_default(),
                    seed,
                    has_experience: row.get("has_experience")?,
                    record: row.get("record")?,
                    goal_achieved: row.get("goal_achieved")?,
                    emotion: text(row, "emotion")?.unwrap_or_default(),
                    simulator_fault: row.get("simulator_fault")?,
                    sessions: row.get("sessions")?,
                    issues: row.get("issues")?,
                });
            }
            Ok(())
        };
        read().with_context(|| {
            format!("store: reading the session tallies of campaign {campaign_id}")
        })
    }

    /// Streams a campaign's simulator fault tallies to `each` (fault kind,
    /// sessions, faults).
    pub fn fault_tallies(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(&str, u32, u32),
    ) -> Result<()> {
        let mut read = || -> Result<()> {
            let mut statement = self.sqlite()?.prepare_cached(
                "SELECT kind, sessions, faults FROM session_fault_tally
                 WHERE campaign_id = ? AND sessions > 0",
            )?;
            let mut rows = statement.query([campaign_id.to_string()])?;
            while let Some(row) = rows.next()? {
                each(
                    text(row, "kind")?.unwrap_or_default(),
                    row.get("sessions")?,
                    row.get("faults")?,
                );
            }
            Ok(())
        };
        read().with_context(|| {
            format!("store: reading the simulator fault tallies of campaign {campaign_id}")
        })
    }

    /// Streams a campaign's judge score tallies to `each` (dimension, sum
    /// of scores, count).
    pub fn dimension_tallies(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(&str, f64, u32),
    ) -> Result<()> {
        let mut read = || -> Result<()> {
            let mut statement = self.sqlite()?.prepare_cached(
                "SELECT name, score_sum, count FROM session_dimension_tally
                 WHERE campaign_id = ? AND count > 0",
            )?;
            let mut rows = statement.query([campaign_id.to_string()])?;
            while let Some(row) = rows.next()? {
                each(
                    text(row, "name")?.unwrap_or_default(),
                    row.get("score_sum")?,
                    row.get("count")?,
                );
            }
            Ok(())
        };
        read().with_context(|| {
            format!("store: reading the judge score tallies of campaign {campaign_id}")
        })
    }

    /// Streams a campaign's issue tallies to `each` (kind, key, first text,
    /// other phrasings, sessions, the first sessions listed).
    pub fn issue_tallies(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(IssueKind, String, &str, &[String], u32, &[SessionId]),
    ) -> Result<()> {
        let mut read = || -> Result<()> {
            let mut statement = self.sqlite()?.prepare_cached(
                "SELECT kind, key, text, sessions, session_ids, texts FROM session_issue_tally
                 WHERE campaign_id = ?",
            )?;
            let mut rows = statement.query([campaign_id.to_string()])?;
            while let Some(row) = rows.next()? {
                let kind = match text(row, "kind")? {
                    Some("misled") => IssueKind::Misled,
                    _ => IssueKind::Blocker,
                };
                let ids: Vec<SessionId> =
                    serde_json::from_str(text(row, "session_ids")?.unwrap_or("[]"))?;
                let texts: Vec<String> = serde_json::from_str(text(row, "texts")?.unwrap_or("[]"))?;
                each(
                    kind,
                    row.get("key")?,
                    text(row, "text")?.unwrap_or_default(),
                    &texts,
                    row.get("sessions")?,
                    &ids,
                );
            }
            Ok(())
        };
        read()
            .with_context(|| format!("store: reading the issue tallies of campaign {campaign_id}"))
    }

    /// Streams the judge findings of a campaign's reviewed sessions to
    /// `each`, by session start then in the review's order.
    pub fn judge_findings(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(JudgeFinding),
    ) -> Result<()> {
        let mut read = || -> Result<()> {
            let mut statement = self.sqlite()?.prepare_cached(
                "SELECT session_id, severity, dimension, text, evidence, turn FROM session_findings
                 WHERE campaign_id = ? ORDER BY started_at, session_id, seq",
            )?;
            let mut rows = statement.query([campaign_id.to_string()])?;
            while let Some(row) = rows.next()? {
                each(JudgeFinding {
                    session_id: parse_id(text(row, "session_id")?.unwrap_or_default())?,
                    severity: row.get("severity")?,
                    dimension: row.get("dimension")?,
                    text: row.get("text")?,
                    evidence: row.get("evidence")?,
                    turn: row.get("turn")?,
                });
            }
            Ok(())
        };
        read()
            .with_context(|| format!("store: reading the judge findings of campaign {campaign_id}"))
    }

    /// Streams who judged a campaign's reviewed sessions to `each` (the
    /// model's name, else the review's method), each once.
    pub fn session_judges(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(&str),
    ) -> Result<()> {
        let mut read = || -> Result<()> {
            // Read from the reviews of the campaign's sessions (a campaign's
            // sessions are bounded by its budget).
            let mut statement = self.sqlite()?.prepare_cached(
                "SELECT DISTINCT coalesce(nullif(judge_review ->> '$.model', ''), judge_review ->> '$.method')
                 FROM exploration_sessions
                 WHERE campaign_id = ? AND judge_status = 'done' AND json_valid(judge_review)",
            )?;
            let mut rows = statement.query([campaign_id.to_string()])?;
            while let Some(row) = rows.next()? {
                if let Some(judge) = row.get_ref(0)?.as_str_or_null().ok().flatten() {
                    each(judge);
                }
            }
            Ok(())
        };
        read().with_context(|| format!("store: reading the judges of campaign {campaign_id}"))
    }
}

impl Tx<'_> {
    /// Adds a closed session's issues (kind, key, text as written) to its
    /// campaign's issue tally (migration 0009).
    pub fn add_session_issues(
        &self,
        campaign_id: CampaignId,
        session_id: SessionId,
        issues: &[(IssueKind, String, &str)],
    ) -> Result<()> {
        // As each session closes (a hot path): the context is static.
        let doing = "store: adding a session's issues to its campaign's tally";
        let mut upsert = self.sqlite()?.prepare_cached(
            "INSERT INTO session_issue_tally (campaign_id, kind, key, text, sessions, session_ids, texts)
             VALUES (?1, ?2, ?3, ?4, 1, json_array(?5), json_array(?4))
             ON CONFLICT DO UPDATE SET sessions = sessions + 1,
                 session_ids = CASE WHEN json_array_length(session_ids) < ?6
                                    THEN json_insert(session_ids, '$[#]', ?5) ELSE session_ids END,
                 texts = CASE WHEN json_array_length(texts) < ?7
                                   AND NOT EXISTS (SELECT 1 FROM json_each(texts) WHERE value = ?4)
                              THEN json_insert(texts, '$[#]', ?4) ELSE texts END",
        )
        .context(doing)?;
        for (kind, key, text) in issues {
            upsert
                .execute(params![
                    campaign_id.to_string(),
                    kind.as_str(),
                    key,
                    text,
                    session_id.to_string(),
                    ISSUE_SESSIONS_LISTED as i64,
                    ISSUE_TEXTS_LISTED as i64,
                ])
                .context(doing)?;
        }
        Ok(())
    }
}
