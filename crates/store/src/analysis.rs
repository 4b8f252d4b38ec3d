//! The analyses of campaigns.

use super::Store;
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::CampaignId;
use agenteval_domain::parse_id;
use agenteval_domain::report::Analysis;
use sqlx::Row;

impl Store {
    /// Stores an analysis.
    pub async fn insert_analysis(&self, analysis: &Analysis) -> Result<()> {
        sqlx::query(
            "INSERT INTO analyses (id, campaign_id, model, offline, content, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .bind(analysis.id.to_string())
        .bind(analysis.campaign_id.to_string())
        .bind(&analysis.model)
        .bind(analysis.offline)
        .bind(serde_json::to_string(analysis)?)
        .bind(to_ms(analysis.created_at))
        .execute(&self.pool)
        .await
        .with_context(|| format!("store: inserting analysis {}", analysis.id))?;
        Ok(())
    }

    /// The most recent analysis of a campaign, if any.
    pub async fn latest_analysis(&self, campaign_id: CampaignId) -> Result<Option<Analysis>> {
        let doing = move || format!("store: reading the latest analysis of campaign {campaign_id}");
        let row = sqlx::query(
            "SELECT id, content, created_at FROM analyses WHERE campaign_id = ? ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .bind(campaign_id.to_string())
        .fetch_optional(&self.pool)
        .await
        .with_context(doing)?;
        row.map(|r| -> Result<Analysis> {
            let mut a: Analysis = serde_json::from_str(r.try_get("content")?)?;
            a.id = parse_id(r.try_get("id")?)?;
            a.created_at = from_ms(r.try_get("created_at")?);
            Ok(a)
        })
        .transpose()
        .with_context(doing)
    }
}
