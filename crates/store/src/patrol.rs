//! What the patrol and exploration from the app read of campaigns: the
//! campaigns a patrol looks at, when each was last patrolled, and the seed
//! cells already explored (see `agenteval_engine::exploration::patrol`).

use super::Store;
use super::campaigns::campaign_from_row;
use super::sql::{Sql, args};
use agenteval_domain::campaign::Campaign;
use agenteval_domain::clock::to_ms;
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::CampaignId;
use chrono::{DateTime, Utc};
use std::collections::HashSet;

/// Stamps the campaigns of a JSON array of ids.
const MARK_PATROLLED: Sql = Sql::dialects(
    "UPDATE campaigns SET last_patrolled_at = ? WHERE id IN (SELECT value FROM json_each(?))",
    "UPDATE campaigns SET last_patrolled_at = ?
     WHERE id IN (SELECT jsonb_array_elements_text(CAST(? AS jsonb)))",
);

/// The distinct (persona id, goal id) of a campaign's seeded sessions.
/// PostgreSQL refuses to parse a document with a `\u0000` escape (a
/// variant's note may hold one): it reads those as `\u0001`.
const EXPLORED_CELLS: Sql = Sql::dialects(
    "SELECT DISTINCT seed_ref ->> '$.persona_id' AS persona_id, seed_ref ->> '$.goal_id' AS goal_id
     FROM exploration_sessions
     WHERE campaign_id = ? AND json_valid(seed_ref)",
    r"SELECT DISTINCT CAST(replace(seed_ref, E'\\u0000', E'\\u0001') AS json) ->> 'persona_id' AS persona_id,
            CAST(replace(seed_ref, E'\\u0000', E'\\u0001') AS json) ->> 'goal_id' AS goal_id
     FROM exploration_sessions
     WHERE campaign_id = ? AND seed_ref IS NOT NULL",
);

impl Store {
    /// The running or scheduled campaigns of the formal line, each with
    /// its target's name, oldest first.
    pub async fn formal_campaigns_open(&self) -> Result<Vec<(Campaign, String)>> {
        self.read(|c| {
            c.rows(
                "SELECT c.*, t.name AS target_name FROM campaigns c JOIN targets t ON t.id = c.target_id
                 WHERE c.status IN ('running', 'scheduled') AND c.time_scale <= 1
                 ORDER BY c.created_at, c.id",
                args![],
                |row| Ok((campaign_from_row(row)?, row.get("target_name")?)),
            )
        })
        .await
        .context("store: reading the open campaigns of the formal line")
    }

    /// Records that campaigns `ids` were patrolled at `now`.
    pub async fn mark_patrolled(&self, ids: &[CampaignId], now: DateTime<Utc>) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let n = ids.len();
        let ids = serde_json::to_string(ids)?;
        self.write(move |c| c.exec(MARK_PATROLLED, args![to_ms(now), ids]))
            .await
            .with_context(|| format!("store: marking {n} campaigns as patrolled"))?;
        Ok(())
    }

    /// The seed cells (persona id, goal id) of campaign `campaign_id` that
    /// have a session.
    pub async fn explored_cells(
        &self,
        campaign_id: CampaignId,
    ) -> Result<HashSet<(String, String)>> {
        self.read(move |c| {
            let mut cells = HashSet::new();
            c.each(EXPLORED_CELLS, args![campaign_id.to_string()], |r| {
                cells.insert((
                    r.text("persona_id")?.unwrap_or_default().to_owned(),
                    r.text("goal_id")?.unwrap_or_default().to_owned(),
                ));
                Ok(())
            })?;
            Ok(cells)
        })
        .await
        .with_context(move || {
            format!("store: reading the explored cells of campaign {campaign_id}")
        })
    }
}
