//! A database migrated up to 0018, whose session tallies SQL triggers
//! kept, gets the same tallies from the store once 0019 is applied: the
//! store counts each session as the views did, odd shapes included. One
//! from before 0031 names the sessions of its findings.

use super::*;
use crate::Backfills;
use crate::upgrade::database_up_to;
use agenteval_domain::findings::IssueKind;

fn no_faults(_: &SessionForReview) -> Vec<SimulatorFault> {
    Vec::new()
}

fn no_issues(_: &ExperienceRecord) -> Vec<(IssueKind, String, String)> {
    Vec::new()
}

/// Runs the backfills the migrations left pending.
async fn backfill(store: &Store) {
    store
        .run_backfills(Backfills {
            simulator_faults: no_faults,
            issues: no_issues,
        })
        .await
        .unwrap();
}

/// Sessions in the odd shapes the tallies' SQL views of 0009 and 0013
/// accepted: (seed_ref, status, end_reason, experience, judge_status,
/// judge_review, simulator_faults).
fn odd_sessions() -> Vec<[Option<String>; 7]> {
    let s = |v: serde_json::Value| Some(v.to_string());
    let t = |v: &str| Some(v.to_string());
    let seed = s(json!({"persona_id": "p1", "goal_id": "g1"}));
    let review = s(json!({
        "dimensions": {"attitude": {"score": 4}, "hallucination": 5, "tone": "n/a", "pace": {"score": "3"},
                       "depth": 2.5},
        "scores": [{"name": "attitude", "score": 2}, {"dimension": "speed", "score": 3.5},
                   {"name": 7, "dimension": "ignored", "score": 1}, {"name": null, "dimension": "x", "score": 1},
                   ["attitude", 3], 4],
        "findings": ["  a plain finding\u{2003}", "\u{3000}", {"grade": "poor", "text": "invented a date", "turn": 2},
                     {"severity": null, "grade": "fair", "finding": "slow", "category": "pace", "quote": "wait",
                      "turn": -1},
                     {"severity": "poor", "evidence": "no text, not a finding"},
                     {"issue": {"k": [1, "two"]}, "level": 3, "dimension": false, "turn": 4294967296_u64},
                     {"text": "", "turn": 1.0, "rating": true}, {"message": "m", "verdict": "ok", "turn": 4294967295_u64},
                     7, null],
        "simulator": {"at_fault": false},
    }));
    let emotions = [
        json!(true),
        json!(3),
        json!(2.5),
        json!(1e20),
        json!(0.1),
        json!(1.0),
        json!(12345678901234567890_u64),
        json!({"a": [1, "b"]}),
        json!(null),
        json!("anxious"),
    ];
    let mut out: Vec<[Option<String>; 7]> = emotions
        .into_iter()
        .map(|emotion| {
            [
                seed.clone(),
                t("completed"),
                t("user_gave_up"),
                s(json!({"goal_achieved": true, "emotion": emotion})),
                t("none"),
                None,
                None,
            ]
        })
        .collect();
    out.extend([
        // Seeds in every shape.
        [s(json!({"persona_id": 7, "goal_id": true})), t("running"), None, None, t("none"), None, None],
        [s(json!({"persona_id": null, "goal_id": "g"})), t("running"), None, None, t("none"), None, None],
        [s(json!({"persona_id": "p"})), t("running"), None, None, t("none"), None, None],
        [s(json!(["p1", "g1"])), t("running"), None, None, t("none"), None, None],
        [t("{not json"), t("expired"), t("expired"), None, t("none"), None, None],
        // Records in every shape.
        [
            seed.clone(),
            t("completed"),
            t("user_goal_met"),
            s(json!({"goal_achieved": true, "emotion": "satisfied",
                     "blockers": ["slow", "\u{3000}\u{a0}\u{85}", "", 3, "  no reply ", null, ["nested"]],
                     "misled": "one text alone"})),
            t("pending"),
            None,
            None,
        ],
        [
            seed.clone(),
            t("failed"),
            t("budget_exhausted"),
            s(json!({"goal_achieved": 1, "blockers": {"a": "x", "b": " ", "c": 4}, "misled": null})),
            t("none"),
            None,
            None,
        ],
        [seed.clone(), t("completed"), t("max_turns"), s(json!([1, 2])), t("none"), None, None],
        [seed.clone(), t("completed"), t("max_turns"), t("\"text\""), t("none"), None, None],
        [seed.clone(), t("completed"), t("max_turns"), t("{broken"), t("none"), None, None],
        // Simulator errors and faults.
        [
            seed.clone(),
            t("completed"),
            t("simulator_error"),
            s(json!({"goal_achieved": true, "blockers": ["x"], "emotion": "angry"})),
            t("done"),
            review.clone(),
            None,
        ],
        [
            seed.clone(),
            t("completed"),
            t("user_goal_met"),
            s(json!({"goal_achieved": true, "blockers": ["x"], "emotion": "angry"})),
            t("done"),
            review.clone(),
            s(json!([{"kind": "drifted"}, {"kind": "invented_fact"}, {"kind": "drifted"}, 5, "x"])),
        ],
        [
            None,
            t("completed"),
            t("user_goal_met"),
            s(json!({"goal_achieved": false, "blockers": ["y"], "emotion": "neutral"})),
            t("done"),
            s(json!({"simulator_fault": true, "findings": ["blamed"]})),
            t("[]"),
        ],
        [
            None,
            t("completed"),
            t("user_goal_met"),
            s(json!({"blockers": ["z"]})),
            t("none"),
            None,
            s(json!({"a": {"kind": "quit_early"}, "b": "drifted", "c": {"kind": 5}})),
        ],
        // (A check that is not JSON made the views fail: none is stored.)
        [None, t("failed"), t("target_error"), None, t("none"), None, t("[]")],
        // Reviews that count for nothing.
        [seed.clone(), t("completed"), t("user_goal_met"), None, t("failed"), review.clone(), None],
        [seed.clone(), t("completed"), t("user_goal_met"), None, t("done"), t("{broken"), None],
        [
            seed.clone(),
            t("completed"),
            t("user_goal_met"),
            None,
            t("done"),
            s(json!({"simulator": [true], "simulator_fault": 1, "dimensions": [], "findings": {"a": "b"}})),
            None,
        ],
        [seed, t("completed"), t("user_goal_met"), None, t("done"), s(json!([{"findings": ["x"]}])), None],
    ]);
    out
}

#[tokio::test]
async fn a_database_from_before_0019_gets_the_tallies_its_triggers_kept() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(crate::DB_FILE);
    let pool = database_up_to(18, dir.path()).await;
    let (c1, c2) = (Uuid::now_v7(), Uuid::now_v7());
    let target = Uuid::now_v7().to_string();
    sqlx::query(
        "INSERT INTO targets (id, name, channel, created_at, updated_at) VALUES (?1, 'demo', '{}', 0, 0);
         INSERT INTO campaigns (id, name, target_id, status, window_start, window_end, plan, created_at, updated_at)
         VALUES (?2, 'c1', ?1, 'running', 0, 86400000, '{}', 0, 0), (?3, 'c2', ?1, 'running', 0, 86400000, '{}', 0, 0)",
    )
    .bind(&target)
    .bind(c1.to_string())
    .bind(c2.to_string())
    .execute(&pool)
    .await
    .unwrap();
    // Each session is stored running, then ended as the engine ended
    // sessions then (an update the triggers follow); every other one in
    // the second campaign.
    for (i, [seed, status, end, experience, judge_status, review, faults]) in
        odd_sessions().into_iter().enumerate()
    {
        let id = Uuid::now_v7().to_string();
        let campaign = if i % 2 == 0 { c1 } else { c2 };
        sqlx::query(
            "INSERT INTO exploration_sessions (id, campaign_id, target_id, persona, goal, seed_ref, status,
                 trigger_kind, judge_status, turn_count, started_at, created_at, updated_at)
             VALUES (?, ?, ?, '{}', '{}', ?, 'running', ?, 'none', 0, ?, 0, 0)",
        )
        .bind(&id)
        .bind(campaign.to_string())
        .bind(&target)
        .bind(&seed)
        .bind(if i % 3 == 0 { "manual" } else { "auto" })
        .bind(i as i64 % 5)
        .execute(&pool)
        .await
        .unwrap();
        sqlx::query(
            "UPDATE exploration_sessions SET status = ?, end_reason = ?, experience = ?, judge_status = ?,
                 judge_review = ? WHERE id = ?",
        )
        .bind(&status)
        .bind(&end)
        .bind(&experience)
        .bind(&judge_status)
        .bind(&review)
        .bind(&id)
        .execute(&pool)
        .await
        .unwrap();
        sqlx::query("UPDATE exploration_sessions SET simulator_faults = ? WHERE id = ?")
            .bind(&faults)
            .bind(&id)
            .execute(&pool)
            .await
            .unwrap();
    }
    pool.close().await;
    let by_triggers = stored(&Connection::open(&file).unwrap());
    assert!(
        by_triggers.sessions.len() > 20 && by_triggers.findings.len() > 5,
        "the triggers tallied the sessions: {by_triggers:?}"
    );

    let store = Store::open(dir.path(), Default::default()).await.unwrap();
    backfill(&store).await;
    let (backfilled, recounted) = store
        .transact(|tx| Ok(stored_and_recounted(&tx.0)))
        .await
        .unwrap();
    assert_eq!(
        backfilled.sessions, by_triggers.sessions,
        "the store counts each session as the views did"
    );
    assert_eq!(backfilled.scores, by_triggers.scores);
    assert_eq!(backfilled.faults, by_triggers.faults);
    assert_eq!(backfilled.findings, by_triggers.findings);
    assert_eq!(backfilled, recounted);
    let left: Vec<Vec<Sql>> = store
        .transact(|tx| {
            Ok(rows(
                tx.0.sqlite().unwrap(),
                "SELECT name FROM sqlite_master WHERE type IN ('trigger', 'view') AND name LIKE 'session%'
                 UNION ALL SELECT name FROM pending_backfills",
            ))
        })
        .await
        .unwrap();
    assert!(
        left.is_empty(),
        "no trigger, view or backfill is left: {left:?}"
    );
}

/// A database from before 0031 has findings without their session's name:
/// the session tallies are filled again once, and every finding gets it.
#[tokio::test]
async fn a_database_from_before_0031_names_the_sessions_of_its_findings() {
    let dir = tempfile::tempdir().unwrap();
    let pool = database_up_to(30, dir.path()).await;
    let (campaign, session) = (Uuid::now_v7(), Uuid::now_v7());
    let target = Uuid::now_v7().to_string();
    sqlx::query(
        "INSERT INTO targets (id, name, channel, created_at, updated_at) VALUES (?1, 'demo', '{}', 0, 0);
         INSERT INTO campaigns (id, name, target_id, status, window_start, window_end, plan, created_at, updated_at)
         VALUES (?2, 'c', ?1, 'running', 0, 86400000, '{}', 0, 0);
         INSERT INTO exploration_sessions (id, campaign_id, target_id, persona, goal, seed_ref, status,
             trigger_kind, judge_status, judge_review, turn_count, started_at, created_at, updated_at,
             seed_ordinal)
         VALUES (?3, ?2, ?1, '{\"name\": \"王女士\"}', '{\"title\": \"查询订单\"}',
             '{\"persona_id\": \"p1\", \"goal_id\": \"g1\"}', 'completed', 'auto', 'done',
             '{\"findings\": [\"slow\", \"curt\"]}', 3, 5, 5, 5, 2);
         INSERT INTO session_findings (campaign_id, started_at, session_id, seq, severity, text)
         VALUES (?2, 5, ?3, 0, 'poor', 'slow'), (?2, 5, ?3, 1, 'poor', 'curt');",
    )
    .bind(&target)
    .bind(campaign.to_string())
    .bind(session.to_string())
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;

    let store = Store::open(dir.path(), Default::default()).await.unwrap();
    assert!(
        store
            .reviewed_session_names(CampaignId(campaign))
            .await
            .unwrap()
            .is_empty(),
        "before the backfill, no finding has a name"
    );
    backfill(&store).await;
    let names = store
        .reviewed_session_names(CampaignId(campaign))
        .await
        .unwrap();
    assert_eq!(names.len(), 1, "one session, named once: {names:?}");
    assert_eq!(
        (
            names[0].id,
            names[0].persona.as_str(),
            names[0].goal.as_str(),
            names[0].ordinal
        ),
        (SessionId(session), "王女士", "查询订单", 2)
    );
    assert_recounted(&store, "the backfill").await;
}
