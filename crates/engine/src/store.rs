//! The embedded store: SQLite in WAL mode through sqlx, migrations embedded.

use crate::error::Result;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

pub type Db = SqlitePool;

/// WAL pages after which a commit copies them back into the database (the
/// default is 1,000). Hot pages such as the tail of the turns table are
/// rewritten by every group commit; checkpointing less often copies each
/// of them once for many commits, with one `fsync` instead of ten.
pub const WAL_AUTOCHECKPOINT_PAGES: u32 = 10_000;

/// The file name of the database inside a data directory.
pub const DB_FILE: &str = "agenteval.db";

/// Opens (creating if missing) the database in `data_dir` and runs the
/// migrations.
pub async fn open(data_dir: &Path) -> Result<Db> {
    std::fs::create_dir_all(data_dir).map_err(crate::error::Error::internal)?;
    open_url(&format!("sqlite://{}", data_dir.join(DB_FILE).display())).await
}

/// Opens a database by URL (`sqlite://path` or `sqlite::memory:`).
pub async fn open_url(url: &str) -> Result<Db> {
    let options = SqliteConnectOptions::from_str(url)
        .map_err(crate::error::Error::internal)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(10))
        .pragma("wal_autocheckpoint", WAL_AUTOCHECKPOINT_PAGES.to_string());
    let pool = SqlitePoolOptions::new()
        .max_connections(8)
        // A local file needs no liveness ping before each use; the ping was
        // one more round trip to the connection's thread per query.
        .test_before_acquire(false)
        .connect_with(options)
        .await?;
    sqlx::migrate!("./migrations").run(&pool).await?;
    Ok(pool)
}
