//! Whether a reply asks back for a missing field, in English or Chinese.

use super::*;
use crate::i18n::Msg;
use crate::msg;

pub(super) static QUESTION_RE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        // ASCII word boundaries around English words: a Unicode `\b` makes
        // the fast regex engines give up on any non-ASCII reply.
        r"(?i)[?？]|请(?:问|提供|告诉|补充|确认|说明|给出)|哪|什么|多少|是否|能否|可否|(?-u:\b)(?:could|can|would) you(?-u:\b)|(?-u:\b)please (?:provide|tell|give|share|specify|confirm|let me know)(?-u:\b)|(?-u:\b)(?:which|what|who|when)(?-u:\b)",
    )
    .expect("static regex")
});

/// Words a reply may use for a parameter instead of its literal name.
pub(super) fn field_synonyms(field: &str) -> Vec<&'static str> {
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

pub(super) fn mentions_field(content: &str, field: &str) -> bool {
    let lower = content.to_lowercase();
    let f = field.to_lowercase();
    // Very short names ("to") occur in any sentence: only their synonyms count.
    if f.chars().count() > 2 && contains_word(&lower, &f) {
        return true;
    }
    field_synonyms(&f).iter().any(|s| lower.contains(s))
}

/// Whether `word` occurs in `text` not glued to other letters or digits.
pub(super) fn contains_word(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, m)| {
        let before = text[..i].chars().next_back();
        let after = text[i + m.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

pub(super) fn asks_clarification(field: Option<&str>, reply: &ChatReply) -> (bool, Msg) {
    if !reply.tool_calls.is_empty() {
        return (
            false,
            msg!(
                "check-ask-acted",
                tools = reply
                    .tool_calls
                    .iter()
                    .map(|c| c.name.clone())
                    .collect::<Vec<_>>()
            ),
        );
    }
    let content = reply.content.as_str();
    let Some(q) = QUESTION_RE.find(content) else {
        return (
            false,
            msg!("check-ask-none", reply = truncate(content, 120)),
        );
    };
    match field {
        None => (true, msg!("check-ask-pass", question = q.as_str())),
        Some(f) if mentions_field(content, f) => (true, msg!("check-ask-field-pass", field = f)),
        Some(f) => (
            false,
            msg!(
                "check-ask-field-missing",
                field = f,
                reply = truncate(content, 120)
            ),
        ),
    }
}
