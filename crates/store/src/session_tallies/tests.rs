//! The session tallies against a full recount from the sessions, after
//! every kind of write, and across the upgrade that moved them from SQL
//! triggers into the store (migration 0019).

use super::*;
use crate::Store;
use crate::db_error::DbResult;
use agenteval_domain::clock::from_ms;
use agenteval_domain::ids::{CampaignId, SessionId, TargetId};
use agenteval_domain::judge::{JudgeReview, SessionForReview};
use agenteval_domain::session::{
    EndReason, ExperienceRecord, ExplorationSession, PlayedBy, SeedRef, SessionStart,
    SimulatorFault, SimulatorFaultKind, Trigger,
};
use rusqlite::Connection;
use rusqlite::types::Value as Sql;
use serde_json::json;
use std::path::Path;
use uuid::Uuid;

mod upgrade;

/// The rows of a query, each as its column values.
fn rows(conn: &Connection, sql: &str) -> Vec<Vec<Sql>> {
    let mut st = conn.prepare(sql).unwrap();
    let n = st.column_count();
    st.query_map([], |r| (0..n).map(|i| r.get::<_, Sql>(i)).collect())
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// The five session tallies as stored, rows that count nothing left out.
#[derive(Debug, PartialEq)]
struct Tallies {
    sessions: Vec<Vec<Sql>>,
    scores: Vec<Vec<Sql>>,
    faults: Vec<Vec<Sql>>,
    findings: Vec<Vec<Sql>>,
    judges: Vec<Vec<Sql>>,
    scored: Vec<Vec<Sql>>,
    finding_names: Vec<Vec<Sql>>,
}

fn stored(conn: &Connection) -> Tallies {
    Tallies {
        sessions: rows(
            conn,
            "SELECT * FROM session_tally WHERE sessions != 0 OR issues != 0 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13",
        ),
        scores: rows(
            conn,
            "SELECT * FROM session_dimension_tally WHERE count != 0 OR score_sum != 0 ORDER BY 1, 2",
        ),
        faults: rows(
            conn,
            "SELECT * FROM session_fault_tally WHERE sessions != 0 OR faults != 0 ORDER BY 1, 2",
        ),
        // The columns the triggers of 0009 kept (a finding's step came
        // with 0027).
        findings: rows(
            conn,
            "SELECT campaign_id, started_at, session_id, seq, severity, dimension, text, evidence, turn
             FROM session_findings ORDER BY 1, 2, 3, 4",
        ),
        // Since 0031.
        finding_names: match conn.prepare("SELECT persona_name FROM session_findings") {
            Ok(_) => rows(
                conn,
                "SELECT session_id, seq, persona_name, goal_title, seed_ordinal FROM session_findings
                 ORDER BY campaign_id, started_at, session_id, seq",
            ),
            Err(_) => Vec::new(),
        },
        // Since 0029: none in a database from before.
        judges: match conn.prepare("SELECT * FROM session_judge_tally WHERE sessions != 0 ORDER BY 1, 2") {
            Ok(_) => rows(
                conn,
                "SELECT * FROM session_judge_tally WHERE sessions != 0 ORDER BY 1, 2",
            ),
            Err(_) => Vec::new(),
        },
        // Since 0030.
        scored: match conn.prepare("SELECT * FROM session_scored_tally WHERE sessions != 0 ORDER BY 1") {
            Ok(_) => rows(
                conn,
                "SELECT * FROM session_scored_tally WHERE sessions != 0 ORDER BY 1",
            ),
            Err(_) => Vec::new(),
        },
    }
}

/// The tallies as stored, and as a full recount from the sessions writes
/// them (the recount is undone).
fn stored_and_recounted(c: &Conn<'_>) -> (Tallies, Tallies) {
    let conn = c.sqlite().unwrap();
    let before = stored(conn);
    conn.execute_batch(
        "SAVEPOINT recount; DELETE FROM session_tally; DELETE FROM session_dimension_tally;
         DELETE FROM session_fault_tally; DELETE FROM session_findings;
         DELETE FROM session_judge_tally; DELETE FROM session_scored_tally;",
    )
    .unwrap();
    SessionTallies::recount(c).unwrap().flush(c).unwrap();
    let recounted = stored(conn);
    conn.execute_batch("ROLLBACK TO recount; RELEASE recount")
        .unwrap();
    (before, recounted)
}

async fn assert_recounted(store: &Store, after: &str) {
    let (tallied, recounted) = store
        .transact(|tx| Ok(stored_and_recounted(&tx.0)))
        .await
        .unwrap();
    assert_eq!(
        tallied, recounted,
        "after {after}, the tallies are the sessions' sum"
    );
}

/// A target and campaigns `campaigns` (a one-day window from 0) of it;
/// the target.
async fn campaigns(store: &Store, campaigns: &[Uuid]) -> Uuid {
    let id = Uuid::now_v7();
    let campaigns: Vec<String> = campaigns.iter().map(Uuid::to_string).collect();
    store
        .write(move |c| {
            c.exec(
                "INSERT INTO targets (id, name, channel, created_at, updated_at) VALUES (?, 'demo', '{}', 0, 0)",
                args![id.to_string()],
            )?;
            for campaign in &campaigns {
                c.exec(
                    "INSERT INTO campaigns (id, name, target_id, status, window_start, window_end, plan,
                         created_at, updated_at)
                     VALUES (?, 'c', ?, 'running', 0, 86400000, '{}', 0, 0)",
                    args![campaign, id.to_string()],
                )?;
            }
            Ok(())
        })
        .await
        .unwrap();
    id
}

fn session(
    (target_id, campaign_id): (Uuid, Uuid),
    started_ms: i64,
    seed: Option<(&str, &str)>,
    trigger: Trigger,
) -> ExplorationSession {
    ExplorationSession::starting(
        SessionStart {
            id: SessionId(Uuid::now_v7()),
            campaign_id: CampaignId(campaign_id),
            target_id: TargetId(target_id),
            persona: json!({"name": "Ann"}),
            goal: json!("track an order"),
            seed_ref: seed.map(|(p, g)| SeedRef {
                persona_id: p.into(),
                goal_id: g.into(),
                variant: None,
            }),
            trigger,
            played_by: PlayedBy::Builtin,
            user_model: None,
        },
        from_ms(started_ms),
    )
}

fn record(achieved: bool, blockers: &[&str], misled: &[&str], emotion: &str) -> String {
    serde_json::to_string(&ExperienceRecord {
        goal_achieved: achieved,
        blockers: blockers.iter().map(|b| b.to_string().into()).collect(),
        misled: misled.iter().map(|m| m.to_string().into()).collect(),
        emotion: emotion.into(),
        emotion_raw: None,
        notes: Default::default(),
    })
    .unwrap()
}

fn review(fault: bool) -> JudgeReview {
    serde_json::from_value(json!({
        "method": "heuristic",
        "dimensions": {
            "attitude": {"score": 4, "evidence": "polite"},
            "professionalism": {"score": 3, "evidence": "asked once"},
            "hallucination": {"score": 5, "evidence": "nothing invented"},
        },
        "findings": [{"grade": "poor", "dimension": "professionalism", "text": "repeated itself", "turn": 2}],
        "simulator": {"in_persona": true, "quit_early": fault, "invented_facts": false, "simulator_fault": fault},
        "simulator_fault": fault,
    }))
    .unwrap()
}

fn drifted(s: &SessionForReview) -> Vec<SimulatorFault> {
    // Sessions that ended at the budget drifted, for the test's sake.
    match s.end_reason.as_deref() {
        Some("expired") => vec![SimulatorFault::new(
            SimulatorFaultKind::Drifted,
            Some(1),
            None,
            "drifted".into(),
        )],
        _ => Vec::new(),
    }
}

#[tokio::test]
async fn every_write_keeps_the_tallies_equal_to_a_recount_of_the_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), Default::default()).await.unwrap();
    let (c1, c2) = (Uuid::now_v7(), Uuid::now_v7());
    let target = campaigns(&store, &[c1, c2]).await;
    let at = |ms: i64| from_ms(ms);

    // Campaign 1: sessions that end every way.
    let seeded = [("p1", "g1"), ("p1", "g2"), ("p2", "g1")];
    let mut ids = Vec::new();
    for (i, seed) in seeded.iter().enumerate() {
        let s = session((target, c1), 1000 * i as i64, Some(*seed), Trigger::Auto);
        ids.push(s.id);
        store
            .transact(move |tx| tx.insert_session(&s))
            .await
            .unwrap();
    }
    let manual = session((target, c1), 5000, None, Trigger::Manual);
    ids.push(manual.id);
    store
        .transact(move |tx| tx.insert_session(&manual))
        .await
        .unwrap();
    assert_recounted(&store, "inserts").await;

    let [a, b, c, d] = ids[..] else {
        unreachable!()
    };
    store
        .transact(move |tx| {
            tx.count_user_turn(a, at(6000))?;
            tx.complete_session(
                a.into(),
                EndReason::UserGoalMet,
                &record(
                    true,
                    &["asked twice", "\u{3000}"],
                    &["a wrong date"],
                    "satisfied",
                ),
                at(7000),
            )?;
            tx.complete_session(
                b.into(),
                EndReason::UserGaveUp,
                &record(false, &["no reply"], &[], "frustrated"),
                at(7000),
            )?;
            tx.fail_session_on_target_error(c, &"HTTP 503".into(), 7000)
        })
        .await
        .unwrap();
    assert_recounted(&store, "closes and a target error").await;

    assert!(
        store
            .fail_running_session(
                d.into(),
                EndReason::SimulatorError,
                &"the model broke".into(),
                at(8000)
            )
            .await
            .unwrap()
    );
    assert!(
        !store
            .fail_running_session(
                d.into(),
                EndReason::SimulatorError,
                &"again".into(),
                at(8000)
            )
            .await
            .unwrap(),
        "an ended session is not failed again"
    );
    assert_recounted(&store, "a simulator error").await;

    // Reviews: the judge's, then older shapes over it.
    assert!(
        store
            .store_judge_review(a, &review(false), "done", 9000)
            .await
            .unwrap()
    );
    assert!(
        store
            .store_judge_review(b, &review(true), "done", 9000)
            .await
            .unwrap()
    );
    assert!(
        !store
            .store_judge_review(a, &review(true), "done", 9000)
            .await
            .unwrap(),
        "a review is stored once"
    );
    assert_recounted(&store, "reviews").await;
    store
        .fixtures()
        .set_judge_review(
            b,
            "done",
            &json!({"scores": [{"name": "attitude", "score": 2.5}], "findings": ["plain", {"finding": "slow"}],
                    "simulator": {"at_fault": true}}),
        )
        .await
        .unwrap();
    store
        .fixtures()
        .set_judge_review(c, "failed", &json!({"error": "the judge is down"}))
        .await
        .unwrap();
    assert_recounted(&store, "older reviews").await;

    // The check of the virtual user: a fault takes a's record and scores out.
    let fault = SimulatorFault::new(SimulatorFaultKind::InventedFact, Some(2), None, "x".into());
    store
        .transact(move |tx| {
            tx.store_simulator_faults(a, &[fault.clone(), fault])?;
            tx.store_simulator_faults(b, &[])
        })
        .await
        .unwrap();
    assert_recounted(&store, "simulator faults").await;

    // Campaign 2: running sessions expire one by one or when it finalizes;
    // finalize checks the unchecked ones.
    let mut running = Vec::new();
    for i in 0..4 {
        let s = session((target, c2), 10_000 + i, Some(("p1", "g1")), Trigger::Auto);
        running.push(s.id);
        store
            .transact(move |tx| tx.insert_session(&s))
            .await
            .unwrap();
    }
    let first = running[0];
    store
        .transact(move |tx| tx.expire_session(first, at(20_000)))
        .await
        .unwrap();
    assert_recounted(&store, "an expiry").await;
    let finalized = store
        .transact(move |tx| tx.finalize_campaign(c2, at(30_000), drifted))
        .await
        .unwrap();
    assert!(finalized);
    assert_recounted(&store, "finalize").await;
    let faults: Vec<Vec<Sql>> = store
        .transact(move |tx| {
            Ok(rows(
                tx.0.sqlite().unwrap(),
                &format!("SELECT kind, sessions, faults FROM session_fault_tally WHERE campaign_id = '{c2}'"),
            ))
        })
        .await
        .unwrap();
    assert_eq!(
        faults,
        [vec![
            Sql::Text("drifted".into()),
            Sql::Integer(4),
            Sql::Integer(4)
        ]],
        "finalize checked the four expired sessions"
    );

    // Forgetting the checks, as before migration 0013.
    store.fixtures().clear_simulator_faults().await.unwrap();
    assert_recounted(&store, "the checks forgotten").await;
    let (tallied, _) = store
        .transact(|tx| Ok(stored_and_recounted(&tx.0)))
        .await
        .unwrap();
    assert!(tallied.faults.is_empty(), "no fault counted once forgotten");
    assert_eq!(tallied.findings.len(), 3, "a's finding and b's two");

    // Each finding keeps the name of its session: persona, goal and its
    // place among the sessions of the two, read back once per session in
    // start order (migration 0031).
    let third = running[2];
    store
        .fixtures()
        .set_judge_review(third, "done", &json!({"findings": ["slow"]}))
        .await
        .unwrap();
    assert_recounted(&store, "a review of an expired session").await;
    let named = |names: Vec<agenteval_domain::evidence::SessionName>| -> Vec<(SessionId, String, String, u32)> {
        names
            .into_iter()
            .map(|n| (n.id, n.persona, n.goal, n.ordinal))
            .collect()
    };
    let ann = |id: SessionId, ordinal: u32| {
        (id, "Ann".to_string(), "track an order".to_string(), ordinal)
    };
    assert_eq!(
        named(store.reviewed_session_names(CampaignId(c1)).await.unwrap()),
        [ann(a, 1), ann(b, 1)],
        "b's two findings name it once"
    );
    assert_eq!(
        named(store.reviewed_session_names(CampaignId(c2)).await.unwrap()),
        [ann(third, 3)],
        "the third session of its persona and goal"
    );
}

/// A write whose tallies cannot be written is undone with them, whatever
/// its caller does with the error.
#[tokio::test]
async fn a_write_lands_with_its_tallies_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), Default::default()).await.unwrap();
    let c = Uuid::now_v7();
    let target = campaigns(&store, &[c]).await;
    let s = session((target, c), 0, None, Trigger::Auto);
    let id = s.id.to_string();
    let (failed, stored) = store
        .transact(move |tx| {
            tx.0.sqlite()
                .unwrap()
                .execute_batch("ALTER TABLE session_tally RENAME TO away")
                .db()?;
            // The caller goes on after the failed insert.
            let failed = tx.insert_session(&s).is_err();
            tx.0.sqlite()
                .unwrap()
                .execute_batch("ALTER TABLE away RENAME TO session_tally")
                .db()?;
            let stored: i64 =
                tx.0.sqlite()
                    .unwrap()
                    .query_row(
                        "SELECT count(*) FROM exploration_sessions WHERE id = ?",
                        [&id],
                        |r| r.get(0),
                    )
                    .db()?;
            Ok((failed, stored))
        })
        .await
        .unwrap();
    assert!(failed, "the tally could not be written");
    assert_eq!(stored, 0, "the session is not stored without its tally");
    assert_recounted(&store, "a failed insert").await;
}

/// The columns whose change moves a session in the tallies.
const TALLIED_COLUMNS: [&str; 10] = [
    "campaign_id",
    "started_at",
    "status",
    "end_reason",
    "trigger_kind",
    "judge_status",
    "seed_ref",
    "experience",
    "judge_review",
    "simulator_faults",
];

/// Statements that write tallied columns outside [`retally`], each with
/// why its tallies are right anyway.
const UNTALLIED_WRITES: [(&str, &str); 1] = [(
    "SESSIONS_SQL",
    "the report bench's bulk load, whose tallies the `session_tallies` backfill it queues fills",
)];

/// Whether `text` names `column` as a whole word.
fn names(text: &str, column: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(column)
        .any(|(i, _)| !text[..i].ends_with(word) && !text[i + column.len()..].starts_with(word))
}

/// No write can forget the tallies: every statement of the store that
/// inserts a session or sets a tallied column is in a function that runs
/// it through [`retally`] (or [`tally_new_session`]).
#[test]
fn every_write_of_a_tallied_column_goes_through_retally() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.clone()];
    let mut checked = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        // Test set-ups write as older versions did, on purpose.
        let test = path.components().any(|c| c.as_os_str() == "tests");
        if path.extension().is_none_or(|e| e != "rs") || test || path.ends_with("tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let text = text.split("#[cfg(test)]").next().unwrap();
        for start in [
            "INSERT INTO exploration_sessions",
            "UPDATE exploration_sessions SET",
        ] {
            for (at, _) in text.match_indices(start) {
                let statement = text[at..].split('"').next().unwrap();
                let written = statement.split(" WHERE").next().unwrap();
                if !TALLIED_COLUMNS.iter().any(|c| names(written, c)) {
                    continue;
                }
                checked += 1;
                let line = text[..at].lines().count();
                let function_start = text[..at].rfind("fn ").unwrap_or(0);
                let function_end = [("\n    }\n"), ("\n}\n")]
                    .iter()
                    .filter_map(|end| text[at..].find(end))
                    .min()
                    .map_or(text.len(), |end| at + end);
                let function = &text[function_start..function_end];
                let allowed = UNTALLIED_WRITES
                    .iter()
                    .any(|(marker, _)| function.contains(&format!("const {marker}")));
                assert!(
                    allowed
                        || function.contains("retally(")
                        || function.contains("tally_new_session("),
                    "{}:{line}: `{}` writes a tallied column of a session outside retally",
                    path.display(),
                    written.trim()
                );
            }
        }
    }
    assert!(checked >= 10, "the session writes were found: {checked}");
}
