//! Production conversations rebuilt from OTLP/JSON traces: both GenAI
//! conventions (messages as span attributes, the older events), spans of
//! one conversation joined, tool calls kept, bad lines and spans named by
//! line and skipped, personal data redacted before anything is kept.

use agenteval_engine::channel::Role;
use agenteval_engine::traces::{self, Encoding, Redactor};
use serde_json::{Value, json};

fn attr(key: &str, value: &str) -> Value {
    json!({"key": key, "value": {"stringValue": value}})
}

fn span(trace: &str, span: &str, name: &str, start: u64, attributes: Vec<Value>) -> Value {
    json!({
        "traceId": trace, "spanId": span, "name": name, "kind": 3,
        "startTimeUnixNano": start.to_string(), "endTimeUnixNano": (start + 10).to_string(),
        "attributes": attributes,
    })
}

fn export(spans: Vec<Value>) -> String {
    json!({"resourceSpans": [{
        "resource": {"attributes": [attr("service.name", "shop-assistant")]},
        "scopeSpans": [{"scope": {"name": "test"}, "spans": spans}]
    }]})
    .to_string()
}

const T1: &str = "5b8efff798038103d269b633813fc60c";
const T2: &str = "0af7651916cd43dd8448eb211c80319c";

fn input() -> String {
    let first_user = json!([{"role": "user", "parts": [{"type": "text", "content": "Where is my order? Mail me at ada@example.com"}]}]);
    let call = json!({"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1", "name": "get_order", "arguments": {"order_id": "A1024", "phone": "+44 20 7946 0958"}}]});
    let first = span(
        T1,
        "eee19b7ec3c1b174",
        "chat shop-model",
        1_733_000_000_000_000_000,
        vec![
            attr("gen_ai.operation.name", "chat"),
            attr("gen_ai.conversation.id", "conv-1"),
            attr("gen_ai.request.model", "shop-model"),
            attr(
                "gen_ai.system_instructions",
                &json!([{"type": "text", "content": "You are the shop's assistant."}]).to_string(),
            ),
            attr("gen_ai.input.messages", &first_user.to_string()),
            attr("gen_ai.output.messages", &json!([call]).to_string()),
        ],
    );
    let mut history = first_user.as_array().unwrap().clone();
    history.push(call);
    history.push(json!({"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": {"status": "shipped"}}]}));
    let second = span(T1, "eee19b7ec3c1b175", "chat shop-model", 1_733_000_001_000_000_000, vec![
        attr("gen_ai.operation.name", "chat"),
        attr("gen_ai.conversation.id", "conv-1"),
        attr("gen_ai.response.model", "shop-model-2025"),
        attr("gen_ai.input.messages", &Value::Array(history).to_string()),
        attr("gen_ai.output.messages", &json!([{"role": "assistant", "parts": [{"type": "text", "content": "It shipped and arrives tomorrow."}], "finish_reason": "stop"}]).to_string()),
    ]);
    let http = span(
        T1,
        "eee19b7ec3c1b176",
        "GET /orders",
        1_733_000_000_500_000_000,
        vec![attr("http.request.method", "GET")],
    );
    let mut older = span(
        T2,
        "00f067aa0ba902b7",
        "chat",
        1_733_000_100_000_000_000,
        vec![attr("gen_ai.operation.name", "chat")],
    );
    older["events"] = json!([
        {"name": "gen_ai.user.message", "timeUnixNano": "1733000100000000000", "attributes": [attr("content", "退款什么时候到账？")]},
        {"name": "gen_ai.choice", "timeUnixNano": "1733000100000000001", "attributes": [attr("message", &json!({"role": "assistant", "content": "请问您的订单号是多少？"}).to_string())]},
    ]);
    let empty = span(
        T2,
        "00f067aa0ba902b8",
        "chat empty",
        1_733_000_200_000_000_000,
        vec![attr("gen_ai.operation.name", "chat")],
    );
    [
        export(vec![first, http, second]),
        "{\"resourceSpans\": [".to_string(),
        json!({"metrics": []}).to_string(),
        export(vec![older]),
        String::new(),
        export(vec![empty]),
    ]
    .join("\n")
}

#[test]
fn conversations_are_rebuilt_from_both_conventions_and_bad_lines_are_named() {
    let (conversations, summary) =
        traces::import(input().as_bytes(), Encoding::Json, &Redactor::none());
    assert_eq!(
        conversations.len(),
        2,
        "one per conversation id or trace: {conversations:#?}"
    );

    let shop = &conversations[0];
    assert_eq!(shop.key, "conv-1");
    assert_eq!(shop.trace_ids, vec![T1.to_string()], "its lineage");
    assert_eq!(
        shop.model.as_deref(),
        Some("shop-model-2025"),
        "the last model that answered"
    );
    let roles: Vec<Role> = shop.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        vec![
            Role::System,
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant
        ],
        "the second span's history overlaps the first: only what is new is added: {:#?}",
        shop.messages
    );
    let call = &shop.messages[2].tool_calls[0];
    assert_eq!(
        (call.id.as_str(), call.name.as_str()),
        ("call_1", "get_order")
    );
    assert_eq!(
        call.arguments["order_id"], "A1024",
        "arguments kept as JSON"
    );
    assert_eq!(shop.messages[3].tool_call_id.as_deref(), Some("call_1"));
    assert_eq!(shop.messages[3].content, r#"{"status":"shipped"}"#);
    assert_eq!(shop.messages[4].content, "It shipped and arrives tomorrow.");
    assert!(
        shop.started_at
            .as_deref()
            .is_some_and(|t| t.starts_with("2024-11-30")),
        "{:?}",
        shop.started_at
    );

    let refund = &conversations[1];
    assert_eq!(
        refund.key, T2,
        "no conversation id: the trace is the conversation"
    );
    assert_eq!(
        refund.user_turns().collect::<Vec<_>>(),
        vec!["退款什么时候到账？"]
    );
    assert_eq!(
        refund.messages[1].content, "请问您的订单号是多少？",
        "the older gen_ai.choice event"
    );

    assert_eq!(
        (summary.conversations, summary.user_turns, summary.messages),
        (2, 2, 7)
    );
    assert_eq!(
        summary.spans, 4,
        "GenAI spans only; the HTTP span is not counted"
    );
    let lines: Vec<(usize, &str)> = summary
        .problems
        .iter()
        .map(|p| (p.line, p.msg.key.as_str()))
        .collect();
    assert_eq!(
        lines,
        vec![
            (2, "import-line-not-otlp"),
            (3, "import-line-no-spans"),
            (6, "import-span-no-messages")
        ],
        "every skipped line or span by its line, nothing else lost"
    );
    assert!(summary.redacted.is_empty(), "nothing redacted unless asked");
}

#[test]
fn personal_data_is_replaced_before_anything_is_kept() {
    let (conversations, summary) =
        traces::import(input().as_bytes(), Encoding::Json, &Redactor::built_in());
    let shop = &conversations[0];
    assert_eq!(
        shop.messages[1].content,
        "Where is my order? Mail me at [email]"
    );
    assert_eq!(
        shop.messages[2].tool_calls[0].arguments["phone"], "[phone]",
        "tool arguments too"
    );
    assert_eq!(
        shop.messages[2].tool_calls[0].arguments["order_id"], "A1024",
        "an order number is not personal"
    );
    assert_eq!(summary.redacted.get("email"), Some(&1));
    assert_eq!(summary.redacted.get("phone"), Some(&1));
}

#[test]
fn a_protobuf_body_that_is_not_an_export_is_one_problem() {
    let (conversations, summary) = traces::import(
        b"\xff\xff not protobuf",
        Encoding::Protobuf,
        &Redactor::none(),
    );
    assert!(conversations.is_empty());
    assert_eq!(summary.problems.len(), 1);
    assert_eq!(summary.problems[0].msg.key, "import-body-not-protobuf");
}

#[test]
fn a_pretty_printed_export_is_one_document() {
    let pretty = serde_json::to_string_pretty(
        &serde_json::from_str::<Value>(&input().lines().next().unwrap().to_string()).unwrap(),
    )
    .unwrap();
    let (conversations, summary) =
        traces::import(pretty.as_bytes(), Encoding::Json, &Redactor::none());
    assert_eq!(conversations.len(), 1, "{:?}", summary.problems);
    assert!(summary.problems.is_empty(), "{:?}", summary.problems);
}
