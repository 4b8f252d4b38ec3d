//! The fixed runs on PostgreSQL (a real server, `tests/support/postgres.rs`):
//! claims that several callers make at once, the hot writes each in a
//! transaction of their own (turns, verdicts, a lost turn's downgrade,
//! replies, audit events), the run tallies they keep exact under concurrent
//! writers, and the report's reads of them.

#[path = "support/mod.rs"]
mod support;

use agenteval_domain::ids::{CampaignId, RunId};
use agenteval_domain::run::{RunMetrics, Verdict};
use agenteval_domain::tally::RunOutcome;
use agenteval_store::Store;
use agenteval_store::writer::{
    AuditRow, Committed, FinishRow, ReplyRow, TURN_LOST, TurnRow, Write,
};
use chrono::{TimeZone, Utc};
use sqlx::PgPool;
use std::collections::HashSet;
use uuid::Uuid;

/// A target, a running campaign of one hour and `runs` pending runs of
/// scenario `s`, due at 0 in plan order.
async fn campaign(pool: &PgPool, runs: usize) -> (CampaignId, Vec<Uuid>) {
    let (target, campaign) = (Uuid::now_v7().to_string(), Uuid::now_v7());
    sqlx::query(
        "INSERT INTO targets (id, name, channel, concurrency, created_at, updated_at)
         VALUES ($1, 'demo', '{}', 7, 0, 0)",
    )
    .bind(&target)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO campaigns (id, name, target_id, status, window_start, window_end, plan,
             created_at, updated_at)
         VALUES ($1, 'c', $2, 'running', 0, 3600000, '{}', 0, 0)",
    )
    .bind(campaign.to_string())
    .bind(&target)
    .execute(pool)
    .await
    .unwrap();
    let mut ids = Vec::new();
    for seq in 0..runs {
        let id = Uuid::now_v7();
        sqlx::query(
            "INSERT INTO runs (id, campaign_id, scenario_id, scenario_hash, seq, offset_ms,
                 scheduled_at, status, created_at)
             VALUES ($1, $2, 's', 'h', $3, $4, 0, 'pending', 0)",
        )
        .bind(id.to_string())
        .bind(campaign.to_string())
        .bind(seq as i64)
        .bind(seq as i64 * 1000)
        .execute(pool)
        .await
        .unwrap();
        ids.push(id);
    }
    (CampaignId(campaign), ids)
}

fn turn(run: Uuid, seq: i64, latency_ms: Option<i64>) -> Write {
    Write::Turn(TurnRow {
        run_id: RunId(run),
        attempt: 1,
        seq,
        role: if latency_ms.is_some() {
            "target"
        } else {
            "user"
        },
        content: format!("turn {seq}"),
        latency_ms,
        tokens_in: None,
        tokens_out: None,
        tool_calls: None,
        steps: None,
        created_at: 1,
    })
}

fn finish(run: Uuid, campaign: CampaignId, verdict: Verdict, latencies: Vec<i64>) -> Write {
    finish_attempt(run, campaign, verdict, latencies, 1)
}

/// A verdict from the `attempt`-th claim of a run.
fn finish_attempt(
    run: Uuid,
    campaign: CampaignId,
    verdict: Verdict,
    latencies: Vec<i64>,
    attempt: i64,
) -> Write {
    Write::Finish(FinishRow {
        id: run,
        verdict,
        check_results: "[]".into(),
        metrics: serde_json::to_string(&RunMetrics::default()).unwrap(),
        error_reason: None,
        finished_at: 2,
        attempt,
        outcome: Box::new(RunOutcome {
            latencies: Some(latencies),
            ..RunOutcome::bare(campaign, "s".into(), 0)
        }),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn runs_are_claimed_once_written_in_order_and_tallied_exactly() {
    let db = support::postgres::fresh_database().await;
    let store = Store::open_database(&db.url, Default::default())
        .await
        .unwrap();
    let pool = db.pool().await;
    let (campaign, runs) = campaign(&pool, 24).await;

    // Claims made at once never share a run.
    let claims = futures_join(&store, 8, 5).await;
    let claimed: Vec<Uuid> = claims.iter().flatten().map(|r| r.id).collect();
    let distinct: HashSet<Uuid> = claimed.iter().copied().collect();
    assert_eq!(claimed.len(), distinct.len(), "a run was claimed twice");
    assert_eq!(distinct.len(), 24);
    assert!(store.claim_due_runs(5, 10).await.unwrap().is_empty());

    // Run 0 loses a turn (a repeated seq); its verdict, queued right after
    // without waiting for the turns, is stored as an error.
    store.queue(turn(runs[0], 0, None));
    store.queue(turn(runs[0], 0, None));
    let lossy = store
        .enqueue(finish(runs[0], campaign, Verdict::Passed, vec![999]))
        .committed();
    // Runs 1..21 finish at once, each with a reply at 40 ms.
    let mut pending = Vec::new();
    for &run in &runs[1..21] {
        store.queue(turn(run, 0, None));
        store.queue(turn(run, 1, Some(40)));
        pending.push(
            store
                .enqueue(finish(run, campaign, Verdict::Passed, vec![40]))
                .committed(),
        );
    }
    assert_eq!(lossy.await.unwrap(), Committed::TurnsMissing);
    for p in pending {
        assert_eq!(p.await.unwrap(), Committed::AsQueued);
    }

    let stored: (String, Option<String>) =
        sqlx::query_as("SELECT verdict, error_reason FROM runs WHERE id = $1")
            .bind(runs[0].to_string())
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(stored, ("error".into(), Some(TURN_LOST.into())));
    let turns = store.run_turns(RunId(runs[1])).await.unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[1].latency_ms, Some(40));

    // Runs 21..24 are still running, as if their worker had died. A worker
    // starting on PostgreSQL does not mark them interrupted (other workers
    // may be playing theirs): they wait for their leases, claimed at 10 ms
    // until 10 ms + RUN_LEASE.
    let interrupted = store
        .transact(|tx| tx.finish_interrupted_runs(Utc.timestamp_millis_opt(3).unwrap()))
        .await
        .unwrap();
    assert_eq!(interrupted, 0, "runs under a lease are not interrupted");
    let expiry = 10 + agenteval_store::runs::RUN_LEASE.as_millis() as i64;
    let other = Store::open_database(&db.url, Default::default())
        .await
        .unwrap();
    assert_ne!(
        other.worker(),
        store.worker(),
        "each process is a worker of its own"
    );
    assert!(
        other
            .claim_due_runs(10, expiry - 1)
            .await
            .unwrap()
            .is_empty(),
        "no run is taken over while its lease holds"
    );
    // The dead worker had stored a turn of run 21.
    store
        .enqueue(turn(runs[21], 0, None))
        .committed()
        .await
        .unwrap();
    let mut taken = other.claim_due_runs(10, expiry + 1).await.unwrap();
    taken.sort_by_key(|r| r.id);
    assert_eq!(
        taken.iter().map(|r| r.id).collect::<Vec<_>>(),
        runs[21..24],
        "the runs whose lease expired are taken over, and only they"
    );
    assert!(
        taken.iter().all(|r| r.attempt == 2),
        "a takeover is the run's second attempt"
    );
    assert!(
        store.run_turns(RunId(runs[21])).await.unwrap().is_empty(),
        "the turns of the lost attempt are deleted: the run plays again from its start"
    );
    // A late turn from the lost attempt is not stored either.
    store
        .enqueue(turn(runs[21], 0, None))
        .committed()
        .await
        .unwrap();
    assert!(
        store.run_turns(RunId(runs[21])).await.unwrap().is_empty(),
        "a turn of the claim that was taken over is not stored"
    );
    // A late verdict from the lost attempt is not stored; the new one is.
    store
        .enqueue(finish_attempt(
            runs[21],
            campaign,
            Verdict::Failed,
            vec![],
            1,
        ))
        .committed()
        .await
        .unwrap();
    for &run in &runs[21..24] {
        other
            .enqueue(finish_attempt(run, campaign, Verdict::Passed, vec![], 2))
            .committed()
            .await
            .unwrap();
    }
    let retried: (String, i64, String) =
        sqlx::query_as("SELECT verdict, attempts, claimed_by FROM runs WHERE id = $1")
            .bind(runs[21].to_string())
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(
        retried,
        ("passed".into(), 2, other.worker().to_string()),
        "the verdict of the worker that took the run over stands"
    );
    let listed = store.campaign_runs(campaign).await.unwrap();
    assert_eq!(
        listed.iter().filter(|r| r.attempts == 2).count(),
        3,
        "the listed runs say they were retried"
    );

    let report = store
        .snapshot(move |read| {
            let planned = read.planned_and_running_runs(campaign)?;
            let mut verdicts = Vec::new();
            let done = read.verdict_tallies(campaign, |_, scenario, verdict, sums| {
                verdicts.push((scenario.to_string(), verdict, sums.runs));
            })?;
            let mut latencies = Vec::new();
            read.latency_tallies(campaign, |l, n| latencies.push((l, n)))?;
            let mut errors = Vec::new();
            read.error_tallies(campaign, |reason, n| errors.push((reason, n)))?;
            let mut timeline = 0;
            read.timeline_tallies(campaign, |_, _, n| timeline += n)?;
            let mut since = 0;
            read.runs_finished_since(campaign, 0, |_, run| {
                assert_eq!(run.scenario_id, "s");
                since += 1;
            })?;
            let mut replies = Vec::new();
            read.latencies_since(campaign, 0, |l, n| replies.push((l, n)))?;
            Ok((
                planned, done, verdicts, latencies, errors, timeline, since, replies,
            ))
        })
        .await
        .unwrap();
    let (planned, done, mut verdicts, latencies, mut errors, timeline, since, replies) = report;
    assert_eq!(planned, (24, 0));
    assert_eq!(done, 24);
    verdicts.sort_by_key(|v| v.1.as_str());
    assert_eq!(
        verdicts,
        [
            ("s".into(), Verdict::Error, 1),
            ("s".into(), Verdict::Passed, 23)
        ]
    );
    assert_eq!(
        latencies,
        [(40, 20)],
        "the lossy run's reply was not stored"
    );
    errors.sort();
    assert_eq!(errors, [("storage_error".into(), 1)]);
    assert_eq!(timeline, 24);
    assert_eq!(since, 24);
    assert_eq!(replies, [(40, 20)]);

    let listed = store.campaign_runs(campaign).await.unwrap();
    assert_eq!(listed.len(), 24);
    assert!(listed.iter().all(|r| r.status == "done"));
    assert_eq!(store.most_concurrency_running().await.unwrap(), Some(7));
    let t = Utc.timestamp_millis_opt(3_600_000).unwrap();
    assert_eq!(store.campaigns_to_finalize(t).await.unwrap(), [campaign.0]);
    assert!(store.claim_run(RunId(runs[0]), t).await.unwrap().is_none());

    // Filled again from the finished runs, the tallies are the same.
    let before = tallies(&store, campaign).await;
    sqlx::query(
        "INSERT INTO pending_backfills (name) VALUES ('run_tallies'), ('session_issue_tally')",
    )
    .execute(&pool)
    .await
    .unwrap();
    store
        .run_backfills(agenteval_store::Backfills {
            simulator_faults: |_| Vec::new(),
            issues: |_| Vec::new(),
        })
        .await
        .unwrap();
    assert_eq!(tallies(&store, campaign).await, before);
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM pending_backfills")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(left, 0);
}

type Tallies = (
    Vec<(Verdict, u32, u64, u64)>,
    Vec<(u64, u64)>,
    Vec<(String, u32)>,
    Vec<(i64, Verdict, u32)>,
    usize,
);

/// A campaign's run tallies, sorted.
async fn tallies(store: &Store, campaign: CampaignId) -> Tallies {
    store
        .snapshot(move |read| {
            let mut t: Tallies = Default::default();
            read.verdict_tallies(campaign, |_, _, verdict, sums| {
                t.0.push((verdict, sums.runs, sums.tokens_in, sums.tokens_out))
            })?;
            read.latency_tallies(campaign, |l, n| t.1.push((l, n)))?;
            read.error_tallies(campaign, |reason, n| t.2.push((reason, n)))?;
            read.timeline_tallies(campaign, |slice, verdict, n| t.3.push((slice, verdict, n)))?;
            read.failing_check_tallies(campaign, |_, _, _, _, _| t.4 += 1)?;
            t.0.sort_by_key(|v| v.0.as_str());
            t.1.sort();
            t.2.sort();
            t.3.sort_by_key(|v| (v.0, v.1.as_str()));
            Ok(t)
        })
        .await
        .unwrap()
}

/// `callers` claims of up to `limit` runs each, made at once.
async fn futures_join(
    store: &Store,
    callers: usize,
    limit: usize,
) -> Vec<Vec<agenteval_store::writer::ClaimedRow>> {
    let all = (0..callers).map(|_| store.claim_due_runs(limit, 10));
    join_all(all)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect()
}

/// Polls every future at once (the store's claims each wait on a
/// transaction of their own).
async fn join_all<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    let mut futures: Vec<_> = futures.map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut ready = true;
        for (f, slot) in futures.iter_mut().zip(out.iter_mut()) {
            if slot.is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => *slot = Some(v),
                    std::task::Poll::Pending => ready = false,
                }
            }
        }
        if ready {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    out.into_iter().map(Option::unwrap).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_and_audit_events_are_written() {
    let db = support::postgres::fresh_database().await;
    let store = Store::open_database(&db.url, Default::default())
        .await
        .unwrap();
    let pool = db.pool().await;
    let (campaign, _) = campaign(&pool, 0).await;
    let session = Uuid::now_v7().to_string();
    sqlx::query(
        "INSERT INTO exploration_sessions (id, campaign_id, target_id, persona, goal, status,
             trigger_kind, started_at, created_at, updated_at)
         SELECT $1, id, target_id, '{}', '{}', 'running', 'manual', 0, 0, 5 FROM campaigns WHERE id = $2",
    )
    .bind(&session)
    .bind(campaign.to_string())
    .execute(&pool)
    .await
    .unwrap();
    let reply = store.enqueue(Write::Reply(ReplyRow {
        id: Uuid::now_v7().to_string(),
        session_id: session.clone(),
        seq: 1,
        content: "hello".into(),
        latency_ms: 12,
        at: 9,
        steps: None,
    }));
    assert_eq!(reply.committed().await.unwrap(), Committed::AsQueued);
    let audit = store.enqueue(Write::Audit(AuditRow {
        id: "a".into(),
        at: 1,
        actor: "test".into(),
        action: "write".into(),
        subject: None,
        outcome: "ok".into(),
    }));
    assert_eq!(audit.committed().await.unwrap(), Committed::AsQueued);
    let updated: i64 =
        sqlx::query_scalar("SELECT updated_at FROM exploration_sessions WHERE id = $1")
            .bind(&session)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(updated, 9);
    let audits: i64 = sqlx::query_scalar("SELECT count(*) FROM audit_events")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(audits, 1);
}

/// Audit events queued faster than they are stored go in batches (at most
/// 1,000 rows a statement): each is stored once, each caller is answered,
/// and an event queued again (a retry) is not stored twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_events_queued_at_once_are_each_stored_once() {
    const EVENTS: usize = 2_500;
    let db = support::postgres::fresh_database().await;
    let store = Store::open_database(&db.url, Default::default())
        .await
        .unwrap();
    let event = |i: usize| {
        Write::Audit(AuditRow {
            id: format!("event-{i}"),
            at: i as i64,
            actor: "test".into(),
            action: "write".into(),
            subject: None,
            outcome: "ok".into(),
        })
    };
    // All queued before any is awaited: the first batch is being stored
    // while the others wait.
    let pending: Vec<_> = (0..EVENTS).map(|i| store.enqueue(event(i))).collect();
    let again = store.enqueue(event(7));
    for p in pending {
        assert_eq!(p.committed().await.unwrap(), Committed::AsQueued);
    }
    again.committed().await.unwrap();
    let pool = db.pool().await;
    let (rows, ids, first, last): (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT count(*), count(DISTINCT id), min(at), max(at) FROM audit_events WHERE actor = 'test'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((rows, ids), (EVENTS as i64, EVENTS as i64));
    assert_eq!((first, last), (0, EVENTS as i64 - 1));
}

/// A worker that renews its leases keeps its runs past the first lease; a
/// renewal holds only the renewing worker's runs; once the renewals stop,
/// the runs are taken over a lease after the last one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renewed_leases_keep_a_live_workers_runs() {
    use agenteval_store::runs::RUN_LEASE;
    let db = support::postgres::fresh_database().await;
    // Opening a store migrates the database.
    let live = Store::open_database(&db.url, Default::default())
        .await
        .unwrap();
    let other = Store::open_database(&db.url, Default::default())
        .await
        .unwrap();
    let pool = db.pool().await;
    let (_, runs) = campaign(&pool, 4).await;
    let lease = RUN_LEASE.as_millis() as i64;
    let at = |ms: i64| Utc.timestamp_millis_opt(ms).unwrap();

    let mut held: Vec<Uuid> = live
        .claim_due_runs(2, 10)
        .await
        .unwrap()
        .iter()
        .map(|r| r.id)
        .collect();
    held.sort();
    assert_eq!(held, runs[..2], "the first two runs, in plan order");
    let mut others: Vec<Uuid> = other
        .claim_due_runs(2, 10)
        .await
        .unwrap()
        .iter()
        .map(|r| r.id)
        .collect();
    others.sort();
    assert_eq!(others, runs[2..]);

    // Two thirds into the lease, only the live worker renews.
    let renewed_at = 10 + lease * 2 / 3;
    assert_eq!(
        live.renew_run_leases(at(renewed_at), &held[..1])
            .await
            .unwrap(),
        1,
        "only the runs the worker still plays are renewed"
    );
    assert_eq!(
        live.renew_run_leases(at(renewed_at), &runs).await.unwrap(),
        2,
        "a renewal holds the renewing worker's runs and no other"
    );
    // Past the first lease: the silent worker's runs are taken over, the
    // live worker's are not.
    let mut taken: Vec<Uuid> = live
        .claim_due_runs(10, 10 + lease + 1)
        .await
        .unwrap()
        .iter()
        .map(|r| r.id)
        .collect();
    taken.sort();
    assert_eq!(
        taken,
        runs[2..],
        "only the runs of the worker that did not renew are taken over"
    );
    assert!(
        other
            .claim_due_runs(10, renewed_at + lease - 1)
            .await
            .unwrap()
            .is_empty(),
        "the renewed runs are held until a lease after the renewal"
    );
    let retaken = other
        .claim_due_runs(10, renewed_at + lease + 1)
        .await
        .unwrap();
    let mut retaken: Vec<(Uuid, i64)> = retaken.iter().map(|r| (r.id, r.attempt)).collect();
    retaken.sort();
    assert_eq!(
        retaken,
        vec![(runs[0], 2), (runs[1], 2)],
        "once the renewals stop, the runs are taken over, as second attempts"
    );
}
