//! Reliability and security of the whole stack over real HTTP on 127.0.0.1
//! and a real SQLite in a temp dir:
//!
//! - no secret (target key, role-model keys, API key, wrong keys) reaches
//!   the database files, an export, a log line or an API body;
//! - with every role model unreachable, fixed plans complete and the report
//!   says what is missing;
//! - finalize racing many clients never lets a budget be exceeded, a message
//!   in after expiry, or a 5xx out;
//! - oversized bodies and unknown fields are handled as documented.

mod support;

use agenteval_engine::Platform;
use agenteval_engine::clock::ManualClock;
use agenteval_engine::exploration::Trigger;
use agenteval_engine::judge::JudgeSampling;
use agenteval_engine::patrol_agent::{ExploreSeed, explore_seed};
use agenteval_engine::role_models::{ModelConfig, RoleModels};
use agenteval_server::{ServeConfig, spawn};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode as AxStatus};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Duration, Utc};
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

// ---------------------------------------------------------------- support

fn t0() -> DateTime<Utc> {
    "2026-11-02T08:00:00Z".parse().expect("valid time")
}

const DEMO_SEEDS: &str = include_str!("../../../examples/demo_seed_set.json");

fn scenarios_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// Every log line of this test binary, at TRACE level, into one buffer.
fn captured_logs() -> &'static Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let writer = LogWriter(buf.clone());
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new("trace"))
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("one subscriber per binary");
        buf
    })
}

#[derive(Clone)]
struct LogWriter(Arc<Mutex<Vec<u8>>>);

impl Write for LogWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct App {
    base: String,
    key: String,
    http: reqwest::Client,
    clock: Arc<ManualClock>,
    platform: Arc<Platform>,
    dir: tempfile::TempDir,
    /// Every response body seen, to search for secrets.
    bodies: Mutex<Vec<String>>,
}

async fn app(key: &str) -> App {
    app_in(tempfile::tempdir().expect("temp dir"), key).await
}

/// A server whose data folder (and SQLite database) is `dir`.
async fn app_in(dir: tempfile::TempDir, key: &str) -> App {
    let clock = Arc::new(ManualClock::new(t0()));
    let platform = Platform::builder(dir.path())
        .clock(clock.clone())
        .open()
        .await
        .expect("open platform");
    platform
        .load_scenarios(&[scenarios_dir()])
        .await
        .expect("load the shipped scenarios");
    let (addr, _task) = spawn(
        platform.clone(),
        ServeConfig {
            bind: "127.0.0.1:0".parse().expect("addr"),
            api_key: key.into(),
            ui_dir: None,
            patrol: agenteval_engine::runtime::PatrolControl::none(),
        },
    )
    .await
    .expect("spawn server");
    App {
        base: format!("http://{addr}"),
        key: key.into(),
        http: reqwest::Client::new(),
        clock,
        platform,
        dir,
        bodies: Mutex::new(Vec::new()),
    }
}

impl App {
    async fn send_raw(&self, req: reqwest::RequestBuilder) -> (StatusCode, String) {
        let res = req.send().await.expect("request");
        let status = res.status();
        let text = res.text().await.expect("body");
        self.bodies
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(text.clone());
        (status, text)
    }

    async fn send(&self, req: reqwest::RequestBuilder) -> (StatusCode, Value) {
        let (status, text) = self.send_raw(req.header("X-API-Key", &self.key)).await;
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body)
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.send(self.http.get(format!("{}{path}", self.base)))
            .await
    }

    async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.send(self.http.post(format!("{}{path}", self.base)).json(&body))
            .await
    }

    async fn create(&self, path: &str, body: Value) -> String {
        let (s, v) = self.post(path, body).await;
        assert_eq!(s, StatusCode::OK, "POST {path} is valid: {v}");
        v["id"].as_str().expect("id").to_string()
    }
}

fn some_scenarios(p: &Platform, n: usize) -> Vec<String> {
    let ids: Vec<String> = p.scenarios.all().iter().map(|s| s.id.clone()).collect();
    assert!(
        ids.len() >= n,
        "the shipped packs hold at least {n} scenarios"
    );
    ids.into_iter().take(n).collect()
}

/// An accelerated-line campaign body with the demo seed set and room for
/// a few manual sessions.
fn campaign_body(target_id: &str, scenario_ids: &[String], max_sessions: u32) -> Value {
    let seeds: Value = serde_json::from_str(DEMO_SEEDS).expect("demo seeds");
    json!({
        "name": "reliability",
        "target_id": target_id,
        "scenario_ids": scenario_ids,
        "duration_hours": 1,
        "time_scale": 60,
        "seed_set": seeds,
        "budget": {"max_sessions": max_sessions, "max_turns": 3, "min_interval_minutes": 0},
    })
}

// ------------------------------------------------- a local model provider

const TARGET_SECRET: &str = "sk-target-Q7vX9pLmZ2rTw4";
const WRONG_TARGET_SECRET: &str = "sk-wrongtarget-K3nB8yHsd1";
const USER_SECRET: &str = "sk-vuser-R4dW6qJcN0xa";
const WRONG_USER_SECRET: &str = "sk-wronguser-H6jT3cQaP5";
const JUDGE_SECRET: &str = "sk-judge-M2fP5tLxB7yu";
const ANALYST_SECRET: &str = "sk-analyst-V8gN1zKeF3oi";
const API_SECRET: &str = "apikey-S9wE4rUyG6hj";
const WRONG_API_SECRET: &str = "apikey-wrong-D5kF7mZoL2";

/// An OpenAI-compatible provider on 127.0.0.1 that plays the target and
/// the three role models, each behind its own bearer key. A wrong key is
/// answered 401 with the presented key echoed back (as real providers do,
/// partly), and the judge answers 500 echoing the key: both are bait for a
/// leak through error paths.
#[derive(Default)]
struct Provider {
    /// Requests per role that carried the right key.
    accepted: Mutex<HashMap<String, u64>>,
    rejected: AtomicU64,
}

fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "local",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    })
}

async fn provider_chat(
    State(p): State<Arc<Provider>>,
    Path(role): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let presented = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .trim_start_matches("Bearer ")
        .to_string();
    let expected = match role.as_str() {
        "target" => TARGET_SECRET,
        "user" => USER_SECRET,
        "judge" => JUDGE_SECRET,
        "analyst" => ANALYST_SECRET,
        _ => return AxStatus::NOT_FOUND.into_response(),
    };
    if presented != expected {
        p.rejected.fetch_add(1, Ordering::SeqCst);
        let err = json!({"error": {"message": format!("Incorrect API key provided: {presented}"), "type": "invalid_request_error"}});
        return (AxStatus::UNAUTHORIZED, Json(err)).into_response();
    }
    *p.accepted
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(role.clone())
        .or_default() += 1;
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    match role.as_str() {
        "target" => Json(completion(
            "I can help with that. Which address should I send it to, and what subject?",
        ))
        .into_response(),
        "user" => {
            // Two follow-ups, then done; the same object also answers the
            // experience-record request.
            let decision = if messages.len() >= 5 { "done" } else { "follow_up" };
            let out = json!({
                "decision": decision,
                "message": "Please email boss@example.com, subject Weekly report.",
                "goal_achieved": false,
                "blockers": ["the assistant kept asking for the address"],
                "misled": [],
                "emotion": "frustrated",
                "notes": "asked twice",
            });
            Json(completion(&out.to_string())).into_response()
        }
        "judge" => (
            AxStatus::INTERNAL_SERVER_ERROR,
            format!("upstream overloaded while serving Authorization: Bearer {presented}"),
        )
            .into_response(),
        _ => Json(completion(
            &json!({"summary": "Runs mostly pass; exploration found the assistant asking twice.", "claims": []})
                .to_string(),
        ))
        .into_response(),
    }
}

async fn spawn_provider() -> (String, Arc<Provider>) {
    let provider = Arc::new(Provider::default());
    let app = axum::Router::new()
        .route(
            "/{role}/v1/chat/completions",
            axum::routing::post(provider_chat),
        )
        .with_state(provider.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind provider");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), provider)
}

fn model(base: &str, role: &str, key: &str) -> ModelConfig {
    ModelConfig {
        base_url: format!("{base}/{role}/v1"),
        model: format!("local-{role}"),
        api_key: Some(key.into()),
        api_key_env: None,
        timeout_ms: Some(10_000),
        max_tokens: None,
        concurrency: None,
        input_tokens: None,
    }
}

/// Every form a secret could take where it leaks: as is, its distinctive
/// tail alone (a masked prefix), base64 and hex.
fn forms(secret: &str) -> Vec<String> {
    let tail = &secret[secret.len() - 10..];
    let b64 = base64_encode(secret.as_bytes());
    vec![
        secret.to_string(),
        tail.to_string(),
        b64[..b64.len() - 4].to_string(),
        hex_encode(secret.as_bytes()),
    ]
}

fn hex_encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn base64_encode(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn contains_bytes(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

// ------------------------------------------------------------ secret leak

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_reaches_the_database_exports_logs_or_api_bodies() {
    let logs = captured_logs().clone();
    let (provider_base, provider) = spawn_provider().await;
    let app = app(API_SECRET).await;
    let p = app.platform.clone();

    // Targets: one with the right key, one with a wrong key.
    let target = |name: &str, key: &str| {
        json!({"name": name, "max_retries": 0, "timeout_ms": 5000, "channel": {
            "kind": "openai", "base_url": format!("{provider_base}/target/v1"),
            "model": "local-target", "api_key": key}})
    };
    let good = app
        .create("/api/targets", target("good", TARGET_SECRET))
        .await;
    let bad = app
        .create("/api/targets", target("bad", WRONG_TARGET_SECRET))
        .await;
    let (s, _) = app
        .post(&format!("/api/targets/{good}/test"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "the right key connects");
    let (_, probe) = app
        .post(&format!("/api/targets/{bad}/test"), json!({}))
        .await;
    assert!(
        probe.to_string().contains("401")
            || probe.to_string().to_lowercase().contains("unauthor")
            || probe["ok"] == json!(false)
            || probe["code"].is_string(),
        "the wrong key is reported as a failure: {probe}"
    );

    let ids = some_scenarios(&p, 4);
    let good_campaign = app
        .create("/api/campaigns", campaign_body(&good, &ids, 6))
        .await;
    let bad_campaign = app
        .create("/api/campaigns", campaign_body(&bad, &ids[..2], 6))
        .await;

    // Exploration through the engine with every role model keyed: a
    // working virtual user, a judge that answers 500, an analyst; and a
    // virtual user with a wrong key (simulator error path).
    let models = RoleModels {
        virtual_user: Some(model(&provider_base, "user", USER_SECRET)),
        judge: Some(model(&provider_base, "judge", JUDGE_SECRET)),
        analyst: Some(model(&provider_base, "analyst", ANALYST_SECRET)),
        tool_simulator: None,
    };
    let clients = models.clients(&p.http);
    let mut wrong = models.clone();
    wrong.virtual_user = Some(model(&provider_base, "user", WRONG_USER_SECRET));
    let wrong_clients = wrong.clients(&p.http);
    let seed = |c: &str, persona: &str, goal: &str| ExploreSeed {
        campaign_id: c.parse().expect("uuid"),
        persona_id: persona.into(),
        goal_id: goal.into(),
        variant: None,
        trigger: Trigger::Manual,
    };
    let ok = explore_seed(
        &p,
        &seed(&good_campaign, "busy-manager", "send-weekly-report"),
        &clients,
        JudgeSampling::default(),
    )
    .await
    .expect("session starts");
    assert_eq!(
        ok.judge_status.as_deref(),
        Some("failed"),
        "the judge answers 500"
    );
    let broken = explore_seed(
        &p,
        &seed(&good_campaign, "curious-novice", "send-weekly-report"),
        &wrong_clients,
        JudgeSampling::default(),
    )
    .await
    .expect("session starts");
    assert_eq!(broken.end_reason.as_str(), "simulator_error");
    let _ = explore_seed(
        &p,
        &seed(&bad_campaign, "busy-manager", "send-weekly-report"),
        &clients,
        JudgeSampling::default(),
    )
    .await
    .expect("session starts");

    // Exploration through the API: a session on each campaign; the wrong
    // target key gives a 502 whose body is searched too.
    for (campaign, expect) in [
        (&good_campaign, StatusCode::OK),
        (&bad_campaign, StatusCode::BAD_GATEWAY),
    ] {
        let session = app
            .create(
                "/api/exploration/sessions",
                json!({"campaign_id": campaign, "persona": {"name": "api user"}, "goal": "send a report", "trigger": "manual"}),
            )
            .await;
        let (s, v) = app
            .post(
                &format!("/api/exploration/sessions/{session}/messages"),
                json!({"content": "please send the weekly report"}),
            )
            .await;
        assert_eq!(s, expect, "message on {campaign}: {v}");
        let _ = app
            .post(
                &format!("/api/exploration/sessions/{session}/close"),
                json!({"goal_achieved": false, "blockers": ["no"], "misled": [], "emotion": "meh", "notes": ""}),
            )
            .await;
        let _ = app
            .get(&format!("/api/exploration/sessions/{session}/messages"))
            .await;
        let _ = app
            .get(&format!("/api/exploration/sessions/{session}"))
            .await;
    }
    p.generate_analysis(
        good_campaign.parse().expect("uuid"),
        clients.analyst.as_deref(),
        agenteval_engine::Lang::En,
    )
    .await
    .expect("analysis");
    let _ = app
        .post(
            &format!("/api/campaigns/{bad_campaign}/analysis"),
            json!({}),
        )
        .await;

    // The plan runs: the good target answers, the bad one is refused.
    app.clock.advance(Duration::hours(2));
    p.tick().await.expect("tick");
    let runs = p
        .list_runs(bad_campaign.parse().expect("uuid"))
        .await
        .expect("runs");
    assert!(
        runs.iter()
            .all(|r| r.verdict == Some(agenteval_engine::fixed::Verdict::Error)),
        "the wrong key makes every run an error"
    );

    // Read everything back through the API: every export format, reports,
    // lists and drill-downs, plus a call with a wrong API key.
    for c in [&good_campaign, &bad_campaign] {
        for format in ["md", "json", "csv", "sessions_csv", "junit"] {
            let (s, _) = app
                .get(&format!("/api/campaigns/{c}/export?format={format}"))
                .await;
            assert_eq!(s, StatusCode::OK, "export {format}");
        }
        for path in [
            format!("/api/campaigns/{c}"),
            format!("/api/campaigns/{c}/report"),
            format!("/api/campaigns/{c}/runs"),
            format!("/api/exploration/campaigns/{c}/sessions"),
            format!("/api/exploration/campaigns/{c}/ledger"),
        ] {
            let (s, _) = app.get(&path).await;
            assert_eq!(s, StatusCode::OK, "GET {path}");
        }
        for run in p.list_runs(c.parse().expect("uuid")).await.expect("runs") {
            let _ = app.get(&format!("/api/runs/{}/turns", run.id)).await;
        }
    }
    for path in [
        "/api/targets",
        "/api/campaigns",
        "/api/exploration/patrol",
        "/api/openapi.json",
    ] {
        let _ = app.get(path).await;
    }
    let _ = app.get(&format!("/api/targets/{good}")).await;
    let (s, _) = app
        .send_raw(
            app.http
                .get(format!("{}/api/targets", app.base))
                .header("X-API-Key", WRONG_API_SECRET),
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    // A target key sent back in a create body that fails validation.
    let (s, _) = app
        .post(
            "/api/targets",
            json!({"name": "", "channel": {"kind": "openai", "base_url": "not a url", "model": "m", "api_key": TARGET_SECRET}}),
        )
        .await;
    assert!(s.is_client_error(), "an invalid target is refused");

    // The secrets were really used: each role saw its key.
    {
        let accepted = provider.accepted.lock().unwrap_or_else(|e| e.into_inner());
        for role in ["target", "user", "judge", "analyst"] {
            assert!(
                accepted.get(role).copied().unwrap_or(0) > 0,
                "the {role} endpoint received its key ({accepted:?})"
            );
        }
    }
    assert!(
        provider.rejected.load(Ordering::SeqCst) > 0,
        "wrong keys were presented and refused"
    );

    // Search: database files (db, -wal, -shm and anything else in the data
    // folder), every body, every log line.
    let secrets = [
        TARGET_SECRET,
        WRONG_TARGET_SECRET,
        USER_SECRET,
        WRONG_USER_SECRET,
        JUDGE_SECRET,
        ANALYST_SECRET,
        API_SECRET,
        WRONG_API_SECRET,
    ];
    let files = support::files_under(app.dir.path());
    assert!(
        files.iter().any(|f| f.to_string_lossy().ends_with("-wal")),
        "the WAL file is searched while the database is open: {files:?}"
    );
    let mut leaks = Vec::new();
    for file in &files {
        let bytes = std::fs::read(file).expect("read data file");
        for s in secrets {
            for form in forms(s) {
                if contains_bytes(&bytes, form.as_bytes()) {
                    leaks.push(format!("{s} ({form}) in {}", file.display()));
                }
            }
        }
    }
    let bodies = app.bodies.lock().unwrap_or_else(|e| e.into_inner()).clone();
    assert!(
        bodies.len() > 40,
        "many API bodies were read ({})",
        bodies.len()
    );
    for (i, body) in bodies.iter().enumerate() {
        for s in secrets {
            for form in forms(s) {
                if body.contains(&form) {
                    leaks.push(format!(
                        "{s} ({form}) in API body #{i}: {}",
                        &body[..body.len().min(300)]
                    ));
                }
            }
        }
    }
    let log_text =
        String::from_utf8_lossy(&logs.lock().unwrap_or_else(|e| e.into_inner())).to_string();
    assert!(
        log_text.contains("judge review failed"),
        "the error paths were logged (log has {} bytes)",
        log_text.len()
    );
    for s in secrets {
        for form in forms(s) {
            if let Some(at) = log_text.find(&form) {
                let start = log_text[..at].rfind('\n').map_or(0, |n| n + 1);
                let end = log_text[at..].find('\n').map_or(log_text.len(), |n| at + n);
                leaks.push(format!(
                    "{s} ({form}) in the log: {}",
                    &log_text[start..end]
                ));
            }
        }
    }
    assert!(leaks.is_empty(), "secrets leaked:\n{}", leaks.join("\n"));
    let file_bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum();
    eprintln!(
        "secrets: {} secrets in 4 forms searched in {} data files ({file_bytes} bytes), {} API bodies, {} log bytes: none found",
        secrets.len(),
        files.len(),
        bodies.len(),
        log_text.len()
    );
}

// ------------------------------------------------------------ degradation

/// A 127.0.0.1 port nothing listens on (bound, then released).
fn dead_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_every_role_model_unreachable_fixed_plans_complete_and_the_report_says_what_is_missing()
 {
    let app = app("degradation-key").await;
    let p = app.platform.clone();
    let dead = format!("http://127.0.0.1:{}", dead_port());
    let unreachable = |role: &str| ModelConfig {
        base_url: format!("{dead}/v1"),
        model: format!("gone-{role}"),
        api_key: None,
        api_key_env: None,
        timeout_ms: Some(2_000),
        max_tokens: None,
        concurrency: None,
        input_tokens: None,
    };
    let models = RoleModels {
        virtual_user: Some(unreachable("user")),
        judge: Some(unreachable("judge")),
        analyst: Some(unreachable("analyst")),
        tool_simulator: None,
    };
    let clients = models.clients(&p.http);
    let target = app
        .create(
            "/api/targets",
            json!({"name": "demo", "channel": {"kind": "builtin", "agent": "demo"}}),
        )
        .await;
    let ids = some_scenarios(&p, 8);
    let campaign = app
        .create("/api/campaigns", campaign_body(&target, &ids, 6))
        .await;
    let campaign_id: agenteval_engine::CampaignId = campaign.parse().expect("uuid");

    // Exploration with the model virtual user: it cannot speak, so the
    // sessions end as simulator errors (never blamed on the target).
    for persona in ["busy-manager", "curious-novice"] {
        let outcome = explore_seed(
            &p,
            &ExploreSeed {
                campaign_id,
                persona_id: persona.into(),
                goal_id: "send-weekly-report".into(),
                variant: None,
                trigger: Trigger::Manual,
            },
            &clients,
            JudgeSampling::default(),
        )
        .await
        .expect("the session starts: the platform itself is fine");
        assert_eq!(outcome.end_reason.as_str(), "simulator_error");
        assert_ne!(outcome.status, "running", "the session ended");
    }
    // A session driven through the API completes; its judge review fails
    // and the failure is stored.
    let session = app
        .create(
            "/api/exploration/sessions",
            json!({"campaign_id": campaign, "persona": {"name": "tester"}, "goal": "send an email", "trigger": "manual"}),
        )
        .await;
    let (s, v) = app
        .post(
            &format!("/api/exploration/sessions/{session}/messages"),
            json!({"content": "Send an email to boss@example.com"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "the target is reachable: {v}");
    let (s, _) = app
        .post(
            &format!("/api/exploration/sessions/{session}/close"),
            json!({"goal_achieved": true, "blockers": [], "misled": [], "emotion": "satisfied", "notes": ""}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let reviewed = agenteval_engine::judge::review_pending(
        &p,
        clients.judge.as_deref(),
        JudgeSampling::default(),
    )
    .await
    .expect("the judge worker keeps going");
    assert_eq!(reviewed, 1, "the pending review was attempted");
    let (_, stored) = app
        .get(&format!("/api/exploration/sessions/{session}"))
        .await;
    let stored = stored.to_string();
    assert!(
        stored.contains("\"judge_status\":\"failed\""),
        "the judge failure is stored: {stored}"
    );
    let analysis = p
        .generate_analysis(
            campaign_id,
            clients.analyst.as_deref(),
            agenteval_engine::Lang::En,
        )
        .await
        .expect("analysis never fails for a model");
    assert!(analysis.offline, "the template stands in for the analyst");
    assert!(
        analysis.fallback_reason.as_ref().is_some_and(|r| r
            .render(agenteval_engine::Lang::En)
            .contains("analyst model failed")),
        "the reason is stored: {:?}",
        analysis.fallback_reason
    );

    // The fixed plan completes in full, untouched by the models.
    app.clock.advance(Duration::hours(2));
    p.tick().await.expect("tick");
    let (_, report) = app.get(&format!("/api/campaigns/{campaign}/report")).await;
    let fixed = &report["fixed"];
    assert_eq!(report["campaign"]["status"], "finalized", "{report}");
    assert_eq!(
        fixed["errors"], 0,
        "no run errs because of the models: {fixed}"
    );
    assert_eq!(
        fixed["passed"].as_u64().unwrap_or(0) + fixed["failed"].as_u64().unwrap_or(0),
        fixed["runs_planned"].as_u64().expect("planned"),
        "100 % of the plan has a verdict: {fixed}"
    );
    let e = &report["exploration"];
    assert_eq!(e["sessions_by_end_reason"]["simulator_error"], 2, "{e}");
    assert_eq!(
        e["judge"]["failed"], 3,
        "every review failed and is counted as failed, never as a verdict: {e}"
    );
    assert_eq!(e["judge"]["reviewed"], 0, "{e}");
    assert_eq!(
        e["simulator_faults"], 2,
        "simulator errors are counted apart: {e}"
    );
    assert_eq!(
        e["records"], 1,
        "records of sessions the simulator could not carry stay out of the achievement rate: {e}"
    );

    let (_, md) = app
        .get(&format!("/api/campaigns/{campaign}/export?format=md"))
        .await;
    let md = md.as_str().expect("markdown text").to_string();
    for said in [
        "Template analysis built from the figures",
        "the analyst model failed",
        "virtual user error 2",
        "0 reviewed, 3 failed",
        "| Simulator-attributed sessions | 2 ",
        "Degraded",
    ] {
        assert!(md.contains(said), "the Markdown says {said:?}:\n{md}");
    }
}

// ------------------------------------------------- finalize racing clients

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn finalize_racing_many_clients_never_exceeds_a_budget_or_accepts_a_late_message() {
    const CLIENTS: usize = 48;
    const MAX_SESSIONS: u64 = 12;
    const MAX_TURNS: u64 = 5;
    // Finalize goes in once this many messages were accepted, so that it
    // lands in the middle of the traffic.
    const FINALIZE_AFTER: u64 = 12;
    let app = Arc::new(app("race-key").await);
    let target = app
        .create(
            "/api/targets",
            json!({"name": "demo", "channel": {"kind": "builtin", "agent": "demo"}}),
        )
        .await;
    let ids = some_scenarios(&app.platform, 2);
    let mut body = campaign_body(&target, &ids, MAX_SESSIONS as u32);
    body["budget"]["max_turns"] = json!(MAX_TURNS);
    let campaign = app.create("/api/campaigns", body).await;

    // Set once the first finalize has answered: from then on no message may
    // be accepted.
    let finalized = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let statuses = Arc::new(Mutex::new(Vec::<(String, u16)>::new()));
    let late_accepts = Arc::new(AtomicU64::new(0));
    let accepted_messages = Arc::new(AtomicU64::new(0));
    let start = Arc::new(tokio::sync::Barrier::new(CLIENTS + 3));
    let clients_done = Arc::new(AtomicU64::new(0));

    let mut tasks = Vec::new();
    for i in 0..CLIENTS {
        let (app, campaign, start) = (app.clone(), campaign.clone(), start.clone());
        let (finalized, statuses) = (finalized.clone(), statuses.clone());
        let (late, accepted) = (late_accepts.clone(), accepted_messages.clone());
        let done = clients_done.clone();
        tasks.push(tokio::spawn(async move {
            let _done = DoneGuard(done);
            start.wait().await;
            let (s, v) = app
                .post(
                    "/api/exploration/sessions",
                    json!({"campaign_id": campaign, "persona": {"name": format!("client {i}")}, "goal": "ask", "trigger": "manual"}),
                )
                .await;
            statuses
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(("create".into(), s.as_u16()));
            let Some(session) = v["id"].as_str().map(str::to_string) else {
                return;
            };
            // One more message than the turn limit allows.
            for n in 0..=MAX_TURNS {
                let after_finalize = finalized.load(Ordering::SeqCst);
                let (s, v) = app
                    .post(
                        &format!("/api/exploration/sessions/{session}/messages"),
                        json!({"content": format!("message {n} from client {i}")}),
                    )
                    .await;
                statuses
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(("message".into(), s.as_u16()));
                if s == StatusCode::OK {
                    accepted.fetch_add(1, Ordering::SeqCst);
                    if after_finalize {
                        late.fetch_add(1, Ordering::SeqCst);
                    }
                } else {
                    assert_eq!(s, StatusCode::CONFLICT, "a refusal is a 409: {v}");
                    let code = v["code"].as_str().unwrap_or("");
                    assert!(
                        ["TURN_LIMIT_REACHED", "SESSION_NOT_RUNNING", "CAMPAIGN_NOT_RUNNING"]
                            .contains(&code),
                        "refusals name their reason: {v}"
                    );
                }
            }
        }));
    }
    // Finalize races the clients, twice at once (it is idempotent).
    for _ in 0..2 {
        let (app, campaign, start) = (app.clone(), campaign.clone(), start.clone());
        let (finalized, statuses) = (finalized.clone(), statuses.clone());
        let accepted = accepted_messages.clone();
        let done = clients_done.clone();
        tasks.push(tokio::spawn(async move {
            start.wait().await;
            while accepted.load(Ordering::SeqCst) < FINALIZE_AFTER
                && done.load(Ordering::SeqCst) < CLIENTS as u64
            {
                tokio::task::yield_now().await;
            }
            let (s, v) = app
                .post(&format!("/api/campaigns/{campaign}/finalize"), json!({}))
                .await;
            assert_eq!(s, StatusCode::OK, "finalize is idempotent: {v}");
            finalized.store(true, Ordering::SeqCst);
            statuses
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(("finalize".into(), s.as_u16()));
        }));
    }
    start.wait().await;
    for t in tasks {
        t.await.expect("client task");
    }

    let statuses = statuses.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let server_errors: Vec<_> = statuses.iter().filter(|(_, s)| *s >= 500).collect();
    assert!(server_errors.is_empty(), "no 5xx: {server_errors:?}");
    assert_eq!(
        late_accepts.load(Ordering::SeqCst),
        0,
        "no message is accepted once finalize has answered"
    );

    // The database agrees with what the clients saw.
    let stored = app.platform.inspect();
    let campaign_id: agenteval_engine::CampaignId = campaign.parse().expect("campaign id");
    let sessions = stored
        .campaign_sessions(campaign_id)
        .await
        .expect("sessions");
    let created = statuses
        .iter()
        .filter(|(k, s)| k == "create" && *s == 200)
        .count();
    assert_eq!(
        sessions.len(),
        created,
        "every 200 create is one session row"
    );
    assert!(
        sessions.len() as u64 <= MAX_SESSIONS,
        "{} sessions for a budget of {MAX_SESSIONS}",
        sessions.len()
    );
    for s in &sessions {
        let (id, turns) = (s.id, s.turn_count);
        assert_ne!(s.status, "running", "finalize expired session {id}");
        assert!(turns as u64 <= MAX_TURNS, "session {id} has {turns} turns");
    }
    let user_turns = stored.session_user_turns(campaign_id).await.expect("turns");
    assert_eq!(
        user_turns as u64,
        accepted_messages.load(Ordering::SeqCst),
        "every accepted message is stored, and nothing else"
    );
    let (_, campaign_now) = app.get(&format!("/api/campaigns/{campaign}")).await;
    assert_eq!(campaign_now["status"], "finalized");
    assert!(
        accepted_messages.load(Ordering::SeqCst) >= FINALIZE_AFTER,
        "finalize raced real traffic"
    );
    let after: usize = statuses
        .iter()
        .filter(|(k, s)| k == "message" && *s == 409)
        .count();
    assert!(after > 0, "some messages were refused");
    let total = statuses.len();
    eprintln!(
        "race: {total} requests, {created} sessions created, {} messages accepted, 0 late, 0 5xx",
        accepted_messages.load(Ordering::SeqCst)
    );
}

/// Counts a client as done however its task ends (a failed assertion too),
/// so that finalize never waits for traffic that will not come.
struct DoneGuard(Arc<AtomicU64>);

impl Drop for DoneGuard {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

// ------------------------------------------- request size, unknown fields

#[tokio::test]
async fn oversized_bodies_are_413_and_unknown_fields_are_ignored() {
    let app = app("limits-key").await;
    let target = app
        .create(
            "/api/targets",
            json!({"name": "demo", "channel": {"kind": "builtin", "agent": "demo"}}),
        )
        .await;
    let ids = some_scenarios(&app.platform, 1);
    let campaign = app
        .create("/api/campaigns", campaign_body(&target, &ids, 3))
        .await;
    let session = app
        .create(
            "/api/exploration/sessions",
            json!({"campaign_id": campaign, "persona": {"name": "limits"}, "goal": "g", "trigger": "manual"}),
        )
        .await;

    // Over 1 MiB, with a Content-Length and chunked without one: 413 in the
    // error shape, on every POST route, before anything is stored.
    let big = format!(
        "{{\"content\": \"{}\"}}",
        "x".repeat(agenteval_server::BODY_LIMIT)
    );
    let routes = [
        "/api/targets".to_string(),
        "/api/campaigns".to_string(),
        "/api/exploration/sessions".to_string(),
        format!("/api/exploration/sessions/{session}/messages"),
        format!("/api/exploration/sessions/{session}/close"),
        "/api/reviews".to_string(),
    ];
    for route in &routes {
        let (s, v) = app
            .send(
                app.http
                    .post(format!("{}{route}", app.base))
                    .header("content-type", "application/json")
                    .body(big.clone()),
            )
            .await;
        assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{route}: {v}");
        assert_eq!(v["code"], "PAYLOAD_TOO_LARGE", "{route}: {v}");
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> = big
            .as_bytes()
            .chunks(64 * 1024)
            .map(|c| Ok(c.to_vec()))
            .collect();
        let stream = futures::stream::iter(chunks);
        let (s, v) = app
            .send(
                app.http
                    .post(format!("{}{route}", app.base))
                    .body(reqwest::Body::wrap_stream(stream)),
            )
            .await;
        assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{route} chunked: {v}");
    }
    // Just under the limit is read and judged on its content (the message
    // limit is 8 KiB: 400, not 413).
    let under = format!(
        "{{\"content\": \"{}\"}}",
        "x".repeat(agenteval_server::BODY_LIMIT - 64)
    );
    let (s, v) = app
        .send(
            app.http
                .post(format!(
                    "{}/api/exploration/sessions/{session}/messages",
                    app.base
                ))
                .body(under),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::BAD_REQUEST,
        "a body under 1 MiB is read: {v}"
    );
    let (_, turns) = app
        .get(&format!("/api/exploration/sessions/{session}/messages"))
        .await;
    assert!(
        turns.to_string().matches("\"role\"").count() == 0,
        "nothing oversized was stored: {turns}"
    );
    // Deep nesting inside a free-form field is refused as invalid JSON
    // (serde_json's recursion limit), not a stack overflow.
    let deep = format!(
        "{{\"campaign_id\": \"{campaign}\", \"goal\": \"g\", \"persona\": {{\"x\": {}{}}}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let (s, v) = app
        .send(
            app.http
                .post(format!("{}/api/exploration/sessions", app.base))
                .body(deep),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{v}");

    // Unknown fields are ignored (newer clients keep working with this
    // server); the known ones still apply and the unknown ones are not kept.
    let (s, v) = app
        .post(
            &format!("/api/exploration/sessions/{session}/messages"),
            json!({"content": "hello", "x_unknown_field": {"nested": "zzz-unknown-zzz"}}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, t) = app
        .post(
            "/api/targets",
            json!({"name": "extra", "colour": "zzz-unknown-zzz", "channel": {"kind": "builtin", "agent": "demo", "flavour": 1}}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert!(!t.to_string().contains("zzz-unknown-zzz"), "{t}");
    // A misspelt required field is still named.
    let (s, v) = app
        .post(
            &format!("/api/exploration/sessions/{session}/messages"),
            json!({"contnet": "hello"}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["message"].as_str().unwrap_or("").contains("content"),
        "{v}"
    );
}

/// The trace routes' own limit, 32 MiB: one byte over it is 413 in the
/// error shape, with a Content-Length and chunked; the limit itself is
/// read. A batch with spans that cannot be kept (of the wrong shape,
/// without a trace id) keeps the others' conversations and names each
/// skipped span in the OTLP partial success.
#[tokio::test]
async fn trace_bodies_over_32_mib_are_413_and_malformed_spans_are_skipped_by_name() {
    use agenteval_server::trace_routes::TRACE_BODY_LIMIT;
    let app = app("traces-key").await;
    let attr = |key: &str, value: &str| json!({"key": key, "value": {"stringValue": value}});
    let chat = |trace: Option<&str>, id: &str, conversation: &str| {
        let mut span = json!({"spanId": id, "name": "chat shop-model",
            "startTimeUnixNano": "1733000000000000000", "endTimeUnixNano": "1733000000000000010",
            "attributes": [attr("gen_ai.operation.name", "chat"),
                attr("gen_ai.conversation.id", conversation),
                attr("gen_ai.input.messages", r#"[{"role": "user", "content": "Where is my order?"}]"#)]});
        if let Some(trace) = trace {
            span["traceId"] = json!(trace);
        }
        span
    };
    let export = |spans: Vec<Value>| json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]});

    let over = vec![b' '; TRACE_BODY_LIMIT + 1];
    for route in ["/v1/traces", "/api/traces/import"] {
        let (s, v) = app
            .send(
                app.http
                    .post(format!("{}{route}", app.base))
                    .header("content-type", "application/json")
                    .body(over.clone()),
            )
            .await;
        assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{route}: {v}");
        assert_eq!(v["code"], "PAYLOAD_TOO_LARGE", "{route}: {v}");
        assert!(
            v["message"].as_str().unwrap_or("").contains("32 MiB")
                && v["suggestion"].as_str().is_some_and(|s| !s.is_empty()),
            "the error shape, naming the trace routes' limit: {v}"
        );
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
            over.chunks(1 << 20).map(|c| Ok(c.to_vec())).collect();
        let (s, v) = app
            .send(
                app.http
                    .post(format!("{}{route}", app.base))
                    .header("content-type", "application/json")
                    .body(reqwest::Body::wrap_stream(futures::stream::iter(chunks))),
            )
            .await;
        assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{route} chunked: {v}");
        assert_eq!(v["code"], "PAYLOAD_TOO_LARGE", "{route} chunked: {v}");
    }
    // The limit itself is read: an export padded to exactly 32 MiB.
    let mut at_limit = export(vec![chat(
        Some("5b8efff798038103d269b633813fc60c"),
        "00000000000000a0",
        "at-limit",
    )])
    .to_string()
    .into_bytes();
    at_limit.resize(TRACE_BODY_LIMIT, b' ');
    let (s, v) = app
        .send(
            app.http
                .post(format!("{}/v1/traces", app.base))
                .header("content-type", "application/json")
                .body(at_limit),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "a body of 32 MiB is read: {v}");

    let mut wrong_time = chat(
        Some("0af7651916cd43dd8448eb211c80319c"),
        "0000000000000b01",
        "bad-1",
    );
    wrong_time["startTimeUnixNano"] = json!({"seconds": 1});
    let mut wrong_key = chat(
        Some("0af7651916cd43dd8448eb211c80319c"),
        "0000000000000b02",
        "bad-2",
    );
    wrong_key["attributes"][1] =
        json!({"key": "gen_ai.conversation.id", "value": {"intValue": "many"}});
    let batch = export(vec![
        chat(
            Some("1af7651916cd43dd8448eb211c80319d"),
            "00000000000000a1",
            "keep-1",
        ),
        wrong_time,
        wrong_key,
        chat(None, "0000000000000b03", "bad-3"),
        chat(Some(&"0".repeat(32)), "0000000000000b04", "bad-4"),
        chat(
            Some("2af7651916cd43dd8448eb211c80319e"),
            "00000000000000a2",
            "keep-2",
        ),
    ]);
    let (s, v) = app.post("/v1/traces", batch).await;
    assert_eq!(s, StatusCode::OK, "the valid spans are taken: {v}");
    assert_eq!(v["partialSuccess"]["rejectedSpans"], 4, "{v}");
    let why = v["partialSuccess"]["errorMessage"].as_str().unwrap_or("");
    for id in ["b01", "b02", "b03", "b04"] {
        assert!(
            why.contains(&format!("0000000000000{id}")),
            "span {id} named: {why}"
        );
    }
    let (_, page) = app.get("/api/traces/conversations").await;
    let mut keys: Vec<&str> = page["conversations"]
        .as_array()
        .expect("a page")
        .iter()
        .filter_map(|c| c["key"].as_str())
        .collect();
    keys.sort();
    assert_eq!(
        keys,
        vec!["at-limit", "keep-1", "keep-2"],
        "the valid conversations kept, none of a skipped span: {page}"
    );
}

#[tokio::test]
async fn the_openapi_document_declares_the_statuses_every_route_can_answer() {
    let app = app("openapi-key").await;
    let (s, doc) = app.get("/api/openapi.json").await;
    assert_eq!(s, StatusCode::OK);
    let paths = doc["paths"].as_object().expect("paths");
    let mut operations = 0;
    for (path, item) in paths {
        for (method, op) in item.as_object().expect("path item") {
            operations += 1;
            let responses = op["responses"].as_object().expect("responses");
            let has = |status: &str| responses.contains_key(status);
            if path != "/api/health" {
                assert!(
                    has("401"),
                    "{method} {path} declares 401: every protected route can answer it"
                );
            }
            assert!(has("500"), "{method} {path} declares 500");
            if op.get("requestBody").is_some() {
                for status in ["400", "413", "422"] {
                    assert!(
                        has(status),
                        "{method} {path} reads a body: it declares {status}"
                    );
                }
            }
        }
    }
    assert!(operations >= 27, "every route is documented ({operations})");
}

/// A small tmpfs mounted over a folder, unmounted (lazily: the server's
/// files may still be open) when dropped.
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(at: &std::path::Path, megabytes: u32) -> Self {
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={megabytes}m"), "tmpfs"])
            .arg(at)
            .status()
            .expect("run mount");
        assert!(
            status.success(),
            "mounting a {megabytes} MB tmpfs needs root (the test command runs as root)"
        );
        Self(at.to_path_buf())
    }

    /// Writes a file until the disk is full; its path.
    fn fill(&self) -> std::path::PathBuf {
        let ballast = self.0.join("ballast");
        let mut f = std::fs::File::create(&ballast).expect("ballast");
        let chunk = vec![0u8; 64 * 1024];
        while f.write_all(&chunk).and_then(|()| f.sync_data()).is_ok() {}
        ballast
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_refuses_writes_with_503_and_loses_nothing_committed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let disk = SmallDisk::mount(dir.path(), 24);
    let app = app_in(dir, "full-disk-key-0123456789").await;
    let target = app
        .create(
            "/api/targets",
            json!({"name": "demo", "channel": {"kind": "builtin", "agent": "demo"}}),
        )
        .await;
    let campaign = app
        .create(
            "/api/campaigns",
            json!({"name": "full disk", "target_id": target, "duration_hours": 24,
                   "seed_set": {"personas": [{"id": "p", "name": "Lin"}], "goals": [{"id": "g", "title": "Track my order"}]},
                   "budget": {"max_sessions": 5, "max_turns": 8, "min_interval_minutes": 0}}),
        )
        .await;
    let session = app
        .create(
            "/api/exploration/sessions",
            json!({"campaign_id": campaign, "persona": {"name": "Lin"}, "goal": "Track my order",
                   "trigger": "manual", "played_by": "person"}),
        )
        .await;
    let message = format!("/api/exploration/sessions/{session}/messages");
    let (s, first) = app
        .post(&message, json!({"content": "Where is order A1024?"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{first}");
    let ballast = disk.fill();

    // Every write is refused at once and clearly, in the caller's language.
    let (s, refused) = app
        .send(
            app.http
                .post(format!("{}{message}", app.base))
                .header("Accept-Language", "zh-CN")
                .json(&json!({"content": "还没到吗？"})),
        )
        .await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{refused}");
    assert_eq!(refused["code"], "DATABASE_UNAVAILABLE");
    assert!(
        refused["message"].as_str().unwrap().contains("磁盘已满"),
        "{refused}"
    );
    assert!(
        refused["suggestion"]
            .as_str()
            .unwrap()
            .contains("之前保存的数据都在")
    );
    let res = app
        .http
        .post(format!("{}/api/campaigns", app.base))
        .header("X-API-Key", &app.key)
        .json(&json!({"name": "another", "target_id": target, "duration_hours": 1,
                       "seed_set": {"personas": [{"id": "p", "name": "Lin"}], "goals": [{"id": "g", "title": "Track"}]}}))
        .send()
        .await
        .expect("request");
    assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(res.headers()["retry-after"], "5");
    // Reads still answer, and the server says the database is reachable.
    let (s, transcript) = app
        .get(&format!("/api/exploration/sessions/{session}/messages"))
        .await;
    assert_eq!(s, StatusCode::OK, "{transcript}");
    let (s, health) = app.get("/api/health").await;
    assert_eq!(
        (s, health["database"].as_str()),
        (StatusCode::OK, Some("ok"))
    );

    // Space again: the same request goes through, and everything committed
    // before is there, the refused message not.
    std::fs::remove_file(ballast).expect("free the disk");
    let (s, again) = app
        .post(&message, json!({"content": "Still not there?"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{again}");
    let (_, transcript) = app
        .get(&format!("/api/exploration/sessions/{session}/messages"))
        .await;
    let said: Vec<&str> = transcript["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(said, ["Where is order A1024?", "Still not there?"]);
    let (s, c) = app.get(&format!("/api/campaigns/{campaign}")).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    drop(app);
}
