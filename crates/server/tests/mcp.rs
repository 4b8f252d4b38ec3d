//! MCP over streamable HTTP at `/mcp` beside the API: the same keys and
//! roles. A whole exploration session through the tools, a budget refusal
//! as a tool error with its reason code, a viewer key refused for the
//! tools that write (and allowed to read), no key at all refused outright,
//! refusals in the reader's language; production conversations imported,
//! listed, read, drafted into a pack and proposed as seeds.

use reqwest::StatusCode;
use serde_json::{Value, json};

mod support;

use support::mcp::{rpc, tool};
use support::{App, KEY, app, files_under};

async fn campaign(app: &App) -> String {
    let (s, target) = app
        .post(
            "/api/targets",
            json!({"name": "demo", "channel": {"kind": "builtin", "agent": "demo"}}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{target}");
    let (s, c) = app
        .post(
            "/api/campaigns",
            json!({
                "name": "MCP week", "target_id": target["id"], "duration_hours": 168,
                "seed_set": {
                    "personas": [{"id": "p-analyst", "name": "Analyst", "language": "zh"}],
                    "goals": [{"id": "g-trend", "title": "看销售趋势"}],
                },
                "budget": {"max_sessions": 1, "min_interval_minutes": 0},
            }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    c["id"].as_str().expect("id").to_string()
}

#[tokio::test]
async fn an_exploration_session_through_mcp_tools_over_http() {
    let app = app().await;
    let campaign = campaign(&app).await;

    let (s, init) = rpc(
        &app,
        Some(KEY),
        "en",
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "test", "version": "1"}}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "agenteval", "{init}");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );

    let (_, list) = rpc(&app, Some(KEY), "en", 2, "tools/list", json!({})).await;
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for expected in [
        "patrol",
        "get_campaign",
        "open_session",
        "send_turn",
        "close_session",
        "get_session",
        "get_run",
        "list_campaigns",
        "read_findings",
        "promote_finding",
        "import_traces",
        "list_production_conversations",
        "get_production_conversation",
        "draft_from_conversation",
        "propose_seeds",
    ] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }

    let patrol = tool(&app, KEY, "en", "patrol", json!({})).await;
    let listed = &patrol["structuredContent"]["campaigns"][0];
    assert_eq!(listed["id"], campaign.as_str(), "{patrol}");
    assert_eq!(listed["budget_remaining"]["sessions_remaining"], 1);

    // A whole session: the seeds by id, one turn, the record.
    let opened = tool(
        &app,
        KEY,
        "en",
        "open_session",
        json!({"campaign_id": campaign, "persona_id": "p-analyst", "goal_id": "g-trend"}),
    )
    .await;
    assert_eq!(opened["isError"], false, "{opened}");
    let session = opened["structuredContent"]["id"]
        .as_str()
        .expect("session id")
        .to_string();
    assert_eq!(opened["structuredContent"]["persona"]["name"], "Analyst");
    assert_eq!(opened["structuredContent"]["trigger"], "auto");
    let reply = tool(
        &app,
        KEY,
        "en",
        "send_turn",
        json!({"session_id": session, "content": "一月: 100, 二月: 120, 三月: 150，帮我看看趋势"}),
    )
    .await;
    assert_eq!(reply["isError"], false, "{reply}");
    assert_eq!(reply["structuredContent"]["turn"], 1);
    assert!(
        reply["structuredContent"]["reply"]
            .as_str()
            .is_some_and(|r| r.contains("趋势")),
        "the target's reply: {reply}"
    );
    let closed = tool(
        &app,
        KEY,
        "en",
        "close_session",
        json!({"session_id": session, "goal_achieved": false, "emotion": "confused",
               "misled": ["它说平均增长 12.5%，数据里没有这个数"], "end_reason": "user_gave_up"}),
    )
    .await;
    assert_eq!(closed["isError"], false, "{closed}");
    assert_eq!(closed["structuredContent"]["status"], "completed");
    assert_eq!(
        closed["structuredContent"]["experience"]["misled"][0],
        "它说平均增长 12.5%，数据里没有这个数"
    );
    let transcript = tool(
        &app,
        KEY,
        "en",
        "get_session",
        json!({"session_id": session}),
    )
    .await;
    assert_eq!(
        transcript["structuredContent"]["messages"]
            .as_array()
            .map(Vec::len),
        Some(2),
        "{transcript}"
    );

    // The budget is spent: a tool error with the reason code, in Chinese
    // for a Chinese reader.
    let refused = tool(
        &app,
        KEY,
        "zh-CN",
        "open_session",
        json!({"campaign_id": campaign, "persona_id": "p-analyst", "goal_id": "g-trend"}),
    )
    .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["structuredContent"]["code"],
        "SESSION_BUDGET_EXHAUSTED"
    );
    let message = refused["structuredContent"]["message"]
        .as_str()
        .expect("message");
    assert!(
        message
            .chars()
            .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
        "in Chinese: {message}"
    );
    assert!(
        refused["structuredContent"]["suggestion"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );

    let findings = tool(
        &app,
        KEY,
        "en",
        "read_findings",
        json!({"campaign_id": campaign}),
    )
    .await;
    assert_eq!(
        findings["structuredContent"]["exploration"]["sessions_total"], 1,
        "{findings}"
    );

    // An id that is not a UUID names nothing.
    let missing = tool(
        &app,
        KEY,
        "en",
        "get_session",
        json!({"session_id": "nope"}),
    )
    .await;
    assert_eq!(missing["isError"], true);
    assert_eq!(missing["structuredContent"]["code"], "NOT_FOUND");
}

#[tokio::test]
async fn a_viewer_key_reads_through_mcp_but_may_not_write() {
    let app = app().await;
    let campaign = campaign(&app).await;
    let (s, created) = app
        .post("/api/keys", json!({"name": "vera", "role": "viewer"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{created}");
    let viewer = created["key"].as_str().expect("the key").to_string();

    let patrol = tool(&app, &viewer, "en", "patrol", json!({})).await;
    assert_eq!(patrol["isError"], false, "a viewer reads: {patrol}");
    for (name, args) in [
        (
            "open_session",
            json!({"campaign_id": campaign, "persona_id": "p-analyst", "goal_id": "g-trend"}),
        ),
        (
            "send_turn",
            json!({"session_id": uuid::Uuid::nil().to_string(), "content": "hi"}),
        ),
        (
            "close_session",
            json!({"session_id": uuid::Uuid::nil().to_string(), "goal_achieved": true}),
        ),
        (
            "promote_finding",
            json!({"session_id": uuid::Uuid::nil().to_string()}),
        ),
    ] {
        let refused = tool(&app, &viewer, "en", name, args).await;
        assert_eq!(refused["isError"], true, "{name}: {refused}");
        assert_eq!(
            refused["structuredContent"]["code"], "FORBIDDEN",
            "{name}: {refused}"
        );
    }
    let (_, sessions) = app
        .get(&format!("/api/exploration/campaigns/{campaign}/sessions"))
        .await;
    assert_eq!(sessions, json!([]), "nothing was opened");

    // Without a key, or with an unknown one: 401 before MCP is reached.
    for key in [None, Some("not-a-key")] {
        let (s, body) = rpc(&app, key, "en", 1, "tools/list", json!({})).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED, "{body}");
        assert_eq!(body["code"], "UNAUTHORIZED");
    }

    // Every tool call is in the audit trail under the key's name.
    let events = app.platform.inspect().audit_events().await.expect("audit");
    let refused: Vec<&str> = events
        .iter()
        .filter(|e| e.actor == "key:vera" && e.outcome == "FORBIDDEN")
        .map(|e| e.action.as_str())
        .collect();
    for name in [
        "open_session",
        "send_turn",
        "close_session",
        "promote_finding",
    ] {
        assert!(
            refused.contains(&format!("mcp {name}").as_str()),
            "{name} in {refused:?}"
        );
    }
}

#[tokio::test]
async fn production_conversations_through_mcp_tools() {
    let app = app().await;
    let sample = include_str!("../../../tests/otlp/sample.jsonl");
    let (_, created) = app
        .post("/api/keys", json!({"name": "vera", "role": "viewer"}))
        .await;
    let viewer = created["key"].as_str().expect("the key").to_string();
    let args = json!({"otlp_json": sample, "source": "sample.jsonl"});
    let refused = tool(&app, &viewer, "en", "import_traces", args.clone()).await;
    assert_eq!(
        refused["structuredContent"]["code"], "FORBIDDEN",
        "{refused}"
    );
    let imported = tool(&app, KEY, "en", "import_traces", args).await;
    let summary = &imported["structuredContent"];
    assert!(summary["conversations"].as_u64() >= Some(2), "{imported}");
    assert!(
        summary["redacted"]["email"].as_u64() >= Some(1),
        "redacted by default: {imported}"
    );
    let nothing = tool(&app, KEY, "zh", "import_traces", json!({"otlp_json": "  "})).await;
    assert_eq!(nothing["isError"], true, "{nothing}");
    assert_eq!(nothing["structuredContent"]["code"], "INVALID_INPUT");

    let found = tool(
        &app,
        KEY,
        "en",
        "list_production_conversations",
        json!({"text": "A1024"}),
    )
    .await;
    let page = &found["structuredContent"];
    assert_eq!(page["total"], 1, "{found}");
    let listed = &page["conversations"][0];
    assert!(
        listed["first_user"]
            .as_str()
            .is_some_and(|t| t.contains("A1024")),
        "{found}"
    );
    let id = listed["id"].as_str().expect("id").to_string();

    let conversation = tool(
        &app,
        KEY,
        "en",
        "get_production_conversation",
        json!({"conversation_id": id}),
    )
    .await;
    assert_eq!(conversation["isError"], false, "{conversation}");
    assert_eq!(conversation["structuredContent"]["id"], id.as_str());
    assert!(
        conversation["structuredContent"]["messages"]
            .as_array()
            .is_some_and(|m| m.len() >= 2),
        "{conversation}"
    );

    // A viewer may look at a draft but not save it.
    let draft = tool(
        &app,
        &viewer,
        "en",
        "draft_from_conversation",
        json!({"conversation_id": id}),
    )
    .await;
    assert_eq!(draft["isError"], false, "{draft}");
    assert_eq!(draft["structuredContent"]["saved"], false);
    assert!(
        draft["structuredContent"]["yaml"]
            .as_str()
            .is_some_and(|y| y.contains("A1024") && y.contains(&id)),
        "the script and the lineage: {draft}"
    );
    let refused = tool(
        &app,
        &viewer,
        "zh",
        "draft_from_conversation",
        json!({"conversation_id": id, "save": true}),
    )
    .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(refused["structuredContent"]["code"], "FORBIDDEN");
    let packs = app.dir.path().join("scenarios");
    assert!(
        !packs.exists() || files_under(&packs).is_empty(),
        "nothing was saved"
    );

    let saved = tool(
        &app,
        KEY,
        "en",
        "draft_from_conversation",
        json!({"conversation_id": id, "pack": "from-production", "save": true}),
    )
    .await;
    assert_eq!(saved["structuredContent"]["saved"], true, "{saved}");
    let file = packs.join("from-production").join(
        saved["structuredContent"]["file_name"]
            .as_str()
            .expect("file"),
    );
    let yaml = std::fs::read_to_string(&file).expect("the pack file is written");
    assert_eq!(yaml, saved["structuredContent"]["yaml"].as_str().unwrap());

    // Seeds from every imported conversation, with their traces as lineage.
    let all = tool(&app, KEY, "en", "list_production_conversations", json!({})).await;
    let ids: Vec<Value> = all["structuredContent"]["conversations"]
        .as_array()
        .expect("conversations")
        .iter()
        .map(|c| c["id"].clone())
        .collect();
    let seeds = tool(
        &app,
        &viewer,
        "en",
        "propose_seeds",
        json!({"conversation_ids": ids}),
    )
    .await;
    let proposal = &seeds["structuredContent"];
    assert_eq!(proposal["proposed_by"], "rules", "{seeds}");
    let goals = proposal["seed_set"]["goals"].as_array().expect("goals");
    assert!(!goals.is_empty(), "{seeds}");
    assert!(
        goals.iter().all(|g| g["lineage"]["trace_ids"]
            .as_array()
            .is_some_and(|t| !t.is_empty())),
        "each goal names where it came from: {seeds}"
    );

    // An unknown conversation, in the reader's language.
    let missing = tool(
        &app,
        KEY,
        "zh",
        "get_production_conversation",
        json!({"conversation_id": uuid::Uuid::nil().to_string()}),
    )
    .await;
    assert_eq!(
        missing["structuredContent"]["code"], "NOT_FOUND",
        "{missing}"
    );
    assert!(
        missing["structuredContent"]["message"]
            .as_str()
            .is_some_and(|m| m.chars().any(agenteval_engine::domain::traces::is_han)),
        "{missing}"
    );
}

#[tokio::test]
async fn a_runs_steps_through_mcp_and_the_api() {
    let app = app().await;
    let shipped = agenteval_engine::scenario::load_dir(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios"),
    );
    app.platform.scenarios.insert_all(shipped.scenarios);
    let (s, target) = app
        .post(
            "/api/targets",
            json!({"name": "demo", "channel": {"kind": "builtin", "agent": "demo"}}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{target}");
    let (s, c) = app
        .post(
            "/api/campaigns",
            json!({"name": "steps", "target_id": target["id"], "duration_hours": 1,
                   "scenario_ids": ["office.file_not_found_recovery"]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    app.platform.tick().await.expect("the run is due at once");
    let (_, runs) = app
        .get(&format!(
            "/api/campaigns/{}/runs",
            c["id"].as_str().unwrap()
        ))
        .await;
    let run = runs[0]["id"].as_str().expect("a run").to_string();

    let got = tool(&app, KEY, "zh", "get_run", json!({"run_id": run})).await;
    assert_eq!(got["isError"], false, "{got}");
    let body = &got["structuredContent"];
    assert_eq!(body["run"]["verdict"], "passed", "{body}");
    let steps = &body["turns"][1]["steps"];
    assert_eq!(steps[0]["call"]["name"], "DATA_QUERY", "{steps}");
    assert_eq!(steps[0]["answer"]["kind"], "error");
    assert_eq!(steps[0]["answer"]["value"]["code"], "FILE_NOT_FOUND");
    assert_eq!(
        steps[1]["call"]["name"], "FILE_LIST",
        "the agent followed the suggestion"
    );

    let (s, turns) = app.get(&format!("/api/runs/{run}/turns")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(&turns[1]["steps"], steps, "the API returns the same steps");
    let (s, one) = app.get(&format!("/api/runs/{run}")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(one["run"]["id"], body["run"]["id"]);
    assert_eq!(one["run"]["verdict"], "passed");
    assert_eq!(&one["turns"][1]["steps"], steps, "with its turns' steps");
    let (s, missing) = app
        .get(&format!("/api/runs/{}", uuid::Uuid::now_v7()))
        .await;
    assert_eq!(
        (s, &missing["code"]),
        (StatusCode::NOT_FOUND, &json!("NOT_FOUND"))
    );

    let missing = tool(
        &app,
        KEY,
        "zh",
        "get_run",
        json!({"run_id": uuid::Uuid::now_v7()}),
    )
    .await;
    assert_eq!(missing["isError"], true);
    assert_eq!(
        missing["structuredContent"]["code"], "NOT_FOUND",
        "{missing}"
    );
}

#[tokio::test]
async fn campaigns_of_every_status_are_listed_and_a_missing_argument_is_refused_in_words() {
    let app = app().await;
    let running = campaign(&app).await;
    let (s, _) = app
        .post(&format!("/api/campaigns/{running}/finalize"), json!({}))
        .await;
    assert_eq!(s, StatusCode::OK);
    let other = campaign(&app).await;
    let listed = tool(&app, KEY, "zh", "list_campaigns", json!({})).await;
    assert_eq!(listed["isError"], false, "{listed}");
    let all = listed["structuredContent"]["campaigns"]
        .as_array()
        .expect("a list")
        .clone();
    let status_of = |id: &str| {
        all.iter()
            .find(|c| c["id"] == id)
            .map(|c| c["status"].clone())
            .unwrap_or_else(|| panic!("{id} listed in {all:?}"))
    };
    assert_eq!(
        status_of(&running),
        "finalized",
        "a finalized campaign is listed too"
    );
    assert_eq!(status_of(&other), "running");
    let patrolled = tool(&app, KEY, "zh", "patrol", json!({})).await;
    assert!(
        !patrolled.to_string().contains(&running),
        "patrol leaves the finalized one out: only list_campaigns finds it"
    );

    let refused = tool(&app, KEY, "zh", "read_findings", json!({})).await;
    assert_eq!(refused["isError"], true, "{refused}");
    let body = &refused["structuredContent"];
    assert_eq!(body["code"], "INVALID_INPUT", "{refused}");
    assert_eq!(body["message"], "缺少参数 `campaign_id`");
    let suggestion = body["suggestion"].as_str().unwrap();
    assert!(!suggestion.is_ascii(), "in Chinese: {suggestion}");
    let en = tool(&app, KEY, "en", "get_run", json!({"run_id": 5})).await;
    assert_eq!(en["structuredContent"]["code"], "INVALID_INPUT", "{en}");
    assert!(
        en["structuredContent"]["message"]
            .as_str()
            .unwrap()
            .starts_with("the arguments cannot be read"),
        "{en}"
    );
}
