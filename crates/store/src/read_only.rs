//! A data folder this process may not write: a read-only mount, a disk
//! the system remounted read-only after an error, a folder of another
//! user. The database is opened for reading only, changing no byte: what
//! was committed before is read, the write-ahead log of a process killed
//! mid-write included, and every write is refused as SQLite refuses one
//! (`DATABASE_UNAVAILABLE`, `read_only`).

use crate::db_error::DbResult;
use agenteval_domain::error::{Error, ErrorCode, Result};
use agenteval_domain::msg;
use sqlx::SqlitePool;
use sqlx::sqlite::SqliteConnectOptions;
use std::collections::BTreeSet;
use std::path::Path;

/// Whether this process may create files in the folder `data_dir`; a
/// folder missing or unreadable counts as writable, for the ordinary open
/// to report what is wrong.
pub(crate) fn writable(data_dir: &Path) -> bool {
    let probe = data_dir.join(format!(".agenteval-write-probe-{}", std::process::id()));
    let made = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&probe);
    match made {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            true
        }
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::ReadOnlyFilesystem | std::io::ErrorKind::PermissionDenied
        ),
    }
}

/// Whether the database can be read as an immutable file: no write-ahead
/// log holds commits that the file does not. An immutable database needs
/// no lock and no shared-memory file, which a read-only folder could not
/// hold; with a log left behind (a process killed mid-campaign) SQLite
/// reads through it and keeps its index in memory.
pub(crate) fn immutable(file: &Path) -> bool {
    let mut wal = file.as_os_str().to_owned();
    wal.push("-wal");
    !std::fs::metadata(wal).is_ok_and(|m| m.len() > 0)
}

/// Opens the database `file` of the read-only folder `data_dir` for
/// reading, refusing one that does not exist or needs migrating.
pub(crate) async fn open(data_dir: &Path, file: &Path) -> Result<SqlitePool> {
    let folder = data_dir.display().to_string();
    if !file.is_file() {
        return Err(Error::msg(
            ErrorCode::Conflict,
            msg!("error-data-folder-read-only-empty", folder = folder),
            msg!("error-data-folder-read-only-empty-suggestion"),
        ));
    }
    let options = SqliteConnectOptions::new()
        .filename(file)
        .read_only(true)
        .immutable(immutable(file));
    let pool = crate::sqlite_pool(options, 4).await?;
    let applied: BTreeSet<i64> =
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success")
            .fetch_all(&pool)
            .await
            .db()?
            .into_iter()
            .collect();
    let known: BTreeSet<i64> = crate::MIGRATOR.iter().map(|m| m.version).collect();
    if let Some(&newer) = applied.difference(&known).next() {
        return Err(Error::newer_data_folder(
            newer,
            crate::written_by(&pool).await.as_deref(),
        ));
    }
    if !known.is_subset(&applied) {
        return Err(Error::msg(
            ErrorCode::Conflict,
            msg!("error-data-folder-read-only-outdated", folder = folder),
            msg!("error-data-folder-read-only-outdated-suggestion"),
        ));
    }
    Ok(pool)
}
