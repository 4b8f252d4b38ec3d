//! Tests: exploration of an agent that acts. A campaign names a scenario
//! as its sessions' tool environment (the office tools over a workspace of
//! real files); a session's turns go through the same loop as a fixed
//! run's, against the strict OpenAI-compatible server, and the ledger
//! counts the user's turns, never the tool rounds.

use crate::strict_server::{StrictServer, call, turn_results};
use crate::support::platform;
use agenteval_engine::ErrorCode;
use agenteval_engine::campaign::{Budget, CreateCampaign, Goal, Persona, SeedSet};
use agenteval_engine::exploration::{CloseSession, CreateSession, SendMessage};
use agenteval_engine::scenario::load_dir;
use agenteval_engine::target::TargetSettings;
use serde_json::{Value, json};
use std::sync::Arc;

const PACK: &str = r#"
scenarios:
  - id: env.office
    title: 办公环境
    workspace: ws
    office_tools: [FILE_LIST, FILE_READ]
    turns:
      - user: 看看有哪些文件
"#;

fn seeds() -> SeedSet {
    SeedSet {
        personas: vec![Persona {
            id: "p1".into(),
            name: "新同事".into(),
            ..Default::default()
        }],
        goals: vec![Goal {
            id: "g1".into(),
            title: "读会议纪要".into(),
            ..Default::default()
        }],
    }
}

#[tokio::test]
async fn a_session_plays_the_campaigns_tools_and_the_ledger_counts_user_turns() {
    // The agent lists the files, reads the first, and answers from it.
    let server = StrictServer::start(Arc::new(|messages: &[Value]| {
        let results = turn_results(messages);
        match results.len() {
            0 => json!({"tool_calls": [call("l", "FILE_LIST", json!({"directory": "."}))]}),
            1 => {
                let file = results[0]["files"][0].as_str().unwrap_or_default().to_string();
                json!({"tool_calls": [call("r", "FILE_READ", json!({"file_path": file}))]})
            }
            _ => json!({"content": format!("纪要写的是：{}", results[1]["content"].as_str().unwrap_or_default())}),
        }
    }))
    .await;
    let tp = platform().await;
    let p = &tp.platform;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("env/ws")).unwrap();
    std::fs::write(dir.path().join("env/ws/纪要.md"), "# 周会\n下周发布").unwrap();
    std::fs::write(dir.path().join("env/env.yaml"), PACK).unwrap();
    let loaded = load_dir(dir.path());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    p.scenarios.insert_all(loaded.scenarios);
    let target = p
        .create_target(TargetSettings {
            max_retries: Some(0),
            ..TargetSettings::openai("strict", &server.base_url(), "agent")
        })
        .await
        .unwrap();
    let create = |tool_env: Option<&str>| CreateCampaign {
        name: "explore".into(),
        target_id: target.id,
        duration_hours: Some(24.0),
        seed_set: Some(seeds()),
        budget: Some(Budget {
            max_turns: Some(2),
            max_sessions: Some(1),
            min_interval_minutes: Some(0.0),
        }),
        tool_env: tool_env.map(str::to_string),
        ..Default::default()
    };
    let refused = p.create_campaign(create(Some("nope"))).await.unwrap_err();
    assert_eq!(refused.code(), ErrorCode::InvalidInput);
    let c = p.create_campaign(create(Some("env.office"))).await.unwrap();
    assert_eq!(c.tool_env.as_deref(), Some("env.office"));

    let s = p
        .create_session(CreateSession {
            campaign_id: c.id,
            persona: json!({"name": "新同事"}),
            goal: json!("读会议纪要"),
            seed_ref: Some(agenteval_engine::exploration::SeedRef {
                persona_id: "p1".into(),
                goal_id: "g1".into(),
                variant: None,
            }),
            trigger: None,
            played_by: None,
            user_model: None,
        })
        .await
        .unwrap();
    let say = |content: &str| SendMessage {
        content: content.into(),
    };
    let first = p.send_message(s.id, say("纪要里说了什么？")).await.unwrap();
    let names: Vec<&str> = first.steps.iter().map(|s| s.call.name.as_str()).collect();
    assert_eq!(
        names,
        ["FILE_LIST", "FILE_READ"],
        "played over the real file"
    );
    assert!(first.reply.contains("下周发布"), "{}", first.reply);
    assert_eq!(p.session_workspaces(), 1, "the session's own copy");
    let second = p.send_message(s.id, say("好的，谢谢")).await.unwrap();
    assert_eq!(second.turn, 2);
    assert!(server.refused().is_empty(), "{:?}", server.refused());
    // The second turn's request carries the first turn's steps, each call
    // answered right after the message that made it.
    let sent = server.accepted();
    let last = sent.last().unwrap()["messages"].as_array().unwrap().clone();
    let roles: Vec<&str> = last.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert!(
        roles.windows(2).any(|w| w == ["assistant", "tool"]),
        "the earlier tool rounds are sent again: {roles:?}"
    );

    // The steps are stored with the replies.
    let transcript = p.session_messages(s.id).await.unwrap();
    let replies: Vec<_> = transcript
        .messages
        .iter()
        .filter(|m| !m.steps.is_empty())
        .collect();
    assert_eq!(replies.len(), 2, "both replies kept their steps");
    assert_eq!(replies[0].steps[1].call.name, "FILE_READ");

    // One ledger row per user turn, whatever the tool rounds.
    p.close_session(s.id, CloseSession::default())
        .await
        .unwrap();
    assert_eq!(p.session_workspaces(), 0, "removed when the session ends");
    let actions: Vec<String> = p
        .ledger(c.id)
        .await
        .unwrap()
        .iter()
        .map(|e| e.action.as_str().to_string())
        .collect();
    assert_eq!(actions, ["create", "message", "message", "close"]);
}
