//! The audit trail's retention.

use super::Store;
use super::sql::args;
use agenteval_domain::clock::to_ms;
use agenteval_domain::error::{Context, Result};
use chrono::{DateTime, Utc};
use uuid::Uuid;

impl Store {
    /// Deletes the audit events from before `cutoff`; how many.
    pub async fn delete_audit_events_before(&self, cutoff: DateTime<Utc>) -> Result<u64> {
        let before = to_ms(cutoff);
        self.write(move |c| c.exec("DELETE FROM audit_events WHERE at < ?", args![before]))
            .await
            .with_context(|| format!("store: deleting the audit events before {cutoff}"))
    }

    /// Records a pruning of the audit trail (`audit.prune` by the engine)
    /// as event `id` at `at`, with what it did in `detail`.
    pub async fn insert_audit_prune(
        &self,
        id: Uuid,
        at: DateTime<Utc>,
        detail: &serde_json::Value,
    ) -> Result<()> {
        let (at, detail) = (to_ms(at), detail.to_string());
        self.write(move |c| {
            c.exec(
                "INSERT INTO audit_events (id, at, actor, action, subject, outcome, detail) VALUES (?, ?, 'engine', 'audit.prune', NULL, 'ok', ?)",
                args![id.to_string(), at, detail],
            )
        })
        .await
        .with_context(|| format!("store: recording the audit pruning {id}"))?;
        Ok(())
    }
}
