//! The embedded store: SQLite in WAL mode through sqlx, migrations embedded.

use crate::error::Result;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

pub type Db = SqlitePool;

/// The file name of the database inside a data directory.
pub const DB_FILE: &str = "agenteval.db";

/// Opens (creating if missing) the database in `data_dir` and runs the
/// migrations.
pub async fn open(data_dir: &Path) -> Result<Db> {
    std::fs::create_dir_all(data_dir).map_err(crate::error::Error::internal)?;
    open_url(&format!("sqlite://{}", data_dir.join(DB_FILE).display())).await
}

/// Opens a database by URL (`sqlite://path`).
pub async fn open_url(url: &str) -> Result<Db> {
    let options = SqliteConnectOptions::from_str(url)
        .map_err(crate::error::Error::internal)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .foreign_keys(true)
        .busy_timeout(Duration::from_secs(10));
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
