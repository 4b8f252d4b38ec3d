//! Human reviews of runs and sessions, and the latest rating of each
//! subject with the automatic verdict it is compared with.

use crate::Store;
use crate::sql::{Row, args};
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::CampaignId;
use agenteval_domain::parse_id;
use agenteval_domain::review::{HumanReview, SubjectKind};
use agenteval_domain::run::Verdict;
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
        let (table, sql) = match kind {
            SubjectKind::Run => ("runs", "SELECT 1 FROM runs WHERE id = ?"),
            SubjectKind::Session => (
                "exploration_sessions",
                "SELECT 1 FROM exploration_sessions WHERE id = ?",
            ),
        };
        let exists = self
            .read(move |c| c.row(sql, args![id.to_string()], |_| Ok(())))
            .await
            .with_context(|| format!("store: looking up review subject {id} in {table}"))?;
        Ok(exists.is_some())
    }

    /// Stores a human review.
    pub async fn insert_review(&self, review: &HumanReview) -> Result<()> {
        let id = review.id;
        let (kind, subject_id, rating, comment, created_at) = (
            review.subject_kind.as_str(),
            review.subject_id.to_string(),
            i64::from(review.rating),
            review.comment.clone(),
            to_ms(review.created_at),
        );
        let judge_override = review
            .judge_override
            .as_ref()
            .map(serde_json::to_string)
            .transpose()?;
        self.write(move |c| {
            c.exec(
                "INSERT INTO human_reviews (id, subject_kind, subject_id, rating, comment, judge_override, created_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
                args![id.to_string(), kind, subject_id, rating, comment, judge_override, created_at],
            )
        })
        .await
        .with_context(|| format!("store: inserting review {id}"))?;
        Ok(())
    }

    /// The reviews of one run or session, newest first.
    pub async fn reviews_of(&self, subject_id: Uuid) -> Result<Vec<HumanReview>> {
        self.read(move |c| {
            c.rows(
                "SELECT * FROM human_reviews WHERE subject_id = ? ORDER BY created_at DESC, id DESC",
                args![subject_id.to_string()],
                review_from_row,
            )
        })
        .await
        .with_context(move || format!("store: reading the reviews of {subject_id}"))
    }

    /// The latest rating of each rated run of a campaign, with the run's
    /// verdict.
    pub async fn latest_run_ratings(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<LatestRating<Option<Verdict>>>> {
        // Latest review per subject (ids are time-ordered UUID v7).
        self.read(move |c| {
            c.rows(
                "SELECT h.rating, h.judge_override, r.verdict FROM human_reviews h JOIN runs r ON r.id = h.subject_id
                 WHERE r.campaign_id = ? AND h.subject_kind = 'run'
                   AND h.id = (SELECT max(id) FROM human_reviews WHERE subject_id = h.subject_id)",
                args![campaign_id.to_string()],
                |r| latest_rating(r, |r| Ok(r.text("verdict")?.and_then(Verdict::parse))),
            )
        })
        .await
        .with_context(move || format!("store: reading the run ratings of campaign {campaign_id}"))
    }

    /// The latest rating of each rated exploration session of a campaign,
    /// with the judge's review of the session (when it can be read).
    pub async fn latest_session_ratings(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<LatestRating<Option<serde_json::Value>>>> {
        self.read(move |c| {
            c.rows(
                "SELECT h.rating, h.judge_override, s.judge_review FROM human_reviews h
                 JOIN exploration_sessions s ON s.id = h.subject_id
                 WHERE s.campaign_id = ? AND h.subject_kind = 'session'
                   AND h.id = (SELECT max(id) FROM human_reviews WHERE subject_id = h.subject_id)",
                args![campaign_id.to_string()],
                |r| {
                    latest_rating(r, |r| {
                        Ok(r.text("judge_review")?
                            .and_then(|j| serde_json::from_str(j).ok()))
                    })
                },
            )
        })
        .await
        .with_context(move || {
            format!("store: reading the session ratings of campaign {campaign_id}")
        })
    }
}

/// A latest rating from its row, the automatic result read by `automatic`.
fn latest_rating<'r, T>(
    r: &Row<'r>,
    automatic: impl FnOnce(&Row<'r>) -> Result<T>,
) -> Result<LatestRating<T>> {
    Ok(LatestRating {
        rating: r.get::<i64>("rating")? as f64,
        overridden: r.text("judge_override")?.is_some(),
        automatic: automatic(r)?,
    })
}

fn review_from_row(r: &Row<'_>) -> Result<HumanReview> {
    Ok(HumanReview {
        id: parse_id(r.str("id")?)?,
        subject_kind: if r.str("subject_kind")? == "run" {
            SubjectKind::Run
        } else {
            SubjectKind::Session
        },
        subject_id: parse_id(r.str("subject_id")?)?,
        rating: r.get::<i64>("rating")? as u8,
        comment: r.get("comment")?,
        judge_override: r
            .text("judge_override")?
            .map(serde_json::from_str)
            .transpose()?,
        created_at: from_ms(r.get("created_at")?),
    })
}
