//! The send_email skill of seed 001: recipients, subject, body and
//! attachments read from the thread, missing fields asked back, limits and
//! forbidden requests refused.

use super::*;

/// The address check of seed 001's `to` parameter.
pub(super) static VALID_ADDRESS_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[\w.-]+@[\w.-]+\.\w+$"));
pub(super) static RECIPIENT_TOKEN_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)(?P<addr>[A-Za-z0-9._%+#!\-]*@[A-Za-z0-9._\-@#!]*)|(?P<bcc>\bbcc\b|密送)|(?P<cc>\bcc\b|抄送)|(?P<to>\bto\b|收件人|发给|发送给|寄给)"#,
    )
});
pub(super) static SUBJECT_RES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    vec![
        re(
            r#"(?i)subject(?:\s+line)?(?:\s+(?:is|should be|of|as))?\s*[:：]?\s*["“「]([^"”」]+)["”」]"#,
        ),
        re(r#"(?i)\btitled\s+["“「]([^"”」]+)["”」]"#),
        re(r#"(?:主题|标题)(?:是|为|叫)?\s*[:：]?\s*[「“"]([^」”"]+)[」”"]"#),
        // Up to the end of the clause, or to the next field's label
        // ("subject: Lunch, body: See you at noon").
        re(
            r"(?i)subject\s*[:：]\s*([^\n;；]+?)\s*(?:[;；\n]|[,，]\s*(?:body|content|message|text|cc|bcc|to)\s*[:：]|$)",
        ),
        re(r#"(?i)subject(?:\s+line)?\s+(?:is|should be)\s+([^\n;；."“「]+)"#),
        re(r"(?:主题|标题)(?:是|为|[:：])\s*([^，,。；;\n]+)"),
    ]
});
pub(super) static BODY_RES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    vec![
        re(
            r#"(?i)\b(?:body|message|content|text)(?:\s+(?:is|should be|says|reads))?\s*[:：]?\s*["“「]([^"”」]+)["”」]"#,
        ),
        re(r#"(?i)\bsaying\s+["“「]([^"”」]+)["”」]"#),
        re(r#"(?:正文|内容)(?:是|为|写)?\s*[:：]?\s*[「“"]([^」”"]+)[」”"]"#),
        re(r"(?i)\bbody\s*[:：]\s*([^\n]+)"),
        re(r"(?i)\b(?:body|message)\s+(?:is|should be|says|should say)\s+([^\n]+)"),
        re(r"(?:正文|内容)(?:是|为|[:：])\s*([^\n]+)"),
    ]
});
pub(super) static FILE_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)[\w\-.]+\.(?:pdf|docx?|xlsx?|pptx?|png|jpe?g|txt|csv|zip|md)\b"));
pub(super) static ATTACH_RE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\battach|附件|附上"));
pub(super) static SENDER_OVERRIDE_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bfrom\s+(?:my\s+|the\s+)?(?:address\s+)?[\w.-]+@|\bsend (?:it |this )?as\b|\bsender\b|\bon behalf of\b|发件人|以.{1,16}名义|用.{0,16}@[\w.-]+.{0,6}(?:发|邮箱)|从.{0,16}@[\w.-]+.{0,4}发",
    )
});

/// Words of our own question for missing email fields.
pub(super) const EMAIL_PENDING_MARKS: [&str; 6] = [
    "(to)",
    "(subject)",
    "(body)",
    "（to）",
    "（subject）",
    "（body）",
];

/// Whether a message gives an email field: an address, a subject, a body
/// or an attachment, or talks about email at all.
pub(super) fn email_like(text: &str) -> bool {
    detect(text) == Some(Intent::Email)
        || first_capture(&SUBJECT_RES, text).is_some()
        || first_capture(&BODY_RES, text).is_some()
        || ATTACH_RE.is_match(text)
}

pub(super) const MAX_TO: usize = 50;
pub(super) const MAX_CC: usize = 20;
pub(super) const MAX_SUBJECT: usize = 200;
pub(super) const MAX_BODY: usize = 102_400;
pub(super) const MAX_ATTACHMENTS: usize = 10;

#[derive(Debug, Default)]
pub(super) struct Recipients {
    to: Vec<String>,
    cc: Vec<String>,
    bcc: Vec<String>,
    invalid: Vec<String>,
}

pub(super) fn recipients_in(text: &str) -> Recipients {
    let mut r = Recipients::default();
    let mut mode = 0u8; // 0 = to, 1 = cc, 2 = bcc
    for caps in RECIPIENT_TOKEN_RE.captures_iter(text) {
        if caps.name("bcc").is_some() {
            mode = 2;
        } else if caps.name("cc").is_some() {
            mode = 1;
        } else if caps.name("to").is_some() {
            mode = 0;
        } else if let Some(addr) = caps.name("addr") {
            let addr = addr
                .as_str()
                .trim_end_matches(['.', '。', '!', '！', '?', '？']);
            if !VALID_ADDRESS_RE.is_match(addr) {
                r.invalid.push(addr.to_string());
                continue;
            }
            let list = match mode {
                1 => &mut r.cc,
                2 => &mut r.bcc,
                _ => &mut r.to,
            };
            if !list.iter().any(|a| a == addr) {
                list.push(addr.to_string());
            }
        }
    }
    r
}

pub(super) fn first_capture(res: &[Regex], text: &str) -> Option<String> {
    res.iter()
        .find_map(|r| r.captures(text))
        .map(|c| c[1].trim().to_string())
        .filter(|s| !s.is_empty())
}

pub(super) fn email(
    thread: &[&str],
    last: &str,
    lang: Lang,
    tools: &[ToolSpec],
) -> (String, Vec<ToolCall>) {
    if let Some(refusal) = refused_request(last, lang) {
        return (refusal, Vec::new());
    }
    let draft = Draft::from_thread(thread);
    if let Some(refusal) = draft.over_limit(lang) {
        return (refusal, Vec::new());
    }
    if let Some(question) = draft.missing_fields(lang) {
        return (question, Vec::new());
    }
    draft.send(lang, tools)
}

/// The refusal of a last message that asks to send from another address
/// or names an invalid one.
fn refused_request(last: &str, lang: Lang) -> Option<String> {
    if SENDER_OVERRIDE_RE.is_match(last) {
        return Some(lang.pick(
            "抱歉，我不能更改发件人：出于安全策略，所有邮件只能从 noreply@company.com 发出。如需继续，请确认使用默认发件人。",
            "Sorry, I can't change the sender: for security, every email is sent from noreply@company.com. Let me know if I should send it from that address instead.",
        ));
    }
    let latest = recipients_in(last);
    if !latest.invalid.is_empty() {
        let bad = latest.invalid.join(", ");
        return Some(match lang {
            Lang::Zh => format!(
                "抱歉，{bad} 不是有效的邮箱地址，我无法发送。请提供正确的收件人邮箱地址（例如 name@example.com）？"
            ),
            Lang::En => format!(
                "Sorry, {bad} is not a valid email address, so I can't send to it. Could you give me a correct recipient address (like name@example.com)?"
            ),
        });
    }
    None
}

/// The email as the thread gives it so far.
struct Draft {
    rec: Recipients,
    subject: Option<String>,
    body: Option<String>,
    /// Attachments, by file name.
    files: Vec<String>,
}

impl Draft {
    fn from_thread(thread: &[&str]) -> Self {
        // Recipients come from the first message that named any: a later
        // correction is not taken into account (a deliberate flaw).
        let mut rec = Recipients::default();
        for msg in thread {
            let r = recipients_in(msg);
            if rec.to.is_empty() && !r.to.is_empty() {
                rec.to = r.to;
            }
            for a in r.cc {
                if !rec.cc.contains(&a) {
                    rec.cc.push(a);
                }
            }
            for a in r.bcc {
                if !rec.bcc.contains(&a) {
                    rec.bcc.push(a);
                }
            }
        }
        let subject = thread
            .iter()
            .rev()
            .find_map(|m| first_capture(&SUBJECT_RES, m));
        let body = thread
            .iter()
            .rev()
            .find_map(|m| first_capture(&BODY_RES, m));
        let mut files: Vec<String> = Vec::new();
        for msg in thread.iter().filter(|m| ATTACH_RE.is_match(m)) {
            for f in FILE_RE.find_iter(msg) {
                if !files.iter().any(|x| x == f.as_str()) {
                    files.push(f.as_str().to_string());
                }
            }
        }
        Draft {
            rec,
            subject,
            body,
            files,
        }
    }

    /// The refusal of an email over a limit: recipients, copies, subject,
    /// body or attachments.
    fn over_limit(&self, lang: Lang) -> Option<String> {
        let Draft {
            rec,
            subject,
            body,
            files,
        } = self;
        let limit = |zh: String, en: String| match lang {
            Lang::Zh => zh,
            Lang::En => en,
        };
        if rec.to.len() > MAX_TO {
            let n = rec.to.len();
            return Some(limit(
                format!(
                    "抱歉，收件人有 {n} 个，超过了每封邮件最多 {MAX_TO} 个收件人的限制，我不能发送。请减少收件人，或改用邮件组。"
                ),
                format!(
                    "Sorry, that is {n} recipients, more than the limit of {MAX_TO} per email, so I can't send it. Please reduce the list or use a mailing list."
                ),
            ));
        }
        for (list, name_zh, name_en) in [(&rec.cc, "抄送", "cc"), (&rec.bcc, "密送", "bcc")] {
            if list.len() > MAX_CC {
                let n = list.len();
                return Some(limit(
                    format!(
                        "抱歉，{name_zh}地址有 {n} 个，超过了最多 {MAX_CC} 个的限制，我不能发送。"
                    ),
                    format!(
                        "Sorry, there are {n} {name_en} addresses, more than the limit of {MAX_CC}, so I can't send it."
                    ),
                ));
            }
        }
        if let Some(s) = &subject {
            let n = s.chars().count();
            if n > MAX_SUBJECT {
                return Some(limit(
                    format!(
                        "抱歉，邮件主题有 {n} 个字符，超过了 {MAX_SUBJECT} 个字符的上限。请缩短主题（subject）后再发？"
                    ),
                    format!(
                        "Sorry, the subject is {n} characters long, over the limit of {MAX_SUBJECT} characters. Could you give me a shorter subject?"
                    ),
                ));
            }
        }
        if body.as_ref().is_some_and(|b| b.len() > MAX_BODY) {
            return Some(lang.pick(
                "抱歉，邮件正文超过了 100KB 的上限，请缩短正文？",
                "Sorry, the body is larger than the 100 KB limit. Could you shorten it?",
            ));
        }
        if files.len() > MAX_ATTACHMENTS {
            let n = files.len();
            return Some(limit(
                format!(
                    "抱歉，附件有 {n} 个，超过了每封邮件最多 {MAX_ATTACHMENTS} 个附件的限制，我不能发送。可以把文件打包成一个压缩包再发。"
                ),
                format!(
                    "Sorry, that is {n} attachments, more than the limit of {MAX_ATTACHMENTS} per email, so I can't send it. You could zip the files into one archive."
                ),
            ));
        }
        None
    }

    /// The question for the fields still missing (recipient, subject,
    /// body), if any.
    fn missing_fields(&self, lang: Lang) -> Option<String> {
        let Draft {
            rec, subject, body, ..
        } = self;
        let mut missing_zh = Vec::new();
        let mut missing_en = Vec::new();
        if rec.to.is_empty() {
            missing_zh.push("收件人邮箱地址（to）");
            missing_en.push("the recipient's email address (to)");
        }
        if subject.is_none() {
            missing_zh.push("邮件主题（subject）");
            missing_en.push("the subject (subject)");
        }
        if body.is_none() {
            missing_zh.push("邮件正文（body）");
            missing_en.push("the body text (body)");
        }
        if missing_en.is_empty() {
            return None;
        }
        Some(match lang {
            Lang::Zh => format!(
                "好的，我来帮您发这封邮件。还缺少：{}。请提供一下？",
                missing_zh.join("、")
            ),
            Lang::En => format!(
                "Sure, I can send that email. I still need {}. Could you provide {}?",
                join_en(&missing_en),
                if missing_en.len() == 1 { "it" } else { "them" }
            ),
        })
    }

    /// Sends it: a send_email call where the target offers the tool, else
    /// the word that it was sent.
    fn send(self, lang: Lang, tools: &[ToolSpec]) -> (String, Vec<ToolCall>) {
        let Draft {
            rec,
            subject,
            body,
            files,
        } = self;
        let subject = subject.unwrap_or_default();
        let body = body.unwrap_or_default();
        let mut args = json!({ "to": rec.to, "subject": subject, "body": body });
        if !rec.cc.is_empty() {
            args["cc"] = json!(rec.cc);
        }
        if !rec.bcc.is_empty() {
            args["bcc"] = json!(rec.bcc);
        }
        if !files.is_empty() {
            args["attachments"] = Value::Array(
                files
                    .iter()
                    .enumerate()
                    .map(|(i, f)| json!({ "file_id": format!("file-{}", i + 1), "filename": f }))
                    .collect(),
            );
        }
        let to = rec.to.join(", ");
        let copies = if rec.cc.is_empty() {
            String::new()
        } else {
            match lang {
                Lang::Zh => format!("，抄送 {}", rec.cc.join(", ")),
                Lang::En => format!(" (cc: {})", rec.cc.join(", ")),
            }
        };
        if offers(tools, "send_email") {
            let text = match lang {
                Lang::Zh => format!("好的，正在发送邮件给 {to}{copies}，主题「{subject}」。"),
                Lang::En => {
                    format!("Sending the email to {to}{copies} with the subject \"{subject}\".")
                }
            };
            return (text, vec![tool_call("send_email", args)]);
        }
        (
            match lang {
                Lang::Zh => format!("邮件已发送给 {to}{copies}，主题「{subject}」。"),
                Lang::En => format!("Email sent to {to}{copies} with the subject \"{subject}\"."),
            },
            Vec::new(),
        )
    }
}

pub(super) fn join_en(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
