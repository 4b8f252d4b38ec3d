//! The calibration queries: judged sessions nobody labelled, people's
//! blind labels, and the judge's second passes.

use super::Store;
use agenteval_domain::calibration::{BlindLabel, CriterionScores};
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::parse_id;
use sqlx::Row;
use sqlx::sqlite::SqliteRow;
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

fn scores(r: &SqliteRow) -> Result<CriterionScores> {
    let score = |c: &str| -> Result<u8> { Ok(r.try_get::<i64, _>(c)? as u8) };
    Ok(CriterionScores {
        attitude: score("attitude")?,
        professionalism: score("professionalism")?,
        hallucination: score("hallucination")?,
    })
}

impl Store {
    /// How many judged sessions of a campaign with scores nobody labelled
    /// yet: counted in the database over the judged sessions only (index
    /// `sessions_judged`), for the calibration's figures in every report.
    pub async fn unlabelled_judged_session_count(&self, campaign_id: CampaignId) -> Result<u32> {
        let n: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM exploration_sessions s INDEXED BY sessions_judged
                 WHERE s.campaign_id = ? AND s.judge_status = 'done'
                   AND json_valid(s.judge_review)
                   AND json_type(s.judge_review, '$.dimensions') = 'object'
                   AND NOT EXISTS (SELECT 1 FROM judge_labels l WHERE l.session_id = s.id)",
        )
        .bind(campaign_id.to_string())
        .fetch_one(self.sqlite_pool()?)
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
        let doing =
            move || format!("store: reading the unlabelled sessions of campaign {campaign_id}");
        let rows = sqlx::query(
            "SELECT s.id, s.persona, s.goal, s.end_reason \
             FROM exploration_sessions s INDEXED BY sessions_judged WHERE s.campaign_id = ? \
             AND s.judge_status = 'done' AND json_valid(s.judge_review) \
             AND json_type(s.judge_review, '$.dimensions') = 'object' \
             AND NOT EXISTS (SELECT 1 FROM judge_labels l WHERE l.session_id = s.id) \
             ORDER BY s.ended_at, s.id LIMIT ?",
        )
        .bind(campaign_id.to_string())
        .bind(limit)
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(|r| {
                let json = |col: &str| -> serde_json::Value {
                    r.try_get::<String, _>(col)
                        .ok()
                        .and_then(|s| serde_json::from_str(&s).ok())
                        .unwrap_or(serde_json::Value::Null)
                };
                Ok(UnlabelledSession {
                    id: parse_id(r.try_get("id")?)?,
                    persona: json("persona"),
                    goal: json("goal"),
                    end_reason: r.try_get("end_reason")?,
                })
            })
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// How many sessions of a campaign people labelled.
    pub async fn label_count(&self, campaign_id: CampaignId) -> Result<u32> {
        let n: i64 = sqlx::query_scalar("SELECT count(*) FROM judge_labels WHERE campaign_id = ?")
            .bind(campaign_id.to_string())
            .fetch_one(self.sqlite_pool()?)
            .await
            .with_context(|| format!("store: counting the labels of campaign {campaign_id}"))?;
        Ok(n as u32)
    }

    /// A session's campaign and judgement; `None` when there is no such
    /// session.
    pub async fn judgement(&self, session_id: SessionId) -> Result<Option<Judgement>> {
        let doing = move || format!("store: reading the judgement of session {session_id}");
        let Some(row) = sqlx::query(
            "SELECT campaign_id, judge_status, judge_review FROM exploration_sessions WHERE id = ?",
        )
        .bind(session_id.to_string())
        .fetch_optional(self.sqlite_pool()?)
        .await
        .with_context(doing)?
        else {
            return Ok(None);
        };
        let judgement = || -> Result<Judgement> {
            Ok(Judgement {
                campaign_id: parse_id(row.try_get("campaign_id")?)?,
                judge_status: row.try_get("judge_status")?,
                judge_review: row.try_get("judge_review")?,
            })
        };
        judgement().with_context(doing).map(Some)
    }

    /// Stores a label unless its session has one; whether it was stored.
    pub async fn insert_label(&self, label: &BlindLabel) -> Result<bool> {
        let inserted = sqlx::query(
            "INSERT INTO judge_labels (id, campaign_id, session_id, attitude, professionalism, hallucination, reviewer, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(session_id) DO NOTHING",
        )
        .bind(label.id.to_string())
        .bind(label.campaign_id.to_string())
        .bind(label.session_id.to_string())
        .bind(i64::from(label.scores.attitude))
        .bind(i64::from(label.scores.professionalism))
        .bind(i64::from(label.scores.hallucination))
        .bind(&label.reviewer)
        .bind(to_ms(label.created_at))
        .execute(self.sqlite_pool()?)
        .await
        .with_context(|| format!("store: inserting the label of session {}", label.session_id))?
        .rows_affected();
        Ok(inserted > 0)
    }

    /// The labels of a campaign, oldest first.
    pub async fn labels(&self, campaign_id: CampaignId) -> Result<Vec<BlindLabel>> {
        let doing = move || format!("store: reading the labels of campaign {campaign_id}");
        let rows =
            sqlx::query("SELECT * FROM judge_labels WHERE campaign_id = ? ORDER BY created_at, id")
                .bind(campaign_id.to_string())
                .fetch_all(self.sqlite_pool()?)
                .await
                .with_context(doing)?;
        rows.iter()
            .map(|r| {
                Ok(BlindLabel {
                    id: parse_id(r.try_get("id")?)?,
                    campaign_id,
                    session_id: parse_id(r.try_get("session_id")?)?,
                    scores: scores(r)?,
                    reviewer: r.try_get("reviewer")?,
                    created_at: from_ms(r.try_get("created_at")?),
                })
            })
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// Each label of a campaign with the judge review (JSON) of its
    /// session, oldest first.
    pub async fn labels_with_reviews(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<(CriterionScores, Option<String>)>> {
        let doing =
            move || format!("store: reading the labels and reviews of campaign {campaign_id}");
        let rows = sqlx::query(
            "SELECT l.attitude, l.professionalism, l.hallucination, s.judge_review
             FROM judge_labels l JOIN exploration_sessions s ON s.id = l.session_id
             WHERE l.campaign_id = ? ORDER BY l.created_at, l.id",
        )
        .bind(campaign_id.to_string())
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(|r| Ok((scores(r)?, r.try_get("judge_review")?)))
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// The first and the second judge review (JSON) of each session of a
    /// campaign reviewed twice.
    pub async fn reviews_twice(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<(Option<String>, String)>> {
        let doing =
            move || format!("store: reading the second judge passes of campaign {campaign_id}");
        let rows = sqlx::query(
            "SELECT p.review, s.judge_review FROM judge_second_passes p
             JOIN exploration_sessions s ON s.id = p.session_id WHERE p.campaign_id = ?",
        )
        .bind(campaign_id.to_string())
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(|r| Ok((r.try_get("judge_review")?, r.try_get("review")?)))
            .collect::<Result<_>>()
            .with_context(doing)
    }
}
