//! Read-only connections for the large read-side aggregations (reports).

use crate::db_error::DbResult;
use agenteval_domain::error::{Context, Result};
use std::time::Duration;

/// Read-only connections for the large read-side aggregations (reports),
/// driven directly on a blocking thread: reading a hundred thousand rows
/// through the async pool copies every value and hands it across threads,
/// which costs several times what SQLite itself spends.
pub struct Readers {
    path: std::path::PathBuf,
    /// The database is a file of a read-only folder with no write-ahead
    /// log: opened `immutable` (see [`crate::read_only`]).
    immutable: bool,
    idle: std::sync::Mutex<Vec<rusqlite::Connection>>,
    closed: std::sync::atomic::AtomicBool,
}

/// A text column of a row read by [`Readers`], borrowed from the row.
pub fn text<'r>(row: &'r rusqlite::Row<'_>, column: &str) -> Result<Option<&'r str>> {
    row.get_ref(column)
        .db()?
        .as_str_or_null()
        .map_err(agenteval_domain::error::Error::internal)
}

/// A column holding a UUID in its text form, read without allocating.
pub fn uuid_at<I: rusqlite::RowIndex>(
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
            immutable: false,
            idle: Default::default(),
            closed: Default::default(),
        }
    }

    /// Readers of the database `path` of a read-only folder, `immutable`
    /// when no write-ahead log is left beside it.
    pub(crate) fn read_only(path: std::path::PathBuf, immutable: bool) -> Self {
        Self {
            immutable,
            ..Self::new(path)
        }
    }

    /// Closes the idle connections; every read after this fails, as on a
    /// closed pool.
    pub fn close(&self) {
        self.closed
            .store(true, std::sync::atomic::Ordering::Relaxed);
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// Runs `read` on a read-only connection on a blocking thread.
    pub async fn read<T: Send + 'static>(
        self: &std::sync::Arc<Self>,
        read: impl FnOnce(&rusqlite::Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        if self.closed.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(agenteval_domain::error::Error::internal(anyhow::anyhow!(
                "the store's read connections are closed (closed pool)"
            )));
        }
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
        .map_err(agenteval_domain::error::Error::internal)
        .context("store: reading on a blocking thread")?
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
        let doing = "store: opening a read-only connection";
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = if self.immutable {
            let path = std::path::absolute(&self.path)
                .map_err(agenteval_domain::error::Error::internal)
                .context(doing)?;
            let mut uri = url::Url::from_file_path(&path)
                .map_err(|()| anyhow::anyhow!("{} is not a file path", path.display()))
                .map_err(agenteval_domain::error::Error::internal)?;
            uri.set_query(Some("immutable=1"));
            rusqlite::Connection::open_with_flags(uri.as_str(), flags | OpenFlags::SQLITE_OPEN_URI)
        } else {
            rusqlite::Connection::open_with_flags(&self.path, flags)
        }
        .db()
        .context(doing)?;
        conn.busy_timeout(Duration::from_secs(10))
            .db()
            .context(doing)?;
        Ok(conn)
    }
}
