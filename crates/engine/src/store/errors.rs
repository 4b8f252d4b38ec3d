//! The database's errors as the engine's [`Error`]: internal, logged and
//! never shown, except a data folder written by a newer build.

use crate::error::Error;

impl From<sqlx::Error> for Error {
    fn from(e: sqlx::Error) -> Self {
        Self::internal(e)
    }
}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Self::internal(e)
    }
}

impl From<sqlx::migrate::MigrateError> for Error {
    fn from(e: sqlx::migrate::MigrateError) -> Self {
        match e {
            sqlx::migrate::MigrateError::VersionMissing(version) => {
                Self::newer_data_folder(version, None)
            }
            e => Self::internal(e),
        }
    }
}
