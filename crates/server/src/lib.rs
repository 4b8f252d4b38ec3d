//! AgentEval HTTP API: an axum router over the engine's operations.
//! (Implementation in progress.)

pub mod demo_target;

use agenteval_engine::Platform;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// How `agenteval serve` runs the API.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub bind: SocketAddr,
    pub api_key: String,
    /// The built UI to serve at `/`, when present.
    pub ui_dir: Option<PathBuf>,
}

/// Serves the API until the process is stopped.
pub async fn serve(_platform: Arc<Platform>, _config: ServeConfig) -> anyhow::Result<()> {
    anyhow::bail!("the HTTP API is not implemented yet")
}
