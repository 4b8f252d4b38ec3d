//! Human reviews of runs and sessions, and the latest rating of each
//! subject with the automatic verdict it is compared with.

use crate::Store;
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::CampaignId;
use agenteval_domain::parse_id;
use agenteval_domain::review::{HumanReview, SubjectKind};
use agenteval_domain::run::Verdict;
use sqlx::Row;
use sqlx::sqlite::SqliteRow;
use uuid::Uuid;

/// The latest human rating of a subject, beside its automatic result `T`.
pub struct LatestRating<T> {
    pub rating: f64,
    /// Whether the reviewer overrode the judge.
    pub overridden: bool,
    pub automatic: T,
}

impl Store {
    /// Whether the run or session `id` exists.
    pub async fn review_subject_exists(&self, kind: SubjectKind, id: Uuid) -> Result<bool> {
        let table = match kind {
            SubjectKind::Run => "runs",
            SubjectKind::Session => "exploration_sessions",
        };
        let exists: Option<i64> =
            sqlx::query_scalar(&format!("SELECT 1 FROM {table} WHERE id = ?"))
                .bind(id.to_string())
                .fetch_optional(self.sqlite_pool()?)
                .await
                .with_context(|| format!("store: looking up review subject {id} in {table}"))?;
        Ok(exists.is_some())
    }

    /// Stores a human review.
    pub async fn insert_review(&self, review: &HumanReview) -> Result<()> {
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
        .execute(self.sqlite_pool()?)
        .await
        .with_context(|| format!("store: inserting review {}", review.id))?;
        Ok(())
    }

    /// The reviews of one run or session, newest first.
    pub async fn reviews_of(&self, subject_id: Uuid) -> Result<Vec<HumanReview>> {
        let doing = move || format!("store: reading the reviews of {subject_id}");
        let rows = sqlx::query(
            "SELECT * FROM human_reviews WHERE subject_id = ? ORDER BY created_at DESC, id DESC",
        )
        .bind(subject_id.to_string())
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(review_from_row)
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// The latest rating of each rated run of a campaign, with the run's
    /// verdict.
    pub async fn latest_run_ratings(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<LatestRating<Option<Verdict>>>> {
        let doing = move || format!("store: reading the run ratings of campaign {campaign_id}");
        // Latest review per subject (ids are time-ordered UUID v7).
        let rows = sqlx::query(
            "SELECT h.rating, h.judge_override, r.verdict FROM human_reviews h JOIN runs r ON r.id = h.subject_id
             WHERE r.campaign_id = ? AND h.subject_kind = 'run'
               AND h.id = (SELECT max(id) FROM human_reviews WHERE subject_id = h.subject_id)",
        )
        .bind(campaign_id.to_string())
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(|r| {
                latest_rating(r, |r| {
                    Ok(r.try_get::<Option<String>, _>("verdict")?
                        .as_deref()
                        .and_then(Verdict::parse))
                })
            })
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// The latest rating of each rated exploration session of a campaign,
    /// with the judge's review of the session (when it can be read).
    pub async fn latest_session_ratings(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<LatestRating<Option<serde_json::Value>>>> {
        let doing = move || format!("store: reading the session ratings of campaign {campaign_id}");
        let rows = sqlx::query(
            "SELECT h.rating, h.judge_override, s.judge_review FROM human_reviews h
             JOIN exploration_sessions s ON s.id = h.subject_id
             WHERE s.campaign_id = ? AND h.subject_kind = 'session'
               AND h.id = (SELECT max(id) FROM human_reviews WHERE subject_id = h.subject_id)",
        )
        .bind(campaign_id.to_string())
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(|r| {
                latest_rating(r, |r| {
                    Ok(r.try_get::<Option<String>, _>("judge_review")?
                        .and_then(|j| serde_json::from_str(&j).ok()))
                })
            })
            .collect::<Result<_>>()
            .with_context(doing)
    }
}

/// A latest rating from its row, the automatic result read by `automatic`.
fn latest_rating<T>(
    r: &SqliteRow,
    automatic: impl FnOnce(&SqliteRow) -> Result<T>,
) -> Result<LatestRating<T>> {
    Ok(LatestRating {
        rating: r.try_get::<i64, _>("rating")? as f64,
        overridden: r.try_get::<Option<String>, _>("judge_override")?.is_some(),
        automatic: automatic(r)?,
    })
}

fn review_from_row(r: &SqliteRow) -> Result<HumanReview> {
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
}
