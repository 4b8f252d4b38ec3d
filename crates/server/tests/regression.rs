//! A finding becomes a regression scenario over HTTP on 127.0.0.1: a
//! session whose target invented a figure is drafted into a pack file
//! (its user turns, a number gate, its lineage), saved among the user's
//! packs once it loads, and listed apart from the shipped packs; a file
//! that does not load, a name that cannot be saved and an id another file
//! uses are refused, and nothing is written. A session of an agent that
//! acts plays its campaign's tools, and the judge names the step a claim
//! failed at.

use axum::Json;
use reqwest::StatusCode;
use serde_json::{Value, json};

mod support;

use support::app;

/// A target on 127.0.0.1 that states a figure nobody gave it.
async fn inventing_target() -> String {
    let app = axum::Router::new().route(
        "/chat",
        axum::routing::post(|| async { Json(json!({"reply": "Sales grew 12.5% last quarter."})) }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind target");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/chat")
}

/// Closes session `sid` as stopped and has the heuristic judge review it.
async fn close_and_review(app: &support::App, sid: &str, goal_achieved: bool) {
    let (s, closed) = app
        .post(
            &format!("/api/exploration/sessions/{sid}/close"),
            json!({"goal_achieved": goal_achieved, "end_reason": "stopped"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{closed}");
    agenteval_engine::judge::review_pending(
        &app.platform,
        None,
        agenteval_engine::judge::JudgeSampling::default(),
    )
    .await
    .expect("heuristic review");
}

#[tokio::test]
async fn a_finding_is_drafted_reviewed_and_saved_as_a_regression_scenario() {
    let app = app().await;
    let url = inventing_target().await;
    let (_, t) = app
        .post(
            "/api/targets",
            json!({"name": "inventor", "channel": {"kind": "http", "url": url}}),
        )
        .await;
    let seeds = json!({
        "personas": [{"id": "p", "name": "Lin", "language": "en"}],
        "goals": [{"id": "g", "title": "Understand the sales trend", "slots": {"q3": "820"}}],
    });
    let (s, c) = app
        .post(
            "/api/campaigns",
            json!({"name": "regress", "target_id": t["id"], "duration_hours": 24, "seed_set": seeds,
                   "budget": {"min_interval_minutes": 0}}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let (s, session) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": c["id"], "persona": seeds["personas"][0], "goal": seeds["goals"][0],
                   "seed_ref": {"persona_id": "p", "goal_id": "g"}, "played_by": "person"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{session}");
    let sid = session["id"].as_str().unwrap();
    for text in ["How did sales do? Q3 was 820.", "And the trend?"] {
        let (s, r) = app
            .post(
                &format!("/api/exploration/sessions/{sid}/messages"),
                json!({ "content": text }),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{r}");
    }
    close_and_review(&app, sid, false).await;

    // The draft: the user's turns up to the finding, a number gate with
    // the seed facts on the flagged reply, the lineage.
    let (s, draft) = app
        .get(&format!(
            "/api/exploration/sessions/{sid}/regression?lang=zh"
        ))
        .await;
    assert_eq!(s, StatusCode::OK, "{draft}");
    assert_eq!(draft["pack"], "regressions");
    assert_eq!(draft["lineage"]["session_id"], sid);
    assert_eq!(draft["lineage"]["campaign_id"], c["id"]);
    assert_eq!(draft["lineage"]["turn"], 1, "the first reply invented 12.5");
    assert!(
        draft["lineage"]["finding"]
            .as_str()
            .unwrap()
            .contains("12.5"),
        "{draft}"
    );
    let file: Value = serde_yaml_ng::from_str(draft["yaml"].as_str().unwrap()).expect("YAML");
    let scenario = &file["scenarios"][0];
    assert_eq!(scenario["id"], draft["scenario_id"]);
    assert_eq!(scenario["facts"], json!(["820"]));
    assert_eq!(scenario["turns"].as_array().unwrap().len(), 1);
    assert_eq!(
        scenario["turns"][0]["checks"][0]["type"],
        "no_unverified_numbers"
    );
    assert!(
        scenario["title"].as_str().unwrap().starts_with("探索发现"),
        "titled in the reader's language: {scenario}"
    );
    let (s, e) = app
        .get(&format!(
            "/api/exploration/sessions/{sid}/regression?turn=9"
        ))
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "turn 9 is past the end: {e}");

    // A turn the judge found nothing at (this session is not reviewed):
    // without a turn there is nothing to draft from; a person names the
    // turn, and its reply is the rubric's example of what must not recur.
    let (_, other) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": c["id"], "persona": seeds["personas"][0], "goal": seeds["goals"][0],
                   "seed_ref": {"persona_id": "p", "goal_id": "g"}, "played_by": "person"}),
        )
        .await;
    let oid = other["id"].as_str().expect("a second session");
    let (s, r) = app
        .post(
            &format!("/api/exploration/sessions/{oid}/messages"),
            json!({ "content": "What about Q4?" }),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (s, e) = app
        .get(&format!("/api/exploration/sessions/{oid}/regression"))
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "no finding to draft from: {e}");
    let (s, flagged) = app
        .get(&format!(
            "/api/exploration/sessions/{oid}/regression?turn=1&lang=zh"
        ))
        .await;
    assert_eq!(s, StatusCode::OK, "{flagged}");
    let finding = flagged["lineage"]["finding"].as_str().unwrap();
    assert!(
        finding.contains("人工在第 1 轮标记") && finding.contains("Sales grew 12.5%"),
        "the lineage names the person's flag and quotes the reply as it was: {finding}"
    );
    let file: Value = serde_yaml_ng::from_str(flagged["yaml"].as_str().unwrap()).expect("YAML");
    let check = &file["scenarios"][0]["turns"][0]["checks"][0];
    assert_eq!(check["type"], "rubric", "{check}");
    let rubric = check["rubric"].as_str().unwrap();
    assert!(
        rubric.starts_with("第 1 轮的回复不得再像人工标记的那样")
            && rubric.contains("Sales grew 12.5%")
            && rubric.matches('：').count() == 1,
        "the rubric is one sentence in the reader's language quoting the flagged reply: {check}"
    );

    // Saved once it loads, and listed as the user's own.
    let id = draft["scenario_id"].as_str().unwrap();
    let save =
        json!({"pack": draft["pack"], "file_name": draft["file_name"], "yaml": draft["yaml"]});
    let (s, saved) = app.post("/api/scenarios/files", save.clone()).await;
    assert_eq!(s, StatusCode::OK, "{saved}");
    assert_eq!(saved[0]["id"], id);
    let path = app
        .platform
        .data_dir
        .join("scenarios/regressions")
        .join(draft["file_name"].as_str().unwrap());
    assert!(path.is_file(), "written to {}", path.display());
    let (_, listed) = app.get("/api/scenarios").await;
    let mine = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == id)
        .expect("listed");
    assert_eq!(mine["shipped"], false);
    assert_eq!(mine["pack"], "regressions");
    let (s, _) = app.post("/api/scenarios/files", save).await;
    assert_eq!(s, StatusCode::OK, "saving the same file again replaces it");

    // Refused, and nothing written: a file that does not load (by line),
    // a name that cannot be saved, an id another file uses.
    let broken = draft["yaml"]
        .as_str()
        .unwrap()
        .replace("type: no_unverified_numbers", "type: no_such_check");
    let (s, e) = app
        .post(
            "/api/scenarios/files",
            json!({"pack": "regressions", "file_name": "broken.yaml", "yaml": broken}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("broken.yaml, line 11: `scenarios[0].turns[0].checks[0].type` has an unknown value `no_such_check`"),
        "{e}"
    );
    // The reader's language, not the YAML parser's English.
    let (_, zh) = app
        .post(
            "/api/scenarios/files?lang=zh",
            json!({"pack": "regressions", "file_name": "broken.yaml", "yaml": broken}),
        )
        .await;
    let said = zh["message"].as_str().unwrap();
    assert!(
        said.starts_with("场景包文件无法加载：regressions/broken.yaml 第 11 行，")
            && said.contains("的取值 `no_such_check` 无法识别")
            && said.contains("（第 13 列）"),
        "{said}"
    );
    assert!(
        !app.platform
            .data_dir
            .join("scenarios/regressions/broken.yaml")
            .exists()
    );
    let (s, e) = app
        .post(
            "/api/scenarios/files",
            json!({"pack": "../escape", "file_name": "x.yaml", "yaml": draft["yaml"]}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let (s, e) = app
        .post(
            "/api/scenarios/files",
            json!({"pack": "regressions", "file_name": "copy.yaml", "yaml": draft["yaml"]}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert!(
        !app.platform
            .data_dir
            .join("scenarios/regressions/copy.yaml")
            .exists()
    );
}

#[path = "../../engine/tests/it/strict_server.rs"]
mod strict_server;

/// The tools the sessions of the next test are offered: a contact is
/// looked up, and the mail server is down.
fn mail_tools(app: &support::App) -> &'static str {
    let scenario = serde_json::from_value(json!({
        "id": "env.mail", "title": "mail", "pack": "test", "turns": [{"user": "send it"}],
        "source_file": "(test)", "source_line": 1, "content_hash": "env.mail",
        "tools": [
            {"name": "LOOKUP_CONTACT", "parameters": {"type": "object"},
             "responses": [{"result": {"email": "zhang@example.com"}}]},
            {"name": "SEND_MAIL", "parameters": {"type": "object"},
             "responses": [{"error": {"code": "MAIL_SERVER_DOWN", "message": "邮件服务器不可用",
                                      "suggestion": "稍后重试，或告诉用户没有发出"}}]},
        ],
    }))
    .expect("a scenario");
    app.platform.scenarios.insert_all([scenario]);
    "env.mail"
}

#[tokio::test]
async fn an_exploration_session_plays_the_tools_and_the_judge_names_the_step_a_claim_failed_at() {
    let app = app().await;
    // An agent behind an API as strict as OpenAI's about tool messages: it
    // looks the contact up, sends, and says it sent whatever the send said.
    let server = strict_server::StrictServer::start(std::sync::Arc::new(|messages: &[Value]| {
        let users = messages.iter().filter(|m| m["role"] == "user").count();
        let results = strict_server::turn_results(messages);
        match (users, results.len()) {
            (1, 0) => json!({"tool_calls": [strict_server::call("c1", "LOOKUP_CONTACT", json!({"name": "张经理"}))]}),
            (1, 1) => json!({"tool_calls": [strict_server::call("c2", "SEND_MAIL", json!({"to": "zhang@example.com"}))]}),
            (1, _) => json!({"content": "报告已发送给张经理。"}),
            _ => json!({"content": "是的，已经发送成功。"}),
        }
    }))
    .await;
    let env = mail_tools(&app);
    let (s, t) = app
        .post(
            "/api/targets",
            json!({"name": "mailer", "channel": {"kind": "openai", "base_url": server.base_url(), "model": "agent"}}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    let seeds = json!({
        "personas": [{"id": "p", "name": "王芳", "language": "zh"}],
        "goals": [{"id": "g", "title": "把周报发给张经理"}],
    });
    let (s, c) = app
        .post(
            "/api/campaigns",
            json!({"name": "mail", "target_id": t["id"], "duration_hours": 24, "seed_set": seeds,
                   "tool_env": env, "budget": {"max_turns": 2, "max_sessions": 1, "min_interval_minutes": 0}}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["tool_env"], env);
    let (s, session) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": c["id"], "persona": seeds["personas"][0], "goal": seeds["goals"][0],
                   "seed_ref": {"persona_id": "p", "goal_id": "g"}, "played_by": "person"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{session}");
    let sid = session["id"].as_str().unwrap();
    let path = format!("/api/exploration/sessions/{sid}/messages");
    let say = |text: &'static str| app.post(&path, json!({ "content": text }));
    let (s, first) = say("请把周报发给张经理").await;
    assert_eq!(s, StatusCode::OK, "{first}");
    assert_eq!(first["reply"], "报告已发送给张经理。");
    let steps = first["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 2, "{first}");
    assert_eq!(steps[0]["call"]["name"], "LOOKUP_CONTACT");
    assert_eq!(steps[1]["answer"]["kind"], "error");
    assert_eq!(steps[1]["answer"]["value"]["code"], "MAIL_SERVER_DOWN");
    assert_eq!(
        first["turns_remaining"], 1,
        "two tool rounds, one user turn: the ledger counts the user's turns"
    );
    let (s, second) = say("确认一下发了吗？").await;
    assert_eq!(s, StatusCode::OK, "{second}");
    let (s, refused) = say("再确认一次").await;
    assert_eq!(s, StatusCode::CONFLICT, "{refused}");
    assert!(refused["message"].is_string() && refused["suggestion"].is_string());
    assert!(server.refused().is_empty(), "{:?}", server.refused());
    let sent = server.accepted();
    assert!(
        sent.last().unwrap()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "tool" && m["tool_call_id"] == "c2"),
        "the second turn's request carries the first turn's tool rounds"
    );

    close_and_review(&app, sid, true).await;

    // The session's review names the failed send as the step each claim
    // is about, the second turn's claim too.
    let (s, transcript) = app
        .get(&format!("/api/exploration/sessions/{sid}/messages"))
        .await;
    assert_eq!(s, StatusCode::OK, "{transcript}");
    let claims: Vec<&Value> = transcript["judge_review"]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["text"]["key"] == "judge-claimed-failed")
        .collect();
    assert_eq!(claims.len(), 2, "{transcript}");
    for f in &claims {
        assert_eq!((f["turn"].as_u64(), f["step"].as_u64()), (Some(1), Some(2)));
        assert_eq!(f["dimension"], "trajectory");
        assert_eq!(f["text"]["args"]["code"], "MAIL_SERVER_DOWN");
    }

    // The report adds them up per kind and links each to its step.
    let (s, report) = app
        .get(&format!(
            "/api/campaigns/{}/report",
            c["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(s, StatusCode::OK, "{report}");
    let ex = &report["exploration"];
    assert_eq!(
        ex["trajectory_kinds"]["claimed-failed"],
        json!({"sessions": 1, "faults": 2}),
        "{ex}"
    );
    assert!(
        ex["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["dimension"] == "trajectory" && f["turn"] == 1 && f["step"] == 2),
        "{ex}"
    );
    // MCP's read_findings gives the same to an assistant.
    let read = support::mcp::tool(
        &app,
        support::KEY,
        "zh",
        "read_findings",
        json!({"campaign_id": c["id"]}),
    )
    .await;
    let found = &read["structuredContent"]["exploration"];
    assert_eq!(found["trajectory_kinds"], ex["trajectory_kinds"], "{read}");
    assert!(
        found["findings"].as_array().is_some_and(|f| f
            .iter()
            .any(|f| f["dimension"] == "trajectory" && f["step"] == 2)),
        "{read}"
    );

    // The campaign list's figures, from the tallies, are the report's.
    let (s, summaries) = app.get("/api/campaign-summaries").await;
    assert_eq!(s, StatusCode::OK, "{summaries}");
    let summary = summaries
        .as_array()
        .expect("a list")
        .iter()
        .find(|x| x["campaign_id"] == c["id"])
        .expect("the campaign's summary");
    assert_eq!(summary["goal_achievement_rate"], json!(1.0), "{summary}");
    assert_eq!(
        summary["goal_achievement_rate"],
        ex["goal_achievement_rate"]
    );
    for field in ["runs_planned", "runs_finished", "errors", "pass_rate"] {
        assert_eq!(summary[field], report["fixed"][field], "{field}: {summary}");
    }

    // And so does the Chinese Markdown, with the steps under the reply.
    let res = app
        .http
        .get(format!(
            "{}/api/campaigns/{}/export?format=md",
            app.base,
            c["id"].as_str().unwrap()
        ))
        .header("X-API-Key", support::KEY)
        .header("Accept-Language", "zh-CN")
        .send()
        .await
        .expect("export");
    assert_eq!(res.status(), StatusCode::OK);
    let md = res.text().await.unwrap();
    assert!(md.contains("声称已完成但调用失败 2（1 个会话）"), "{md}");
    assert!(md.contains(" 第 1 轮](#session-"), "{md}");
    assert!(
        md.contains(") 第 2 步）"),
        "the finding names its step: {md}"
    );
    assert!(
        md.contains("   2. `SEND_MAIL` `{\"to\":\"zhang@example.com\"}` → 错误 `MAIL_SERVER_DOWN`"),
        "the step, under the reply in the session's transcript: {md}"
    );
}
