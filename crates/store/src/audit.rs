//! The audit trail's retention.

use super::Store;
use agenteval_domain::clock::to_ms;
use agenteval_domain::error::{Context, Result};
use chrono::{DateTime, Utc};
use uuid::Uuid;

impl Store {
    /// Deletes the audit events from before `cutoff`; how many.
    pub async fn delete_audit_events_before(&self, cutoff: DateTime<Utc>) -> Result<u64> {
        Ok(sqlx::query("DELETE FROM audit_events WHERE at < ?")
            .bind(to_ms(cutoff))
            .execute(self.sqlite_pool()?)
            .await
            .with_context(|| format!("store: deleting the audit events before {cutoff}"))?
            .rows_affected())
    }

    /// Records a pruning of the audit trail (`audit.prune` by the engine)
    /// as event `id` at `at`, with what it did in `detail`.
    pub async fn insert_audit_prune(
        &self,
        id: Uuid,
        at: DateTime<Utc>,
        detail: &serde_json::Value,
    ) -> Result<()> {
        sqlx::query(
            "INSERT INTO audit_events (id, at, actor, action, subject, outcome, detail) VALUES (?, ?, 'engine', 'audit.prune', NULL, 'ok', ?)",
        )
        .bind(id.to_string())
        .bind(to_ms(at))
        .bind(detail.to_string())
        .execute(self.sqlite_pool()?)
        .await
        .with_context(|| format!("store: recording the audit pruning {id}"))?;
        Ok(())
    }
}
