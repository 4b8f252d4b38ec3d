//! Group commit for the hot writes: run claims, turns (with their steps)
//! and verdicts, the target's replies in exploration sessions, audit events.
//!
//! Hundreds of runs execute at once; their writes queue to one thread that
//! owns a connection of its own and commits everything waiting in a single
//! transaction. One transaction per batch instead of one per row is what
//! lets the engine keep up with a fast target. The thread runs its
//! statements directly (prepared once, each row bound and stepped in
//! SQLite's C code), where the async pool would hand every statement to a
//! connection thread and back.
//!
//! A run queues its turns as they happen and its verdict after them.
//! Writes are applied in the order they were queued, so a verdict is
//! committed with or after its turns; if one of a run's turns could not be
//! stored, its verdict is stored as `error` ([`TURN_LOST`]) instead, and
//! [`Committed::TurnsMissing`] tells the run so. A verdict is thus never
//! stored over missing turns. A write that fails fails alone: SQLite undoes
//! just that statement and the batch goes on.
//!
//! Exploration budget decisions run here as tasks ([`Writer::transact`]):
//! each reads, decides and writes in one step of the batch's transaction,
//! so decisions take turns on this thread instead of each holding a lock
//! across a dozen hand-offs to a pooled connection. Audit events take the
//! same path, so that an API call's audit row never competes with the
//! call's own writes for SQLite's write lock (whose busy handler sleeps for
//! milliseconds).
//!
//! On PostgreSQL, where several processes write at once, the same writes
//! ([`PostgresWrites`]) are each committed in a transaction of their own,
//! with the run tallies they change added by upserts in it, and due runs
//! are claimed with the rows locked and the locked ones skipped ([`claim`]).

use crate::db_error::{DbResult, db_error};
use crate::postgres::Mode;
use crate::sql::{Arg, Conn, Sql, args};
use crate::tallies::RunTallies;
use agenteval_domain::error::{Context, Error, Result};
use agenteval_domain::provenance::Contacts;
use rusqlite::{Connection, Statement, Transaction, TransactionBehavior};
use std::collections::HashMap;
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use uuid::Uuid;

pub use rows::{AuditRow, Committed, FinishRow, ReplyRow, TURN_LOST, TurnRow, Write};

/// Most writes committed in one transaction.
const MAX_BATCH: usize = 4096;

/// How long a batch of fixed runs' work (claims, turns, verdicts) stays
/// open for more once [`LINGER_FROM`] jobs are waiting. A commit costs
/// about as much for a few writes as for hundreds (the pages it writes, the
/// report's tallies it updates), so when runs stream in, gathering their
/// writes for a moment costs less CPU per run. A lone write, and any batch
/// with other work (an API call's budget decision, a session's reply, an
/// audit event, which someone waits for), is committed at once.
const LINGER: Duration = Duration::from_millis(1);
/// Writes waiting at once that mark a busy queue.
const LINGER_FROM: usize = 8;

type Outcome = std::result::Result<Committed, String>;
type Claimed = std::result::Result<Vec<ClaimedRow>, String>;

/// Work run in the batch's transaction (see [`Writer::transact`]); it
/// returns what to tell its caller once the transaction ends.
type Task = Box<dyn FnOnce(&Connection) -> Deliver + Send>;
/// Tells a task's caller how its transaction ended.
type Deliver = Box<dyn FnOnce(std::result::Result<(), String>) + Send>;

enum Job {
    /// A write, and who waits for its outcome, if anyone.
    Write(Write, Option<oneshot::Sender<Outcome>>),
    /// Taken when it runs: a task runs once.
    Task(Option<Task>),
    /// Claims up to `limit` runs due at `now`, oldest first.
    Claim {
        limit: usize,
        now: i64,
        lease: Lease,
        done: oneshot::Sender<Claimed>,
    },
}

/// What a job did, sent once its transaction committed.
enum Done {
    Written(Committed),
    Claimed(Vec<ClaimedRow>),
    Ran(Deliver),
    /// The job failed alone (SQLite undid just its statement).
    Failed(String),
}

impl Job {
    /// A fixed run's work: its claim, turns and verdict.
    fn is_run_work(&self) -> bool {
        matches!(
            self,
            Job::Claim { .. } | Job::Write(Write::Turn(_) | Write::Finish(_), _)
        )
    }

    fn reply(self, result: std::result::Result<Done, String>) {
        // A receiver that stopped waiting is no error: queued writes are
        // committed whether or not anyone waits.
        match (self, result) {
            (Job::Write(_, Some(done)), Ok(Done::Written(c))) => drop(done.send(Ok(c))),
            (Job::Claim { done, .. }, Ok(Done::Claimed(rows))) => drop(done.send(Ok(rows))),
            (Job::Write(_, Some(done)), Err(e)) => drop(done.send(Err(e))),
            (Job::Write(_, None), _) => {}
            (Job::Claim { done, .. }, Err(e)) => drop(done.send(Err(e))),
            (Job::Task(_), Ok(Done::Ran(deliver))) => deliver(Ok(())),
            // A task that never ran drops its caller's channel: the caller
            // learns that it did not run.
            (Job::Task(_), Err(_)) => {}
            (_, Ok(_)) => unreachable!("each job is answered with its own kind of result"),
        }
    }
}

/// The queue in front of the writer thread. The thread ends once the
/// queue is dropped and what was queued is committed.
pub struct Writer {
    /// `None` for a database opened for reading only: nothing is queued,
    /// every write is refused.
    queue: Option<mpsc::Sender<Job>>,
}

/// SQLite's words for a write to a database it opened for reading, which
/// [`crate::db_error::written_error`] turns into `DATABASE_UNAVAILABLE`.
const READ_ONLY: &str = "attempt to write a readonly database (the data folder is read-only)";

/// A queued write; [`Pending::committed`] waits for its commit. A queued
/// write is committed whether or not anyone waits.
pub struct Pending(oneshot::Receiver<Outcome>);

impl Pending {
    /// A write that could not be queued: it resolves to `error`.
    pub fn failed(error: Error) -> Self {
        Self::failed_with(format!("{error:#}"))
    }

    fn failed_with(text: String) -> Self {
        let (done, pending) = oneshot::channel();
        let _ = done.send(Err(text));
        Self(pending)
    }

    pub async fn committed(self) -> Result<Committed> {
        match self.0.await {
            Ok(outcome) => outcome.map_err(crate::db_error::written_error),
            Err(_) => Err(Error::internal(anyhow::anyhow!("the writer stopped"))),
        }
    }
}

impl Writer {
    /// Opens the writer's connection to the database file at `path` (its
    /// schema already migrated) and starts its thread.
    /// Each batch also stores the hosts counted in `contacts` since the
    /// one before (see [`agenteval_domain::provenance`]).
    pub fn open(
        path: &Path,
        contacts: Arc<agenteval_domain::provenance::Contacts>,
    ) -> Result<Self> {
        let conn = Connection::open(path).map_err(Error::internal)?;
        conn.busy_timeout(Duration::from_secs(10))
            .map_err(Error::internal)?;
        // A claim updates hundreds of rows inside the batch's transaction;
        // its statement journal stays in memory instead of a temporary file
        // created and deleted each time.
        conn.execute_batch(
            "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY;",
        )
        .map_err(Error::internal)?;
        let (queue, rx) = mpsc::channel();
        // The thread prepares its statements (they borrow its connection)
        // and says whether it could before it takes any job.
        let (ready, prepared) = mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("agenteval-writer".into())
            .spawn(move || match RunStatements::prepare(&conn) {
                Ok(mut statements) => {
                    let _ = ready.send(Ok(()));
                    run(&conn, &mut statements, rx, &contacts);
                }
                Err(e) => drop(ready.send(Err(e))),
            })
            .map_err(Error::internal)?;
        match prepared.recv() {
            Ok(Ok(())) => Ok(Self { queue: Some(queue) }),
            Ok(Err(e)) => Err(Error::internal(e)),
            Err(e) => Err(Error::internal(e)),
        }
    }

    /// The writer of a database opened for reading only: it refuses every
    /// write as SQLite would, and runs no thread.
    pub fn read_only() -> Self {
        Self { queue: None }
    }

    /// Refuses a job on a database opened for reading only.
    fn refused() -> Error {
        crate::db_error::written_error(READ_ONLY.into())
    }

    /// Queues `write` to be committed with whatever else is waiting.
    pub fn enqueue(&self, write: Write) -> Pending {
        let Some(queue) = &self.queue else {
            return Pending::failed_with(READ_ONLY.into());
        };
        let (done, committed) = oneshot::channel();
        // If the thread is gone, `done` is dropped with the write and the
        // wait reports it.
        let _ = queue.send(Job::Write(write, Some(done)));
        Pending(committed)
    }

    /// Queues `write` with no one waiting for it: a failure is logged (and
    /// a lost turn downgrades its run's verdict). On a database opened for
    /// reading only it is dropped.
    pub fn queue(&self, write: Write) {
        if let Some(queue) = &self.queue {
            let _ = queue.send(Job::Write(write, None));
        }
    }

    /// Runs `task` in the next batch's transaction, in a savepoint of its
    /// own: its writes are kept if it returns `Ok` and undone if it returns
    /// `Err`. Its result is returned once the transaction committed. Tasks
    /// are decisions that must read and write atomically (the exploration
    /// ledger's); they take turns with every other write without a
    /// hand-off per statement.
    pub async fn transact<T: Send + 'static>(
        &self,
        task: impl FnOnce(&Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let Some(queue) = &self.queue else {
            return Err(Self::refused());
        };
        let (done, answer) = oneshot::channel::<Result<T>>();
        let task: Task = Box::new(move |conn| {
            let result = in_savepoint(conn, task);
            Box::new(move |committed| {
                let _ = done.send(
                    committed
                        .map_err(crate::db_error::written_error)
                        .and(result),
                );
            })
        });
        let _ = queue.send(Job::Task(Some(task)));
        match answer.await {
            Ok(result) => result,
            Err(_) => Err(Error::internal(anyhow::anyhow!(
                "the writer could not run the task (see the log)"
            ))),
        }
    }

    /// Claims up to `limit` runs due at `now` (campaign running), oldest
    /// first, in the next batch: statement and rows never leave the
    /// writer's thread until the claim is committed.
    pub async fn claim(&self, limit: usize, now: i64, lease: Lease) -> Result<Vec<ClaimedRow>> {
        let Some(queue) = &self.queue else {
            return Err(Self::refused());
        };
        let (done, claimed) = oneshot::channel();
        let _ = queue.send(Job::Claim {
            limit,
            now,
            lease,
            done,
        });
        match claimed.await {
            Ok(rows) => rows.map_err(crate::db_error::written_error),
            Err(_) => Err(Error::internal(anyhow::anyhow!("the writer stopped"))),
        }
    }
}

/// The writer thread: commits whatever is waiting, batch after batch.
fn run(
    conn: &Connection,
    statements: &mut RunStatements<'_>,
    rx: mpsc::Receiver<Job>,
    contacts: &agenteval_domain::provenance::Contacts,
) {
    let mut lost = LostTurns::default();
    let mut tallies = RunTallies::default();
    // Kept from batch to batch, so that neither grows again each time.
    let mut batch: Vec<Job> = Vec::new();
    let mut done: Vec<Option<Done>> = Vec::new();
    while let Ok(first) = rx.recv() {
        let opened = Instant::now();
        batch.push(first);
        gather(&rx, &mut batch, opened);
        commit(
            conn,
            statements,
            &mut batch,
            &mut done,
            &mut lost,
            &mut tallies,
            contacts,
        );
        // Nothing is left after a commit; after a failure, what the
        // rolled-back batch added is forgotten.
        tallies.discard();
    }
}

/// Adds to `batch` whatever is waiting; if that makes it a busy stream of
/// run work (see [`LINGER`]), sleeps until `opened + LINGER` and adds what
/// arrived meanwhile. Sleeping once, rather than waiting on the queue, spares
/// a wake-up of this thread per job. At most [`MAX_BATCH`] jobs.
fn gather(rx: &mpsc::Receiver<Job>, batch: &mut Vec<Job>, opened: Instant) {
    let drain = |batch: &mut Vec<Job>| {
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
    };
    drain(batch);
    if batch.len() >= LINGER_FROM && batch.len() < MAX_BATCH && batch.iter().all(Job::is_run_work) {
        if let Some(wait) = (opened + LINGER).checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        drain(batch);
    }
}

/// Runs `batch` in one transaction and answers each job once it is
/// committed (or failed); `batch` is left empty. `done` is scratch space.
fn commit(
    conn: &Connection,
    statements: &mut RunStatements<'_>,
    batch: &mut Vec<Job>,
    done: &mut Vec<Option<Done>>,
    lost: &mut LostTurns,
    tallies: &mut RunTallies,
    contacts: &agenteval_domain::provenance::Contacts,
) {
    done.clear();
    let tx = match Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
        .db()
        .context("store: beginning a batch of writes")
    {
        Ok(tx) => tx,
        Err(e) => return all_failed(batch, done, lost, &why(&e)),
    };
    let conn = Conn::Sqlite(&tx);
    for job in batch.iter_mut() {
        let result = match job {
            Job::Write(write, _) => {
                let committed = lost.downgrade(write);
                apply(&conn, Some(&mut *statements), write, tallies)
                    .map(|()| Done::Written(committed))
            }
            Job::Claim {
                limit, now, lease, ..
            } => claim(&conn, *limit, *now, lease).map(Done::Claimed),
            Job::Task(task) => Ok(Done::Ran(task.take().expect("a task runs once")(&tx))),
        };
        // Some errors (a full disk, I/O) roll the whole transaction back;
        // then nothing of the batch is stored.
        if tx.is_autocommit() {
            let e = match &result {
                Err(e) => why(e),
                Ok(_) => "the transaction was rolled back".to_string(),
            };
            done.push(result.ok());
            return all_failed(batch, done, lost, &e);
        }
        match result {
            Ok(d) => done.push(Some(d)),
            Err(e) => {
                let e = why(&e);
                tracing::error!(error = %e, "a write could not be stored");
                if let Job::Write(write, _) = job {
                    lost.failed(write);
                }
                done.push(Some(Done::Failed(e)));
            }
        }
    }
    if let Err(e) = tallies.flush(&conn) {
        return all_failed(batch, done, lost, &why(&e));
    }
    let hosts = match super::provenance::flush_contacts(contacts, &conn) {
        Ok(hosts) => hosts,
        Err(e) => return all_failed(batch, done, lost, &why(&e)),
    };
    let committed = tx.commit().db();
    if let Err(e) = committed.context("store: committing a batch of writes") {
        contacts.restore(hosts);
        return all_failed(batch, done, lost, &why(&e));
    }
    for (job, d) in batch.drain(..).zip(done.drain(..)) {
        match d {
            Some(Done::Failed(e)) => job.reply(Err(e)),
            Some(d) => job.reply(Ok(d)),
            None => unreachable!("every job of a committed batch has its outcome"),
        }
    }
}

/// Why a job or a batch failed, for the log and the jobs' callers: what
/// the writer was doing, then the database's error.
fn why(e: &Error) -> String {
    match &e.cause {
        Some(cause) => format!("{cause:#}"),
        None => e.to_string(),
    }
}

/// Answers every job of a batch whose transaction failed; `done` holds
/// what the jobs before the failure did, which the failure undid.
fn all_failed(
    batch: &mut Vec<Job>,
    done: &mut Vec<Option<Done>>,
    lost: &mut LostTurns,
    e: &dyn std::fmt::Display,
) {
    tracing::error!(error = %e, "a batch of writes could not be stored");
    let mut done = done.drain(..);
    for job in batch.drain(..) {
        if let Job::Write(write, _) = &job {
            lost.failed(write);
        }
        match done.next().flatten() {
            Some(Done::Ran(deliver)) => deliver(Err(e.to_string())),
            // Failed alone, and answered so.
            Some(Done::Failed(own)) => job.reply(Err(own)),
            _ => job.reply(Err(e.to_string())),
        }
    }
}

/// Runs `task` in a savepoint: kept on `Ok`, undone on `Err`.
fn in_savepoint<T>(conn: &Connection, task: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
    conn.execute_batch("SAVEPOINT task")
        .db()
        .context("store: opening a task's savepoint")?;
    let result = task(conn);
    let end = if result.is_ok() {
        "RELEASE task"
    } else {
        "ROLLBACK TO task; RELEASE task"
    };
    match conn.execute_batch(end) {
        Ok(()) => result,
        // The transaction itself ended (the batch fails and says why).
        Err(_) if conn.is_autocommit() => result,
        Err(e) => Err(db_error(e).context("store: closing a task's savepoint")),
    }
}

/// The statements of a fixed run's rows, prepared once for the writer's
/// life: a run writes a few rows, and looking a statement up in the
/// connection's cache (hashing its text, twice) cost as much as binding it.
struct RunStatements<'c> {
    turn: Statement<'c>,
    finish: Statement<'c>,
}

impl<'c> RunStatements<'c> {
    fn prepare(conn: &'c Connection) -> rusqlite::Result<Self> {
        Ok(Self {
            turn: conn.prepare(INSERT_TURN)?,
            finish: conn.prepare(FINISH_RUN)?,
        })
    }
}

const INSERT_TURN: &str = "INSERT INTO run_turns (run_id, seq, role, content, latency_ms, tokens_in, tokens_out, tool_calls, steps, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

// On PostgreSQL, where another worker may have taken the run over, a turn
// is stored only while its claim is the run's latest. The run is read with
// a lock that waits for a takeover in flight (its claim holds the run's
// row) and then reads the run as the takeover left it.
const INSERT_TURN_OF_CLAIM: &str = "INSERT INTO run_turns (run_id, seq, role, content, latency_ms, tokens_in, tokens_out, tool_calls, steps, created_at)
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
     WHERE EXISTS (SELECT 1 FROM runs WHERE id = ? AND attempts = ? FOR KEY SHARE)";

// A verdict is final (migration 0008): a run already finished, by restart
// recovery say, keeps its first one. A verdict from a claim that another
// worker's later claim took over (attempts grew meanwhile) is not stored.
const FINISH_RUN: &str =
    "UPDATE runs SET status = 'done', verdict = ?, check_results = ?, metrics = ?,
         error_reason = ?, finished_at = ?
     WHERE id = ? AND status != 'done' AND attempts <= ?";

const INSERT_REPLY: &str =
    "INSERT INTO session_turns (id, session_id, seq, role, content, latency_ms, created_at, steps)
     VALUES (?, ?, ?, 'target', ?, ?, ?, ?)";

const DATE_SESSION: Sql = Sql::dialects(
    "UPDATE exploration_sessions SET updated_at = max(updated_at, ?) WHERE id = ?",
    "UPDATE exploration_sessions SET updated_at = GREATEST(updated_at, ?) WHERE id = ?",
);

/// On PostgreSQL a reply is one statement, [`INSERT_REPLY`] and
/// [`DATE_SESSION`] together, which commits by itself (see
/// [`PostgresWrites`]); stored already (a try again after the connection
/// broke), it changes nothing.
const REPLY_AND_DATE_SESSION: &str = "WITH reply AS (
        INSERT INTO session_turns (id, session_id, seq, role, content, latency_ms, created_at, steps)
        VALUES (?, ?, ?, 'target', ?, ?, ?, ?)
        ON CONFLICT (id) DO NOTHING
        RETURNING session_id, created_at)
     UPDATE exploration_sessions s SET updated_at = GREATEST(s.updated_at, reply.created_at)
     FROM reply WHERE s.id = reply.session_id";

/// [`REPLY_AND_DATE_SESSION`] as PostgreSQL numbers its parameters.
pub(crate) static REPLY_AND_DATE_SESSION_NUMBERED: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| crate::sql::numbered(REPLY_AND_DATE_SESSION));

/// The parameters of [`INSERT_REPLY`] and [`REPLY_AND_DATE_SESSION`].
pub(crate) fn reply_args(r: &ReplyRow) -> [Arg<'_>; 7] {
    [
        Arg::from(&r.id),
        Arg::from(&r.session_id),
        Arg::from(r.seq),
        Arg::from(&r.content),
        Arg::from(r.latency_ms),
        Arg::from(r.at),
        Arg::from(&r.steps),
    ]
}

const INSERT_AUDIT: &str = "INSERT INTO audit_events (id, at, actor, action, subject, outcome)
     VALUES (?, ?, ?, ?, ?, ?)";

/// Runs `sql` with `args`: through `prepared` when the writer's thread
/// prepared it, else through the connection.
fn execute(
    conn: &Conn<'_>,
    prepared: Option<&mut Statement<'_>>,
    sql: &'static str,
    args: &[Arg<'_>],
) -> Result<u64> {
    match prepared {
        Some(statement) => Ok(statement.execute(rusqlite::params_from_iter(args)).db()? as u64),
        None => conn.exec(sql, args),
    }
}

/// Runs one write's statements and adds a verdict to `tallies`. The
/// statements of a fixed run's rows run through `statements` when given
/// (the SQLite writer's, prepared once); the others, and all of them on
/// PostgreSQL, through the connection. Each statement names what it was
/// doing when it fails, in static text (nothing is allocated for a write
/// that is stored).
fn apply(
    conn: &Conn<'_>,
    mut statements: Option<&mut RunStatements<'_>>,
    write: &Write,
    tallies: &mut RunTallies,
) -> Result<()> {
    match write {
        Write::Turn(t) => {
            let mut id = Uuid::encode_buffer();
            let run_id = &*t.run_id.0.hyphenated().encode_lower(&mut id);
            let row = args![
                run_id,
                t.seq,
                t.role,
                &t.content,
                t.latency_ms,
                t.tokens_in,
                t.tokens_out,
                &t.tool_calls,
                &t.steps,
                t.created_at
            ];
            if conn.is_postgres() {
                let stored = conn
                    .exec(
                        INSERT_TURN_OF_CLAIM,
                        &[row, args![run_id, t.attempt]].concat(),
                    )
                    .context("store: writing a run's turn")?;
                if stored == 0 {
                    tracing::warn!(run = %run_id, attempt = t.attempt,
                        "a turn of a claim another worker took over is not stored");
                }
            } else {
                execute(
                    conn,
                    statements.as_mut().map(|s| &mut s.turn),
                    INSERT_TURN,
                    row,
                )
                .context("store: writing a run's turn")?;
            }
        }
        Write::Finish(f) => {
            let mut id = Uuid::encode_buffer();
            let id = &*f.id.hyphenated().encode_lower(&mut id);
            // Read first, so that once the verdict is written adding it to
            // the tallies cannot fail.
            let contribution = tallies.prepare(conn, id, &f.outcome)?;
            let changed = execute(
                conn,
                statements.as_mut().map(|s| &mut s.finish),
                FINISH_RUN,
                args![
                    f.verdict.as_str(),
                    &f.check_results,
                    &f.metrics,
                    &f.error_reason,
                    f.finished_at,
                    id,
                    f.attempt
                ],
            )
            .context("store: writing a run's verdict")?;
            if changed == 1 {
                let reason = f.error_reason.as_deref();
                tallies.add(id, &f.outcome, Some(f.verdict), reason, contribution);
            }
        }
        Write::Reply(r) => {
            let postgres = conn.is_postgres();
            let insert = if postgres {
                REPLY_AND_DATE_SESSION
            } else {
                INSERT_REPLY
            };
            conn.exec(insert, &reply_args(r))
                .context("store: writing a session's reply")?;
            if !postgres {
                conn.exec(DATE_SESSION, args![r.at, &r.session_id])
                    .context("store: dating a session by its reply")?;
            }
        }
        Write::Audit(a) => {
            conn.exec(
                INSERT_AUDIT,
                args![&a.id, a.at, &a.actor, &a.action, &a.subject, &a.outcome],
            )
            .context("store: writing an audit event")?;
        }
    }
    Ok(())
}

mod claim;
mod lost;
mod rows;
use lost::LostTurns;
mod postgres;
pub use claim::{ClaimedRow, Lease};
pub(crate) use claim::{claim, claimed_from_row};
pub use postgres::PostgresWrites;

#[cfg(test)]
mod tests;
