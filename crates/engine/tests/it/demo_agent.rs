//! Tests: the built-in demo agent.

use agenteval_engine::channel::{ChatMessage, Role, ToolSpec};
use agenteval_engine::demo_agent::{DemoAgent, DemoReply};
use agenteval_engine::scenario::{from_skill, load_dir};
use serde_json::json;
use std::path::Path;

fn send_email_tool() -> ToolSpec {
    ToolSpec {
        responses: Vec::new(),
        name: "send_email".into(),
        description: "Send an email".into(),
        parameters: json!({"type": "object"}),
    }
}

/// Talks to the agent turn by turn; returns every reply.
fn talk(turns: &[&str], tools: &[ToolSpec]) -> Vec<DemoReply> {
    let agent = DemoAgent::new();
    let mut history = Vec::new();
    let mut out = Vec::new();
    for t in turns {
        history.push(ChatMessage::user(*t));
        let r = agent.respond(&history, tools);
        let mut m = ChatMessage::assistant(r.content.clone());
        m.tool_calls = r.tool_calls.clone();
        history.push(m);
        out.push(r);
    }
    out
}

fn one(text: &str) -> DemoReply {
    talk(&[text], &[send_email_tool()]).remove(0)
}

#[test]
fn asks_back_for_missing_fields_in_english() {
    let r = one("Please send an email to bob@example.com");
    assert!(
        r.tool_calls.is_empty(),
        "nothing is sent while fields are missing"
    );
    assert!(
        r.content.contains("subject") && r.content.contains("body"),
        "{}",
        r.content
    );
    assert!(
        !r.content.contains("(to)"),
        "the recipient was given: {}",
        r.content
    );
    assert!(r.content.contains('?'));
    let r = one("Write an email with the subject \"Hi\" and the body \"Hello\"");
    assert!(r.content.contains("recipient"), "{}", r.content);
}

#[test]
fn asks_back_for_missing_fields_in_chinese() {
    let r = one("帮我发一封邮件给 zhangsan@example.com");
    assert!(r.tool_calls.is_empty());
    assert!(
        r.content.contains("主题") && r.content.contains("正文"),
        "answers in Chinese, naming the missing fields: {}",
        r.content
    );
    let r = one("帮我发封邮件，主题是「周报」，内容是「本周进展顺利」");
    assert!(r.content.contains("收件人"), "{}", r.content);
}

#[test]
fn completes_with_a_tool_call_or_a_text_confirmation() {
    let text = "Send an email to a@example.com, cc b@example.com, subject \"Plan\", body \"See the plan.\" and attach plan.pdf";
    let r = one(text);
    assert_eq!(r.tool_calls.len(), 1);
    let args = &r.tool_calls[0].arguments;
    assert_eq!(args["to"], json!(["a@example.com"]));
    assert_eq!(args["cc"], json!(["b@example.com"]));
    assert_eq!(args["subject"], json!("Plan"));
    assert_eq!(args["attachments"][0]["filename"], json!("plan.pdf"));
    let no_tools = talk(&[text], &[]).remove(0);
    assert!(no_tools.tool_calls.is_empty());
    assert!(
        no_tools.content.starts_with("Email sent to a@example.com"),
        "{}",
        no_tools.content
    );
}

#[test]
fn refuses_invalid_addresses_limits_and_sender_override() {
    let r = one("Send an email to bob@@example with subject \"Hi\" and body \"Yo\"");
    assert!(r.tool_calls.is_empty());
    assert!(
        r.content.contains("not a valid email address"),
        "{}",
        r.content
    );
    let r = one("给 wang#example.com@ 发邮件，主题是「报价」，内容是「请查收」");
    assert!(r.content.contains("不是有效的邮箱地址"), "{}", r.content);

    let many: Vec<String> = (0..51).map(|i| format!("u{i}@example.com")).collect();
    let r = one(&format!(
        "Send an email to {} subject \"x\" body \"y\"",
        many.join(", ")
    ));
    assert!(
        r.tool_calls.is_empty() && r.content.contains("50"),
        "{}",
        r.content
    );

    let long = "s".repeat(201);
    let r = one(&format!(
        "Email a@example.com subject \"{long}\" body \"y\""
    ));
    assert!(
        r.tool_calls.is_empty() && r.content.contains("200"),
        "{}",
        r.content
    );

    let files: Vec<String> = (0..11).map(|i| format!("f{i}.pdf")).collect();
    let r = one(&format!(
        "Email a@example.com subject \"x\" body \"y\" attach {}",
        files.join(" ")
    ));
    assert!(
        r.tool_calls.is_empty() && r.content.contains("10"),
        "{}",
        r.content
    );

    let r = one("Send it from boss@example.com to a@example.com subject \"x\" body \"y\"");
    assert!(r.tool_calls.is_empty());
    assert!(r.content.contains("noreply@company.com"), "{}", r.content);
}

#[test]
fn is_deterministic() {
    let turns = [
        "你好",
        "帮我给 li@example.com 发邮件",
        "主题是「进度」",
        "内容是「一切顺利」",
    ];
    let a = talk(&turns, &[send_email_tool()]);
    let b = talk(&turns, &[send_email_tool()]);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.content, y.content);
        assert_eq!(
            x.tool_calls, y.tool_calls,
            "same input, same tool call ids too"
        );
        assert_eq!(x.usage, y.usage);
    }
    assert_eq!(a[3].tool_calls.len(), 1, "the email completes over turns");
    assert!(a[3].usage.tokens_in > 0 && a[3].usage.tokens_out > 0);
}

#[test]
fn flaw_keeps_the_first_recipient_after_a_change_of_mind() {
    let r = talk(
        &[
            "Email alice@example.com with the subject \"Offsite\"",
            "Actually, send it to carol@example.com instead. The body is \"See you.\"",
        ],
        &[send_email_tool()],
    );
    let args = &r[1].tool_calls[0].arguments;
    assert_eq!(
        args["to"],
        json!(["alice@example.com"]),
        "the demo agent deliberately ignores the correction"
    );
}

#[test]
fn flaw_invents_a_growth_figure_for_trends() {
    for text in [
        "Give me the sales trend: Q1: 100, Q2: 120",
        "分析一下销售增长趋势：一月: 50，二月: 60",
    ] {
        let r = one(text);
        assert!(
            r.content.contains("12.5%"),
            "a trend question gets a number that is not in the data: {}",
            r.content
        );
    }
}

#[test]
fn flaw_answers_only_the_first_of_two_requests() {
    let r = one("What are your opening hours? Also, I want a refund for order ORD-90412.");
    let both = r.content.contains("9:00") && r.content.contains("ORD-90412");
    assert!(!both, "one of the two requests is ignored: {}", r.content);
}

#[test]
fn office_and_customer_service_answers() {
    let r = one("Which are the top 2 regions? North: 10, South: 30, East: 20");
    assert!(r.content.contains("South: 30") && r.content.contains("East: 20"));
    assert!(!r.content.contains("North"), "{}", r.content);
    let r = one("Where is my order?");
    assert!(r.content.contains("order number"), "{}", r.content);
    let r = one("我的订单 ORD-12345 到哪了");
    assert!(
        r.content.contains("ORD-12345") && r.content.contains("已发货"),
        "{}",
        r.content
    );
    let r = one("营业时间是几点？");
    assert!(r.content.contains("9:00-18:00"), "{}", r.content);
    let r = one("Convert to JSON: A: 1, B: 2");
    assert!(r.content.contains("\"name\": \"A\""), "{}", r.content);
}

#[test]
fn unknown_requests_get_a_polite_clarification_in_the_users_language() {
    for (text, marker) in [
        ("What's the meaning of life?", "?"),
        ("今天天气怎么样", "？"),
        ("", "?"),
        ("🙂🙂🙂", "?"),
    ] {
        let r = one(text);
        assert!(r.tool_calls.is_empty());
        assert!(r.content.contains(marker), "{text:?} -> {}", r.content);
    }
    assert!(one("今天天气怎么样").content.contains("抱歉"));
}

#[test]
fn answers_a_tool_result_and_odd_histories_without_panicking() {
    let agent = DemoAgent::new();
    let first = agent.respond(
        &[ChatMessage::user(
            "Email a@example.com subject \"x\" body \"y\"",
        )],
        &[send_email_tool()],
    );
    let mut assistant = ChatMessage::assistant(first.content);
    assistant.tool_calls = first.tool_calls.clone();
    let mut tool = ChatMessage::new(Role::Tool, "{\"status\": \"sent\"}");
    tool.tool_call_id = Some(first.tool_calls[0].id.clone());
    let r = agent.respond(
        &[
            ChatMessage::user("Email a@example.com subject \"x\" body \"y\""),
            assistant,
            tool,
        ],
        &[send_email_tool()],
    );
    assert!(r.content.contains("a@example.com"), "{}", r.content);
    assert!(!agent.respond(&[], &[]).content.is_empty());
    assert!(
        !agent
            .respond(&[ChatMessage::system("only a system prompt")], &[])
            .content
            .is_empty()
    );
}

#[tokio::test]
async fn generated_skill_pack_loads_and_the_demo_agent_follows_it() {
    let manifest = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/send_email.skill.json"),
    )
    .expect("manifest");
    let pack = from_skill::derive_pack_from_text(&manifest).expect("derive");
    assert_eq!(pack.pack, "send_email");
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(dir.path().join("gen")).expect("mkdir");
    std::fs::write(dir.path().join("gen/send_email.yaml"), &pack.yaml).expect("write");
    let report = load_dir(dir.path());
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let ids: Vec<&str> = report.scenarios.iter().map(|s| s.id.as_str()).collect();
    for want in [
        "skill.send_email.complete_request",
        "skill.send_email.missing_to",
        "skill.send_email.missing_subject",
        "skill.send_email.missing_body",
        "skill.send_email.invalid_to",
        "skill.send_email.too_many_to",
        "skill.send_email.too_many_attachments",
        "skill.send_email.too_long_subject",
        "skill.send_email.sender_override",
    ] {
        assert!(
            ids.contains(&want),
            "{want} derives from the manifest: {ids:?}"
        );
    }
    assert!(
        !ids.contains(&"skill.send_email.too_long_body"),
        "a 100 KB limit is not spelled out in a scenario"
    );
    for s in &report.scenarios {
        let (ok, why) = crate::scenarios::run_with_demo(s).await;
        assert!(
            ok,
            "the demo agent implements the manifest, so {} passes: {why:?}",
            s.id
        );
    }
}

#[test]
fn from_skill_refuses_a_manifest_without_parameters() {
    let err = from_skill::derive_pack_from_text("{\"name\": \"noop\"}").expect_err("refused");
    assert!(
        err.body.message.contains("no parameters"),
        "{}",
        err.body.message
    );
    let zh = err.body.in_lang(agenteval_engine::Lang::Zh);
    assert_eq!(
        zh.message,
        "技能 `noop` 没有声明任何参数，因此没有可检查的内容"
    );
    let err = from_skill::derive_pack_from_text("{not json").expect_err("refused");
    assert!(
        err.body
            .message
            .starts_with("the skill manifest cannot be read, line 1: "),
        "{}",
        err.body.message
    );
    let zh = err.body.in_lang(agenteval_engine::Lang::Zh);
    assert!(
        zh.message.starts_with("技能清单无法读取，第 1 行："),
        "{}",
        zh.message
    );
}

#[test]
fn an_open_email_collects_fields_even_when_they_sound_like_other_tasks() {
    let r = talk(
        &[
            "I want to send an email to my manager about the report",
            "manager@example.com",
            "The subject is Weekly report",
            "and the message should say the report is attached",
        ],
        &[send_email_tool()],
    );
    assert!(r[1].content.contains("(subject)"), "{}", r[1].content);
    assert!(
        r[2].content.contains("(body)") && !r[2].content.contains("(subject)"),
        "\"Weekly report\" is the subject, not a weekly-report task: {}",
        r[2].content
    );
    let args = &r[3].tool_calls[0].arguments;
    assert_eq!(args["subject"], json!("Weekly report"));
    assert_eq!(args["body"], json!("the report is attached"));
    assert_eq!(args["to"], json!(["manager@example.com"]));
}

#[test]
fn a_bare_follow_up_keeps_the_conversation_language() {
    let r = talk(&["我的快递到哪了？", "ORD-55821"], &[]);
    assert!(
        r[1].content.contains("已发货") && r[1].content.contains("ORD-55821"),
        "an order number alone is answered in the conversation's language: {}",
        r[1].content
    );
}

#[test]
fn never_panics_and_always_answers_on_odd_input() {
    // A fixed pseudo-random walk over characters the parsers care about.
    let alphabet: Vec<char> =
        "ab Z09@@.-_:：，,;；\"“”「」'()（）#%％１２．\n\t订单邮件主题正文迟到版本 A:v2 -*é🙂"
            .chars()
            .collect();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let agent = DemoAgent::new();
    for round in 0..300 {
        let mut history = Vec::new();
        for _ in 0..3 {
            let len = (seed % 80) as usize;
            let text: String = (0..len)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    alphabet[(seed >> 33) as usize % alphabet.len()]
                })
                .collect();
            history.push(ChatMessage::user(text));
            let r = agent.respond(&history, &[send_email_tool()]);
            assert!(
                !r.content.trim().is_empty() || !r.tool_calls.is_empty(),
                "round {round}: every input gets an answer"
            );
            history.push(ChatMessage::assistant(r.content));
        }
    }
}

// ---- Seed 002's office agent at work: steps over the office tools ----

fn shipped() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// The shipped scenario `id`.
fn shipped_scenario(id: &str) -> agenteval_engine::scenario::Scenario {
    load_dir(&shipped())
        .scenarios
        .into_iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("{id} is shipped"))
}

/// An assistant message with its calls, then a `tool` message answering
/// each call with `answer` (JSON text).
fn answered(history: &mut Vec<ChatMessage>, reply: &DemoReply, answer: &serde_json::Value) {
    let mut m = ChatMessage::assistant(reply.content.clone());
    m.tool_calls = reply.tool_calls.clone();
    history.push(m);
    for c in &reply.tool_calls {
        let mut t = ChatMessage::new(Role::Tool, answer.to_string());
        t.tool_call_id = Some(c.id.clone());
        history.push(t);
    }
}

fn office_tools() -> Vec<ToolSpec> {
    shipped_scenario("office.query_sales_two_step")
        .tools
        .to_vec()
}

#[test]
fn offered_the_office_tools_it_lists_queries_the_listed_file_and_answers_from_the_result() {
    let agent = DemoAgent::new();
    let tools = office_tools();
    let mut history = vec![ChatMessage::user("帮我查一下第四季度各区域的销售额。")];
    let r = agent.respond(&history, &tools);
    assert_eq!(r.tool_calls.len(), 1, "{r:?}");
    assert_eq!(r.tool_calls[0].name, "FILE_LIST");
    answered(
        &mut history,
        &r,
        &json!({"files": ["notes.md", "2024_budget.xlsx", "Q4_sales_final.xlsx"]}),
    );
    let r = agent.respond(&history, &tools);
    assert_eq!(r.tool_calls[0].name, "DATA_QUERY");
    assert_eq!(
        r.tool_calls[0].arguments["file_path"],
        json!("Q4_sales_final.xlsx"),
        "the file the listing returned for sales, not a guessed one"
    );
    assert_eq!(r.tool_calls[0].arguments["group_by"], json!(["区域"]));
    answered(
        &mut history,
        &r,
        &json!({"sample_data": [{"区域": "华东", "销售额": 71}, {"区域": "华南", "销售额": 93}]}),
    );
    let r = agent.respond(&history, &tools);
    assert!(r.tool_calls.is_empty(), "it answers in words: {r:?}");
    assert!(
        r.content.contains("华东") && r.content.contains("71") && r.content.contains("华南（93）"),
        "the figures are the tool's: {}",
        r.content
    );
}

#[test]
fn on_file_not_found_it_follows_the_suggestion_and_on_another_error_it_retries_once() {
    let agent = DemoAgent::new();
    let tools = office_tools();
    let mut history = vec![ChatMessage::user("读取 sales.xlsx，按区域汇总销售额。")];
    let r = agent.respond(&history, &tools);
    assert_eq!(r.tool_calls[0].name, "DATA_QUERY");
    assert_eq!(r.tool_calls[0].arguments["file_path"], json!("sales.xlsx"));
    let not_found = json!({"status": {"code": "FILE_NOT_FOUND", "message": "找不到该文件", "suggestion": "先调用 FILE_LIST 查看可用文件"}});
    answered(&mut history, &r, &not_found);
    let r = agent.respond(&history, &tools);
    assert_eq!(
        r.tool_calls[0].name, "FILE_LIST",
        "the suggestion is followed"
    );
    answered(
        &mut history,
        &r,
        &json!({"files": ["sales.xlsx", "2025Q4_sales.xlsx"]}),
    );
    let r = agent.respond(&history, &tools);
    assert_eq!(
        r.tool_calls[0].arguments["file_path"],
        json!("2025Q4_sales.xlsx"),
        "not the file that just failed"
    );

    // An error without a recipe: the identical call once more (the flaw),
    // then words.
    let mut history = vec![ChatMessage::user("读取 员工考勤.xlsx 的 A0:F10 区域")];
    let first = agent.respond(&history, &tools);
    assert_eq!(
        first.tool_calls[0].arguments["query_range"],
        json!("A0:F10")
    );
    let invalid = json!({"status": {"code": "INVALID_RANGE", "message": "行号从 1 开始", "suggestion": "改为 A1:F10"}});
    answered(&mut history, &first, &invalid);
    let again = agent.respond(&history, &tools);
    assert_eq!(again.tool_calls.len(), 1);
    assert_eq!(again.tool_calls[0].name, first.tool_calls[0].name);
    assert_eq!(again.tool_calls[0].arguments, first.tool_calls[0].arguments);
    assert_ne!(
        again.tool_calls[0].id, first.tool_calls[0].id,
        "a repeated call still gets an id of its own"
    );
    answered(&mut history, &again, &invalid);
    let words = agent.respond(&history, &tools);
    assert!(words.tool_calls.is_empty(), "no third try: {words:?}");
    assert!(words.content.contains("A1:F10"), "{}", words.content);
}

#[test]
fn without_office_tools_or_a_data_request_it_talks_as_before() {
    let agent = DemoAgent::new();
    let r = agent.respond(&[ChatMessage::user("你好")], &office_tools());
    assert!(r.tool_calls.is_empty(), "a greeting calls no tool: {r:?}");
    let r = agent.respond(
        &[ChatMessage::user("帮我查一下第四季度各区域的销售额。")],
        &[send_email_tool()],
    );
    assert!(
        r.tool_calls.is_empty(),
        "no office tools, no FILE_LIST: {r:?}"
    );
}

#[tokio::test]
async fn fixing_the_invented_figure_fixes_the_trend_read_from_a_file_too() {
    use agenteval_engine::demo_agent::Fix;
    let s = shipped_scenario("office.quarterly_trend_from_file");
    let (ok, why) = crate::scenarios::run_with(&DemoAgent::new(), &s).await;
    assert!(!ok, "the built-in flaw fails it");
    assert!(
        why.len() == 1 && why[0].contains("no_unverified_numbers") && why[0].contains("12.5"),
        "only the number gate, on the invented figure: {why:?}"
    );
    let fixed = DemoAgent::new().fixing(&[Fix::InventedFigure]);
    let (ok, why) = crate::scenarios::run_with(&fixed, &s).await;
    assert!(ok, "fixed, it describes the data it queried: {why:?}");
}

/// Every shipped scenario played once by the built-in demo target through
/// the platform: the engine plays the declared tools, the demo agent acts
/// in steps, and its deliberate flaws fail exactly their scenarios.
#[tokio::test]
async fn over_the_platform_it_acts_in_steps_and_its_flaws_fail_their_scenarios() {
    use agenteval_engine::campaign::{CreateCampaign, Plan, PlanEntry};
    use agenteval_engine::domain::steps::StepAnswer;
    use agenteval_engine::fixed::Verdict;
    use agenteval_engine::target::TargetSettings;

    let tp = crate::support::platform().await;
    let p = &tp.platform;
    let loaded = p.load_scenarios(&[shipped()]).await.expect("load");
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let target = p
        .create_target(TargetSettings::builtin_demo("Demo"))
        .await
        .expect("target");
    let entries = loaded
        .scenarios
        .iter()
        .map(|s| PlanEntry {
            scenario_id: s.id.clone(),
            rounds: Some(1),
            ..Default::default()
        })
        .collect();
    let c = p
        .create_campaign(CreateCampaign {
            name: "acting".into(),
            target_id: target.id,
            plan: Some(Plan { entries }),
            duration_hours: Some(1.0),
            ..Default::default()
        })
        .await
        .expect("campaign");
    for _ in 0..20 {
        p.tick().await.expect("tick");
        let runs = p.list_runs(c.id).await.expect("runs");
        if runs.iter().all(|r| r.verdict.is_some()) {
            break;
        }
        tp.clock.advance(chrono::Duration::minutes(10));
    }
    let runs = p.list_runs(c.id).await.expect("runs");
    assert_eq!(runs.len(), loaded.scenarios.len());
    let run = |id: &str| runs.iter().find(|r| r.scenario_id == id).expect("run");
    let failed_kinds = |id: &str| {
        let mut k: Vec<String> = run(id)
            .check_results
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.kind.clone())
            .collect();
        k.sort();
        k
    };
    let mut failed: Vec<&str> = runs
        .iter()
        .filter(|r| r.verdict != Some(Verdict::Passed))
        .map(|r| r.scenario_id.as_str())
        .collect();
    failed.sort_unstable();
    assert_eq!(
        failed,
        [
            "cs.two_requests",
            "office.contract_clauses",
            "office.email_tool_not_offered",
            "office.invalid_range_retry",
            "office.late_employees",
            "office.quarterly_trend_from_file",
            "office.sales_trend",
            "send_email.change_of_mind",
        ],
        "the deliberate flaws, and only they, fail: {:#?}",
        runs.iter()
            .filter(|r| r.verdict != Some(Verdict::Passed))
            .map(|r| (&r.scenario_id, &r.check_results, &r.error_reason))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        failed_kinds("office.invalid_range_retry"),
        ["recovers_from_error"]
    );
    assert_eq!(
        failed_kinds("office.quarterly_trend_from_file"),
        ["no_unverified_numbers"]
    );
    assert_eq!(
        failed_kinds("office.email_tool_not_offered"),
        ["no_unknown_tools", "tool_not_called"]
    );
    // In the workspaces: the invented figure is in the report, the trap
    // employee is warned, the penalty is missing from the summary.
    assert_eq!(
        failed_kinds("office.sales_trend"),
        ["no_unverified_numbers"]
    );
    assert_eq!(failed_kinds("office.late_employees"), ["not_contains"]);
    assert_eq!(failed_kinds("office.contract_clauses"), ["document"]);

    let mut turns = std::collections::HashMap::new();
    for r in &runs {
        let stored = p.run_turns(r.id).await.expect("turns");
        turns.insert(r.scenario_id.clone(), stored);
    }
    let steps = |id: &str, n: usize| {
        turns[id]
            .iter()
            .filter(|t| t.role == "target")
            .nth(n)
            .cloned()
            .expect("target turn")
    };
    let names = |t: &agenteval_engine::fixed::RunTurn| -> Vec<String> {
        t.steps.iter().map(|s| s.call.name.clone()).collect()
    };
    let code = |a: &StepAnswer| a.error().map(|e| e.code.clone()).unwrap_or_default();

    let two = steps("office.query_sales_two_step", 0);
    assert_eq!(names(&two), ["FILE_LIST", "DATA_QUERY"]);
    assert_eq!(
        two.steps[1].call.arguments["file_path"],
        json!("2025Q4_sales.xlsx")
    );
    assert_eq!(
        two.steps.iter().map(|s| s.round).collect::<Vec<_>>(),
        [1, 2]
    );
    assert!(two.tool_calls.is_empty(), "it ended in words");
    assert!(
        two.content.contains("华南") && two.content.contains("1450"),
        "{}",
        two.content
    );

    let recovered = steps("office.file_not_found_recovery", 0);
    assert_eq!(names(&recovered), ["DATA_QUERY", "FILE_LIST", "DATA_QUERY"]);
    assert_eq!(code(&recovered.steps[0].answer), "FILE_NOT_FOUND");
    assert!(matches!(recovered.steps[2].answer, StepAnswer::Result(_)));

    let retried = steps("office.invalid_range_retry", 0);
    assert_eq!(names(&retried), ["DATA_QUERY", "DATA_QUERY"]);
    assert_eq!(
        retried.steps[0].call.arguments,
        retried.steps[1].call.arguments
    );
    assert_eq!(code(&retried.steps[1].answer), "INVALID_RANGE");
    let caught = run("office.invalid_range_retry")
        .check_results
        .iter()
        .find(|c| c.kind == "recovers_from_error")
        .expect("check");
    assert_eq!(caught.step, Some(2), "the repeated call is named");

    let unknown = steps("office.email_tool_not_offered", 0);
    assert_eq!(names(&unknown), ["FILE_LIST", "DATA_QUERY", "send_email"]);
    assert_eq!(code(&unknown.steps[2].answer), "UNKNOWN_TOOL");
    assert!(unknown.content.contains("无法"), "{}", unknown.content);

    // A task over the real files: the wrong name, the listing, a first
    // look, the grouped sums without the 合计 row, the document.
    let top3 = steps("office.top3_regions", 0);
    assert_eq!(
        names(&top3),
        [
            "DATA_QUERY",
            "FILE_LIST",
            "DATA_QUERY",
            "DATA_QUERY",
            "DOC_CREATE"
        ]
    );
    assert_eq!(code(&top3.steps[0].answer), "FILE_NOT_FOUND");
    assert!(
        top3.steps[4]
            .document
            .as_ref()
            .is_some_and(|d| d.path == "output/前三区域.md" && d.text.contains("1. 华东：2378")),
        "the step keeps the document it wrote: {:?}",
        top3.steps[4].document
    );
    assert!(top3.content.contains("3. 华北：1941"), "{}", top3.content);

    // Two turns: the first ends on CONTROL_WAIT, the second goes on.
    let waited = steps("office.report_after_confirmation", 0);
    assert_eq!(names(&waited), ["FILE_LIST", "DATA_QUERY", "CONTROL_WAIT"]);
    assert!(waited.content.contains("大纲"), "{}", waited.content);
    let created = steps("office.report_after_confirmation", 1);
    assert_eq!(names(&created), ["DOC_CREATE"]);
    assert!(
        created.steps[0].call.arguments["sections"][0]["content"]
            .as_str()
            .is_some_and(|c| c.contains("1450")),
        "the document carries the figures queried in the turn before: {:?}",
        created.steps[0].call.arguments
    );
    assert!(
        created.content.contains("2025Q4销售报告.docx"),
        "{}",
        created.content
    );

    let report = p.campaign_report(c.id).await.expect("report");
    let rate = report.fixed.pass_rate.expect("a pass rate");
    assert!(rate > 0.0 && rate < 1.0, "{rate}");
    // The campaign list's figures, from the tallies, are the report's.
    let summaries = p.campaign_summaries().await.expect("summaries");
    let summary = summaries
        .iter()
        .find(|x| x.campaign_id == c.id)
        .expect("its summary");
    assert_eq!(
        (
            summary.runs_planned,
            summary.runs_finished,
            summary.errors,
            summary.pass_rate
        ),
        (
            report.fixed.runs_planned,
            report.fixed.runs_finished,
            report.fixed.errors,
            report.fixed.pass_rate
        )
    );
    assert_eq!(summary.goal_achievement_rate, None, "no session");

    // The runs' exports, written a page of runs at a time, are the text of
    // the whole list rendered at once, whatever the page.
    use agenteval_engine::export::{ExportFormat, junit, runs_csv_with_tools};
    use futures::TryStreamExt;
    let mut tools = std::collections::HashMap::new();
    for r in &runs {
        let called: Vec<String> = turns[&r.scenario_id].iter().flat_map(names).collect();
        if !called.is_empty() {
            tools.insert(r.id, called);
        }
    }
    let lang = agenteval_engine::Lang::Zh;
    let whole_csv = runs_csv_with_tools(&runs, &tools, lang);
    assert!(whole_csv.lines().next().unwrap().ends_with(",steps,tools"));
    let whole_xml = junit(&report, &runs, lang);
    for page in [1, 7, 1000] {
        for (format, whole) in [
            (ExportFormat::Csv, &whole_csv),
            (ExportFormat::Junit, &whole_xml),
        ] {
            let chunks: Vec<String> = p
                .export_paged(c.id, format, lang, page)
                .await
                .expect("export")
                .try_collect()
                .await
                .expect("every chunk");
            assert_eq!(
                chunks.len(),
                runs.len().div_ceil(page as usize) + 2,
                "{format:?}: the head, a chunk per page of {page}, the end"
            );
            assert_eq!(&chunks.concat(), whole, "{format:?} in pages of {page}");
        }
    }
}
