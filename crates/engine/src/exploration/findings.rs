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
