//! The exploration block of the campaign report, as stored: the session
//! tallies (migration 0009, kept by `session_tallies.rs`), read in a
//! snapshot and streamed to a callback without an allocation per row, and
//! the issue tally added to as sessions close (see
//! `agenteval_engine::findings`).

use super::sql::{Row, Sql, args};
use super::{Read, Tx};
use agenteval_domain::campaign::SeedSet;
use agenteval_domain::error::{Context, Error, Result};
use agenteval_domain::findings::{
    ISSUE_SESSIONS_LISTED, ISSUE_TEXTS_LISTED, IssueKind, JudgeFinding, SessionGroup,
};
use agenteval_domain::i18n::Text;
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::parse_id;
use agenteval_domain::session::{EndReason, Trigger};

/// A count column, as the report takes it.
fn count(row: &Row<'_>, column: &str) -> Result<u32> {
    u32::try_from(row.get::<i64>(column)?).map_err(Error::internal)
}

impl Read<'_> {
    /// The seed set of campaign `campaign_id`; `None` when there is no such
    /// campaign.
    pub fn campaign_seed_set(&self, campaign_id: CampaignId) -> Result<Option<SeedSet>> {
        self.0
            .row(
                "SELECT seed_set FROM campaigns WHERE id = ?",
                args![campaign_id.to_string()],
                |r| Ok(r.text(0)?.map(serde_json::from_str).transpose()?),
            )
            .map(Option::flatten)
            .with_context(move || format!("store: reading the seed set of campaign {campaign_id}"))
    }

    /// Streams a campaign's session tallies (sessions alike in what the
    /// report counts) to `each`.
    pub fn session_tallies(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(SessionGroup<'_>),
    ) -> Result<()> {
        self.0
            .each(
                "SELECT * FROM session_tally WHERE campaign_id = ? AND sessions > 0",
                args![campaign_id.to_string()],
                |row| {
                    let seeded: bool = row.get("seeded")?;
                    let seed = match seeded {
                        true => Some((
                            row.text("persona_id")?.unwrap_or_default(),
                            row.text("goal_id")?.unwrap_or_default(),
                        )),
                        false => None,
                    };
                    each(SessionGroup {
                        status: row.text("status")?.unwrap_or_default(),
                        end_reason: row.text("end_reason")?.and_then(EndReason::parse),
                        trigger: match row.text("trigger_kind")? {
                            Some("manual") => Trigger::Manual,
                            _ => Trigger::Auto,
                        },
                        judge_status: row.text("judge_status")?.unwrap_or_default(),
                        seed,
                        has_experience: row.get("has_experience")?,
                        record: row.get("record")?,
                        goal_achieved: row.get("goal_achieved")?,
                        emotion: row.text("emotion")?.unwrap_or_default(),
                        simulator_fault: row.get("simulator_fault")?,
                        sessions: count(row, "sessions")?,
                        issues: count(row, "issues")?,
                    });
                    Ok(())
                },
            )
            .with_context(|| {
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
        self.0
            .each(
                "SELECT kind, sessions, faults FROM session_fault_tally
                 WHERE campaign_id = ? AND sessions > 0",
                args![campaign_id.to_string()],
                |row| {
                    each(
                        row.text("kind")?.unwrap_or_default(),
                        count(row, "sessions")?,
                        count(row, "faults")?,
                    );
                    Ok(())
                },
            )
            .with_context(|| {
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
        self.0
            .each(
                "SELECT name, score_sum, count FROM session_dimension_tally
                 WHERE campaign_id = ? AND count > 0",
                args![campaign_id.to_string()],
                |row| {
                    each(
                        row.text("name")?.unwrap_or_default(),
                        row.get("score_sum")?,
                        count(row, "count")?,
                    );
                    Ok(())
                },
            )
            .with_context(|| {
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
        self.0
            .each(
                "SELECT kind, key, text, sessions, session_ids, texts FROM session_issue_tally
                 WHERE campaign_id = ?",
                args![campaign_id.to_string()],
                |row| {
                    let kind = match row.text("kind")? {
                        Some("misled") => IssueKind::Misled,
                        _ => IssueKind::Blocker,
                    };
                    let ids: Vec<SessionId> =
                        serde_json::from_str(row.text("session_ids")?.unwrap_or("[]"))?;
                    let texts: Vec<String> =
                        serde_json::from_str(row.text("texts")?.unwrap_or("[]"))?;
                    each(
                        kind,
                        row.get("key")?,
                        row.text("text")?.unwrap_or_default(),
                        &texts,
                        count(row, "sessions")?,
                        &ids,
                    );
                    Ok(())
                },
            )
            .with_context(|| format!("store: reading the issue tallies of campaign {campaign_id}"))
    }

    /// Streams the judge findings of a campaign's reviewed sessions to
    /// `each`, by session start then in the review's order.
    pub fn judge_findings(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(JudgeFinding),
    ) -> Result<()> {
        self.0
            .each(
                "SELECT session_id, severity, dimension, text, evidence, turn, step FROM session_findings
                 WHERE campaign_id = ? ORDER BY started_at, session_id, seq",
                args![campaign_id.to_string()],
                |row| {
                    each(JudgeFinding {
                        session_id: parse_id(row.text("session_id")?.unwrap_or_default())?,
                        severity: row.get("severity")?,
                        dimension: row.get("dimension")?,
                        // A message is kept as its JSON (Text::to_key).
                        text: Text::from_key(&row.get::<String>("text")?),
                        evidence: row
                            .get::<Option<String>>("evidence")?
                            .map(|e| Text::from_key(&e)),
                        turn: whole(row.get("turn")?)?,
                        step: whole(row.get("step")?)?,
                    });
                    Ok(())
                },
            )
            .with_context(|| format!("store: reading the judge findings of campaign {campaign_id}"))
    }

    /// Streams who judged a campaign's reviewed sessions to `each` (the
    /// model's name, else the review's method), each once, the judge of
    /// the most sessions first (from the judge tally, migration 0029).
    pub fn session_judges(
        &self,
        campaign_id: CampaignId,
        mut each: impl FnMut(&str),
    ) -> Result<()> {
        self.0
            .each(
                "SELECT judge FROM session_judge_tally WHERE campaign_id = ? AND sessions > 0
                 ORDER BY sessions DESC, judge",
                args![campaign_id.to_string()],
                |row| {
                    each(row.str(0)?);
                    Ok(())
                },
            )
            .with_context(|| format!("store: reading the judges of campaign {campaign_id}"))
    }
}

impl Tx<'_> {
    /// Adds a closed session's issues (kind, key, text as written) to its
    /// campaign's issue tally (migration 0009).
    pub fn add_session_issues(
        &self,
        campaign_id: CampaignId,
        session_id: SessionId,
        issues: &[(IssueKind, String, String)],
    ) -> Result<()> {
        // As each session closes (a hot path): the context is static.
        let doing = "store: adding a session's issues to its campaign's tally";
        let (campaign_id, session_id) = (campaign_id.to_string(), session_id.to_string());
        for (kind, key, text) in issues {
            self.0
                .exec(
                    Sql::dialects(
                        "INSERT INTO session_issue_tally (campaign_id, kind, key, text, sessions, session_ids, texts)
                         VALUES (?1, ?2, ?3, ?4, 1, json_array(?5), json_array(?4))
                         ON CONFLICT DO UPDATE SET sessions = sessions + 1,
                             session_ids = CASE WHEN json_array_length(session_ids) < ?6
                                                THEN json_insert(session_ids, '$[#]', ?5) ELSE session_ids END,
                             texts = CASE WHEN json_array_length(texts) < ?7
                                               AND NOT EXISTS (SELECT 1 FROM json_each(texts) WHERE value = ?4)
                                          THEN json_insert(texts, '$[#]', ?4) ELSE texts END",
                        "INSERT INTO session_issue_tally (campaign_id, kind, key, text, sessions, session_ids, texts)
                         VALUES ($1, $2, $3, $4, 1, CAST(jsonb_build_array(CAST($5 AS text)) AS text),
                                 CAST(jsonb_build_array(CAST($4 AS text)) AS text))
                         ON CONFLICT (campaign_id, kind, key) DO UPDATE SET sessions = session_issue_tally.sessions + 1,
                             session_ids = CASE WHEN jsonb_array_length(CAST(session_issue_tally.session_ids AS jsonb)) < $6
                                 THEN CAST(CAST(session_issue_tally.session_ids AS jsonb)
                                           || jsonb_build_array(CAST($5 AS text)) AS text)
                                 ELSE session_issue_tally.session_ids END,
                             texts = CASE WHEN jsonb_array_length(CAST(session_issue_tally.texts AS jsonb)) < $7
                                               AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(
                                                   CAST(session_issue_tally.texts AS jsonb)) AS t (value)
                                                   WHERE t.value = $4)
                                 THEN CAST(CAST(session_issue_tally.texts AS jsonb)
                                           || jsonb_build_array(CAST($4 AS text)) AS text)
                                 ELSE session_issue_tally.texts END",
                    ),
                    args![
                        &campaign_id,
                        kind.as_str(),
                        key,
                        text,
                        &session_id,
                        ISSUE_SESSIONS_LISTED as i64,
                        ISSUE_TEXTS_LISTED as i64,
                    ],
                )
                .context(doing)?;
        }
        Ok(())
    }
}

/// A stored 1-based position (a turn, a step) as the domain counts it.
fn whole(v: Option<i64>) -> Result<Option<u32>> {
    v.map(u32::try_from).transpose().map_err(Error::internal)
}
