//! Human review: a reviewer rates any run or exploration session 1-5 (seed
//! 002's satisfaction score) with a comment, and may override the judge.
//! The report shows the ratings and how often judge and humans agree.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
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
    #[schema(minimum = 1, maximum = 5)]
    pub score: Option<u8>,
    #[serde(default)]
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CreateReview {
    pub subject_kind: SubjectKind,
    pub subject_id: Uuid,
    /// 1 (poor) to 5 (excellent).
    #[schema(minimum = 1, maximum = 5)]
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

/// Mean of the judge's per-dimension scores (`dimensions.*.score`).
pub fn judge_mean_score(review: &serde_json::Value) -> Option<f64> {
    let dims = review.get("dimensions")?.as_object()?;
    let scores: Vec<f64> = dims
        .values()
        .filter_map(|d| d.get("score").and_then(serde_json::Value::as_f64))
        .collect();
    (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64)
}
