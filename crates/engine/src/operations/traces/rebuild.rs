//! Conversations rebuilt from GenAI spans. A span's messages are read from
//! `gen_ai.input.messages` / `gen_ai.output.messages` (and
//! `gen_ai.system_instructions`), or from the older events
//! (`gen_ai.user.message`, `gen_ai.choice`, ...). Spans are grouped by
//! `gen_ai.conversation.id` (or `session.id`), else by trace, and taken in
//! the order they started: each span's history overlaps what is known, so
//! only what is new is added. Tool calls and their results are kept.

use super::otlp::{self, LineSpan};
use super::{ImportProblem, TraceConversation};
use crate::domain::chat::{ChatMessage, Role, ToolCall, ToolSpec};
use crate::msg;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use serde_json::Value;
use std::collections::BTreeMap;

/// Attributes that name a conversation, first found wins.
const CONVERSATION_KEYS: &[&str] = &["gen_ai.conversation.id", "session.id", "conversation.id"];

/// Operations whose spans are expected to carry messages.
const CHAT_OPERATIONS: &[&str] = &[
    "chat",
    "text_completion",
    "generate_content",
    "invoke_agent",
];

/// What [`conversations`] made of the spans.
pub struct Rebuilt {
    pub conversations: Vec<TraceConversation>,
    /// GenAI spans read (any span with a `gen_ai.` attribute or event).
    pub spans: usize,
    pub problems: Vec<ImportProblem>,
}

/// One span's part of a conversation.
struct Piece {
    start: u64,
    trace_id: String,
    model: Option<String>,
    input: Vec<ChatMessage>,
    output: Vec<ChatMessage>,
    tools: Vec<ToolSpec>,
}

/// The conversations of `spans`, in the order they started. Spans that
/// are not GenAI spans are left out without a word (a trace holds HTTP
/// and database spans too); a GenAI chat span without messages, or with
/// messages that cannot be read, is a problem and skipped.
pub fn conversations(spans: Vec<LineSpan>) -> Rebuilt {
    let mut groups: BTreeMap<String, Vec<Piece>> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut read = 0;
    for s in spans {
        if !is_genai(&s) {
            continue;
        }
        read += 1;
        match piece(&s) {
            Ok(Some(piece)) => {
                let key = CONVERSATION_KEYS
                    .iter()
                    .find_map(|k| {
                        otlp::text(&s.span.attributes, k).or_else(|| otlp::text(&s.resource, k))
                    })
                    .unwrap_or_else(|| piece.trace_id.clone());
                groups.entry(key).or_default().push(piece);
            }
            Ok(None) => {}
            Err(msg) => problems.push(ImportProblem { line: s.line, msg }),
        }
    }
    let mut conversations: Vec<_> = groups
        .into_iter()
        .map(|(key, pieces)| conversation(key, pieces))
        .filter(|c| !c.messages.is_empty())
        .collect();
    conversations.sort_by(|a, b| (&a.started_at, &a.key).cmp(&(&b.started_at, &b.key)));
    Rebuilt {
        conversations,
        spans: read,
        problems,
    }
}

fn is_genai(s: &LineSpan) -> bool {
    s.span
        .attributes
        .iter()
        .any(|kv| kv.key.starts_with("gen_ai."))
        || s.span.events.iter().any(|e| e.name.starts_with("gen_ai."))
}

/// The span's messages; `None` for a GenAI span that is not a turn of a
/// conversation (an embedding, a tool's execution) and carries none.
fn piece(s: &LineSpan) -> Result<Option<Piece>, crate::i18n::Msg> {
    let attributes = &s.span.attributes;
    let operation = otlp::text(attributes, "gen_ai.operation.name").unwrap_or_default();
    let id = hex::encode(&s.span.span_id);
    match otlp::unfit(&s.span) {
        Some(otlp::Unfit::NoTraceId) => {
            return Err(msg!(
                "import-span-no-trace-id",
                line = s.line,
                span = s.span.name.as_str(),
                id = id
            ));
        }
        Some(otlp::Unfit::TooLarge(attribute, bytes)) => {
            return Err(msg!(
                "import-span-attribute-too-large",
                line = s.line,
                span = s.span.name.as_str(),
                id = id,
                attribute = attribute,
                size = mib(bytes),
                limit = mib(otlp::MAX_ATTRIBUTE_BYTES)
            ));
        }
        None => {}
    }
    let bad = |attribute: &str| {
        msg!(
            "import-span-bad-messages",
            line = s.line,
            span = s.span.name.as_str(),
            id = id.as_str(),
            attribute = attribute
        )
    };
    let read = |key: &str| -> Result<Option<Vec<ChatMessage>>, crate::i18n::Msg> {
        otlp::attribute(attributes, key)
            .map(|v| messages(&otlp::json(v)).ok_or_else(|| bad(key)))
            .transpose()
    };
    let system = read("gen_ai.system_instructions")?;
    let (mut input, output) = match (
        read("gen_ai.input.messages")?,
        read("gen_ai.output.messages")?,
    ) {
        (None, None) => from_events(s),
        (input, output) => (input.unwrap_or_default(), output.unwrap_or_default()),
    };
    if let Some(system) = system {
        let text: Vec<_> = system.into_iter().map(|m| m.content).collect();
        input.insert(0, ChatMessage::system(text.join("\n")));
    }
    if input.is_empty() && output.is_empty() {
        return if CHAT_OPERATIONS.contains(&operation.as_str()) {
            Err(msg!(
                "import-span-no-messages",
                line = s.line,
                span = s.span.name.as_str(),
                id = id,
                operation = operation.as_str()
            ))
        } else {
            Ok(None)
        };
    }
    Ok(Some(Piece {
        start: s.span.start_time_unix_nano,
        trace_id: hex::encode(&s.span.trace_id),
        model: otlp::text(attributes, "gen_ai.response.model")
            .or_else(|| otlp::text(attributes, "gen_ai.request.model")),
        input,
        output,
        tools: otlp::attribute(attributes, "gen_ai.tool.definitions")
            .map(|v| tool_specs(&otlp::json(v)))
            .unwrap_or_default(),
    }))
}

/// `bytes` in mebibytes, to a tenth.
fn mib(bytes: usize) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// Tool definitions, flat (`{name, description, parameters}`) or as
/// OpenAI nests them (`{type: "function", function: {...}}`).
fn tool_specs(v: &Value) -> Vec<ToolSpec> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let f = t.get("function").unwrap_or(t);
            Some(ToolSpec {
                name: f.get("name")?.as_str()?.to_string(),
                description: f
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                parameters: f.get("parameters").cloned().unwrap_or(Value::Null),
                responses: Vec::new(),
            })
        })
        .collect()
}

/// Adds the tools of `more` not yet in `tools`, by name.
fn add_tools(tools: &mut Vec<ToolSpec>, more: &[ToolSpec]) {
    for t in more {
        if !tools.iter().any(|k| k.name == t.name) {
            tools.push(t.clone());
        }
    }
}

/// Messages of the older conventions: one event a message, the reply in
/// `gen_ai.choice` events.
fn from_events(s: &LineSpan) -> (Vec<ChatMessage>, Vec<ChatMessage>) {
    let mut input = Vec::new();
    let mut output = Vec::new();
    for event in &s.span.events {
        let role = match event.name.as_str() {
            "gen_ai.system.message" => Role::System,
            "gen_ai.user.message" => Role::User,
            "gen_ai.assistant.message" => Role::Assistant,
            "gen_ai.tool.message" => Role::Tool,
            "gen_ai.choice" => {
                let body = otlp::attribute(&event.attributes, "message")
                    .map(otlp::json)
                    .unwrap_or_else(|| event_body(&event.attributes));
                output.extend(message(&body, Some(Role::Assistant)));
                continue;
            }
            _ => continue,
        };
        input.extend(message(&event_body(&event.attributes), Some(role)));
    }
    (input, output)
}

/// An event's attributes as one message object (`content`, `tool_calls`,
/// `id`).
fn event_body(attributes: &[KeyValue]) -> Value {
    Value::Object(
        attributes
            .iter()
            .filter_map(|kv| Some((kv.key.clone(), otlp::json(kv.value.as_ref()?))))
            .collect(),
    )
}

/// A list of messages; `None` when `v` is not one.
fn messages(v: &Value) -> Option<Vec<ChatMessage>> {
    let list = v.as_array()?;
    let mut out = Vec::new();
    for m in list {
        let read = message(m, None);
        if read.is_empty() && !m.is_object() {
            return None;
        }
        out.extend(read);
    }
    Some(out)
}

/// One message of either form (`parts`, or `content` and `tool_calls` as
/// OpenAI writes them); a tool's result part becomes a tool message of
/// its own.
fn message(m: &Value, role: Option<Role>) -> Vec<ChatMessage> {
    let role = m
        .get("role")
        .and_then(Value::as_str)
        .and_then(role_of)
        .or(role)
        .unwrap_or(Role::User);
    let mut main = ChatMessage::new(role, "");
    let mut results = Vec::new();
    let mut text = Vec::new();
    match m.get("parts").and_then(Value::as_array) {
        Some(parts) => {
            for p in parts {
                match p.get("type").and_then(Value::as_str).unwrap_or("text") {
                    "text" => text.extend(p.get("content").and_then(Value::as_str)),
                    "tool_call" => main.tool_calls.push(tool_call(p, &p["arguments"])),
                    "tool_call_response" => {
                        let mut r = ChatMessage::new(Role::Tool, as_text(&p["response"]));
                        r.tool_call_id = p.get("id").and_then(Value::as_str).map(str::to_string);
                        results.push(r);
                    }
                    _ => {}
                }
            }
        }
        None => {
            let content = m.get("content").cloned();
            main.content = crate::channel::openai::content_text(content.clone())
                .unwrap_or_else(|_| content.as_ref().map(as_text).unwrap_or_default());
            for c in m
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let function = c.get("function").unwrap_or(c);
                main.tool_calls
                    .push(tool_call(&merge_id(c, function), &function["arguments"]));
            }
            main.tool_call_id = m.get("id").and_then(Value::as_str).map(str::to_string);
        }
    }
    if !text.is_empty() {
        main.content = text.join("");
    }
    if role != Role::Tool {
        main.tool_call_id = None;
    }
    let keep_main = !main.content.is_empty() || !main.tool_calls.is_empty() || results.is_empty();
    let mut out: Vec<_> = keep_main.then_some(main).into_iter().collect();
    out.extend(results);
    out
}

/// A tool call's `id` beside its function's `name` (OpenAI nests them).
fn merge_id(call: &Value, function: &Value) -> Value {
    serde_json::json!({"id": call.get("id"), "name": function.get("name")})
}

fn tool_call(p: &Value, arguments: &Value) -> ToolCall {
    ToolCall {
        id: p
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        name: p
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        arguments: crate::channel::openai::parse_arguments(
            (!arguments.is_null()).then(|| arguments.clone()),
        ),
    }
}

fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn role_of(name: &str) -> Option<Role> {
    match name {
        // Gemini names the assistant `model`.
        "model" => Some(Role::Assistant),
        other => crate::channel::openai::wire::role_of(other),
    }
}

/// One conversation from its spans' pieces.
fn conversation(key: String, mut pieces: Vec<Piece>) -> TraceConversation {
    pieces.sort_by_key(|p| p.start);
    let mut messages: Vec<ChatMessage> = Vec::new();
    let mut trace_ids: Vec<String> = Vec::new();
    let mut model = None;
    let mut tools = Vec::new();
    for p in &pieces {
        add_tools(&mut tools, &p.tools);
        if !trace_ids.contains(&p.trace_id) {
            trace_ids.push(p.trace_id.clone());
        }
        model = p.model.clone().or(model);
        append_new(&mut messages, &p.input);
        append_new(&mut messages, &p.output);
    }
    let started_at = pieces.first().and_then(|p| {
        chrono::DateTime::from_timestamp_nanos(i64::try_from(p.start).ok()?)
            .to_rfc3339()
            .into()
    });
    TraceConversation {
        key,
        trace_ids,
        model,
        started_at: started_at.filter(|_| pieces[0].start > 0),
        messages,
        tools,
    }
}

/// Appends what of `next` is new: the longest end of `known` that `next`
/// starts with is what both have (a span's input repeats the history).
fn append_new(known: &mut Vec<ChatMessage>, next: &[ChatMessage]) {
    let same = |a: &ChatMessage, b: &ChatMessage| a.role == b.role && a.content == b.content;
    let overlap = (0..=known.len().min(next.len()))
        .rev()
        .find(|&k| {
            known[known.len() - k..]
                .iter()
                .zip(&next[..k])
                .all(|(a, b)| same(a, b))
        })
        .unwrap_or(0);
    known.extend(next[overlap..].iter().cloned());
}

/// `known` extended by `more` of the same conversation (a later import of
/// its spans): what is new of its messages, its traces, its model.
pub fn extend(known: &mut TraceConversation, more: TraceConversation) {
    for t in more.trace_ids {
        if !known.trace_ids.contains(&t) {
            known.trace_ids.push(t);
        }
    }
    append_new(&mut known.messages, &more.messages);
    add_tools(&mut known.tools, &more.tools);
    known.model = more.model.or(known.model.take());
    known.started_at = match (known.started_at.take(), more.started_at) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
}
