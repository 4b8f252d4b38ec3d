//! The tool-simulator model: a call of a played tool that no declared
//! response matches is answered by the model when one is configured
//! (asked over real HTTP on 127.0.0.1 with the tool's schema, its declared
//! responses and the scenario's facts; the answer labelled as simulated),
//! and `NO_RESPONSE` when the model fails or answers unusably, the run
//! going on. The target is the strict OpenAI-compatible server.

use crate::fault_server::{Fault, FaultServer, completion};
use crate::strict_server::{Agent, StrictServer, call, play_once, turn_results};
use crate::support::{TestPlatform, platform};
use agenteval_engine::domain::steps::{Step, StepAnswer};
use agenteval_engine::fixed::{Run, RunTurn, Verdict};
use agenteval_engine::provenance::HostRole;
use agenteval_engine::role_models::{ModelConfig, RoleModels};
use serde_json::{Value, json};
use std::sync::Arc;

const PACK: &str = r#"
scenarios:
  - id: north
    title: 华北销售
    facts: ["华北区 2025Q4 销售额 990 万元"]
    tools:
      - name: DATA_QUERY
        description: Query and aggregate a spreadsheet.
        parameters: {type: object, required: [file_path], properties: {file_path: {type: string}}}
        responses:
          - when: {file_path: 2025Q4_sales.xlsx}
            result: {columns: [区域, 销售额], sample_data: [{区域: 华东, 销售额: 1280}]}
    turns:
      - user: 查一下 north.xlsx 里华北的销售额
        checks:
          - {type: tool_called, name: DATA_QUERY}
          - {type: contains, value: "华北"}
"#;

/// Queries a file no response is declared for, and a call with invalid
/// arguments, in one reply; then answers with what the query returned.
fn agent() -> Agent {
    Arc::new(|messages: &[Value]| {
        let results = turn_results(messages);
        match results.first() {
            None => json!({"content": "", "tool_calls": [
                call("q1", "DATA_QUERY", json!({"file_path": "north.xlsx"})),
                call("q2", "DATA_QUERY", json!({"path": "north.xlsx"})),
            ]}),
            Some(r) => json!({"content": format!("华北：{r}")}),
        }
    })
}

struct Played {
    tp: TestPlatform,
    campaign: agenteval_engine::CampaignId,
    run: Run,
    turns: Vec<RunTurn>,
}

impl Played {
    fn steps(&self) -> &[Step] {
        &self
            .turns
            .iter()
            .find(|t| t.role == "target")
            .expect("a target turn")
            .steps
    }
}

async fn play(target: &StrictServer, simulator: Option<&FaultServer>) -> Played {
    let tp = platform().await;
    tp.platform.set_role_models(RoleModels {
        tool_simulator: simulator.map(|s| ModelConfig {
            timeout_ms: Some(10_000),
            ..ModelConfig::new(s.base_url(), "tool-sim")
        }),
        ..RoleModels::default()
    });
    let (campaign, run, turns) = play_once(&tp.platform, PACK, &target.base_url(), "north").await;
    assert!(target.refused().is_empty(), "{:?}", target.refused());
    Played {
        campaign,
        tp,
        run,
        turns,
    }
}

#[tokio::test]
async fn an_unmatched_call_is_answered_by_the_simulator_and_labelled_simulated() {
    let target = StrictServer::start(agent()).await;
    let simulated = json!({"result": {"columns": ["区域", "销售额"], "sample_data": [{"区域": "华北", "销售额": 990}]}});
    let sim = FaultServer::start(vec![Fault::Ok(completion(&simulated.to_string()))]).await;
    let played = play(&target, Some(&sim)).await;
    assert_eq!(
        played.run.verdict,
        Some(Verdict::Passed),
        "{played:?}",
        played = played.run.check_results
    );

    let steps = played.steps();
    assert_eq!(steps.len(), 2);
    assert_eq!(
        steps[0].answer,
        StepAnswer::Simulated(simulated["result"].clone()),
        "the step says the answer was simulated"
    );
    assert!(steps[0].answer.is_simulated());
    assert!(
        matches!(&steps[1].answer, StepAnswer::Error(e) if e.code == "INVALID_ARGUMENTS"),
        "invalid arguments are the engine's to answer: {:?}",
        steps[1].answer
    );
    let stored = serde_json::to_value(&steps[0].answer).unwrap();
    assert_eq!(stored["kind"], "simulated");

    // The target received the simulated JSON as the tool message.
    let sent = target.accepted();
    let tool_msg = &sent[1]["messages"][2];
    assert_eq!(tool_msg["tool_call_id"], "q1");
    let content: Value = serde_json::from_str(tool_msg["content"].as_str().unwrap()).unwrap();
    assert_eq!(content, simulated["result"]);

    // One request to the simulator: not for the invalid call.
    assert_eq!(sim.attempts(), 1, "the engine answers invalid arguments");
    let asked = sim.requests()[0].json();
    assert_eq!(asked["model"], "tool-sim");
    assert_eq!(
        asked["response_format"]["json_schema"]["name"], "tool_answer",
        "structured output with the answer's schema: {asked}"
    );
    let input: Value = serde_json::from_str(
        asked["messages"].as_array().unwrap().last().unwrap()["content"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(input["tool"]["name"], "DATA_QUERY");
    assert_eq!(
        input["tool"]["parameters"]["required"],
        json!(["file_path"])
    );
    assert_eq!(input["arguments"], json!({"file_path": "north.xlsx"}));
    assert_eq!(input["facts"], json!(["华北区 2025Q4 销售额 990 万元"]));
    assert_eq!(
        input["declared_responses"][0]["when"],
        json!({"file_path": "2025Q4_sales.xlsx"})
    );

    // Provenance: the simulator's host, under its own role.
    let provenance = played
        .tp
        .platform
        .campaign_provenance(played.campaign)
        .await
        .unwrap();
    let host = sim.url("");
    assert!(
        provenance
            .hosts
            .iter()
            .any(|h| h.role == HostRole::ToolSimulator && h.host == host && h.requests == 1),
        "{:?}",
        provenance.hosts
    );
}

#[tokio::test]
async fn a_simulated_error_is_an_error_to_the_agent_and_the_checks() {
    let target = StrictServer::start(agent()).await;
    let answer = json!({"error": {"code": "FILE_NOT_FOUND", "message": "文件不存在", "suggestion": "先调用 FILE_LIST"}});
    let sim = FaultServer::start(vec![Fault::Ok(completion(&answer.to_string()))]).await;
    let played = play(&target, Some(&sim)).await;
    let steps = played.steps();
    assert!(
        matches!(&steps[0].answer, StepAnswer::SimulatedError(e) if e.code == "FILE_NOT_FOUND"),
        "{:?}",
        steps[0].answer
    );
    assert_eq!(steps[0].answer.error().unwrap().code, "FILE_NOT_FOUND");
    let sent = target.accepted();
    let content: Value =
        serde_json::from_str(sent[1]["messages"][2]["content"].as_str().unwrap()).unwrap();
    assert_eq!(
        content["status"]["code"], "FILE_NOT_FOUND",
        "seed 002's shape"
    );
}

#[tokio::test]
async fn a_failing_or_unusable_simulator_gives_no_response_and_the_run_goes_on() {
    for fault in [
        Fault::status(500, r#"{"error": {"message": "boom"}}"#),
        Fault::Ok(completion("I think the file has 990 rows.")),
        Fault::Ok(completion(r#"{"answer": 990}"#)),
    ] {
        let target = StrictServer::start(agent()).await;
        let sim = FaultServer::start(vec![fault.clone()]).await;
        let played = play(&target, Some(&sim)).await;
        assert!(sim.attempts() >= 1, "the simulator was asked ({fault:?})");
        assert_eq!(
            played.run.verdict,
            Some(Verdict::Passed),
            "the run goes on ({fault:?}): {:?}",
            played.run.check_results
        );
        assert!(
            matches!(&played.steps()[0].answer, StepAnswer::Error(e) if e.code == "NO_RESPONSE"),
            "{fault:?}: {:?}",
            played.steps()[0].answer
        );
        assert_eq!(target.accepted().len(), 2, "the target answered in words");
    }
}

#[tokio::test]
async fn without_a_simulator_an_unmatched_call_is_no_response() {
    let target = StrictServer::start(agent()).await;
    let played = play(&target, None).await;
    assert!(matches!(&played.steps()[0].answer, StepAnswer::Error(e) if e.code == "NO_RESPONSE"));
    assert_eq!(
        played
            .tp
            .platform
            .role_models_view()
            .tool_simulator
            .fallback,
        "no_response"
    );
}
