//! Tests: every shipped scenario, played once by the built-in demo agent
//! behind the strict OpenAI-compatible server: the engine's requests are
//! valid for the strictest APIs on the packs people run, not only on the
//! tests' own (the office pack's workspaces included).

use crate::strict_server::{StrictServer, call};
use crate::support::platform;
use agenteval_engine::campaign::{CreateCampaign, Plan, PlanEntry};
use agenteval_engine::channel::{ChatMessage, Role, ToolCall, ToolSpec};
use agenteval_engine::demo_agent::DemoAgent;
use agenteval_engine::fixed::Verdict;
use agenteval_engine::scenario::{PackSource, load_sources};
use serde_json::{Value, json};
use std::sync::Arc;

/// A wire message as the engine's.
fn message(m: &Value) -> ChatMessage {
    let role = match m["role"].as_str() {
        Some("system") => Role::System,
        Some("assistant") => Role::Assistant,
        Some("tool") => Role::Tool,
        _ => Role::User,
    };
    let mut out = ChatMessage::new(role, m["content"].as_str().unwrap_or_default());
    out.tool_call_id = m["tool_call_id"].as_str().map(str::to_string);
    out.tool_calls = m["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let text = c["function"]["arguments"].as_str().unwrap_or("{}");
            ToolCall {
                id: c["id"].as_str().unwrap_or_default().into(),
                name: c["function"]["name"].as_str().unwrap_or_default().into(),
                arguments: serde_json::from_str(text).unwrap_or_else(|_| json!(text)),
            }
        })
        .collect();
    out
}

/// A wire tool as the engine's.
fn tool(t: &Value) -> ToolSpec {
    ToolSpec {
        name: t["function"]["name"].as_str().unwrap_or_default().into(),
        description: t["function"]["description"]
            .as_str()
            .unwrap_or_default()
            .into(),
        parameters: t["function"]["parameters"].clone(),
        responses: Vec::new(),
    }
}

#[tokio::test]
async fn every_shipped_scenario_sends_requests_the_strictest_api_takes() {
    let agent = DemoAgent::new();
    let server = StrictServer::start_with(Arc::new(move |body: &Value| {
        let messages: Vec<ChatMessage> = body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .map(message)
            .collect();
        let tools: Vec<ToolSpec> = body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(tool)
            .collect();
        let reply = agent.respond(&messages, &tools);
        let calls: Vec<Value> = reply
            .tool_calls
            .iter()
            .map(|c| call(&c.id, &c.name, c.arguments.clone()))
            .collect();
        if calls.is_empty() {
            json!({"content": reply.content})
        } else {
            json!({"content": reply.content, "tool_calls": calls})
        }
    }))
    .await;
    let tp = platform().await;
    let p = &tp.platform;
    let shipped = load_sources(&[PackSource::Shipped]);
    assert!(shipped.errors.is_empty(), "{:?}", shipped.errors);
    let ids: Vec<String> = shipped.scenarios.iter().map(|s| s.id.clone()).collect();
    p.scenarios.insert_all(shipped.scenarios);
    let target = p
        .create_target(agenteval_engine::target::TargetSettings {
            max_retries: Some(0),
            ..agenteval_engine::target::TargetSettings::openai("strict", &server.base_url(), "demo")
        })
        .await
        .unwrap();
    let campaign = p
        .create_campaign(CreateCampaign {
            name: "shipped".into(),
            target_id: target.id,
            plan: Some(Plan {
                entries: ids
                    .iter()
                    .map(|id| PlanEntry {
                        scenario_id: id.clone(),
                        rounds: Some(1),
                        ..Default::default()
                    })
                    .collect(),
            }),
            duration_hours: Some(1.0),
            ..Default::default()
        })
        .await
        .unwrap();
    p.tick().await.unwrap();
    assert!(
        server.refused().is_empty(),
        "refused: {:#?}",
        server.refused()
    );
    let runs = p.list_runs(campaign.id).await.unwrap();
    assert_eq!(runs.len(), ids.len());
    let errored: Vec<_> = runs
        .iter()
        .filter(|r| r.verdict != Some(Verdict::Passed) && r.verdict != Some(Verdict::Failed))
        .map(|r| (&r.scenario_id, &r.error_reason))
        .collect();
    assert!(errored.is_empty(), "every run judged: {errored:?}");
    let passed = runs
        .iter()
        .filter(|r| r.verdict == Some(Verdict::Passed))
        .count();
    assert!(
        passed > 0 && passed < runs.len(),
        "the demo's flaws fail some, not all: {passed}/{}",
        runs.len()
    );
}
