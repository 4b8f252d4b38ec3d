//! The fixed-run scheduler: recovers the runs a crash interrupted, then
//! claims and plays due runs every half second, renewing the leases of the
//! runs it plays.

use crate::platform::Platform;
use crate::store::runs::RENEW_RUN_LEASES_EVERY;
use std::sync::Arc;
use std::time::Duration;

/// Starts the background scheduler: recovers interrupted runs, then steps
/// every `poll` (default 500 ms). Errors are logged; the loop keeps going.
/// Beside it, the leases of the runs this worker plays are renewed every
/// [`RENEW_RUN_LEASES_EVERY`], so that other workers sharing the database
/// leave them alone until this one stops; on the same beat, sessions left
/// open past their lease are closed as abandoned.
pub fn spawn(platform: Arc<Platform>) -> tokio::task::JoinHandle<()> {
    let renewing = platform.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(RENEW_RUN_LEASES_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            if let Err(e) = renewing.renew_run_leases().await {
                tracing::error!(error = ?e, "could not renew the leases of the runs being played");
            }
            if let Err(e) = renewing.abandon_idle_sessions().await {
                tracing::error!(error = ?e, "could not close the sessions left open");
            }
        }
    });
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
