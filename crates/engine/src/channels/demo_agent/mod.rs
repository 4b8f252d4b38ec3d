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
//! - it answers only the first request when one message holds two;
//! - offered seed 002's office tools it acts in steps (`acting`), and
//!   there it repeats a failing call once, adds a growth figure no tool
//!   returned, and calls an email tool it was not offered;
//! - offered the office tools the engine plays over a workspace of real
//!   files it works through the office pack's tasks (`workspace`), and
//!   there it writes an invented growth figure into a report, warns an
//!   employee who was never late two days in a row, and leaves the
//!   penalty out of a contract's summary.
//!
//! Further flaws can be switched on ([`Flaw`]), one behaviour can be made
//! flaky ([`Flaky`]), so that a regression gate has something to catch, and
//! a built-in flaw can be fixed ([`Fix`]), as a team would ship the fix of
//! what exploration found.

use crate::channel::{ChatMessage, Role, ToolCall, ToolSpec, Usage};
use regex::Regex;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

mod acting;
mod email;
mod office;
mod service;
mod workspace;

use email::*;
use office::*;
use service::*;

#[derive(Debug, Default)]
pub struct DemoAgent {
    flaws: Vec<Flaw>,
    fixes: Vec<Fix>,
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

/// A built-in flaw the demo agent can be told to no longer have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fix {
    /// Asked for a trend, it describes the data it was given (first and
    /// last figure, direction) and states no figure that is not in it.
    InventedFigure,
}

impl Fix {
    pub const ALL: [Fix; 1] = [Fix::InventedFigure];

    pub fn name(self) -> &'static str {
        match self {
            Fix::InventedFigure => "invented-figure",
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
            fixes: Vec::new(),
            flaky,
            seen: Mutex::default(),
        }
    }

    /// The same agent with built-in flaws fixed.
    pub fn fixing(mut self, fixes: &[Fix]) -> Self {
        self.fixes = fixes.to_vec();
        self
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
    if workspace::offered(tools) {
        if let Some(acted) = workspace::act(agent, messages, tools, lang) {
            return acted;
        }
    } else if let Some(acted) = acting::act(agent, messages, tools, lang) {
        return acted;
    }
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
        Intent::Trend if agent.fixes.contains(&Fix::InventedFigure) => {
            (trend_from_data(&text, lang), Vec::new())
        }
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
