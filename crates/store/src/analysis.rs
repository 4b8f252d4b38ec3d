//! The analyses of campaigns.

use super::Store;
use super::sql::args;
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::CampaignId;
use agenteval_domain::parse_id;
use agenteval_domain::report::Analysis;

impl Store {
    /// Stores an analysis.
    pub async fn insert_analysis(&self, analysis: &Analysis) -> Result<()> {
        let (id, campaign_id, model, offline, created_at) = (
            analysis.id,
            analysis.campaign_id,
            analysis.model.clone(),
            analysis.offline,
            to_ms(analysis.created_at),
        );
        let content = serde_json::to_string(analysis)?;
        self.write(move |c| {
            c.exec(
                "INSERT INTO analyses (id, campaign_id, model, offline, content, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                args![id.to_string(), campaign_id.to_string(), model, offline, content, created_at],
            )
        })
        .await
        .with_context(move || format!("store: inserting analysis {id}"))?;
        Ok(())
    }

    /// The most recent analysis of a campaign, if any.
    pub async fn latest_analysis(&self, campaign_id: CampaignId) -> Result<Option<Analysis>> {
        self.read(move |c| {
            c.row(
                "SELECT id, content, created_at FROM analyses WHERE campaign_id = ? ORDER BY created_at DESC, id DESC LIMIT 1",
                args![campaign_id.to_string()],
                |r| {
                    let mut a: Analysis = serde_json::from_str(r.str("content")?)?;
                    a.id = parse_id(r.str("id")?)?;
                    a.created_at = from_ms(r.get("created_at")?);
                    Ok(a)
                },
            )
        })
        .await
        .with_context(move || format!("store: reading the latest analysis of campaign {campaign_id}"))
    }
}
