//! Evaluation of scenario checks against a target's reply.
//!
//! Every result carries a plain-words detail, because a failed check is only
//! useful when the reader sees why without opening the transcript.

use crate::channel::{Channel, ChatMessage, ChatReply, ChatRequest, Role};
use crate::domain::steps::{DocumentText, Step};
use crate::i18n::Msg;
use crate::judge::JudgeMethod;
use crate::msg;
use crate::scenario::{Check, Scenario};
use crate::text::truncate;
use regex::Regex;
use serde::Deserialize;
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, LazyLock, RwLock};

mod clarification;
mod numbers;
mod rubric;
mod structured;
mod trajectory;
mod workspace;

use clarification::*;
pub use numbers::*;
pub use rubric::*;
use structured::*;
pub use trajectory::check_call;

pub use crate::domain::run::CheckResult;

/// What a check sees of one turn.
pub struct TurnContext<'a> {
    pub scenario: &'a Scenario,
    pub turn: usize,
    /// The conversation so far, including this turn's user message (and
    /// the tool messages of earlier turns, not this one's).
    pub history: &'a [ChatMessage],
    /// The target's last reply of the turn: its words, and the calls the
    /// engine did not answer.
    pub reply: &'a ChatReply,
    /// The calls the engine answered in this turn, in order.
    pub steps: &'a [Step],
    /// Every document the agent created or changed in the run's workspace
    /// so far, as text now.
    pub documents: &'a [DocumentText],
    /// Every file of the run's workspace now, relative to its root.
    pub files: &'a [String],
}

impl TurnContext<'_> {
    /// Every call of the turn: the answered ones, then the last reply's.
    pub fn calls(&self) -> impl Iterator<Item = &crate::channel::ToolCall> {
        self.steps
            .iter()
            .map(|s| &s.call)
            .chain(&self.reply.tool_calls)
    }
}

/// Evaluates the checks of one turn. `judge` scores `rubric` checks; without
/// one an offline heuristic does.
pub async fn run_checks(
    checks: &[Check],
    ctx: &TurnContext<'_>,
    judge: Option<&dyn Channel>,
) -> Vec<CheckResult> {
    let mut out = Vec::with_capacity(checks.len());
    for check in checks {
        let (passed, detail, graded, step) = match check {
            Check::Rubric { rubric, min_score } => {
                let g = rubric_check(rubric, min_score.unwrap_or(3), ctx, judge).await;
                (g.passed, g.detail, Some((g.score, g.judged_by)), None)
            }
            other => {
                let judged =
                    workspace::evaluate(other, ctx).or_else(|| trajectory::evaluate(other, ctx));
                let (passed, detail, step) = match judged {
                    Some(judged) => judged,
                    None => {
                        let (passed, detail) = evaluate(other, ctx);
                        (passed, detail, None)
                    }
                };
                (passed, detail, None, step)
            }
        };
        out.push(CheckResult {
            turn: ctx.turn as u32,
            kind: check.kind().into(),
            passed,
            detail: detail.into(),
            score: graded.map(|g| g.0),
            judged_by: graded.map(|g| g.1),
            step,
        });
    }
    out
}

/// Fraction of the scenario's key fields that appear in the replies and
/// the documents the agent produced (give their texts with the replies);
/// `None` when the scenario names none.
pub fn key_field_coverage(scenario: &Scenario, replies: &[&str]) -> Option<f64> {
    if scenario.key_fields.is_empty() {
        return None;
    }
    let all = replies.join("\n").to_lowercase();
    let hit = scenario
        .key_fields
        .iter()
        .filter(|f| all.contains(&f.to_lowercase()))
        .count();
    Some(hit as f64 / scenario.key_fields.len() as f64)
}

/// Evaluates every check kind except `rubric` (which may need a judge).
fn evaluate(check: &Check, ctx: &TurnContext<'_>) -> (bool, Msg) {
    let content = ctx.reply.content.as_str();
    match check {
        Check::Contains {
            value,
            any,
            case_sensitive,
        } => {
            let wanted = values(value, any);
            let within = Haystack::new(content, *case_sensitive);
            match wanted.iter().find(|v| within.contains(v)) {
                Some(v) => (true, msg!("check-contains-pass", value = *v)),
                None if wanted.len() == 1 => {
                    (false, msg!("check-contains-fail", value = wanted[0]))
                }
                None => (
                    false,
                    msg!(
                        "check-contains-none",
                        values = quoted(wanted.iter().copied())
                    ),
                ),
            }
        }
        Check::NotContains {
            value,
            any,
            case_sensitive,
        } => {
            let banned = values(value, any);
            let within = Haystack::new(content, *case_sensitive);
            let found: Vec<&str> = banned
                .iter()
                .copied()
                .filter(|v| within.contains(v))
                .collect();
            if found.is_empty() {
                (
                    true,
                    msg!(
                        "check-contains-none",
                        values = quoted(banned.iter().copied())
                    ),
                )
            } else {
                (
                    false,
                    msg!("check-forbidden", values = quoted(found.into_iter())),
                )
            }
        }
        Check::Regex { pattern } => match compiled(pattern) {
            Ok(re) => match re.find(content) {
                Some(m) => (
                    true,
                    msg!("check-regex-pass", pattern = pattern, at = m.as_str()),
                ),
                None => (false, msg!("check-regex-fail", pattern = pattern)),
            },
            Err(e) => (
                false,
                msg!("check-regex-bad", pattern = pattern, detail = e.to_string()),
            ),
        },
        Check::JsonPath { path, equals } => json_path_check(path, equals.as_ref(), ctx),
        Check::MaxLatencyMs { ms } => {
            let took = ctx.reply.latency_ms;
            if took <= *ms {
                (true, msg!("check-latency-pass", took = took, limit = *ms))
            } else {
                (false, msg!("check-latency-fail", took = took, limit = *ms))
            }
        }
        Check::ToolCalled {
            name,
            arguments_schema,
        } => tool_called_check(name, arguments_schema.as_ref(), ctx),
        Check::AsksClarification { field } => asks_clarification(field.as_deref(), ctx.reply),
        Check::NoRepeat => no_repeat(ctx),
        Check::Document { .. } | Check::FileExists { .. } | Check::NoUnverifiedNumbers => {
            unreachable!("workspace checks are evaluated by `workspace::evaluate`")
        }
        Check::ToolSequence { .. }
        | Check::ToolNotCalled { .. }
        | Check::NoUnknownTools
        | Check::RecoversFromError { .. } => {
            unreachable!("trajectory checks are evaluated by `trajectory::evaluate`")
        }
        Check::Rubric { rubric, min_score } => {
            let (score, why) = heuristic_score(content, rubric);
            let min = min_score.unwrap_or(3);
            (
                score >= min,
                msg!("rubric-heuristic", score = score, min = min, why = why),
            )
        }
    }
}

/// The reply against the target's previous one, compared without case and
/// spacing.
fn no_repeat(ctx: &TurnContext<'_>) -> (bool, Msg) {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let previous = ctx
        .history
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant)
        .map(|m| m.content.as_str());
    match previous {
        Some(p) if !p.trim().is_empty() && norm(p) == norm(&ctx.reply.content) => (
            false,
            msg!(
                "check-repeat-fail",
                reply = truncate(&ctx.reply.content, 120)
            ),
        ),
        Some(_) => (true, msg!("check-repeat-pass")),
        None => (true, msg!("check-repeat-first")),
    }
}

fn values<'a>(value: &'a Option<String>, any: &'a [String]) -> Vec<&'a str> {
    value
        .iter()
        .chain(any.iter())
        .map(String::as_str)
        .filter(|v| !v.is_empty())
        .collect()
}

/// A reply searched for several values, lowercased once when the search
/// ignores case.
struct Haystack<'a> {
    text: Cow<'a, str>,
    case_sensitive: bool,
}

impl<'a> Haystack<'a> {
    fn new(text: &'a str, case_sensitive: bool) -> Self {
        Self {
            text: if case_sensitive {
                text.into()
            } else {
                text.to_lowercase().into()
            },
            case_sensitive,
        }
    }

    fn contains(&self, needle: &str) -> bool {
        if self.case_sensitive {
            self.text.contains(needle)
        } else {
            self.text.contains(&needle.to_lowercase())
        }
    }
}

/// Texts to quote in a message, each as it was written.
fn quoted<'a>(items: impl Iterator<Item = &'a str>) -> Vec<String> {
    items.map(str::to_string).collect()
}

// Compiled patterns, schemas and paths, cached: checks run for every
// turn of every run.

/// What is built from a scenario's text (a pattern, a schema, a path),
/// kept per process under that text.
type Cache<T> = LazyLock<RwLock<HashMap<String, Arc<T>>>>;

/// The value `cache` keeps for `key`, built by `build` the first time.
/// Keys come from scenario files; `max` only guards memory.
fn cached<T, E>(
    cache: &Cache<T>,
    max: usize,
    key: &str,
    build: impl FnOnce() -> std::result::Result<T, E>,
) -> std::result::Result<Arc<T>, E> {
    if let Some(value) = cache.read().ok().and_then(|c| c.get(key).cloned()) {
        return Ok(value);
    }
    let value = Arc::new(build()?);
    if let Ok(mut cache) = cache.write() {
        if cache.len() >= max {
            cache.clear();
        }
        cache.insert(key.to_string(), value.clone());
    }
    Ok(value)
}

/// Scenario patterns compiled once per process: compiling a Unicode,
/// case-folding pattern costs far more than matching a reply with it.
/// Shared as `Arc`: a cloned `Regex` starts with empty search caches.
pub(crate) fn compiled(pattern: &str) -> std::result::Result<Arc<Regex>, regex::Error> {
    static CACHE: Cache<Regex> = LazyLock::new(Default::default);
    cached(&CACHE, 4096, pattern, || Regex::new(pattern))
}

/// Tool-argument schemas compiled once per process, like patterns.
pub(crate) fn schema_validator(
    schema: &serde_json::Value,
) -> std::result::Result<Arc<jsonschema::Validator>, String> {
    static CACHE: Cache<jsonschema::Validator> = LazyLock::new(Default::default);
    cached(&CACHE, 1024, &schema.to_string(), || {
        jsonschema::validator_for(schema).map_err(|e| e.to_string())
    })
}

/// Why `value` does not validate against a schema, each at its path (the
/// first five): empty when it does.
pub(crate) fn schema_problems(
    validator: &jsonschema::Validator,
    value: &serde_json::Value,
) -> Vec<String> {
    validator
        .iter_errors(value)
        .take(5)
        .map(|e| {
            let at = e.instance_path.to_string();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("{at}: {e}")
            }
        })
        .collect()
}

/// JSONPath expressions parsed once per process, like patterns.
pub(crate) fn json_path(path: &str) -> std::result::Result<Arc<serde_json_path::JsonPath>, String> {
    static CACHE: Cache<serde_json_path::JsonPath> = LazyLock::new(Default::default);
    cached(&CACHE, 4096, path, || {
        serde_json_path::JsonPath::parse(path).map_err(|e| e.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_built_from_a_scenario_text_is_built_once_and_shared() {
        let a = compiled(r"order (\d+)").unwrap();
        assert!(Arc::ptr_eq(&a, &compiled(r"order (\d+)").unwrap()));
        assert!(
            compiled("(").is_err(),
            "a bad pattern is an error, not cached"
        );
        let p = json_path("$.order.id").unwrap();
        assert!(Arc::ptr_eq(&p, &json_path("$.order.id").unwrap()));
        assert_eq!(*source_numbers("Units: 1,200 at 12.50%"), ["1200", "12.5"]);
    }
}
