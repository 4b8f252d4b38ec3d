//! A data folder that has become read-only (a read-only mount, a disk
//! remounted read-only after an error): `agenteval serve` killed mid-
//! campaign, the folder remounted read-only, and the server started on it
//! again. It starts, says so, answers every read with what was committed
//! before the kill, and refuses every write with 503 `DATABASE_UNAVAILABLE`
//! in the caller's language, changing nothing. Writable again, the next
//! start carries on where the campaign was.
//!
//! The folder is a tmpfs of its own, remounted read-only: the test command
//! runs as root, for whom file permissions would not say no.

mod support;

use serde_json::{Value, json};
use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;
use support::free_port;

const KEY: &str = "read-only-test-key";

/// A tmpfs mounted on a folder, unmounted when dropped.
struct Mount(std::path::PathBuf);

impl Mount {
    fn tmpfs(at: &Path) -> Self {
        mount(&["-t", "tmpfs", "-o", "size=64m", "tmpfs"], at);
        Self(at.to_path_buf())
    }

    fn remount(&self, mode: &str) {
        mount(&["-o", &format!("remount,{mode}")], &self.0);
    }
}

fn mount(args: &[&str], at: &Path) {
    let status = Command::new("mount")
        .args(args)
        .arg(at)
        .status()
        .expect("run mount");
    assert!(
        status.success(),
        "mount {args:?} needs root (the test command runs as root)"
    );
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// A server killed when dropped.
struct Serve {
    child: Child,
    base: String,
    http: reqwest::Client,
}

impl Serve {
    async fn start(data: &Path, log: &Path) -> Self {
        let port = free_port();
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("log file");
        let mut child = support::serve(data, KEY, port, file)
            .spawn()
            .expect("start agenteval serve");
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::new();
        support::wait_healthy(&http, &base, &mut child, log).await;
        Self { child, base, http }
    }

    async fn send(&self, req: reqwest::RequestBuilder) -> (u16, Value, Option<String>) {
        let res = req
            .header("X-API-Key", KEY)
            .header("Accept-Language", "zh-CN")
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .expect("request");
        let status = res.status().as_u16();
        let retry = res
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_string());
        let body = res.json().await.unwrap_or(Value::Null);
        (status, body, retry)
    }

    async fn get(&self, path: &str) -> (u16, Value) {
        let (s, v, _) = self
            .send(self.http.get(format!("{}{path}", self.base)))
            .await;
        (s, v)
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value, Option<String>) {
        self.send(self.http.post(format!("{}{path}", self.base)).json(&body))
            .await
    }

    fn kill(mut self) {
        self.child.kill().expect("kill");
        self.child.wait().expect("wait");
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the user said in a session, in order.
async fn said(serve: &Serve, session: &str) -> Vec<String> {
    let (s, transcript) = serve
        .get(&format!("/api/exploration/sessions/{session}/messages"))
        .await;
    assert_eq!(s, 200, "{transcript}");
    transcript["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_data_folder_answers_reads_and_refuses_writes_losing_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    std::fs::create_dir(&data).expect("data folder");
    let disk = Mount::tmpfs(&data);
    let log = dir.path().join("serve.log");

    // A campaign with a fixed part and a session, then the server killed
    // as a crash would: its write-ahead log is left behind.
    let serve = Serve::start(&data, &log).await;
    let (s, target, _) = serve
        .post(
            "/api/targets",
            json!({"name": "demo", "channel": {"kind": "builtin", "agent": "demo"}}),
        )
        .await;
    assert_eq!(s, 200, "{target}");
    let (s, campaign, _) = serve
        .post(
            "/api/campaigns",
            json!({"name": "只读", "target_id": target["id"], "duration_hours": 24,
                   "seed_set": {"personas": [{"id": "p", "name": "林"}], "goals": [{"id": "g", "title": "查订单"}]},
                   "budget": {"max_sessions": 5, "max_turns": 8, "min_interval_minutes": 0}}),
        )
        .await;
    assert_eq!(s, 200, "{campaign}");
    let campaign = campaign["id"].as_str().unwrap().to_string();
    let (s, session, _) = serve
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": campaign, "persona": {"name": "林"}, "goal": "查订单",
                   "trigger": "manual", "played_by": "person"}),
        )
        .await;
    assert_eq!(s, 200, "{session}");
    let session = session["id"].as_str().unwrap().to_string();
    let messages = format!("/api/exploration/sessions/{session}/messages");
    let (s, reply, _) = serve
        .post(&messages, json!({"content": "订单 A1024 到哪了？"}))
        .await;
    assert_eq!(s, 200, "{reply}");
    let (_, before) = serve.get(&format!("/api/campaigns/{campaign}")).await;
    serve.kill();
    assert!(
        data.join("agenteval.db-wal").exists(),
        "a killed server leaves its write-ahead log"
    );

    disk.remount("ro");
    let serve = Serve::start(&data, &log).await;
    let (s, health) = serve.get("/api/health").await;
    assert_eq!((s, health["database"].as_str()), (200, Some("read_only")));
    // Reads answer with everything committed before the kill.
    assert_eq!(said(&serve, &session).await, ["订单 A1024 到哪了？"]);
    let (s, now) = serve.get(&format!("/api/campaigns/{campaign}")).await;
    assert_eq!(s, 200, "{now}");
    assert_eq!(now["name"], before["name"]);
    assert_eq!(now["status"], before["status"]);
    let (s, report) = serve
        .get(&format!("/api/campaigns/{campaign}/report"))
        .await;
    assert_eq!(s, 200, "{report}");
    // Writes are refused at once, clearly, in the caller's language.
    for (path, body) in [
        (messages.clone(), json!({"content": "还没到吗？"})),
        (
            "/api/targets".to_string(),
            json!({"name": "another", "channel": {"kind": "builtin", "agent": "demo"}}),
        ),
    ] {
        let (s, refused, retry) = serve.post(&path, body).await;
        assert_eq!(s, 503, "{path}: {refused}");
        assert_eq!(refused["code"], "DATABASE_UNAVAILABLE", "{refused}");
        let message = refused["message"].as_str().unwrap();
        assert!(message.contains("只读"), "{message}");
        assert!(
            refused["suggestion"].as_str().unwrap().contains("重新启动"),
            "{refused}"
        );
        assert!(retry.is_some(), "{path}: Retry-After");
    }
    let log_text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        log_text.contains("read-only"),
        "the server says at start that the folder is read-only: {log_text}"
    );
    serve.kill();

    // Writable again: the campaign carries on, nothing refused was kept.
    disk.remount("rw");
    let serve = Serve::start(&data, &log).await;
    let (s, health) = serve.get("/api/health").await;
    assert_eq!((s, health["database"].as_str()), (200, Some("ok")));
    let (s, reply, _) = serve.post(&messages, json!({"content": "现在呢？"})).await;
    assert_eq!(s, 200, "{reply}");
    assert_eq!(
        said(&serve, &session).await,
        ["订单 A1024 到哪了？", "现在呢？"]
    );
    let (s, targets) = serve.get("/api/targets").await;
    assert_eq!(s, 200, "{targets}");
    assert_eq!(targets.as_array().map(Vec::len), Some(1), "{targets}");
    drop(serve);
    drop(disk);
}
