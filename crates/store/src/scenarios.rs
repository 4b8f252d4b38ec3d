//! The loaded scenarios as stored.

use super::Store;
use agenteval_domain::clock::to_ms;
use agenteval_domain::error::{Context, Result};
use agenteval_domain::scenario::Scenario;
use chrono::{DateTime, Utc};

impl Store {
    /// Stores `scenarios` (replacing those of the same ids), loaded at
    /// `loaded_at`, in one transaction.
    pub async fn upsert_scenarios(
        &self,
        scenarios: &[Scenario],
        loaded_at: DateTime<Utc>,
    ) -> Result<()> {
        let now = to_ms(loaded_at);
        let doing = "store: storing the loaded scenarios";
        let mut tx = self.sqlite_pool()?.begin().await.context(doing)?;
        for s in scenarios {
            sqlx::query(
                "INSERT INTO scenarios (id, pack, title, tags, definition, source_file, content_hash, loaded_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                 ON CONFLICT(id) DO UPDATE SET pack = excluded.pack, title = excluded.title,
                   tags = excluded.tags, definition = excluded.definition,
                   source_file = excluded.source_file, content_hash = excluded.content_hash,
                   loaded_at = excluded.loaded_at",
            )
            .bind(&s.id)
            .bind(&s.pack)
            .bind(&s.title)
            .bind(serde_json::to_string(&s.tags)?)
            .bind(serde_json::to_string(s)?)
            .bind(&s.source_file)
            .bind(&s.content_hash)
            .bind(now)
            .execute(&mut *tx)
            .await
            .with_context(|| format!("store: storing scenario {}", s.id))?;
        }
        tx.commit().await.context(doing)?;
        Ok(())
    }
}
