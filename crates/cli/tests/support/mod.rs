//! What the tests that start `agenteval` processes share.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// Waits until the server at `base` answers `GET /api/health`; fails when
/// `server` exits first (printing `log`) or after two minutes.
pub async fn wait_healthy(http: &reqwest::Client, base: &str, server: &mut Child, log: &Path) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Ok(r) = http.get(format!("{base}/api/health")).send().await
            && r.status().is_success()
        {
            return;
        }
        if let Ok(Some(status)) = server.try_wait() {
            panic!(
                "agenteval serve exited during start-up ({status}):\n{}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        assert!(Instant::now() < deadline, "agenteval serve did not come up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
