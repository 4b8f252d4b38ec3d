//! The calibration queries: judged sessions nobody labelled, people's
//! blind labels, and the judge's second passes.

use super::Store;
use super::sql::{Row, Sql, args};
use agenteval_domain::calibration::{BlindLabel, CriterionScores};
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::parse_id;
use uuid::Uuid;

/// A judged session of a campaign that nobody labelled yet.
pub struct UnlabelledSession {
    pub id: Uuid,
    pub persona: serde_json::Value,
    pub goal: serde_json::Value,
    pub end_reason: Option<String>,
}

/// What a label is checked against: a session's campaign and judgement.
pub struct Judgement {
    pub campaign_id: CampaignId,
    pub judge_status: String,
    pub judge_review: Option<String>,
}

fn scores(r: &Row<'_>) -> Result<CriterionScores> {
    let score = |c: &str| -> Result<u8> { Ok(r.get::<i64>(c)? as u8) };
    Ok(CriterionScores {
        attitude: score("attitude")?,
        professionalism: score("professionalism")?,
        hallucination: score("hallucination")?,
    })
}

/// The judged sessions of a campaign with scores that nobody labelled:
/// a review of JSON whose `dimensions` is an object. SQLite checks that the
/// review parses; on PostgreSQL every review is a document the store wrote,
/// read as `json` with its `\u0000` escapes (which PostgreSQL refuses to
/// parse) turned into `\u0001` first: only the type of `dimensions` is
/// looked at. Counted as the session tallies count the scored sessions
/// (`session_scored_tally`) less those a person labelled (few: only their
/// reviews are read), so that a report reads no review of its own.
const COUNT_UNLABELLED: Sql = Sql::dialects(
    "SELECT coalesce((SELECT sessions FROM session_scored_tally WHERE campaign_id = ?1), 0)
          - (SELECT count(*) FROM exploration_sessions s
             WHERE s.campaign_id = ?1
               AND s.id IN (SELECT session_id FROM judge_labels WHERE campaign_id = ?1)
               AND s.judge_status = 'done' AND json_valid(s.judge_review)
               AND json_type(s.judge_review, '$.dimensions') = 'object')",
    r"SELECT CAST(coalesce((SELECT sessions FROM session_scored_tally WHERE campaign_id = $1), 0)
          - (SELECT count(*) FROM exploration_sessions s
             WHERE s.campaign_id = $1
               AND s.id IN (SELECT session_id FROM judge_labels WHERE campaign_id = $1)
               AND s.judge_status = 'done'
               AND json_typeof(CAST(replace(s.judge_review, E'\\u0000', E'\\u0001') AS json) -> 'dimensions') = 'object')
          AS BIGINT)",
);

/// The first of those sessions, in the order they ended.
const UNLABELLED: Sql = Sql::dialects(
    "SELECT s.id, s.persona, s.goal, s.end_reason
     FROM exploration_sessions s INDEXED BY sessions_judged WHERE s.campaign_id = ?
       AND s.judge_status = 'done' AND json_valid(s.judge_review)
       AND json_type(s.judge_review, '$.dimensions') = 'object'
       AND NOT EXISTS (SELECT 1 FROM judge_labels l WHERE l.session_id = s.id)
     ORDER BY s.ended_at, s.id LIMIT ?",
    r"SELECT s.id, s.persona, s.goal, s.end_reason
     FROM exploration_sessions s WHERE s.campaign_id = ?
       AND s.judge_status = 'done'
       AND json_typeof(CAST(replace(s.judge_review, E'\\u0000', E'\\u0001') AS json) -> 'dimensions') = 'object'
       AND NOT EXISTS (SELECT 1 FROM judge_labels l WHERE l.session_id = s.id)
     ORDER BY s.ended_at NULLS FIRST, s.id LIMIT ?",
);

impl Store {
    /// How many judged sessions of a campaign with scores nobody labelled
    /// yet, for the calibration's figures in every report: from the session
    /// tallies (see [`COUNT_UNLABELLED`]).
    pub async fn unlabelled_judged_session_count(&self, campaign_id: CampaignId) -> Result<u32> {
        let n: i64 = self
            .read(move |c| c.value(COUNT_UNLABELLED, args![campaign_id.to_string()]))
            .await
            .with_context(|| {
                format!("store: counting the unlabelled judged sessions of campaign {campaign_id}")
            })?;
        Ok(n as u32)
    }

    /// The first `limit` judged sessions with scores of a campaign that
    /// nobody labelled, in the order they ended (the same sessions
    /// [`Store::unlabelled_judged_session_count`] counts).
    pub async fn unlabelled_judged_sessions(
        &self,
        campaign_id: CampaignId,
        limit: u32,
    ) -> Result<Vec<UnlabelledSession>> {
        self.read(move |c| {
            c.rows(UNLABELLED, args![campaign_id.to_string(), limit], |r| {
                let json = |col: &str| -> serde_json::Value {
                    r.text(col)
                        .ok()
                        .flatten()
                        .and_then(|s| serde_json::from_str(s).ok())
                        .unwrap_or(serde_json::Value::Null)
                };
                Ok(UnlabelledSession {
                    id: r.uuid("id")?,
                    persona: json("persona"),
                    goal: json("goal"),
                    end_reason: r.get("end_reason")?,
                })
            })
        })
        .await
        .with_context(move || {
            format!("store: reading the unlabelled sessions of campaign {campaign_id}")
        })
    }

    /// How many sessions of a campaign people labelled.
    pub async fn label_count(&self, campaign_id: CampaignId) -> Result<u32> {
        let n: i64 = self
            .read(move |c| {
                c.value(
                    "SELECT count(*) FROM judge_labels WHERE campaign_id = ?",
                    args![campaign_id.to_string()],
                )
            })
            .await
            .with_context(|| format!("store: counting the labels of campaign {campaign_id}"))?;
        Ok(n as u32)
    }

    /// A session's campaign and judgement; `None` when there is no such
    /// session.
    pub async fn judgement(&self, session_id: SessionId) -> Result<Option<Judgement>> {
        self.read(move |c| {
            c.row(
                "SELECT campaign_id, judge_status, judge_review FROM exploration_sessions WHERE id = ?",
                args![session_id.to_string()],
                |r| {
                    Ok(Judgement {
                        campaign_id: parse_id(r.str("campaign_id")?)?,
                        judge_status: r.get("judge_status")?,
                        judge_review: r.get("judge_review")?,
                    })
                },
            )
        })
        .await
        .with_context(move || format!("store: reading the judgement of session {session_id}"))
    }

    /// Stores a label unless its session has one; whether it was stored.
    pub async fn insert_label(&self, label: &BlindLabel) -> Result<bool> {
        let session_id = label.session_id;
        let (id, campaign_id, reviewer, created_at) = (
            label.id.to_string(),
            label.campaign_id.to_string(),
            label.reviewer.clone(),
            to_ms(label.created_at),
        );
        let scores = label.scores;
        let inserted = self
            .write(move |c| {
                c.exec(
                    "INSERT INTO judge_labels (id, campaign_id, session_id, attitude, professionalism, hallucination, reviewer, created_at)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING",
                    args![
                        id,
                        campaign_id,
                        session_id.to_string(),
                        i64::from(scores.attitude),
                        i64::from(scores.professionalism),
                        i64::from(scores.hallucination),
                        reviewer,
                        created_at,
                    ],
                )
            })
            .await
            .with_context(move || format!("store: inserting the label of session {session_id}"))?;
        Ok(inserted > 0)
    }

    /// The labels of a campaign, oldest first.
    pub async fn labels(&self, campaign_id: CampaignId) -> Result<Vec<BlindLabel>> {
        self.read(move |c| {
            c.rows(
                "SELECT * FROM judge_labels WHERE campaign_id = ? ORDER BY created_at, id",
                args![campaign_id.to_string()],
                |r| {
                    Ok(BlindLabel {
                        id: parse_id(r.str("id")?)?,
                        campaign_id,
                        session_id: parse_id(r.str("session_id")?)?,
                        scores: scores(r)?,
                        reviewer: r.get("reviewer")?,
                        created_at: from_ms(r.get("created_at")?),
                    })
                },
            )
        })
        .await
        .with_context(move || format!("store: reading the labels of campaign {campaign_id}"))
    }

    /// Each label of a campaign with the judge review (JSON) of its
    /// session, oldest first.
    pub async fn labels_with_reviews(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<(CriterionScores, Option<String>)>> {
        self.read(move |c| {
            c.rows(
                "SELECT l.attitude, l.professionalism, l.hallucination, s.judge_review
                 FROM judge_labels l JOIN exploration_sessions s ON s.id = l.session_id
                 WHERE l.campaign_id = ? ORDER BY l.created_at, l.id",
                args![campaign_id.to_string()],
                |r| Ok((scores(r)?, r.get("judge_review")?)),
            )
        })
        .await
        .with_context(move || {
            format!("store: reading the labels and reviews of campaign {campaign_id}")
        })
    }

    /// The first and the second judge review (JSON) of each session of a
    /// campaign reviewed twice.
    pub async fn reviews_twice(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<(Option<String>, String)>> {
        self.read(move |c| {
            c.rows(
                "SELECT p.review, s.judge_review FROM judge_second_passes p
                 JOIN exploration_sessions s ON s.id = p.session_id WHERE p.campaign_id = ?",
                args![campaign_id.to_string()],
                |r| Ok((r.get("judge_review")?, r.get("review")?)),
            )
        })
        .await
        .with_context(move || {
            format!("store: reading the second judge passes of campaign {campaign_id}")
        })
    }
}
