//! Evidence a manager can act on, over HTTP on 127.0.0.1 with a real
//! SQLite (or PostgreSQL) and a manual clock: who played a session decides
//! whether its virtual user is checked; a goal is met on evidence, never on
//! a key word in a question; seed sets keep any JSON; a session left open
//! gives its budget slot back; intervals stay honest at small samples.

use axum::Json;
use chrono::Duration;
use reqwest::StatusCode;
use serde_json::{Value, json};

mod support;

use support::{App, app, hello_scenario};

/// A target on 127.0.0.1 that only ever asks back, with the goal's key word
/// in its question.
async fn asking_target() -> String {
    let app = axum::Router::new().route(
        "/chat",
        axum::routing::post(|| async {
            Json(json!({"reply": "请问您要办理退款的订单号是多少？"}))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind target");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/chat")
}

async fn target(app: &App, channel: Value) -> String {
    let (s, t) = app
        .post(
            "/api/targets",
            json!({"name": "target", "channel": channel}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    t["id"].as_str().expect("id").to_string()
}

async fn campaign(app: &App, target: &str, extra: Value) -> Value {
    let mut body = json!({"name": "evidence", "target_id": target, "duration_hours": 168});
    for (k, v) in extra.as_object().expect("object") {
        body[k] = v.clone();
    }
    let (s, c) = app.post("/api/campaigns", body).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    c
}

async fn demo_campaign(app: &App, extra: Value) -> Value {
    let t = target(app, json!({"kind": "builtin", "agent": "demo"})).await;
    campaign(app, &t, extra).await
}

fn patient_seeds() -> Value {
    json!({
        "personas": [{"id": "p", "name": "Lin", "patience": 3, "language": "en"}],
        "goals": [{"id": "g", "title": "Track my order", "slots": {"order_id": "A1024"}}],
    })
}

async fn start(app: &App, c: &Value, played_by: &str) -> String {
    let (s, session) = app
        .post(
            "/api/exploration/sessions",
            json!({
                "campaign_id": c["id"], "persona": {"name": "Lin", "patience": 3}, "goal": "Track my order",
                "seed_ref": {"persona_id": "p", "goal_id": "g"}, "played_by": played_by,
            }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{session}");
    session["id"].as_str().expect("id").to_string()
}

async fn say(app: &App, id: &str, content: &str) {
    let (s, r) = app
        .post(
            &format!("/api/exploration/sessions/{id}/messages"),
            json!({ "content": content }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{r}");
}

async fn close(app: &App, id: &str, record: Value) -> (StatusCode, Value) {
    app.post(&format!("/api/exploration/sessions/{id}/close"), record)
        .await
}

fn fault_kinds(session: &Value) -> Vec<String> {
    session["simulator_faults"]
        .as_array()
        .unwrap_or_else(|| panic!("checked on close: {session}"))
        .iter()
        .map(|f| f["kind"].as_str().expect("kind").to_string())
        .collect()
}

#[tokio::test]
async fn a_persons_session_is_never_a_simulator_fault() {
    let app = app().await;
    let c = demo_campaign(
        &app,
        json!({"seed_set": patient_seeds(), "budget": {"min_interval_minutes": 0}}),
    )
    .await;

    // A person gives up after one reply, with a persona whose patience is
    // three: that is the person's call, not a simulator's fault.
    let person = start(&app, &c, "person").await;
    say(&app, &person, "Where is my order?").await;
    let (s, closed) = close(
        &app,
        &person,
        json!({"goal_achieved": false, "end_reason": "stopped", "emotion": "neutral"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{closed}");
    assert_eq!(
        closed["end_reason"], "stopped",
        "the reason the person chose"
    );
    assert_eq!(closed["played_by"], "person");
    assert_eq!(fault_kinds(&closed), Vec::<String>::new(), "{closed}");

    let gave_up = start(&app, &c, "person").await;
    say(&app, &gave_up, "Where is my order?").await;
    let (_, closed) = close(
        &app,
        &gave_up,
        json!({"goal_achieved": false, "end_reason": "user_gave_up"}),
    )
    .await;
    assert_eq!(closed["end_reason"], "user_gave_up");
    assert_eq!(fault_kinds(&closed), Vec::<String>::new(), "{closed}");

    // The same play by an assistant is checked: it quit before its
    // persona's patience ran out.
    let assistant = start(&app, &c, "assistant").await;
    say(&app, &assistant, "Where is my order?").await;
    let (_, closed) = close(
        &app,
        &assistant,
        json!({"goal_achieved": false, "end_reason": "user_gave_up"}),
    )
    .await;
    assert_eq!(fault_kinds(&closed), vec!["quit_early"], "{closed}");

    // A person is no simulator: a simulator error is refused, in words.
    let refused = start(&app, &c, "person").await;
    let (s, err) = close(
        &app,
        &refused,
        json!({"goal_achieved": false, "end_reason": "simulator_error"}),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{err}");
    assert_eq!(err["code"], "INVALID_INPUT");
    assert!(err["message"].as_str().unwrap().contains("person"), "{err}");
    let (_, zh) = app
        .post(
            &format!("/api/exploration/sessions/{refused}/close?lang=zh"),
            json!({"goal_achieved": false, "end_reason": "simulator_error"}),
        )
        .await;
    assert!(zh["message"].as_str().unwrap().contains("由人扮演"), "{zh}");
    let (_, still) = app
        .get(&format!("/api/exploration/sessions/{refused}"))
        .await;
    assert_eq!(still["status"], "running", "nothing lost: {still}");
}

#[tokio::test]
async fn a_record_that_contradicts_its_end_is_a_simulator_fault() {
    let app = app().await;
    let c = demo_campaign(
        &app,
        json!({"seed_set": patient_seeds(), "budget": {"min_interval_minutes": 0}}),
    )
    .await;
    let id = start(&app, &c, "assistant").await;
    say(&app, &id, "Where is order A1024?").await;
    let (_, closed) = close(
        &app,
        &id,
        json!({"goal_achieved": true, "end_reason": "user_gave_up"}),
    )
    .await;
    assert!(
        fault_kinds(&closed).contains(&"record_disagrees".to_string()),
        "{closed}"
    );
    let fault = closed["simulator_faults"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "record_disagrees")
        .unwrap();
    assert_eq!(fault["detail"], "met", "the record said met: {fault}");
}

/// Waits for every session of the campaign to end; returns them.
async fn ended_sessions(app: &App, campaign: &str, count: usize) -> Vec<Value> {
    for _ in 0..200 {
        let (_, list) = app
            .get(&format!("/api/exploration/campaigns/{campaign}/sessions"))
            .await;
        let list = list.as_array().cloned().unwrap_or_default();
        if list.len() >= count && list.iter().all(|s| s["status"] != "running") {
            return list;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the sessions of {campaign} did not end");
}

async fn first_user_turn(app: &App, session: &Value) -> String {
    let (_, t) = app
        .get(&format!(
            "/api/exploration/sessions/{}/messages",
            session["id"].as_str().unwrap()
        ))
        .await;
    t["messages"][0]["content"]
        .as_str()
        .expect("a first turn")
        .to_string()
}

#[tokio::test]
async fn a_reply_that_asks_back_never_meets_a_goal_and_a_repeat_is_new_evidence() {
    let app = app().await;
    let url = asking_target().await;
    let t = target(&app, json!({"kind": "http", "url": url})).await;
    let c = campaign(
        &app,
        &t,
        json!({
            "time_scale": 100,
            "budget": {"min_interval_minutes": 0},
            "seed_set": {
                "personas": [{"id": "wang", "name": "王女士", "language": "zh", "patience": 2}],
                "goals": [{"id": "refund", "title": "弄清退款什么时候到账",
                           "success_criteria": ["退款"], "slots": {"order_id": "A1024"}}],
            },
        }),
    )
    .await;
    let id = c["id"].as_str().unwrap();
    let cell = json!({"campaign_id": id, "cells": [{"persona_id": "wang", "goal_id": "refund"}]});
    let (s, started) = app.post("/api/exploration/explore", cell.clone()).await;
    assert_eq!(s, StatusCode::OK, "{started}");
    assert_eq!(started["played_by"], "builtin");
    let first = ended_sessions(&app, id, 1).await;
    let session = &first[0];
    let record = &session["experience"];
    assert_eq!(
        record["goal_achieved"], false,
        "the target only asked for the order number, with 退款 in its question: {session}"
    );
    assert_ne!(session["end_reason"], "user_goal_met", "{session}");
    assert!(
        !fault_kinds(session).contains(&"record_disagrees".to_string()),
        "the built-in user's record and end agree: {session}"
    );

    // Exploring the cell again: the persona words its request otherwise.
    let (s, _) = app.post("/api/exploration/explore", cell).await;
    assert_eq!(s, StatusCode::OK);
    let both = ended_sessions(&app, id, 2).await;
    let (a, b) = (
        first_user_turn(&app, &both[0]).await,
        first_user_turn(&app, &both[1]).await,
    );
    assert_ne!(a, b, "a repeated cell is new evidence");
}

#[tokio::test]
async fn seed_sets_keep_any_json_as_given() {
    let app = app().await;
    let persona = json!({
        "id": "p-obj", "name": "Ada", "language": "en",
        "style": {"tone": "formal", "length": {"max_words": 20, "prefers": ["lists", "short"]}},
        "background": {"company": "Acme", "years": 3, "tags": [null, true, 1.5]},
    });
    let goal = json!({
        "id": "g-obj", "title": "Track my order",
        "slots": {"order_id": {"value": "A1024", "source": "receipt"}, "count": 3, "when": null},
        "rubric": [{"criterion": "polite", "weight": 0.5}],
    });
    let c = demo_campaign(
        &app,
        json!({"seed_set": {"personas": [persona.clone()], "goals": [goal.clone()]}}),
    )
    .await;
    assert_eq!(c["seed_set"]["personas"][0], persona, "{c}");
    assert_eq!(c["seed_set"]["goals"][0], goal, "{c}");
    let id = c["id"].as_str().unwrap();
    let (_, again) = app.get(&format!("/api/campaigns/{id}")).await;
    assert_eq!(again["seed_set"], c["seed_set"], "stored as given");

    // The virtual user says the fact by its value, never as JSON text.
    let (s, _) = app
        .post(
            "/api/exploration/explore",
            json!({"campaign_id": id, "cells": [{"persona_id": "p-obj", "goal_id": "g-obj"}]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let sessions = ended_sessions(&app, id, 1).await;
    let (_, t) = app
        .get(&format!(
            "/api/exploration/sessions/{}/messages",
            sessions[0]["id"].as_str().unwrap()
        ))
        .await;
    let said: Vec<&str> = t["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(said.iter().any(|m| m.contains("A1024")), "{said:?}");
    assert!(
        said.iter().all(|m| !m.contains("\"value\"")),
        "no JSON in the user's words: {said:?}"
    );

    // Next period carries the seed set over unchanged.
    let (s, next) = app
        .post(&format!("/api/campaigns/{id}/next-period"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{next}");
    assert_eq!(next["seed_set"], c["seed_set"]);
}

#[tokio::test]
async fn a_session_left_open_is_abandoned_after_its_lease_and_gives_its_slot_back() {
    let app = app().await;
    let c = demo_campaign(
        &app,
        json!({"seed_set": patient_seeds(), "budget": {"max_sessions": 1, "min_interval_minutes": 0}}),
    )
    .await;
    let left = start(&app, &c, "person").await;
    say(&app, &left, "Where is my order?").await;
    let (s, err) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": c["id"], "persona": "Lin", "goal": "Track my order",
                   "seed_ref": {"persona_id": "p", "goal_id": "g"}, "played_by": "person"}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "one session, budget spent: {err}");
    assert_eq!(err["code"], "SESSION_BUDGET_EXHAUSTED");

    // The tab was closed: 31 minutes without a word.
    app.clock.advance(Duration::minutes(31));
    let next = start(&app, &c, "person").await;
    let (_, abandoned) = app.get(&format!("/api/exploration/sessions/{left}")).await;
    assert_eq!(abandoned["status"], "expired", "{abandoned}");
    assert_eq!(abandoned["end_reason"], "abandoned", "{abandoned}");
    assert!(abandoned["experience"].is_null(), "no record was made up");
    let (_, transcript) = app
        .get(&format!("/api/exploration/sessions/{left}/messages"))
        .await;
    assert_eq!(
        transcript["messages"].as_array().unwrap().len(),
        2,
        "the conversation stays readable"
    );

    // Discarded from the drawer: ended at once, slot given back again.
    let (s, discarded) = app
        .post(
            &format!("/api/exploration/sessions/{next}/discard"),
            json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{discarded}");
    assert_eq!(discarded["end_reason"], "abandoned");
    let (s, again) = app
        .post(
            &format!("/api/exploration/sessions/{next}/discard"),
            json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{again}");
    assert_eq!(again["code"], "SESSION_NOT_RUNNING");
    start(&app, &c, "person").await;

    // Abandoned sessions count apart: no record, nothing in the findings.
    let (_, report) = app
        .get(&format!(
            "/api/campaigns/{}/report",
            c["id"].as_str().unwrap()
        ))
        .await;
    let e = &report["exploration"];
    assert_eq!(e["goal_achievement_rate"], Value::Null, "{e}");
}

#[tokio::test]
async fn pass_rate_intervals_stay_honest_at_small_samples() {
    let app = app().await;
    let scenario = hello_scenario(&app);
    let c = demo_campaign(&app, json!({"scenario_ids": [scenario]})).await;
    let id = c["id"].as_str().unwrap();
    for _ in 0..100 {
        app.platform.tick().await.expect("tick");
        let (_, report) = app.get(&format!("/api/campaigns/{id}/report")).await;
        if report["fixed"]["runs_pending"] == 0 && report["fixed"]["runs_finished"] == 1 {
            let fixed = &report["fixed"];
            let rate = fixed["pass_rate"].as_f64().expect("judged");
            let i = &fixed["pass_rate_interval"];
            let (low, high) = (i["low"].as_f64().unwrap(), i["high"].as_f64().unwrap());
            assert!(low <= rate && rate <= high, "{fixed}");
            assert!(
                high - low > 0.5,
                "one judged run says little, and the interval shows it: {i}"
            );
            let scenario_interval = &fixed["per_scenario"][0]["tally"]["interval"];
            assert_eq!(scenario_interval, i, "per scenario too");
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the run did not finish");
}

#[tokio::test]
async fn cited_runs_and_sessions_are_named_so_people_can_tell_them_apart() {
    let app = app().await;
    // A shipped scenario the demo agent fails (it answers one request of two).
    const TITLE: &str = "Two requests in one message are both answered";
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    app.platform
        .load_scenarios(&[shipped])
        .await
        .expect("the shipped packs");
    let t = target(&app, json!({"kind": "builtin", "agent": "demo"})).await;
    let c = campaign(
        &app,
        &t,
        json!({
            "plan": {"entries": [{"scenario_id": "cs.two_requests", "rounds": 3}]},
            "budget": {"min_interval_minutes": 0},
            "seed_set": patient_seeds(),
        }),
    )
    .await;
    let id = c["id"].as_str().unwrap();
    let cell = json!({"campaign_id": id, "cells": [{"persona_id": "p", "goal_id": "g"}]});
    for n in 1..=3 {
        let (s, r) = app.post("/api/exploration/explore", cell.clone()).await;
        assert_eq!(s, StatusCode::OK, "{r}");
        ended_sessions(&app, id, n).await;
    }
    app.clock.advance(Duration::hours(169));
    let report = loop {
        app.platform.tick().await.expect("tick");
        let (_, report) = app.get(&format!("/api/campaigns/{id}/report")).await;
        if report["fixed"]["runs_finished"] == 3 {
            break report;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let run = &report["fixed"]["per_scenario"][0]["failing_checks"][0]["example_run_id"];
    let names = &report["evidence"];
    let named_run = names["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| &r["id"] == run)
        .unwrap_or_else(|| panic!("the failing check's example run is named: {names}"));
    assert_eq!(named_run["scenario"], TITLE);
    let (_, runs) = app.get(&format!("/api/campaigns/{id}/runs")).await;
    let seq = runs
        .as_array()
        .unwrap()
        .iter()
        .find(|r| &r["id"] == run)
        .map(|r| r["seq"].as_u64().unwrap())
        .expect("the run is listed");
    assert_eq!(
        named_run["number"],
        seq + 1,
        "as the run's own view titles it"
    );

    // The analysis cites every session of the cell that reported an issue.
    let (s, analysis) = app
        .post(&format!("/api/campaigns/{id}/analysis"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{analysis}");
    let (_, report) = app.get(&format!("/api/campaigns/{id}/report")).await;
    let sessions = report["evidence"]["sessions"].as_array().unwrap().clone();
    let cited: Vec<&Value> = report["analysis"]["claims"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["session_ids"].as_array().unwrap())
        .collect();
    assert!(!cited.is_empty(), "the analysis cites sessions: {report}");
    for id in &cited {
        assert!(
            sessions.iter().any(|s| &&s["id"] == id),
            "every cited session is named: {id}"
        );
    }
    let mut ordinals: Vec<u64> = sessions
        .iter()
        .map(|s| {
            assert_eq!(s["persona"], "Lin");
            assert_eq!(s["goal"], "Track my order");
            s["ordinal"].as_u64().unwrap()
        })
        .collect();
    ordinals.sort_unstable();
    assert_eq!(
        ordinals,
        (1..=sessions.len() as u64).collect::<Vec<_>>(),
        "the sessions of one cell are its first, second, third…: {sessions:?}"
    );

    // The Markdown export names them too, in the reader's language, and
    // links each name to its transcript.
    let (s, md) = app
        .get(&format!("/api/campaigns/{id}/export?format=md&lang=zh"))
        .await;
    assert_eq!(s, StatusCode::OK);
    let md = md.as_str().expect("Markdown");
    for n in 1..=3 {
        assert!(
            md.contains(&format!("Lin × Track my order 第 {n} 次会话")),
            "{md}"
        );
    }
    assert!(md.contains(&format!("{TITLE} 第 ")), "{md}");
    for s in &sessions {
        let id = s["id"].as_str().unwrap();
        assert!(md.contains(&format!("<a id=\"session-{id}\"></a>")), "{md}");
    }
}
