//! The built-in demo agent served as an OpenAI-compatible endpoint.
//! (Implementation in progress.)

use std::net::SocketAddr;

/// Serves `/v1/chat/completions` on `bind` until the process is stopped.
pub async fn serve(_bind: SocketAddr) -> anyhow::Result<()> {
    anyhow::bail!("demo-target is not implemented yet")
}
