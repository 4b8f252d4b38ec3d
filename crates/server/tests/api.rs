//! The HTTP API over a real router on 127.0.0.1, a real SQLite in a temp
//! dir and a manual clock, driven with reqwest.

use agenteval_engine::Platform;
use agenteval_engine::patrol_agent::PatrolConfig;
use agenteval_engine::runtime::PatrolControl;
use agenteval_server::{ServeConfig, spawn};
use chrono::{DateTime, Duration, Utc};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::sync::Arc;

mod support;

use support::{App, KEY, app, app_with_patrol, hello_scenario, t0};

impl App {
    async fn target(&self) -> String {
        let (s, t) = self
            .post(
                "/api/targets",
                json!({"name": "demo", "channel": {"kind": "builtin", "agent": "demo"}}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "a builtin target is valid: {t}");
        t["id"].as_str().expect("target id").to_string()
    }

    /// A campaign on the builtin demo target with two personas and two goals.
    async fn campaign(&self, extra: Value) -> Value {
        let target = self.target().await;
        let mut body = json!({
            "name": "exploration week",
            "target_id": target,
            "duration_hours": 168,
            "seed_set": seeds(),
        });
        for (k, v) in extra.as_object().expect("object") {
            body[k] = v.clone();
        }
        let (s, c) = self.post("/api/campaigns", body).await;
        assert_eq!(s, StatusCode::OK, "campaign is valid: {c}");
        assert_eq!(c["status"], "running", "a window starting now is running");
        c
    }

    async fn session(&self, campaign: &Value, persona: &str, goal: &str) -> (StatusCode, Value) {
        self.post(
            "/api/exploration/sessions",
            json!({
                "campaign_id": campaign["id"],
                "persona": {"name": "Lin", "traits": ["impatient"]},
                "goal": "send an email to my manager",
                "seed_ref": {"persona_id": persona, "goal_id": goal},
            }),
        )
        .await
    }

    async fn message(&self, session: &str, content: &str) -> (StatusCode, Value) {
        self.post(
            &format!("/api/exploration/sessions/{session}/messages"),
            json!({ "content": content }),
        )
        .await
    }
}

fn seeds() -> Value {
    json!({
        "personas": [{"id": "p-novice", "name": "Novice"}, {"id": "p-expert", "name": "Expert"}],
        "goals": [{"id": "g-email", "title": "Send an email"}, {"id": "g-refund", "title": "Get a refund"}],
    })
}

fn assert_error_shape(body: &Value, code: &str) {
    assert_eq!(body["code"], code, "expected {code}: {body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "every error has a message: {body}"
    );
    assert!(
        body["suggestion"].as_str().is_some_and(|m| !m.is_empty()),
        "every error has a suggestion: {body}"
    );
}

fn no_interval() -> Value {
    json!({"budget": {"min_interval_minutes": 0}})
}

#[tokio::test]
async fn health_is_open_and_every_other_route_needs_the_key() {
    let app = app().await;
    let res = app
        .http
        .get(format!("{}/api/health", app.base))
        .send()
        .await
        .expect("health");
    assert_eq!(res.status(), StatusCode::OK, "health needs no key");
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["status"], "ok");
    assert_eq!(
        body["version"],
        env!("CARGO_PKG_VERSION"),
        "health reports the version"
    );
    let revision = body["revision"]
        .as_str()
        .expect("health names the revision");
    assert!(
        revision == "unknown"
            || (revision.len() == 12 && revision.chars().all(|c| c.is_ascii_hexdigit())),
        "{revision}"
    );
    assert_eq!(
        body["built"].as_str().map(str::len),
        Some(10),
        "the build day: {body}"
    );

    for path in [
        "/api/targets",
        "/api/exploration/patrol",
        "/api/openapi.json",
    ] {
        let res = app
            .http
            .get(format!("{}{path}", app.base))
            .send()
            .await
            .expect("request");
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{path} without key");
        assert_error_shape(&res.json().await.expect("json"), "UNAUTHORIZED");
        let res = app
            .http
            .get(format!("{}{path}", app.base))
            .header("X-API-Key", "wrong")
            .send()
            .await
            .expect("request");
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "{path} wrong key");
    }
    let res = app
        .http
        .post(format!("{}/api/exploration/sessions", app.base))
        .header("X-API-Key", format!("{KEY}x"))
        .json(&json!({}))
        .send()
        .await
        .expect("request");
    assert_eq!(
        res.status(),
        StatusCode::UNAUTHORIZED,
        "a key with the right prefix is still wrong"
    );

    let (s, doc) = app.get("/api/openapi.json").await;
    assert_eq!(s, StatusCode::OK);
    assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with('3')));
    for path in [
        "/api/exploration/patrol",
        "/api/exploration/sessions",
        "/api/exploration/sessions/{id}/messages",
        "/api/exploration/sessions/{id}/close",
        "/api/exploration/campaigns/{id}/sessions",
        "/api/campaigns/{id}/report",
        "/api/campaigns/{id}/finalize",
        "/api/targets",
        "/api/scenarios",
        "/api/health",
    ] {
        assert!(doc["paths"][path].is_object(), "OpenAPI documents {path}");
    }
    assert_eq!(
        doc["components"]["securitySchemes"]["api_key"]["name"], "X-API-Key",
        "the key scheme is documented"
    );

    let unauthorized = app
        .platform
        .inspect()
        .audit_events()
        .await
        .expect("audit events")
        .iter()
        .filter(|e| e.actor == "anonymous" && e.outcome == "UNAUTHORIZED")
        .count();
    assert!(
        unauthorized >= 7,
        "refused calls are audited: {unauthorized}"
    );
}

#[tokio::test]
async fn session_lifecycle_from_create_to_report() {
    let app = app().await;
    let campaign = app.campaign(no_interval()).await;
    let cid = campaign["id"].as_str().expect("id");

    let (s, report) = app.get(&format!("/api/campaigns/{cid}/report")).await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        report.get("exploration").is_none(),
        "no exploration key before any session: {report}"
    );

    let (s, session) = app.session(&campaign, "p-novice", "g-email").await;
    assert_eq!(s, StatusCode::OK, "{session}");
    assert_eq!(session["status"], "running");
    assert_eq!(session["trigger"], "auto", "trigger defaults to auto");
    assert_eq!(session["seed_ref"]["persona_id"], "p-novice");
    assert_eq!(session["persona"]["name"], "Lin", "persona kept as JSON");
    let sid = session["id"].as_str().expect("id").to_string();

    let (s, r1) = app.message(&sid, "Hello, I need to send an email").await;
    assert_eq!(s, StatusCode::OK, "{r1}");
    assert!(r1["reply"].as_str().is_some_and(|r| !r.is_empty()));
    assert_eq!(r1["turn"], 1);
    assert_eq!(r1["turns_remaining"], 11, "default budget is 12 user turns");
    assert!(r1["latency_ms"].is_u64());
    let (s, r2) = app.message(&sid, "It goes to boss@example.com").await;
    assert_eq!(s, StatusCode::OK, "{r2}");
    assert_eq!(r2["turn"], 2);

    let (s, transcript) = app
        .get(&format!("/api/exploration/sessions/{sid}/messages"))
        .await;
    assert_eq!(s, StatusCode::OK);
    let msgs = transcript["messages"].as_array().expect("messages");
    assert_eq!(msgs.len(), 4, "both sides of two turns are stored");
    let roles: Vec<&str> = msgs
        .iter()
        .map(|m| m["role"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(roles, ["user", "target", "user", "target"]);
    assert_eq!(msgs[0]["content"], "Hello, I need to send an email");
    assert_eq!(msgs[1]["content"], r1["reply"]);

    let (s, closed) = app
        .post(
            &format!("/api/exploration/sessions/{sid}/close"),
            json!({
                "goal_achieved": true,
                "blockers": ["  Had to repeat the address ", "had to repeat the address", ""],
                "misled": ["Claimed it was sent before confirming"],
                "emotion": "满意",
                "notes": "worked in the end",
            }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{closed}");
    assert_eq!(closed["status"], "completed");
    assert_eq!(closed["end_reason"], "user_goal_met");
    assert_eq!(closed["judge_status"], "pending", "judge review is queued");
    let exp = &closed["experience"];
    assert_eq!(exp["emotion"], "satisfied", "满意 maps to satisfied");
    assert_eq!(
        exp["blockers"],
        json!(["Had to repeat the address"]),
        "trimmed, empty dropped, case-insensitive duplicates merged"
    );

    let (s, again) = app.message(&sid, "one more").await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_error_shape(&again, "SESSION_NOT_RUNNING");

    let (_, report) = app.get(&format!("/api/campaigns/{cid}/report")).await;
    let ex = &report["exploration"];
    assert_eq!(ex["sessions_total"], 1, "{report}");
    assert_eq!(ex["goal_achievement_rate"], 1.0);
    assert_eq!(ex["sessions_by_status"]["completed"], 1);
    assert_eq!(ex["issues"].as_array().map(Vec::len), Some(2));
    assert_eq!(ex["issues"][0]["session_ids"], json!([sid]));
    assert_eq!(ex["emotions"]["satisfied"], 1);
    assert_eq!(ex["judge"]["pending"], 1);

    let (s, list) = app
        .get(&format!("/api/exploration/campaigns/{cid}/sessions"))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(list.as_array().map(Vec::len), Some(1));

    let (_, ledger) = app
        .get(&format!("/api/exploration/campaigns/{cid}/ledger"))
        .await;
    let decisions: Vec<(String, bool, Value)> = ledger
        .as_array()
        .expect("ledger")
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap_or("").to_string(),
                e["allowed"].as_bool().unwrap_or(false),
                e["reason_code"].clone(),
            )
        })
        .collect();
    assert_eq!(
        decisions,
        vec![
            ("create".into(), true, Value::Null),
            ("message".into(), true, Value::Null),
            ("message".into(), true, Value::Null),
            ("close".into(), true, Value::Null),
            ("message".into(), false, json!("SESSION_NOT_RUNNING")),
        ],
        "the ledger holds exactly the decisions taken"
    );
}

#[tokio::test]
async fn every_guardrail_refusal_is_a_409_with_its_reason_code() {
    let app = app().await;

    // Session budget.
    let c = app
        .campaign(json!({"budget": {"max_sessions": 1, "min_interval_minutes": 0}}))
        .await;
    assert_eq!(
        app.session(&c, "p-novice", "g-email").await.0,
        StatusCode::OK
    );
    let (s, body) = app.session(&c, "p-expert", "g-email").await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_error_shape(&body, "SESSION_BUDGET_EXHAUSTED");

    // Turn limit.
    let c = app
        .campaign(json!({"budget": {"max_turns": 2, "min_interval_minutes": 0}}))
        .await;
    let (_, session) = app.session(&c, "p-novice", "g-email").await;
    let sid = session["id"].as_str().expect("id");
    assert_eq!(app.message(sid, "one").await.0, StatusCode::OK);
    let (_, r) = app.message(sid, "two").await;
    assert_eq!(r["turns_remaining"], 0);
    let (s, body) = app.message(sid, "three").await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_error_shape(&body, "TURN_LIMIT_REACHED");

    // Interval (default 30 minutes on the formal line).
    let c = app.campaign(json!({})).await;
    assert_eq!(
        app.session(&c, "p-novice", "g-email").await.0,
        StatusCode::OK
    );
    app.clock.advance(Duration::minutes(10));
    let (s, body) = app.session(&c, "p-expert", "g-email").await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_error_shape(&body, "INTERVAL_NOT_ELAPSED");
    let next: DateTime<Utc> = body["next_allowed_at"]
        .as_str()
        .expect("next_allowed_at is given")
        .parse()
        .expect("a time");
    assert_eq!(
        next,
        t0() + Duration::minutes(30),
        "30 minutes after the first start"
    );
    app.clock.advance(Duration::minutes(20));
    assert_eq!(
        app.session(&c, "p-expert", "g-email").await.0,
        StatusCode::OK,
        "allowed once the interval has elapsed"
    );

    // Accelerated line: auto refused, manual allowed.
    let c = app
        .campaign(json!({"time_scale": 100, "budget": {"min_interval_minutes": 0}}))
        .await;
    let (s, body) = app.session(&c, "p-novice", "g-email").await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_error_shape(&body, "AUTO_NOT_ALLOWED_ON_ACCELERATED_LINE");
    let (s, body) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": c["id"], "persona": "a hurried user", "goal": "debug", "trigger": "manual"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "manual sessions are allowed: {body}");
    assert_eq!(body["trigger"], "manual");
    assert_eq!(
        body["seed_ref"],
        Value::Null,
        "manual sessions may omit seed_ref"
    );

    // Campaign not running.
    let c = app.campaign(no_interval()).await;
    let cid = c["id"].as_str().expect("id");
    let (s, _) = app
        .post(&format!("/api/campaigns/{cid}/finalize"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, body) = app.session(&c, "p-novice", "g-email").await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_error_shape(&body, "CAMPAIGN_NOT_RUNNING");

    // Seeds.
    let c = app.campaign(no_interval()).await;
    let (s, body) = app.session(&c, "p-nobody", "g-email").await;
    assert_eq!(
        s,
        StatusCode::NOT_FOUND,
        "a seed the campaign does not have"
    );
    assert_error_shape(&body, "NOT_FOUND");
    assert!(
        body["message"].as_str().unwrap_or("").contains("p-nobody"),
        "the unknown seed id is named: {body}"
    );
    let (s, body) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": c["id"], "persona": {"name": "x"}, "goal": "y"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "auto sessions need a seed_ref");
    assert_error_shape(&body, "INVALID_INPUT");
    // A campaign without seeds needs a scenario, or it evaluates nothing.
    let empty = app
        .campaign(
            json!({"seed_set": {"personas": [], "goals": []}, "budget": {"min_interval_minutes": 0},
                         "scenario_ids": [hello_scenario(&app)]}),
        )
        .await;
    let (s, body) = app.session(&empty, "p-novice", "g-email").await;
    assert_eq!(s, StatusCode::CONFLICT, "no seeds: no auto exploration");
    assert_error_shape(&body, "CONFLICT");

    let (s, body) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": "0190d5a4-0000-7000-8000-000000000000", "persona": "x", "goal": "y"}),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_error_shape(&body, "NOT_FOUND");
}

#[tokio::test]
async fn finalize_expires_running_sessions_and_is_idempotent() {
    let app = app().await;
    let c = app.campaign(no_interval()).await;
    let cid = c["id"].as_str().expect("id");
    let (_, session) = app.session(&c, "p-novice", "g-email").await;
    let sid = session["id"].as_str().expect("id");
    assert_eq!(app.message(sid, "hi").await.0, StatusCode::OK);

    let (s, first) = app
        .post(&format!("/api/campaigns/{cid}/finalize"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(first["status"], "finalized");
    let (_, got) = app.get(&format!("/api/exploration/sessions/{sid}")).await;
    assert_eq!(got["status"], "expired");
    assert_eq!(got["end_reason"], "expired");
    let (s, body) = app.message(sid, "still there?").await;
    assert_eq!(
        s,
        StatusCode::CONFLICT,
        "expired sessions accept no message"
    );
    assert_error_shape(&body, "SESSION_NOT_RUNNING");
    let (s, body) = app
        .post(
            &format!("/api/exploration/sessions/{sid}/close"),
            json!({"goal_achieved": false}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_error_shape(&body, "SESSION_NOT_RUNNING");

    app.clock.advance(Duration::minutes(1));
    let (s, second) = app
        .post(&format!("/api/campaigns/{cid}/finalize"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "finalize is idempotent");
    assert_eq!(
        second["finalized_at"], first["finalized_at"],
        "nothing changes the second time"
    );

    let (_, report) = app.get(&format!("/api/campaigns/{cid}/report")).await;
    assert_eq!(report["exploration"]["sessions_by_status"]["expired"], 1);
    assert_eq!(
        report["exploration"]["sessions_by_end_reason"]["expired"],
        1
    );
}

#[tokio::test]
async fn patrol_lists_running_formal_campaigns_with_seeds_and_advances() {
    let app = app().await;
    let formal = app.campaign(no_interval()).await;
    let _accelerated = app
        .campaign(json!({"time_scale": 24, "budget": {"min_interval_minutes": 0}}))
        .await;
    let _no_seeds = app
        .campaign(json!({"seed_set": {"personas": [], "goals": []},
                         "scenario_ids": [hello_scenario(&app)]}))
        .await;
    let finalized = app.campaign(no_interval()).await;
    app.post(
        &format!(
            "/api/campaigns/{}/finalize",
            finalized["id"].as_str().expect("id")
        ),
        json!({}),
    )
    .await;

    let (_, s1) = app.session(&formal, "p-novice", "g-email").await;
    let sid = s1["id"].as_str().expect("id");
    app.post(
        &format!("/api/exploration/sessions/{sid}/close"),
        json!({"goal_achieved": false, "blockers": ["no confirmation"], "emotion": "frustrated"}),
    )
    .await;

    let (s, p1) = app.get("/api/exploration/patrol").await;
    assert_eq!(s, StatusCode::OK);
    let campaigns = p1["campaigns"].as_array().expect("campaigns");
    assert_eq!(
        campaigns.len(),
        1,
        "only the running formal campaign with seeds is patrolled: {p1}"
    );
    let c = &campaigns[0];
    assert_eq!(c["id"], formal["id"]);
    assert_eq!(c["name"], "exploration week");
    assert_eq!(c["target"]["id"], formal["target_id"]);
    assert_eq!(c["target"]["name"], "demo");
    assert_eq!(c["last_patrolled_at"], Value::Null, "first patrol");
    assert!(c["new_results"].is_object(), "fixed results summary");
    assert_eq!(c["new_sessions"].as_array().map(Vec::len), Some(1));
    assert_eq!(c["budget_remaining"]["sessions_remaining"], 7);
    assert_eq!(c["budget_remaining"]["max_turns"], 12);
    assert_eq!(c["seeds"]["personas"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        c["uncovered"].as_array().map(Vec::len),
        Some(3),
        "4 cells, 1 covered"
    );
    assert_eq!(c["failed_goals"][0]["goal_id"], "g-email");

    let (_, stored) = app
        .get(&format!(
            "/api/campaigns/{}",
            formal["id"].as_str().expect("id")
        ))
        .await;
    assert_eq!(
        stored["last_patrolled_at"], p1["generated_at"],
        "patrol time recorded"
    );

    app.clock.advance(Duration::minutes(5));
    let (_, p2) = app.get("/api/exploration/patrol").await;
    let c = &p2["campaigns"][0];
    assert_eq!(
        c["last_patrolled_at"], p1["generated_at"],
        "relative to the previous patrol"
    );
    assert_eq!(
        c["new_sessions"].as_array().map(Vec::len),
        Some(0),
        "nothing new since the previous patrol"
    );

    app.clock.advance(Duration::minutes(5));
    app.session(&formal, "p-expert", "g-refund").await;
    app.clock.advance(Duration::minutes(5));
    let (_, p3) = app.get("/api/exploration/patrol").await;
    assert_eq!(
        p3["campaigns"][0]["new_sessions"].as_array().map(Vec::len),
        Some(1)
    );
}

#[tokio::test]
async fn fifty_parallel_creates_never_exceed_the_session_budget() {
    let app = Arc::new(app().await);
    let c = app
        .campaign(json!({"budget": {"max_sessions": 3, "min_interval_minutes": 0}}))
        .await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..50 {
        let app = app.clone();
        let c = c.clone();
        tasks.spawn(async move {
            let persona = if i % 2 == 0 { "p-novice" } else { "p-expert" };
            app.session(&c, persona, "g-email").await
        });
    }
    let (mut created, mut exhausted) = (0, 0);
    while let Some(res) = tasks.join_next().await {
        let (s, body) = res.expect("task");
        match s {
            StatusCode::OK => created += 1,
            StatusCode::CONFLICT if body["code"] == "SESSION_BUDGET_EXHAUSTED" => exhausted += 1,
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert_eq!(
        (created, exhausted),
        (3, 47),
        "exactly the budget is created"
    );
    let cid = c["id"].as_str().expect("id");
    let cid: uuid::Uuid = cid.parse().expect("campaign id");
    let stored = app.platform.inspect();
    let rows = stored
        .campaign_sessions(agenteval_engine::CampaignId(cid))
        .await
        .expect("sessions")
        .len();
    assert_eq!(rows, 3, "the database holds the budget, no more");
    let allowed = stored
        .allowed_ledger_entries(agenteval_engine::CampaignId(cid), "create")
        .await
        .expect("count");
    let refused = stored
        .refused_ledger_entries(
            agenteval_engine::CampaignId(cid),
            "create",
            "SESSION_BUDGET_EXHAUSTED",
        )
        .await
        .expect("count");
    assert_eq!((allowed, refused), (3, 47), "one ledger row per decision");
}

#[tokio::test]
async fn parallel_messages_never_exceed_the_turn_limit() {
    let app = Arc::new(app().await);
    let c = app
        .campaign(json!({"budget": {"max_turns": 5, "min_interval_minutes": 0}}))
        .await;
    let (_, session) = app.session(&c, "p-novice", "g-email").await;
    let sid = session["id"].as_str().expect("id").to_string();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..20 {
        let app = app.clone();
        let sid = sid.clone();
        tasks.spawn(async move { app.message(&sid, &format!("message {i}")).await });
    }
    let (mut ok, mut limited) = (0, 0);
    while let Some(res) = tasks.join_next().await {
        let (s, body) = res.expect("task");
        match s {
            StatusCode::OK => ok += 1,
            StatusCode::CONFLICT if body["code"] == "TURN_LIMIT_REACHED" => limited += 1,
            other => panic!("unexpected {other}: {body}"),
        }
    }
    assert_eq!(
        (ok, limited),
        (5, 15),
        "exactly max_turns messages go through"
    );
    let (_, got) = app.get(&format!("/api/exploration/sessions/{sid}")).await;
    assert_eq!(got["turn_count"], 5);
    let (_, transcript) = app
        .get(&format!("/api/exploration/sessions/{sid}/messages"))
        .await;
    assert_eq!(transcript["messages"].as_array().map(Vec::len), Some(10));
}

#[tokio::test]
async fn bad_requests_get_4xx_in_the_error_shape() {
    let app = app().await;
    let c = app.campaign(no_interval()).await;
    let (_, session) = app.session(&c, "p-novice", "g-email").await;
    let sid = session["id"].as_str().expect("id");
    let url = |p: &str| format!("{}{p}", app.base);

    let (s, body) = app
        .send(
            app.http
                .post(url("/api/exploration/sessions"))
                .header("content-type", "application/json")
                .body("{\"campaign_id\": "),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "malformed JSON");
    assert_error_shape(&body, "INVALID_INPUT");

    let (s, body) = app
        .post(
            &format!("/api/exploration/sessions/{sid}/close"),
            json!({"goal_achieved": "yes", "blockers": []}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "wrong type");
    assert_error_shape(&body, "UNPROCESSABLE");
    assert!(
        body["message"]
            .as_str()
            .unwrap_or("")
            .contains("goal_achieved"),
        "the field is named: {body}"
    );
    let (s, body) = app
        .post(
            &format!("/api/exploration/sessions/{sid}/close"),
            json!({"goal_achieved": true, "blockers": [1, 2]}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        body["message"].as_str().unwrap_or("").contains("blockers"),
        "{body}"
    );

    let big = "x".repeat(2 * 1024 * 1024);
    let (s, body) = app.message(sid, &big).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE);
    assert_error_shape(&body, "PAYLOAD_TOO_LARGE");

    let (s, body) = app.message(sid, &"y".repeat(9 * 1024)).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "messages are at most 8 KiB");
    assert_error_shape(&body, "INVALID_INPUT");
    let (s, _) = app.message(sid, "   ").await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "empty messages are refused");
    // Both in the caller's language.
    let in_zh = format!("/api/exploration/sessions/{sid}/messages?lang=zh");
    let (_, body) = app
        .post(&in_zh, json!({ "content": "y".repeat(9 * 1024) }))
        .await;
    assert_eq!(body["message"], "`content` 超过 8 KiB", "{body}");
    assert_eq!(body["suggestion"], "请像真实用户那样发送较短的消息。");
    let (_, body) = app.post(&in_zh, json!({ "content": " " })).await;
    assert_eq!(body["message"], "`content` 不能为空", "{body}");

    let (s, body) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": c["id"], "persona": {"bio": "z".repeat(20_000)}, "goal": "g",
                   "seed_ref": {"persona_id": "p-novice", "goal_id": "g-email"}}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "persona over 16 KiB");
    assert_error_shape(&body, "INVALID_INPUT");

    let (s, body) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": c["id"], "persona": 42, "goal": "g", "trigger": "manual"}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::UNPROCESSABLE_ENTITY,
        "a number is no persona"
    );
    assert_error_shape(&body, "UNPROCESSABLE");
    let (s, body) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": "no-such-campaign", "persona": "p", "goal": "g"}),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "a non-UUID id names no campaign");
    assert_error_shape(&body, "NOT_FOUND");
    let (s, body) = app
        .post(
            "/api/exploration/sessions",
            json!({"persona": "p", "goal": "g"}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::UNPROCESSABLE_ENTITY,
        "campaign_id is required"
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap_or("")
            .contains("campaign_id"),
        "{body}"
    );

    let (s, body) = app
        .get("/api/exploration/sessions/not-a-uuid/messages")
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_error_shape(&body, "NOT_FOUND");
    let (s, body) = app
        .message("0190d5a4-0000-7000-8000-000000000000", "hello")
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_error_shape(&body, "NOT_FOUND");
    let (s, body) = app.get("/api/no/such/route").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_error_shape(&body, "NOT_FOUND");
    let (s, _) = app
        .send(app.http.delete(url("/api/exploration/sessions")))
        .await;
    assert_eq!(s, StatusCode::METHOD_NOT_ALLOWED);

    let (s, body) = app
        .post(
            "/api/campaigns",
            json!({"name": "x", "target_id": c["target_id"], "duration_hours": -1}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_error_shape(&body, "INVALID_INPUT");
}

#[tokio::test]
async fn close_normalises_emotions_and_lists() {
    let app = app().await;
    let c = app.campaign(no_interval()).await;
    let cases = [
        ("困惑", "confused", Some("困惑")),
        ("ANGRY", "angry", None),
        ("worried", "anxious", Some("worried")),
        ("bemused", "neutral", Some("bemused")),
        ("", "neutral", None),
    ];
    for (raw, want, kept) in cases {
        let (_, session) = app.session(&c, "p-novice", "g-email").await;
        let sid = session["id"].as_str().expect("id");
        let many: Vec<String> = (0..60).map(|i| format!("blocker {i}")).collect();
        let (s, closed) = app
            .post(
                &format!("/api/exploration/sessions/{sid}/close"),
                json!({"goal_achieved": false, "blockers": many, "misled": ["m".repeat(800)],
                       "emotion": raw, "notes": "n".repeat(5000), "end_reason": "max_turns"}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{closed}");
        let exp = &closed["experience"];
        assert_eq!(exp["emotion"], want, "{raw:?} maps to {want}");
        assert_eq!(
            exp["emotion_raw"].as_str(),
            kept,
            "original kept when not canonical"
        );
        assert_eq!(
            exp["blockers"].as_array().map(Vec::len),
            Some(50),
            "at most 50"
        );
        assert_eq!(
            exp["misled"][0].as_str().map(|m| m.chars().count()),
            Some(500)
        );
        assert_eq!(exp["notes"].as_str().map(|m| m.chars().count()), Some(4000));
        assert_eq!(closed["end_reason"], "max_turns");
    }
}

#[tokio::test]
async fn an_unreachable_target_fails_the_session_with_502() {
    let app = app().await;
    let (s, target) = app
        .post(
            "/api/targets",
            json!({"name": "down", "channel": {"kind": "http", "url": "http://127.0.0.1:9/chat"},
                   "max_retries": 0, "timeout_ms": 500}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{target}");
    let (_, c) = app
        .post(
            "/api/campaigns",
            json!({"name": "down", "target_id": target["id"], "duration_hours": 24, "seed_set": seeds(),
                   "budget": {"min_interval_minutes": 0}}),
        )
        .await;
    let (_, session) = app.session(&c, "p-novice", "g-email").await;
    let sid = session["id"].as_str().expect("id");
    let (s, body) = app.message(sid, "hello?").await;
    assert_eq!(s, StatusCode::BAD_GATEWAY);
    assert_error_shape(&body, "TARGET_UNAVAILABLE");
    let (_, got) = app.get(&format!("/api/exploration/sessions/{sid}")).await;
    assert_eq!(got["status"], "failed");
    assert_eq!(got["end_reason"], "target_error");
    // Why, as the connection test says it, in the reader's language.
    assert_eq!(
        got["failure_reason"]["key"], "target-not-listening",
        "{got}"
    );
    let (_, zh) = app
        .get(&format!("/api/exploration/sessions/{sid}?lang=zh"))
        .await;
    let text = zh["failure_reason"]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("127.0.0.1:9") && text.contains("没有服务在监听"),
        "{zh}"
    );
}

#[tokio::test]
async fn targets_scenarios_and_campaigns_routes() {
    let app = app().await;
    let c = app.campaign(json!({})).await;
    let (s, targets) = app.get("/api/targets").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(targets.as_array().map(Vec::len), Some(1));
    let (s, scenarios) = app.get("/api/scenarios").await;
    assert_eq!(s, StatusCode::OK);
    assert!(scenarios.is_array());
    let (s, list) = app.get("/api/campaigns").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(list[0]["id"], c["id"]);
    let cid = c["id"].as_str().expect("id");
    let (s, one) = app.get(&format!("/api/campaigns/{cid}")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        one["effective_budget"]["max_sessions"], 8,
        "platform default"
    );
    let (s, export) = app
        .get(&format!("/api/campaigns/{cid}/export?format=json"))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(export["campaign"]["id"], c["id"]);
    let (s, md) = app
        .get(&format!("/api/campaigns/{cid}/export?format=md"))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        md.as_str().is_some_and(|t| t.contains("exploration week")),
        "the Markdown export names the campaign: {md}"
    );
    let (s, analysis) = app
        .post(&format!("/api/campaigns/{cid}/analysis"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{analysis}");
    assert_eq!(
        analysis["offline"], true,
        "no analyst model: labelled template"
    );
    let (s, body) = app
        .get(&format!("/api/campaigns/{cid}/export?format=pdf"))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_error_shape(&body, "INVALID_INPUT");
}

#[tokio::test]
async fn ui_routes_target_test_runs_reviews_and_next_period() {
    let app = app().await;
    let target = app.target().await;
    let (s, probe) = app
        .post(&format!("/api/targets/{target}/test"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "the connection test answers: {probe}");
    assert_eq!(probe["ok"], true, "the builtin agent answers the probe");
    let (s, _) = app
        .post(
            &format!("/api/targets/{}/test", uuid::Uuid::now_v7()),
            json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "an unknown target is 404");

    let c = app.campaign(json!({})).await;
    let id = c["id"].as_str().expect("campaign id");
    let (s, runs) = app.get(&format!("/api/campaigns/{id}/runs")).await;
    assert_eq!(s, StatusCode::OK, "runs list: {runs}");
    assert!(runs.as_array().is_some(), "runs come as a list");
    let (s, _) = app
        .get(&format!("/api/campaigns/{}/runs", uuid::Uuid::now_v7()))
        .await;
    assert_eq!(
        s,
        StatusCode::NOT_FOUND,
        "runs of an unknown campaign are 404"
    );
    let (s, _) = app.get("/api/runs/not-a-uuid/turns").await;
    assert_eq!(s, StatusCode::NOT_FOUND, "a malformed run id names no run");

    let (s, session) = app.session(&c, "p-novice", "g-email").await;
    assert_eq!(s, StatusCode::OK, "a seeded session starts: {session}");
    let (s, review) = app
        .post(
            "/api/reviews",
            json!({"subject_kind": "session", "subject_id": session["id"], "rating": 4, "comment": "fine"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "a 1-5 rating is recorded: {review}");
    let (s, _) = app
        .post(
            "/api/reviews",
            json!({"subject_kind": "session", "subject_id": session["id"], "rating": 2, "comment": "on second look"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "a second rating is recorded");
    let sid = session["id"].as_str().expect("session id");
    let (s, listed) = app.get(&format!("/api/reviews?subject_id={sid}")).await;
    assert_eq!(s, StatusCode::OK, "the ratings are listed: {listed}");
    let listed = listed.as_array().expect("a list");
    assert_eq!(listed.len(), 2, "both ratings are kept: {listed:?}");
    assert_eq!(
        listed[0]["rating"], 2,
        "newest first, so a drawer shows the last rating"
    );
    assert_eq!(
        listed[1]["comment"], "fine",
        "the first rating kept its comment"
    );
    let (s, err) = app.get("/api/reviews?subject_id=not-an-id").await;
    assert_eq!(
        s,
        StatusCode::BAD_REQUEST,
        "a malformed id is refused: {err}"
    );
    assert!(err["suggestion"].is_string(), "with a suggestion: {err}");
    let (s, err) = app.get("/api/reviews").await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "the subject is required: {err}");
    let (s, err) = app
        .post(
            "/api/reviews",
            json!({"subject_kind": "session", "subject_id": session["id"], "rating": 9}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::BAD_REQUEST,
        "ratings outside 1-5 are refused: {err}"
    );

    let (s, _) = app
        .post(&format!("/api/campaigns/{id}/finalize"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "finalize");
    let (s, next) = app
        .post(&format!("/api/campaigns/{id}/next-period"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "the next period is created: {next}");
    assert_eq!(
        next["target_id"], c["target_id"],
        "same target in the next period"
    );

    // The report in the reader's language: the analysis and the
    // comparison's verdict carry their text in Chinese with ?lang=zh, and
    // their message for a client that renders it itself.
    let (s, _) = app
        .post(&format!("/api/campaigns/{id}/analysis?lang=zh"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK);
    let (_, report) = app
        .get(&format!("/api/campaigns/{id}/report?lang=zh"))
        .await;
    let summary = report["analysis"]["summary"]["text"]
        .as_str()
        .unwrap_or_default();
    let (han, english) = scripts_of(summary);
    assert!(
        han > 0 && english.is_empty(),
        "the analysis in Chinese: {summary}"
    );
    assert_eq!(report["analysis"]["summary"]["key"], "analysis-summary");
    let (_, report) = app
        .get(&format!(
            "/api/campaigns/{}/report",
            next["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(
        report["comparison"]["periods"][0]["verdict"]["text"],
        "Not enough judged runs in one of the periods to compare.",
        "without a language asked, the text is English: {}",
        report["comparison"]
    );
    let asked = app
        .http
        .get(format!(
            "{}/api/campaigns/{}/report",
            app.base,
            next["id"].as_str().unwrap()
        ))
        .header("Accept-Language", "zh-CN");
    let (_, report) = app.send(asked).await;
    let verdict = report["comparison"]["periods"][0]["verdict"]["text"]
        .as_str()
        .unwrap_or_default();
    let (han, english) = scripts_of(verdict);
    assert!(
        han > 0 && english.is_empty(),
        "the comparison in Chinese: {verdict}"
    );
}

#[tokio::test]
async fn the_ui_is_served_at_the_root_when_built() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ui = dir.path().join("dist");
    std::fs::create_dir_all(&ui).expect("ui dir");
    std::fs::write(ui.join("index.html"), "<html>agenteval ui</html>").expect("index");
    let platform = Platform::builder(&dir.path().join("data"))
        .open()
        .await
        .expect("platform");
    let (addr, _task) = spawn(
        platform,
        ServeConfig {
            bind: "127.0.0.1:0".parse().expect("addr"),
            api_key: KEY.into(),
            ui_dir: Some(ui),
            patrol: PatrolControl::none(),
        },
    )
    .await
    .expect("spawn");
    let get = |p: &str| reqwest::get(format!("http://{addr}{p}"));
    let root = get("/").await.expect("root");
    assert_eq!(root.status(), StatusCode::OK);
    assert!(root.text().await.expect("text").contains("agenteval ui"));
    let deep = get("/campaigns/123").await.expect("client route");
    assert_eq!(
        deep.status(),
        StatusCode::OK,
        "client-side routes get index.html"
    );
    assert!(deep.text().await.expect("text").contains("agenteval ui"));
    let api = get("/api/nothing-here").await.expect("api");
    assert_eq!(
        api.status(),
        StatusCode::NOT_FOUND,
        "unknown API paths stay 404"
    );
    assert_error_shape(&api.json().await.expect("json"), "NOT_FOUND");
}

#[tokio::test]
async fn patrol_agent_pauses_and_resumes_through_the_api() {
    let app = app_with_patrol(Some(PatrolConfig {
        interval: std::time::Duration::from_secs(3600),
        ..Default::default()
    }))
    .await;
    // The heartbeat wakes once at start; wait for it to be recorded.
    let mut status = Value::Null;
    for _ in 0..100 {
        let (s, body) = app.get("/api/patrol-agent").await;
        assert_eq!(s, StatusCode::OK, "{body}");
        status = body;
        if !status["next_wake_at"].is_null() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(status["running"], true, "serve runs an agent: {status}");
    assert_eq!(status["paused"], false);
    assert_eq!(status["interval_minutes"], 60);
    assert_eq!(
        status["last_wake_at"],
        json!(t0()),
        "the first wake-up happens at start (manual clock at t0): {status}"
    );
    assert_eq!(
        status["next_wake_at"],
        json!(t0() + Duration::hours(1)),
        "the next one comes an interval later: {status}"
    );

    let (s, paused) = app.post("/api/patrol-agent/pause", json!({})).await;
    assert_eq!(s, StatusCode::OK, "{paused}");
    assert_eq!(paused["paused"], true);
    assert!(
        paused["next_wake_at"].is_null(),
        "a paused agent plans no wake-up: {paused}"
    );
    let (_, again) = app.post("/api/patrol-agent/pause", json!({})).await;
    assert_eq!(again["paused"], true, "pausing twice is harmless");
    let (_, seen) = app.get("/api/patrol-agent").await;
    assert_eq!(seen["paused"], true, "the pause holds");

    let (s, resumed) = app.post("/api/patrol-agent/resume", json!({})).await;
    assert_eq!(s, StatusCode::OK, "{resumed}");
    assert_eq!(resumed["paused"], false);

    let unauthorized = app
        .http
        .post(format!("{}/api/patrol-agent/pause", app.base))
        .send()
        .await
        .expect("request");
    assert_eq!(
        unauthorized.status(),
        StatusCode::UNAUTHORIZED,
        "the control needs the API key"
    );
    let (_, still) = app.get("/api/patrol-agent").await;
    assert_eq!(
        still["paused"], false,
        "an unauthorized call changes nothing"
    );
}

#[tokio::test]
async fn patrol_agent_routes_without_an_agent_say_so() {
    let app = app().await;
    let (s, status) = app.get("/api/patrol-agent").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(status["running"], false, "no agent runs: {status}");
    for action in ["pause", "resume"] {
        let (s, e) = app
            .post(&format!("/api/patrol-agent/{action}"), json!({}))
            .await;
        assert_eq!(s, StatusCode::CONFLICT, "{action}: {e}");
        assert_eq!(e["code"], "CONFLICT");
        assert!(
            e["suggestion"]
                .as_str()
                .unwrap_or("")
                .contains("--no-patrol"),
            "the suggestion says how to run one: {e}"
        );
    }
    let (_, doc) = app.get("/api/openapi.json").await;
    for path in [
        "/api/patrol-agent",
        "/api/patrol-agent/pause",
        "/api/patrol-agent/resume",
    ] {
        assert!(
            doc["paths"][path].is_object(),
            "{path} is documented in the OpenAPI document"
        );
    }
}

/// Waits until a session started by explore has been played and judged
/// (60 s at most: a loaded machine plays slowly, and this is no timing).
async fn played_and_judged(app: &App, id: &str) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (s, t) = app
            .get(&format!("/api/exploration/sessions/{id}/messages"))
            .await;
        assert_eq!(s, StatusCode::OK, "{t}");
        if t["status"] != "running" && t["judge_status"] == "done" {
            return t;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "session {id} was not played and judged within 60 s: status {}, judge {}, {} messages",
            t["status"],
            t["judge_status"],
            t["messages"].as_array().map_or(0, Vec::len)
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn explore_starts_sessions_that_play_in_the_background() {
    let app = app().await;
    let c = app
        .campaign(json!({"time_scale": 60, "budget": {"min_interval_minutes": 0}}))
        .await;
    let (s, typed) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": c["id"], "persona": {"name": "Lin"}, "goal": "send an email",
                   "trigger": "manual"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{typed}");
    assert_eq!(
        typed["played_by"], "assistant",
        "a session created over HTTP is played by its client unless it says otherwise"
    );
    assert_eq!(typed["user_model"], Value::Null);

    let (s, started) = app
        .post("/api/exploration/explore", json!({"campaign_id": c["id"]}))
        .await;
    assert_eq!(s, StatusCode::OK, "{started}");
    let sessions = started["sessions"].as_array().expect("sessions");
    assert_eq!(
        sessions.len(),
        4,
        "every cell of 2 personas x 2 goals was uncovered (the typed session has no seed)"
    );
    assert_eq!(started["refused"], Value::Null);
    if std::env::var_os("AGENTEVAL_USER_MODEL").is_none() {
        assert_eq!(started["played_by"], "builtin", "no virtual-user model");
    }
    for session in sessions {
        assert_eq!(session["trigger"], "manual", "accelerated line default");
        let t = played_and_judged(&app, session["id"].as_str().expect("id")).await;
        assert!(
            t["messages"].as_array().is_some_and(|m| m.len() >= 2),
            "the virtual user talked with the target: {t}"
        );
        assert!(t["end_reason"].is_string(), "{t}");
        assert_eq!(t["played_by"], started["played_by"]);
    }

    let (s, none_left) = app
        .post("/api/exploration/explore", json!({"campaign_id": c["id"]}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{none_left}");
    assert_error_shape(&none_left, "CONFLICT");
    let (s, auto) = app
        .post(
            "/api/exploration/explore",
            json!({"campaign_id": c["id"], "trigger": "auto",
                   "cells": [{"persona_id": "p-novice", "goal_id": "g-email"}]}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{auto}");
    assert_error_shape(&auto, "AUTO_NOT_ALLOWED_ON_ACCELERATED_LINE");
    let (s, unknown) = app
        .post(
            "/api/exploration/explore",
            json!({"campaign_id": c["id"], "cells": [{"persona_id": "p-nobody", "goal_id": "g-email"}]}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::NOT_FOUND,
        "a persona the seed set does not have is not found: {unknown}"
    );
    assert_error_shape(&unknown, "NOT_FOUND");
    let (s, shape) = app
        .post(
            "/api/exploration/explore",
            json!({"campaign_id": c["id"], "cells": [{"persona_id": "p-novice"}]}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{shape}");
    assert_error_shape(&shape, "UNPROCESSABLE");
    let (s, missing) = app
        .post(
            "/api/exploration/explore",
            json!({"campaign_id": "not-a-campaign"}),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{missing}");
    assert_error_shape(&missing, "NOT_FOUND");

    // The default interval (30 campaign minutes) lets one session start.
    let paced = app.campaign(json!({"time_scale": 60})).await;
    let (s, one) = app
        .post(
            "/api/exploration/explore",
            json!({"campaign_id": paced["id"]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{one}");
    assert_eq!(one["sessions"].as_array().map(Vec::len), Some(1), "{one}");
    assert_eq!(one["refused"]["code"], "INTERVAL_NOT_ELAPSED", "{one}");
    assert!(one["refused"]["next_allowed_at"].is_string(), "{one}");
    let (s, refused) = app
        .post(
            "/api/exploration/explore",
            json!({"campaign_id": paced["id"]}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{refused}");
    assert_error_shape(&refused, "INTERVAL_NOT_ELAPSED");
    assert_eq!(
        refused["next_allowed_at"],
        one["refused"]["next_allowed_at"]
    );
    played_and_judged(&app, one["sessions"][0]["id"].as_str().expect("id")).await;

    let (s, csv) = app
        .get(&format!(
            "/api/campaigns/{}/export?format=sessions_csv",
            c["id"].as_str().expect("id")
        ))
        .await;
    assert_eq!(s, StatusCode::OK);
    let csv = csv.as_str().expect("CSV text");
    assert!(
        csv.lines()
            .next()
            .is_some_and(|h| h.ends_with(",played_by,user_model")),
        "the sessions CSV says who played the user: {csv}"
    );
    assert_eq!(
        csv.lines().filter(|l| l.contains(",assistant,")).count(),
        1,
        "the one session created over HTTP: {csv}"
    );

    let (_, doc) = app.get("/api/openapi.json").await;
    assert!(
        doc["paths"]["/api/exploration/explore"]["post"].is_object(),
        "explore is documented"
    );
}

#[tokio::test]
async fn a_free_json_persona_is_accepted_kept_and_returned() {
    let app = app().await;
    let target = app.target().await;
    let persona = json!({
        "id": "p-lin", "name": "Lin", "patience": 2, "language": "zh",
        "traits": {"impatient": true, "tone": "terse"},
        "occupation": "nurse"
    });
    let goal =
        json!({"id": "g-mail", "title": "发邮件", "slots": {"to": "a@b.cn"}, "deadline": "today"});
    let (s, c) = app
        .post(
            "/api/campaigns",
            json!({"name": "free seeds", "target_id": target, "duration_hours": 24,
                   "seed_set": {"personas": [persona], "goals": [goal]},
                   "budget": {"min_interval_minutes": 0}}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::OK,
        "traits as an object and unknown fields are a valid persona, not a 422: {c}"
    );
    assert_eq!(c["seed_set"]["personas"][0], persona, "returned as given");
    assert_eq!(c["seed_set"]["goals"][0], goal);
    let (s, again) = app
        .get(&format!("/api/campaigns/{}", c["id"].as_str().expect("id")))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(again["seed_set"]["personas"][0]["occupation"], "nurse");

    let (s, session) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": c["id"], "persona": persona, "goal": goal,
                   "seed_ref": {"persona_id": "p-lin", "goal_id": "g-mail"}}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{session}");
    assert_eq!(session["persona"], persona, "the session keeps it too");

    let mut bad = persona.clone();
    bad["patience"] = json!(7);
    let (s, body) = app
        .post(
            "/api/campaigns",
            json!({"name": "bad", "target_id": target, "duration_hours": 24,
                   "seed_set": {"personas": [bad], "goals": [goal]}}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_error_shape(&body, "INVALID_INPUT");
    assert!(
        body["message"]
            .as_str()
            .is_some_and(|m| m.contains("patience must be from 1 to 5, got 7")),
        "the refusal names the field and its range: {body}"
    );
}

#[tokio::test]
async fn campaign_numbers_out_of_range_are_refused_over_http() {
    let app = app().await;
    let target = app.target().await;
    let base = json!({"name": "x", "target_id": target, "duration_hours": 24, "seed_set": seeds()});
    let cases = [
        (
            json!({"duration_hours": -5}),
            "duration_hours must be from 0.01 (36 seconds) to 8760",
        ),
        (
            json!({"time_scale": 0}),
            "time_scale must be from 1 to 10000",
        ),
        (
            json!({"budget": {"max_sessions": 0}}),
            "budget.max_sessions must be from 1 to 1000",
        ),
        (
            json!({"budget": {"max_turns": 500}}),
            "budget.max_turns must be from 1 to 100",
        ),
        (
            json!({"plan": {"entries": [{"scenario_id": "s", "rounds": 0}]}}),
            "rounds must be from 1 to 1000",
        ),
        (
            json!({"seed_set": null}),
            "the campaign has nothing to evaluate",
        ),
    ];
    for (change, expected) in cases {
        let mut body = base.clone();
        for (k, v) in change.as_object().expect("object") {
            body[k] = v.clone();
        }
        let (s, err) = app.post("/api/campaigns", body).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{change} is refused: {err}");
        assert_error_shape(&err, "INVALID_INPUT");
        assert!(
            err["message"]
                .as_str()
                .is_some_and(|m| m.contains(expected)),
            "expected {expected:?}: {err}"
        );
    }
    let (_, list) = app.get("/api/campaigns").await;
    assert_eq!(list, json!([]), "nothing refused was stored");
}

#[tokio::test]
async fn events_stream_a_session_change_when_a_message_is_sent() {
    use futures::StreamExt;
    let app = app().await;
    let c = app.campaign(json!({"time_scale": 60})).await;
    let (s, session) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": c["id"], "persona": {"name": "Lin"}, "goal": "send an email",
                   "trigger": "manual", "played_by": "person"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{session}");
    assert_eq!(session["played_by"], "person");
    let id = session["id"].as_str().expect("id").to_string();

    let unauthorized = app
        .http
        .get(format!("{}/api/events", app.base))
        .send()
        .await
        .expect("request");
    assert_eq!(unauthorized.status(), StatusCode::UNAUTHORIZED);

    let res = app
        .http
        .get(format!("{}/api/events", app.base))
        .header("X-API-Key", KEY)
        .send()
        .await
        .expect("events");
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        res.headers()["content-type"],
        "text/event-stream",
        "served as Server-Sent Events"
    );
    let mut stream = res.bytes_stream();
    // Subscribed once the response headers arrived: this message's turns
    // are events on the stream.
    let (s, reply) = app.message(&id, "Please send an email to my boss").await;
    assert_eq!(s, StatusCode::OK, "{reply}");
    let mut text = String::new();
    let mut events: Vec<Value> = Vec::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    while events.len() < 2 {
        let chunk = tokio::time::timeout_at(deadline, stream.next())
            .await
            .expect("the user's turn and the reply arrive as events within 10 s")
            .expect("the stream stays open")
            .expect("chunk");
        text.push_str(std::str::from_utf8(&chunk).expect("utf-8"));
        while let Some(end) = text.find("\n\n") {
            let frame: String = text.drain(..end + 2).collect();
            for line in frame.lines() {
                if let Some(data) = line.strip_prefix("data:") {
                    events.push(serde_json::from_str(data.trim()).expect("data is JSON"));
                }
            }
        }
    }
    for e in &events {
        assert_eq!(e["kind"], "session_changed", "{e}");
        assert_eq!(e["campaign_id"], c["id"], "{e}");
        assert_eq!(e["session_id"], id.as_str(), "{e}");
    }

    let (_, doc) = app.get("/api/openapi.json").await;
    assert!(
        doc["paths"]["/api/events"]["get"]["responses"]["200"]["content"]["text/event-stream"]
            .is_object(),
        "the event stream is documented: {}",
        doc["paths"]["/api/events"]
    );
}

#[tokio::test]
async fn runs_and_sessions_search_filter_and_page_over_http() {
    let app = app().await;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let loaded = app
        .platform
        .load_scenarios(&[dir])
        .await
        .expect("scenario packs");
    let picked: Vec<_> = loaded.scenarios.iter().take(3).cloned().collect();
    let first = &picked[0];
    let tag = first
        .tags
        .first()
        .expect("the shipped scenarios carry tags")
        .clone();
    let c = app
        .campaign(json!({
            "scenario_ids": picked.iter().map(|s| s.id.clone()).collect::<Vec<_>>(),
            "time_scale": 1,
            "budget": {"min_interval_minutes": 0},
        }))
        .await;
    let id = c["id"].as_str().expect("id");
    let runs = |q: &str| format!("/api/campaigns/{id}/runs/search{q}");

    let (s, all) = app.get(&runs("")).await;
    assert_eq!(s, StatusCode::OK, "{all}");
    assert_eq!(all["total"], 3, "one run per scenario: {all}");
    let (s, pending) = app.get(&runs("?verdict=pending&scenario_id=&tag=")).await;
    assert_eq!(s, StatusCode::OK, "blank filters are no filter: {pending}");
    assert_eq!(pending["total"], 3, "no scheduler runs here: all pending");
    let (_, passed) = app.get(&runs("?verdict=passed")).await;
    assert_eq!(
        (
            passed["total"].as_u64(),
            passed["runs"].as_array().map(Vec::len)
        ),
        (Some(0), Some(0))
    );
    let (_, one) = app.get(&runs(&format!("?scenario_id={}", first.id))).await;
    assert_eq!(one["total"], 1, "{one}");
    assert_eq!(one["runs"][0]["scenario_id"], first.id.as_str());
    let (_, tagged) = app.get(&runs(&format!("?tag={tag}"))).await;
    let expected = picked.iter().filter(|s| s.tags.contains(&tag)).count();
    assert_eq!(tagged["total"], expected as u64, "{tagged}");
    let (_, page) = app.get(&runs("?offset=1&limit=1")).await;
    assert_eq!(page["total"], 3, "the total counts every page");
    assert_eq!(page["runs"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        page["runs"][0]["id"], all["runs"][1]["id"],
        "the second run"
    );

    for bad in [
        "?verdict=green",
        "?offset=",
        "?limit=",
        "?limit=0",
        "?limit=501",
        "?limit=-1",
        "?offset=abc",
        "?offset=99999999999",
    ] {
        let (s, e) = app.get(&runs(bad)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {e}");
        assert_error_shape(&e, "INVALID_INPUT");
    }
    let (s, e) = app
        .get(&format!(
            "/api/campaigns/{}/runs/search",
            uuid::Uuid::now_v7()
        ))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
    assert_error_shape(&e, "NOT_FOUND");

    let mut ids = Vec::new();
    for (persona, goal) in [
        ("p-novice", "g-email"),
        ("p-expert", "g-email"),
        ("p-expert", "g-refund"),
    ] {
        let (s, session) = app.session(&c, persona, goal).await;
        assert_eq!(s, StatusCode::OK, "{session}");
        ids.push(session["id"].as_str().expect("id").to_string());
    }
    let (s, closed) = app
        .post(
            &format!("/api/exploration/sessions/{}/close", ids[1]),
            json!({"goal_achieved": true}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{closed}");
    let sessions = |q: &str| format!("/api/exploration/campaigns/{id}/sessions/search{q}");
    let (s, all) = app.get(&sessions("")).await;
    assert_eq!(s, StatusCode::OK, "{all}");
    assert_eq!(all["total"], 3);
    let (_, running) = app.get(&sessions("?status=running")).await;
    assert_eq!(running["total"], 2, "{running}");
    let (_, expert) = app
        .get(&sessions("?persona_id=p-expert&goal_id=g-refund"))
        .await;
    assert_eq!(expert["total"], 1);
    assert_eq!(expert["sessions"][0]["id"], ids[2].as_str());
    let (_, named) = app
        .get(&sessions(&format!("?ids={},{}", ids[2], ids[0])))
        .await;
    let got: Vec<&str> = named["sessions"]
        .as_array()
        .expect("sessions")
        .iter()
        .map(|s| s["id"].as_str().expect("id"))
        .collect();
    assert_eq!(got, [ids[0].as_str(), ids[2].as_str()], "in start order");
    let (_, page) = app.get(&sessions("?offset=2&limit=2")).await;
    assert_eq!(page["total"], 3);
    assert_eq!(page["sessions"][0]["id"], ids[2].as_str());
    for bad in [
        "?status=sleeping",
        "?ids=not-a-uuid",
        "?limit=0",
        "?offset=-3",
    ] {
        let (s, e) = app.get(&sessions(bad)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {e}");
        assert_error_shape(&e, "INVALID_INPUT");
    }

    let (_, doc) = app.get("/api/openapi.json").await;
    for path in [
        "/api/campaigns/{id}/runs/search",
        "/api/exploration/campaigns/{id}/sessions/search",
    ] {
        assert!(
            doc["paths"][path]["get"].is_object(),
            "{path} is documented"
        );
    }
}

#[tokio::test]
async fn role_models_say_which_model_plays_each_role_without_keys() {
    use agenteval_engine::role_models::{ModelConfig, RoleModels};
    let app = app().await;
    app.platform.set_role_models(RoleModels::default());
    let (s, offline) = app.get("/api/role-models").await;
    assert_eq!(s, StatusCode::OK, "{offline}");
    for (role, fallback) in [
        ("virtual_user", "persona_engine"),
        ("judge", "heuristic"),
        ("analyst", "template"),
        ("tool_simulator", "no_response"),
    ] {
        assert_eq!(offline[role]["model"], Value::Null, "{offline}");
        assert_eq!(offline[role]["fallback"], fallback, "{offline}");
    }
    app.platform.set_role_models(RoleModels {
        virtual_user: Some(ModelConfig {
            base_url: "http://127.0.0.1:11434/v1".into(),
            model: "qwen2.5:7b".into(),
            api_key: Some("sk-never-shown".into()),
            api_key_env: None,
            timeout_ms: None,
            max_tokens: None,
            concurrency: None,
            input_tokens: None,
        }),
        ..RoleModels::default()
    });
    let res = app
        .http
        .get(format!("{}/api/role-models", app.base))
        .header("X-API-Key", KEY)
        .send()
        .await
        .expect("request");
    let text = res.text().await.expect("body");
    assert!(!text.contains("sk-never-shown"), "no key in {text}");
    let view: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(view["virtual_user"]["model"], "qwen2.5:7b");
    assert_eq!(view["virtual_user"]["host"], "127.0.0.1:11434");
    assert_eq!(
        view["judge"]["model"],
        Value::Null,
        "the judge stays offline"
    );
    let (_, doc) = app.get("/api/openapi.json").await;
    assert!(doc["paths"]["/api/role-models"]["get"].is_object());
}

#[tokio::test]
async fn targets_are_edited_archived_and_their_failures_told_in_words() {
    let app = app().await;
    let url = |p: &str| format!("{}{p}", app.base);
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let (s, t) = app
        .post(
            "/api/targets",
            json!({"name": "down", "max_retries": 0, "timeout_ms": 2000,
                   "channel": {"kind": "http", "url": format!("http://127.0.0.1:{port}/chat")}}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    let id = t["id"].as_str().expect("id").to_string();
    let (s, probe) = app
        .post(&format!("/api/targets/{id}/test"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(probe["ok"], false);
    assert_eq!(
        probe["message"],
        format!("nothing is listening at 127.0.0.1:{port}"),
        "{probe}"
    );
    assert_eq!(
        probe["suggestion"],
        "Start the agent, or fix the URL's host and port."
    );
    assert!(
        !probe["error"]
            .as_str()
            .unwrap_or_default()
            .contains("os error"),
        "{probe}"
    );

    // Edit: now the built-in agent; the next test uses it.
    let (s, edited) = app
        .send(
            app.http.put(url(&format!("/api/targets/{id}"))).json(
                &json!({"name": "demo now", "channel": {"kind": "builtin", "agent": "demo"}}),
            ),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{edited}");
    assert_eq!(edited["name"], "demo now");
    assert_eq!(edited["archived_at"], Value::Null);
    let (_, probe) = app
        .post(&format!("/api/targets/{id}/test"), json!({}))
        .await;
    assert_eq!(probe["ok"], true, "{probe}");
    let (s, body) = app
        .send(app.http.put(url(&format!("/api/targets/{id}"))).json(
            &json!({"name": "x", "timeout_ms": 1, "channel": {"kind": "builtin", "agent": "demo"}}),
        ))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_error_shape(&body, "INVALID_INPUT");
    let (s, body) = app
        .send(
            app.http
                .put(url(&format!("/api/targets/{id}")))
                .json(&json!({"name": 3})),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY);
    assert_error_shape(&body, "UNPROCESSABLE");
    let (s, body) = app
        .send(
            app.http
                .put(url("/api/targets/not-a-uuid"))
                .json(&json!({"name": "x", "channel": {"kind": "builtin", "agent": "demo"}})),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_error_shape(&body, "NOT_FOUND");

    // Delete: archived while a campaign uses it, deleted otherwise.
    let (s, c) = app
        .post(
            "/api/campaigns",
            json!({"name": "uses it", "target_id": id, "duration_hours": 1, "seed_set": seeds()}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let (s, removed) = app
        .send(app.http.delete(url(&format!("/api/targets/{id}"))))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(removed, json!({"id": id, "outcome": "archived"}));
    let (_, list) = app.get("/api/targets").await;
    assert_eq!(list, json!([]), "archived targets are left out");
    let (_, all) = app.get("/api/targets?include_archived=true").await;
    assert_eq!(all[0]["id"], id.as_str());
    assert!(all[0]["archived_at"].is_string(), "{all}");
    let (s, body) = app.get("/api/targets?include_archived=maybe").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_error_shape(&body, "INVALID_INPUT");

    let other = app.target().await;
    let (s, removed) = app
        .send(app.http.delete(url(&format!("/api/targets/{other}"))))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(removed["outcome"], "deleted");
    let (s, body) = app
        .send(app.http.delete(url(&format!("/api/targets/{other}"))))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "gone: {body}");
    assert_error_shape(&body, "NOT_FOUND");
}

#[tokio::test]
async fn the_blind_queue_carries_no_judge_scores_and_bad_labels_are_refused() {
    let app = app().await;
    let c = app.campaign(no_interval()).await;
    let (s, session) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": c["id"], "persona": {"name": "Lin"}, "goal": "send an email",
                   "trigger": "manual"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{session}");
    let sid = session["id"].as_str().expect("session id").to_string();
    let (s, reply) = app
        .message(&sid, "Please email my manager that I am late")
        .await;
    assert_eq!(s, StatusCode::OK, "{reply}");
    let (s, closed) = app
        .post(
            &format!("/api/exploration/sessions/{sid}/close"),
            json!({"goal_achieved": true, "blockers": [], "misled": [], "emotion": "satisfied", "notes": ""}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{closed}");
    agenteval_engine::judge::review_pending(
        &app.platform,
        None,
        agenteval_engine::judge::JudgeSampling::default(),
    )
    .await
    .expect("heuristic review");
    let cid = c["id"].as_str().expect("campaign id");

    let (s, queue) = app.get(&format!("/api/campaigns/{cid}/blind-queue")).await;
    assert_eq!(s, StatusCode::OK, "{queue}");
    assert_eq!(queue["remaining"], 1);
    assert_eq!(queue["items"][0]["session_id"], sid.as_str());
    assert!(
        queue["items"][0]["turns"]
            .as_array()
            .is_some_and(|t| t.len() >= 2),
        "the conversation is there: {queue}"
    );
    let text = queue.to_string();
    for word in ["score", "evidence", "dimensions", "judge", "findings"] {
        assert!(
            !text.contains(word),
            "the queue carries no {word:?}: {text}"
        );
    }

    let label = |attitude: Value| json!({"session_id": sid, "scores": {"attitude": attitude, "professionalism": 4, "hallucination": 5}});
    let (s, bad) = app.post("/api/judge-labels", label(json!(9))).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}");
    assert_error_shape(&bad, "INVALID_INPUT");
    assert!(
        bad["message"].as_str().unwrap().contains("scores.attitude"),
        "{bad}"
    );
    let (s, bad) = app.post("/api/judge-labels", label(json!("great"))).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    assert_error_shape(&bad, "UNPROCESSABLE");
    let (s, bad) = app
        .post(
            "/api/judge-labels",
            json!({"session_id": sid, "scores": {"attitude": 3}}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::UNPROCESSABLE_ENTITY,
        "a missing criterion: {bad}"
    );
    assert_error_shape(&bad, "UNPROCESSABLE");
    let (s, still) = app.get(&format!("/api/campaigns/{cid}/blind-queue")).await;
    assert_eq!(
        (s, &still["remaining"]),
        (StatusCode::OK, &json!(1)),
        "refused labels store nothing"
    );

    let (s, revealed) = app.post("/api/judge-labels", label(json!(4))).await;
    assert_eq!(s, StatusCode::OK, "{revealed}");
    assert!(
        (1..=5).contains(&revealed["judge"]["attitude"]["score"].as_u64().unwrap()),
        "the judge's score is revealed after the label: {revealed}"
    );
    assert_eq!(revealed["label"]["scores"]["attitude"], 4);
    assert_eq!(revealed["judge_method"], "heuristic");
    let (s, again) = app.post("/api/judge-labels", label(json!(2))).await;
    assert_eq!(s, StatusCode::CONFLICT, "{again}");
    assert_error_shape(&again, "CONFLICT");

    let (s, queue) = app
        .get(&format!("/api/campaigns/{cid}/blind-queue?limit=5"))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        (queue["remaining"].clone(), queue["labelled"].clone()),
        (json!(0), json!(1))
    );
    for limit in ["0", "abc"] {
        let (s, bad) = app
            .get(&format!("/api/campaigns/{cid}/blind-queue?limit={limit}"))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "limit={limit}: {bad}");
        assert_error_shape(&bad, "INVALID_INPUT");
    }
    let (s, calibration) = app
        .get(&format!("/api/campaigns/{cid}/judge-calibration"))
        .await;
    assert_eq!(s, StatusCode::OK, "{calibration}");
    assert_eq!(calibration["kappa_kind"], "linear_weighted");
    assert_eq!(calibration["criteria"][0]["items"], 1);
    assert_eq!(
        calibration["criteria"][0]["calibrated"], false,
        "1 label < 30"
    );
    let (_, report) = app.get(&format!("/api/campaigns/{cid}/report")).await;
    assert_eq!(
        report["judge_calibration"]["labelled"], 1,
        "the report carries it"
    );
    let (_, doc) = app.get("/api/openapi.json").await;
    for path in [
        "/api/campaigns/{id}/blind-queue",
        "/api/judge-labels",
        "/api/campaigns/{id}/judge-calibration",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} is documented");
    }
}

#[tokio::test]
async fn whole_numbers_written_as_floats_are_integers_and_fractions_are_refused() {
    let app = app().await;
    let (s, target) = app
        .post(
            "/api/targets",
            json!({"name": "floats", "channel": {"kind": "builtin", "agent": "demo"},
                   "concurrency": 4.0, "max_retries": 1.0, "timeout_ms": 20000.0}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::OK,
        "4.0 is the whole number 4 in JSON: {target}"
    );
    assert_eq!(target["concurrency"], 4);
    assert_eq!(target["max_retries"], 1);
    let (s, e) = app
        .post(
            "/api/targets",
            json!({"name": "fraction", "channel": {"kind": "builtin", "agent": "demo"},
                   "concurrency": 4.5}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    assert!(
        e["message"].as_str().unwrap_or("").contains("concurrency"),
        "the refusal names the field: {e}"
    );
    let (_, targets) = app.get("/api/targets").await;
    assert!(
        targets
            .as_array()
            .is_some_and(|t| t.iter().all(|t| t["name"] != "fraction")),
        "nothing was stored for the refused body"
    );
}

/// Han characters and the English words left once code spans are removed.
fn scripts_of(text: &str) -> (usize, Vec<String>) {
    let code = regex::Regex::new(r"`[^`]*`").unwrap();
    let plain = code.replace_all(text, "");
    let han = plain
        .chars()
        .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
        .count();
    let words = regex::Regex::new(r"[A-Za-z]{3,}")
        .unwrap()
        .find_iter(&plain)
        .map(|m| m.as_str().to_string())
        .collect();
    (han, words)
}

#[tokio::test]
async fn errors_answer_in_the_readers_language() {
    let app = app().await;
    let (_, target) = app
        .post(
            "/api/targets",
            json!({"name": "demo", "channel": {"kind": "builtin", "agent": "demo"}}),
        )
        .await;
    let bad = json!({"name": "c", "target_id": target["id"], "scenario_ids": [], "duration_hours": 1, "time_scale": 0});
    // Without a language: English, as before.
    let (s, en) = app.post("/api/campaigns", bad.clone()).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_error_shape(&en, "INVALID_INPUT");
    assert_eq!(en["message"], "time_scale must be from 1 to 10000, got 0");
    assert_eq!(
        en["text"]["message"]["key"], "error-field-range",
        "the message as a catalogue key for a client in another language: {en}"
    );
    // ?lang=zh, and Accept-Language: the same refusal in Chinese.
    let (_, zh) = app.post("/api/campaigns?lang=zh", bad.clone()).await;
    let asked = app
        .http
        .post(format!("{}/api/campaigns", app.base))
        .header("X-API-Key", KEY)
        .header("Accept-Language", "fr-FR, zh-CN;q=0.8, en;q=0.5")
        .json(&bad);
    let (_, accepted) = app.send(asked).await;
    for body in [&zh, &accepted] {
        assert_error_shape(body, "INVALID_INPUT");
        for field in ["message", "suggestion"] {
            let text = body[field].as_str().unwrap_or_default();
            let (han, english) = scripts_of(text);
            assert!(han > 0, "{field} is Chinese: {text}");
            assert!(english.is_empty(), "no English word in {text}: {english:?}");
        }
        assert!(body["message"].as_str().unwrap().contains("`time_scale`"));
    }
    // Refusals before the handler (no key) are in the language too.
    let anonymous = reqwest::get(format!("{}/api/campaigns?lang=zh", app.base))
        .await
        .expect("the server answers");
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    let body: Value = anonymous.json().await.expect("a JSON error");
    assert!(
        scripts_of(body["message"].as_str().unwrap()).0 > 0,
        "{body}"
    );
    // A language the catalogue does not have is refused, named.
    let (s, body) = app.get("/api/campaigns?lang=fr").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_error_shape(&body, "INVALID_INPUT");
    assert!(body["message"].as_str().unwrap().contains("fr"), "{body}");
}
