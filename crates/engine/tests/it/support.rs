//! Shared test support: platforms on temp dirs with a manual clock.

#![allow(dead_code)]

use agenteval_engine::Platform;
use agenteval_engine::clock::ManualClock;
use chrono::{DateTime, Utc};
use std::sync::Arc;

pub struct TestPlatform {
    pub platform: Arc<Platform>,
    pub clock: Arc<ManualClock>,
    pub dir: tempfile::TempDir,
}

/// A fixed, readable start time for tests.
pub fn t0() -> DateTime<Utc> {
    "2026-11-02T08:00:00Z".parse().expect("valid time")
}

/// A platform on a fresh SQLite file in a temp dir, clock at [`t0`].
pub async fn platform() -> TestPlatform {
    let dir = tempfile::tempdir().expect("temp dir");
    let clock = Arc::new(ManualClock::new(t0()));
    let platform = Platform::builder(dir.path())
        .clock(clock.clone())
        .open()
        .await
        .expect("open platform");
    TestPlatform {
        platform,
        clock,
        dir,
    }
}
