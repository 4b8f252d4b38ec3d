//! The judge worker: reviews the sessions that close, whoever closed them.

use crate::judge::{JudgeSampling, review_pending};
use crate::platform::Platform;
use std::sync::Arc;

/// Starts the judge worker: reviews every pending session at start and
/// again whenever a session changes, so that sessions closed through the
/// API (external assistants) are judged promptly. Each pass uses the judge
/// model in force at that moment ([`Platform::role_clients`]). A failing
/// judge is recorded per session and never stops the worker.
pub fn spawn(platform: Arc<Platform>, sampling: JudgeSampling) -> tokio::task::JoinHandle<()> {
    let mut events = platform.subscribe();
    tokio::spawn(async move {
        loop {
            let judge = platform.role_clients().judge;
            if let Err(e) = review_pending(&platform, judge.as_deref(), sampling).await {
                tracing::warn!(error = ?e, "judge worker could not review pending sessions");
            }
            // Wait for the next session change; a lagged receiver just
            // means several changes happened: one pass covers them all.
            loop {
                match events.recv().await {
                    Ok(crate::platform::Event::SessionChanged { .. }) => break,
                    Ok(_) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => break,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        }
    })
}
