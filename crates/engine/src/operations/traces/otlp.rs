//! OTLP trace exports read into spans, each with the line it came from and
//! its resource's attributes. The message types and their JSON encoding
//! (hex trace and span ids, 64-bit integers as strings) are
//! `opentelemetry-proto`'s.

use super::ImportProblem;
use crate::msg;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value::Value as Any};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::Value;

/// A span of the input, with where it came from.
#[derive(Debug, Clone)]
pub struct LineSpan {
    /// The input's line (1-based) that held it.
    pub line: usize,
    pub span: Span,
    /// Its resource's attributes (a conversation id may sit there).
    pub resource: Vec<KeyValue>,
}

/// Spans of OTLP/JSON text: one `ExportTraceServiceRequest` a line, as a
/// collector's file exporter writes them, or one document over several
/// lines. A line that is not one is a problem, and skipped.
pub fn json_lines(text: &str) -> (Vec<LineSpan>, Vec<ImportProblem>) {
    let mut spans = Vec::new();
    let mut problems = Vec::new();
    let mut read_any = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<ExportTraceServiceRequest>(line) {
            Ok(request) => {
                read_any = true;
                take(request, i + 1, &mut spans, &mut problems);
            }
            Err(e) => problems.push(ImportProblem {
                line: i + 1,
                msg: unreadable_line(i + 1, &e),
            }),
        }
    }
    // A pretty-printed export is one document over many lines.
    if !read_any
        && text.lines().filter(|l| !l.trim().is_empty()).count() > 1
        && let Ok(request) = serde_json::from_str::<ExportTraceServiceRequest>(text)
    {
        problems.clear();
        take(request, 1, &mut spans, &mut problems);
    }
    (spans, problems)
}

/// Why line `line` could not be read, in words of the reader's language
/// (the parser's own words are English): cut short, not JSON, or JSON of
/// another shape; where, by column.
fn unreadable_line(line: usize, e: &serde_json::Error) -> crate::i18n::Msg {
    use serde_json::error::Category;
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
