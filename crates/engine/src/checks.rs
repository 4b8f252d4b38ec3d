//! Evaluation of scenario checks against a target's reply.
//!
//! Every result carries a plain-words detail, because a failed check is only
//! useful when the reader sees why without opening the transcript.

use crate::channel::{Channel, ChatMessage, ChatReply, ChatRequest, Role};
use crate::scenario::{Check, Scenario};
use crate::text::truncate;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, LazyLock, RwLock};

/// The outcome of one check on one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CheckResult {
    /// 0-based turn index.
    pub turn: u32,
    /// The check type, e.g. `contains`.
    pub kind: String,
    pub passed: bool,
    /// Why it passed or failed, in plain words.
    pub detail: String,
}

/// What a check sees of one turn.
pub struct TurnContext<'a> {
    pub scenario: &'a Scenario,
    pub turn: usize,
    /// The conversation so far, including this turn's user message.
    pub history: &'a [ChatMessage],
    pub reply: &'a ChatReply,
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
        let (passed, detail) = match check {
            Check::Rubric { rubric, min_score } => {
                rubric_check(rubric, min_score.unwrap_or(3), ctx, judge).await
            }
            other => evaluate(other, ctx),
        };
        out.push(CheckResult {
            turn: ctx.turn as u32,
            kind: check.kind().into(),
            passed,
            detail,
        });
    }
    out
}

/// Fraction of the scenario's key fields that appear in the replies;
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
fn evaluate(check: &Check, ctx: &TurnContext<'_>) -> (bool, String) {
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
                Some(v) => (true, format!("the reply contains \"{v}\"")),
                None if wanted.len() == 1 => (
                    false,
                    format!("the reply does not contain \"{}\"", wanted[0]),
                ),
                None => (
                    false,
                    format!(
                        "the reply contains none of: {}",
                        quoted_list(wanted.iter().copied())
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
                    format!(
                        "the reply contains none of: {}",
                        quoted_list(banned.iter().copied())
                    ),
                )
            } else {
                (
                    false,
                    format!(
                        "the reply contains forbidden text: {}",
                        quoted_list(found.into_iter())
                    ),
                )
            }
        }
        Check::Regex { pattern } => match compiled(pattern) {
            Ok(re) => match re.find(content) {
                Some(m) => (
                    true,
                    format!("the reply matches /{pattern}/ at \"{}\"", m.as_str()),
                ),
                None => (false, format!("the reply does not match /{pattern}/")),
            },
            Err(e) => (false, format!("the pattern /{pattern}/ is invalid: {e}")),
        },
        Check::JsonPath { path, equals } => json_path_check(path, equals.as_ref(), ctx.reply),
        Check::MaxLatencyMs { ms } => {
            let took = ctx.reply.latency_ms;
            if took <= *ms {
                (
                    true,
                    format!("the reply took {took} ms, within the limit of {ms} ms"),
                )
            } else {
                (
                    false,
                    format!("the reply took {took} ms, over the limit of {ms} ms"),
                )
            }
        }
        Check::ToolCalled {
            name,
            arguments_schema,
        } => tool_called_check(name, arguments_schema.as_ref(), ctx.reply),
        Check::AsksClarification { field } => asks_clarification(field.as_deref(), ctx.reply),
        Check::NoUnverifiedNumbers => number_gate(ctx),
        Check::Rubric { rubric, min_score } => {
            let (score, why) = heuristic_score(content, rubric);
            let min = min_score.unwrap_or(3);
            (
                score >= min,
                format!("offline heuristic scored {score}/5 (needs {min}): {why}"),
            )
        }
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

fn quoted_list<'a>(items: impl Iterator<Item = &'a str>) -> String {
    items
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

fn json_path_check(
    path: &str,
    equals: Option<&serde_json::Value>,
    reply: &ChatReply,
) -> (bool, String) {
    let parsed = match json_path(path) {
        Ok(p) => p,
        Err(e) => return (false, format!("`{path}` is not a valid JSONPath: {e}")),
    };
    let mut documents: Vec<(String, Cow<'_, serde_json::Value>)> = Vec::new();
    if let Some(v) = crate::text::json_in(&reply.content) {
        documents.push(("the reply's JSON".into(), Cow::Owned(v)));
    }
    for call in &reply.tool_calls {
        documents.push((
            format!("the arguments of tool call `{}`", call.name),
            Cow::Borrowed(&call.arguments),
        ));
    }
    if documents.is_empty() {
        return (
            false,
            "the reply holds no JSON and made no tool call, so there is nothing to query".into(),
        );
    }
    let mut seen = Vec::new();
    for (label, doc) in &documents {
        let nodes = parsed.query(doc).all();
        if nodes.is_empty() {
            continue;
        }
        match equals {
            None => {
                return (
                    true,
                    format!(
                        "{label} has {path} = {}",
                        truncate(&nodes[0].to_string(), 80)
                    ),
                );
            }
            Some(want) => {
                if nodes.iter().any(|n| json_equal(n, want)) {
                    return (true, format!("{label} has {path} = {want}"));
                }
                seen.push(format!(
                    "{label} has {path} = {}",
                    truncate(&nodes[0].to_string(), 80)
                ));
            }
        }
    }
    match equals {
        Some(want) if !seen.is_empty() => (
            false,
            format!("expected {path} = {want}, but {}", seen.join("; ")),
        ),
        _ => (
            false,
            format!(
                "{path} finds nothing in {}",
                documents
                    .iter()
                    .map(|(l, _)| l.as_str())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        ),
    }
}

/// Equality that treats 3 and 3.0 as the same number.
fn json_equal(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_number() && b.is_number() => x == y,
        _ => a == b,
    }
}

fn tool_called_check(
    name: &str,
    schema: Option<&serde_json::Value>,
    reply: &ChatReply,
) -> (bool, String) {
    let calls: Vec<_> = reply.tool_calls.iter().filter(|c| c.name == name).collect();
    if calls.is_empty() {
        let made = if reply.tool_calls.is_empty() {
            "it made no tool call".to_string()
        } else {
            format!(
                "it called {}",
                quoted_list(reply.tool_calls.iter().map(|c| c.name.as_str()))
            )
        };
        return (false, format!("the target did not call `{name}`; {made}"));
    }
    let Some(schema) = schema else {
        return (true, format!("the target called `{name}`"));
    };
    let validator = match schema_validator(schema) {
        Ok(v) => v,
        Err(e) => return (false, format!("the arguments schema is invalid: {e}")),
    };
    let mut problems = Vec::new();
    for call in &calls {
        let errors: Vec<String> = validator
            .iter_errors(&call.arguments)
            .take(5)
            .map(|e| {
                let at = e.instance_path.to_string();
                if at.is_empty() {
                    e.to_string()
                } else {
                    format!("{at}: {e}")
                }
            })
            .collect();
        if errors.is_empty() {
            return (
                true,
                format!(
                    "the target called `{name}` with arguments that match the schema: {}",
                    truncate(&call.arguments.to_string(), 200)
                ),
            );
        }
        problems.push(errors.join("; "));
    }
    (
        false,
        format!(
            "the target called `{name}` but its arguments do not match the schema: {}",
            problems.join(" | ")
        ),
    )
}

static QUESTION_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        // ASCII word boundaries around English words: a Unicode `\b` makes
        // the fast regex engines give up on any non-ASCII reply.
        r"(?i)[?？]|请(?:问|提供|告诉|补充|确认|说明|给出)|哪|什么|多少|是否|能否|可否|(?-u:\b)(?:could|can|would) you(?-u:\b)|(?-u:\b)please (?:provide|tell|give|share|specify|confirm|let me know)(?-u:\b)|(?-u:\b)(?:which|what|who|when)(?-u:\b)",
    )
    .expect("static regex")
});

/// Words a reply may use for a parameter instead of its literal name.
fn field_synonyms(field: &str) -> Vec<&'static str> {
    match field.to_lowercase().as_str() {
        "to" | "recipient" | "recipients" => vec![
            "recipient",
            "收件人",
            "email address",
            "邮箱地址",
            "发给谁",
            "who should",
        ],
        "cc" => vec!["cc", "抄送"],
        "bcc" => vec!["bcc", "密送"],
        "subject" => vec!["subject", "主题", "标题"],
        "body" => vec!["body", "正文", "内容", "message text", "content"],
        "attachments" => vec!["attachment", "附件"],
        "order_id" | "order" => vec!["order number", "order id", "订单号", "订单编号"],
        "address" => vec!["address", "地址"],
        "date" => vec!["date", "日期", "哪天", "when"],
        "time" => vec!["time", "时间", "几点"],
        "file" | "file_path" => vec!["file", "文件"],
        _ => Vec::new(),
    }
}

fn mentions_field(content: &str, field: &str) -> bool {
    let lower = content.to_lowercase();
    let f = field.to_lowercase();
    // Very short names ("to") occur in any sentence: only their synonyms count.
    if f.chars().count() > 2 && contains_word(&lower, &f) {
        return true;
    }
    field_synonyms(&f).iter().any(|s| lower.contains(s))
}

/// Whether `word` occurs in `text` not glued to other letters or digits.
fn contains_word(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, m)| {
        let before = text[..i].chars().next_back();
        let after = text[i + m.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

fn asks_clarification(field: Option<&str>, reply: &ChatReply) -> (bool, String) {
    if !reply.tool_calls.is_empty() {
        return (
            false,
            format!(
                "the target acted instead of asking: it called {}",
                quoted_list(reply.tool_calls.iter().map(|c| c.name.as_str()))
            ),
        );
    }
    let content = reply.content.as_str();
    let Some(q) = QUESTION_RE.find(content) else {
        return (
            false,
            format!(
                "the reply asks nothing back (no question mark or question words): \"{}\"",
                truncate(content, 120)
            ),
        );
    };
    match field {
        None => (
            true,
            format!(
                "the reply asks back (\"{}\") and makes no tool call",
                q.as_str()
            ),
        ),
        Some(f) if mentions_field(content, f) => (
            true,
            format!("the reply asks back for `{f}` and makes no tool call"),
        ),
        Some(f) => (
            false,
            format!(
                "the reply asks a question but does not mention the missing `{f}`: \"{}\"",
                truncate(content, 120)
            ),
        ),
    }
}

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

/// JSONPath expressions parsed once per process, like patterns.
pub(crate) fn json_path(path: &str) -> std::result::Result<Arc<serde_json_path::JsonPath>, String> {
    static CACHE: Cache<serde_json_path::JsonPath> = LazyLock::new(Default::default);
    cached(&CACHE, 4096, path, || {
        serde_json_path::JsonPath::parse(path).map_err(|e| e.to_string())
    })
}

/// The canonical numbers of a source text (a fact, the system prompt, a
/// user message). Every run of a scenario reads the same sources, so those
/// of up to [`CACHED_SOURCE_BYTES`] are read once per process.
fn source_numbers(text: &str) -> Arc<Vec<String>> {
    static CACHE: Cache<Vec<String>> = LazyLock::new(Default::default);
    let read = || numbers_in(text).into_iter().map(|(_, n)| n).collect();
    if text.len() > CACHED_SOURCE_BYTES {
        return Arc::new(read());
    }
    cached(&CACHE, 4096, text, || {
        Ok::<_, std::convert::Infallible>(read())
    })
    .unwrap_or_else(|never| match never {})
}

/// The longest source text whose numbers are kept (4,096 of them at most).
const CACHED_SOURCE_BYTES: usize = 2048;

static NUMBER_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?\s*%?").expect("static regex"));
static LIST_MARKER_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^\s*(?:#+\s*)?[0-9]{1,2}[.)、]\s").expect("static regex"));

/// Full-width digits and signs to ASCII, so that `１２．５％` and `12.5%`
/// are the same number.
fn normalize_digits(text: &str) -> Cow<'_, str> {
    let full_width = |c: char| matches!(c, '０'..='９' | '．' | '％');
    if !text.contains(full_width) {
        return Cow::Borrowed(text);
    }
    text.chars()
        .map(|c| match c {
            '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32).unwrap_or(c),
            '．' => '.',
            '％' => '%',
            _ => c,
        })
        .collect::<String>()
        .into()
}

/// A number as written (`12.5%`) and its canonical value (`12.5`).
fn numbers_in(text: &str) -> Vec<(String, String)> {
    let text = normalize_digits(text);
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return Vec::new();
    }
    let text = LIST_MARKER_RE.replace_all(&text, " ");
    NUMBER_RE
        .find_iter(&text)
        .map(|m| {
            let shown = m.as_str().trim().to_string();
            (shown.clone(), canonical_number(&shown))
        })
        .collect()
}

/// The canonical values of every number in a text (full-width digits,
/// thousands separators and trailing zeros folded): the one notion of "a
/// number" shared by the number gate, the heuristic judge and the virtual
/// user.
pub fn canonical_numbers(text: &str) -> BTreeSet<String> {
    numbers_in(text)
        .into_iter()
        .map(|(_, canonical)| canonical)
        .collect()
}

fn canonical_number(s: &str) -> String {
    let digits: String = s
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mut t = digits.as_str();
    if t.contains('.') {
        t = t.trim_end_matches('0').trim_end_matches('.');
    }
    let t = t.trim_start_matches('0');
    if t.is_empty() || t.starts_with('.') {
        format!("0{t}")
    } else {
        t.to_string()
    }
}

/// The texts whose numbers the target may repeat, the likeliest first:
/// the facts, the system prompt and what the user said.
fn number_sources<'a>(
    scenario: &'a Scenario,
    history: &'a [ChatMessage],
) -> impl Iterator<Item = &'a str> {
    scenario
        .facts
        .iter()
        .map(String::as_str)
        .chain(scenario.system.as_deref())
        .chain(
            history
                .iter()
                .filter(|m| matches!(m.role, Role::User | Role::System | Role::Tool))
                .map(|m| m.content.as_str()),
        )
}

fn number_gate(ctx: &TurnContext<'_>) -> (bool, String) {
    let found = numbers_in(&ctx.reply.content);
    if found.is_empty() {
        return (true, "the reply states no numbers".into());
    }
    // Sources are read only until every number of the reply is found.
    let mut unmatched: Vec<&str> = found.iter().map(|(_, canon)| canon.as_str()).collect();
    for text in number_sources(ctx.scenario, ctx.history) {
        if unmatched.is_empty() {
            break;
        }
        let numbers = source_numbers(text);
        unmatched.retain(|c| !numbers.iter().any(|n| n == c));
    }
    let mut unverified: Vec<String> = Vec::new();
    for (shown, canon) in &found {
        if unmatched.contains(&canon.as_str()) && !unverified.contains(shown) {
            unverified.push(shown.clone());
        }
    }
    if unverified.is_empty() {
        (
            true,
            format!(
                "all {} number(s) in the reply appear in the facts or the user's messages",
                found.len()
            ),
        )
    } else {
        (
            false,
            format!(
                "unverified number(s) {}: they appear neither in the scenario's facts nor in the user's messages",
                quoted_list(unverified.iter().map(String::as_str))
            ),
        )
    }
}

static REFUSAL_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:i can(?:no|')t|i am unable|i'm unable|i won't|as an ai)\b|无法(?:帮|处理|完成|回答)|不能帮|抱歉，?我(?:不能|无法)",
    )
    .expect("static regex")
});
static WORD_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z]{4,}|\p{Han}{2}").expect("static regex"));

/// Scores a reply without a model: catches empty, too short, refusing and
/// repetitive replies; otherwise middling, better when it uses the rubric's
/// own words. Deliberately coarse: it is a fallback, labelled as such.
pub fn heuristic_score(reply: &str, rubric: &str) -> (u8, String) {
    let text = reply.trim();
    let chars = text.chars().count();
    if chars == 0 {
        return (1, "the reply is empty".into());
    }
    if chars < 10 {
        return (2, format!("the reply is very short ({chars} characters)"));
    }
    if REFUSAL_RE.is_match(text) {
        return (2, "the reply refuses or says it cannot help".into());
    }
    let sentences: Vec<&str> = text
        .split(['.', '。', '!', '！', '?', '？', '\n'])
        .map(str::trim)
        .filter(|s| s.chars().count() > 3)
        .collect();
    let distinct: BTreeSet<&str> = sentences.iter().copied().collect();
    if sentences.len() >= 3 && distinct.len() * 2 <= sentences.len() {
        return (2, "the reply repeats the same sentences".into());
    }
    let rubric_words: BTreeSet<String> = WORD_RE
        .find_iter(&rubric.to_lowercase())
        .map(|m| m.as_str().to_string())
        .collect();
    let lower = text.to_lowercase();
    let hits = rubric_words.iter().filter(|w| lower.contains(*w)).count();
    if chars >= 40 && hits >= 2 {
        (
            4,
            format!("a substantive reply that uses {hits} of the rubric's terms"),
        )
    } else {
        (3, "a plausible reply; nothing obviously wrong".into())
    }
}

#[derive(Deserialize)]
struct JudgeVerdict {
    score: serde_json::Value,
    #[serde(default)]
    reason: Option<String>,
}

static SCORE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?i)score["'\s:=]*([1-5])"#).expect("static regex"));

/// Reads `{score, reason}` from a judge's answer, tolerating prose around
/// it, a string score ("4"), or a score given only in words ("score: 4").
pub fn parse_judge_score(answer: &str) -> Option<(u8, String)> {
    if let Some(v) = crate::text::json_in(answer)
        && let Ok(verdict) = serde_json::from_value::<JudgeVerdict>(v)
    {
        let score = match &verdict.score {
            serde_json::Value::Number(n) => n.as_f64(),
            serde_json::Value::String(s) => s.trim().parse::<f64>().ok(),
            _ => None,
        };
        if let Some(s) = score
            && (1.0..=5.0).contains(&s)
        {
            return Some((s.round() as u8, verdict.reason.unwrap_or_default()));
        }
    }
    SCORE_RE
        .captures(answer)
        .and_then(|c| c[1].parse::<u8>().ok())
        .map(|s| (s, truncate(answer.trim(), 200)))
}

async fn rubric_check(
    rubric: &str,
    min: u8,
    ctx: &TurnContext<'_>,
    judge: Option<&dyn Channel>,
) -> (bool, String) {
    let Some(judge) = judge else {
        let (score, why) = heuristic_score(&ctx.reply.content, rubric);
        return (
            score >= min,
            format!("offline heuristic scored {score}/5 (needs {min}): {why}"),
        );
    };
    let conversation: String = ctx
        .history
        .iter()
        .filter(|m| matches!(m.role, Role::User | Role::Assistant))
        .map(|m| {
            let who = if m.role == Role::User {
                "User"
            } else {
                "Agent"
            };
            format!("{who}: {}", truncate(&m.content, 1500))
        })
        .collect::<Vec<_>>()
        .join("\n");
    let prompt = format!(
        "You grade one reply of an AI agent.\n\nRubric: {rubric}\n\nConversation so far:\n{conversation}\n\nReply to grade:\n{}\n\nAnswer with JSON only: {{\"score\": <integer 1-5, 5 = fully meets the rubric>, \"reason\": \"<one sentence>\"}}",
        truncate(&ctx.reply.content, 4000)
    );
    let request = ChatRequest {
        messages: vec![
            ChatMessage::system("You are a strict, fair evaluator. You answer with JSON only."),
            ChatMessage::user(prompt),
        ],
        tools: Default::default(),
    };
    match judge.send(&request).await {
        Ok(answer) => match parse_judge_score(&answer.content) {
            Some((score, reason)) => (
                score >= min,
                format!("judge scored {score}/5 (needs {min}): {reason}"),
            ),
            None => {
                let (score, why) = heuristic_score(&ctx.reply.content, rubric);
                (
                    score >= min,
                    format!(
                        "the judge's answer had no usable score; offline heuristic scored {score}/5 (needs {min}): {why}"
                    ),
                )
            }
        },
        Err(e) => {
            let (score, why) = heuristic_score(&ctx.reply.content, rubric);
            (
                score >= min,
                format!(
                    "the judge could not be reached ({e}); offline heuristic scored {score}/5 (needs {min}): {why}"
                ),
            )
        }
    }
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
