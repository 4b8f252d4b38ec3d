//! The judge calibrated against people: what a person's blind label of
//! the judge's work is, as stored.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A stored label of one rubric check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RunLabel {
    pub id: Uuid,
    pub campaign_id: Uuid,
    pub run_id: Uuid,
    pub check_index: u32,
    pub score: u8,
    pub reviewer: String,
    pub created_at: DateTime<Utc>,
}
