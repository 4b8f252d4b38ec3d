//! Personal data replaced by pattern before an import keeps anything:
//! e-mail addresses, phone numbers (international with `+`, Chinese
//! mobiles, North American), long ids (UUIDs, runs of 9 or more digits,
//! Chinese identity card numbers), and any pattern the user names. Each
//! match becomes `[<kind>]`, counted by kind. Word boundaries are ASCII
//! ones, so that a number right after Chinese text is still found.

use super::TraceConversation;
use regex::Regex;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// The built-in kinds and their patterns, applied in this order.
const BUILT_IN: &[(&str, &str)] = &[
    ("email", r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}"),
    (
        "id",
        r"(?i)(?-u:\b)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?-u:\b)|(?-u:\b)\d{17}[\dXx](?-u:\b)",
    ),
    (
        "phone",
        r"\+\d{1,3}[\s\-]?\d[\d\s\-]{6,14}\d|(?-u:\b)1[3-9]\d{9}(?-u:\b)|\(?(?-u:\b)\d{3}\)?[\s.\-]\d{3}[\s.\-]\d{4}(?-u:\b)",
    ),
    ("id", r"(?-u:\b)\d{9,}(?-u:\b)"),
];

static BUILT_IN_REGEXES: LazyLock<Vec<(String, Regex)>> = LazyLock::new(|| {
    BUILT_IN
        .iter()
        .map(|(kind, p)| (kind.to_string(), Regex::new(p).expect("a built-in pattern")))
        .collect()
});

/// What an import replaces; [`Redactor::none`] replaces nothing.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    patterns: Vec<(String, Regex)>,
}

impl Redactor {
    /// Replaces nothing.
    pub fn none() -> Self {
        Self::default()
    }

    /// E-mail addresses, phone numbers and long ids.
    pub fn built_in() -> Self {
        Self {
            patterns: BUILT_IN_REGEXES.clone(),
        }
    }

    /// Adds the user's pattern `kind=regex` (matches become `[kind]`); a
    /// pattern that does not compile is refused with the regex's words.
    pub fn with_pattern(mut self, spec: &str) -> Result<Self, String> {
        let (kind, pattern) = spec
            .split_once('=')
            .filter(|(k, p)| !k.trim().is_empty() && !p.is_empty())
            .ok_or_else(|| format!("'{spec}' is not NAME=REGEX"))?;
        let regex = Regex::new(pattern).map_err(|e| e.to_string())?;
        self.patterns.push((kind.trim().to_string(), regex));
        Ok(self)
    }

    /// `text` with every match replaced, counted into `counts`.
    pub fn text(&self, text: &str, counts: &mut BTreeMap<String, u32>) -> String {
        let mut out = text.to_string();
        for (kind, regex) in &self.patterns {
            let found = regex.find_iter(&out).count();
            if found > 0 {
                *counts.entry(kind.clone()).or_default() += found as u32;
                out = regex.replace_all(&out, format!("[{kind}]")).into_owned();
            }
        }
        out
    }

    fn value(&self, v: &mut Value, counts: &mut BTreeMap<String, u32>) {
        match v {
            Value::String(s) => *s = self.text(s, counts),
            Value::Array(items) => items.iter_mut().for_each(|i| self.value(i, counts)),
            Value::Object(map) => map.values_mut().for_each(|i| self.value(i, counts)),
            _ => {}
        }
    }

    /// The conversation with every message and tool argument redacted.
    pub fn conversation(
        &self,
        mut c: TraceConversation,
        counts: &mut BTreeMap<String, u32>,
    ) -> TraceConversation {
        if self.patterns.is_empty() {
            return c;
        }
        for m in &mut c.messages {
            m.content = self.text(&m.content, counts);
            for call in &mut m.tool_calls {
                self.value(&mut call.arguments, counts);
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redact(text: &str) -> (String, BTreeMap<String, u32>) {
        let mut counts = BTreeMap::new();
        (Redactor::built_in().text(text, &mut counts), counts)
    }

    #[test]
    fn emails_phones_and_ids_are_replaced_and_counted() {
        let (out, counts) = redact(
            "Mail ada@example.com or call +44 20 7946 0958, 13812345678 or (415) 555-2671; account 123456789012.",
        );
        assert_eq!(
            out,
            "Mail [email] or call [phone], [phone] or [phone]; account [id]."
        );
        assert_eq!(counts["email"], 1);
        assert_eq!(counts["phone"], 3);
        assert_eq!(counts["id"], 1);
    }

    #[test]
    fn a_number_right_after_chinese_text_is_found() {
        let (out, counts) = redact("我的手机是13812345678，身份证110101199003071234");
        assert_eq!(out, "我的手机是[phone]，身份证[id]");
        assert_eq!((counts["phone"], counts["id"]), (1, 1));
    }

    #[test]
    fn figures_dates_and_short_order_numbers_stay() {
        let text = "Sales grew 12.5% to 1,250,000 on 2026-12-05; order A1024 ships in 3 days.";
        let (out, counts) = redact(text);
        assert_eq!(out, text, "nothing personal here: {counts:?}");
        assert!(counts.is_empty());
    }

    #[test]
    fn a_users_pattern_is_added_and_a_broken_one_refused() {
        let r = Redactor::none().with_pattern("order=A\\d{4}").unwrap();
        let mut counts = BTreeMap::new();
        assert_eq!(r.text("order A1024", &mut counts), "order [order]");
        assert_eq!(counts["order"], 1);
        assert!(Redactor::none().with_pattern("order=(").is_err());
        assert!(Redactor::none().with_pattern("no-equals").is_err());
    }
}
