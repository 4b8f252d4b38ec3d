//! The campaign report: one aggregation used by patrol, the report route,
//! the UI and every export. Fixed-scenario figures never include
//! exploration data. (Implementation in progress.)

use crate::campaign::Campaign;
use crate::error::Result;
use crate::exploration::findings::ExplorationFindings;
use crate::platform::Platform;
use crate::store::Db;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Fixed-scenario results. Pass rate = passed / (passed + failed); runs in
/// `error` are counted apart.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct FixedSummary {
    pub runs_planned: u32,
    pub runs_finished: u32,
    pub passed: u32,
    pub failed: u32,
    pub errors: u32,
    /// `None` when no run passed or failed yet.
    pub pass_rate: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CampaignReport {
    pub campaign: Campaign,
    pub generated_at: DateTime<Utc>,
    pub fixed: FixedSummary,
    /// Present only when the campaign has exploration data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exploration: Option<ExplorationFindings>,
}

/// Fixed-scenario figures of a campaign, over runs finished after `since`
/// when given (patrol's "new results").
pub async fn fixed_summary(
    _db: &Db,
    _campaign: &Campaign,
    _since: Option<DateTime<Utc>>,
) -> Result<FixedSummary> {
    Ok(FixedSummary::default())
}

impl Platform {
    pub async fn campaign_report(&self, id: Uuid) -> Result<CampaignReport> {
        let campaign = self.get_campaign(id).await?;
        let fixed = fixed_summary(&self.db, &campaign, None).await?;
        let exploration = crate::exploration::findings::campaign_findings(&self.db, id).await?;
        Ok(CampaignReport {
            campaign,
            generated_at: self.clock.now(),
            fixed,
            exploration,
        })
    }
}
