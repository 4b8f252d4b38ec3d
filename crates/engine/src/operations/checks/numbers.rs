//! The number gate: every figure in a reply must come from the conversation
//! or a tool result.

use super::*;
use crate::i18n::Msg;
use crate::msg;

/// The canonical numbers of a source text (a fact, the system prompt, a
/// user message). Every run of a scenario reads the same sources, so those
/// of up to [`CACHED_SOURCE_BYTES`] are read once per process.
pub(super) fn source_numbers(text: &str) -> Arc<Vec<String>> {
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
pub(super) const CACHED_SOURCE_BYTES: usize = 2048;

pub(super) static NUMBER_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?\s*%?").expect("static regex"));
pub(super) static LIST_MARKER_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^\s*(?:#+\s*)?[0-9]{1,2}[.)、]\s").expect("static regex"));

/// Full-width digits and signs to ASCII, so that `１２．５％` and `12.5%`
/// are the same number.
pub(super) fn normalize_digits(text: &str) -> Cow<'_, str> {
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
pub(super) fn numbers_in(text: &str) -> Vec<(String, String)> {
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

pub(super) fn canonical_number(s: &str) -> String {
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
/// the facts, the system prompt, what the user said and what the tools
/// returned in earlier turns (this turn's answers are read apart).
pub(super) fn number_sources<'a>(
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

pub(super) fn number_gate(ctx: &TurnContext<'_>) -> (bool, Msg) {
    let found = numbers_in(&ctx.reply.content);
    if found.is_empty() {
        return (true, msg!("check-numbers-none"));
    }
    // Sources are read only until every number of the reply is found.
    let mut unmatched: Vec<&str> = found.iter().map(|(_, canon)| canon.as_str()).collect();
    let answers: Vec<String> = ctx.steps.iter().map(|s| s.answer.content()).collect();
    let sources =
        number_sources(ctx.scenario, ctx.history).chain(answers.iter().map(String::as_str));
    for text in sources {
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
        (true, msg!("check-numbers-pass", count = found.len()))
    } else {
        (false, msg!("check-numbers-fail", numbers = unverified))
    }
}
