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
    match sqlx::migrate!("./migrations").run(&pool).await {
        Ok(()) => {}
        Err(sqlx::migrate::MigrateError::VersionMissing(schema)) => {
            // A newer build left its version here (migration 0016 on).
            let by: Option<String> =
                sqlx::query_scalar("SELECT value FROM app_meta WHERE key = 'written_by'")
                    .fetch_optional(&pool)
                    .await
                    .ok()
                    .flatten();
            return Err(crate::error::Error::newer_data_folder(
                schema,
                by.as_deref(),
            ));
        }
        Err(e) => return Err(e.into()),
    }
    sqlx::query(
        "INSERT INTO app_meta (key, value) VALUES ('written_by', ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
    .bind(env!("CARGO_PKG_VERSION"))
    .execute(&pool)
    .await?;
    Ok(pool)
}

/// Whether the data named `name` waits to be filled by the engine after a
/// migration (see migration 0008).
pub(crate) fn backfill_pending(conn: &rusqlite::Connection, name: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) > 0 FROM pending_backfills WHERE name = ?",
        [name],
        |r| r.get(0),
    )
}

/// Marks the data named `name` filled.
pub(crate) fn backfill_done(conn: &rusqlite::Connection, name: &str) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM pending_backfills WHERE name = ?", [name])
        .map(drop)
}

/// Read-only connections for the large read-side aggregations (reports),
/// driven directly on a blocking thread: reading a hundred thousand rows
/// through the async pool copies every value and hands it across threads,
/// which costs several times what SQLite itself spends.
pub(crate) struct Readers {
    path: std::path::PathBuf,
    idle: std::sync::Mutex<Vec<rusqlite::Connection>>,
}

/// A text column of a row read by [`Readers`], borrowed from the row.
pub(crate) fn text<'r>(row: &'r rusqlite::Row<'_>, column: &str) -> Result<Option<&'r str>> {
    row.get_ref(column)?
        .as_str_or_null()
        .map_err(crate::error::Error::internal)
}

/// A column holding a UUID in its text form, read without allocating.
pub(crate) fn uuid_at<I: rusqlite::RowIndex>(
    row: &rusqlite::Row<'_>,
    column: I,
) -> rusqlite::Result<uuid::Uuid> {
    let index = column.idx(row.as_ref())?;
    uuid::Uuid::parse_str(row.get_ref(index)?.as_str()?).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// Idle read connections kept for reuse.
const IDLE_READERS: usize = 4;

impl Readers {
    pub fn new(path: std::path::PathBuf) -> Self {
        Self {
            path,
            idle: Default::default(),
        }
    }

    /// Runs `read` on a read-only connection on a blocking thread.
    pub async fn read<T: Send + 'static>(
        self: &std::sync::Arc<Self>,
        read: impl FnOnce(&rusqlite::Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let readers = self.clone();
        tokio::task::spawn_blocking(move || {
            let conn = match readers.take() {
                Some(conn) => conn,
                None => readers.open()?,
            };
            let result = read(&conn);
            readers.give_back(conn);
            result
        })
        .await
        .map_err(crate::error::Error::internal)?
    }

    fn take(&self) -> Option<rusqlite::Connection> {
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop()
    }

    fn give_back(&self, conn: rusqlite::Connection) {
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < IDLE_READERS {
            idle.push(conn);
        }
    }

    fn open(&self) -> Result<rusqlite::Connection> {
        use rusqlite::OpenFlags;
        let conn = rusqlite::Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(Duration::from_secs(10))?;
        Ok(conn)
    }
}
