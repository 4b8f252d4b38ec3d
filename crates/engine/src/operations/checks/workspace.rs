//! Checks on what an agent produced in a run's workspace: a document that
//! holds what the task asks for, a file that exists, and the number gate
//! over the documents it wrote (seed 002 §6.2: every figure in them came
//! from a tool result, the facts or the user).

use super::*;
use crate::domain::steps::DocumentText;

/// Whether `path` matches the glob `pattern` (`*` does not cross `/`
/// unless written `**`); a pattern that does not compile matches nothing.
pub(crate) fn glob_matches(pattern: &str, path: &str) -> bool {
    let Ok(glob) = globset::GlobBuilder::new(pattern.trim_start_matches("./"))
        .literal_separator(true)
        .case_insensitive(true)
        .build()
    else {
        return false;
    };
    let m = glob.compile_matcher();
    // A bare name (`*.md`) is looked for in any folder.
    m.is_match(path)
        || (!pattern.contains('/') && path.rsplit('/').next().is_some_and(|name| m.is_match(name)))
}

/// The headings of a document's text: Markdown `#` lines, without marks.
fn headings(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix('#'))
        .map(|h| h.trim_start_matches('#').trim().to_lowercase())
        .collect()
}

/// `document`: the first document matching `path` that holds every value
/// and section passes; else the one that missed least says what it lacks.
pub(super) fn document_check(
    path: Option<&str>,
    contains: &[String],
    sections: &[String],
    ctx: &TurnContext<'_>,
) -> (bool, Msg, Option<u32>) {
    let pattern = path.unwrap_or("**/*");
    let candidates: Vec<&DocumentText> = ctx
        .documents
        .iter()
        .filter(|d| glob_matches(pattern, &d.path))
        .collect();
    if candidates.is_empty() {
        let made: Vec<&str> = ctx.documents.iter().map(|d| d.path.as_str()).collect();
        return if made.is_empty() {
            (false, msg!("check-document-none", path = pattern), None)
        } else {
            (
                false,
                msg!(
                    "check-document-other",
                    path = pattern,
                    made = quoted(made.into_iter())
                ),
                None,
            )
        };
    }
    let mut best: Option<(&DocumentText, Vec<&str>, Vec<&str>)> = None;
    for doc in candidates {
        let text = doc.text.to_lowercase();
        let missing: Vec<&str> = contains
            .iter()
            .map(String::as_str)
            .filter(|v| !text.contains(&v.to_lowercase()))
            .collect();
        let heads = headings(&doc.text);
        let no_section: Vec<&str> = sections
            .iter()
            .map(String::as_str)
            .filter(|s| !heads.iter().any(|h| h.contains(&s.to_lowercase())))
            .collect();
        if missing.is_empty() && no_section.is_empty() {
            return (
                true,
                msg!("check-document-pass", path = doc.path.as_str()),
                step_of(ctx, &doc.path),
            );
        }
        let worse = best
            .as_ref()
            .is_none_or(|(_, m, s)| m.len() + s.len() > missing.len() + no_section.len());
        if worse {
            best = Some((doc, missing, no_section));
        }
    }
    let (doc, missing, no_section) = best.expect("a candidate was read");
    let detail = if missing.is_empty() {
        msg!(
            "check-document-no-section",
            path = doc.path.as_str(),
            sections = quoted(no_section.into_iter())
        )
    } else {
        msg!(
            "check-document-missing",
            path = doc.path.as_str(),
            values = quoted(missing.into_iter())
        )
    };
    (false, detail, step_of(ctx, &doc.path))
}

/// The 1-based step of this turn that last wrote `path`, if one did.
fn step_of(ctx: &TurnContext<'_>, path: &str) -> Option<u32> {
    ctx.steps
        .iter()
        .rposition(|s| s.document.as_ref().is_some_and(|d| d.path == path))
        .map(|i| i as u32 + 1)
}

/// `file_exists`: a file of the workspace matches the glob.
pub(super) fn file_exists_check(path: &str, ctx: &TurnContext<'_>) -> (bool, Msg, Option<u32>) {
    match ctx.files.iter().find(|f| glob_matches(path, f)) {
        Some(found) => (
            true,
            msg!("check-file-exists", path = path, found = found.as_str()),
            step_of(ctx, found),
        ),
        None => (false, msg!("check-file-missing", path = path), None),
    }
}

/// The documents this turn's steps wrote, each at its last version, with
/// the 1-based step that wrote it. An export is left out: it only changes
/// a document's format, and its figures are those of a document the agent
/// wrote (and the gate read) or of a file the workspace came with.
fn written_this_turn<'c>(ctx: &'c TurnContext<'_>) -> Vec<(u32, &'c DocumentText)> {
    let mut out: Vec<(u32, &DocumentText)> = Vec::new();
    for (i, step) in ctx.steps.iter().enumerate() {
        if step.call.name == "DOC_EXPORT" {
            continue;
        }
        if let Some(doc) = &step.document {
            out.retain(|(_, d)| d.path != doc.path);
            out.push((i as u32 + 1, doc));
        }
    }
    out
}

/// The number gate over the documents written in this turn: the figures
/// no source holds, by document. Sources are those of the reply's gate,
/// less the answers of the steps that wrote a document (they echo the
/// agent's own words).
pub(super) fn unverified_in_documents(ctx: &TurnContext<'_>) -> Option<(u32, String, Vec<String>)> {
    let written = written_this_turn(ctx);
    if written.is_empty() {
        return None;
    }
    let answers: Vec<String> = ctx
        .steps
        .iter()
        .filter(|s| s.document.is_none())
        .map(|s| s.answer.content())
        .collect();
    let sources: Vec<Arc<Vec<String>>> = number_sources(ctx.scenario, ctx.history)
        .chain(answers.iter().map(String::as_str))
        .map(source_numbers)
        .collect();
    for (step, doc) in written {
        let mut unverified: Vec<String> = Vec::new();
        for (shown, canon) in numbers_in(&doc.text) {
            let known = sources.iter().any(|ns| ns.contains(&canon));
            if !known && !unverified.contains(&shown) {
                unverified.push(shown);
            }
        }
        if !unverified.is_empty() {
            return Some((step, doc.path.clone(), unverified));
        }
    }
    None
}

/// The checks this module judges, with the step they are about: `document`,
/// `file_exists`, and the number gate (the reply, then the documents the
/// turn wrote).
pub(super) fn evaluate(check: &Check, ctx: &TurnContext<'_>) -> Option<(bool, Msg, Option<u32>)> {
    match check {
        Check::Document {
            path,
            contains,
            sections,
        } => Some(document_check(path.as_deref(), contains, sections, ctx)),
        Check::FileExists { path } => Some(file_exists_check(path, ctx)),
        Check::NoUnverifiedNumbers => {
            let (passed, detail) = number_gate(ctx);
            if passed && let Some((step, path, numbers)) = unverified_in_documents(ctx) {
                return Some((
                    false,
                    msg!(
                        "check-numbers-document-fail",
                        path = path,
                        numbers = numbers
                    ),
                    Some(step),
                ));
            }
            Some((passed, detail, None))
        }
        _ => None,
    }
}
