//! The database's errors as the domain's [`Error`]: internal faults,
//! logged and never shown, except a data folder that a newer build
//! migrated. The domain knows no database, so the store converts them
//! itself, at each `?` on a result of sqlx or rusqlite: `.db()?`, or
//! `.map_err(db_error)?`.

use agenteval_domain::error::{Error, Result};

/// An error of a database driver, as the domain's [`Error`].
pub(crate) trait DbError {
    fn into_error(self) -> Error;
}

impl DbError for sqlx::Error {
    fn into_error(self) -> Error {
        Error::internal(self)
    }
}

impl DbError for rusqlite::Error {
    fn into_error(self) -> Error {
        Error::internal(self)
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
    fn a_migration_this_build_does_not_know_is_a_newer_data_folder() {
        let e = db_error(sqlx::migrate::MigrateError::VersionMissing(42));
        assert_eq!(e.code(), ErrorCode::Conflict);
        assert!(e.body.message.contains("schema version 42"), "{e}");
        assert!(e.cause.is_none());
        let e = db_error(sqlx::migrate::MigrateError::Dirty(7));
        assert_eq!(e.code(), ErrorCode::Internal);
    }
}
