//! The hot writes on PostgreSQL (see the [parent module](super)).

use super::*;

/// The hot writes on PostgreSQL: each write is committed in a transaction
/// of its own (a session's reply in one statement), on a task of its own,
/// so that queuing never waits; audit events are stored in batches (see
/// [`PostgresWrites::audit`]). The
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
    /// Audit events waiting to be stored together.
    audits: Mutex<Audits>,
}

/// Audit events queued while a batch of them is being stored: the next
/// batch, stored in one statement once that one is done.
#[derive(Default)]
struct Audits {
    waiting: Vec<(AuditRow, Option<oneshot::Sender<Outcome>>)>,
    /// A task is storing batches until none is left.
    storing: bool,
}

/// The most events one statement stores (6 parameters each, of the
/// 65,535 a statement may have).
const AUDIT_BATCH: usize = 1000;

impl PostgresWrites {
    /// The writes over `pool`; `contacts` are stored with them.
    pub fn new(pool: sqlx::PgPool, contacts: Arc<Contacts>) -> Self {
        Self {
            pool,
            contacts,
            lost: Mutex::default(),
            last: Mutex::default(),
            queued: Default::default(),
            audits: Mutex::default(),
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
        if let Write::Audit(row) = write {
            return self.audit(row, done);
        }
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

    /// Queues an audit event: with a batch being stored, it waits for the
    /// next, which stores every event queued meanwhile in one statement;
    /// otherwise a batch of its own starts now. Under load a statement
    /// stores many events, and alone an event waits for nothing.
    fn audit(self: &Arc<Self>, row: AuditRow, done: Option<oneshot::Sender<Outcome>>) {
        let mut audits = lock(&self.audits);
        audits.waiting.push((row, done));
        if audits.storing {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            let e = "store: an audit event was queued outside the runtime".to_string();
            tracing::error!(error = %e, "an audit event could not be stored");
            for (_, done) in audits.waiting.drain(..) {
                if let Some(done) = done {
                    let _ = done.send(Err(e.clone()));
                }
            }
            return;
        };
        audits.storing = true;
        drop(audits);
        let this = Arc::clone(self);
        runtime.spawn(async move {
            loop {
                let batch: Vec<_> = {
                    let mut audits = lock(&this.audits);
                    if audits.waiting.is_empty() {
                        audits.storing = false;
                        return;
                    }
                    let n = audits.waiting.len().min(AUDIT_BATCH);
                    audits.waiting.drain(..n).collect()
                };
                let (rows, waiting): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
                let outcome = store_audits(&this.pool, rows).await.map_err(|e| why(&e));
                if let Err(e) = &outcome {
                    tracing::error!(error = %e, "audit events could not be stored");
                }
                for done in waiting.into_iter().flatten() {
                    let _ = done.send(outcome.clone());
                }
            }
        });
    }

    /// Commits one write in a transaction of its own. While the database
    /// cannot be reached (a restart, a failover) a fixed run's write is
    /// tried again, for at most [`OUTAGE_RIDDEN_OUT`]: its turns wait for
    /// the database rather than being lost. Any other write (a session's
    /// reply, an audit event) fails at once: someone is waiting for it.
    async fn commit(&self, mut write: Write) -> Outcome {
        let committed = lock(&self.lost).downgrade(&mut write);
        let turn = match &write {
            Write::Turn(t) => Some(t.run_id),
            _ => None,
        };
        let rides_out = run_of(&write).is_some();
        let started = std::time::Instant::now();
        let mut pause = std::time::Duration::from_millis(100);
        let result = loop {
            match self.commit_once(write.clone(), committed).await {
                Err(e)
                    if rides_out
                        && e.code() == agenteval_domain::error::ErrorCode::DatabaseUnavailable
                        && started.elapsed() < OUTAGE_RIDDEN_OUT =>
                {
                    tracing::warn!(error = %why(&e), "the database is unavailable; the write waits for it");
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(std::time::Duration::from_secs(2));
                }
                result => break result,
            }
        };
        result.map_err(|e| {
            if let Some(run) = turn {
                lock(&self.lost).0.insert(run.into());
            }
            why(&e)
        })
    }

    /// One try of [`Self::commit`]: the contacts it stored are counted
    /// again when it does not commit.
    async fn commit_once(&self, write: Write, committed: Committed) -> Result<Committed> {
        if let Write::Reply(reply) = &write
            && self.contacts.is_empty()
        {
            // One statement, which commits by itself, sent from the
            // runtime; the contacts counted meanwhile go with the next
            // write that has a transaction.
            let sql = super::REPLY_AND_DATE_SESSION_NUMBERED.as_str();
            crate::postgres::query(&self.pool, sql, &super::reply_args(reply)).await?;
            return Ok(committed);
        }
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
            *lock(&kept) = Some(crate::provenance::flush_contacts(&contacts, &conn)?);
            Ok(committed)
        })
        .await;
        if result.is_err()
            && let Some(hosts) = lock(&stored).take()
        {
            self.contacts.restore(hosts);
        }
        result
    }
}

/// Stores audit events in one statement, which commits by itself (each
/// event once, should it be tried again).
async fn store_audits(pool: &sqlx::PgPool, rows: Vec<AuditRow>) -> Result<Committed> {
    let values: Vec<String> = (0..rows.len())
        .map(|i| {
            let n = i * 6;
            format!(
                "(${}, ${}, ${}, ${}, ${}, ${})",
                n + 1,
                n + 2,
                n + 3,
                n + 4,
                n + 5,
                n + 6
            )
        })
        .collect();
    let sql = format!(
        "INSERT INTO audit_events (id, at, actor, action, subject, outcome) VALUES {}
         ON CONFLICT (id) DO NOTHING",
        values.join(", ")
    );
    let args: Vec<Arg<'_>> = rows
        .iter()
        .flat_map(|a| {
            [
                Arg::from(&a.id),
                Arg::from(a.at),
                Arg::from(&a.actor),
                Arg::from(&a.action),
                Arg::from(&a.subject),
                Arg::from(&a.outcome),
            ]
        })
        .collect();
    crate::postgres::query(pool, &sql, &args)
        .await
        .context("store: writing audit events")?;
    Ok(Committed::AsQueued)
}

/// How long a write waits for a database that cannot be reached: less than
/// a run's lease less one renewal, so that the worker still holds the run
/// when the write lands.
const OUTAGE_RIDDEN_OUT: std::time::Duration = std::time::Duration::from_secs(15);

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
