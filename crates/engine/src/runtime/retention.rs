//! The audit retention job.

use crate::audit::PRUNE_EVERY;
use crate::platform::Platform;
use std::sync::Arc;

/// Starts the retention job: prunes at once, then every [`PRUNE_EVERY`].
/// Errors are logged; the job keeps going.
pub fn spawn(platform: Arc<Platform>, retention_days: u32) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(PRUNE_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            // The first tick completes at once: the job runs at start.
            every.tick().await;
            if let Err(e) = platform.prune_audit_events(retention_days).await {
                tracing::error!(error = ?e, "audit retention pass failed");
            }
        }
    })
}
