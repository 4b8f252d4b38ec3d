//! Reads the git revision of the source (`unknown` outside a git checkout)
//! and the day of the build (UTC).

use std::process::Command;

fn main() {
    let revision = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "unknown".into());
    let day = chrono::Utc::now().format("%Y-%m-%d");
    println!("cargo:rustc-env=AGENTEVAL_REVISION={revision}");
    println!("cargo:rustc-env=AGENTEVAL_BUILT={day}");
    println!(
        "cargo:rustc-env=AGENTEVAL_BUILD_INFO={} (revision {revision}, built {day})",
        env!("CARGO_PKG_VERSION")
    );
    // A checkout or a new commit gives a new revision. Only paths that
    // exist: a missing one would rerun this script on every build.
    for path in [
        "../../.git/HEAD",
        "../../.git/refs/heads",
        "../../.git/packed-refs",
    ] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
