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

#[path = "../../../store/tests/support/postgres.rs"]
mod postgres;

use postgres::test_database_url;

pub struct App {
    pub base: String,
    pub http: reqwest::Client,
    pub clock: Arc<ManualClock>,
    pub platform: Arc<Platform>,
    pub dir: tempfile::TempDir,
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
    let dir = tempfile::tempdir().expect("temp dir");
    let clock = Arc::new(ManualClock::new(t0()));
    let platform = Platform::builder(dir.path())
        .database_url(test_database_url().await)
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
