//! `agenteval run` over a pack whose tool declares responses, against a
//! small OpenAI-compatible agent on 127.0.0.1 that works in steps: it
//! queries the file the user names and, when the tool answers with an
//! error, repeats the identical failing call once before it apologises
//! (the flaw `recovers_from_error` catches). The exports show the steps.

use serde_json::{Value, json};
use std::path::Path;

mod support;

use support::bin;

/// The agent's next move, from the conversation of the request: the
/// tool messages after the user's latest message are its steps so far.
fn agent_reply(body: &Value) -> Value {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let user = messages
        .iter()
        .rposition(|m| m["role"] == "user")
        .unwrap_or(0);
    let ask = messages
        .get(user)
        .and_then(|m| m["content"].as_str())
        .unwrap_or("");
    let answers: Vec<&str> = messages[user..]
        .iter()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str())
        .collect();
    let file = ask
        .split_whitespace()
        .find(|w| w.ends_with(".xlsx"))
        .unwrap_or("");
    let failed = answers.last().is_some_and(|a| a.contains("FILE_NOT_FOUND"));
    let call = |n: usize| {
        json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [{
                "id": format!("call_{n}"),
                "type": "function",
                "function": {
                    "name": "DATA_QUERY",
                    "arguments": json!({ "file_path": file }).to_string(),
                },
            }],
        })
    };
    let say = |text: &str| json!({ "role": "assistant", "content": text });
    let message = if file.is_empty() {
        say("您好，请问需要查询哪个文件？")
    } else if answers.is_empty() || (failed && answers.len() < 2) {
        call(answers.len() + 1)
    } else if failed {
        say("抱歉，这个文件不存在，请确认文件名。")
    } else {
        say("华东 1280，华北 960，合计 2240。")
    };
    let reason = if message["tool_calls"].is_null() {
        "stop"
    } else {
        "tool_calls"
    };
    json!({
        "id": "chatcmpl-steps",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [{ "index": 0, "message": message, "finish_reason": reason }],
        "usage": { "prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30 },
    })
}

/// The agent on a free port of 127.0.0.1, served from a thread of its own
/// for as long as the test runs.
fn start_agent() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move {
            let app = axum::Router::new().route(
                "/v1/chat/completions",
                axum::routing::post(|axum::Json(body): axum::Json<Value>| async move {
                    axum::Json(agent_reply(&body))
                }),
            );
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            let _ = axum::serve(listener, app).await;
        });
    });
    port
}

/// A project in `dir`: a config pointed at `port` and a pack of two
/// scenarios over one tool, `DATA_QUERY`, that knows one file and answers
/// any other with `FILE_NOT_FOUND`.
fn project(dir: &Path, port: u16) {
    let config = format!(
        "name: steps\n\
         target:\n  kind: openai\n  base_url: http://127.0.0.1:{port}/v1\n  model: agenteval-demo\n  \
         concurrency: 2\n  timeout_ms: 15000\n\
         scenarios:\n  paths: [scenarios]\n\
         plan:\n  repeat: 1\n\
         gate:\n  min_pass_rate: 0.9\n\
         out_dir: out\n"
    );
    std::fs::write(dir.join("agenteval.yaml"), config).expect("config");
    let pack = r#"defaults:
  tags: [steps]
  system: 你是办公智能体，通过 DATA_QUERY 查询数据，回答中的数字只能来自工具结果。
  tools:
    - name: DATA_QUERY
      description: 对指定的 Excel/CSV 文件执行查询。
      parameters:
        type: object
        required: [file_path]
        properties:
          file_path: {type: string}
      responses:
        - when: {file_path: 2025Q4_sales.xlsx}
          result:
            columns: [区域, 销售额]
            sample_data:
              - {区域: 华东, 销售额: 1280}
              - {区域: 华北, 销售额: 960}
            totals: {销售额: 2240}
        - error:
            code: FILE_NOT_FOUND
            message: 文件不存在
            suggestion: 请向用户确认文件名
scenarios:
  - id: steps.known_file
    title: 查询存在的文件
    turns:
      - user: 帮我查询 2025Q4_sales.xlsx 的销售数据
        checks:
          - type: tool_sequence
            order: exact
            calls: [{name: DATA_QUERY, arguments: {file_path: 2025Q4_sales.xlsx}}]
          - type: recovers_from_error
  - id: steps.missing_file
    title: 查询不存在的文件
    turns:
      - user: 帮我查询 2024Q4_sales.xlsx 的销售数据
        checks:
          - type: tool_sequence
            order: exact
            calls: [{name: DATA_QUERY}]
          - type: recovers_from_error
"#;
    std::fs::create_dir_all(dir.join("scenarios")).expect("scenarios folder");
    std::fs::write(dir.join("scenarios/steps.yaml"), pack).expect("pack");
}

#[test]
fn the_exports_of_a_run_show_the_steps_and_junit_names_the_step() {
    let port = start_agent();
    let tmp = tempfile::tempdir().expect("tmp");
    let dir = tmp.path();
    project(dir, port);
    let out = bin()
        .current_dir(dir)
        .env("LANG", "zh_CN.UTF-8")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .args(["run", "--data-dir", "data"])
        .output()
        .expect("agenteval run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let why = format!("--- stdout\n{stdout}\n--- stderr\n{stderr}");
    assert_eq!(
        out.status.code(),
        Some(1),
        "one of two scenarios fails: {why}"
    );

    // JUnit: the failed checks by kind, each with the step it is about.
    let junit = std::fs::read_to_string(dir.join("out/junit.xml")).expect("junit.xml");
    assert!(
        junit.contains("recovers_from_error (step 2): "),
        "the repeated failing call is step 2: {junit}"
    );
    assert!(
        junit.contains("tool_sequence (step 2): "),
        "the call past the expected one is step 2: {junit}"
    );
    assert!(
        !junit.contains("steps.known_file #"),
        "the scenario that passed has no failure: {junit}"
    );

    // Markdown, in Chinese: the appendix with the failed run's steps.
    let md = std::fs::read_to_string(dir.join("out/report.md")).expect("report.md");
    let appendix = md
        .split("## 附录：未通过运行的步骤")
        .nth(1)
        .unwrap_or_else(|| panic!("the steps appendix: {md}"));
    assert!(appendix.contains("### 查询不存在的文件"), "{appendix}");
    assert!(
        appendix.contains("- 未通过：从工具错误中恢复，第 1 轮第 2 步："),
        "{appendix}"
    );
    assert!(appendix.contains("**第 1 轮**（2 步）"), "{appendix}");
    let failing = "`DATA_QUERY` `{\"file_path\":\"2024Q4_sales.xlsx\"}` → 错误 `FILE_NOT_FOUND`：“文件不存在”（建议：“请向用户确认文件名”）";
    assert!(appendix.contains(&format!("1. {failing}")), "{appendix}");
    assert!(appendix.contains(&format!("2. {failing}")), "{appendix}");
    assert!(
        !appendix.contains("查询存在的文件"),
        "a run that passed is not in the appendix: {appendix}"
    );

    // JSON: the report, and the failed run's steps turn by turn.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/report.json")).expect("json"))
            .expect("report.json is JSON");
    assert_eq!(json["fixed"]["failed"], 1, "still the report");
    let runs = json["failed_runs"].as_array().expect("failed_runs");
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["scenario_id"], "steps.missing_file");
    let steps = runs[0]["turns"][0]["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 2, "{steps:?}");
    for s in steps {
        assert_eq!(s["call"]["name"], "DATA_QUERY");
        assert_eq!(s["answer"]["kind"], "error");
        assert_eq!(s["answer"]["value"]["code"], "FILE_NOT_FOUND");
    }
    let at_step: Vec<(&str, u64)> = runs[0]["failed_checks"]
        .as_array()
        .expect("failed_checks")
        .iter()
        .filter_map(|c| Some((c["kind"].as_str()?, c["step"].as_u64()?)))
        .collect();
    assert!(at_step.contains(&("recovers_from_error", 2)), "{at_step:?}");

    // `agenteval export` from the stored data: the CSV's two last columns,
    // and the JSON with the same steps as the run's.
    let campaign = json["campaign"]["id"].as_str().expect("campaign id");
    let export = |format: &str| {
        let out = bin()
            .current_dir(dir)
            .env("LANG", "zh_CN.UTF-8")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .args(["export", "--data-dir", "data", "--campaign", campaign])
            .args(["--format", format])
            .output()
            .expect("agenteval export");
        assert!(out.status.success(), "export {format}: {out:?}");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let csv = export("csv");
    let mut lines = csv.lines();
    assert!(
        lines
            .next()
            .is_some_and(|h| h.ends_with(",failed_checks,steps,tools")),
        "{csv}"
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 2, "{csv}");
    assert!(
        rows.iter()
            .any(|r| r.contains("steps.known_file") && r.ends_with(",1,DATA_QUERY")),
        "{csv}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("steps.missing_file") && r.ends_with(",2,DATA_QUERY > DATA_QUERY")),
        "{csv}"
    );
    let exported: Value = serde_json::from_str(&export("json")).expect("JSON export");
    assert_eq!(exported["failed_runs"], json["failed_runs"]);
}
