//! The PostgreSQL backend: a pool, and a [`Session`] that runs the store
//! functions on a blocking thread owning one connection in a transaction,
//! each statement waited on in turn. The statements written once for
//! both backends reach it through their connection (`sql.rs`); it knows
//! only their parameters ([`Arg`]).

use crate::arg::Arg;
use crate::db_error::{DbResult, db_error};
use agenteval_domain::error::{Context, Error, Result};
use sqlx::postgres::{PgArguments, PgPool, PgPoolOptions, PgRow};
use sqlx::query::Query;
use sqlx::{Executor, Postgres};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

/// How long a transaction waits for a connection: every one in use, or the
/// server not answering (sqlx tries to connect again until then).
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// The connections a process keeps to the server.
const MAX_CONNECTIONS: u32 = 16;

/// How long a transaction waits for a connection before the server is
/// tried (see [`acquire`]).
const PROBE_AFTER: Duration = Duration::from_millis(100);

/// How long a server found down is taken as down: a transaction asked
/// meanwhile is refused at once (`DATABASE_UNAVAILABLE`) instead of waiting
/// [`ACQUIRE_TIMEOUT`] again; the first one after it tries the server.
const DOWN_FOR: Duration = Duration::from_secs(1);

/// When each server (host and port) was last found down, for every pool
/// of this process.
static DOWN: LazyLock<Mutex<HashMap<(String, u16), Instant>>> = LazyLock::new(Default::default);

fn server_of(pool: &PgPool) -> (String, u16) {
    let options = pool.connect_options();
    (options.get_host().to_string(), options.get_port())
}

/// A connection of `pool`, or `DATABASE_UNAVAILABLE` at once while its
/// server was found down less than [`DOWN_FOR`] ago.
async fn acquire(pool: &PgPool) -> Result<sqlx::pool::PoolConnection<Postgres>> {
    let server = server_of(pool);
    let since = DOWN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&server)
        .map(Instant::elapsed);
    if let Some(since) = since.filter(|s| *s < DOWN_FOR) {
        return Err(Error::database_unavailable(
            "down",
            anyhow::anyhow!("the database server was found down {since:?} ago"),
        ));
    }
    let down = || DOWN.lock().unwrap_or_else(|e| e.into_inner());
    // A connection not handed out at once may be one sqlx is opening
    // again: a server that refuses connections is found down then, not
    // after the whole acquire timeout.
    let acquiring = pool.acquire();
    tokio::pin!(acquiring);
    let acquired = tokio::select! {
        acquired = &mut acquiring => acquired,
        () = tokio::time::sleep(PROBE_AFTER) => {
            if !answers(&server).await {
                down().insert(server, Instant::now());
                return Err(Error::database_unavailable(
                    "down",
                    anyhow::anyhow!("the database server refuses connections"),
                ));
            }
            acquiring.await
        }
    };
    match acquired {
        Ok(conn) => {
            down().remove(&server);
            Ok(conn)
        }
        Err(e) => {
            let e = db_error(e);
            // A pool that timed out may only be busy: the server is taken
            // as down only when it refuses a connection.
            if e.code() == agenteval_domain::error::ErrorCode::DatabaseUnavailable
                && !answers(&server).await
            {
                down().insert(server, Instant::now());
            }
            Err(e)
        }
    }
}

/// Whether the server takes a TCP connection within half a second.
async fn answers((host, port): &(String, u16)) -> bool {
    let connect = tokio::net::TcpStream::connect((host.as_str(), *port));
    matches!(
        tokio::time::timeout(Duration::from_millis(500), connect).await,
        Ok(Ok(_))
    )
}

/// Whether `url` names a PostgreSQL database.
pub fn is_postgres_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// Opens the pool of the database at `url` and runs the migrations; a
/// database that a newer version migrated is refused.
pub async fn open(url: &str) -> Result<PgPool> {
    let pool = PgPoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        // No ping before each use (a round trip per transaction): a
        // connection the server dropped fails its `BEGIN`, and `run`
        // takes another (see `begin`).
        .test_before_acquire(false)
        .connect(url)
        .await
        .map_err(|e| {
            Error::invalid(
                format!(
                    "could not connect to the PostgreSQL database at {}: {e}",
                    shown_url(url)
                ),
                "check that the server runs, that the URL (postgres://user:password@host:port/database) is right and that the user may connect",
            )
        })?;
    // sqlx takes an advisory lock while it migrates, so that workers
    // starting together migrate once.
    match sqlx::migrate!("./migrations/postgres").run(&pool).await {
        Ok(()) => {}
        Err(sqlx::migrate::MigrateError::VersionMissing(schema)) => {
            let by: Option<String> =
                sqlx::query_scalar("SELECT value FROM app_meta WHERE key = 'written_by'")
                    .fetch_optional(&pool)
                    .await
                    .ok()
                    .flatten();
            return Err(Error::newer_database(schema, by.as_deref()));
        }
        Err(e) => return Err(db_error(e)),
    }
    sqlx::query(
        "INSERT INTO app_meta (key, value) VALUES ('written_by', $1)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
    .bind(env!("CARGO_PKG_VERSION"))
    .execute(&pool)
    .await
    .db()?;
    Ok(pool)
}

/// `url` with its password hidden, for messages.
pub fn shown_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.find(':') {
                Some(colon) => format!(
                    "{}{}:***{}",
                    &url[..scheme + 3],
                    &credentials[..colon],
                    &url[at..]
                ),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// How a session's transaction reads.
#[derive(Debug, Clone, Copy)]
pub enum Mode {
    /// Reads and writes; decisions lock the rows they decide on.
    Write,
    /// A read-only snapshot of one moment.
    Snapshot,
}

/// One connection in a transaction, driven from a blocking thread.
pub struct Session {
    conn: RefCell<sqlx::pool::PoolConnection<Postgres>>,
    runtime: tokio::runtime::Handle,
}

/// Runs `work` in a transaction of its own on a connection of `pool`, on a
/// blocking thread: committed if it returns `Ok`, rolled back otherwise.
pub async fn run<T: Send + 'static>(
    pool: &PgPool,
    mode: Mode,
    work: impl FnOnce(&Session) -> Result<T> + Send + 'static,
) -> Result<T> {
    let conn = begin(pool, mode).await?;
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let session = Session {
            conn: RefCell::new(conn),
            runtime,
        };
        match work(&session) {
            Ok(value) => {
                session
                    .batch("COMMIT")
                    .context("store: committing a transaction")?;
                Ok(value)
            }
            Err(e) => {
                if let Err(rollback) = session.batch("ROLLBACK") {
                    tracing::warn!(error = %rollback, "store: rolling back a transaction failed");
                }
                Err(e)
            }
        }
    })
    .await
    .map_err(Error::internal)
    .context("store: running a transaction on a blocking thread")?
}

/// Runs `work`, one statement that commits by itself, on a connection of
/// `pool` on a blocking thread, with no transaction around it: two round
/// trips fewer than [`run`]. When the database is unavailable the statement
/// is tried again on another connection (see [`on_live_connection`]), so it
/// must change nothing when it ran already (`ON CONFLICT DO NOTHING`).
pub async fn statement<T: Send + 'static>(
    pool: &PgPool,
    work: impl Fn(&Session) -> Result<T> + Send + Sync + 'static,
) -> Result<T> {
    let work = std::sync::Arc::new(work);
    let (value, _conn) = on_live_connection(pool, |conn| {
        let runtime = tokio::runtime::Handle::current();
        let work = std::sync::Arc::clone(&work);
        async move {
            let ran = tokio::task::spawn_blocking(move || {
                let session = Session {
                    conn: RefCell::new(conn),
                    runtime,
                };
                let result = work(&session);
                (result, session.conn.into_inner())
            })
            .await;
            match ran {
                Ok(ran) => Ok(ran),
                Err(e) => Err(Error::internal(e))
                    .context("store: running a statement on a blocking thread"),
            }
        }
    })
    .await?;
    Ok(value)
}

/// Runs `sql`, one statement that commits by itself, on a connection of
/// `pool` from the runtime's own threads (no blocking thread, no
/// transaction: the fewest thread switches, for the hot decisions), and
/// returns its rows. Tried again as [`statement`] is, under the same rule.
pub async fn query(pool: &PgPool, sql: &str, args: &[Arg<'_>]) -> Result<Vec<PgRow>> {
    let (rows, _conn) = on_live_connection(pool, |mut conn| async move {
        let rows = bind(sql, args).fetch_all(&mut *conn).await.db();
        Ok((rows, conn))
    })
    .await?;
    Ok(rows)
}

/// A connection of `pool` in a transaction begun in `mode` (see
/// [`on_live_connection`]: nothing of the work is sent before `BEGIN`
/// succeeds).
async fn begin(pool: &PgPool, mode: Mode) -> Result<sqlx::pool::PoolConnection<Postgres>> {
    let begin = match mode {
        Mode::Write => "BEGIN",
        Mode::Snapshot => "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    };
    let ((), conn) = on_live_connection(pool, |mut conn| async move {
        let begun = (&mut *conn).execute(sqlx::raw_sql(begin)).await.db();
        Ok((begun.map(drop), conn))
    })
    .await
    .context("store: beginning a transaction")?;
    Ok(conn)
}

/// Runs `attempt` on a connection of `pool` and returns what it did with
/// the connection. The pool does not ping a connection before handing it
/// out, so one that the server dropped (it restarted) is found by its
/// first statement failing as unavailable: it is closed and `attempt` runs
/// again on another, until every connection the pool kept has been tried.
/// An `Err` of `attempt` itself is not about the database: it is returned
/// at once, the connection closed.
async fn on_live_connection<T, F, Fut>(
    pool: &PgPool,
    mut attempt: F,
) -> Result<(T, sqlx::pool::PoolConnection<Postgres>)>
where
    F: FnMut(sqlx::pool::PoolConnection<Postgres>) -> Fut,
    Fut: std::future::Future<Output = Result<(Result<T>, sqlx::pool::PoolConnection<Postgres>)>>,
{
    let mut tries = 0;
    loop {
        let conn = acquire(pool)
            .await
            .context("store: taking a PostgreSQL connection")?;
        let (result, mut conn) = attempt(conn).await?;
        match result {
            Err(e)
                if e.code() == agenteval_domain::error::ErrorCode::DatabaseUnavailable
                    && tries < MAX_CONNECTIONS =>
            {
                conn.close_on_drop();
                tries += 1;
            }
            result => return result.map(|value| (value, conn)),
        }
    }
}

fn bind<'q>(sql: &'q str, args: &'q [Arg<'q>]) -> Query<'q, Postgres, PgArguments> {
    args.iter().fold(sqlx::query(sql), |query, arg| match arg {
        Arg::Int(v) => query.bind(*v),
        Arg::Real(v) => query.bind(*v),
        Arg::Bool(v) => query.bind(*v),
        Arg::Text(v) => query.bind(v.as_deref()),
    })
}

impl Session {
    pub fn exec(&self, sql: &str, args: &[Arg<'_>]) -> Result<u64> {
        let mut conn = self.conn.borrow_mut();
        let done = self
            .runtime
            .block_on(bind(sql, args).execute(&mut **conn))
            .db()?;
        Ok(done.rows_affected())
    }

    pub fn fetch(&self, sql: &str, args: &[Arg<'_>]) -> Result<Vec<PgRow>> {
        let mut conn = self.conn.borrow_mut();
        self.runtime
            .block_on(bind(sql, args).fetch_all(&mut **conn))
            .db()
    }

    pub fn fetch_optional(&self, sql: &str, args: &[Arg<'_>]) -> Result<Option<PgRow>> {
        let mut conn = self.conn.borrow_mut();
        self.runtime
            .block_on(bind(sql, args).fetch_optional(&mut **conn))
            .db()
    }

    pub fn batch(&self, sql: &str) -> Result<()> {
        let mut conn = self.conn.borrow_mut();
        self.runtime
            .block_on((&mut **conn).execute(sqlx::raw_sql(sql)))
            .db()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shown_url_hides_the_password() {
        assert_eq!(
            shown_url("postgres://alice:s3cret@db.local:5432/agenteval"),
            "postgres://alice:***@db.local:5432/agenteval"
        );
        assert_eq!(shown_url("postgres://db.local/x"), "postgres://db.local/x");
    }
}
