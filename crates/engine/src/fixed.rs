//! The fixed-plan engine. (Implementation in progress.)

use crate::platform::Platform;
use std::sync::Arc;

/// Starts the background scheduler: executes due runs, starts scheduled
/// campaigns, finalizes campaigns at window end.
pub fn spawn_scheduler(_platform: Arc<Platform>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async {})
}
