//! The loaded scenarios as stored.

use super::Store;
use super::sql::args;
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
        // (id, pack, title, tags, definition, source_file, content_hash)
        let rows = scenarios
            .iter()
            .map(|s| {
                Ok((
                    s.id.clone(),
                    s.pack.clone(),
                    s.title.clone(),
                    serde_json::to_string(&s.tags)?,
                    serde_json::to_string(s)?,
                    s.source_file.clone(),
                    s.content_hash.clone(),
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        self.write(move |c| {
            for (id, pack, title, tags, definition, source_file, content_hash) in &rows {
                c.exec(
                    "INSERT INTO scenarios (id, pack, title, tags, definition, source_file, content_hash, loaded_at)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                     ON CONFLICT (id) DO UPDATE SET pack = excluded.pack, title = excluded.title,
                       tags = excluded.tags, definition = excluded.definition,
                       source_file = excluded.source_file, content_hash = excluded.content_hash,
                       loaded_at = excluded.loaded_at",
                    args![id, pack, title, tags, definition, source_file, content_hash, now],
                )
                .with_context(|| format!("store: storing scenario {id}"))?;
            }
            Ok(())
        })
        .await
        .context("store: storing the loaded scenarios")
    }
}
