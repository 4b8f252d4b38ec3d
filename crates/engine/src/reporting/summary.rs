//! What the campaign list shows of each campaign, from its tallies alone:
//! a list of campaigns of 100,000 runs reads a few rows per campaign, never
//! a report.

use crate::domain::ids::CampaignId;
use crate::error::Result;
use crate::platform::Platform;
use serde::{Deserialize, Serialize};

/// A campaign's headline figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CampaignSummary {
    pub campaign_id: CampaignId,
    /// Fixed runs planned, finished with a verdict (skipped ones apart),
    /// and of them in error.
    pub runs_planned: u32,
    pub runs_finished: u32,
    pub errors: u32,
    /// passed / (passed + failed); `None` before any verdict.
    pub pass_rate: Option<f64>,
    /// Sessions whose record says the goal was met, over the sessions with
    /// a record that counts; `None` without one.
    pub goal_achievement_rate: Option<f64>,
}

impl Platform {
    /// Every campaign's headline figures, in the order of
    /// [`Platform::list_campaigns`], read in one snapshot.
    pub async fn campaign_summaries(&self) -> Result<Vec<CampaignSummary>> {
        let ids: Vec<CampaignId> = self.list_campaigns().await?.iter().map(|c| c.id).collect();
        self.store
            .snapshot(move |read| {
                ids.into_iter()
                    .map(|id| {
                        let fixed = super::report::fixed_headline(read, id)?;
                        let (mut records, mut achieved) = (0u32, 0u32);
                        read.session_tallies(id, |g| {
                            let (r, a) = g.goal_counts();
                            records += r;
                            achieved += a;
                        })?;
                        Ok(CampaignSummary {
                            campaign_id: id,
                            runs_planned: fixed.runs_planned,
                            runs_finished: fixed.runs_finished,
                            errors: fixed.errors,
                            pass_rate: fixed.pass_rate,
                            goal_achievement_rate: (records > 0)
                                .then(|| f64::from(achieved) / f64::from(records)),
                        })
                    })
                    .collect()
            })
            .await
    }
}
