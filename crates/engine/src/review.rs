//! Human review: a reviewer rates any run or exploration session 1-5 (seed
//! 002's satisfaction score) with a comment, and may override the judge.
//! The report shows the ratings and how often judge and humans agree.

use crate::clock::{from_ms, to_ms};
use crate::error::{Error, Result};
use crate::platform::Platform;
use crate::target::parse_id;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use uuid::Uuid;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SubjectKind {
    Run,
    Session,
}

impl SubjectKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Run => "run",
            Self::Session => "session",
        }
    }
}

/// A reviewer's correction of the automatic verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct JudgeOverride {
    /// For runs: whether the run should count as passed in the reviewer's
    /// view. For sessions: ignored.
    #[serde(default)]
    pub passed: Option<bool>,
    /// For sessions: the reviewer's overall quality score 1-5 replacing
    /// the judge's.
    #[serde(default)]
    pub score: Option<u8>,
    #[serde(default)]
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CreateReview {
    pub subject_kind: SubjectKind,
    pub subject_id: Uuid,
    /// 1 (poor) to 5 (excellent).
    pub rating: u8,
    #[serde(default)]
    pub comment: String,
    #[serde(default)]
    pub judge_override: Option<JudgeOverride>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct HumanReview {
    pub id: Uuid,
    pub subject_kind: SubjectKind,
    pub subject_id: Uuid,
    pub rating: u8,
    pub comment: String,
    pub judge_override: Option<JudgeOverride>,
    pub created_at: DateTime<Utc>,
}

/// Human ratings of a campaign and their agreement with the automatic
/// verdicts (the latest rating per subject counts).
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct HumanReviewSummary {
    pub runs_rated: u32,
    pub run_rating_mean: Option<f64>,
    pub sessions_rated: u32,
    pub session_rating_mean: Option<f64>,
    pub overrides: u32,
    /// Subjects with both an automatic verdict and a human rating.
    pub compared: u32,
    /// Share of compared subjects where they agree: for runs, passed iff
    /// rated >= 3; for sessions, the judge's mean score within 1 of the
    /// rating.
    pub agreement: Option<f64>,
}

const MAX_COMMENT: usize = 4000;

impl Platform {
    /// Records a human review of a run or a session.
    pub async fn add_review(&self, req: CreateReview) -> Result<HumanReview> {
        if !(1..=5).contains(&req.rating) {
            return Err(Error::invalid(
                format!("rating must be 1-5, got {}", req.rating),
                "Rate 1 (poor) to 5 (excellent).",
            ));
        }
        if req.comment.chars().count() > MAX_COMMENT {
            return Err(Error::invalid(
                format!("comment is longer than {MAX_COMMENT} characters"),
                "Shorten the comment.",
            ));
        }
        if let Some(o) = &req.judge_override
            && o.score.is_some_and(|s| !(1..=5).contains(&s))
        {
            return Err(Error::invalid(
                "judge_override.score must be 1-5",
                "Give a score from 1 to 5.",
            ));
        }
        let table = match req.subject_kind {
            SubjectKind::Run => "runs",
            SubjectKind::Session => "exploration_sessions",
        };
        let exists: Option<i64> =
            sqlx::query_scalar(&format!("SELECT 1 FROM {table} WHERE id = ?"))
                .bind(req.subject_id.to_string())
                .fetch_optional(&self.store.pool)
                .await?;
        if exists.is_none() {
            return Err(Error::not_found(req.subject_kind.as_str(), req.subject_id));
        }
        let review = HumanReview {
            id: self.ids.next_id(),
            subject_kind: req.subject_kind,
            subject_id: req.subject_id,
            rating: req.rating,
            comment: req.comment.trim().to_string(),
            judge_override: req.judge_override,
            created_at: self.clock.now(),
        };
        sqlx::query(
            "INSERT INTO human_reviews (id, subject_kind, subject_id, rating, comment, judge_override, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(review.id.to_string())
        .bind(review.subject_kind.as_str())
        .bind(review.subject_id.to_string())
        .bind(i64::from(review.rating))
        .bind(&review.comment)
        .bind(review.judge_override.as_ref().map(serde_json::to_string).transpose()?)
        .bind(to_ms(review.created_at))
        .execute(&self.store.pool)
        .await?;
        self.audit("platform", "review.create", Some(review.subject_id), "ok")
            .await;
        Ok(review)
    }

    /// The reviews of one run or session, newest first.
    pub async fn reviews(&self, subject_id: Uuid) -> Result<Vec<HumanReview>> {
        let rows = sqlx::query(
            "SELECT * FROM human_reviews WHERE subject_id = ? ORDER BY created_at DESC, id DESC",
        )
        .bind(subject_id.to_string())
        .fetch_all(&self.store.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let kind: String = r.try_get("subject_kind")?;
                Ok(HumanReview {
                    id: parse_id(r.try_get("id")?)?,
                    subject_kind: if kind == "run" {
                        SubjectKind::Run
                    } else {
                        SubjectKind::Session
                    },
                    subject_id: parse_id(r.try_get("subject_id")?)?,
                    rating: r.try_get::<i64, _>("rating")? as u8,
                    comment: r.try_get("comment")?,
                    judge_override: r
                        .try_get::<Option<String>, _>("judge_override")?
                        .map(|s| serde_json::from_str(&s))
                        .transpose()?,
                    created_at: from_ms(r.try_get("created_at")?),
                })
            })
            .collect()
    }

    /// Ratings and judge-human agreement of a campaign; `None` when nobody
    /// rated anything in it.
    pub async fn review_summary(&self, campaign_id: Uuid) -> Result<Option<HumanReviewSummary>> {
        // Latest review per subject (ids are time-ordered UUID v7).
        let runs = sqlx::query(
            "SELECT h.rating, h.judge_override, r.verdict FROM human_reviews h JOIN runs r ON r.id = h.subject_id
             WHERE r.campaign_id = ? AND h.subject_kind = 'run'
               AND h.id = (SELECT max(id) FROM human_reviews WHERE subject_id = h.subject_id)",
        )
        .bind(campaign_id.to_string())
        .fetch_all(&self.store.pool)
        .await?;
        let sessions = sqlx::query(
            "SELECT h.rating, h.judge_override, s.judge_review FROM human_reviews h
             JOIN exploration_sessions s ON s.id = h.subject_id
             WHERE s.campaign_id = ? AND h.subject_kind = 'session'
               AND h.id = (SELECT max(id) FROM human_reviews WHERE subject_id = h.subject_id)",
        )
        .bind(campaign_id.to_string())
        .fetch_all(&self.store.pool)
        .await?;
        if runs.is_empty() && sessions.is_empty() {
            return Ok(None);
        }
        let mut s = HumanReviewSummary::default();
        let (mut agree, mut run_sum, mut session_sum) = (0u32, 0f64, 0f64);
        for r in &runs {
            let rating = r.try_get::<i64, _>("rating")? as f64;
            s.runs_rated += 1;
            run_sum += rating;
            s.overrides += u32::from(r.try_get::<Option<String>, _>("judge_override")?.is_some());
            let verdict: Option<String> = r.try_get("verdict")?;
            if let Some(v) = verdict.filter(|v| v == "passed" || v == "failed") {
                s.compared += 1;
                agree += u32::from((v == "passed") == (rating >= 3.0));
            }
        }
        for r in &sessions {
            let rating = r.try_get::<i64, _>("rating")? as f64;
            s.sessions_rated += 1;
            session_sum += rating;
            s.overrides += u32::from(r.try_get::<Option<String>, _>("judge_override")?.is_some());
            let review: Option<serde_json::Value> = r
                .try_get::<Option<String>, _>("judge_review")?
                .and_then(|j| serde_json::from_str(&j).ok());
            if let Some(score) = review.as_ref().and_then(judge_mean_score) {
                s.compared += 1;
                agree += u32::from((score - rating).abs() <= 1.0);
            }
        }
        s.run_rating_mean = (s.runs_rated > 0).then(|| run_sum / f64::from(s.runs_rated));
        s.session_rating_mean =
            (s.sessions_rated > 0).then(|| session_sum / f64::from(s.sessions_rated));
        s.agreement = (s.compared > 0).then(|| f64::from(agree) / f64::from(s.compared));
        Ok(Some(s))
    }
}

/// Mean of the judge's per-dimension scores (`dimensions.*.score`).
pub fn judge_mean_score(review: &serde_json::Value) -> Option<f64> {
    let dims = review.get("dimensions")?.as_object()?;
    let scores: Vec<f64> = dims
        .values()
        .filter_map(|d| d.get("score").and_then(serde_json::Value::as_f64))
        .collect();
    (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64)
}
