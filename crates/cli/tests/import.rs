//! `agenteval import otlp` on traces the official OpenTelemetry Python SDK
//! made with the GenAI conventions (`tests/otlp/genai_traces.py`, the SDK
//! pinned in `scripts/python-venv.sh`), plus a hand-broken line: the
//! conversations rebuilt, personal data redacted, the broken line named;
//! a draft that `agenteval scenarios check` accepts; seeds with their
//! traces as lineage.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

use support::{bin, ok};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The SDK's python, its venv made once (from PyPI) by the project's script.
fn python() -> String {
    let out = Command::new("bash")
        .arg(root().join("scripts/python-venv.sh"))
        .arg("otel")
        .output()
        .expect("scripts/python-venv.sh otel");
    ok(out, "the OpenTelemetry SDK's venv").trim().to_string()
}

/// OTLP/JSON from the SDK, then a line a hand broke.
fn traces(dir: &Path) -> PathBuf {
    let file = dir.join("traces.jsonl");
    ok(
        Command::new(python())
            .arg(root().join("tests/otlp/genai_traces.py"))
            .arg("file")
            .arg(&file)
            .output()
            .expect("genai_traces.py"),
        "the SDK writes the traces",
    );
    let mut text = std::fs::read_to_string(&file).expect("traces");
    assert_eq!(text.lines().count(), 2, "one export a trace");
    text.push_str("{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [{\"traceId\": \n");
    std::fs::write(&file, text).expect("write");
    file
}

#[test]
fn sdk_traces_become_conversations_a_scenario_and_seeds() {
    let dir = tempfile::tempdir().expect("tmp");
    let data = dir.path().join("data");
    let file = traces(dir.path());
    let import = |lang: &str| {
        bin()
            .args(["--lang", lang, "import", "otlp", "--redact", "--data-dir"])
            .arg(&data)
            .arg(&file)
            .output()
            .expect("import")
    };
    let summary = ok(import("en"), "import");
    assert!(
        summary.contains("2 conversations (3 user turns, 10 messages) from 4 GenAI spans"),
        "{summary}"
    );
    assert!(
        summary.contains("[email] ×1") && summary.contains("[phone] ×2"),
        "{summary}"
    );
    assert!(
        summary.contains("Line 3: the JSON ends at column"),
        "the broken line is named and skipped: {summary}"
    );
    let again = ok(import("zh"), "import again");
    assert!(again.contains("重建了 2 段对话"), "{again}");

    let listed = ok(
        bin()
            .args(["import", "list", "--data-dir"])
            .arg(&data)
            .output()
            .expect("list"),
        "list",
    );
    let rows: Vec<&str> = listed.lines().collect();
    assert_eq!(rows.len(), 2, "imported twice, kept once: {listed}");
    let id_of = |words: &str| {
        rows.iter()
            .find(|r| r.contains(words))
            .unwrap_or_else(|| panic!("{words} in {listed}"))
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };
    let (en, zh) = (id_of("Where is order A1024?"), id_of("退款什么时候到账"));
    assert!(
        listed.contains("[email]") && !listed.contains("ada@example.com"),
        "{listed}"
    );

    // A draft, saved among the user's packs, that scenarios check accepts.
    let yaml = ok(
        bin()
            .args([
                "--lang",
                "en",
                "import",
                "draft",
                &en,
                "--save",
                "--data-dir",
            ])
            .arg(&data)
            .output()
            .expect("draft"),
        "draft",
    );
    let file: Value = serde_yaml_ng::from_str(&yaml).expect("a pack file");
    let scenario = &file["scenarios"][0];
    assert_eq!(
        scenario["turns"][0]["checks"][0]["type"], "tool_called",
        "{yaml}"
    );
    assert_eq!(
        scenario["turns"][0]["checks"][0]["name"], "get_order",
        "{yaml}"
    );
    assert_eq!(scenario["from_traces"]["key"], "conv-en");
    assert_eq!(
        scenario["from_traces"]["trace_ids"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    ok(
        bin()
            .args(["scenarios", "check"])
            .arg(data.join("scenarios/production"))
            .output()
            .expect("check"),
        "scenarios check accepts the drafted pack",
    );
    let zh_yaml = ok(
        bin()
            .args(["--lang", "zh", "import", "draft", &zh, "--data-dir"])
            .arg(&data)
            .output()
            .expect("draft"),
        "draft zh",
    );
    let zh_file: Value = serde_yaml_ng::from_str(&zh_yaml).expect("a pack file");
    let turns = zh_file["scenarios"][0]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2, "{zh_yaml}");
    assert_eq!(
        turns[0]["checks"][0]["type"], "asks_clarification",
        "{zh_yaml}"
    );

    // Seeds: the facts the user gave that the tool call used, the lineage.
    let seeds: Value = serde_json::from_str(&ok(
        bin()
            .args(["import", "seeds", &en, &zh, "--data-dir"])
            .arg(&data)
            .output()
            .expect("seeds"),
        "seeds",
    ))
    .expect("a seed set");
    assert_eq!(seeds["goals"][0]["slots"]["order_id"], "A1024", "{seeds}");
    assert_eq!(seeds["goals"][0]["lineage"]["keys"][0], "conv-en");
    assert_eq!(seeds["personas"][1]["language"], "zh");
    assert_eq!(
        seeds["personas"][1]["patience"], 3,
        "the user never had to repeat"
    );
}

#[test]
fn a_file_with_nothing_readable_fails_and_says_why() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("broken.json");
    std::fs::write(&file, "not json\n{\"metrics\": []}\n").expect("write");
    let out = bin()
        .args(["--lang", "en", "import", "otlp", "--data-dir"])
        .arg(dir.path().join("data"))
        .arg(&file)
        .output()
        .expect("import");
    assert!(!out.status.success(), "nothing could be read");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Line 1: not JSON (at column 2)"),
        "{stdout}"
    );
    assert!(stdout.contains("Line 2: no resourceSpans"), "{stdout}");
}

/// The SDK's own OTLP/HTTP exporter (protobuf) sends each span as it ends
/// to `agenteval serve`'s `/v1/traces`: the conversations are rebuilt
/// across the requests, redacted, and listed by the API; a viewer's key
/// is refused, and a body that is no export is a 400 that says why.
#[tokio::test]
async fn the_sdks_otlp_http_exporter_feeds_the_receiver() {
    const KEY: &str = "receiver-test-key";
    let dir = tempfile::tempdir().expect("tmp");
    let data = dir.path().join("data");
    let log_path = dir.path().join("serve.log");
    let log = std::fs::File::create(&log_path).expect("log");
    let port = support::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut server = support::serve(&data, KEY, port, log)
        .spawn()
        .expect("agenteval serve");
    let http = reqwest::Client::new();
    support::wait_healthy(&http, &base, &mut server, &log_path).await;

    let sent = Command::new(python())
        .arg(root().join("tests/otlp/genai_traces.py"))
        .args(["http", &base, KEY])
        .output()
        .expect("genai_traces.py http");
    ok(sent, "the SDK exports to the receiver");

    let page: Value = http
        .get(format!("{base}/api/traces/conversations"))
        .header("X-API-Key", KEY)
        .send()
        .await
        .expect("list")
        .json()
        .await
        .expect("json");
    assert_eq!(
        page["total"], 2,
        "one conversation each, rebuilt across one request a span: {page}"
    );
    let en = page["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["key"] == "conv-en")
        .expect("conv-en");
    assert_eq!(
        en["messages"], 5,
        "system, user, tool call, tool result, answer: {en}"
    );
    assert_eq!(en["source"], "otlp-http");
    assert!(
        en["first_user"].as_str().unwrap().contains("[email]"),
        "the receiver redacts unless told not to: {en}"
    );

    // A body that is no export: 400, in words.
    let refused = http
        .post(format!("{base}/v1/traces"))
        .header("X-API-Key", KEY)
        .header("Content-Type", "application/x-protobuf")
        .body(vec![0xff, 0xff, 0x01])
        .send()
        .await
        .expect("post");
    assert_eq!(refused.status(), 400);
    let body: Value = refused.json().await.expect("json");
    assert_eq!(body["code"], "INVALID_INPUT", "{body}");
    let empty = http
        .post(format!("{base}/v1/traces"))
        .header("X-API-Key", KEY)
        .header("Content-Type", "application/json")
        .body("  \n")
        .send()
        .await
        .expect("post");
    assert_eq!(empty.status(), 400, "an empty body is no import");

    // A chat span without messages beside a readable one: kept what could
    // be read, the skipped span counted as OTLP's rejected spans.
    let chat = |span: &str, messages: Option<&str>| {
        let mut attributes =
            vec![json!({"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}})];
        if let Some(m) = messages {
            attributes.push(json!({"key": "gen_ai.input.messages", "value": {"stringValue": m}}));
        }
        json!({"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": span, "name": format!("chat {span}"),
            "startTimeUnixNano": "1", "endTimeUnixNano": "2", "attributes": attributes})
    };
    let said = r#"[{"role": "user", "parts": [{"type": "text", "content": "hello"}]}]"#;
    let export = json!({"resourceSpans": [{"scopeSpans": [{"spans": [
        chat("00f067aa0ba902b7", Some(said)), chat("00f067aa0ba902b8", None)]}]}]});
    let partial: Value = http
        .post(format!("{base}/v1/traces"))
        .header("X-API-Key", KEY)
        .header("Content-Type", "application/json")
        .body(export.to_string())
        .send()
        .await
        .expect("post")
        .json()
        .await
        .expect("json");
    assert_eq!(partial["partialSuccess"]["rejectedSpans"], 1, "{partial}");
    assert!(
        partial["partialSuccess"]["errorMessage"]
            .as_str()
            .unwrap()
            .contains("00f067aa0ba902b8"),
        "the skipped span named: {partial}"
    );

    // A viewer reads, but cannot write traces.
    let created = ok(
        bin()
            .args([
                "keys",
                "create",
                "--name",
                "reader",
                "--role",
                "viewer",
                "--data-dir",
            ])
            .arg(&data)
            .output()
            .expect("keys create"),
        "a viewer key",
    );
    let viewer = created.trim();
    let forbidden = http
        .post(format!("{base}/v1/traces"))
        .header("X-API-Key", viewer)
        .header("Content-Type", "application/json")
        .body("{}")
        .send()
        .await
        .expect("post");
    assert_eq!(forbidden.status(), 403);
    let _ = server.kill();
}
