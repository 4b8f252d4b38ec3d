//! Production conversations from OpenTelemetry traces: OTLP (JSON lines as
//! a collector's file exporter writes them, or a protobuf request as an
//! OTLP/HTTP exporter sends it) read into spans ([`otlp`]), the GenAI
//! spans' messages rebuilt into conversations ([`rebuild`]), personal data
//! replaced by pattern before anything is kept ([`redact`]). A line or a
//! span that cannot be read is named in the summary and skipped; nothing
//! else is lost. What is rebuilt is kept ([`keep`]), a conversation
//! extended by later spans of it.

pub mod coverage;
pub mod draft;
mod keep;
pub mod otlp;
mod propose;
pub mod rebuild;
pub mod redact;
pub mod seeds;

pub use crate::domain::traces::{ImportProblem, ImportSummary, TraceConversation};
pub use draft::TraceDraft;
pub use keep::{ImportRequest, ImportedPage, ImportedQuery};
pub use redact::Redactor;

/// How an import's input is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// OTLP/JSON: one `ExportTraceServiceRequest` a line (or one document).
    Json,
    /// OTLP/protobuf: one `ExportTraceServiceRequest`.
    Protobuf,
}

/// Reads `input`, rebuilds its conversations and redacts them with
/// `redactor` (none: `Redactor::none()`): the conversations and what was
/// read, replaced and skipped.
pub fn import(
    input: &[u8],
    encoding: Encoding,
    redactor: &Redactor,
) -> (Vec<TraceConversation>, ImportSummary) {
    let read = match encoding {
        Encoding::Json => otlp::json_lines(&String::from_utf8_lossy(input)),
        Encoding::Protobuf => match otlp::protobuf(input) {
            Ok(spans) => otlp::Read {
                spans,
                ..Default::default()
            },
            Err(problem) => otlp::Read {
                problems: vec![problem],
                ..Default::default()
            },
        },
    };
    let mut problems = read.problems;
    let rebuilt = rebuild::conversations(read.spans);
    // A span that could not be read counts as read and skipped: whether
    // it was a GenAI span cannot be told.
    let skipped_spans = rebuilt.problems.len() + read.unreadable_spans;
    problems.extend(rebuilt.problems);
    problems.sort_by_key(|p| p.line);
    let mut redacted = Default::default();
    let conversations: Vec<_> = rebuilt
        .conversations
        .into_iter()
        .map(|c| redactor.conversation(c, &mut redacted))
        .collect();
    let summary = ImportSummary::of(
        &conversations,
        (rebuilt.spans + read.unreadable_spans, skipped_spans),
        redacted,
        problems,
    );
    (conversations, summary)
}
