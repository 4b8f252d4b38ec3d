//! Shared test support: platforms on temp dirs with a manual clock.

#![allow(dead_code)]

use agenteval_engine::Platform;
use agenteval_engine::clock::ManualClock;
use chrono::{DateTime, Utc};
use std::sync::Arc;

#[path = "../../../store/tests/support/postgres.rs"]
mod postgres;

use postgres::test_database_url;

pub struct TestPlatform {
    pub platform: Arc<Platform>,
    pub clock: Arc<ManualClock>,
    pub dir: tempfile::TempDir,
    /// The PostgreSQL database, when the suite runs on one.
    pub database_url: Option<String>,
}

impl TestPlatform {
    /// The same data folder opened again after the pool closes, as after a
    /// restart.
    pub async fn reopen(&self) -> Arc<Platform> {
        self.platform.fixtures().close().await;
        self.another_worker().await
    }

    /// A second platform on the same database, open beside this one, as
    /// another worker of a team server is (on the same clock).
    pub async fn another_worker(&self) -> Arc<Platform> {
        Platform::builder(self.dir.path())
            .database_url(self.database_url.clone())
            .clock(self.clock.clone())
            .role_models(agenteval_engine::role_models::RoleModels::default())
            .open()
            .await
            .expect("open another worker")
    }
}

/// A fixed, readable start time for tests.
pub fn t0() -> DateTime<Utc> {
    "2026-11-02T08:00:00Z".parse().expect("valid time")
}

/// A platform on a fresh database (see [`test_database_url`]) with a temp
/// data folder, clock at [`t0`].
pub async fn platform() -> TestPlatform {
    platform_on(test_database_url().await).await
}

/// A platform on SQLite in a temp data folder whatever the suite's
/// backend: for what only SQLite has (its file, upgrades from its older
/// migrations).
pub async fn sqlite_platform() -> TestPlatform {
    platform_on(None).await
}

async fn platform_on(database_url: Option<String>) -> TestPlatform {
    let dir = tempfile::tempdir().expect("temp dir");
    let clock = Arc::new(ManualClock::new(t0()));
    let platform = Platform::builder(dir.path())
        .database_url(database_url.clone())
        .clock(clock.clone())
        // Offline whatever the environment says; tests set models explicitly.
        .role_models(agenteval_engine::role_models::RoleModels::default())
        .open()
        .await
        .expect("open platform");
    TestPlatform {
        platform,
        clock,
        dir,
        database_url,
    }
}

/// Sequential ids, so that rendered output is reproducible.
#[derive(Default)]
pub struct SeqIds(std::sync::atomic::AtomicU64);

impl agenteval_engine::clock::IdSource for SeqIds {
    fn next_id(&self) -> uuid::Uuid {
        let n = self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        uuid::Uuid::from_u128(0x0190_0000_0000_7000_8000_0000_0000_0000 | u128::from(n))
    }
}

/// Compares `actual` with the golden file `tests/golden/NAME`; with
/// `UPDATE_GOLDEN=1` rewrites it instead.
pub fn assert_golden(name: &str, actual: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("golden dir");
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing golden file {}; run with UPDATE_GOLDEN=1",
            path.display()
        )
    });
    assert_eq!(actual, expected, "output differs from {}", path.display());
}
