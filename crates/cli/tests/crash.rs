//! Crash recovery under SIGKILL: `agenteval serve` runs an accelerated
//! campaign against `agenteval demo-target` while a client explores through
//! the API; the server is killed with SIGKILL at random moments and
//! restarted, again and again. At the end nothing seen is lost, no run is
//! counted twice, runs cut mid-flight are marked `interrupted`, the ledger
//! matches the session rows and SQLite's integrity check passes.
//!
//! `AGENTEVAL_CRASH_KILLS` sets the number of kills (default 4 here;
//! `scripts/crash-test.sh` runs 20).

mod support;

use agenteval_engine::store::inspect::Inspect;
use rand::Rng;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use support::free_port;
use tokio::sync::Mutex;
use uuid::Uuid;

const KEY: &str = "crash-test-key";
/// Runs per scenario: six waves across the window, so that runs are in
/// flight for most of it.
const ROUNDS: u32 = 6;

/// scenario, slot (seq), status, verdict, error reason.
type RunRow = (String, i64, String, Option<String>, Option<String>);

fn repo_scenarios() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// A child process that is killed when dropped, so that a failing
/// assertion never leaves a server behind.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_serve(data: &Path, port: u16, log: &Path) -> Proc {
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .expect("log file");
    let child = support::serve(data, KEY, port, log)
        .arg("--scenarios")
        .arg(repo_scenarios())
        .spawn()
        .expect("start agenteval serve");
    Proc(child)
}

struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
    async fn wait_healthy(&self, server: &mut Proc, log: &Path) {
        support::wait_healthy(&self.http, &self.base, &mut server.0, log).await;
    }

    async fn call(&self, req: reqwest::RequestBuilder) -> Option<(u16, Value)> {
        let res = req
            .header("X-API-Key", KEY)
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .ok()?;
        let status = res.status().as_u16();
        let text = res.text().await.ok()?;
        Some((
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        ))
    }

    async fn get(&self, path: &str) -> Option<(u16, Value)> {
        self.call(self.http.get(format!("{}{path}", self.base)))
            .await
    }

    async fn post(&self, path: &str, body: Value) -> Option<(u16, Value)> {
        self.call(self.http.post(format!("{}{path}", self.base)).json(&body))
            .await
    }
}

/// What the client saw acknowledged before a kill.
#[derive(Default)]
struct Seen {
    /// (run id, turn seq) -> content.
    run_turns: BTreeMap<(String, u64), String>,
    /// (session id, turn seq) -> content.
    session_turns: BTreeMap<(String, u64), String>,
    /// Messages answered 200 (their user turn is committed).
    accepted_messages: u64,
    sessions: BTreeSet<String>,
}

/// Traffic until `stop` (at least one pass): explores (create, messages,
/// close) and records every turn the API shows. Runs beside the kills, so
/// that a kill lands in the middle of requests too.
async fn traffic(
    client: Arc<Client>,
    campaign: String,
    seen: Arc<Mutex<Seen>>,
    stop: Arc<AtomicBool>,
) {
    let campaign = campaign.as_str();
    loop {
        let mut seen = seen.lock().await;
        let seen = &mut *seen;
        let (n_messages, close) = {
            let mut rng = rand::rng();
            (rng.random_range(1..4), rng.random_bool(0.5))
        };
        if let Some((200, s)) = client
            .post(
                "/api/exploration/sessions",
                json!({"campaign_id": campaign, "persona": {"name": "crash"}, "goal": "send an email", "trigger": "manual"}),
            )
            .await
            && let Some(id) = s["id"].as_str()
        {
            seen.sessions.insert(id.to_string());
            for n in 0..n_messages {
                match client
                    .post(
                        &format!("/api/exploration/sessions/{id}/messages"),
                        json!({"content": format!("message {n}: email boss@example.com")}),
                    )
                    .await
                {
                    Some((200, _)) => seen.accepted_messages += 1,
                    _ => break,
                }
            }
            if close {
                let _ = client
                    .post(
                        &format!("/api/exploration/sessions/{id}/close"),
                        json!({"goal_achieved": true, "blockers": [], "misled": [], "emotion": "satisfied", "notes": ""}),
                    )
                    .await;
            }
            if let Some((200, t)) = client
                .get(&format!("/api/exploration/sessions/{id}/messages"))
                .await
            {
                for turn in t["messages"].as_array().into_iter().flatten() {
                    if let (Some(seq), Some(content)) = (turn["seq"].as_u64(), turn["content"].as_str()) {
                        seen.session_turns
                            .insert((id.to_string(), seq), content.to_string());
                    }
                }
            }
        }
        if let Some((200, runs)) = client.get(&format!("/api/campaigns/{campaign}/runs")).await {
            // Runs in flight (those a kill may cut) and the latest finished.
            let mut listed: Vec<&Value> = runs
                .as_array()
                .into_iter()
                .flatten()
                .filter(|r| r["status"] != "pending")
                .collect();
            listed.sort_by_key(|r| {
                (
                    r["status"] != "running",
                    std::cmp::Reverse(r["finished_at"].as_str().unwrap_or("").to_string()),
                )
            });
            let ids: Vec<String> = listed
                .iter()
                .take(8)
                .filter_map(|r| r["id"].as_str().map(str::to_string))
                .collect();
            for id in ids {
                if let Some((200, turns)) = client.get(&format!("/api/runs/{id}/turns")).await {
                    for turn in turns.as_array().into_iter().flatten() {
                        if let (Some(seq), Some(content)) =
                            (turn["seq"].as_u64(), turn["content"].as_str())
                        {
                            seen.run_turns
                                .insert((id.clone(), seq), content.to_string());
                        }
                    }
                }
            }
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
    }
}

#[test]
fn serve_survives_sigkill_at_random_moments_without_losing_or_double_counting() {
    let kills: usize = std::env::var("AGENTEVAL_CRASH_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(crash_loop(kills));
}

async fn crash_loop(kills: usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let log = dir.path().join("serve.log");
    let target_port = free_port();
    let _demo_target = Proc(
        Command::new(env!("CARGO_BIN_EXE_agenteval"))
            .args(["demo-target", "--latency-ms", "100", "--bind"])
            .arg(format!("127.0.0.1:{target_port}"))
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start agenteval demo-target"),
    );
    let port = free_port();
    let client = Arc::new(Client {
        http: reqwest::Client::new(),
        base: format!("http://127.0.0.1:{port}"),
    });
    let mut server = start_serve(&data, port, &log);
    client.wait_healthy(&mut server, &log).await;

    // The target: the demo agent over HTTP, a separate process that
    // outlives every kill.
    let (s, target) = client
        .post(
            "/api/targets",
            json!({"name": "demo over HTTP", "concurrency": 16, "channel": {
                "kind": "openai", "base_url": format!("http://127.0.0.1:{target_port}/v1"), "model": "demo"}}),
        )
        .await
        .expect("create target");
    assert_eq!(s, 200, "{target}");
    let (_, scenarios) = client.get("/api/scenarios").await.expect("scenarios");
    let plan: Vec<Value> = scenarios
        .as_array()
        .expect("scenario list")
        .iter()
        .map(|s| json!({"scenario_id": s["id"], "rounds": ROUNDS}))
        .collect();
    // The window lasts about one second of real time per kill (at least
    // eight): runs keep coming due while the server is killed.
    let window_secs = (kills as f64 * 1.0).max(8.0);
    let (s, campaign) = client
        .post(
            "/api/campaigns",
            json!({"name": "crash", "target_id": target["id"], "plan": {"entries": plan},
                   "duration_hours": 20, "time_scale": 20.0 * 3600.0 / window_secs,
                   "budget": {"max_sessions": 1000, "max_turns": 12, "min_interval_minutes": 0}}),
        )
        .await
        .expect("create campaign");
    assert_eq!(s, 200, "{campaign}");
    let campaign = campaign["id"].as_str().expect("campaign id").to_string();

    let seen = Arc::new(Mutex::new(Seen::default()));
    for _ in 0..kills {
        let stop = Arc::new(AtomicBool::new(false));
        let load = tokio::spawn(traffic(
            client.clone(),
            campaign.clone(),
            seen.clone(),
            stop.clone(),
        ));
        let pause = Duration::from_millis(rand::rng().random_range(300..1200));
        tokio::time::sleep(pause).await;
        // SIGKILL (std's `kill` on Unix), at whatever point the server and
        // the client are.
        server.0.kill().expect("SIGKILL serve");
        server.0.wait().expect("reap serve");
        stop.store(true, Ordering::SeqCst);
        load.await.expect("traffic task");
        server = start_serve(&data, port, &log);
        client.wait_healthy(&mut server, &log).await;
    }

    // Let the campaign finish after the last restart.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (_, c) = client
            .get(&format!("/api/campaigns/{campaign}"))
            .await
            .expect("campaign");
        if c["status"] == "finalized" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the campaign finishes after the last restart: {c}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Record what the API shows now, then one last SIGKILL, and inspect the
    // files as the crash left them.
    let stop = Arc::new(AtomicBool::new(true));
    traffic(client.clone(), campaign.clone(), seen.clone(), stop).await;
    let seen = seen.lock().await;
    server.0.kill().expect("SIGKILL serve");
    server.0.wait().expect("reap serve");
    drop(server);

    let stored = Inspect::open_read_only(&data)
        .await
        .expect("open the database");
    let integrity = stored.integrity_check().await.expect("integrity check");
    assert_eq!(integrity, "ok", "SQLite integrity after {kills} SIGKILLs");

    // Every turn seen before a kill still exists, with the same content.
    let id = |id: &str| -> Uuid { id.parse().expect("an id the API gave") };
    let mut lost = Vec::new();
    for ((run, seq), content) in &seen.run_turns {
        let kept = stored
            .run_turn_content(agenteval_engine::RunId(id(run)), *seq as u32)
            .await
            .expect("run turn");
        if kept.as_deref() != Some(content.as_str()) {
            lost.push(format!("run {run} turn {seq}"));
        }
    }
    for ((session, seq), content) in &seen.session_turns {
        let kept = stored
            .session_turn_content(agenteval_engine::SessionId(id(session)), *seq as u32)
            .await
            .expect("session turn");
        if kept.as_deref() != Some(content.as_str()) {
            lost.push(format!("session {session} turn {seq}"));
        }
    }
    assert!(
        lost.is_empty(),
        "turns seen before a kill were lost: {lost:?}"
    );

    // No run counted twice; every planned run has exactly one outcome.
    let campaign = id(&campaign);
    let planned = scenarios.as_array().map_or(0, Vec::len) as i64 * i64::from(ROUNDS);
    let runs: Vec<RunRow> = stored
        .campaign_runs(agenteval_engine::CampaignId(campaign))
        .await
        .expect("runs")
        .into_iter()
        .map(|r| {
            (
                r.scenario_id,
                i64::from(r.seq),
                r.status,
                r.verdict.map(|v| v.as_str().to_string()),
                r.error_reason,
            )
        })
        .collect();
    assert_eq!(runs.len() as i64, planned, "one row per planned run");
    let slots: BTreeSet<(String, i64)> = runs.iter().map(|r| (r.0.clone(), r.1)).collect();
    assert_eq!(slots.len(), runs.len(), "no (scenario, slot) twice");
    let mut interrupted = 0;
    for (scenario, seq, status, verdict, reason) in &runs {
        assert_eq!(status, "done", "run {scenario}#{seq} finished");
        match verdict.as_deref() {
            Some("passed" | "failed") => {}
            Some("error") => {
                assert_eq!(
                    reason.as_deref(),
                    Some("interrupted"),
                    "the demo target is always up: the only error is a cut run ({scenario}#{seq})"
                );
                interrupted += 1;
            }
            other => panic!("run {scenario}#{seq} has verdict {other:?}"),
        }
    }
    // Turns of a run are contiguous: none duplicated, none skipped.
    let gaps = stored.runs_with_turn_gaps().await.expect("gaps");
    assert_eq!(gaps, Vec::<String>::new(), "run turns are contiguous");

    // The ledger matches the rows it accounts for.
    let session_rows = stored
        .campaign_sessions(agenteval_engine::CampaignId(campaign))
        .await
        .expect("sessions");
    let with_status =
        |status: &str| session_rows.iter().filter(|s| s.status == status).count() as i64;
    let ledger = |action: &'static str| {
        let stored = stored.clone();
        async move {
            stored
                .allowed_ledger_entries(agenteval_engine::CampaignId(campaign), action)
                .await
                .expect(action)
        }
    };
    let sessions = session_rows.len() as i64;
    let ledger_creates = ledger("create").await;
    let user_turns = stored
        .session_user_turns(agenteval_engine::CampaignId(campaign))
        .await
        .expect("user turns");
    let ledger_messages = ledger("message").await;
    let turn_counts: i64 = session_rows.iter().map(|s| s.turn_count).sum();
    let closed = with_status("completed");
    let ledger_closes = ledger("close").await;
    assert_eq!(ledger_creates, sessions, "ledger creates = session rows");
    assert_eq!(
        ledger_messages, user_turns,
        "ledger messages = user turn rows"
    );
    assert_eq!(
        turn_counts, user_turns,
        "sessions' turn counts = user turn rows"
    );
    assert_eq!(ledger_closes, closed, "ledger closes = completed sessions");
    assert!(
        user_turns as u64 >= seen.accepted_messages,
        "every acknowledged message is stored ({user_turns} < {})",
        seen.accepted_messages
    );
    assert!(
        seen.sessions.len() as i64 <= sessions,
        "every acknowledged session is stored"
    );
    let still_running = with_status("running");
    assert_eq!(still_running, 0, "finalize expired every open session");

    // The report's tallies, written with the rows they count, agree with
    // them whatever the kills cut.
    let verdicts = stored
        .runs_by_verdict(agenteval_engine::CampaignId(campaign))
        .await
        .expect("runs by verdict");
    assert_eq!(
        verdicts.tallied, verdicts.rows,
        "the tallied runs by verdict are the stored ones"
    );
    let latencies = stored
        .reply_latencies(agenteval_engine::CampaignId(campaign))
        .await
        .expect("reply latencies");
    assert_eq!(
        latencies.tallied, latencies.rows,
        "the tallied reply latencies are the stored ones"
    );
    let statuses = stored
        .sessions_by_status(agenteval_engine::CampaignId(campaign))
        .await
        .expect("sessions by status");
    assert_eq!(
        statuses.tallied, statuses.rows,
        "the tallied sessions by status are the stored ones"
    );

    if std::env::var_os("AGENTEVAL_CRASH_KEEP").is_some() {
        println!("data kept in {}", dir.keep().display());
    }
    println!(
        "crash test: {kills} SIGKILLs, {planned} runs ({interrupted} interrupted), {} run turns and {} session turns seen before kills, \
         {sessions} sessions, {user_turns} messages stored ({} acknowledged), losses: 0, double counts: 0, integrity: ok",
        seen.run_turns.len(),
        seen.session_turns.len(),
        seen.accepted_messages
    );
}
