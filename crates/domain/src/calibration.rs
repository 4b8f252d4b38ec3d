//! The judge calibrated against people: what a person's blind label of
//! the judge's work is, as stored.

use crate::ids::{CampaignId, RunId, SessionId};
use crate::judge::Dimensions;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A stored label of one rubric check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RunLabel {
    pub id: Uuid,
    pub campaign_id: CampaignId,
    pub run_id: RunId,
    pub check_index: u32,
    pub score: u8,
    pub reviewer: String,
    pub created_at: DateTime<Utc>,
}

/// A score per criterion, 1 (poor) to 5 (excellent); for hallucination,
/// 5 = nothing invented (the judge's own scale).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct CriterionScores {
    #[schema(minimum = 1, maximum = 5)]
    pub attitude: u8,
    #[schema(minimum = 1, maximum = 5)]
    pub professionalism: u8,
    #[schema(minimum = 1, maximum = 5)]
    pub hallucination: u8,
}

impl CriterionScores {
    pub fn each(&self) -> [(&'static str, u8); 3] {
        [
            ("attitude", self.attitude),
            ("professionalism", self.professionalism),
            ("hallucination", self.hallucination),
        ]
    }

    pub fn of(d: &Dimensions) -> Self {
        Self {
            attitude: d.attitude.score,
            professionalism: d.professionalism.score,
            hallucination: d.hallucination.score,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BlindLabel {
    pub id: Uuid,
    pub campaign_id: CampaignId,
    pub session_id: SessionId,
    pub scores: CriterionScores,
    pub reviewer: String,
    pub created_at: DateTime<Utc>,
}
