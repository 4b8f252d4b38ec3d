//! `agenteval mcp` over stdio, driven by the official MCP SDK's client as
//! an agent runtime would: the handshake, the tool list, a whole
//! exploration session through the tools, a budget refusal as a tool error
//! with its reason code, and the judge's finding promoted to a regression
//! scenario in the data folder.

use agenteval_engine::Platform;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

type Client = RunningService<RoleClient, ()>;

/// A running formal campaign on the demo agent with one seed cell and a
/// budget of one session; its id.
async fn campaign(data: &Path) -> String {
    let platform = Platform::builder(data).open().await.expect("platform");
    let target = platform
        .create_target(
            serde_json::from_value(json!({
                "name": "demo", "channel": {"kind": "builtin", "agent": "demo"},
            }))
            .expect("target"),
        )
        .await
        .expect("create target");
    let campaign = platform
        .create_campaign(
            serde_json::from_value(json!({
                "name": "MCP week", "target_id": target.id, "duration_hours": 168,
                "seed_set": {
                    "personas": [{"id": "p-analyst", "name": "分析师", "language": "zh"}],
                    "goals": [{"id": "g-trend", "title": "看销售趋势"}],
                },
                "budget": {"max_sessions": 1, "min_interval_minutes": 0},
            }))
            .expect("campaign"),
        )
        .await
        .expect("create campaign");
    campaign.id.to_string()
}

async fn call(client: &Client, name: &'static str, args: Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(name);
    if let Value::Object(args) = args {
        params = params.with_arguments(args);
    }
    client.call_tool(params).await.expect("a tool result")
}

fn content(result: &CallToolResult) -> &Value {
    result
        .structured_content
        .as_ref()
        .expect("structured content")
}

#[tokio::test]
async fn an_agent_explores_and_promotes_a_finding_over_stdio() {
    let dir = tempfile::tempdir().expect("tmp");
    let data = dir.path().join("data");
    let campaign = campaign(&data).await;

    let transport = TokioChildProcess::new(
        tokio::process::Command::new(env!("CARGO_BIN_EXE_agenteval")).configure(|c| {
            c.args(["mcp", "--data-dir"]).arg(&data).env("LANG", "C");
            for role in ["USER", "JUDGE", "ANALYST"] {
                for field in ["BASE_URL", "MODEL", "API_KEY"] {
                    c.env_remove(format!("AGENTEVAL_{role}_{field}"));
                }
            }
        }),
    )
    .expect("spawn agenteval mcp");
    let client: Client = ().serve(transport).await.expect("the MCP handshake");
    let info = client.peer_info().expect("the server introduced itself");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("agenteval")
    );
    assert!(info.capabilities.tools.is_some());

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for expected in [
        "patrol",
        "open_session",
        "send_turn",
        "close_session",
        "read_findings",
        "promote_finding",
    ] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }
    let open = tools
        .iter()
        .find(|t| t.name == "open_session")
        .expect("open_session");
    assert!(
        open.input_schema
            .get("properties")
            .and_then(|p| p.get("campaign_id"))
            .is_some(),
        "its arguments are described: {:?}",
        open.input_schema
    );

    let patrol = call(&client, "patrol", json!({})).await;
    assert_eq!(patrol.is_error, Some(false), "{patrol:?}");
    assert_eq!(
        content(&patrol)["campaigns"][0]["budget_remaining"]["sessions_remaining"],
        1
    );

    let opened = call(
        &client,
        "open_session",
        json!({"campaign_id": campaign, "persona_id": "p-analyst", "goal_id": "g-trend"}),
    )
    .await;
    assert_eq!(opened.is_error, Some(false), "{opened:?}");
    let session = content(&opened)["id"].as_str().expect("id").to_string();
    let reply = call(
        &client,
        "send_turn",
        json!({"session_id": session, "content": "一月: 100, 二月: 120, 三月: 150，帮我看看趋势"}),
    )
    .await;
    assert_eq!(reply.is_error, Some(false), "{reply:?}");
    assert!(
        content(&reply)["reply"]
            .as_str()
            .is_some_and(|r| r.contains("12.5")),
        "the demo agent invents its growth figure: {reply:?}"
    );
    let closed = call(
        &client,
        "close_session",
        json!({"session_id": session, "goal_achieved": false, "emotion": "confused",
               "misled": ["平均增长 12.5% 不在数据里"], "end_reason": "user_gave_up"}),
    )
    .await;
    assert_eq!(content(&closed)["status"], "completed", "{closed:?}");

    let refused = call(
        &client,
        "open_session",
        json!({"campaign_id": campaign, "persona_id": "p-analyst", "goal_id": "g-trend"}),
    )
    .await;
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    assert_eq!(content(&refused)["code"], "SESSION_BUDGET_EXHAUSTED");
    assert!(
        content(&refused)["suggestion"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );

    // The judge reviews the closed session in the background; its finding
    // at the turn with the invented figure becomes a regression scenario.
    let deadline = Instant::now() + Duration::from_secs(60);
    let turn = loop {
        let findings = call(&client, "read_findings", json!({"campaign_id": campaign})).await;
        let found = content(&findings)["exploration"]["findings"]
            .as_array()
            .and_then(|f| f.iter().find(|f| f["session_id"] == session.as_str()))
            .and_then(|f| f["turn"].as_u64());
        if let Some(turn) = found {
            break turn;
        }
        assert!(
            Instant::now() < deadline,
            "the judge reviewed the session: {findings:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let promoted = call(
        &client,
        "promote_finding",
        json!({"session_id": session, "turn": turn}),
    )
    .await;
    assert_eq!(promoted.is_error, Some(false), "{promoted:?}");
    let promoted = content(&promoted);
    let file = data
        .join("scenarios")
        .join(promoted["pack"].as_str().expect("pack"))
        .join(promoted["file_name"].as_str().expect("file"));
    let yaml = std::fs::read_to_string(&file).expect("the pack file is saved");
    assert!(
        yaml.contains(&session) && yaml.contains("no_unverified_numbers"),
        "{yaml}"
    );
    assert_eq!(promoted["lineage"]["campaign_id"], campaign.as_str());

    client.cancel().await.expect("hang up");
}
