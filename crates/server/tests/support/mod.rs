//! The harness of the API test binaries: a real router on 127.0.0.1, a
//! real database (SQLite in a temp dir, or PostgreSQL: [`test_database_url`])
//! and a manual clock, driven with reqwest.

// Each test binary includes this module and uses part of it.
#![allow(dead_code)]

use agenteval_engine::Platform;
use agenteval_engine::clock::ManualClock;
use agenteval_engine::patrol_agent::PatrolConfig;
use agenteval_engine::role_models::RoleModels;
use agenteval_engine::runtime::{PatrolAgent, PatrolControl};
use agenteval_server::{ServeConfig, spawn};
use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use serde_json::Value;
use std::sync::Arc;

pub const KEY: &str = "test-key-0123456789";

pub mod mcp;
#[path = "../../../store/tests/support/postgres.rs"]
mod postgres;

use postgres::test_database_url;

pub struct App {
    pub base: String,
    pub http: reqwest::Client,
    pub clock: Arc<ManualClock>,
    pub platform: Arc<Platform>,
    pub dir: tempfile::TempDir,
    /// The PostgreSQL database, when the suite runs on one.
    pub database_url: Option<String>,
}

pub fn t0() -> DateTime<Utc> {
    "2026-11-02T08:00:00Z".parse().expect("valid time")
}

/// A server on a fresh data folder, with no role model and no patrol agent.
pub async fn app() -> App {
    app_with_patrol(None).await
}

/// With a resident patrol agent (started by `config`) behind the
/// `/api/patrol-agent` routes.
pub async fn app_with_patrol(config: Option<PatrolConfig>) -> App {
    // The platform's log, shown with a failing test's output (RUST_LOG).
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_test_writer()
        .try_init();
    let dir = tempfile::tempdir().expect("temp dir");
    let clock = Arc::new(ManualClock::new(t0()));
    let database_url = test_database_url().await;
    let platform = Platform::builder(dir.path())
        .database_url(database_url.clone())
        .clock(clock.clone())
        .role_models(RoleModels::default())
        .open()
        .await
        .expect("open platform");
    let (addr, _task) = spawn(
        platform.clone(),
        ServeConfig {
            bind: "127.0.0.1:0".parse().expect("addr"),
            api_key: KEY.into(),
            ui_dir: None,
            patrol: PatrolControl::new(
                config.map(|config| PatrolAgent::spawn(platform.clone(), config)),
            ),
        },
    )
    .await
    .expect("spawn server");
    App {
        base: format!("http://{addr}"),
        http: reqwest::Client::new(),
        clock,
        platform,
        dir,
        database_url,
    }
}

impl App {
    /// Sends `req` with the API key; the status and the body (JSON, or the
    /// text as a JSON string).
    pub async fn send(&self, req: reqwest::RequestBuilder) -> (StatusCode, Value) {
        let res = req.header("X-API-Key", KEY).send().await.expect("request");
        let status = res.status();
        let text = res.text().await.expect("body");
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body)
    }

    pub async fn get(&self, path: &str) -> (StatusCode, Value) {
        self.send(self.http.get(format!("{}{path}", self.base)))
            .await
    }

    pub async fn post(&self, path: &str, body: Value) -> (StatusCode, Value) {
        self.send(self.http.post(format!("{}{path}", self.base)).json(&body))
            .await
    }
}

/// Loads a one-turn scenario and returns its id.
pub fn hello_scenario(app: &App) -> &'static str {
    let scenario = serde_json::from_value(serde_json::json!({
        "id": "test.hello", "title": "hello", "pack": "test", "turns": [{"user": "hello"}],
        "source_file": "(test)", "source_line": 1, "content_hash": "test",
    }))
    .expect("a scenario");
    app.platform.scenarios.insert_all([scenario]);
    "test.hello"
}

/// Every file under `dir`, in its subfolders too.
pub fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}
