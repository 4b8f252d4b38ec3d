//! OTLP trace exports read into spans, each with the line it came from and
//! its resource's attributes. The message types and their JSON encoding
//! (hex trace and span ids, 64-bit integers as strings) are
//! `opentelemetry-proto`'s.

use super::ImportProblem;
use crate::msg;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTracePartialSuccess, ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value::Value as Any};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde::Deserialize;
use serde_json::Value;
use serde_json::error::Category;

/// The most an attribute of a GenAI span may hold, in bytes: a span with
/// a larger one is skipped, named, rather than kept (a conversation is
/// read, listed and searched whole).
pub const MAX_ATTRIBUTE_BYTES: usize = 1024 * 1024;

/// A span of the input, with where it came from.
#[derive(Debug, Clone)]
pub struct LineSpan {
    /// The input's line (1-based) that held it.
    pub line: usize,
    pub span: Span,
    /// Its resource's attributes (a conversation id may sit there).
    pub resource: Vec<KeyValue>,
}

/// What a read of OTLP input found: its spans, the lines and spans it
/// could not read, and how many of those were spans.
#[derive(Debug, Default)]
pub struct Read {
    pub spans: Vec<LineSpan>,
    pub problems: Vec<ImportProblem>,
    /// How many of `problems` are single spans that could not be read
    /// (the other spans of their export were).
    pub unreadable_spans: usize,
}

/// Spans of OTLP/JSON text: one `ExportTraceServiceRequest` a line, as a
/// collector's file exporter writes them, or one document over several
/// lines. A line that is not one is a problem, and skipped; so is a span
/// of the wrong shape in a line that is one, its line's other spans read.
pub fn json_lines(text: &str) -> Read {
    let mut read = Read::default();
    let mut read_any = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match export(line, i + 1, &mut read) {
            Ok(()) => read_any = true,
            Err(e) => read.problems.push(ImportProblem {
                line: i + 1,
                msg: unreadable_line(i + 1, &e),
            }),
        }
    }
    // A pretty-printed export is one document over many lines.
    if !read_any && text.lines().filter(|l| !l.trim().is_empty()).count() > 1 {
        let mut whole = Read::default();
        if export(text, 1, &mut whole).is_ok() {
            read = whole;
        }
    }
    read
}

/// Reads one export from `text` (line `line`) into `read`. Whole when it
/// is well formed; else span by span, when it is an export with spans of
/// the wrong shape; else the parser's error.
fn export(text: &str, line: usize, read: &mut Read) -> Result<(), serde_json::Error> {
    match serde_json::from_str::<ExportTraceServiceRequest>(text) {
        Ok(request) => {
            take(request, line, &mut read.spans, &mut read.problems);
            Ok(())
        }
        Err(e) if e.classify() == Category::Data => {
            span_by_span(text, line, read).map_or(Err(e), |()| Ok(()))
        }
        Err(e) => Err(e),
    }
}

/// An export read span by span: each span that does not read as one is a
/// problem, named, and the others are kept. `None` when the export around
/// the spans (its lists, a resource) is not of OTLP's shape.
fn span_by_span(text: &str, line: usize, read: &mut Read) -> Option<()> {
    let doc: Value = serde_json::from_str(text).ok()?;
    let resource_spans = list(&doc, "resourceSpans")?;
    if resource_spans.is_empty() {
        return None;
    }
    let mut found = Read::default();
    for rs in resource_spans {
        let resource = match rs.get("resource") {
            None | Some(Value::Null) => Vec::new(),
            Some(r) => Resource::deserialize(r).ok()?.attributes,
        };
        for scope in list(rs, "scopeSpans")? {
            for span in list(scope, "spans")? {
                match serde_path_to_error::deserialize::<_, Span>(span) {
                    Ok(span) => found.spans.push(LineSpan {
                        line,
                        span,
                        resource: resource.clone(),
                    }),
                    Err(e) => {
                        found.unreadable_spans += 1;
                        found.problems.push(ImportProblem {
                            line,
                            msg: msg!(
                                "import-span-unreadable",
                                line = line,
                                span = label(span),
                                field = e.path().to_string()
                            ),
                        });
                    }
                }
            }
        }
    }
    read.spans.append(&mut found.spans);
    read.problems.append(&mut found.problems);
    read.unreadable_spans += found.unreadable_spans;
    Some(())
}

/// The list `key` of object `v`: empty when absent; `None` when `v` is no
/// object or `key` no list.
fn list<'a>(v: &'a Value, key: &str) -> Option<&'a [Value]> {
    match v.as_object()?.get(key) {
        None | Some(Value::Null) => Some(&[]),
        Some(Value::Array(items)) => Some(items),
        Some(_) => None,
    }
}

/// How a span that could not be read is named: its name and id, as far
/// as they are text.
fn label(span: &Value) -> String {
    let name = span.get("name").and_then(Value::as_str);
    let id = span.get("spanId").and_then(Value::as_str);
    match (name, id) {
        (Some(name), Some(id)) => format!("\"{name}\" ({id})"),
        (Some(name), None) => format!("\"{name}\""),
        (None, Some(id)) => format!("({id})"),
        (None, None) => "(no name)".to_string(),
    }
}

/// Why line `line` could not be read, in words of the reader's language
/// (the parser's own words are English): cut short, not JSON, or JSON of
/// another shape; where, by column.
fn unreadable_line(line: usize, e: &serde_json::Error) -> crate::i18n::Msg {
    let column = e.column();
    match e.classify() {
        Category::Eof => msg!("import-line-cut-short", line = line, column = column),
        Category::Syntax | Category::Io => {
            msg!("import-line-not-json", line = line, column = column)
        }
        Category::Data => msg!("import-line-not-otlp", line = line, column = column),
    }
}

/// Spans of an OTLP/protobuf request (the body of `POST /v1/traces`).
pub fn protobuf(body: &[u8]) -> Result<Vec<LineSpan>, ImportProblem> {
    let request = ExportTraceServiceRequest::decode(body).map_err(|e| ImportProblem {
        line: 1,
        msg: {
            tracing::debug!("an OTLP/protobuf body that does not decode: {e}");
            msg!("import-body-not-protobuf")
        },
    })?;
    let mut spans = Vec::new();
    let mut problems = Vec::new();
    take(request, 1, &mut spans, &mut problems);
    problems.into_iter().next().map_or(Ok(spans), Err)
}

/// An `ExportTraceServiceResponse` in protobuf: empty, or the partial
/// success of `rejected` spans and why.
pub fn protobuf_response(rejected: u64, error_message: String) -> Vec<u8> {
    let partial_success =
        (rejected > 0 || !error_message.is_empty()).then(|| ExportTracePartialSuccess {
            rejected_spans: i64::try_from(rejected).unwrap_or(i64::MAX),
            error_message,
        });
    ExportTraceServiceResponse { partial_success }.encode_to_vec()
}

/// Why a GenAI span cannot be kept whatever its messages: it has no trace
/// id (OTLP requires one of 16 bytes, not all zero), or an attribute over
/// [`MAX_ATTRIBUTE_BYTES`] (its name and size).
pub enum Unfit<'a> {
    NoTraceId,
    TooLarge(&'a str, usize),
}

/// What makes span `s` unfit to keep, if anything.
pub fn unfit(s: &Span) -> Option<Unfit<'_>> {
    if s.trace_id.len() != 16 || s.trace_id.iter().all(|b| *b == 0) {
        return Some(Unfit::NoTraceId);
    }
    s.attributes
        .iter()
        .chain(s.events.iter().flat_map(|e| &e.attributes))
        .map(|kv| (kv.key.as_str(), kv.value.as_ref().map_or(0, size)))
        .find(|(_, bytes)| *bytes > MAX_ATTRIBUTE_BYTES)
        .map(|(key, bytes)| Unfit::TooLarge(key, bytes))
}

/// The bytes a value holds: its text, or its parts' together.
fn size(v: &AnyValue) -> usize {
    match v.value.as_ref() {
        Some(Any::StringValue(s)) => s.len(),
        Some(Any::BytesValue(b)) => b.len(),
        Some(Any::ArrayValue(a)) => a.values.iter().map(size).sum(),
        Some(Any::KvlistValue(kv)) => kv
            .values
            .iter()
            .map(|kv| kv.key.len() + kv.value.as_ref().map_or(0, size))
            .sum(),
        _ => 8,
    }
}

fn take(
    request: ExportTraceServiceRequest,
    line: usize,
    spans: &mut Vec<LineSpan>,
    problems: &mut Vec<ImportProblem>,
) {
    // Every field has a default: any JSON object reads as an empty export.
    if request.resource_spans.is_empty() {
        problems.push(ImportProblem {
            line,
            msg: msg!("import-line-no-spans", line = line),
        });
        return;
    }
    for resource_spans in request.resource_spans {
        let resource = resource_spans
            .resource
            .map(|r| r.attributes)
            .unwrap_or_default();
        for scope in resource_spans.scope_spans {
            spans.extend(scope.spans.into_iter().map(|span| LineSpan {
                line,
                span,
                resource: resource.clone(),
            }));
        }
    }
}

/// The value of attribute `key`, when present.
pub fn attribute<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a AnyValue> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
}

/// Attribute `key` as text (a number or a boolean written out).
pub fn text(attributes: &[KeyValue], key: &str) -> Option<String> {
    match attribute(attributes, key)?.value.as_ref()? {
        Any::StringValue(s) => Some(s.clone()),
        Any::IntValue(n) => Some(n.to_string()),
        Any::DoubleValue(n) => Some(n.to_string()),
        Any::BoolValue(b) => Some(b.to_string()),
        _ => None,
    }
}

/// An attribute's value as JSON: a string holding JSON is parsed (the
/// GenAI conventions record messages on spans as JSON strings), a
/// structured value converted.
pub fn json(value: &AnyValue) -> Value {
    match value.value.as_ref() {
        Some(Any::StringValue(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(other) => structured(other),
        None => Value::Null,
    }
}

fn structured(value: &Any) -> Value {
    let of = |v: &AnyValue| v.value.as_ref().map_or(Value::Null, structured);
    match value {
        Any::StringValue(s) => Value::String(s.clone()),
        Any::BoolValue(b) => Value::Bool(*b),
        Any::IntValue(n) => Value::from(*n),
        Any::DoubleValue(n) => Value::from(*n),
        Any::ArrayValue(a) => Value::Array(a.values.iter().map(of).collect()),
        Any::KvlistValue(kv) => Value::Object(
            kv.values
                .iter()
                .map(|kv| (kv.key.clone(), kv.value.as_ref().map_or(Value::Null, of)))
                .collect(),
        ),
        Any::BytesValue(b) => Value::String(hex::encode(b)),
        Any::StringValueStrindex(i) => Value::from(*i),
    }
}
