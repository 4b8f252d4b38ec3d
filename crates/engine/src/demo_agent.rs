//! The built-in demo agent: a small deterministic agent that answers in the
//! user's language (Chinese or English), so that the product can be tried
//! end to end without any model.
//!
//! It implements the send_email skill of seed 001 (recipients, subject,
//! body, attachments; asks back for missing required fields; refuses what
//! the skill forbids), a handful of office tasks modelled on seed 002, and
//! customer-service intents. It also carries realistic flaws so that an
//! evaluation has something to find:
//!
//! - it keeps the first recipient (or event date) after the user changes
//!   their mind;
//! - asked for a trend, growth or forecast, it states a growth figure that is
//!   not in its data;
//! - it answers only the first request when one message holds two.
//!
//! Further flaws can be switched on ([`Flaw`]), and one behaviour can be
//! made flaky ([`Flaky`]), so that a regression gate has something to catch.

use crate::channel::{ChatMessage, Role, ToolCall, ToolSpec, Usage};
use regex::Regex;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

#[derive(Debug, Default)]
pub struct DemoAgent {
    flaws: Vec<Flaw>,
    flaky: Option<Flaky>,
    /// How often each conversation reached the flaky behaviour.
    seen: Mutex<HashMap<[u8; 32], u32>>,
}

/// A bug the demo agent can be told to have, each caught by shipped
/// scenarios it otherwise passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flaw {
    /// Refunds are promised within 14 business days instead of 7
    /// (`cs.refund_zh` fails).
    RefundDays,
    /// A question about an order without its number is answered about a
    /// guessed order instead of asking for the number
    /// (`cs.order_status_followup_zh` and `cs.change_address` fail).
    OrderGuess,
}

impl Flaw {
    pub const ALL: [Flaw; 2] = [Flaw::RefundDays, Flaw::OrderGuess];

    pub fn name(self) -> &'static str {
        match self {
            Flaw::RefundDays => "refund-days",
            Flaw::OrderGuess => "order-guess",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name.trim())
    }
}

/// A behaviour the demo agent can be told to get wrong every second time
/// the same conversation reaches it, so that repeats of one scenario
/// disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flaky {
    /// The opening hours are left out of the answer every second time
    /// (`cs.opening_hours` becomes flaky).
    OpeningHours,
}

impl Flaky {
    pub const ALL: [Flaky; 1] = [Flaky::OpeningHours];

    pub fn name(self) -> &'static str {
        match self {
            Flaky::OpeningHours => "opening-hours",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name.trim())
    }
}

/// Conversations remembered for the flaky behaviour before starting over.
const FLAKY_MEMORY: usize = 100_000;

#[derive(Debug, Clone)]
pub struct DemoReply {
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Zh,
    En,
}

static WORDLESS_RE: LazyLock<Regex> = LazyLock::new(|| re(r"\S*@\S*|\b[A-Z]*[-#]?\d[\w-]*"));
static LATIN_WORD_RE: LazyLock<Regex> = LazyLock::new(|| re(r"[A-Za-z]{2,}"));

/// The language of the latest user message that shows one: a bare order
/// number or address in a Chinese conversation is still answered in Chinese.
fn conversation_lang(users: &[&str]) -> Lang {
    for text in users.iter().rev() {
        if HAN_RE.is_match(text) {
            return Lang::Zh;
        }
        if LATIN_WORD_RE.is_match(&WORDLESS_RE.replace_all(text, " ")) {
            return Lang::En;
        }
    }
    Lang::En
}

impl Lang {
    fn pick(self, zh: &str, en: &str) -> String {
        match self {
            Self::Zh => zh.to_string(),
            Self::En => en.to_string(),
        }
    }
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static regex")
}

static HAN_RE: LazyLock<Regex> = LazyLock::new(|| re(r"\p{Han}"));

/// What the user wants, in routing order: when one message matches several
/// intents only the first is served (a deliberate flaw).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Intent {
    Email,
    Trend,
    TopN,
    ToJson,
    ToPdf,
    Calendar,
    WeeklyReport,
    Contract,
    Diff,
    Lateness,
    PriceSlides,
    CreateDoc,
    MissingData,
    OrderStatus,
    Refund,
    OpeningHours,
    ChangeAddress,
    Human,
    Greeting,
    Thanks,
}

static INTENTS: LazyLock<Vec<(Intent, Regex)>> = LazyLock::new(|| {
    vec![
        (
            Intent::Email,
            re(r"(?i)e-?mails?\b|\bmail\b|邮件|发信|[\w.-]+@[\w.-]+|\b(?:cc|bcc)\b|抄送|密送"),
        ),
        (
            Intent::Trend,
            re(
                r"(?i)\btrends?\b|\bgrowth\b|\bgrow\b|\bforecast|\bpredict|趋势|增长|增速|预测|环比|同比",
            ),
        ),
        (
            Intent::TopN,
            re(
                r"(?i)\btop\s*\d+|\brank|\bhighest\b|前\s*[0-9一二三四五六七八九十]+\s*(?:名|的|个)?|排名|最高",
            ),
        ),
        (Intent::ToJson, re(r"(?i)\bjson\b")),
        (Intent::ToPdf, re(r"(?i)\bpdf\b")),
        (
            Intent::Calendar,
            re(r"(?i)\bcalendar\b|\bschedule\b|\bmeeting\b|\bappointment\b|日程|会议|约会|日历"),
        ),
        (Intent::WeeklyReport, re(r"(?i)weekly report|周报")),
        (Intent::Contract, re(r"(?i)\bcontract\b|合同")),
        (
            Intent::Diff,
            re(r"(?i)\bcompare\b|\bdiff(?:erence)?s?\b|\bversions?\b|对比|差异|版本"),
        ),
        (Intent::Lateness, re(r"(?i)\blate\b|\blateness\b|迟到")),
        (
            Intent::PriceSlides,
            re(r"(?i)\bppt\b|\bslides?\b|\bpresentation\b|\bdeck\b|幻灯片|演示文稿"),
        ),
        (
            Intent::CreateDoc,
            re(r"(?i)\bdocument\b|\bword doc|\bdocx\b|文档"),
        ),
        (
            Intent::MissingData,
            re(
                r"(?i)\brevenue\b|\bsales\b|\breport\b|\bspreadsheet\b|\btable\b|营收|销售|收入|报表|报告|表格",
            ),
        ),
        (
            Intent::OrderStatus,
            re(
                r"(?i)\border\b|\bshipping\b|\bshipped\b|\bdelivery\b|\bpackage\b|\btracking\b|订单|物流|快递|发货|到货",
            ),
        ),
        (Intent::Refund, re(r"(?i)\brefund|\breturn\b|退款|退货")),
        (
            Intent::OpeningHours,
            re(r"(?i)opening hours|\bopen\b|\bhours\b|\bclose\b|营业时间|几点|上班时间|客服时间"),
        ),
        (Intent::ChangeAddress, re(r"(?i)\baddress\b|地址")),
        (
            Intent::Human,
            re(r"(?i)\bhuman\b|\breal person\b|\bagent\b|\bcomplain|转人工|人工客服|投诉"),
        ),
        (
            Intent::Greeting,
            re(r"(?i)^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening))\b|你好|您好|在吗"),
        ),
        (
            Intent::Thanks,
            re(r"(?i)\bthanks?\b|\bthank you\b|谢谢|多谢|感谢"),
        ),
    ]
});

/// Intents that route a customer-service follow-up ("ORD-1234") back to
/// the request that asked for it.
fn detect(text: &str) -> Option<Intent> {
    let intent = INTENTS
        .iter()
        .find(|(_, r)| r.is_match(text))
        .map(|(i, _)| *i)?;
    // Order-related words inside a refund or address request belong to
    // those requests, not to an order-status question.
    if intent == Intent::OrderStatus {
        for later in [Intent::Refund, Intent::ChangeAddress] {
            if INTENTS.iter().any(|(i, r)| *i == later && r.is_match(text)) {
                return Some(later);
            }
        }
    }
    Some(intent)
}

impl DemoAgent {
    pub fn new() -> Self {
        Self::default()
    }

    /// The demo agent with extra flaws switched on and, optionally, one
    /// flaky behaviour.
    pub fn with_flaws(flaws: &[Flaw], flaky: Option<Flaky>) -> Self {
        Self {
            flaws: flaws.to_vec(),
            flaky,
            seen: Mutex::default(),
        }
    }

    fn has(&self, flaw: Flaw) -> bool {
        self.flaws.contains(&flaw)
    }

    /// Whether `behaviour` goes wrong for this conversation now: every
    /// second time the same conversation reaches it.
    fn flakes(&self, behaviour: Flaky, messages: &[ChatMessage]) -> bool {
        if self.flaky != Some(behaviour) {
            return false;
        }
        let mut hash = Sha256::new();
        for m in messages {
            hash.update(format!("{:?}", m.role).as_bytes());
            hash.update([0]);
            hash.update(m.content.as_bytes());
            hash.update([0]);
        }
        let key: [u8; 32] = hash.finalize().into();
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if seen.len() >= FLAKY_MEMORY {
            seen.clear();
        }
        let n = seen.entry(key).or_insert(0);
        *n += 1;
        n.is_multiple_of(2)
    }

    pub fn respond(&self, messages: &[ChatMessage], tools: &[ToolSpec]) -> DemoReply {
        let (content, tool_calls) = answer(self, messages, tools);
        let chars_in: usize = messages.iter().map(|m| m.content.chars().count()).sum();
        let chars_out = content.chars().count()
            + tool_calls
                .iter()
                .map(|c| c.arguments.to_string().chars().count())
                .sum::<usize>();
        DemoReply {
            content,
            tool_calls,
            usage: Usage {
                tokens_in: (chars_in / 4).max(1) as u32,
                tokens_out: (chars_out / 4).max(1) as u32,
            },
        }
    }
}

fn answer(
    agent: &DemoAgent,
    messages: &[ChatMessage],
    tools: &[ToolSpec],
) -> (String, Vec<ToolCall>) {
    let users: Vec<&str> = messages
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.content.as_str())
        .collect();
    let last_user = users.last().copied().unwrap_or_default();
    let lang = conversation_lang(&users);
    if messages.last().is_some_and(|m| m.role == Role::Tool) {
        return (after_tool(messages, lang), Vec::new());
    }
    if last_user.trim().is_empty() {
        return (capabilities(lang, true), Vec::new());
    }
    // While an email waits for missing fields, an answer that gives one
    // ("The subject is Weekly report") belongs to the email even when it
    // mentions words of another task.
    let email_pending = messages
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant)
        .is_some_and(|m| EMAIL_PENDING_MARKS.iter().any(|k| m.content.contains(k)));
    // Otherwise the intent of the latest message that has one: a bare
    // follow-up ("ORD-1234") continues the earlier request.
    let found = if email_pending && email_like(last_user) {
        Some((users.len() - 1, Intent::Email))
    } else {
        users
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, u)| detect(u).map(|it| (i, it)))
    };
    let Some((start, intent)) = found else {
        return (capabilities(lang, false), Vec::new());
    };
    // The request began where the same intent (or bare follow-ups) began.
    let mut begin = start;
    while begin > 0 {
        let prev = users[begin - 1];
        let same = detect(prev).is_none_or(|i| i == intent)
            || (intent == Intent::Email && email_like(prev));
        if !same {
            break;
        }
        begin -= 1;
    }
    let thread = &users[begin..];
    let text = thread.join("\n");
    match intent {
        Intent::Email => email(thread, last_user, lang, tools),
        Intent::Trend => (trend(&text, lang), Vec::new()),
        Intent::TopN => (top_n(&text, lang), Vec::new()),
        Intent::ToJson => (to_json(&text, lang), Vec::new()),
        Intent::Calendar => calendar(thread, lang, tools),
        Intent::WeeklyReport => (weekly_report(&text, lang), Vec::new()),
        Intent::Contract => (contract(&text, lang), Vec::new()),
        Intent::Diff => (diff(&text, lang), Vec::new()),
        Intent::Lateness => (lateness(&text, lang), Vec::new()),
        Intent::PriceSlides => (price_slides(&text, lang), Vec::new()),
        Intent::ToPdf => to_pdf(&text, lang, tools),
        Intent::CreateDoc => (create_doc(&text, lang), Vec::new()),
        Intent::MissingData => (missing_data(&text, lang), Vec::new()),
        Intent::OrderStatus if agent.has(Flaw::OrderGuess) && order_id(&text).is_none() => {
            (guessed_order(lang), Vec::new())
        }
        Intent::OrderStatus => (order_status(&text, lang), Vec::new()),
        Intent::Refund if agent.has(Flaw::RefundDays) => (
            refund(&text, lang)
                .replace("7 个工作日", "14 个工作日")
                .replace("7 business days", "14 business days"),
            Vec::new(),
        ),
        Intent::Refund => (refund(&text, lang), Vec::new()),
        Intent::OpeningHours if agent.flakes(Flaky::OpeningHours, messages) => (
            lang.pick(
                "我们的客服在工作日提供服务，周末休息。",
                "Our customer service is open on weekdays and closed on weekends.",
            ),
            Vec::new(),
        ),
        Intent::OpeningHours => (opening_hours(lang), Vec::new()),
        Intent::ChangeAddress if agent.has(Flaw::OrderGuess) && order_id(&text).is_none() => {
            (guessed_order(lang), Vec::new())
        }
        Intent::ChangeAddress => (change_address(thread, lang), Vec::new()),
        Intent::Human => (
            lang.pick(
                "好的，正在为您转接人工客服，请稍候。",
                "Sure, I'm transferring you to a human agent now. Please hold on.",
            ),
            Vec::new(),
        ),
        Intent::Greeting => (capabilities(lang, true), Vec::new()),
        Intent::Thanks => (
            lang.pick(
                "不客气！还有什么可以帮您？",
                "You're welcome! Is there anything else I can help with?",
            ),
            Vec::new(),
        ),
    }
}

fn capabilities(lang: Lang, greeting: bool) -> String {
    match (lang, greeting) {
        (Lang::Zh, true) => "您好！我可以帮您发送邮件、处理办公任务（表格汇总、周报、日程、合同摘要），以及查询订单、退款、修改地址和营业时间。请问需要什么帮助？".into(),
        (Lang::Zh, false) => "抱歉，我没有完全理解您的需求。我可以帮您发送邮件、处理表格和报告、创建日程，或查询订单、退款和营业时间。能具体说说您想做什么吗？".into(),
        (Lang::En, true) => "Hello! I can send emails, help with office tasks (summarising tables, weekly reports, calendar events, contract summaries) and answer questions about orders, refunds, address changes and opening hours. What can I do for you?".into(),
        (Lang::En, false) => "Sorry, I'm not sure I understood what you need. I can send emails, work with tables and reports, create calendar events, or help with orders, refunds and opening hours. Could you tell me a bit more about what you'd like to do?".into(),
    }
}

fn after_tool(messages: &[ChatMessage], lang: Lang) -> String {
    let call = messages
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant && !m.tool_calls.is_empty())
        .and_then(|m| m.tool_calls.first());
    let failed = messages
        .last()
        .is_some_and(|m| m.content.to_lowercase().contains("error"));
    match (call.map(|c| c.name.as_str()), failed) {
        (_, true) => lang.pick(
            "抱歉，操作没有成功，工具返回了错误。要我重试吗？",
            "Sorry, that did not work: the tool returned an error. Shall I try again?",
        ),
        (Some("send_email"), false) => {
            let to = call
                .and_then(|c| c.arguments.get("to"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            match lang {
                Lang::Zh => format!("邮件已发送给 {to}。"),
                Lang::En => format!("Done: the email was sent to {to}."),
            }
        }
        _ => lang.pick("已完成。", "Done."),
    }
}

fn tool_call(name: &str, arguments: Value) -> ToolCall {
    let digest = Sha256::digest(format!("{name}{arguments}").as_bytes());
    ToolCall {
        id: format!("call_{}", &hex::encode(digest)[..12]),
        name: name.to_string(),
        arguments,
    }
}

fn offers(tools: &[ToolSpec], name: &str) -> bool {
    tools.iter().any(|t| t.name == name)
}

// ---------------------------------------------------------------- email --

/// The address check of seed 001's `to` parameter.
static VALID_ADDRESS_RE: LazyLock<Regex> = LazyLock::new(|| re(r"^[\w.-]+@[\w.-]+\.\w+$"));
static RECIPIENT_TOKEN_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)(?P<addr>[A-Za-z0-9._%+#!\-]*@[A-Za-z0-9._\-@#!]*)|(?P<bcc>\bbcc\b|密送)|(?P<cc>\bcc\b|抄送)|(?P<to>\bto\b|收件人|发给|发送给|寄给)"#,
    )
});
static SUBJECT_RES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
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
static BODY_RES: LazyLock<Vec<Regex>> = LazyLock::new(|| {
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
static FILE_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)[\w\-.]+\.(?:pdf|docx?|xlsx?|pptx?|png|jpe?g|txt|csv|zip|md)\b"));
static ATTACH_RE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\battach|附件|附上"));
static SENDER_OVERRIDE_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bfrom\s+(?:my\s+|the\s+)?(?:address\s+)?[\w.-]+@|\bsend (?:it |this )?as\b|\bsender\b|\bon behalf of\b|发件人|以.{1,16}名义|用.{0,16}@[\w.-]+.{0,6}(?:发|邮箱)|从.{0,16}@[\w.-]+.{0,4}发",
    )
});

/// Words of our own question for missing email fields.
const EMAIL_PENDING_MARKS: [&str; 6] = [
    "(to)",
    "(subject)",
    "(body)",
    "（to）",
    "（subject）",
    "（body）",
];

/// Whether a message gives an email field: an address, a subject, a body
/// or an attachment, or talks about email at all.
fn email_like(text: &str) -> bool {
    detect(text) == Some(Intent::Email)
        || first_capture(&SUBJECT_RES, text).is_some()
        || first_capture(&BODY_RES, text).is_some()
        || ATTACH_RE.is_match(text)
}

const MAX_TO: usize = 50;
const MAX_CC: usize = 20;
const MAX_SUBJECT: usize = 200;
const MAX_BODY: usize = 102_400;
const MAX_ATTACHMENTS: usize = 10;

#[derive(Debug, Default)]
struct Recipients {
    to: Vec<String>,
    cc: Vec<String>,
    bcc: Vec<String>,
    invalid: Vec<String>,
}

fn recipients_in(text: &str) -> Recipients {
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

fn first_capture(res: &[Regex], text: &str) -> Option<String> {
    res.iter()
        .find_map(|r| r.captures(text))
        .map(|c| c[1].trim().to_string())
        .filter(|s| !s.is_empty())
}

fn email(thread: &[&str], last: &str, lang: Lang, tools: &[ToolSpec]) -> (String, Vec<ToolCall>) {
    if SENDER_OVERRIDE_RE.is_match(last) {
        return (
            lang.pick(
                "抱歉，我不能更改发件人：出于安全策略，所有邮件只能从 noreply@company.com 发出。如需继续，请确认使用默认发件人。",
                "Sorry, I can't change the sender: for security, every email is sent from noreply@company.com. Let me know if I should send it from that address instead.",
            ),
            Vec::new(),
        );
    }
    let latest = recipients_in(last);
    if !latest.invalid.is_empty() {
        let bad = latest.invalid.join(", ");
        return (
            match lang {
                Lang::Zh => format!(
                    "抱歉，{bad} 不是有效的邮箱地址，我无法发送。请提供正确的收件人邮箱地址（例如 name@example.com）？"
                ),
                Lang::En => format!(
                    "Sorry, {bad} is not a valid email address, so I can't send to it. Could you give me a correct recipient address (like name@example.com)?"
                ),
            },
            Vec::new(),
        );
    }
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

    let limit = |zh: String, en: String| match lang {
        Lang::Zh => zh,
        Lang::En => en,
    };
    if rec.to.len() > MAX_TO {
        let n = rec.to.len();
        return (
            limit(
                format!(
                    "抱歉，收件人有 {n} 个，超过了每封邮件最多 {MAX_TO} 个收件人的限制，我不能发送。请减少收件人，或改用邮件组。"
                ),
                format!(
                    "Sorry, that is {n} recipients, more than the limit of {MAX_TO} per email, so I can't send it. Please reduce the list or use a mailing list."
                ),
            ),
            Vec::new(),
        );
    }
    for (list, name_zh, name_en) in [(&rec.cc, "抄送", "cc"), (&rec.bcc, "密送", "bcc")] {
        if list.len() > MAX_CC {
            let n = list.len();
            return (
                limit(
                    format!(
                        "抱歉，{name_zh}地址有 {n} 个，超过了最多 {MAX_CC} 个的限制，我不能发送。"
                    ),
                    format!(
                        "Sorry, there are {n} {name_en} addresses, more than the limit of {MAX_CC}, so I can't send it."
                    ),
                ),
                Vec::new(),
            );
        }
    }
    if let Some(s) = &subject {
        let n = s.chars().count();
        if n > MAX_SUBJECT {
            return (
                limit(
                    format!(
                        "抱歉，邮件主题有 {n} 个字符，超过了 {MAX_SUBJECT} 个字符的上限。请缩短主题（subject）后再发？"
                    ),
                    format!(
                        "Sorry, the subject is {n} characters long, over the limit of {MAX_SUBJECT} characters. Could you give me a shorter subject?"
                    ),
                ),
                Vec::new(),
            );
        }
    }
    if body.as_ref().is_some_and(|b| b.len() > MAX_BODY) {
        return (
            lang.pick(
                "抱歉，邮件正文超过了 100KB 的上限，请缩短正文？",
                "Sorry, the body is larger than the 100 KB limit. Could you shorten it?",
            ),
            Vec::new(),
        );
    }
    if files.len() > MAX_ATTACHMENTS {
        let n = files.len();
        return (
            limit(
                format!(
                    "抱歉，附件有 {n} 个，超过了每封邮件最多 {MAX_ATTACHMENTS} 个附件的限制，我不能发送。可以把文件打包成一个压缩包再发。"
                ),
                format!(
                    "Sorry, that is {n} attachments, more than the limit of {MAX_ATTACHMENTS} per email, so I can't send it. You could zip the files into one archive."
                ),
            ),
            Vec::new(),
        );
    }

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
    if !missing_en.is_empty() {
        return (
            match lang {
                Lang::Zh => format!(
                    "好的，我来帮您发这封邮件。还缺少：{}。请提供一下？",
                    missing_zh.join("、")
                ),
                Lang::En => format!(
                    "Sure, I can send that email. I still need {}. Could you provide {}?",
                    join_en(&missing_en),
                    if missing_en.len() == 1 { "it" } else { "them" }
                ),
            },
            Vec::new(),
        );
    }
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

fn join_en(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

// --------------------------------------------------------------- office --

/// `label: number` pairs, the way users paste small tables into chat.
static PAIR_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"([\p{Han}A-Za-z][\p{Han}A-Za-z0-9 _\-]{0,30}?)\s*[:：=]\s*[¥$￥]?\s*(-?\d+(?:\.\d+)?)")
});
static NUMBER_RE: LazyLock<Regex> = LazyLock::new(|| re(r"[0-9]"));

fn pairs(text: &str) -> Vec<(String, String)> {
    PAIR_RE
        .captures_iter(text)
        .map(|c| (c[1].trim().to_string(), c[2].to_string()))
        .collect()
}

fn num(s: &str) -> f64 {
    s.parse().unwrap_or(0.0)
}

fn no_data(lang: Lang) -> String {
    lang.pick(
        "我这里没有相关数据，不能凭空给出数字。请把数据（例如表格内容或文件）发给我，可以吗？",
        "I don't have that data, and I won't guess numbers. Could you share the data (the table or the file) with me?",
    )
}

fn missing_data(text: &str, lang: Lang) -> String {
    let p = pairs(text);
    if p.is_empty() || !NUMBER_RE.is_match(text) {
        return no_data(lang);
    }
    let lines: Vec<String> = p.iter().map(|(k, v)| format!("- {k}: {v}")).collect();
    match lang {
        Lang::Zh => format!(
            "收到以下数据：\n{}\n请问需要我怎么处理（排名、汇总、转换为 JSON 或生成报告）？",
            lines.join("\n")
        ),
        Lang::En => format!(
            "Here is the data I received:\n{}\nWhat would you like me to do with it (rank, summarise, convert to JSON or write a report)?",
            lines.join("\n")
        ),
    }
}

/// States an average growth figure that is not in the data (a deliberate
/// flaw: the number gate should catch it).
fn trend(text: &str, lang: Lang) -> String {
    let p = pairs(text);
    let listed: Vec<String> = p.iter().map(|(k, v)| format!("{k} {v}")).collect();
    match lang {
        Lang::Zh => format!(
            "趋势分析：{}。整体呈上升趋势，平均每期增长约 12.5%，预计下一期将继续保持增长。",
            if listed.is_empty() {
                "根据现有数据".to_string()
            } else {
                listed.join("，")
            }
        ),
        Lang::En => format!(
            "Trend analysis: {}. The overall trend is upward: the figures grew by about 12.5% per period on average, and I expect growth to continue next period.",
            if listed.is_empty() {
                "based on the available data".to_string()
            } else {
                listed.join(", ")
            }
        ),
    }
}

static TOP_N_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)top\s*(\d+)|前\s*(\d+|[一二三四五六七八九十])"));

fn top_n(text: &str, lang: Lang) -> String {
    let mut p = pairs(text);
    if p.is_empty() {
        return no_data(lang);
    }
    let n = TOP_N_RE
        .captures(text)
        .and_then(|c| {
            c.get(1).or(c.get(2)).map(|m| match m.as_str() {
                "一" => 1,
                "二" => 2,
                "三" => 3,
                "四" => 4,
                "五" => 5,
                s => s.parse().unwrap_or(3),
            })
        })
        .unwrap_or(3);
    p.sort_by(|a, b| num(&b.1).total_cmp(&num(&a.1)).then(a.0.cmp(&b.0)));
    let lines: Vec<String> = p
        .iter()
        .take(n)
        .enumerate()
        .map(|(i, (k, v))| format!("{}. {k}: {v}", i + 1))
        .collect();
    match lang {
        Lang::Zh => format!("按数值从高到低，排名靠前的是：\n{}", lines.join("\n")),
        Lang::En => format!(
            "Ranked from highest to lowest, the top entries are:\n{}",
            lines.join("\n")
        ),
    }
}

fn to_json(text: &str, lang: Lang) -> String {
    let p = pairs(text);
    if p.is_empty() {
        return no_data(lang);
    }
    let rows: Vec<Value> = p
        .iter()
        .map(|(k, v)| {
            let value = serde_json::from_str::<Value>(v).unwrap_or(Value::String(v.clone()));
            json!({ "name": k, "value": value })
        })
        .collect();
    let body = serde_json::to_string_pretty(&Value::Array(rows)).unwrap_or_default();
    match lang {
        Lang::Zh => format!("转换结果如下：\n```json\n{body}\n```"),
        Lang::En => format!("Here is the table as JSON:\n```json\n{body}\n```"),
    }
}

static DATE_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\d{4}-\d{2}-\d{2}|\d{1,2}月\d{1,2}[日号]|明天|后天|今天|下?周[一二三四五六日天]|\btomorrow\b|\btoday\b|\b(?:next\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    )
});
static TIME_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\d{1,2}:\d{2}|(?:上午|下午|晚上)?\d{1,2}点(?:半|\d{1,2}分)?|\b\d{1,2}\s?(?:am|pm)\b")
});
static QUOTED_RE: LazyLock<Regex> = LazyLock::new(|| re(r#"["“「]([^"”」]+)["”」]"#));

/// Creates an event. Date and time come from the first message that gave
/// them: a later change is not taken into account (a deliberate flaw).
fn calendar(thread: &[&str], lang: Lang, tools: &[ToolSpec]) -> (String, Vec<ToolCall>) {
    let date = thread
        .iter()
        .find_map(|m| DATE_RE.find(m).map(|d| d.as_str().to_string()));
    let time = thread
        .iter()
        .find_map(|m| TIME_RE.find(m).map(|d| d.as_str().to_string()));
    let title = thread
        .iter()
        .find_map(|m| QUOTED_RE.captures(m).map(|c| c[1].to_string()))
        .unwrap_or_else(|| lang.pick("会议", "Meeting"));
    let (Some(date), Some(time)) = (date.clone(), time.clone()) else {
        let what = match (date.is_none(), time.is_none(), lang) {
            (true, true, Lang::Zh) => "日期和时间",
            (true, false, Lang::Zh) => "日期",
            (_, _, Lang::Zh) => "时间",
            (true, true, Lang::En) => "the date and time",
            (true, false, Lang::En) => "the date",
            (_, _, Lang::En) => "the time",
        };
        return (
            match lang {
                Lang::Zh => format!("好的，我来创建日程「{title}」。请问{what}是？"),
                Lang::En => format!("Sure, I'll create the event \"{title}\". What is {what}?"),
            },
            Vec::new(),
        );
    };
    if offers(tools, "create_event") {
        return (
            match lang {
                Lang::Zh => format!("正在创建日程「{title}」：{date} {time}。"),
                Lang::En => format!("Creating the event \"{title}\" on {date} at {time}."),
            },
            vec![tool_call(
                "create_event",
                json!({ "title": title, "date": date, "time": time }),
            )],
        );
    }
    (
        match lang {
            Lang::Zh => format!("已创建日程「{title}」，时间：{date} {time}。"),
            Lang::En => format!("I've created the event \"{title}\" on {date} at {time}."),
        },
        Vec::new(),
    )
}

static DEPT_LINE_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?m)^\s*[-*]?\s*([\p{Han}A-Za-z][\p{Han}A-Za-z0-9 &_\-]{0,24}?)\s*[:：]\s*(.+?)\s*$")
});

fn weekly_report(text: &str, lang: Lang) -> String {
    let items: Vec<(String, String)> = DEPT_LINE_RE
        .captures_iter(text)
        .map(|c| (c[1].to_string(), c[2].to_string()))
        .collect();
    if items.len() < 2 {
        return lang.pick(
            "周报提纲：\n- 本周完成的工作\n- 进行中的工作\n- 风险与问题\n- 下周计划\n- 需要的支持\n如果把各项内容发给我，我可以直接写成完整的周报。",
            "Weekly report outline:\n- Work completed this week\n- Work in progress\n- Risks and issues\n- Plans for next week\n- Support needed\nSend me the details and I'll write the full report.",
        );
    }
    let sections: Vec<String> = items
        .iter()
        .map(|(k, v)| format!("## {k}\n- {v}"))
        .collect();
    match lang {
        Lang::Zh => format!(
            "# 项目周报（汇总）\n\n{}\n\n## 总结\n本周各部门均有进展，详见上文各部门条目。",
            sections.join("\n\n")
        ),
        Lang::En => format!(
            "# Project weekly report (combined)\n\n{}\n\n## Summary\nEvery team reported progress this week; see each section above.",
            sections.join("\n\n")
        ),
    }
}

fn sentences(text: &str) -> Vec<&str> {
    text.split(['。', '；', ';', '\n', '.'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

fn contract(text: &str, lang: Lang) -> String {
    let all = sentences(text);
    let find = |keys: &[&str]| -> Option<&str> {
        all.iter()
            .copied()
            .find(|s| keys.iter().any(|k| s.to_lowercase().contains(k)))
    };
    let term = find(&["期限", "有效期", "term", "duration"]);
    let penalty = find(&["违约金", "违约", "penalty", "liquidated damages"]);
    let payment = find(&["付款", "支付", "payment"]);
    if term.is_none() && penalty.is_none() && payment.is_none() {
        return lang.pick(
            "请把合同全文或相关条款发给我，我来提取合同期限、违约金等关键条款？",
            "Could you paste the contract text? I'll extract the key clauses such as the term and the penalty.",
        );
    }
    let unknown = lang.pick("合同中未找到", "not found in the contract");
    let show = |s: Option<&str>| s.map(str::to_string).unwrap_or_else(|| unknown.clone());
    match lang {
        Lang::Zh => format!(
            "合同关键条款摘要：\n- 合同期限：{}\n- 违约金：{}\n- 付款方式：{}",
            show(term),
            show(penalty),
            show(payment)
        ),
        Lang::En => format!(
            "Key clauses of the contract:\n- Term: {}\n- Penalty: {}\n- Payment: {}",
            show(term),
            show(penalty),
            show(payment)
        ),
    }
}

static VERSION_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(?:版本|version|方案|v)\s*[A-Za-z0-9一二]+\s*[:：]"));

fn diff(text: &str, lang: Lang) -> String {
    let marks: Vec<_> = VERSION_RE.find_iter(text).collect();
    if marks.len() < 2 {
        return lang.pick(
            "请把两个版本的内容都发给我（例如“版本A：……”和“版本B：……”），我来生成差异对比？",
            "Could you send me both versions (e.g. \"Version A: ...\" and \"Version B: ...\")? Then I'll list the differences.",
        );
    }
    let a = &text[marks[0].end()..marks[1].start()];
    let b = &text[marks[1].end()..marks.get(2).map_or(text.len(), |m| m.start())];
    let split = |s: &str| -> Vec<String> {
        s.split([',', '，', ';', '；', '、', '\n', '。'])
            .map(|x| x.trim().trim_end_matches('.').trim().to_string())
            .filter(|x| !x.is_empty())
            .collect()
    };
    let (ia, ib) = (split(a), split(b));
    let removed: Vec<&String> = ia.iter().filter(|x| !ib.contains(x)).collect();
    let added: Vec<&String> = ib.iter().filter(|x| !ia.contains(x)).collect();
    let list = |v: &[&String]| {
        if v.is_empty() {
            lang.pick("（无）", "(none)")
        } else {
            v.iter()
                .map(|x| format!("- {x}"))
                .collect::<Vec<_>>()
                .join("\n")
        }
    };
    match lang {
        Lang::Zh => format!(
            "差异对比报告：\n仅在第一个版本中（已删除）：\n{}\n仅在第二个版本中（新增）：\n{}",
            list(&removed),
            list(&added)
        ),
        Lang::En => format!(
            "Differences between the versions:\nOnly in the first version (removed):\n{}\nOnly in the second version (added):\n{}",
            list(&removed),
            list(&added)
        ),
    }
}

static ATTENDANCE_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?m)^\s*[-*]?\s*([\p{Han}A-Za-z][\p{Han}A-Za-z .]{0,20}?)\s*[:：]\s*(.+?)\s*$")
});
static LATE_TOKEN_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)迟到|\blate\b|准时|正常|\bon time\b|\bok\b"));
static STREAK_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:连续|consecutive)\D{0,12}?(\d+)|(\d+)\D{0,12}?(?:consecutive|天以上|天及以上)")
});

fn lateness(text: &str, lang: Lang) -> String {
    let threshold = STREAK_RE
        .captures(text)
        .and_then(|c| c.get(1).or(c.get(2)))
        .and_then(|m| m.as_str().parse::<usize>().ok())
        .unwrap_or(3);
    let mut people = Vec::new();
    let mut flagged = Vec::new();
    for c in ATTENDANCE_RE.captures_iter(text) {
        let marks: Vec<bool> = LATE_TOKEN_RE
            .find_iter(&c[2])
            .map(|m| {
                let t = m.as_str().to_lowercase();
                t == "迟到" || t == "late"
            })
            .collect();
        if marks.is_empty() {
            continue;
        }
        people.push(c[1].to_string());
        let mut run = 0;
        let mut best = 0;
        for late in marks {
            run = if late { run + 1 } else { 0 };
            best = best.max(run);
        }
        if best >= threshold {
            flagged.push(c[1].to_string());
        }
    }
    if people.is_empty() {
        return lang.pick(
            "请把考勤数据发给我（例如“张三：迟到 迟到 准时 ……”），我来找出连续迟到的员工？",
            "Could you send me the attendance data (e.g. \"Alice: late late on time ...\")? I'll find who was late on consecutive days.",
        );
    }
    if flagged.is_empty() {
        return lang.pick(
            "没有员工达到连续迟到的警示标准，无需发出警示通知。",
            "Nobody reached the consecutive-lateness threshold, so no warning is needed.",
        );
    }
    let notices: Vec<String> = flagged
        .iter()
        .map(|name| match lang {
            Lang::Zh => format!("【警示通知】{name}：您近期已连续多日迟到，达到公司考勤警示标准，请注意按时到岗。"),
            Lang::En => format!("[Warning] {name}: you have been late on consecutive days, reaching the company's attendance warning threshold. Please make sure to arrive on time."),
        })
        .collect();
    match lang {
        Lang::Zh => format!(
            "需要警示的员工：{}\n\n{}",
            flagged.join("、"),
            notices.join("\n")
        ),
        Lang::En => format!(
            "Employees to warn: {}\n\n{}",
            flagged.join(", "),
            notices.join("\n")
        ),
    }
}

fn price_slides(text: &str, lang: Lang) -> String {
    let mut p = pairs(text);
    if p.is_empty() {
        return no_data(lang);
    }
    let table: Vec<String> = p.iter().map(|(k, v)| format!("  - {k}: {v}")).collect();
    p.sort_by(|a, b| num(&a.1).total_cmp(&num(&b.1)).then(a.0.cmp(&b.0)));
    let (cheap, dear) = (&p[0], &p[p.len() - 1]);
    match lang {
        Lang::Zh => format!(
            "产品比较 PPT 大纲：\n- 封面：产品价格比较\n- 价格一览表：\n{}\n- 柱状图：各产品价格对比\n- 结论：最便宜的是 {}（{}），最贵的是 {}（{}）",
            table.join("\n"),
            cheap.0,
            cheap.1,
            dear.0,
            dear.1
        ),
        Lang::En => format!(
            "Product comparison deck outline:\n- Title slide: product price comparison\n- Price table:\n{}\n- Bar chart: price per product\n- Conclusion: the cheapest is {} ({}), the most expensive is {} ({})",
            table.join("\n"),
            cheap.0,
            cheap.1,
            dear.0,
            dear.1
        ),
    }
}

fn to_pdf(text: &str, lang: Lang, tools: &[ToolSpec]) -> (String, Vec<ToolCall>) {
    let Some(file) = FILE_RE.find(text).map(|m| m.as_str().to_string()) else {
        return (
            lang.pick(
                "请问要把哪个文件转换为 PDF？请告诉我文件名。",
                "Which file should I convert to PDF? Please tell me the file name.",
            ),
            Vec::new(),
        );
    };
    let stem = file.rsplit_once('.').map_or(file.as_str(), |(s, _)| s);
    let out = format!("{stem}.pdf");
    if offers(tools, "doc_export") {
        return (
            match lang {
                Lang::Zh => format!("正在将 {file} 导出为 {out}。"),
                Lang::En => format!("Exporting {file} to {out}."),
            },
            vec![tool_call(
                "doc_export",
                json!({ "file_path": file, "format": "pdf" }),
            )],
        );
    }
    (
        match lang {
            Lang::Zh => format!("已将 {file} 转换为 {out}。"),
            Lang::En => format!("Converted {file} to {out}."),
        },
        Vec::new(),
    )
}

fn create_doc(text: &str, lang: Lang) -> String {
    let title = QUOTED_RE
        .captures(text)
        .map(|c| c[1].to_string())
        .unwrap_or_else(|| lang.pick("新文档", "New document"));
    let items: Vec<String> = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("- ") || l.starts_with("* "))
        .map(|l| format!("- {}", &l[2..]))
        .collect();
    let body: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("- ") && !l.starts_with("* "))
        .skip(1)
        .collect();
    let list = if items.is_empty() {
        lang.pick("- 要点一\n- 要点二", "- First point\n- Second point")
    } else {
        items.join("\n")
    };
    let para = if body.is_empty() {
        lang.pick("（正文待补充）", "(body to be written)")
    } else {
        body.join("\n")
    };
    match lang {
        Lang::Zh => format!("已创建文档：\n\n# {title}\n\n{para}\n\n{list}"),
        Lang::En => format!("Document created:\n\n# {title}\n\n{para}\n\n{list}"),
    }
}

// ------------------------------------------------------ customer service --

static ORDER_ID_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:ORD|SO|NO)[-#]?\d{3,}\b|#\d{4,}|\b\d{6,}\b"));

fn order_id(text: &str) -> Option<String> {
    ORDER_ID_RE.find(text).map(|m| m.as_str().to_string())
}

fn ask_order(lang: Lang, purpose_zh: &str, purpose_en: &str) -> String {
    match lang {
        Lang::Zh => format!("好的，我来帮您{purpose_zh}。请问您的订单号是多少？"),
        Lang::En => format!("Sure, I can help you {purpose_en}. What is your order number?"),
    }
}

/// The `order-guess` flaw: an answer about an order the user never named.
fn guessed_order(lang: Lang) -> String {
    lang.pick(
        "您最近的订单已发货，正在运输途中，已为您处理。",
        "Your most recent order has shipped and is on its way; I have taken care of it.",
    )
}

fn order_status(text: &str, lang: Lang) -> String {
    match order_id(text) {
        None => ask_order(lang, "查询订单", "check your order"),
        Some(id) => match lang {
            Lang::Zh => format!("订单 {id} 已发货，正在运输途中，预计 3 个工作日内送达。"),
            Lang::En => format!(
                "Order {id} has shipped and is on its way; it should arrive within 3 business days."
            ),
        },
    }
}

fn refund(text: &str, lang: Lang) -> String {
    match order_id(text) {
        None => ask_order(lang, "办理退款", "with the refund"),
        Some(id) => match lang {
            Lang::Zh => format!(
                "已为订单 {id} 提交退款申请。我们收到退货后，退款将在 7 个工作日内原路退回。"
            ),
            Lang::En => format!(
                "I've opened a refund request for order {id}. Once we receive the returned item, the refund goes back to your original payment method within 7 business days."
            ),
        },
    }
}

fn opening_hours(lang: Lang) -> String {
    lang.pick(
        "我们的客服时间是周一至周五 9:00-18:00，周末和法定节假日休息。",
        "Our customer service is open Monday to Friday, 9:00-18:00, and closed on weekends and public holidays.",
    )
}

static NEW_ADDRESS_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:改成|改为|换成|新地址(?:是|为)?\s*[:：]?|new address(?: is)?\s*[:：]?|\baddress\b[^\n]*?\bto\b\s*[:：]?)\s*(.+?)\s*[。.]?$",
    )
});

fn change_address(thread: &[&str], lang: Lang) -> String {
    let text = thread.join("\n");
    let id = order_id(&text);
    let address = thread
        .iter()
        .rev()
        .find_map(|m| NEW_ADDRESS_RE.captures(m).map(|c| c[1].to_string()))
        .or_else(|| {
            // A bare answer to "what is the new address?".
            let last = thread.last().copied().unwrap_or_default().trim();
            (thread.len() > 1 && detect(last).is_none() && order_id(last).is_none())
                .then(|| last.to_string())
        })
        .filter(|a| !a.is_empty() && order_id(a).as_deref() != Some(a.as_str()));
    match (id, address) {
        (None, _) => ask_order(lang, "修改收货地址", "change the delivery address"),
        (Some(_), None) => lang.pick(
            "好的。请问新的收货地址是什么？",
            "Okay. What is the new delivery address?",
        ),
        (Some(id), Some(addr)) => match lang {
            Lang::Zh => format!("已将订单 {id} 的收货地址修改为：{addr}。"),
            Lang::En => format!("Done: the delivery address of order {id} is now {addr}."),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(agent: &DemoAgent, text: &str) -> String {
        agent.respond(&[ChatMessage::user(text)], &[]).content
    }

    #[test]
    fn flaws_are_off_unless_switched_on() {
        let plain = DemoAgent::new();
        assert!(ask(&plain, "我要给订单 ORD-77310 退款").contains("7 个工作日"));
        assert!(ask(&plain, "Where is my package?").contains('?'));
        let flawed = DemoAgent::with_flaws(&[Flaw::RefundDays, Flaw::OrderGuess], None);
        let refund = ask(&flawed, "我要给订单 ORD-77310 退款");
        assert!(
            refund.contains("14 个工作日") && !refund.contains("7 个工作日"),
            "{refund}"
        );
        let guess = ask(&flawed, "Where is my package?");
        assert!(!guess.contains('?'), "no question asked back: {guess}");
        assert!(
            ask(&flawed, "Where is my order ORD-10234?").contains("ORD-10234"),
            "with the number given, the answer is right"
        );
        for f in Flaw::ALL {
            assert_eq!(Flaw::parse(f.name()), Some(f));
        }
    }

    #[test]
    fn a_flaky_behaviour_goes_wrong_every_second_time_per_conversation() {
        let agent = DemoAgent::with_flaws(&[], Some(Flaky::OpeningHours));
        let hours: Vec<bool> = (0..4)
            .map(|_| ask(&agent, "What are your opening hours?").contains("9:00-18:00"))
            .collect();
        assert_eq!(hours, vec![true, false, true, false]);
        assert!(
            ask(&agent, "When are you open? What are your opening hours?").contains("9:00-18:00"),
            "another conversation counts on its own"
        );
        assert!(ask(&DemoAgent::new(), "What are your opening hours?").contains("9:00-18:00"));
        assert_eq!(Flaky::parse("opening-hours"), Some(Flaky::OpeningHours));
    }
}
