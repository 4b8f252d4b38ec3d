//! Tests: checks, each kind passing and failing on constructed replies.

use agenteval_engine::channel::{
    Channel, ChannelError, ChannelErrorKind, ChatMessage, ChatReply, ChatRequest, ToolCall,
};
use agenteval_engine::checks::{
    CheckResult, TurnContext, key_field_coverage, parse_judge_score, run_checks,
};
use agenteval_engine::judge::JudgeMethod;
use agenteval_engine::scenario::{Check, Scenario, ScenarioTurn};
use serde_json::json;
use std::sync::Mutex;

fn scenario(facts: &[&str]) -> Scenario {
    Scenario {
        max_steps: None,
        workspace: None,
        id: "t.one".into(),
        title: "t".into(),
        pack: "t".into(),
        tags: vec![],
        group: None,
        system: None,
        facts: facts.iter().map(|s| s.to_string()).collect(),
        key_fields: vec![],
        tools: Default::default(),
        turns: vec![ScenarioTurn {
            max_steps: None,
            user: "hi".into(),
            checks: vec![],
        }],
        source_file: "t.yaml".into(),
        shipped: false,
        source_line: 1,
        content_hash: String::new(),
        lineage: None,
        from_traces: None,
    }
}

fn reply(content: &str) -> ChatReply {
    ChatReply {
        content: content.into(),
        tool_calls: vec![],
        usage: None,
        latency_ms: 120,
        model: None,
    }
}

fn with_call(content: &str, name: &str, args: serde_json::Value) -> ChatReply {
    let mut r = reply(content);
    r.tool_calls.push(ToolCall {
        id: "call_1".into(),
        name: name.into(),
        arguments: args,
    });
    r
}

async fn run_one_with(
    check: Check,
    s: &Scenario,
    user: &str,
    r: &ChatReply,
    judge: Option<&dyn Channel>,
) -> CheckResult {
    let history = vec![ChatMessage::user(user)];
    let ctx = TurnContext {
        steps: &[],
        documents: &[],
        files: &[],
        scenario: s,
        turn: 0,
        history: &history,
        reply: r,
    };
    let mut out = run_checks(&[check], &ctx, judge).await;
    assert_eq!(out.len(), 1, "one result per check");
    out.remove(0)
}

async fn run_one(check: Check, r: &ChatReply) -> CheckResult {
    run_one_with(check, &scenario(&[]), "hello", r, None).await
}

fn contains(value: &str) -> Check {
    Check::Contains {
        value: Some(value.into()),
        any: vec![],
        case_sensitive: false,
    }
}

#[tokio::test]
async fn contains_is_case_insensitive_by_default_and_supports_any() {
    let r = reply("Your ORDER has shipped.");
    assert!(run_one(contains("order"), &r).await.passed);
    let strict = Check::Contains {
        value: Some("order".into()),
        any: vec![],
        case_sensitive: true,
    };
    let res = run_one(strict, &r).await;
    assert!(!res.passed, "case-sensitive must not match ORDER");
    assert!(
        res.detail.to_string().contains("does not contain"),
        "{}",
        res.detail
    );
    let any = Check::Contains {
        value: None,
        any: vec!["refund".into(), "shipped".into()],
        case_sensitive: false,
    };
    assert!(run_one(any, &r).await.passed);
    let none = Check::Contains {
        value: None,
        any: vec!["refund".into(), "cancel".into()],
        case_sensitive: false,
    };
    let res = run_one(none, &r).await;
    assert!(!res.passed);
    assert!(
        res.detail.to_string().contains("refund") && res.detail.to_string().contains("cancel"),
        "{}",
        res.detail
    );
}

#[tokio::test]
async fn not_contains_names_the_forbidden_text() {
    let check = Check::NotContains {
        value: None,
        any: vec!["guarantee".into(), "promise".into()],
        case_sensitive: false,
    };
    assert!(
        run_one(check.clone(), &reply("We will look into it."))
            .await
            .passed
    );
    let res = run_one(check, &reply("I PROMISE it arrives today.")).await;
    assert!(!res.passed);
    assert!(res.detail.to_string().contains("promise"), "{}", res.detail);
}

#[tokio::test]
async fn regex_matches_and_fails() {
    let check = Check::Regex {
        pattern: r"ORD-\d{4,}".into(),
    };
    let ok = run_one(check.clone(), &reply("Order ORD-12345 shipped")).await;
    assert!(
        ok.passed && ok.detail.to_string().contains("ORD-12345"),
        "{}",
        ok.detail
    );
    assert!(!run_one(check, &reply("Order 12 shipped")).await.passed);
}

#[tokio::test]
async fn json_path_reads_embedded_json_and_tool_arguments() {
    let check = Check::JsonPath {
        path: "$.items[0].name".into(),
        equals: Some(json!("Widget")),
    };
    let prose = "Here you go:\n```json\n{\"items\": [{\"name\": \"Widget\", \"value\": 3}]}\n```";
    assert!(run_one(check.clone(), &reply(prose)).await.passed);
    let wrong = run_one(
        check.clone(),
        &reply("{\"items\": [{\"name\": \"Gadget\"}]}"),
    )
    .await;
    assert!(!wrong.passed);
    assert!(
        wrong.detail.to_string().contains("Gadget"),
        "{}",
        wrong.detail
    );
    let nothing = run_one(check, &reply("no json here")).await;
    assert!(!nothing.passed);
    assert!(
        nothing.detail.to_string().contains("no JSON"),
        "{}",
        nothing.detail
    );

    let on_args = Check::JsonPath {
        path: "$.to[0]".into(),
        equals: Some(json!("a@example.com")),
    };
    let call = with_call("Sending.", "send_email", json!({"to": ["a@example.com"]}));
    assert!(
        run_one(on_args, &call).await.passed,
        "tool arguments are queried"
    );
    let number = Check::JsonPath {
        path: "$[1].value".into(),
        equals: Some(json!(40)),
    };
    assert!(
        run_one(number, &reply("[{\"value\": 25}, {\"value\": 40.0}]"))
            .await
            .passed,
        "40 and 40.0 are the same number"
    );
}

#[tokio::test]
async fn max_latency_compares_the_reply_latency() {
    let mut r = reply("ok");
    r.latency_ms = 900;
    assert!(run_one(Check::MaxLatencyMs { ms: 1000 }, &r).await.passed);
    let res = run_one(Check::MaxLatencyMs { ms: 500 }, &r).await;
    assert!(
        !res.passed && res.detail.to_string().contains("900"),
        "{}",
        res.detail
    );
}

#[tokio::test]
async fn tool_called_validates_arguments_against_the_schema() {
    let schema = json!({
        "type": "object",
        "required": ["to", "subject"],
        "properties": {
            "to": {"type": "array", "items": {"type": "string", "pattern": "^[\\w.-]+@[\\w.-]+\\.\\w+$"}},
            "subject": {"type": "string", "maxLength": 10}
        }
    });
    let check = Check::ToolCalled {
        name: "send_email".into(),
        arguments_schema: Some(schema),
    };
    let good = with_call(
        "",
        "send_email",
        json!({"to": ["a@example.com"], "subject": "Hi"}),
    );
    assert!(run_one(check.clone(), &good).await.passed);
    let bad = with_call(
        "",
        "send_email",
        json!({"to": ["not an address"], "subject": "A very long subject"}),
    );
    let res = run_one(check.clone(), &bad).await;
    assert!(
        !res.passed,
        "invalid address and long subject break the schema"
    );
    assert!(
        res.detail.to_string().contains("/to/0"),
        "names where: {}",
        res.detail
    );
    let other = with_call("", "create_event", json!({}));
    let res = run_one(check.clone(), &other).await;
    assert!(
        !res.passed && res.detail.to_string().contains("create_event"),
        "{}",
        res.detail
    );
    let res = run_one(check, &reply("Email sent!")).await;
    assert!(
        !res.passed && res.detail.to_string().contains("no tool call"),
        "{}",
        res.detail
    );
}

#[tokio::test]
async fn asks_clarification_needs_a_question_the_field_and_no_action() {
    let to = Check::AsksClarification {
        field: Some("to".into()),
    };
    assert!(
        run_one(
            to.clone(),
            &reply("Who should receive it? Please give the recipient's address.")
        )
        .await
        .passed
    );
    assert!(
        run_one(to.clone(), &reply("请问收件人的邮箱地址是什么"))
            .await
            .passed,
        "Chinese question words without a question mark count"
    );
    let res = run_one(to.clone(), &reply("What subject should I use?")).await;
    assert!(!res.passed, "asks about something else, not the recipient");
    let res = run_one(to.clone(), &reply("Email sent to the team.")).await;
    assert!(
        !res.passed && res.detail.to_string().contains("asks nothing"),
        "{}",
        res.detail
    );
    let acted = with_call("Who should receive it?", "send_email", json!({}));
    let res = run_one(to, &acted).await;
    assert!(!res.passed, "a tool call is acting, not asking");
    let subject = Check::AsksClarification {
        field: Some("subject".into()),
    };
    assert!(
        run_one(subject, &reply("还缺少邮件主题，请提供一下？"))
            .await
            .passed
    );
    let any = Check::AsksClarification { field: None };
    assert!(run_one(any, &reply("Could you tell me more?")).await.passed);
}

#[tokio::test]
async fn no_repeat_fails_a_reply_given_again_word_for_word() {
    let s = scenario(&[]);
    let check = |previous: &[&str], now: &str| {
        let mut history = Vec::new();
        for p in previous {
            history.push(ChatMessage::user("Where is my order?"));
            history.push(ChatMessage::assistant(*p));
        }
        history.push(ChatMessage::user("I already told you: A1024"));
        let r = reply(now);
        let s = s.clone();
        async move {
            let ctx = TurnContext {
                steps: &[],
                documents: &[],
                files: &[],
                scenario: &s,
                turn: 1,
                history: &history,
                reply: &r,
            };
            run_checks(&[Check::NoRepeat], &ctx, None).await.remove(0)
        }
    };
    let asked = "What is your order number?";
    let again = check(&[asked], "  what is your ORDER number? ").await;
    assert!(
        !again.passed,
        "the same reply, whatever its case and spacing"
    );
    assert!(
        again.detail.to_string().contains("ORDER number"),
        "{}",
        again.detail
    );
    assert!(check(&[asked], "Order A1024 ships tomorrow.").await.passed);
    assert!(
        check(&[], asked).await.passed,
        "a first reply repeats nothing"
    );
}

#[tokio::test]
async fn number_gate_accepts_given_numbers_in_any_notation() {
    let s = scenario(&["Revenue: 1,200.50", "Margin: 12.5%", "Units: 30"]);
    let check = Check::NoUnverifiedNumbers;
    let ok = run_one_with(
        check.clone(),
        &s,
        "Summarise for 2025",
        &reply("In 2025 revenue was 1200.5 with a margin of １２．５％ on 30 units."),
        None,
    )
    .await;
    assert!(
        ok.passed,
        "commas, trailing zeros, full-width digits are the same numbers: {}",
        ok.detail
    );
    let bad = run_one_with(
        check.clone(),
        &s,
        "Summarise for 2025",
        &reply("Revenue grew 8.3% to 1,200.50, up 15％ on last year."),
        None,
    )
    .await;
    assert!(!bad.passed);
    assert!(
        bad.detail.to_string().contains("8.3%") && bad.detail.to_string().contains("15%"),
        "names each unverified number: {}",
        bad.detail
    );
    assert!(
        !bad.detail.to_string().contains("1,200.50"),
        "{}",
        bad.detail
    );
    let cjk = run_one_with(
        check.clone(),
        &s,
        "总结一下",
        &reply("营收为 ３５ 万元。"),
        None,
    )
    .await;
    assert!(!cjk.passed, "full-width 35 is a number not in the facts");
    let separated = run_one_with(
        check.clone(),
        &scenario(&["华东: 1200", "华北: 950"]),
        "排名",
        &reply("华东 1200，华北 950"),
        None,
    )
    .await;
    assert!(
        separated.passed,
        "a Chinese comma separates numbers, it is no thousands separator: {}",
        separated.detail
    );
    let list = run_one_with(
        check,
        &s,
        "outline",
        &reply("1. Revenue\n2. Margin of 12.5%\n3. Units"),
        None,
    )
    .await;
    assert!(list.passed, "list markers are not claims: {}", list.detail);
}

#[tokio::test]
async fn rubric_without_judge_uses_a_labelled_heuristic() {
    let check = Check::Rubric {
        rubric: "A friendly reply that explains the refund policy".into(),
        min_score: Some(3),
    };
    let good = run_one(
        check.clone(),
        &reply("Thanks for asking! Our refund policy: refunds are returned to your card after the item arrives."),
    )
    .await;
    assert!(good.passed, "{}", good.detail);
    assert!(
        good.detail.to_string().contains("offline heuristic"),
        "{}",
        good.detail
    );
    assert_eq!(
        (good.score, good.judged_by),
        (Some(4), Some(JudgeMethod::Heuristic)),
        "the score and who gave it are kept for the blind review queue"
    );
    assert_eq!(
        run_one(contains("refund"), &reply("refund")).await.score,
        None,
        "only rubric checks carry a score"
    );
    for bad in [
        "",
        "ok",
        "I can't help with that request, sorry about that.",
    ] {
        let res = run_one(check.clone(), &reply(bad)).await;
        assert!(!res.passed, "{bad:?} should score low: {}", res.detail);
    }
    let repeated = "Please wait. Please wait. Please wait. Please wait.";
    assert!(!run_one(check, &reply(repeated)).await.passed);
}

/// A judge that answers with a fixed text and records what it was asked.
struct FakeJudge {
    answer: Result<String, ()>,
    asked: Mutex<Vec<String>>,
}

#[async_trait::async_trait]
impl Channel for FakeJudge {
    async fn send(&self, request: &ChatRequest) -> Result<ChatReply, ChannelError> {
        self.asked.lock().expect("lock").push(
            request
                .messages
                .iter()
                .map(|m| m.content.clone())
                .collect::<Vec<_>>()
                .join("\n"),
        );
        match &self.answer {
            Ok(a) => Ok(reply(a)),
            Err(()) => Err(ChannelError::new(ChannelErrorKind::Timeout, "timed out")),
        }
    }
}

#[tokio::test]
async fn rubric_with_judge_parses_its_score() {
    let check = Check::Rubric {
        rubric: "Polite and complete".into(),
        min_score: Some(4),
    };
    let judge = FakeJudge {
        answer: Ok("Sure! ```json\n{\"score\": \"5\", \"reason\": \"polite\"}\n```".into()),
        asked: Mutex::new(vec![]),
    };
    let res = run_one_with(
        check.clone(),
        &scenario(&[]),
        "hi",
        &reply("Hello, how can I help?"),
        Some(&judge),
    )
    .await;
    assert!(res.passed, "{}", res.detail);
    assert!(
        res.detail.to_string().contains("judge scored 5/5"),
        "{}",
        res.detail
    );
    assert_eq!(
        (res.score, res.judged_by),
        (Some(5), Some(JudgeMethod::Model))
    );
    let asked = judge.asked.lock().expect("lock").join("\n");
    assert!(asked.contains("Polite and complete") && asked.contains("Hello, how can I help?"));

    let low = FakeJudge {
        answer: Ok("{\"score\": 2, \"reason\": \"terse\"}".into()),
        asked: Mutex::new(vec![]),
    };
    let res = run_one_with(
        check.clone(),
        &scenario(&[]),
        "hi",
        &reply("Hello."),
        Some(&low),
    )
    .await;
    assert!(
        !res.passed && res.detail.to_string().contains("terse"),
        "{}",
        res.detail
    );

    let down = FakeJudge {
        answer: Err(()),
        asked: Mutex::new(vec![]),
    };
    let res = run_one_with(check, &scenario(&[]), "hi", &reply("Hello."), Some(&down)).await;
    assert!(
        res.detail.to_string().contains("offline heuristic"),
        "an unreachable judge falls back to the heuristic: {}",
        res.detail
    );
}

#[test]
fn judge_scores_are_parsed_robustly() {
    assert_eq!(
        parse_judge_score("{\"score\": 4, \"reason\": \"ok\"}").map(|s| s.0),
        Some(4)
    );
    assert_eq!(parse_judge_score("Score: 3 - decent").map(|s| s.0), Some(3));
    assert_eq!(parse_judge_score("{\"score\": 4.6}").map(|s| s.0), Some(5));
    assert_eq!(parse_judge_score("{\"score\": 9}").map(|s| s.0), None);
    assert_eq!(parse_judge_score("no idea"), None);
}

#[test]
fn key_field_coverage_counts_fields_present() {
    let mut s = scenario(&[]);
    assert_eq!(key_field_coverage(&s, &["x"]), None);
    s.key_fields = vec!["合同期限".into(), "违约金".into(), "Payment".into()];
    let cov = key_field_coverage(&s, &["合同期限：2年", "payment within 30 days"]).expect("some");
    assert!((cov - 2.0 / 3.0).abs() < 1e-9, "two of three fields: {cov}");
}

#[tokio::test]
async fn number_gate_reads_long_sources_and_repeated_ones_alike() {
    // A fact longer than the sources whose numbers are kept between runs,
    // with its number at the end.
    let long = format!("{} Budget: 4,750", "Background. ".repeat(400));
    assert!(long.len() > 4096);
    for facts in [vec![long.as_str()], vec!["Budget: 4,750"]] {
        let s = scenario(&facts);
        // Twice: the second run reads what the first kept.
        for _ in 0..2 {
            let ok = run_one_with(
                Check::NoUnverifiedNumbers,
                &s,
                "What is the budget?",
                &reply("The budget is 4750."),
                None,
            )
            .await;
            assert!(ok.passed, "{}", ok.detail);
            let bad = run_one_with(
                Check::NoUnverifiedNumbers,
                &s,
                "What is the budget?",
                &reply("The budget is 4760."),
                None,
            )
            .await;
            assert!(
                !bad.passed && bad.detail.to_string().contains("4760"),
                "{}",
                bad.detail
            );
        }
    }
}
