//! Agents that act: the engine plays the tools a pack declares, answers
//! every call, and checks read the steps. Every test talks to a strict
//! OpenAI-compatible server that refuses, as OpenAI does, a request whose
//! tool messages do not answer the calls before them; the requests it
//! accepted are then sent again through the official `openai` Python SDK.

use crate::strict_server::{Agent, StrictServer, call, last_user, play_once, turn_results};
use crate::support::{TestPlatform, platform};
use agenteval_engine::domain::steps::StepAnswer;
use agenteval_engine::fixed::{CheckResult, Run, RunTurn, Verdict};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// The office tools of the tests, with their declared responses.
const TOOLS: &str = r#"
defaults:
  tools:
    - name: FILE_LIST
      description: List the files of a folder.
      parameters: {type: object, required: [directory], properties: {directory: {type: string}}}
      responses:
        - result: {files: [2025Q4_sales.xlsx, notes.md]}
    - name: DATA_QUERY
      description: Query and aggregate a spreadsheet.
      parameters: {type: object, required: [file_path], properties: {file_path: {type: string}, group_by: {type: array, items: {type: string}}}}
      responses:
        - when: {file_path: 2025Q4_sales.xlsx}
          result: {rows_returned: 2, total_rows: 2, columns: [区域, 销售额], sample_data: [{区域: 华东, 销售额: 1280}, {区域: 华南, 销售额: 1310}]}
        - error: {code: FILE_NOT_FOUND, message: 文件不存在, suggestion: 先调用 FILE_LIST 查看可用文件}
    - name: DOC_CREATE
      description: Create a document.
      parameters: {type: object, required: [sections], properties: {sections: {type: array}}}
      responses:
        - result: {doc_id: doc-1, status: created}
    - name: send_email
      description: Send an email (the call is what is checked).
      parameters: {type: object, required: [to], properties: {to: {type: string}}}
"#;

/// A platform with the pack `scenarios` (YAML under `scenarios:`), a
/// target at the strict server, and one run of `scenario` played.
struct Played {
    _tp: TestPlatform,
    run: Run,
    turns: Vec<RunTurn>,
}

impl Played {
    fn failed(&self) -> Vec<&CheckResult> {
        self.run
            .check_results
            .iter()
            .filter(|c| !c.passed)
            .collect()
    }

    fn check(&self, kind: &str) -> &CheckResult {
        self.run
            .check_results
            .iter()
            .find(|c| c.kind == kind)
            .unwrap_or_else(|| panic!("no {kind} result in {:?}", self.run.check_results))
    }

    /// The steps of the target turn `n` (0-based among target turns).
    fn steps(&self, n: usize) -> &[agenteval_engine::domain::steps::Step] {
        &self
            .turns
            .iter()
            .filter(|t| t.role == "target")
            .nth(n)
            .expect("target turn")
            .steps
    }
}

async fn play(server: &StrictServer, scenarios: &str, scenario: &str) -> Played {
    let tp = platform().await;
    let pack = format!("{TOOLS}\nscenarios:\n{scenarios}");
    let (_, run, turns) = play_once(&tp.platform, &pack, &server.base_url(), scenario).await;
    assert!(
        server.refused().is_empty(),
        "the strict server refused a request: {:?}",
        server.refused()
    );
    keep_for_the_sdk(server);
    Played {
        _tp: tp,
        run,
        turns,
    }
}

/// The requests accepted so far, for the SDK test.
static SENT: Mutex<Vec<Value>> = Mutex::new(Vec::new());

fn keep_for_the_sdk(server: &StrictServer) {
    SENT.lock().unwrap().extend(server.accepted());
}

fn agent(f: impl Fn(&[Value]) -> Value + Send + Sync + 'static) -> Agent {
    Arc::new(f)
}

/// An agent that lists, queries the file the listing names, creates a
/// document and answers from the query's result: three steps.
fn three_step_agent() -> Agent {
    agent(|messages| {
        let results = turn_results(messages);
        match results.len() {
            0 => {
                json!({"content": "", "tool_calls": [call("c1", "FILE_LIST", json!({"directory": "."}))]})
            }
            1 => {
                let file = results[0]["files"][0]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                json!({"tool_calls": [call("c2", "DATA_QUERY", json!({"file_path": file, "group_by": ["区域"]}))]})
            }
            2 => {
                json!({"content": "", "tool_calls": [call("c3", "DOC_CREATE", json!({"sections": [{"title": "销售"}]}))]})
            }
            _ => {
                let rows = results[1]["sample_data"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                let figures: Vec<String> = rows
                    .iter()
                    .map(|r| format!("{} {}", r["区域"].as_str().unwrap_or_default(), r["销售额"]))
                    .collect();
                json!({"content": format!("已生成报告：{}", figures.join("，"))})
            }
        }
    })
}

const THREE_STEPS: &str = r#"
  - id: report
    title: 销售报告
    turns:
      - user: 根据销售表写一份报告
        checks:
          - {type: tool_sequence, calls: [{name: FILE_LIST}, {name: DATA_QUERY, arguments: {file_path: 2025Q4_sales.xlsx}}, {name: DOC_CREATE}], order: exact}
          - {type: tool_called, name: DOC_CREATE}
          - {type: no_unknown_tools}
          - {type: recovers_from_error}
          - {type: no_unverified_numbers}
          - {type: contains, value: "1310"}
"#;

#[tokio::test]
async fn a_three_step_task_is_played_to_its_answer_and_passes() {
    let server = StrictServer::start(three_step_agent()).await;
    let played = play(&server, THREE_STEPS, "report").await;
    assert_eq!(
        played.run.verdict,
        Some(Verdict::Passed),
        "{:?}",
        played.failed()
    );
    let steps = played.steps(0);
    let names: Vec<&str> = steps.iter().map(|s| s.call.name.as_str()).collect();
    assert_eq!(names, ["FILE_LIST", "DATA_QUERY", "DOC_CREATE"]);
    assert_eq!(steps.iter().map(|s| s.round).collect::<Vec<_>>(), [1, 2, 3]);
    assert!(matches!(&steps[1].answer, StepAnswer::Result(v) if v["total_rows"] == 2));
    let reply = played.turns.last().unwrap();
    assert_eq!(reply.content, "已生成报告：华东 1280，华南 1310");
    assert_eq!(
        reply.tokens_in,
        Some(40),
        "the turn's tokens are its four replies'"
    );
    let sent = server.accepted();
    assert_eq!(sent.len(), 4, "one request a round, then the answer");
    let last = sent[3]["messages"].as_array().unwrap();
    let roles: Vec<&str> = last.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
            "assistant",
            "tool"
        ],
        "each call answered right after the message that made it"
    );
    assert_eq!(last[4]["tool_call_id"], "c2");
    let data: Value = serde_json::from_str(last[4]["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        data["sample_data"][1]["销售额"], 1310,
        "the declared result, as JSON text"
    );
}

/// Turn 1 calls a tool the engine does not play: the call ends the turn.
/// Turn 2 must still send a tool message for it before the user speaks.
fn email_then_report_agent() -> Agent {
    let three = three_step_agent();
    agent(move |messages| {
        if last_user(messages).contains("邮件") {
            json!({"content": "", "tool_calls": [call("mail1", "send_email", json!({"to": "a@b.cn"}))]})
        } else {
            three(messages)
        }
    })
}

const TWO_TURNS: &str = r#"
  - id: two_turns
    title: 两轮
    turns:
      - user: 先发一封邮件给 a@b.cn
        checks: [{type: tool_called, name: send_email}]
      - user: 再根据销售表写一份报告
        checks:
          - {type: tool_sequence, calls: [{name: FILE_LIST}, {name: DATA_QUERY}, {name: DOC_CREATE}]}
          - {type: no_unverified_numbers}
"#;

#[tokio::test]
async fn a_turn_after_a_tool_call_carries_the_calls_answer() {
    let server = StrictServer::start(email_then_report_agent()).await;
    let played = play(&server, TWO_TURNS, "two_turns").await;
    assert_eq!(
        played.run.verdict,
        Some(Verdict::Passed),
        "{:?}",
        played.failed()
    );
    let first = played.steps(0);
    assert_eq!(
        first.len(),
        1,
        "the call turn 1 ended on is answered before turn 2"
    );
    assert!(matches!(&first[0].answer, StepAnswer::Error(e) if e.code == "NO_RESPONSE"));
    assert_eq!(played.steps(1).len(), 3);
    let second_turn = &server.accepted()[1]["messages"];
    assert_eq!(second_turn[1]["tool_calls"][0]["id"], "mail1");
    assert_eq!(second_turn[2]["role"], "tool");
    assert_eq!(second_turn[3]["role"], "user");
}

/// An agent that asks for a file that is not there, then either follows
/// the error's suggestion or repeats the failing call.
fn error_agent(follows: bool) -> Agent {
    agent(move |messages| {
        let results = turn_results(messages);
        let failed = |v: &Value| v["status"]["code"] == "FILE_NOT_FOUND";
        match results.last() {
            None => {
                json!({"tool_calls": [call("q1", "DATA_QUERY", json!({"file_path": "sales.xlsx"}))]})
            }
            Some(r) if failed(r) && follows => {
                json!({"tool_calls": [call("l1", "FILE_LIST", json!({"directory": "."}))]})
            }
            Some(r) if failed(r) && results.len() < 2 => {
                json!({"tool_calls": [call("q2", "DATA_QUERY", json!({"file_path": "sales.xlsx"}))]})
            }
            Some(r) if r.get("files").is_some() => {
                json!({"tool_calls": [call("q3", "DATA_QUERY", json!({"file_path": "2025Q4_sales.xlsx"}))]})
            }
            Some(_) => json!({"content": "华南销售额最高：1310"}),
        }
    })
}

const RECOVERY: &str = r#"
  - id: recovery
    title: 文件不存在时按建议恢复
    turns:
      - user: 查一下 sales.xlsx 里哪个区域最高
        checks:
          - {type: recovers_from_error}
          - {type: tool_sequence, calls: [{name: FILE_LIST}, {name: DATA_QUERY, arguments: {file_path: 2025Q4_sales.xlsx}}]}
"#;

#[tokio::test]
async fn an_injected_error_followed_passes_and_ignored_fails_at_the_repeated_step() {
    let server = StrictServer::start(error_agent(true)).await;
    let followed = play(&server, RECOVERY, "recovery").await;
    assert_eq!(
        followed.run.verdict,
        Some(Verdict::Passed),
        "{:?}",
        followed.failed()
    );
    let steps = followed.steps(0);
    assert!(matches!(&steps[0].answer, StepAnswer::Error(e)
        if e.code == "FILE_NOT_FOUND" && e.suggestion.contains("FILE_LIST")));
    let sent = &server.accepted()[1]["messages"][2];
    let status: Value = serde_json::from_str(sent["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        status["status"]["suggestion"], "先调用 FILE_LIST 查看可用文件",
        "the error goes to the agent in seed 002's shape"
    );

    let server = StrictServer::start(error_agent(false)).await;
    let ignored = play(&server, RECOVERY, "recovery").await;
    assert_eq!(ignored.run.verdict, Some(Verdict::Failed));
    let recovery = ignored.check("recovers_from_error");
    assert!(!recovery.passed);
    assert_eq!(
        recovery.step,
        Some(2),
        "the repeat of step 1's failing call"
    );
    let en = recovery.detail.render(agenteval_engine::Lang::En);
    assert!(
        en.contains("step 2") && en.contains("FILE_NOT_FOUND"),
        "{en}"
    );
    let zh = recovery.detail.render(agenteval_engine::Lang::Zh);
    assert!(zh.contains("第 2 步"), "{zh}");
}

#[tokio::test]
async fn a_target_that_never_stops_calling_tools_fails_at_the_step_limit() {
    let server = StrictServer::start(agent(|messages| {
        let n = turn_results(messages).len();
        json!({"tool_calls": [call(&format!("c{n}"), "FILE_LIST", json!({"directory": "."}))]})
    }))
    .await;
    let scenarios = r#"
  - id: loop
    title: 停不下来
    max_steps: 3
    turns:
      - user: 列出文件
        checks: [{type: contains, value: xlsx}]
      - user: never sent
"#;
    let played = play(&server, scenarios, "loop").await;
    assert_eq!(
        played.run.verdict,
        Some(Verdict::Failed),
        "a step limit fails, never errors"
    );
    assert_eq!(played.run.error_reason, None);
    let limit = played.check("max_steps");
    assert_eq!(
        limit.detail.render(agenteval_engine::Lang::En),
        "step limit reached (3 tool rounds): the target was still calling tools"
    );
    assert_eq!(played.steps(0).len(), 3, "three rounds answered");
    assert_eq!(
        server.accepted().len(),
        4,
        "the fourth reply still called a tool"
    );
    assert_eq!(
        played.turns.iter().filter(|t| t.role == "user").count(),
        1,
        "the run ended at the limit: turn 2 was never sent"
    );
    assert!(!played.run.metrics.as_ref().unwrap().completed);
}

#[tokio::test]
async fn the_steps_before_a_target_failure_are_kept_with_the_run() {
    let server = StrictServer::start(agent(|messages| match turn_results(messages).len() {
        0 => json!({"tool_calls": [call("c0", "FILE_LIST", json!({"directory": "."}))]}),
        _ => json!({"__fail": true}),
    }))
    .await;
    let scenarios = r#"
  - id: breaks
    title: 中途出错
    turns:
      - user: 列出文件
"#;
    let played = play(&server, scenarios, "breaks").await;
    assert_eq!(played.run.verdict, Some(Verdict::Error));
    let steps = played.steps(0);
    assert_eq!(steps.len(), 1, "the round answered before the failure");
    assert_eq!(steps[0].call.name, "FILE_LIST");
}

/// An agent that calls a tool not offered, then one with arguments of the
/// wrong type, then arguments that are not JSON, then the right call.
fn unknown_agent() -> Agent {
    agent(|messages| {
        let results = turn_results(messages);
        match results.len() {
            0 => json!({"tool_calls": [call("u1", "EXCEL_MAGIC", json!({}))]}),
            1 => json!({"tool_calls": [call("i1", "DATA_QUERY", json!({"file_path": 5}))]}),
            2 => {
                json!({"tool_calls": [{"id": "i2", "type": "function", "function": {"name": "DATA_QUERY", "arguments": "{file_path: oops"}}]})
            }
            3 => {
                json!({"tool_calls": [call("ok", "DATA_QUERY", json!({"file_path": "2025Q4_sales.xlsx"}))]})
            }
            _ => json!({"content": "华东 1280"}),
        }
    })
}

const UNKNOWN: &str = r#"
  - id: unknown
    title: 未知工具
    turns:
      - user: 查华东销售额
        checks: [{type: no_unknown_tools}, {type: tool_not_called, name: DOC_CREATE}, {type: no_unverified_numbers}]
"#;

#[tokio::test]
async fn unknown_tools_and_invalid_arguments_are_answered_so_the_agent_can_fix_them() {
    let server = StrictServer::start(unknown_agent()).await;
    let played = play(&server, UNKNOWN, "unknown").await;
    let steps = played.steps(0);
    let codes: Vec<String> = steps
        .iter()
        .map(|s| s.answer.error().map_or("ok".into(), |e| e.code.clone()))
        .collect();
    assert_eq!(
        codes,
        [
            "UNKNOWN_TOOL",
            "INVALID_ARGUMENTS",
            "INVALID_ARGUMENTS",
            "ok"
        ]
    );
    let unknown = steps[0].answer.error().unwrap();
    assert!(
        unknown.suggestion.contains("DATA_QUERY"),
        "names the offered tools: {unknown:?}"
    );
    let invalid = steps[1].answer.error().unwrap();
    assert!(
        invalid.message.contains("/file_path"),
        "names the schema error: {invalid:?}"
    );
    assert!(
        steps[2]
            .answer
            .error()
            .unwrap()
            .message
            .contains("not a JSON object")
    );
    let check = played.check("no_unknown_tools");
    assert!(!check.passed);
    assert_eq!(check.step, Some(1));
    assert!(played.check("tool_not_called").passed);
    assert!(played.check("no_unverified_numbers").passed);
    let sent = server.accepted();
    assert_eq!(
        sent[3]["messages"][5]["tool_calls"][0]["function"]["arguments"], "{file_path: oops",
        "invalid arguments go back as the target sent them"
    );
}

#[tokio::test]
async fn several_calls_in_one_reply_are_all_answered_in_order() {
    let server = StrictServer::start(agent(|messages| {
        let results = turn_results(messages);
        if results.is_empty() {
            json!({"tool_calls": [
                call("a", "FILE_LIST", json!({"directory": "."})),
                call("b", "DATA_QUERY", json!({"file_path": "2025Q4_sales.xlsx"})),
                call("c", "DATA_QUERY", json!({"file_path": "missing.xlsx"})),
            ]})
        } else {
            json!({"content": "华南 1310，华东 1280，合计 2590"})
        }
    }))
    .await;
    let scenarios = r#"
  - id: parallel
    title: 一次多个调用
    turns:
      - user: 列出文件并查询
        checks:
          - {type: tool_sequence, calls: [{name: DATA_QUERY}, {name: FILE_LIST}], order: any_order}
          - {type: no_unverified_numbers}
"#;
    let played = play(&server, scenarios, "parallel").await;
    let steps = played.steps(0);
    assert_eq!(
        steps.iter().map(|s| s.call.id.as_str()).collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
    assert!(steps.iter().all(|s| s.round == 1), "one reply, one round");
    let last = &server.accepted()[1]["messages"];
    let ids: Vec<&str> = (2..5)
        .map(|i| last[i]["tool_call_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["a", "b", "c"],
        "one tool message per call, in the calls' order"
    );
    assert!(played.check("tool_sequence").passed);
    let gate = played.check("no_unverified_numbers");
    assert!(!gate.passed, "2590 was computed, not returned by a tool");
    let en = gate.detail.render(agenteval_engine::Lang::En);
    assert!(en.contains("2590") && !en.contains("1310"), "{en}");
}

#[tokio::test]
async fn the_official_openai_sdk_accepts_every_request_the_engine_sent() {
    // Every scenario above, played again here so that this test does not
    // depend on the order tests run in.
    let cases: Vec<(Agent, &str, &str)> = vec![
        (three_step_agent(), THREE_STEPS, "report"),
        (error_agent(false), RECOVERY, "recovery"),
        (email_then_report_agent(), TWO_TURNS, "two_turns"),
        (unknown_agent(), UNKNOWN, "unknown"),
    ];
    for (agent, scenarios, id) in cases {
        let server = StrictServer::start(agent).await;
        play(&server, scenarios, id).await;
    }
    let sent: Vec<Value> = SENT.lock().unwrap().clone();
    assert!(sent.len() >= 16, "requests to replay: {}", sent.len());
    let server = StrictServer::start(three_step_agent()).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("requests.jsonl");
    let lines: Vec<String> = sent.iter().map(Value::to_string).collect();
    std::fs::write(&file, lines.join("\n")).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // Awaited: the servers run on this test's runtime.
    let venv = tokio::process::Command::new("bash")
        .arg(root.join("scripts/python-venv.sh"))
        .arg("openai")
        .output()
        .await
        .expect("scripts/python-venv.sh openai");
    assert!(
        venv.status.success(),
        "{}",
        String::from_utf8_lossy(&venv.stderr)
    );
    let python = String::from_utf8(venv.stdout).unwrap().trim().to_string();
    let out = tokio::process::Command::new(python)
        .arg(root.join("tests/openai/replay.py"))
        .arg(&file)
        .arg(server.base_url())
        .output()
        .await
        .expect("replay.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("replayed {} requests", sent.len())),
        "{stdout}"
    );
    assert!(server.refused().is_empty(), "{:?}", server.refused());
    assert_eq!(server.accepted().len(), sent.len());
}
