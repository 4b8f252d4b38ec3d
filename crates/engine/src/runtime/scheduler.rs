//! The fixed-run scheduler: recovers the runs a crash interrupted, then
//! claims and plays due runs every half second.

use crate::platform::Platform;
use std::sync::Arc;
use std::time::Duration;

/// Starts the background scheduler: recovers interrupted runs, then steps
/// every `poll` (default 500 ms). Errors are logged; the loop keeps going.
pub fn spawn(platform: Arc<Platform>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        if let Err(e) = platform.recover_interrupted_runs().await {
            tracing::error!(error = ?e, "could not recover interrupted runs");
        }
        loop {
            if let Err(e) = platform.tick().await {
                tracing::error!(error = ?e, "scheduler step failed");
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    })
}
