//! Text helpers every part of the engine shares, one per job: cutting a
//! text to a length, finding the JSON a model wrote among its prose, and
//! telling a refusal.

use serde_json::Value;

/// At most `max` characters of `text`, the cut marked with `…`.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max).collect();
        s.push('…');
        s
    }
}

/// The first JSON object or array in a model's text: the text itself when
/// it is one, else the first `{` or `[` from which a value parses (models
/// wrap JSON in code fences or prose). A raw line break or tab inside a
/// string (which some grammar-constrained servers let through, and JSON
/// forbids) is read as its escape.
pub fn json_in(text: &str) -> Option<Value> {
    first_json(text, |v| v.is_object() || v.is_array())
}

/// The first JSON object in a model's text (see [`json_in`]).
pub fn json_object_in(text: &str) -> Option<Value> {
    first_json(text, Value::is_object)
}

fn first_json(text: &str, wanted: impl Fn(&Value) -> bool) -> Option<Value> {
    let parse_at = |s: &str| {
        serde_json::Deserializer::from_str(s)
            .into_iter::<Value>()
            .next()
            .and_then(Result::ok)
    };
    let trimmed = text.trim();
    if let Ok(v) = serde_json::from_str::<Value>(trimmed)
        && wanted(&v)
    {
        return Some(v);
    }
    text.char_indices()
        .filter(|(_, c)| *c == '{' || *c == '[')
        .find_map(|(i, _)| {
            let rest = &text[i..];
            parse_at(rest)
                .or_else(|| parse_at(&escape_raw_controls(rest)))
                .filter(&wanted)
        })
}

/// `text` with the control characters inside its JSON strings escaped
/// (`\n`, `\t`, `\u0001`...); everything else as it is.
fn escape_raw_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let (mut in_str, mut escaped) = (false, false);
    for c in text.chars() {
        if in_str && !escaped && u32::from(c) < 0x20 {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            }
            continue;
        }
        match c {
            _ if escaped => escaped = false,
            '\\' if in_str => escaped = true,
            '"' => in_str = !in_str,
            _ => {}
        }
        out.push(c);
    }
    out
}

/// Phrases of an assistant declining or unable to help, lower case, in
/// English and Chinese: the one list behind the rubric heuristic's
/// "refuses" and the virtual user's "the target would not help".
pub const REFUSAL: &[&str] = &[
    "i can't",
    "i cannot",
    "i won't",
    "as an ai",
    "unable to",
    "not able to",
    "i'm sorry",
    "sorry, i",
    "i don't know",
    "not supported",
    "无法",
    "不能",
    "抱歉",
    "不支持",
    "做不到",
    "不知道",
];

/// Whether `text` contains one of the [`REFUSAL`] phrases.
pub fn is_refusal(text: &str) -> bool {
    let lower = text.to_lowercase();
    REFUSAL.iter().any(|p| lower.contains(p))
}

/// The language a persona speaks, a text is written in, a label is shown
/// in: the catalogue's languages.
pub use crate::i18n::Lang;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn truncation_marks_the_cut_and_counts_characters() {
        assert_eq!(truncate("abcdef", 3), "abc…");
        assert_eq!(truncate("中文字", 3), "中文字");
        assert_eq!(truncate("中文字符", 3), "中文字…");
    }

    #[test]
    fn json_is_found_in_prose_fences_and_broken_strings() {
        let v = json_object_in("Sure!\n```json\n{\"a\": \"}{\", \"b\": {\"c\": 1}}\n```").unwrap();
        assert_eq!(v["b"]["c"], 1);
        assert_eq!(
            json_object_in("{broken} then {\"ok\": true}").unwrap()["ok"],
            true
        );
        assert!(json_object_in("no json here").is_none());
        assert!(json_object_in("{\"unterminated\": ").is_none());
        assert_eq!(json_in("the list: [1, 2] done"), Some(json!([1, 2])));
        assert_eq!(
            json_object_in("a list [1, 2] then {\"k\": 3}"),
            Some(json!({"k": 3})),
            "an object is wanted, the array before it is skipped"
        );
        let raw = json_object_in("{\"evidence\": \");\n[{\", \"n\": 1, \"t\": \"a\\\"\tb\"}")
            .expect("a raw line break inside a string is read as \\n");
        assert_eq!(raw["evidence"], ");\n[{");
        assert_eq!(raw["t"], "a\"\tb");
        assert_eq!(raw["n"], 1, "the whole object, not an inner one");
    }

    #[test]
    fn refusals_in_both_languages() {
        assert!(is_refusal("Sorry, I cannot do that."));
        assert!(is_refusal("抱歉，我无法处理"));
        assert!(!is_refusal("Done: the email is sent."));
    }
}
