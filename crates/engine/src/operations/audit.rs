//! Who an operation's audit row names, and audit retention.
//!
//! A shell that knows its caller (the HTTP server knows the key) runs the
//! operation inside [`acting_for`]; the rows the operation records itself
//! (`target.create`, `campaign.finalize`, ...) then name that caller, as
//! the server's own row of the call does. Work with no caller (the desktop
//! app, the scheduler, the patrol agent, a task spawned off the call) is
//! named [`PLATFORM`].
//!
//! Retention: audit events older than the retention period are deleted, at
//! start and then daily. The pruning is itself audited, so the trail shows
//! when and how much was removed.

use crate::clock::to_ms;
use crate::error::{Error, Result};
use crate::platform::Platform;
use std::future::Future;
use std::time::Duration;

/// The actor of the rows recorded with no caller.
pub const PLATFORM: &str = "platform";

tokio::task_local! {
    /// The caller of the operation running on this task.
    static CALLER: String;
}

/// Runs `work` on behalf of `caller` (e.g. `key:alice`): the audit rows
/// its operations record name it.
pub async fn acting_for<F: Future>(caller: String, work: F) -> F::Output {
    CALLER.scope(caller, work).await
}

/// The caller the current task acts for, else [`PLATFORM`].
pub fn current_actor() -> String {
    CALLER
        .try_with(Clone::clone)
        .unwrap_or_else(|_| PLATFORM.to_string())
}

/// Days audit events are kept unless configured otherwise.
pub const DEFAULT_RETENTION_DAYS: u32 = 90;

/// The environment variable that overrides [`DEFAULT_RETENTION_DAYS`].
pub const RETENTION_ENV: &str = "AGENTEVAL_AUDIT_RETENTION_DAYS";

/// How often the retention job runs after its first pass.
pub const PRUNE_EVERY: Duration = Duration::from_secs(24 * 60 * 60);

/// What one pruning pass did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pruned {
    /// Events deleted.
    pub deleted: u64,
    /// Events at or after this instant (UTC milliseconds) were kept.
    pub cutoff_ms: i64,
}

/// The retention in days from [`RETENTION_ENV`], else the default. A value
/// that is not a positive whole number is refused rather than guessed.
pub fn retention_days_from_env() -> Result<u32> {
    match std::env::var(RETENTION_ENV) {
        Ok(raw) => parse_retention_days(&raw),
        Err(_) => Ok(DEFAULT_RETENTION_DAYS),
    }
}

/// Parses a retention in days: a whole number of at least 1.
pub fn parse_retention_days(raw: &str) -> Result<u32> {
    match raw.trim().parse::<u32>() {
        Ok(days) if days >= 1 => Ok(days),
        _ => Err(Error::invalid_msg(
            crate::msg!("error-audit-retention", got = format!("{raw:?}")),
            crate::msg!("error-audit-retention-suggestion", env = RETENTION_ENV),
        )),
    }
}

impl Platform {
    /// Deletes audit events older than `retention_days` before now (the
    /// injected clock) and records the pruning as an audit event of its own.
    pub async fn prune_audit_events(&self, retention_days: u32) -> Result<Pruned> {
        let cutoff = self.clock.now() - chrono::Duration::days(i64::from(retention_days.max(1)));
        let cutoff_ms = to_ms(cutoff);
        let deleted = self.store.delete_audit_events_before(cutoff).await?;
        let detail = serde_json::json!({
            "deleted": deleted,
            "retention_days": retention_days,
            "cutoff_ms": cutoff_ms,
        });
        let res = self
            .store
            .insert_audit_prune(self.ids.next_id(), self.clock.now(), &detail)
            .await;
        if let Err(e) = res {
            tracing::warn!(error = %e, "could not record the audit pruning");
        }
        if deleted > 0 {
            tracing::info!(deleted, retention_days, "pruned old audit events");
        }
        Ok(Pruned { deleted, cutoff_ms })
    }
}
