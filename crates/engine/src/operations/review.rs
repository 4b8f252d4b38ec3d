//! Human review: a reviewer rates any run or exploration session 1-5 (seed
//! 002's satisfaction score) with a comment, and may override the judge.
//! The report shows the ratings and how often judge and humans agree.

use crate::domain::ids::CampaignId;
use crate::domain::run::Verdict;
use crate::error::{Error, Result};
use crate::msg;
use crate::platform::Platform;
use uuid::Uuid;

pub use crate::domain::review::*;

const MAX_COMMENT: usize = 4000;

impl Platform {
    /// Records a human review of a run or a session.
    pub async fn add_review(&self, req: CreateReview) -> Result<HumanReview> {
        if !(1..=5).contains(&req.rating) {
            return Err(Error::out_of_range(
                "rating",
                1,
                5,
                req.rating,
                msg!("error-rating-suggestion"),
            ));
        }
        if req.comment.chars().count() > MAX_COMMENT {
            return Err(Error::invalid_msg(
                msg!("error-comment-too-long", max = MAX_COMMENT),
                msg!("error-comment-too-long-suggestion"),
            ));
        }
        if let Some(o) = &req.judge_override
            && o.score.is_some_and(|s| !(1..=5).contains(&s))
        {
            return Err(Error::invalid_msg(
                msg!("error-override-score"),
                msg!("error-override-score-suggestion"),
            ));
        }
        if !self
            .store
            .review_subject_exists(req.subject_kind, req.subject_id)
            .await?
        {
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
        self.store.insert_review(&review).await?;
        self.audit_operation("review.create", Some(review.subject_id), "ok")
            .await;
        Ok(review)
    }

    /// The reviews of one run or session, newest first.
    pub async fn reviews(&self, subject_id: Uuid) -> Result<Vec<HumanReview>> {
        self.store.reviews_of(subject_id).await
    }

    /// Ratings and judge-human agreement of a campaign; `None` when nobody
    /// rated anything in it.
    pub async fn review_summary(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Option<HumanReviewSummary>> {
        let runs = self.store.latest_run_ratings(campaign_id).await?;
        let sessions = self.store.latest_session_ratings(campaign_id).await?;
        if runs.is_empty() && sessions.is_empty() {
            return Ok(None);
        }
        let mut s = HumanReviewSummary::default();
        let (mut agree, mut run_sum, mut session_sum) = (0u32, 0f64, 0f64);
        for r in &runs {
            s.runs_rated += 1;
            run_sum += r.rating;
            s.overrides += u32::from(r.overridden);
            if let Some(v) = r
                .automatic
                .filter(|v| matches!(v, Verdict::Passed | Verdict::Failed))
            {
                s.compared += 1;
                agree += u32::from((v == Verdict::Passed) == (r.rating >= 3.0));
            }
        }
        for r in &sessions {
            s.sessions_rated += 1;
            session_sum += r.rating;
            s.overrides += u32::from(r.overridden);
            if let Some(score) = r.automatic.as_ref().and_then(judge_mean_score) {
                s.compared += 1;
                agree += u32::from((score - r.rating).abs() <= 1.0);
            }
        }
        s.run_rating_mean = (s.runs_rated > 0).then(|| run_sum / f64::from(s.runs_rated));
        s.session_rating_mean =
            (s.sessions_rated > 0).then(|| session_sum / f64::from(s.sessions_rated));
        s.agreement = (s.compared > 0).then(|| f64::from(agree) / f64::from(s.compared));
        Ok(Some(s))
    }
}
