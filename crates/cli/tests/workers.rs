//! Several workers on one PostgreSQL database: three `agenteval serve`
//! processes share a database (a real server, `scripts/postgres.sh`) and
//! run one accelerated campaign against a target that counts the requests
//! it answers, while clients on two of them race for the campaign's
//! exploration budget. The third worker is killed with SIGKILL midway; the
//! runs it held are taken over once their leases expire.
//!
//! Afterwards: every planned run finished once, with one verdict and
//! contiguous turns; the target answered exactly the requests of the stored
//! turns (a run taken over from the dead worker may have been asked more,
//! within its own turns, and says so with `attempts: 2`); the budget was
//! never exceeded (sessions, turns per session, ledger = rows); the report's
//! tallies equal a recount from the rows.
//!
//! And two workers through a crash of the database itself: requests are
//! answered 503 while it is down, the workers stay up, and every run ends
//! once, none in error.

mod support;

#[path = "../../store/tests/support/postgres.rs"]
#[allow(dead_code)]
mod postgres;

use agenteval_engine::CampaignId;
use agenteval_engine::store::Store;
use agenteval_server::demo_target::{DemoTargetOptions, router};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use support::free_port;

const KEY: &str = "workers-test-key";
/// Runs per scenario, spread across the window: more than one worker
/// plays at once (each claims at most 16 runs per request slot of the
/// target, and the target takes 2 requests at once per worker), so that
/// every worker holds runs.
const ROUNDS: u32 = 6;
/// The window, in real seconds.
const WINDOW_SECS: f64 = 12.0;
/// The exploration budget the clients race for.
const MAX_SESSIONS: i64 = 6;
const MAX_TURNS: i64 = 3;

/// The workers' logs, printed when the test fails.
struct Logs(Vec<PathBuf>);

impl Drop for Logs {
    fn drop(&mut self) {
        if std::thread::panicking() {
            for log in &self.0 {
                let text = std::fs::read_to_string(log).unwrap_or_default();
                eprintln!("--- {}\n{text}", log.display());
            }
        }
    }
}

/// A worker process, killed when dropped so that a failing assertion
/// leaves nothing behind.
struct Worker {
    child: Child,
    base: String,
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_worker(database_url: &str, data: &Path, log: &Path) -> Worker {
    let port = free_port();
    let log = std::fs::File::create(log).expect("log file");
    let child = support::serve(data, KEY, port, log)
        .arg("--scenarios")
        .arg(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios"))
        .env("AGENTEVAL_DATABASE_URL", database_url)
        .env("AGENTEVAL_SECRET_KEY", "one passphrase for every worker")
        .spawn()
        .expect("start agenteval serve");
    Worker {
        child,
        base: format!("http://127.0.0.1:{port}"),
    }
}

/// The demo agent over HTTP on 127.0.0.1 with `latency` a reply, counting
/// the chat requests it answers: its address and the count.
async fn counting_target(latency: Duration) -> (std::net::SocketAddr, Arc<AtomicU64>) {
    let requests = Arc::new(AtomicU64::new(0));
    let counted = requests.clone();
    let target = router(DemoTargetOptions { latency }).layer(axum::middleware::from_fn(
        move |req: axum::extract::Request, next: axum::middleware::Next| {
            if req.uri().path() == "/v1/chat/completions" {
                counted.fetch_add(1, Ordering::SeqCst);
            }
            next.run(req)
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the target");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, target).await });
    (addr, requests)
}

/// `n` workers on the database at `url`, each with a data folder under
/// `dir`, started together and healthy; their clients, and their logs
/// (printed if the test fails).
async fn start_workers(n: usize, url: &str, dir: &Path) -> (Vec<Worker>, Vec<Client>, Logs) {
    let logs: Vec<PathBuf> = (0..n).map(|i| dir.join(format!("worker{i}.log"))).collect();
    let mut workers: Vec<Worker> = (0..n)
        .map(|i| start_worker(url, &dir.join(format!("data{i}")), &logs[i]))
        .collect();
    let http = reqwest::Client::new();
    let clients: Vec<Client> = workers
        .iter()
        .map(|w| Client {
            http: http.clone(),
            base: w.base.clone(),
        })
        .collect();
    for (i, worker) in workers.iter_mut().enumerate() {
        clients[i].wait_healthy(worker, &logs[i]).await;
    }
    (workers, clients, Logs(logs))
}

/// The counting target at `addr`, registered through `client`, and a plan
/// of every shipped scenario `rounds` times.
async fn every_scenario(
    client: &Client,
    addr: std::net::SocketAddr,
    rounds: u32,
) -> (Value, Vec<Value>) {
    let (s, target) = client
        .post(
            "/api/targets",
            json!({"name": "counted demo", "concurrency": 2, "channel": {
                "kind": "openai", "base_url": format!("http://{addr}/v1"), "model": "demo"}}),
        )
        .await;
    assert_eq!(s, 200, "{target}");
    let (_, scenarios) = client.get("/api/scenarios").await;
    let plan = scenarios
        .as_array()
        .expect("scenario list")
        .iter()
        .map(|s| json!({"scenario_id": s["id"], "rounds": rounds}))
        .collect();
    (target, plan)
}

#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
    async fn call(&self, req: reqwest::RequestBuilder) -> (u16, Value) {
        let res = req
            .header("X-API-Key", KEY)
            .timeout(Duration::from_secs(30))
            .send()
            .await
            .unwrap_or_else(|e| panic!("a request to the worker at {}: {e}", self.base));
        let status = res.status().as_u16();
        let text = res.text().await.expect("body");
        (
            status,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        self.call(self.http.get(format!("{}{path}", self.base)))
            .await
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.call(self.http.post(format!("{}{path}", self.base)).json(&body))
            .await
    }

    async fn wait_healthy(&self, worker: &mut Worker, log: &Path) {
        support::wait_healthy(&self.http, &self.base, &mut worker.child, log).await;
    }
}

/// What one racing client got from the API.
#[derive(Default, Debug)]
struct Raced {
    sessions: u64,
    messages: u64,
    refused_creates: u64,
    refused_messages: u64,
}

/// Creates sessions and sends messages until the budget refuses a new
/// session; every refusal must be a guardrail's 409.
async fn race(client: Client, campaign: String, stop: Arc<AtomicBool>) -> Raced {
    let mut raced = Raced::default();
    while !stop.load(Ordering::SeqCst) {
        let (s, session) = client
            .post(
                "/api/exploration/sessions",
                json!({"campaign_id": campaign, "persona": {"name": "racer"},
                       "goal": "send an email", "trigger": "manual"}),
            )
            .await;
        if s == 409 {
            assert_eq!(
                session["code"], "SESSION_BUDGET_EXHAUSTED",
                "a refused create names its reason: {session}"
            );
            raced.refused_creates += 1;
            break;
        }
        assert_eq!(s, 200, "{session}");
        raced.sessions += 1;
        let id = session["id"].as_str().expect("session id").to_string();
        // One message more than the budget allows.
        for n in 0..=MAX_TURNS {
            let (s, reply) = client
                .post(
                    &format!("/api/exploration/sessions/{id}/messages"),
                    json!({"content": format!("message {n}: please email boss@example.com")}),
                )
                .await;
            match s {
                200 => raced.messages += 1,
                409 => {
                    assert_eq!(reply["code"], "TURN_LIMIT_REACHED", "{reply}");
                    raced.refused_messages += 1;
                    break;
                }
                _ => panic!("message {n} of session {id}: {s} {reply}"),
            }
        }
        let (s, closed) = client
            .post(
                &format!("/api/exploration/sessions/{id}/close"),
                json!({"goal_achieved": true, "blockers": [], "misled": [],
                       "emotion": "satisfied", "notes": ""}),
            )
            .await;
        assert_eq!(s, 200, "{closed}");
    }
    raced
}

#[test]
fn three_workers_on_postgres_run_a_campaign_once_through_a_sigkill() {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(three_workers());
}

async fn three_workers() {
    let db = postgres::fresh_database().await;
    let dir = tempfile::tempdir().expect("temp dir");

    // The target: the demo agent with 300 ms of latency (runs are in
    // flight long enough to be cut), counting the chat requests it answers.
    let (target_addr, requests) = counting_target(Duration::from_millis(300)).await;
    // Three workers, started together: they migrate the database once.
    let (mut workers, clients, _shown) = start_workers(3, &db.url, dir.path()).await;

    let (target, plan) = every_scenario(&clients[0], target_addr, ROUNDS).await;
    let planned = (plan.len() as u32 * ROUNDS) as usize;
    let (s, campaign) = clients[0]
        .post(
            "/api/campaigns",
            json!({"name": "three workers", "target_id": target["id"], "plan": {"entries": plan},
                   "duration_hours": 20, "time_scale": 20.0 * 3600.0 / WINDOW_SECS,
                   "budget": {"max_sessions": MAX_SESSIONS, "max_turns": MAX_TURNS,
                              "min_interval_minutes": 0}}),
        )
        .await;
    assert_eq!(s, 200, "{campaign}");
    let campaign_id = campaign["id"].as_str().expect("campaign id").to_string();

    // Clients on workers 0 and 1 race for the budget (three each).
    let stop = Arc::new(AtomicBool::new(false));
    let racers: Vec<_> = (0..6)
        .map(|i| {
            tokio::spawn(race(
                clients[i % 2].clone(),
                campaign_id.clone(),
                stop.clone(),
            ))
        })
        .collect();

    // A third of the way through the window, worker 2 dies while it plays
    // runs: once it holds one (it claims them under its own name,
    // `worker-<pid>-...`).
    tokio::time::sleep(Duration::from_secs_f64(WINDOW_SECS / 3.0)).await;
    let mut killed = workers.pop().expect("worker 2");
    let observer = Store::open_database(&db.url, Default::default())
        .await
        .expect("open the database");
    let name = format!("worker-{}-", killed.child.id());
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let held: i64 = observer
            .inspect()
            .running_runs_by_worker()
            .await
            .expect("count the runs each worker plays")
            .into_iter()
            .filter(|(worker, _)| worker.starts_with(&name))
            .map(|(_, n)| n)
            .sum();
        if held >= 1 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "worker 2 claims runs beside the others"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    killed.child.kill().expect("SIGKILL worker 2");
    killed.child.wait().expect("reap worker 2");

    let mut raced = Vec::new();
    for r in racers {
        raced.push(r.await.expect("racing client"));
    }
    stop.store(true, Ordering::SeqCst);

    // The campaign ends once every run is done: the dead worker's runs wait
    // for their leases (30 s) and are then played by another worker.
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let (_, c) = clients[0]
            .get(&format!("/api/campaigns/{campaign_id}"))
            .await;
        if c["status"] == "finalized" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the campaign is finalized after the dead worker's leases expired: {c}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let asked = requests.load(Ordering::SeqCst);

    let stored = observer.inspect();
    let campaign = CampaignId(campaign_id.parse().expect("campaign id"));

    // Every planned run finished once, with one verdict.
    let runs = stored.campaign_runs(campaign).await.expect("runs");
    assert_eq!(runs.len(), planned, "one row per planned run");
    let mut retried = Vec::new();
    assert_every_run_judged(&runs);
    for run in &runs {
        assert!(run.attempts >= 1, "run {} was claimed", run.id);
        if run.attempts > 1 {
            retried.push(run.id);
        }
    }
    assert!(
        !retried.is_empty(),
        "the runs worker 2 held when it died were taken over, and say so"
    );
    assert_eq!(
        stored.runs_with_turn_gaps().await.expect("gaps"),
        Vec::<String>::new(),
        "run turns are contiguous: no turn stored twice, none skipped"
    );

    // Exactly once, as the target saw it: it answered one request per
    // stored reply and per tool round before it, plus at most the requests
    // of the runs played again.
    let session_messages = stored
        .session_user_turns(campaign)
        .await
        .expect("user turns") as u64;
    let run_requests = asked - session_messages;
    let (mut stored_requests, mut retried_requests) = (0, 0);
    for run in &runs {
        let (_, turns) = clients[0].get(&format!("/api/runs/{}/turns", run.id)).await;
        let requests = requests_of(&turns);
        stored_requests += requests;
        if retried.contains(&run.id) {
            retried_requests += requests;
        }
    }
    assert!(
        run_requests >= stored_requests && run_requests <= stored_requests + retried_requests,
        "the target answered {run_requests} run requests for {stored_requests} stored \
         ({} runs retried, {retried_requests} requests of theirs)",
        retried.len()
    );
    if retried.is_empty() {
        assert_eq!(
            run_requests, stored_requests,
            "with no run taken over, each request of a run was made once"
        );
    }

    // The budget held across workers: no overrun.
    let sessions = stored.campaign_sessions(campaign).await.expect("sessions");
    assert_eq!(
        sessions.len() as i64,
        MAX_SESSIONS,
        "the racing clients got exactly the budget's sessions: {raced:?}"
    );
    assert_eq!(
        raced.iter().map(|r| r.sessions).sum::<u64>() as i64,
        MAX_SESSIONS,
        "every session stored was acknowledged to one client"
    );
    assert!(
        sessions.iter().all(|s| s.turn_count <= MAX_TURNS),
        "no session went past its turn limit"
    );
    assert_eq!(
        raced.iter().map(|r| r.messages).sum::<u64>(),
        session_messages,
        "every acknowledged message is stored, and only those"
    );
    let ledger = |action: &'static str| {
        let stored = stored.clone();
        async move {
            stored
                .allowed_ledger_entries(campaign, action)
                .await
                .expect(action)
        }
    };
    assert_eq!(
        ledger("create").await,
        MAX_SESSIONS,
        "ledger creates = sessions"
    );
    assert_eq!(
        ledger("message").await as u64,
        session_messages,
        "ledger messages = user turns"
    );

    // The report's tallies, kept by three writers at once, equal a recount.
    let verdicts = stored.runs_by_verdict(campaign).await.expect("verdicts");
    assert_eq!(verdicts.tallied, verdicts.rows, "runs by verdict");
    let latencies = stored.reply_latencies(campaign).await.expect("latencies");
    assert_eq!(latencies.tallied, latencies.rows, "reply latencies");
    let statuses = stored.sessions_by_status(campaign).await.expect("statuses");
    assert_eq!(statuses.tallied, statuses.rows, "sessions by status");

    println!(
        "three workers: {planned} runs ({} taken over from the killed worker), {asked} target requests \
         ({run_requests} for runs, {session_messages} for sessions), {} sessions, \
         {} refused creates, {} refused messages, overruns: 0",
        retried.len(),
        sessions.len(),
        raced.iter().map(|r| r.refused_creates).sum::<u64>(),
        raced.iter().map(|r| r.refused_messages).sum::<u64>(),
    );
}

/// The requests a run's stored turns cost the target: one a reply, and one
/// a tool round the engine answered before it (the calls a turn ended on,
/// answered for the next turn, cost none).
fn requests_of(turns: &Value) -> u64 {
    let mut requests = 0;
    for t in turns.as_array().expect("turns") {
        if t["role"] != "target" {
            continue;
        }
        let ended_on: Vec<&Value> = t["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| &c["id"])
            .collect();
        let rounds: std::collections::BTreeSet<u64> = t["steps"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|s| !ended_on.contains(&&s["call"]["id"]))
            .filter_map(|s| s["round"].as_u64())
            .collect();
        requests += 1 + rounds.len() as u64;
    }
    requests
}

#[test]
fn two_workers_on_postgres_ride_out_a_database_restart() {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(database_restart());
}

async fn database_restart() {
    // A server of its own: it is crashed and started again on its port.
    let server = postgres::server_dir("restart");
    let url = postgres::start_server(&server, std::process::id()).expect("a server");
    // Nothing acknowledged may be lost to the crash, as on a production
    // server.
    postgres::durable_commits(&server);
    let port = url
        .rsplit_once(':')
        .and_then(|(_, rest)| rest.split('/').next())
        .expect("a port")
        .to_string();
    let dir = tempfile::tempdir().expect("temp dir");

    let (target_addr, requests) = counting_target(Duration::from_millis(100)).await;
    let (mut workers, clients, _shown) = start_workers(2, &url, dir.path()).await;
    let (target, plan) = every_scenario(&clients[0], target_addr, 3).await;
    let planned = plan.len() * 3;
    let (s, campaign) = clients[0]
        .post(
            "/api/campaigns",
            json!({"name": "restart", "target_id": target["id"], "plan": {"entries": plan},
                   "duration_hours": 20, "time_scale": 20.0 * 3600.0 / WINDOW_SECS}),
        )
        .await;
    assert_eq!(s, 200, "{campaign}");
    let campaign_id = campaign["id"].as_str().expect("campaign id").to_string();

    // A third of the way through, the database crashes for three seconds.
    tokio::time::sleep(Duration::from_secs_f64(WINDOW_SECS / 3.0)).await;
    postgres::pg_ctl(&server, &["stop", "-m", "immediate", "-w"]);
    let down = Instant::now();
    let mut refused = 0;
    while down.elapsed() < Duration::from_secs(3) {
        for c in &clients {
            let asked = Instant::now();
            let res = c
                .http
                .get(format!("{}/api/campaigns/{campaign_id}", c.base))
                .header("X-API-Key", KEY)
                .header("Accept-Language", "zh-CN")
                .send()
                .await
                .expect("the worker answers while the database is down");
            let waited = asked.elapsed();
            assert_eq!(res.status().as_u16(), 503, "never a 500 or a hang");
            assert_eq!(res.headers()["retry-after"], "5");
            let body: Value = res.json().await.expect("a JSON error");
            assert_eq!(body["code"], "DATABASE_UNAVAILABLE", "{body}");
            assert!(
                body["message"].as_str().unwrap().contains("数据库"),
                "{body}"
            );
            refused += 1;
            println!("refused in {waited:?} while the database was down");
            let (s, health) = c.get("/api/health").await;
            assert_eq!((s, health["database"].as_str()), (503, Some("unavailable")));
        }
    }
    postgres::pg_ctl(
        &server,
        &[
            "start",
            "-w",
            "-l",
            &server.join("server.log").to_string_lossy(),
            "-o",
            &format!("-p {port}"),
        ],
    );

    // The workers stayed up and carry on: the campaign ends, every run once
    // and none in error.
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let (s, c) = clients[0]
            .get(&format!("/api/campaigns/{campaign_id}"))
            .await;
        if s == 200 && c["status"] == "finalized" {
            break;
        }
        assert!(Instant::now() < deadline, "the campaign ends: {s} {c}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    for (i, worker) in workers.iter_mut().enumerate() {
        assert!(
            worker.child.try_wait().expect("the worker").is_none(),
            "worker {i} stayed up"
        );
    }
    let observer = Store::open_database(&url, Default::default())
        .await
        .expect("open the database");
    let stored = observer.inspect();
    let campaign = CampaignId(campaign_id.parse().expect("campaign id"));
    let runs = stored.campaign_runs(campaign).await.expect("runs");
    assert_eq!(runs.len(), planned, "one row per planned run");
    let taken_over = runs.iter().filter(|r| r.attempts > 1).count();
    assert_every_run_judged(&runs);
    assert_eq!(
        stored.runs_with_turn_gaps().await.expect("gaps"),
        Vec::<String>::new(),
        "run turns are contiguous"
    );
    let verdicts = stored.runs_by_verdict(campaign).await.expect("verdicts");
    assert_eq!(verdicts.tallied, verdicts.rows, "no verdict counted twice");
    println!(
        "database restart: {planned} runs, {taken_over} played again, {} target requests, {refused} requests refused with 503 while it was down",
        requests.load(Ordering::SeqCst)
    );
}

/// Every run is done with a verdict of the target's: the target is always
/// up, so none is in error.
fn assert_every_run_judged(runs: &[agenteval_engine::fixed::Run]) {
    for run in runs {
        assert_eq!(run.status, "done", "run {} finished", run.id);
        assert!(
            matches!(run.verdict.map(|v| v.as_str()), Some("passed" | "failed")),
            "the target is always up: no run is in error ({:?}, {:?})",
            run.verdict,
            run.error_reason
        );
    }
}
