//! Group commit for the hot writes: claims of due runs, fixed-run turns,
//! run verdicts, the target's replies in exploration sessions, audit
//! events.
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
//! with the run tallies they change added by upserts in that transaction,
//! and due runs are claimed with the rows locked and the locked ones
//! skipped ([`claim`]).

use crate::postgres::Mode;
use crate::sql::{Arg, Conn, Sql, args};
use crate::tallies::RunTallies;
use agenteval_domain::error::{Context, Error, Result};
use agenteval_domain::ids::{CampaignId, RunId};
use agenteval_domain::provenance::Contacts;
use agenteval_domain::run::Verdict;
use agenteval_domain::tally::RunOutcome;
use rusqlite::{Connection, Statement, Transaction, TransactionBehavior};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::oneshot;
use uuid::Uuid;

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

/// The verdict's reason when one of the run's turns could not be stored.
pub const TURN_LOST: &str = "storage_error: a turn could not be stored";

/// One turn of a fixed run.
#[derive(Debug, Clone)]
pub struct TurnRow {
    pub run_id: RunId,
    pub seq: i64,
    pub role: &'static str,
    pub content: String,
    pub latency_ms: Option<i64>,
    pub tokens_in: Option<i64>,
    pub tokens_out: Option<i64>,
    pub tool_calls: Option<String>,
    pub created_at: i64,
}

/// A run's verdict.
#[derive(Debug, Clone)]
pub struct FinishRow {
    pub id: Uuid,
    pub verdict: Verdict,
    pub check_results: String,
    pub metrics: String,
    pub error_reason: Option<String>,
    pub finished_at: i64,
    /// What the run adds to the report's tallies.
    pub outcome: Box<RunOutcome>,
}

/// An audit event.
#[derive(Debug, Clone)]
pub struct AuditRow {
    pub id: String,
    pub at: i64,
    pub actor: String,
    pub action: String,
    pub subject: Option<String>,
    pub outcome: String,
}

/// The target's reply in an exploration session (its user turn and the
/// budget decision were committed before the target was called).
#[derive(Debug, Clone)]
pub struct ReplyRow {
    pub id: String,
    pub session_id: String,
    pub seq: i64,
    pub content: String,
    pub latency_ms: i64,
    pub at: i64,
}

#[derive(Debug, Clone)]
pub enum Write {
    Turn(TurnRow),
    Finish(FinishRow),
    Reply(ReplyRow),
    Audit(AuditRow),
}

/// How a queued write was committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Committed {
    AsQueued,
    /// A run's verdict, stored as `error` because one of its turns could
    /// not be stored.
    TurnsMissing,
}

/// A due run claimed for execution (`pending -> running`).
#[derive(Debug, Clone)]
pub struct ClaimedRow {
    pub id: Uuid,
    pub campaign_id: CampaignId,
    pub scenario_id: Arc<str>,
    pub offset_ms: i64,
}

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
    queue: mpsc::Sender<Job>,
}

/// A queued write; [`Pending::committed`] waits for its commit. A queued
/// write is committed whether or not anyone waits.
pub struct Pending(oneshot::Receiver<Outcome>);

impl Pending {
    /// A write that could not be queued: it resolves to `error`.
    pub fn failed(error: Error) -> Self {
        let (done, pending) = oneshot::channel();
        let _ = done.send(Err(format!("{error:#}")));
        Self(pending)
    }

    pub async fn committed(self) -> Result<Committed> {
        match self.0.await {
            Ok(outcome) => outcome.map_err(|e| Error::internal(anyhow::anyhow!(e))),
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
            Ok(Ok(())) => Ok(Self { queue }),
            Ok(Err(e)) => Err(Error::internal(e)),
            Err(e) => Err(Error::internal(e)),
        }
    }

    /// Queues `write` to be committed with whatever else is waiting.
    pub fn enqueue(&self, write: Write) -> Pending {
        let (done, committed) = oneshot::channel();
        // If the thread is gone, `done` is dropped with the write and the
        // wait reports it.
        let _ = self.queue.send(Job::Write(write, Some(done)));
        Pending(committed)
    }

    /// Queues `write` with no one waiting for it: a failure is logged (and
    /// a lost turn downgrades its run's verdict).
    pub fn queue(&self, write: Write) {
        let _ = self.queue.send(Job::Write(write, None));
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
        let (done, answer) = oneshot::channel::<Result<T>>();
        let task: Task = Box::new(move |conn| {
            let result = in_savepoint(conn, task);
            Box::new(move |committed| {
                let _ = done.send(
                    committed
                        .map_err(|e| Error::internal(anyhow::anyhow!(e)))
                        .and(result),
                );
            })
        });
        let _ = self.queue.send(Job::Task(Some(task)));
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
    pub async fn claim(&self, limit: usize, now: i64) -> Result<Vec<ClaimedRow>> {
        let (done, claimed) = oneshot::channel();
        let _ = self.queue.send(Job::Claim { limit, now, done });
        match claimed.await {
            Ok(rows) => rows.map_err(|e| Error::internal(anyhow::anyhow!(e))),
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
            Job::Claim { limit, now, .. } => claim(&conn, *limit, *now).map(Done::Claimed),
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
    if let Err(e) = tx.commit().context("store: committing a batch of writes") {
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
        Err(e) => Err(Error::from(e).context("store: closing a task's savepoint")),
    }
}

/// Claims up to `limit` due runs of running campaigns (`pending ->
/// running`), oldest first. On PostgreSQL the runs are locked as they are
/// picked and the runs another transaction holds are skipped, so that
/// processes claiming at once never claim the same run.
pub(crate) fn claim(conn: &Conn<'_>, limit: usize, now: i64) -> Result<Vec<ClaimedRow>> {
    conn.rows(
        CLAIM,
        args![now, limit as i64],
        crate::runs::claimed_from_row,
    )
    .context("store: claiming the due runs")
}

const CLAIM: Sql = Sql::dialects(
    "UPDATE runs SET status = 'running', started_at = ?1
     WHERE rowid IN (SELECT r.rowid FROM runs r JOIN campaigns c ON c.id = r.campaign_id
                     WHERE r.status != 'done' AND r.status = 'pending' -- the partial index `runs_open`
                       AND r.scheduled_at <= ?1 AND c.status = 'running'
                     ORDER BY r.scheduled_at, r.seq LIMIT ?2)
       AND +status = 'pending' -- a guard, not an index choice
     RETURNING id, campaign_id, scenario_id, offset_ms",
    "UPDATE runs SET status = 'running', started_at = $1
     WHERE id IN (SELECT r.id FROM runs r JOIN campaigns c ON c.id = r.campaign_id
                  WHERE r.status = 'pending' AND r.scheduled_at <= $1 AND c.status = 'running'
                  ORDER BY r.scheduled_at, r.seq LIMIT $2
                  FOR UPDATE OF r SKIP LOCKED)
     RETURNING id, campaign_id, scenario_id, offset_ms",
);

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

const INSERT_TURN: &str = "INSERT INTO run_turns (run_id, seq, role, content, latency_ms, tokens_in, tokens_out, tool_calls, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";

// A verdict is final (migration 0008): a run already finished, by restart
// recovery say, keeps its first one.
const FINISH_RUN: &str =
    "UPDATE runs SET status = 'done', verdict = ?, check_results = ?, metrics = ?,
         error_reason = ?, finished_at = ?
     WHERE id = ? AND status != 'done'";

const INSERT_REPLY: &str =
    "INSERT INTO session_turns (id, session_id, seq, role, content, latency_ms, created_at)
     VALUES (?, ?, ?, 'target', ?, ?, ?)";

const DATE_SESSION: Sql = Sql::dialects(
    "UPDATE exploration_sessions SET updated_at = max(updated_at, ?) WHERE id = ?",
    "UPDATE exploration_sessions SET updated_at = GREATEST(updated_at, ?) WHERE id = ?",
);

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
        Some(statement) => Ok(statement.execute(rusqlite::params_from_iter(args))? as u64),
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
            execute(
                conn,
                statements.as_mut().map(|s| &mut s.turn),
                INSERT_TURN,
                args![
                    run_id,
                    t.seq,
                    t.role,
                    &t.content,
                    t.latency_ms,
                    t.tokens_in,
                    t.tokens_out,
                    &t.tool_calls,
                    t.created_at
                ],
            )
            .context("store: writing a run's turn")?;
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
                    id
                ],
            )
            .context("store: writing a run's verdict")?;
            if changed == 1 {
                let reason = f.error_reason.as_deref();
                tallies.add(id, &f.outcome, Some(f.verdict), reason, contribution);
            }
        }
        Write::Reply(r) => {
            conn.exec(
                INSERT_REPLY,
                args![&r.id, &r.session_id, r.seq, &r.content, r.latency_ms, r.at],
            )
            .context("store: writing a session's reply")?;
            conn.exec(DATE_SESSION, args![r.at, &r.session_id])
                .context("store: dating a session by its reply")?;
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

/// Runs with a turn that could not be stored, until their verdict comes.
#[derive(Default)]
struct LostTurns(HashSet<Uuid>);

impl LostTurns {
    /// Turns `write` into an `error` verdict if it is the verdict of a run
    /// that lost a turn.
    fn downgrade(&mut self, write: &mut Write) -> Committed {
        match write {
            Write::Finish(f) if self.0.remove(&f.id) => {
                f.verdict = Verdict::Error;
                // Read what was stored instead.
                f.outcome.latencies = None;
                f.error_reason = Some(TURN_LOST.into());
                Committed::TurnsMissing
            }
            _ => Committed::AsQueued,
        }
    }

    fn failed(&mut self, write: &Write) {
        if let Write::Turn(t) = write {
            self.0.insert(t.run_id.into());
        }
    }
}

/// The hot writes on PostgreSQL: each write is committed in a transaction
/// of its own, on a task of its own, so that queuing never waits. The
/// writes of one fixed run are committed in the order they were queued
/// (each waits for the one before), so that a verdict comes after its
/// turns and is stored as `error` if one of them could not be; the run
/// tallies and the hosts contacted are added in the write's transaction.
pub struct PostgresWrites {
    pool: sqlx::PgPool,
    contacts: Arc<Contacts>,
    lost: Mutex<LostTurns>,
    /// Per run with writes in flight: the number of its last write and
    /// what resolves once that write is done.
    last: Mutex<HashMap<Uuid, (u64, oneshot::Receiver<()>)>>,
    queued: std::sync::atomic::AtomicU64,
}

impl PostgresWrites {
    /// The writes over `pool`; `contacts` are stored with them.
    pub fn new(pool: sqlx::PgPool, contacts: Arc<Contacts>) -> Self {
        Self {
            pool,
            contacts,
            lost: Mutex::default(),
            last: Mutex::default(),
            queued: Default::default(),
        }
    }

    /// Starts committing `write`; the returned [`Pending`] resolves once it
    /// is committed.
    pub fn enqueue(self: &Arc<Self>, write: Write) -> Pending {
        let (done, committed) = oneshot::channel();
        self.spawn(write, Some(done));
        Pending(committed)
    }

    /// Starts committing `write` with no one waiting for it: a failure is
    /// logged (and a lost turn downgrades its run's verdict).
    pub fn queue(self: &Arc<Self>, write: Write) {
        self.spawn(write, None);
    }

    fn spawn(self: &Arc<Self>, write: Write, done: Option<oneshot::Sender<Outcome>>) {
        let runtime = match tokio::runtime::Handle::try_current() {
            Ok(runtime) => runtime,
            Err(e) => {
                let e = format!("store: a write was queued outside the runtime: {e}");
                tracing::error!(error = %e, "a write could not be stored");
                if let Some(done) = done {
                    let _ = done.send(Err(e));
                }
                return;
            }
        };
        // The run's previous write, if it is still in flight, goes first.
        let order = run_of(&write).map(|run| {
            let n = self
                .queued
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let (finished, next) = oneshot::channel();
            let before = lock(&self.last).insert(run, (n, next));
            (run, n, finished, before.map(|(_, before)| before))
        });
        let this = Arc::clone(self);
        runtime.spawn(async move {
            let finished = match order {
                Some((run, n, finished, before)) => {
                    if let Some(before) = before {
                        // Done or dropped: either way the previous write ended.
                        let _ = before.await;
                    }
                    Some((run, n, finished))
                }
                None => None,
            };
            let outcome = this.commit(write).await;
            if let Some((run, n, finished)) = finished {
                let mut last = lock(&this.last);
                if last.get(&run).is_some_and(|(last, _)| *last == n) {
                    last.remove(&run);
                }
                drop(last);
                let _ = finished.send(());
            }
            if let Err(e) = &outcome {
                tracing::error!(error = %e, "a write could not be stored");
            }
            if let Some(done) = done {
                let _ = done.send(outcome);
            }
        });
    }

    /// Commits one write in a transaction of its own.
    async fn commit(&self, mut write: Write) -> Outcome {
        let committed = lock(&self.lost).downgrade(&mut write);
        let turn = match &write {
            Write::Turn(t) => Some(t.run_id),
            _ => None,
        };
        let contacts = Arc::clone(&self.contacts);
        // What the transaction stored of `contacts`, counted again if it
        // does not commit.
        let stored = Arc::new(Mutex::new(None));
        let kept = Arc::clone(&stored);
        let result = crate::postgres::run(&self.pool, Mode::Write, move |session| {
            let conn = Conn::Postgres(session);
            let mut tallies = RunTallies::default();
            apply(&conn, None, &write, &mut tallies)?;
            tallies.flush(&conn)?;
            *lock(&kept) = Some(super::provenance::flush_contacts(&contacts, &conn)?);
            Ok(committed)
        })
        .await;
        result.map_err(|e| {
            if let Some(hosts) = lock(&stored).take() {
                self.contacts.restore(hosts);
            }
            if let Some(run) = turn {
                lock(&self.lost).0.insert(run.into());
            }
            why(&e)
        })
    }
}

/// The fixed run a write belongs to, if any.
fn run_of(write: &Write) -> Option<Uuid> {
    match write {
        Write::Turn(t) => Some(t.run_id.into()),
        Write::Finish(f) => Some(f.id),
        Write::Reply(_) | Write::Audit(_) => None,
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    fn turn(run_id: RunId, seq: i64) -> Write {
        Write::Turn(TurnRow {
            run_id,
            seq,
            role: "user",
            content: format!("turn {seq}"),
            latency_ms: None,
            tokens_in: None,
            tokens_out: None,
            tool_calls: None,
            created_at: 1,
        })
    }

    fn finish(run_id: RunId, campaign_id: CampaignId) -> Write {
        Write::Finish(FinishRow {
            id: run_id.into(),
            verdict: Verdict::Passed,
            check_results: "[]".into(),
            metrics: serde_json::to_string(&agenteval_domain::run::RunMetrics::default()).unwrap(),
            error_reason: None,
            finished_at: 2,
            // As the engine sends it: with the latency of the reply it
            // played (a value no stored turn has).
            outcome: Box::new(RunOutcome {
                latencies: Some(vec![999]),
                ..RunOutcome::bare(campaign_id, "s".into(), 0)
            }),
        })
    }

    async fn store(dir: &Path) -> Store {
        Store::open(dir, Default::default()).await.unwrap()
    }

    /// A target, a one-hour campaign and its two pending runs of scenario
    /// `s`, as the campaign operations store them.
    async fn campaign_with_two_runs(store: &Store) -> (Uuid, Uuid, Uuid) {
        let (target, campaign) = (Uuid::now_v7(), Uuid::now_v7());
        let runs = (Uuid::now_v7(), Uuid::now_v7());
        let ids = [target, campaign, runs.0, runs.1].map(|id| id.to_string());
        store
            .write(move |c| {
                c.exec(
                    "INSERT INTO targets (id, name, channel, created_at, updated_at)
                     VALUES (?, 'demo', '{}', 0, 0)",
                    args![&ids[0]],
                )?;
                c.exec(
                    "INSERT INTO campaigns (id, name, target_id, status, window_start, window_end, plan,
                         created_at, updated_at)
                     VALUES (?, 'c', ?, 'running', 0, 3600000, '{}', 0, 0)",
                    args![&ids[1], &ids[0]],
                )?;
                c.exec(
                    "INSERT INTO runs (id, campaign_id, scenario_id, scenario_hash, seq, offset_ms,
                         scheduled_at, status, created_at)
                     VALUES (?, ?, 's', 'h', 0, 0, 0, 'running', 0),
                            (?, ?, 's', 'h', 1, 0, 0, 'running', 0)",
                    args![&ids[2], &ids[1], &ids[3], &ids[1]],
                )
            })
            .await
            .unwrap();
        (campaign, runs.0, runs.1)
    }

    #[test]
    fn a_writer_over_a_database_without_the_schema_is_refused_at_open() {
        let dir = tempfile::tempdir().unwrap();
        let refused = Writer::open(&dir.path().join("empty.db"), Default::default());
        let cause = refused.err().expect("no run_turns table").cause.unwrap();
        assert!(cause.to_string().contains("run_turns"), "{cause}");
    }

    #[tokio::test]
    async fn a_task_that_fails_undoes_only_its_own_writes() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path()).await;
        let insert = |conn: &Conn<'_>, id: &str| {
            conn.exec(
                "INSERT INTO audit_events (id, at, actor, action, subject, outcome)
                 VALUES (?, 1, 'test', 'task', NULL, 'ok')",
                args![id],
            )
        };
        // Queued together, so that they share a batch and its transaction.
        let (failed, kept, written) = tokio::join!(
            store.transact(move |tx| {
                insert(&tx.0, "undone")?;
                Err::<(), _>(Error::invalid("refused", "none"))
            }),
            store.transact(move |tx| {
                insert(&tx.0, "kept")?;
                Ok(42)
            }),
            store
                .enqueue(Write::Audit(AuditRow {
                    id: "written".into(),
                    at: 1,
                    actor: "test".into(),
                    action: "write".into(),
                    subject: None,
                    outcome: "ok".into(),
                }))
                .committed(),
        );
        assert_eq!(
            failed.unwrap_err().code(),
            agenteval_domain::error::ErrorCode::InvalidInput,
            "the task's own error comes back"
        );
        assert_eq!(kept.unwrap(), 42);
        assert_eq!(written.unwrap(), Committed::AsQueued);
        let ids: Vec<String> = store
            .read(|c| {
                c.rows("SELECT id FROM audit_events ORDER BY id", args![], |r| {
                    r.get(0)
                })
            })
            .await
            .unwrap();
        assert_eq!(
            ids,
            ["kept", "written"],
            "only the failed task's row is undone"
        );
    }

    #[tokio::test]
    async fn a_write_that_fails_names_the_statement_the_writer_was_running() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path()).await;
        // A turn of a run that does not exist breaks the turns' foreign key.
        let err = store
            .enqueue(turn(RunId(Uuid::from_u128(7)), 0))
            .committed()
            .await
            .unwrap_err();
        let chain = format!(
            "{:#}",
            err.cause.expect("an internal error keeps its cause")
        );
        assert!(
            chain.starts_with("store: writing a run's turn: "),
            "the log names what the writer was doing: {chain}"
        );
        assert!(
            chain.contains("FOREIGN KEY"),
            "then the database's error: {chain}"
        );
    }

    #[tokio::test]
    async fn a_verdict_over_a_lost_turn_is_stored_as_an_error_and_the_rest_of_the_batch_lands() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path()).await;
        let (campaign, lossy, sound) = campaign_with_two_runs(&store).await;

        // Queued together, so they meet in one batch; the second turn of
        // `lossy` repeats a (run, seq) pair and cannot be stored.
        let queued: Vec<Pending> = [
            turn(RunId(lossy), 0),
            turn(RunId(lossy), 0),
            turn(RunId(sound), 0),
            finish(RunId(lossy), CampaignId(campaign)),
            finish(RunId(sound), CampaignId(campaign)),
        ]
        .into_iter()
        .map(|w| store.enqueue(w))
        .collect();
        let mut outcomes = Vec::new();
        for q in queued {
            outcomes.push(q.committed().await.map_err(|e| e.body.code));
        }
        assert!(outcomes[0].is_ok() && outcomes[2].is_ok(), "{outcomes:?}");
        assert!(outcomes[1].is_err(), "the repeated turn fails alone");
        assert_eq!(outcomes[3], Ok(Committed::TurnsMissing));
        assert_eq!(outcomes[4], Ok(Committed::AsQueued));

        let runs: Vec<(String, Option<String>, i64)> = store
            .read(|c| {
                c.rows(
                    "SELECT verdict, error_reason, (SELECT count(*) FROM run_turns t WHERE t.run_id = r.id)
                     FROM runs r ORDER BY seq",
                    args![],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
            })
            .await
            .unwrap();
        assert_eq!(
            runs,
            [
                ("error".into(), Some(TURN_LOST.into()), 1),
                ("passed".into(), None, 1)
            ]
        );

        // The report's tallies count the verdict as stored, and the
        // latencies of the turns that were stored, not those sent.
        async fn pairs<A, B>(store: &Store, sql: &'static str) -> Vec<(A, B)>
        where
            A: crate::sql::Column + Send + 'static,
            B: crate::sql::Column + Send + 'static,
        {
            store
                .read(move |c| c.rows(sql, args![], |r| Ok((r.get(0)?, r.get(1)?))))
                .await
                .unwrap()
        }
        let verdicts: Vec<(String, i64)> = pairs(
            &store,
            "SELECT verdict, runs FROM run_verdict_tally ORDER BY verdict",
        )
        .await;
        assert_eq!(verdicts, [("error".into(), 1), ("passed".into(), 1)]);
        let errors: Vec<(String, i64)> =
            pairs(&store, "SELECT reason, count FROM run_error_tally").await;
        assert_eq!(errors, [("storage_error".into(), 1)]);
        let latencies: Vec<(i64, i64)> =
            pairs(&store, "SELECT latency_ms, count FROM run_latency_tally").await;
        assert_eq!(latencies, [(999, 1)], "only the sound run's reply");
    }
}
