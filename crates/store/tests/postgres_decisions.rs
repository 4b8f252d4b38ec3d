//! The budget decisions PostgreSQL takes in one statement (a real server,
//! `tests/support/postgres.rs`): what a start and a message's turn store
//! when allowed, what they say and leave alone when not, the time they
//! stamp, and a call retried with the same ledger entry that acts once.

#[path = "support/mod.rs"]
mod support;

use agenteval_domain::chat::Role;
use agenteval_domain::clock::from_ms;
use agenteval_domain::error::ErrorCode;
use agenteval_domain::ids::{CampaignId, SessionId, TargetId};
use agenteval_domain::session::{ExplorationSession, PlayedBy, SeedRef, SessionStart, Trigger};
use agenteval_store::Store;
use agenteval_store::decisions::{StartAsked, StartDecided, TurnAsked};
use sqlx::PgPool;
use uuid::Uuid;

/// A target and a running campaign of one hour from 0 with `budget`
/// (JSON, or none: the platform's defaults).
async fn campaign(pool: &PgPool, budget: Option<&str>) -> (TargetId, CampaignId) {
    let (target, campaign) = (Uuid::now_v7(), Uuid::now_v7());
    sqlx::query(
        "INSERT INTO targets (id, name, channel, concurrency, created_at, updated_at)
         VALUES ($1, 'demo', '{}', 7, 0, 0)",
    )
    .bind(target.to_string())
    .execute(pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO campaigns (id, name, target_id, status, window_start, window_end, plan,
             budget, created_at, updated_at)
         VALUES ($1, 'c', $2, 'running', 0, 3600000, '{}', $3, 0, 0)",
    )
    .bind(campaign.to_string())
    .bind(target.to_string())
    .bind(budget)
    .execute(pool)
    .await
    .unwrap();
    (TargetId(target), CampaignId(campaign))
}

/// Session start `at` (ms) of `campaign`, persona p1 and goal g1, as asked
/// of the store: at most two sessions, a minute apart.
fn start(target: TargetId, campaign: CampaignId, at: i64) -> StartAsked {
    let now = from_ms(at);
    StartAsked {
        session: ExplorationSession::starting(
            SessionStart {
                id: SessionId(Uuid::now_v7()),
                campaign_id: campaign,
                target_id: target,
                persona: serde_json::json!({"name": "Lin"}),
                goal: serde_json::json!("send an email"),
                seed_ref: Some(SeedRef {
                    persona_id: "p1".into(),
                    goal_id: "g1".into(),
                    variant: None,
                }),
                trigger: Trigger::Auto,
                played_by: PlayedBy::Assistant,
                user_model: None,
            },
            now,
        ),
        entry_id: Uuid::now_v7(),
        idle_before: from_ms(0),
        max_sessions: 2,
        min_interval: chrono::Duration::minutes(1),
        refusals: [
            ErrorCode::CampaignNotRunning,
            ErrorCode::SessionBudgetExhausted,
            ErrorCode::IntervalNotElapsed,
        ],
    }
}

fn turn(session: SessionId, content: &str, at: i64) -> TurnAsked {
    TurnAsked {
        session_id: session,
        entry_id: Uuid::now_v7(),
        turn_id: Uuid::now_v7(),
        content: content.into(),
        now: from_ms(at),
        default_max_turns: 12,
    }
}

/// What the store decided at once: on PostgreSQL it always decides.
async fn decide(store: &Store, asked: StartAsked) -> StartDecided {
    store
        .start_session_at_once(asked)
        .await
        .unwrap()
        .expect("a campaign on PostgreSQL decides at once")
}

async fn count(pool: &PgPool, sql: &str, campaign: CampaignId) -> i64 {
    sqlx::query_scalar(sql)
        .bind(campaign.to_string())
        .fetch_one(pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_start_at_once_stores_its_session_tallies_and_ledger_row_once_and_says_why_not() {
    let db = support::postgres::fresh_database().await;
    let store = Store::open_database(&db.url, Default::default())
        .await
        .unwrap();
    let pool = db.pool().await;
    let (target, campaign) = campaign(&pool, None).await;

    let first = start(target, campaign, 1_000);
    let decided = decide(&store, first.clone()).await;
    assert!(decided.started);
    assert_eq!(
        (decided.used, decided.last, decided.at),
        (0, None, from_ms(1_000))
    );
    // The same call again, as after a dropped connection: nothing twice.
    let again = decide(&store, first).await;
    assert!(again.started);
    assert_eq!(again.at, from_ms(1_000));
    let stored = |sql| count(&pool, sql, campaign);
    assert_eq!(
        stored("SELECT count(*) FROM exploration_sessions WHERE campaign_id = $1").await,
        1
    );
    assert_eq!(
        stored("SELECT count(*) FROM ledger_entries WHERE campaign_id = $1 AND allowed").await,
        1
    );
    assert_eq!(
        stored("SELECT sum(sessions)::bigint FROM session_tally WHERE campaign_id = $1").await,
        1
    );
    assert_eq!(
        stored("SELECT sessions FROM seed_cell_sessions WHERE campaign_id = $1").await,
        1
    );

    // Too soon after the first: refused and recorded, the counts say why.
    let soon = decide(&store, start(target, campaign, 30_000)).await;
    assert!(!soon.started);
    assert_eq!(soon.refused, Some(ErrorCode::IntervalNotElapsed));
    assert_eq!((soon.used, soon.last), (1, Some(1_000)));
    // A minute on: started, second in its seed cell.
    let later = start(target, campaign, 61_000);
    let id = later.session.id;
    assert!(decide(&store, later).await.started);
    let ordinal: Option<i64> =
        sqlx::query_scalar("SELECT seed_ordinal FROM exploration_sessions WHERE id = $1")
            .bind(id.to_string())
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(ordinal, Some(2));
    // The budget is spent: refused, nothing stored but the ledger's row;
    // asked again with the same entry, the same refusal and no new row.
    let spent_asked = start(target, campaign, 999_000);
    let spent = decide(&store, spent_asked.clone()).await;
    assert!(!spent.started);
    assert_eq!(spent.refused, Some(ErrorCode::SessionBudgetExhausted));
    assert_eq!(spent.used, 2);
    let retried = decide(&store, spent_asked).await;
    assert_eq!((retried.started, retried.refused), (false, spent.refused));
    assert_eq!(
        stored("SELECT count(*) FROM exploration_sessions WHERE campaign_id = $1").await,
        2
    );
    let refusals: Vec<String> = sqlx::query_scalar(
        "SELECT reason_code FROM ledger_entries WHERE campaign_id = $1 AND NOT allowed ORDER BY at",
    )
    .bind(campaign.to_string())
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        refusals,
        ["INTERVAL_NOT_ELAPSED", "SESSION_BUDGET_EXHAUSTED"]
    );

    // The window is closed: that refusal comes first.
    sqlx::query("UPDATE campaigns SET status = 'finalized' WHERE id = $1")
        .bind(campaign.to_string())
        .execute(&pool)
        .await
        .unwrap();
    let closed = decide(&store, start(target, campaign, 1_999_000)).await;
    assert_eq!(closed.refused, Some(ErrorCode::CampaignNotRunning));
    assert_eq!(
        closed.campaign_status.map(|s| s.as_str()),
        Some("finalized")
    );
}

#[tokio::test]
async fn a_start_is_left_undecided_while_a_session_runs_idle() {
    let db = support::postgres::fresh_database().await;
    let store = Store::open_database(&db.url, Default::default())
        .await
        .unwrap();
    let pool = db.pool().await;
    let (target, campaign) = campaign(&pool, None).await;
    assert!(decide(&store, start(target, campaign, 1_000)).await.started);
    // Quiet since 1 s, past a lease that began at 2 s: the platform
    // abandons it first, in a transaction.
    let mut asked = start(target, campaign, 3_000_000);
    asked.idle_before = from_ms(2_000);
    let decided = decide(&store, asked).await;
    assert_eq!(
        (decided.started, decided.refused, decided.idle),
        (false, None, 1)
    );
    let rows: i64 =
        sqlx::query_scalar("SELECT count(*) FROM ledger_entries WHERE campaign_id = $1")
            .bind(campaign.to_string())
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(rows, 1, "only the first start is in the ledger");
}

#[tokio::test]
async fn a_start_asked_before_the_last_one_is_stamped_after_it() {
    let db = support::postgres::fresh_database().await;
    let store = Store::open_database(&db.url, Default::default())
        .await
        .unwrap();
    let (target, campaign) = campaign(&db.pool().await, None).await;
    let mut first = start(target, campaign, 5_000);
    first.min_interval = chrono::Duration::zero();
    assert!(decide(&store, first).await.started);
    // Its clock read earlier, the second decision waited for the first.
    let mut second = start(target, campaign, 4_000);
    second.min_interval = chrono::Duration::zero();
    let decided = decide(&store, second).await;
    assert!(decided.started, "no interval to wait");
    assert_eq!(decided.at, from_ms(5_000));
}

#[tokio::test]
async fn a_turn_at_once_follows_the_budget_returns_the_conversation_and_acts_once() {
    let db = support::postgres::fresh_database().await;
    let store = Store::open_database(&db.url, Default::default())
        .await
        .unwrap();
    let pool = db.pool().await;
    let (target, campaign) = campaign(&pool, Some(r#"{"max_turns":2}"#)).await;
    let started = start(target, campaign, 1_000);
    let session = started.session.id;
    decide(&store, started).await;

    let first = turn(session, "hello", 2_000);
    let taken = store
        .take_turn_at_once(first.clone())
        .await
        .unwrap()
        .expect("a turn is left");
    assert_eq!((taken.campaign_id, taken.target_id), (campaign, target));
    assert_eq!((taken.index, taken.max_turns), (0, 2));
    assert_eq!(taken.history.len(), 1);
    assert_eq!(taken.history[0].content, "hello");
    // Retried: the same turn, not a second one.
    let again = store.take_turn_at_once(first).await.unwrap().unwrap();
    assert_eq!((again.index, again.history.len()), (0, 1));

    let second = store
        .take_turn_at_once(turn(session, "and then?", 3_000))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(second.index, 1);
    let said: Vec<&str> = second.history.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(said, ["hello", "and then?"]);
    assert!(second.history.iter().all(|m| m.role == Role::User));

    // The limit is reached: not taken, nothing stored.
    let over = store
        .take_turn_at_once(turn(session, "one more", 4_000))
        .await
        .unwrap();
    assert!(over.is_none());
    let stored = |sql| count(&pool, sql, campaign);
    assert_eq!(
        stored("SELECT turn_count FROM exploration_sessions WHERE campaign_id = $1").await,
        2
    );
    assert_eq!(
        stored(
            "SELECT count(*) FROM session_turns t JOIN exploration_sessions s ON s.id = t.session_id
             WHERE s.campaign_id = $1"
        )
        .await,
        2
    );
    assert_eq!(
        stored("SELECT count(*) FROM ledger_entries WHERE campaign_id = $1 AND action = 'message'")
            .await,
        2
    );
    // No such session: not taken.
    let unknown = turn(SessionId(Uuid::now_v7()), "hello?", 5_000);
    assert!(store.take_turn_at_once(unknown).await.unwrap().is_none());
}

#[tokio::test]
async fn sqlite_takes_no_decision_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), Default::default()).await.unwrap();
    let asked = turn(SessionId(Uuid::now_v7()), "hello", 0);
    assert!(store.take_turn_at_once(asked).await.unwrap().is_none());
    let start = start(TargetId(Uuid::now_v7()), CampaignId(Uuid::now_v7()), 0);
    assert!(store.start_session_at_once(start).await.unwrap().is_none());
}
