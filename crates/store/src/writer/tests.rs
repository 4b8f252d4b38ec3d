use super::*;
use crate::Store;
use agenteval_domain::ids::CampaignId;
use agenteval_domain::ids::RunId;
use agenteval_domain::run::Verdict;
use agenteval_domain::tally::RunOutcome;

fn turn(run_id: RunId, seq: i64) -> Write {
    Write::Turn(TurnRow {
        run_id,
        attempt: 1,
        seq,
        role: "user",
        content: format!("turn {seq}"),
        latency_ms: None,
        tokens_in: None,
        tokens_out: None,
        tool_calls: None,
        steps: None,
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
        attempt: 1,
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
