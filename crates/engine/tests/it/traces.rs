//! Production conversations rebuilt from OTLP/JSON traces: both GenAI
//! conventions (messages as span attributes, the older events), spans of
//! one conversation joined, tool calls kept, bad lines and spans named by
//! line and skipped, personal data redacted before anything is kept.

use agenteval_engine::channel::Role;
use agenteval_engine::domain::traces::SeedProposer;
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
        "not json at all".to_string(),
        json!({"resourceSpans": "none"}).to_string(),
    ]
    .join("\n")
}

/// An import of OTLP/JSON without redaction, for target `target`.
fn plain_import(
    target: Option<agenteval_engine::TargetId>,
) -> agenteval_engine::traces::ImportRequest {
    agenteval_engine::traces::ImportRequest {
        source: "t.jsonl".into(),
        encoding: Encoding::Json,
        target_id: target,
        redactor: Redactor::none(),
    }
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
        (summary.spans, summary.skipped_spans),
        (4, 1),
        "GenAI spans only (the HTTP span is not counted); the empty chat span skipped"
    );
    let lines: Vec<(usize, &str)> = summary
        .problems
        .iter()
        .map(|p| (p.line, p.msg.key.as_str()))
        .collect();
    assert_eq!(
        lines,
        vec![
            (2, "import-line-cut-short"),
            (3, "import-line-no-spans"),
            (6, "import-span-no-messages"),
            (7, "import-line-not-json"),
            (8, "import-line-not-otlp"),
        ],
        "every skipped line or span by its line, nothing else lost"
    );
    let cut = summary.problems[0].msg.render(agenteval_engine::Lang::Zh);
    assert!(
        cut.starts_with("第 2 行：`JSON` 在第 19 列就结束了"),
        "in the reader's words, not the parser's: {cut}"
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
        &serde_json::from_str::<Value>(input().lines().next().unwrap()).unwrap(),
    )
    .unwrap();
    let (conversations, summary) =
        traces::import(pretty.as_bytes(), Encoding::Json, &Redactor::none());
    assert_eq!(conversations.len(), 1, "{:?}", summary.problems);
    assert!(summary.problems.is_empty(), "{:?}", summary.problems);
}

/// A chat span of conversation `conversation` whose user says `said`.
fn chat_span(trace: &str, id: &str, conversation: &str, said: &str) -> Value {
    span(
        trace,
        id,
        "chat shop-model",
        1_733_000_000_000_000_000,
        vec![
            attr("gen_ai.operation.name", "chat"),
            attr("gen_ai.conversation.id", conversation),
            attr(
                "gen_ai.input.messages",
                &json!([{"role": "user", "parts": [{"type": "text", "content": said}]}])
                    .to_string(),
            ),
        ],
    )
}

/// Spans that cannot be kept beside spans that can, in one export: of the
/// wrong shape (the export still reads), without a trace id, with an
/// attribute over 1 MiB. Each is named by its id and counted as skipped;
/// the conversations of the others are kept.
#[test]
fn malformed_spans_are_skipped_by_name_and_the_others_kept() {
    let mut wrong_time = chat_span(T1, "0000000000000b01", "bad-1", "hello");
    wrong_time["startTimeUnixNano"] = json!({"seconds": 1});
    let mut wrong_attributes = chat_span(T1, "0000000000000b02", "bad-2", "hello");
    wrong_attributes["attributes"] = json!("chat");
    let mut wrong_key_type = chat_span(T1, "0000000000000b03", "bad-3", "hello");
    wrong_key_type["attributes"][1] =
        json!({"key": "gen_ai.conversation.id", "value": {"intValue": "many"}});
    let mut no_trace = chat_span(T1, "0000000000000b04", "bad-4", "hello");
    no_trace.as_object_mut().unwrap().remove("traceId");
    let zero_trace = chat_span(&"0".repeat(32), "0000000000000b05", "bad-5", "hello");
    let huge = chat_span(
        T1,
        "0000000000000b06",
        "bad-6",
        &"x".repeat(agenteval_engine::traces::otlp::MAX_ATTRIBUTE_BYTES),
    );
    let line = export(vec![
        chat_span(T1, "000000000000000a", "keep-1", "Where is my order?"),
        wrong_time,
        wrong_attributes,
        wrong_key_type,
        no_trace,
        zero_trace,
        huge,
        chat_span(T2, "000000000000000b", "keep-2", "退款什么时候到账？"),
    ]);
    let (conversations, summary) =
        traces::import(line.as_bytes(), Encoding::Json, &Redactor::none());
    let keys: Vec<&str> = conversations.iter().map(|c| c.key.as_str()).collect();
    assert_eq!(keys, vec!["keep-1", "keep-2"], "{:#?}", summary.problems);
    assert_eq!(
        (summary.spans, summary.skipped_spans),
        (8, 6),
        "a span that could not be read counts as read and skipped"
    );
    let named: Vec<(&str, String)> = summary
        .problems
        .iter()
        .map(|p| (p.msg.key.as_str(), p.msg.render(agenteval_engine::Lang::En)))
        .collect();
    let kinds: Vec<&str> = named.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        kinds,
        vec![
            "import-span-unreadable",
            "import-span-unreadable",
            "import-span-unreadable",
            "import-span-no-trace-id",
            "import-span-no-trace-id",
            "import-span-attribute-too-large",
        ],
        "{named:#?}"
    );
    for (i, (_, text)) in named.iter().enumerate() {
        let id = format!("0000000000000b0{}", i + 1);
        assert!(text.contains(&id), "each span named by its id: {text}");
    }
    assert!(
        named[5].1.contains("gen_ai.input.messages holds 1.0 MiB"),
        "{}",
        named[5].1
    );
    // A span of the wrong shape is named by the field that is wrong, not
    // by the parser's English words, which a Chinese reader would get too.
    for (i, field) in [
        "`startTimeUnixNano`",
        "`attributes`",
        "`attributes[1].value`",
    ]
    .iter()
    .enumerate()
    {
        assert!(named[i].1.contains(field), "{field} in {}", named[i].1);
        let zh = summary.problems[i].msg.render(agenteval_engine::Lang::Zh);
        assert!(zh.contains(field) && zh.contains("不符合"), "{zh}");
        let outside_code: String = zh.split('`').step_by(2).collect();
        assert!(
            !outside_code.contains("invalid") && !outside_code.contains("expected"),
            "{zh}"
        );
    }

    // The same from protobuf, as the SDK's exporter sends it.
    use opentelemetry_proto::tonic::collector::trace::v1::{
        ExportTraceServiceRequest, ExportTraceServiceResponse,
    };
    use prost::Message;
    let mut request: ExportTraceServiceRequest = serde_json::from_str(&export(vec![
        chat_span(T1, "000000000000000a", "keep-1", "Where is my order?"),
        chat_span(T2, "0000000000000b04", "bad-4", "hello"),
    ]))
    .unwrap();
    request.resource_spans[0].scope_spans[0].spans[1]
        .trace_id
        .clear();
    let (conversations, summary) = traces::import(
        &request.encode_to_vec(),
        Encoding::Protobuf,
        &Redactor::none(),
    );
    assert_eq!(conversations.len(), 1);
    assert_eq!(summary.skipped_spans, 1);
    assert_eq!(summary.problems[0].msg.key, "import-span-no-trace-id");
    let answer = ExportTraceServiceResponse::decode(
        &agenteval_engine::traces::otlp::protobuf_response(1, "skipped".into())[..],
    )
    .unwrap();
    let partial = answer.partial_success.expect("a partial success");
    assert_eq!(
        (partial.rejected_spans, partial.error_message.as_str()),
        (1, "skipped")
    );
    assert!(
        agenteval_engine::traces::otlp::protobuf_response(0, String::new()).is_empty(),
        "a full success is the empty response"
    );
}

/// The same conversation's spans in two requests (as an exporter sends
/// them as they end) are kept as one conversation, extended.
#[tokio::test]
async fn imports_are_kept_and_a_later_import_extends_its_conversation() {
    use agenteval_engine::traces::{ImportRequest, ImportedQuery};
    let tp = crate::support::platform().await;
    let p = &tp.platform;
    let text = input();
    let lines: Vec<&str> = text.lines().collect();
    let first_span_only = {
        let mut v: Value = serde_json::from_str(lines[0]).unwrap();
        let spans = v["resourceSpans"][0]["scopeSpans"][0]["spans"]
            .as_array_mut()
            .unwrap();
        let second = spans.pop().unwrap();
        (v.to_string(), {
            let mut w: Value = serde_json::from_str(lines[0]).unwrap();
            w["resourceSpans"][0]["scopeSpans"][0]["spans"] = json!([second]);
            w.to_string()
        })
    };
    let request = |source: &str| ImportRequest {
        source: source.into(),
        encoding: Encoding::Json,
        target_id: None,
        redactor: Redactor::built_in(),
    };
    let summary = p
        .import_traces(first_span_only.0.as_bytes(), request("a.jsonl"))
        .await
        .unwrap();
    assert_eq!((summary.conversations, summary.problems.len()), (1, 0));
    let page = p
        .imported_conversations(ImportedQuery::default())
        .await
        .unwrap();
    assert_eq!(page.total, 1);
    assert_eq!(
        page.conversations[0].messages, 3,
        "system, user, the tool call"
    );
    assert_eq!(
        page.conversations[0].first_user, "Where is my order? Mail me at [email]",
        "the preview is redacted too"
    );

    p.import_traces(first_span_only.1.as_bytes(), request("b.jsonl"))
        .await
        .unwrap();
    let page = p
        .imported_conversations(ImportedQuery::default())
        .await
        .unwrap();
    assert_eq!(
        page.total, 1,
        "the later spans extend the conversation: {page:?}"
    );
    let kept = p
        .imported_conversation(page.conversations[0].id)
        .await
        .unwrap();
    assert_eq!(kept.source, "a.jsonl", "where it was first seen");
    assert_eq!(
        kept.conversation.messages.len(),
        5,
        "{:#?}",
        kept.conversation.messages
    );
    assert_eq!(
        kept.conversation.messages[4].content,
        "It shipped and arrives tomorrow."
    );

    p.import_traces(text.as_bytes(), request("all.jsonl"))
        .await
        .unwrap();
    let page = p
        .imported_conversations(ImportedQuery::default())
        .await
        .unwrap();
    assert_eq!(
        page.total, 2,
        "importing the whole file again adds only the other conversation"
    );
    let found = p
        .imported_conversations(ImportedQuery {
            text: Some("退款".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(found.total, 1);
    assert_eq!(found.conversations[0].first_user, "退款什么时候到账？");

    let missing = p
        .imported_conversation(uuid::Uuid::nil())
        .await
        .unwrap_err();
    assert_eq!(missing.body.code, agenteval_engine::ErrorCode::NotFound);
    let unknown_target = p
        .import_traces(
            text.as_bytes(),
            ImportRequest {
                target_id: Some(agenteval_engine::TargetId(uuid::Uuid::nil())),
                ..request("x")
            },
        )
        .await
        .unwrap_err();
    assert_eq!(
        unknown_target.body.code,
        agenteval_engine::ErrorCode::NotFound,
        "nothing read for an unknown target"
    );
}

/// The list by target, by words, by both and unfiltered: each total and
/// page is the conversations the filters select, newest import first.
#[tokio::test]
async fn the_list_filters_by_target_and_words_alone_or_together() {
    use agenteval_engine::traces::ImportedQuery;
    let tp = crate::support::platform().await;
    let p = &tp.platform;
    let (target, _) = seeded_campaign(p).await;
    p.import_traces(input().as_bytes(), plain_import(Some(target.id)))
        .await
        .unwrap();
    tp.clock.advance(chrono::Duration::seconds(1));
    let other = export(vec![chat_span(
        T1,
        "000000000000000c",
        "other-1",
        "Where is my refund?",
    )]);
    p.import_traces(other.as_bytes(), plain_import(None))
        .await
        .unwrap();
    let list = |target_id, text: Option<&str>| {
        p.imported_conversations(ImportedQuery {
            target_id,
            text: text.map(str::to_string),
            ..Default::default()
        })
    };
    let keys = |page: &agenteval_engine::traces::ImportedPage| {
        let keys: Vec<String> = page.conversations.iter().map(|c| c.key.clone()).collect();
        (page.total, keys)
    };
    let all = list(None, None).await.unwrap();
    assert_eq!(
        keys(&all),
        (3, vec!["other-1".into(), "conv-1".into(), T2.into()]),
        "newest import first"
    );
    let of_target = list(Some(target.id), None).await.unwrap();
    assert_eq!(keys(&of_target), (2, vec!["conv-1".into(), T2.into()]));
    let refund = list(None, Some("REFUND")).await.unwrap();
    assert_eq!(
        keys(&refund),
        (1, vec!["other-1".into()]),
        "case-insensitive"
    );
    let both = list(Some(target.id), Some("order")).await.unwrap();
    assert_eq!(keys(&both), (1, vec!["conv-1".into()]));
    let none = list(Some(target.id), Some("refund")).await.unwrap();
    assert_eq!(keys(&none), (0, vec![]));
}

/// A production conversation drafted into a fixed scenario: the user's
/// turns, the check of what the reply did, the traces as lineage; saved
/// among the user's packs like a promoted finding.
#[tokio::test]
async fn a_conversation_is_drafted_into_a_scenario_that_loads_and_is_saved() {
    use agenteval_engine::Lang;
    use agenteval_engine::scenario::regression::SaveScenarioFile;
    use agenteval_engine::traces::ImportedQuery;
    let tp = crate::support::platform().await;
    let p = &tp.platform;
    let request = plain_import(None);
    p.import_traces(input().as_bytes(), request).await.unwrap();
    let page = p
        .imported_conversations(ImportedQuery::default())
        .await
        .unwrap();
    let shop = page
        .conversations
        .iter()
        .find(|c| c.key == "conv-1")
        .unwrap();
    let refund = page.conversations.iter().find(|c| c.key == T2).unwrap();

    let draft = p
        .draft_from_conversation(shop.id, None, Lang::En)
        .await
        .unwrap();
    assert_eq!(draft.pack, "production");
    assert_eq!(draft.lineage.trace_ids, vec![T1.to_string()]);
    let file: Value = serde_yaml_ng::from_str(&draft.yaml).unwrap();
    let scenario = &file["scenarios"][0];
    assert_eq!(
        scenario["turns"][0]["user"],
        "Where is my order? Mail me at ada@example.com"
    );
    let check = &scenario["turns"][0]["checks"][0];
    assert_eq!(
        (check["type"].as_str(), check["name"].as_str()),
        (Some("tool_called"), Some("get_order")),
        "the reply called a tool: {}",
        draft.yaml
    );
    let get_order = scenario["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get_order")
        .expect("the tool production called is offered");
    let response = &get_order["responses"][0];
    assert_eq!(
        (&response["when"]["order_id"], &response["result"]["status"]),
        (&json!("A1024"), &json!("shipped")),
        "the engine plays what the tool answered in production: {}",
        draft.yaml
    );
    assert_eq!(scenario["from_traces"]["key"], "conv-1");
    assert!(
        !draft.yaml.contains("null"),
        "what is left out is not written: {}",
        draft.yaml
    );

    let zh = p
        .draft_from_conversation(refund.id, Some("prod-zh".into()), Lang::Zh)
        .await
        .unwrap();
    let file: Value = serde_yaml_ng::from_str(&zh.yaml).unwrap();
    assert_eq!(
        file["scenarios"][0]["turns"][0]["checks"][0]["type"], "asks_clarification",
        "the reply asked back: {}",
        zh.yaml
    );
    assert!(
        file["scenarios"][0]["title"]
            .as_str()
            .unwrap()
            .starts_with("来自生产环境：")
    );

    let saved = p
        .save_scenario_file(SaveScenarioFile {
            pack: draft.pack.clone(),
            file_name: draft.file_name.clone(),
            yaml: draft.yaml.clone(),
        })
        .await
        .unwrap();
    assert_eq!(saved[0].id, draft.scenario_id);
    assert!(
        tp.platform
            .data_dir
            .join("scenarios/production")
            .join(&draft.file_name)
            .is_file()
    );
}

/// Personas and goals proposed from production conversations, by rules:
/// language and style from the user's words, slots from what the tool
/// calls used, the traces as lineage.
#[tokio::test]
async fn conversations_propose_personas_and_goals_with_their_lineage() {
    use agenteval_engine::Lang;
    use agenteval_engine::traces::ImportedQuery;
    let tp = crate::support::platform().await;
    let p = &tp.platform;
    let request = plain_import(None);
    p.import_traces(input().as_bytes(), request).await.unwrap();
    let page = p
        .imported_conversations(ImportedQuery::default())
        .await
        .unwrap();
    let ids: Vec<uuid::Uuid> = page.conversations.iter().map(|c| c.id).collect();
    let proposal = p.seeds_from_conversations(&ids, Lang::Zh).await.unwrap();
    assert_eq!(
        proposal.proposed_by,
        SeedProposer::Rules,
        "no analyst model"
    );
    assert_eq!(proposal.analyst_problem, None);
    let seeds = proposal.seed_set;
    assert_eq!((seeds.personas.len(), seeds.goals.len()), (2, 2));
    let by_key = |key: &str| {
        let i = page
            .conversations
            .iter()
            .position(|c| c.key == key)
            .unwrap();
        (&seeds.personas[i], &seeds.goals[i])
    };
    let (en, shop) = by_key("conv-1");
    assert_eq!(en.language.as_deref(), Some("en"));
    assert!(
        en.name.starts_with("生产环境用户"),
        "named in the reader's language: {}",
        en.name
    );
    assert_eq!(shop.title, "Where is my order? Mail me at ada@example.com");
    assert!(
        shop.slots.is_empty(),
        "A1024 was never said by the user: {:?}",
        shop.slots
    );
    assert_eq!(shop.extra["lineage"]["trace_ids"], json!([T1]));
    let (zh, refund) = by_key(T2);
    assert_eq!(zh.language.as_deref(), Some("zh"));
    assert_eq!(zh.style, Some(json!("简洁")), "in the reader's language");
    assert_eq!(refund.title, "退款什么时候到账？");

    let none = p.seeds_from_conversations(&[], Lang::En).await.unwrap_err();
    assert_eq!(none.body.code, agenteval_engine::ErrorCode::InvalidInput);
}

fn analyst_at(url: String) -> agenteval_engine::role_models::RoleModels {
    use agenteval_engine::role_models::{ModelConfig, RoleModels};
    RoleModels {
        analyst: Some(ModelConfig {
            timeout_ms: Some(10_000),
            ..ModelConfig::new(url, "seed-analyst")
        }),
        tool_simulator: None,
        judge: None,
        virtual_user: None,
    }
}

/// With an analyst model configured, it proposes the seeds from what the
/// users said (in the reader's language), grouping conversations; the
/// goals' slots still come from the tool calls. An unusable answer falls
/// back to the rules, and says why.
#[tokio::test]
async fn the_analyst_model_proposes_seeds_and_the_rules_stand_in_when_it_fails() {
    use crate::fault_server::{Fault, FaultServer, completion};
    use agenteval_engine::Lang;
    use agenteval_engine::traces::ImportedQuery;
    let answer = json!({
        "personas": [{"name": "直来直去的用户", "description": "短句提问", "style": "terse",
            "patience": 2, "language": "zh", "from": [1, 2]}],
        "goals": [{"title": "查订单和退款", "description": "想知道订单和退款的进度",
            "success_criteria": ["给出进度"], "from": [1, 2]}],
    });
    let server = FaultServer::start(vec![
        Fault::Ok(completion(&answer.to_string())),
        Fault::Ok(completion(r#"{"personas": "none"}"#)),
    ])
    .await;
    let tp = crate::support::platform().await;
    let p = &tp.platform;
    p.import_traces(input().as_bytes(), plain_import(None))
        .await
        .unwrap();
    p.set_role_models(analyst_at(server.base_url()));
    let ids: Vec<uuid::Uuid> = p
        .imported_conversations(ImportedQuery::default())
        .await
        .unwrap()
        .conversations
        .iter()
        .map(|c| c.id)
        .collect();

    let proposal = p.seeds_from_conversations(&ids, Lang::Zh).await.unwrap();
    assert_eq!(proposal.proposed_by, SeedProposer::Analyst);
    let seeds = &proposal.seed_set;
    assert_eq!((seeds.personas.len(), seeds.goals.len()), (1, 1), "grouped");
    assert_eq!(seeds.personas[0].name, "直来直去的用户");
    let lineage = &seeds.goals[0].extra["lineage"];
    assert_eq!(lineage["conversation_ids"].as_array().unwrap().len(), 2);
    assert_eq!(lineage["model"], "seed-analyst");
    let request = server.requests()[0].json();
    let said = request["messages"][1]["content"].as_str().unwrap();
    assert!(
        said.contains("退款什么时候到账"),
        "the users' words: {said}"
    );
    assert!(said.contains(r#""language":"zh""#), "{said}");

    let fallback = p.seeds_from_conversations(&ids, Lang::Zh).await.unwrap();
    assert_eq!(fallback.proposed_by, SeedProposer::Rules);
    assert_eq!(fallback.seed_set.personas.len(), 2, "one a conversation");
    let why = fallback.analyst_problem.expect("why the rules stood in");
    assert!(why.render(Lang::Zh).contains("已改由规则提出"), "{why:?}");
}

/// A target and a campaign of it with two personas (English, Chinese)
/// and two goals (an order, a refund).
async fn seeded_campaign(
    p: &agenteval_engine::Platform,
) -> (
    agenteval_engine::target::Target,
    agenteval_engine::campaign::Campaign,
) {
    use agenteval_engine::campaign::{CreateCampaign, Goal, Persona, SeedSet};
    use agenteval_engine::target::TargetSettings;
    let target = p
        .create_target(TargetSettings::builtin_demo("shop"))
        .await
        .unwrap();
    let persona = |id: &str, name: &str, language: &str| Persona {
        id: id.into(),
        name: name.into(),
        language: Some(language.into()),
        ..Default::default()
    };
    let goal = |id: &str, title: &str, description: &str| Goal {
        id: id.into(),
        title: title.into(),
        description: description.into(),
        ..Default::default()
    };
    let seeds = SeedSet {
        personas: vec![
            persona("p-en", "Shopper", "en"),
            persona("p-zh", "顾客", "zh"),
        ],
        goals: vec![
            goal("g-order", "Track my order", "Ask where the order is"),
            goal("g-refund", "退款什么时候到账", "问清退款到账时间"),
        ],
    };
    let campaign = p
        .create_campaign(CreateCampaign {
            name: "week".into(),
            target_id: target.id,
            duration_hours: Some(24.0),
            seed_set: Some(seeds),
            ..Default::default()
        })
        .await
        .unwrap();
    (target, campaign)
}

/// A campaign that has not explored yet shows production on its seeds'
/// cells, every one untried; without production it has no exploration
/// block.
#[tokio::test]
async fn production_shows_on_the_grid_of_a_campaign_that_has_not_explored() {
    let tp = crate::support::platform().await;
    let p = &tp.platform;
    let (target, campaign) = seeded_campaign(p).await;
    let before = p.campaign_report(campaign.id).await.unwrap();
    assert!(before.exploration.is_none(), "no session, no production");

    p.import_traces(input().as_bytes(), plain_import(Some(target.id)))
        .await
        .unwrap();
    let report = p.campaign_report(campaign.id).await.unwrap();
    let e = report
        .exploration
        .expect("production reaches the seeds' cells");
    assert_eq!(e.sessions_total, 0);
    assert_eq!(e.coverage.production_conversations, 2);
    let reached: Vec<(&str, &str, u32)> = e
        .coverage
        .cells
        .iter()
        .filter(|c| c.production > 0)
        .map(|c| (c.persona_id.as_str(), c.goal_id.as_str(), c.sessions))
        .collect();
    assert_eq!(
        reached,
        vec![("p-en", "g-order", 0), ("p-zh", "g-refund", 0)],
        "both reached, neither tried"
    );
    let md = p
        .export_campaign(
            campaign.id,
            agenteval_engine::export::ExportFormat::Md,
            agenteval_engine::Lang::Zh,
        )
        .await
        .unwrap();
    assert!(
        md.contains("生产环境涉及、探索却从未尝试过的格子：“Shopper × Track my order”、“顾客 × 退款什么时候到账”"),
        "{md}"
    );
}

/// Production on the report's coverage grid: each imported conversation of
/// the campaign's target on the cell it resembles, a cell production hits
/// that exploration never tried named in the Markdown export.
#[tokio::test]
async fn production_conversations_fall_on_the_coverage_grid() {
    use agenteval_engine::Lang;
    use agenteval_engine::exploration::{CreateSession, SeedRef, Trigger};
    use agenteval_engine::export::ExportFormat;
    let tp = crate::support::platform().await;
    let p = &tp.platform;
    let (target, campaign) = seeded_campaign(p).await;
    p.create_session(CreateSession {
        campaign_id: campaign.id,
        persona: json!({"name": "Shopper"}),
        goal: json!("Track my order"),
        seed_ref: Some(SeedRef {
            persona_id: "p-en".into(),
            goal_id: "g-order".into(),
            variant: None,
        }),
        trigger: Some(Trigger::Manual),
        played_by: None,
        user_model: None,
    })
    .await
    .unwrap();
    let request = plain_import(Some(target.id));
    p.import_traces(input().as_bytes(), request).await.unwrap();
    // A conversation that resembles no goal of the campaign.
    let weather = span(
        "1af7651916cd43dd8448eb211c80319d",
        "10f067aa0ba902b7",
        "chat",
        1_733_000_300_000_000_000,
        vec![
            attr("gen_ai.operation.name", "chat"),
            attr(
                "gen_ai.input.messages",
                &json!([{"role": "user", "parts": [{"type": "text", "content": "Will it rain in Paris tomorrow?"}]}])
                    .to_string(),
            ),
        ],
    );
    p.import_traces(
        export(vec![weather]).as_bytes(),
        plain_import(Some(target.id)),
    )
    .await
    .unwrap();

    let report = p.campaign_report(campaign.id).await.unwrap();
    let grid = &report
        .exploration
        .as_ref()
        .expect("a session makes the block")
        .coverage;
    assert_eq!(
        (grid.production_conversations, grid.production_unplaced),
        (3, 1),
        "the weather question fits no goal"
    );
    let cell = |p: &str, g: &str| {
        grid.cells
            .iter()
            .find(|c| c.persona_id == p && c.goal_id == g)
            .unwrap()
    };
    assert_eq!(cell("p-en", "g-order").production, 1, "{grid:?}");
    assert_eq!(cell("p-en", "g-order").sessions, 1);
    assert_eq!(cell("p-zh", "g-refund").production, 1, "{grid:?}");
    assert_eq!(
        cell("p-zh", "g-refund").sessions,
        0,
        "production hits it, exploration never tried it"
    );
    assert_eq!(
        cell("p-en", "g-refund").production + cell("p-zh", "g-order").production,
        0
    );

    let md = p
        .export_campaign(campaign.id, ExportFormat::Md, Lang::Zh)
        .await
        .unwrap();
    assert!(
        md.contains("该评测对象的 3 段生产环境对话中有 2 段落在这些格子上；1 段与任何目标都不相似"),
        "{md}"
    );
    assert!(
        md.contains("生产环境涉及、探索却从未尝试过的格子：“顾客 × 退款什么时候到账”"),
        "{md}"
    );
}
