//! What the patrol and exploration from the app read of campaigns: the
//! campaigns a patrol looks at, when each was last patrolled, and the seed
//! cells already explored (see `agenteval_engine::exploration::patrol`).

use super::Store;
use super::campaigns::campaign_from_row;
use agenteval_domain::campaign::Campaign;
use agenteval_domain::clock::to_ms;
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::CampaignId;
use chrono::{DateTime, Utc};
use sqlx::Row;
use std::collections::HashSet;

impl Store {
    /// The running or scheduled campaigns of the formal line, each with
    /// its target's name, oldest first.
    pub async fn formal_campaigns_open(&self) -> Result<Vec<(Campaign, String)>> {
        let doing = "store: reading the open campaigns of the formal line";
        let rows = sqlx::query(
            "SELECT c.*, t.name AS target_name FROM campaigns c JOIN targets t ON t.id = c.target_id
             WHERE c.status IN ('running', 'scheduled') AND c.time_scale <= 1
             ORDER BY c.created_at, c.id",
        )
        .fetch_all(self.sqlite_pool()?)
        .await
        .context(doing)?;
        rows.iter()
            .map(|row| Ok((campaign_from_row(row)?, row.try_get("target_name")?)))
            .collect::<Result<_>>()
            .context(doing)
    }

    /// Records that campaigns `ids` were patrolled at `now`.
    pub async fn mark_patrolled(&self, ids: &[CampaignId], now: DateTime<Utc>) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        sqlx::query(
            "UPDATE campaigns SET last_patrolled_at = ? WHERE id IN (SELECT value FROM json_each(?))",
        )
        .bind(to_ms(now))
        .bind(serde_json::to_string(ids)?)
        .execute(self.sqlite_pool()?)
        .await
        .with_context(|| format!("store: marking {} campaigns as patrolled", ids.len()))?;
        Ok(())
    }

    /// The seed cells (persona id, goal id) of campaign `campaign_id` that
    /// have a session.
    pub async fn explored_cells(
        &self,
        campaign_id: CampaignId,
    ) -> Result<HashSet<(String, String)>> {
        let doing = move || format!("store: reading the explored cells of campaign {campaign_id}");
        let rows = sqlx::query(
            "SELECT DISTINCT seed_ref ->> '$.persona_id' AS persona_id, seed_ref ->> '$.goal_id' AS goal_id
             FROM exploration_sessions
             WHERE campaign_id = ? AND json_valid(seed_ref)",
        )
        .bind(campaign_id.to_string())
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get::<Option<String>, _>("persona_id")?
                        .unwrap_or_default(),
                    r.try_get::<Option<String>, _>("goal_id")?
                        .unwrap_or_default(),
                ))
            })
            .collect::<Result<_>>()
            .with_context(doing)
    }
}
