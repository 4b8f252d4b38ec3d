//! The hot writes on PostgreSQL (see the [parent module](super)).

use super::*;

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
