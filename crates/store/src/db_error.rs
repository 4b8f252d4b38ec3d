//! The database's errors as the domain's [`Error`]: internal faults,
//! logged and never shown, except a data folder that a newer build
//! migrated, and a database that cannot be reached or written now (down,
//! restarting, a full disk, a read-only file): `DATABASE_UNAVAILABLE`,
//! which a caller may retry. The domain knows no database, so the store
//! converts them itself, at each `?` on a result of sqlx or rusqlite:
//! `.db()?`, or `.map_err(db_error)?`.

use agenteval_domain::error::{Error, Result};

/// An error of a database driver, as the domain's [`Error`].
pub(crate) trait DbError {
    fn into_error(self) -> Error;
}

/// Why a database cannot be used now, by SQLite's result code (the
/// primary code of an extended one) or PostgreSQL's SQLSTATE; `None` for
/// any other error.
fn unavailable(code: &str) -> Option<&'static str> {
    // A SQLSTATE has five characters; SQLite's codes have at most four
    // digits.
    if code.len() < 5
        && let Ok(n) = code.parse::<i32>()
    {
        // SQLITE_READONLY, SQLITE_FULL, SQLITE_IOERR, SQLITE_CANTOPEN.
        return match n & 0xff {
            8 => Some("read_only"),
            13 => Some("full"),
            10 | 14 => Some("down"),
            _ => None,
        };
    }
    match code {
        // disk_full, read_only_sql_transaction.
        "53100" => Some("full"),
        "25006" => Some("read_only"),
        // Connection exceptions; admin, crash and start-up shutdowns;
        // too many connections.
        c if c.starts_with("08") || c.starts_with("57P") || c == "53300" => Some("down"),
        _ => None,
    }
}

impl DbError for sqlx::Error {
    fn into_error(self) -> Error {
        let why = match &self {
            // A message cut off or garbled (`unknown message type: '\0'`)
            // is a server going away mid-reply, as it stops or starts. A
            // pool this process closed is no outage: it is shutting down.
            sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::Protocol(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::WorkerCrashed => Some("down"),
            sqlx::Error::Database(e) => e.code().as_deref().and_then(unavailable),
            _ => None,
        };
        match why {
            Some(why) => Error::database_unavailable(why, self),
            None => Error::internal(self),
        }
    }
}

impl DbError for rusqlite::Error {
    fn into_error(self) -> Error {
        let why = match &self {
            rusqlite::Error::SqliteFailure(e, _) => unavailable(&e.extended_code.to_string()),
            _ => None,
        };
        match why {
            Some(why) => Error::database_unavailable(why, self),
            None => Error::internal(self),
        }
    }
}

impl DbError for sqlx::migrate::MigrateError {
    fn into_error(self) -> Error {
        match self {
            sqlx::migrate::MigrateError::VersionMissing(version) => {
                Error::newer_data_folder(version, None)
            }
            e => Error::internal(e),
        }
    }
}

/// A failure the writer's thread reported as text (one batch's error goes
/// to every job of it): a database that cannot be used now, by SQLite's
/// own words for it, else an internal fault.
pub(crate) fn written_error(text: String) -> Error {
    let why = if text.contains("database or disk is full") {
        Some("full")
    } else if text.contains("readonly database") {
        Some("read_only")
    } else if text.contains("disk I/O error") || text.contains("unable to open database file") {
        Some("down")
    } else {
        None
    };
    match why {
        Some(why) => Error::database_unavailable(why, anyhow::anyhow!(text)),
        None => Error::internal(anyhow::anyhow!(text)),
    }
}

/// A database error as the domain's, for `.map_err(db_error)`.
pub(crate) fn db_error(e: impl DbError) -> Error {
    e.into_error()
}

/// [`DbError`] on a result: `.db()?` where a driver's result meets the
/// store's.
pub(crate) trait DbResult<T> {
    fn db(self) -> Result<T>;
}

impl<T, E: DbError> DbResult<T> for std::result::Result<T, E> {
    fn db(self) -> Result<T> {
        self.map_err(DbError::into_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agenteval_domain::error::ErrorCode;

    #[test]
    fn a_driver_error_is_an_internal_fault_with_its_cause_for_the_log() {
        let e = db_error(sqlx::Error::RowNotFound);
        assert_eq!(e.code(), ErrorCode::Internal);
        assert!(e.cause.is_some());
        let e = Err::<(), _>(rusqlite::Error::QueryReturnedNoRows)
            .db()
            .unwrap_err();
        assert_eq!(e.code(), ErrorCode::Internal);
        assert!(e.to_string().contains("Query returned no rows"), "{e}");
    }

    #[test]
    fn a_database_that_cannot_be_used_now_is_unavailable_not_an_internal_fault() {
        let full = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(13),
            Some("database or disk is full".into()),
        );
        let e = db_error(full);
        assert_eq!(e.code(), ErrorCode::DatabaseUnavailable);
        assert!(e.body.message.contains("full"), "{e}");
        assert!(e.cause.is_some(), "the driver's words stay for the log");
        // SQLITE_READONLY_DBMOVED, an extended code of SQLITE_READONLY.
        let moved = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(1032), None);
        assert!(db_error(moved).body.message.contains("read-only"));
        let e = db_error(sqlx::Error::PoolTimedOut);
        assert_eq!(e.code(), ErrorCode::DatabaseUnavailable);
        // As a connection was opened to a server that was stopping.
        let cut = sqlx::Error::Protocol("unknown message type: '\\0'".into());
        assert_eq!(db_error(cut).code(), ErrorCode::DatabaseUnavailable);
        assert_eq!(unavailable("57P01"), Some("down"));
        assert_eq!(unavailable("08006"), Some("down"));
        assert_eq!(unavailable("23505"), None, "a unique violation is a fault");
        assert_eq!(unavailable("19"), None, "SQLITE_CONSTRAINT too");
        // The writer's thread reports a batch's failure in SQLite's words.
        let e = written_error("committing: database or disk is full".into());
        assert_eq!(e.code(), ErrorCode::DatabaseUnavailable);
        let e = written_error("UNIQUE constraint failed: runs.id".into());
        assert_eq!(e.code(), ErrorCode::Internal);
    }

    #[test]
    fn a_migration_this_build_does_not_know_is_a_newer_data_folder() {
        let e = db_error(sqlx::migrate::MigrateError::VersionMissing(42));
        assert_eq!(e.code(), ErrorCode::Conflict);
        assert!(e.body.message.contains("schema version 42"), "{e}");
        assert!(e.cause.is_none());
        let e = db_error(sqlx::migrate::MigrateError::Dirty(7));
        assert_eq!(e.code(), ErrorCode::Internal);
    }
}
