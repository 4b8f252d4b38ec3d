//! The exploration block of the campaign report. (Implementation in progress.)

use serde::{Deserialize, Serialize};

/// Exploration findings of one campaign; absent from the report when the
/// campaign has no exploration data.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct ExplorationFindings {
    pub sessions_total: u32,
}

/// Aggregates the exploration findings of a campaign; `None` when it has no
/// exploration session.
pub async fn campaign_findings(
    _db: &crate::store::Db,
    _campaign_id: uuid::Uuid,
) -> crate::Result<Option<ExplorationFindings>> {
    Ok(None)
}
