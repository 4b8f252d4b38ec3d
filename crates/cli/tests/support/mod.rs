//! What the tests that start `agenteval` processes share.

// Each test binary includes this module and uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The command's stdout, after checking it succeeded (else both outputs
/// are shown).
pub fn ok(out: std::process::Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `agenteval serve` on `data` at 127.0.0.1:`port` with the admin key
/// `key`, without the patrol agent or a UI, its output into `log`: add
/// what a test needs, then spawn it.
pub fn serve(data: &Path, key: &str, port: u16, log: std::fs::File) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_agenteval"));
    c.args(["serve", "--no-patrol", "--api-key", key, "--bind"])
        .arg(format!("127.0.0.1:{port}"))
        .arg("--data-dir")
        .arg(data)
        .arg("--ui-dir")
        .arg(data.join("no-ui"))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::from(log.try_clone().expect("log")))
        .stderr(Stdio::from(log));
    c
}

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

/// The `agenteval` binary, offline whatever the developer's environment
/// holds, writing English.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_agenteval"));
    // Role models from the developer's environment would change the
    // verdicts; these runs are offline.
    for role in ["USER", "JUDGE", "ANALYST"] {
        for field in ["BASE_URL", "MODEL", "API_KEY"] {
            c.env_remove(format!("AGENTEVAL_{role}_{field}"));
        }
    }
    c
}

/// `agenteval demo-target` on a free port, stopped when dropped.
pub struct DemoTarget {
    child: Child,
    pub port: u16,
}

impl DemoTarget {
    pub fn start(args: &[&str]) -> Self {
        let mut child = bin()
            .args(["demo-target", "--bind", "127.0.0.1:0"])
            .args(args)
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the demo target");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        // Reads the address from the log, then keeps draining it.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening at http://127.0.0.1:").nth(1) {
                    let port: String = rest.chars().take_while(char::is_ascii_digit).collect();
                    let _ = tx.send(port.parse::<u16>().ok());
                }
            }
        });
        let port = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .ok()
            .flatten()
            .expect("the demo target logs where it listens");
        Self { child, port }
    }
}

impl Drop for DemoTarget {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
