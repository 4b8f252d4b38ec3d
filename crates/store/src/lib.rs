//! The store: every read and write of the database goes through this
//! layer, one function per query named after what it does. Nothing outside
//! it holds a connection or writes SQL (`scripts/check-store-boundary.sh`).
//!
//! The embedded backend is SQLite in WAL mode, reached three ways, each
//! for what it does best: the sqlx pool for the ordinary queries, the
//! group-commit [`writer`] thread for the hot writes and the exploration
//! budget decisions, and read-only [`readers`] for the large aggregations.
//! The shared backend is PostgreSQL ([`postgres`]), for several workers on
//! one database: the same queries, written once for both where they agree
//! ([`sql`]).
//!
//! The report's tallies, for both evidence lines, are kept by the store in
//! Rust, in the transaction of the write that changes what they count: a
//! fixed run is added as it finishes ([`tallies`]), an exploration session
//! is moved out of the tallies as it was and back in as it is by every
//! write that changes a tallied column (`session_tallies`). What a run
//! or a session adds is a pure function of the domain
//! ([`agenteval_domain::tally`]); no trigger or view holds any of it, so
//! that the two backends share the logic and differ only in queries.

use crate::db_error::{DbResult, db_error};
use agenteval_domain::error::Result;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

mod analysis;
mod api_keys;
pub(crate) mod arg;
mod audit;
mod backfill;
pub mod calibration;
pub mod campaigns;
mod comparison;
mod db_error;
pub mod decisions;
pub mod evidence;
mod faults;
mod findings;
pub mod fixtures;
pub mod inspect;
pub mod judge;
mod ledger;
#[cfg(test)]
mod one_way;
pub mod paging;
mod patrol;
pub mod postgres;
mod provenance;
mod read_only;
mod readers;
mod reports;
mod reviews;
pub mod run_labels;
pub mod runs;
mod scenarios;
pub mod secrets;
mod session_tallies;
mod sessions;
pub(crate) mod sql;
pub mod tallies;
mod targets;
pub mod trace_conversations;
#[cfg(test)]
mod upgrade;
pub mod writer;

pub use backfill::Backfills;
pub use readers::{Readers, text, uuid_at};

/// The file name of the database inside a data directory.
pub const DB_FILE: &str = "agenteval.db";

/// The embedded database's migrations.
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

/// Opens (creating if missing) the database in `data_dir` and runs the
/// migrations.
async fn open(data_dir: &Path) -> Result<SqlitePool> {
    std::fs::create_dir_all(data_dir).map_err(agenteval_domain::error::Error::internal)?;
    open_url(&format!("sqlite://{}", data_dir.join(DB_FILE).display())).await
}

/// Opens a database by URL (`sqlite://path`).
async fn open_url(url: &str) -> Result<SqlitePool> {
    let options = SqliteConnectOptions::from_str(url)
        .map_err(agenteval_domain::error::Error::internal)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal);
    let pool = sqlite_pool(options, 8).await?;
    match MIGRATOR.run(&pool).await {
        Ok(()) => {}
        Err(sqlx::migrate::MigrateError::VersionMissing(schema)) => {
            // A newer build left its version here (migration 0016 on).
            return Err(agenteval_domain::error::Error::newer_data_folder(
                schema,
                written_by(&pool).await.as_deref(),
            ));
        }
        Err(e) => return Err(db_error(e)),
    }
    sqlx::query(
        "INSERT INTO app_meta (key, value) VALUES ('written_by', ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
    .bind(env!("CARGO_PKG_VERSION"))
    .execute(&pool)
    .await
    .db()?;
    Ok(pool)
}

/// A pool of `max` connections to the SQLite database of `options`, with
/// what every connection of the store has: foreign keys on and a 10 s busy
/// timeout. A local file needs no liveness ping before each use; the ping
/// was one more round trip to the connection's thread per query.
pub(crate) async fn sqlite_pool(options: SqliteConnectOptions, max: u32) -> Result<SqlitePool> {
    SqlitePoolOptions::new()
        .max_connections(max)
        .test_before_acquire(false)
        .connect_with(
            options
                .foreign_keys(true)
                .busy_timeout(Duration::from_secs(10)),
        )
        .await
        .db()
}

/// The version of AgentEval that last opened the database, if it said.
async fn written_by(pool: &SqlitePool) -> Option<String> {
    sqlx::query_scalar("SELECT value FROM app_meta WHERE key = 'written_by'")
        .fetch_optional(pool)
        .await
        .ok()
        .flatten()
}

/// The database of a platform, on either backend.
pub struct Store {
    backend: Backend,
    /// This process's name among the workers sharing the database: it
    /// claims runs and holds leases under it.
    worker: Arc<str>,
    /// The database is opened for reading only (see [`Store::read_only`]).
    read_only: bool,
}

/// A name for this process among the workers of one database: its pid
/// and a random part (a pid alone repeats across machines and restarts).
fn worker_name() -> Arc<str> {
    // A v7 id ends in random bits.
    let id = uuid::Uuid::now_v7().simple().to_string();
    format!("worker-{}-{}", std::process::id(), &id[24..]).into()
}

enum Backend {
    /// The pool (migrations), the group-commit writer and the read-only
    /// readers over one file.
    Sqlite {
        pool: SqlitePool,
        writer: writer::Writer,
        readers: Arc<Readers>,
    },
    /// A pool of connections to a server that several processes share,
    /// and the hot writes, each in a transaction of its own.
    Postgres {
        pool: sqlx::PgPool,
        writes: Arc<writer::PostgresWrites>,
    },
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").finish_non_exhaustive()
    }
}

impl Store {
    /// Opens (creating if missing) the store in `data_dir` and runs the
    /// migrations; `contacts` are stored with the writer's batches.
    pub async fn open(
        data_dir: &Path,
        contacts: Arc<agenteval_domain::provenance::Contacts>,
    ) -> Result<Self> {
        let file = data_dir.join(DB_FILE);
        if data_dir.is_dir() && !read_only::writable(data_dir) {
            tracing::warn!(
                folder = %data_dir.display(),
                "the data folder is read-only: saved data can be read, nothing can be changed"
            );
            let pool = read_only::open(data_dir, &file).await?;
            let immutable = read_only::immutable(&file);
            return Ok(Self {
                backend: Backend::Sqlite {
                    writer: writer::Writer::read_only(),
                    readers: Arc::new(Readers::read_only(file, immutable)),
                    pool,
                },
                worker: worker_name(),
                read_only: true,
            });
        }
        let pool = open(data_dir).await?;
        Ok(Self {
            backend: Backend::Sqlite {
                writer: writer::Writer::open(&file, contacts)?,
                readers: Arc::new(Readers::new(file)),
                pool,
            },
            worker: worker_name(),
            read_only: false,
        })
    }

    /// Whether the database was opened for reading only (a read-only data
    /// folder): every write is refused, and background work that writes
    /// has nothing to do.
    pub fn read_only(&self) -> bool {
        self.read_only
    }

    /// Opens the shared database at `url`, which must be PostgreSQL
    /// (`postgres://...`), and runs its migrations; `contacts` are stored
    /// with each write. The embedded SQLite database is named by its data
    /// folder instead ([`Store::open`]).
    pub async fn open_database(
        url: &str,
        contacts: Arc<agenteval_domain::provenance::Contacts>,
    ) -> Result<Self> {
        if !postgres::is_postgres_url(url) {
            return Err(agenteval_domain::error::Error::invalid(
                format!("{} is not a PostgreSQL URL", postgres::shown_url(url)),
                "Use postgres://user:password@host:port/database, or leave AGENTEVAL_DATABASE_URL unset for the embedded SQLite database in the data folder.",
            ));
        }
        let pool = postgres::open(url).await?;
        Ok(Self {
            backend: Backend::Postgres {
                writes: Arc::new(writer::PostgresWrites::new(pool.clone(), contacts)),
                pool,
            },
            worker: worker_name(),
            read_only: false,
        })
    }

    /// Closes the pooled connections, as a process that stops does; the
    /// store serves nothing after this.
    pub async fn close(&self) {
        match &self.backend {
            Backend::Sqlite { pool, readers, .. } => {
                readers.close();
                pool.close().await
            }
            Backend::Postgres { pool, .. } => pool.close().await,
        }
    }

    /// Which backend this store is on: `sqlite` or `postgres`.
    pub fn backend_name(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite { .. } => "sqlite",
            Backend::Postgres { .. } => "postgres",
        }
    }

    /// This process's name among the workers sharing the database (in the
    /// `claimed_by` of the runs it claims and the holder of its leases).
    pub fn worker(&self) -> &str {
        &self.worker
    }

    /// Queues a hot write for the writer's next batch; the returned
    /// [`writer::Pending`] resolves once it is committed.
    pub fn enqueue(&self, write: writer::Write) -> writer::Pending {
        match &self.backend {
            Backend::Sqlite { writer, .. } => writer.enqueue(write),
            Backend::Postgres { writes, .. } => writes.enqueue(write),
        }
    }

    /// Queues a hot write for the writer's next batch without waiting.
    pub fn queue(&self, write: writer::Write) {
        match &self.backend {
            Backend::Sqlite { writer, .. } => writer.queue(write),
            Backend::Postgres { writes, .. } => writes.queue(write),
        }
    }

    /// Claims up to `limit` due runs (`pending -> running`) in one
    /// statement, oldest first, through the writer, under a lease of
    /// [`runs::RUN_LEASE`] for this worker (see [`writer::claim`]).
    pub async fn claim_due_runs(
        &self,
        limit: usize,
        now_ms: i64,
    ) -> Result<Vec<writer::ClaimedRow>> {
        let lease = writer::Lease {
            worker: self.worker.clone(),
            until: runs::lease_until(now_ms),
        };
        match &self.backend {
            Backend::Sqlite { writer, .. } => writer.claim(limit, now_ms, lease).await,
            Backend::Postgres { pool, .. } => {
                postgres::run(pool, postgres::Mode::Write, move |session| {
                    writer::claim(&sql::Conn::Postgres(session), limit, now_ms, &lease)
                })
                .await
            }
        }
    }

    /// Runs `work` in a read-only snapshot on a blocking thread: the store
    /// functions on [`Read`] stream many rows without a hand-off per row.
    pub async fn snapshot<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Read<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        match &self.backend {
            Backend::Sqlite { readers, .. } => {
                readers
                    .read(move |conn| work(&Read(sql::Conn::Sqlite(conn))))
                    .await
            }
            Backend::Postgres { pool, .. } => {
                postgres::run(pool, postgres::Mode::Snapshot, move |session| {
                    work(&Read(sql::Conn::Postgres(session)))
                })
                .await
            }
        }
    }

    /// Waits until every write queued before is committed (nothing to wait
    /// for on a database opened for reading only).
    pub async fn flush(&self) -> Result<()> {
        if self.read_only {
            return Ok(());
        }
        self.transact(|_| Ok(())).await
    }

    /// Runs `work` in one transaction, after every write queued before it;
    /// its writes are undone alone if it fails. The exploration budget
    /// decisions take turns here: the store functions on [`Tx`] read, and
    /// the caller decides and writes, in one step. On SQLite it is a step
    /// of the writer's current batch; on PostgreSQL a transaction of its
    /// own, in which a decision locks the rows it decides on.
    pub async fn transact<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Tx<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        match &self.backend {
            Backend::Sqlite { writer, .. } => {
                writer
                    .transact(move |conn| work(&Tx(sql::Conn::Sqlite(conn))))
                    .await
            }
            Backend::Postgres { pool, .. } => {
                postgres::run(pool, postgres::Mode::Write, move |session| {
                    work(&Tx(sql::Conn::Postgres(session)))
                })
                .await
            }
        }
    }

    /// Whether the database answers a query now: `Err` with
    /// `DATABASE_UNAVAILABLE` when it cannot be reached.
    pub async fn ping(&self) -> Result<()> {
        self.read(|c| c.value::<i64>("SELECT CAST(1 AS BIGINT)", &[]).map(|_| ()))
            .await
    }

    /// Runs a store function that reads, on a connection of its own.
    pub(crate) async fn read<T: Send + 'static>(
        &self,
        work: impl FnOnce(&sql::Conn<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.snapshot(move |read| work(&read.0)).await
    }

    /// Runs a store function that reads with one statement: on PostgreSQL
    /// with no transaction around it (the statement is consistent by
    /// itself), two round trips fewer than [`Store::read`].
    pub(crate) async fn read_one<T: Send + 'static>(
        &self,
        work: impl Fn(&sql::Conn<'_>) -> Result<T> + Send + Sync + 'static,
    ) -> Result<T> {
        match &self.backend {
            Backend::Postgres { pool, .. } => {
                postgres::statement(pool, move |session| work(&sql::Conn::Postgres(session))).await
            }
            Backend::Sqlite { .. } => self.read(work).await,
        }
    }

    /// Runs a store function that writes, in one transaction.
    pub(crate) async fn write<T: Send + 'static>(
        &self,
        work: impl FnOnce(&sql::Conn<'_>) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        self.transact(move |tx| work(&tx.0)).await
    }
}

/// A step of a transaction (see [`Store::transact`]). The store functions
/// that take part in a decision are methods of this type, so that the
/// caller decides and never holds a connection.
///
/// Decisions are synchronous closures on purpose: on SQLite they run on the
/// writer's thread inside its batch; on PostgreSQL the same closure runs on
/// a blocking thread that owns one transaction, its store functions waiting
/// on each statement, with the row of what it spends (a campaign's
/// sessions, a session's turns) locked first so that decisions on one
/// budget take turns across processes.
pub struct Tx<'c>(pub(crate) sql::Conn<'c>);

/// A read-only snapshot (see [`Store::snapshot`]).
pub struct Read<'c>(pub(crate) sql::Conn<'c>);
