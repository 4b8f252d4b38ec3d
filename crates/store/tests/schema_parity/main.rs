//! The PostgreSQL schema (`migrations/postgres/`) against the SQLite schema
//! (`migrations/sqlite/`), each built by its real migrations, the first on
//! a real server (`tests/support/postgres.rs`): the same tables, columns,
//! primary keys, nullability, defaults, indexes (by column list, unique or
//! not, partial condition), foreign keys (with their ON DELETE), number of
//! CHECK constraints, triggers and views, and each SQLite column's type
//! mapped as the baseline's header says. Every difference on purpose is in
//! [`EXCEPTIONS`] with its reason; any other fails, and so does an
//! exception no difference needs any more.
//!
//! A SQLite migration that changes the schema therefore needs its
//! PostgreSQL twin (a new file in `migrations/postgres/`), or an entry
//! here saying why not.

#[path = "../support/mod.rs"]
mod support;

mod binding;
mod schema;
mod server;

use sqlx::Executor;
use sqlx::postgres::PgPool;
use sqlx::sqlite::{SqlitePool, SqlitePoolOptions};

/// The differences between the schemas that are meant, each with why.
/// A table or column a SQLite migration changes needs a PostgreSQL
/// migration; nothing else may differ.
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "column ledger_entries.rowid: in PostgreSQL only",
        "SQLite's implicit rowid made a column: the ledger is read ORDER BY at, rowid \
         (insertion order within one millisecond)",
    ),
    (
        "column app_meta.key: nullable in SQLite, NOT NULL in PostgreSQL",
        "SQLite lets a PRIMARY KEY other than INTEGER declared without NOT NULL hold NULL \
         (a legacy rule); a PostgreSQL primary key never does, and the store writes none",
    ),
];

/// A SQLite database in memory after its migrations, then `extra`.
pub async fn sqlite_migrated(extra: &[&str]) -> SqlitePool {
    // One connection: an in-memory database lives in its connection.
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .connect("sqlite::memory:")
        .await
        .expect("an in-memory SQLite database");
    sqlx::migrate!("./migrations/sqlite")
        .run(&pool)
        .await
        .expect("the SQLite migrations run");
    for statement in extra {
        pool.execute(*statement).await.expect(statement);
    }
    pool
}

/// A fresh PostgreSQL database after its migrations, then `extra`.
pub async fn postgres_migrated(extra: &[&str]) -> PgPool {
    let pool = support::postgres::fresh_database().await.pool().await;
    sqlx::migrate!("./migrations/postgres")
        .run(&pool)
        .await
        .expect("the PostgreSQL migrations run");
    for statement in extra {
        pool.execute(*statement).await.expect(statement);
    }
    pool
}

/// The differences [`EXCEPTIONS`] does not explain, and the exceptions no
/// difference needs.
fn unexplained(found: &[String]) -> (Vec<String>, Vec<&'static str>) {
    let listed = |d: &String| EXCEPTIONS.iter().any(|(e, _)| e == d);
    let new = found.iter().filter(|d| !listed(d)).cloned().collect();
    let stale = EXCEPTIONS
        .iter()
        .map(|(e, _)| *e)
        .filter(|e| !found.iter().any(|d| d == e))
        .collect();
    (new, stale)
}

async fn differences(sqlite_extra: &[&str], postgres_extra: &[&str]) -> Vec<String> {
    let sqlite = schema::read_sqlite(&sqlite_migrated(sqlite_extra).await).await;
    let postgres = schema::read_postgres(&postgres_migrated(postgres_extra).await).await;
    assert!(
        sqlite.tables.len() >= 20 && sqlite.tables["runs"].columns.len() >= 15,
        "the SQLite schema is read whole: {:?}",
        sqlite.tables.keys()
    );
    schema::differences(&sqlite, &postgres)
}

#[tokio::test]
async fn the_postgres_schema_matches_the_sqlite_schema() {
    let found = differences(&[], &[]).await;
    let (new, stale) = unexplained(&found);
    assert!(
        new.is_empty(),
        "the PostgreSQL schema differs from the SQLite one: mirror the change in a new \
         migration of migrations/postgres/, or add it to EXCEPTIONS with its reason:\n{}",
        new.join("\n")
    );
    assert!(
        stale.is_empty(),
        "these EXCEPTIONS no longer occur: remove them:\n{}",
        stale.join("\n")
    );
}

#[tokio::test]
async fn a_column_added_to_sqlite_alone_fails_the_comparison() {
    let found = differences(&["ALTER TABLE runs ADD COLUMN worker_note INTEGER"], &[]).await;
    let (new, _) = unexplained(&found);
    assert_eq!(new, ["column runs.worker_note: in SQLite only"]);
}

#[tokio::test]
async fn every_kind_of_difference_is_named() {
    let found = differences(
        &["CREATE INDEX runs_verdict ON runs (campaign_id, verdict) WHERE verdict IS NOT NULL"],
        &[
            "ALTER TABLE targets ALTER COLUMN timeout_ms TYPE integer",
            "ALTER TABLE runs ALTER COLUMN verdict SET NOT NULL",
            "ALTER TABLE exploration_sessions ALTER COLUMN judge_status SET DEFAULT 'pending'",
            "ALTER TABLE judge_labels DROP CONSTRAINT judge_labels_attitude_check",
            "ALTER TABLE analyses DROP CONSTRAINT analyses_campaign_id_fkey",
            "ALTER TABLE run_error_tally DROP CONSTRAINT run_error_tally_pkey, \
             ADD PRIMARY KEY (reason, campaign_id)",
            "DROP INDEX sessions_judged",
            "CREATE INDEX sessions_judged ON exploration_sessions (campaign_id)",
            "CREATE TABLE locks (name text PRIMARY KEY)",
        ],
    )
    .await;
    let (mut new, _) = unexplained(&found);
    new.sort();
    let mut expected = [
        "column exploration_sessions.judge_status: default 'none' in SQLite, 'pending' in PostgreSQL",
        "column runs.verdict: nullable in SQLite, NOT NULL in PostgreSQL",
        "column targets.timeout_ms: SQLite INTEGER maps to bigint, PostgreSQL has integer",
        "foreign key on analyses (campaign_id) -> campaigns (id) on delete NO ACTION on update NO ACTION: \
         in SQLite only",
        "index on exploration_sessions (campaign_id) where judge_status = 'done': in SQLite only",
        "index on exploration_sessions (campaign_id): in PostgreSQL only",
        "index on runs (campaign_id, verdict) where verdict IS NOT NULL: in SQLite only",
        "table judge_labels: 3 CHECK constraints in SQLite, 2 in PostgreSQL",
        "table locks: in PostgreSQL only",
        "table run_error_tally: primary key (campaign_id, reason) in SQLite, (reason, campaign_id) \
         in PostgreSQL",
    ];
    expected.sort();
    assert_eq!(new, expected);
}
