//! Tests of a database made by an older version: its schema migrated up
//! to a given migration, rows written as that version wrote them, then
//! opened by this one.

use std::path::{Path, PathBuf};

/// The SQLite migrations up to `last` as a folder of their own in `into`.
pub fn migrations_up_to(last: u32, into: &Path) -> PathBuf {
    let all = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/sqlite");
    let dir = into.join("migrations");
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(all).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let version: u32 = name[..4].parse().unwrap();
        if version <= last {
            std::fs::copy(&path, dir.join(&name)).unwrap();
        }
    }
    dir
}

/// A database in `dir` migrated up to `last`, as an older version left it.
pub async fn database_up_to(last: u32, dir: &Path) -> sqlx::SqlitePool {
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(dir.join(crate::DB_FILE))
        .create_if_missing(true)
        .foreign_keys(true);
    let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
    sqlx::migrate::Migrator::new(migrations_up_to(last, dir))
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    pool
}
