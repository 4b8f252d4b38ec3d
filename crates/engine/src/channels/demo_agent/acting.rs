//! Seed 002's office agent at work: offered the office tools (`FILE_LIST`,
//! `DATA_QUERY`, `DOC_CREATE`, `CONTROL_WAIT`), the demo agent acts in
//! steps. It lists the files, queries the one the listing returned, and
//! answers in words from the result, reading the `tool` messages of the
//! conversation (JSON text; an error as `{"status": {code, message,
//! suggestion}}`). On `FILE_NOT_FOUND` it follows the suggestion (lists the
//! files, then queries the right one); asked to confirm first, it waits
//! with `CONTROL_WAIT` and creates the document in the next turn.
//!
//! Its deliberate flaws here:
//!
//! - after an error it has no recipe for, it repeats the identical failing
//!   call once before telling the user (`recovers_from_error` catches it);
//! - asked for a trend, it adds a growth figure no tool returned (the
//!   number gate catches it; [`Fix::InventedFigure`] fixes it);
//! - asked to email a result without an email tool, it calls `send_email`
//!   once anyway, then reads the `UNKNOWN_TOOL` answer and says it cannot
//!   (`no_unknown_tools` catches it).

use super::*;

/// What the user wants done with the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Task {
    Query,
    Trend,
    Report,
    Mail,
}

static MAIL_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)e-?mail|邮件|邮箱|[\w.+-]+@[\w-]+\.[\w.-]+"));
static ADDRESS_RE: LazyLock<Regex> = LazyLock::new(|| re(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"));
static REPORT_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\breport\b|\bdocument\b|\bword\b|docx|报告|文档"));
static TREND_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\btrends?\b|\bgrowth\b|趋势|增长|增速|环比|同比"));
/// Words of a task over data: without one (and without a file name), an
/// acting agent still just talks.
static DATA_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bdata\b|\bsales\b|\bfiles?\b|\breport\b|\bquery\b|\bspreadsheet|\bsheet\b|数据|销售|文件|表|报告|汇总|查询|统计|趋势",
    )
});
/// The user wants to see the plan before anything is created.
static CONFIRM_FIRST_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\bconfirm|\bapprove|确认|过目|先.{0,8}(?:看|发给我)"));
/// A reply that confirms what the agent waits for.
static CONFIRMED_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*(?:确认|同意|可以|好的?|没问题|继续|ok\b|okay\b|yes\b|confirm|approved?\b|go ahead)",
    )
});
static RANGE_RE: LazyLock<Regex> = LazyLock::new(|| re(r"[A-Z]{1,3}\d+:[A-Z]{1,3}\d+"));

/// Words of a request, and the words a file about it carries in its name.
const FILE_WORDS: [(&str, &str); 8] = [
    ("销售", "sales"),
    ("季度", "quarter"),
    ("考勤", "attendance"),
    ("价格", "price"),
    ("合同", "contract"),
    ("周报", "weekly"),
    ("客户", "customer"),
    ("预算", "budget"),
];
/// Words that ask for a grouping, and the column grouped by.
const GROUPS: [(&str, &str); 6] = [
    ("区域", "区域"),
    ("季度", "季度"),
    ("部门", "部门"),
    ("by region", "region"),
    ("per quarter", "quarter"),
    ("by department", "department"),
];
const SECTIONS_ZH: [&str; 3] = ["数据概览", "对比分析", "结论"];
const SECTIONS_EN: [&str; 3] = ["Overview", "Comparison", "Conclusion"];

/// One answered call: the call, and its answer read as JSON.
pub(super) struct Done<'a> {
    pub(super) call: &'a ToolCall,
    pub(super) answer: Value,
}

impl Done<'_> {
    /// The error's `{code, message, suggestion}`, when the tool failed.
    pub(super) fn error(&self) -> Option<&Value> {
        self.answer
            .get("status")
            .filter(|s| s.get("code").is_some())
    }
}

pub(super) fn field<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The answered calls of `messages`: each assistant call with the `tool`
/// message that answers it (by id, else by place).
pub(super) fn answered(messages: &[ChatMessage]) -> Vec<Done<'_>> {
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        if m.role != Role::Assistant || m.tool_calls.is_empty() {
            continue;
        }
        let tools: Vec<&ChatMessage> = messages[i + 1..]
            .iter()
            .take_while(|t| t.role == Role::Tool)
            .collect();
        for (k, call) in m.tool_calls.iter().enumerate() {
            let reply = tools
                .iter()
                .find(|t| t.tool_call_id.as_deref() == Some(call.id.as_str()))
                .or_else(|| tools.get(k));
            if let Some(t) = reply {
                let answer = serde_json::from_str(&t.content)
                    .unwrap_or_else(|_| Value::String(t.content.clone()));
                out.push(Done { call, answer });
            }
        }
    }
    out
}

/// The demo agent's move when it is offered seed 002's office tools; `None`
/// when it is not, or when the user asks nothing about data or files.
pub(super) fn act(
    agent: &DemoAgent,
    messages: &[ChatMessage],
    tools: &[ToolSpec],
    lang: Lang,
) -> Option<(String, Vec<ToolCall>)> {
    if !offers(tools, "FILE_LIST") && !offers(tools, "DATA_QUERY") {
        return None;
    }
    let u = messages.iter().rposition(|m| m.role == Role::User)?;
    let ask = messages[u].content.as_str();
    let me = Me {
        agent,
        ask,
        tools,
        lang,
        before: &messages[..u],
        round: messages
            .iter()
            .filter(|m| m.role == Role::Assistant && !m.tool_calls.is_empty())
            .count(),
    };
    let now = answered(&messages[u + 1..]);
    if now.is_empty() {
        me.start()
    } else {
        Some(me.next(&now))
    }
}

/// What the agent knows while it decides.
struct Me<'a> {
    agent: &'a DemoAgent,
    ask: &'a str,
    tools: &'a [ToolSpec],
    lang: Lang,
    /// The conversation before the user's latest message.
    before: &'a [ChatMessage],
    /// Replies with calls so far: keeps the ids of repeated calls apart.
    round: usize,
}

impl Me<'_> {
    fn task(&self) -> Task {
        if MAIL_RE.is_match(self.ask) {
            Task::Mail
        } else if REPORT_RE.is_match(self.ask) {
            Task::Report
        } else if TREND_RE.is_match(self.ask) {
            Task::Trend
        } else {
            Task::Query
        }
    }

    fn call(&self, name: &str, arguments: Value) -> Vec<ToolCall> {
        let digest = Sha256::digest(format!("{name}{arguments}#{}", self.round).as_bytes());
        vec![ToolCall {
            id: format!("call_{}", &hex::encode(digest)[..12]),
            name: name.to_string(),
            arguments,
        }]
    }

    fn say(&self, zh: &str, en: &str) -> (String, Vec<ToolCall>) {
        (self.lang.pick(zh, en), Vec::new())
    }

    /// The first move of a turn.
    fn start(&self) -> Option<(String, Vec<ToolCall>)> {
        let waiting = self
            .before
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .is_some_and(|m| m.tool_calls.iter().any(|c| c.name == "CONTROL_WAIT"));
        if waiting {
            return Some(self.confirmed());
        }
        let file = FILE_RE
            .find_iter(self.ask)
            .map(|m| m.as_str())
            .find(|f| is_data_file(f));
        if let Some(file) = file {
            return Some((String::new(), self.call("DATA_QUERY", self.query(file))));
        }
        if !DATA_RE.is_match(self.ask) {
            return None;
        }
        if offers(self.tools, "FILE_LIST") {
            return Some((
                String::new(),
                self.call("FILE_LIST", json!({ "directory": "." })),
            ));
        }
        Some(self.say(
            "请问要查询哪个文件？请告诉我文件名。",
            "Which file should I query? Please tell me its name.",
        ))
    }

    /// The user answered a `CONTROL_WAIT`: on a confirmation, the document
    /// is created from the data queried before.
    fn confirmed(&self) -> (String, Vec<ToolCall>) {
        if !CONFIRMED_RE.is_match(self.ask) {
            return self.say(
                "好的，请告诉我大纲要怎么调整。",
                "All right: how should I change the outline?",
            );
        }
        let earlier = answered(self.before);
        let data = earlier
            .iter()
            .rev()
            .find(|d| d.call.name == "DATA_QUERY" && d.error().is_none());
        match data {
            Some(d) if offers(self.tools, "DOC_CREATE") => {
                (String::new(), self.call("DOC_CREATE", self.document(d)))
            }
            _ => self.say(
                "抱歉，我手上没有可以写进文档的数据，请先告诉我要用哪个文件。",
                "Sorry, I have no data to put in the document yet: which file should I use?",
            ),
        }
    }

    /// The move after the tools answered.
    fn next(&self, now: &[Done<'_>]) -> (String, Vec<ToolCall>) {
        let last = &now[now.len() - 1];
        if let Some(error) = last.error() {
            return self.recover(now, last, error);
        }
        match last.call.name.as_str() {
            "FILE_LIST" => self.after_listing(now, &last.answer),
            "DATA_QUERY" => self.after_query(last),
            "DOC_CREATE" => {
                let name = [
                    field(&last.answer, "file_path"),
                    field(&last.answer, "doc_id"),
                ]
                .into_iter()
                .find(|s| !s.is_empty())
                .unwrap_or_default()
                .to_string();
                match self.lang {
                    Lang::Zh => (
                        format!("已创建文档 {name}，包含数据概览、对比分析和结论三个部分。"),
                        Vec::new(),
                    ),
                    Lang::En => (
                        format!(
                            "Created the document {name}, with an overview, a comparison and a conclusion."
                        ),
                        Vec::new(),
                    ),
                }
            }
            _ => self.say("已完成。", "Done."),
        }
    }

    /// After a tool error: a known one is handled as its suggestion says;
    /// another is retried once as it was (a deliberate flaw), then told.
    fn recover(&self, now: &[Done<'_>], last: &Done<'_>, error: &Value) -> (String, Vec<ToolCall>) {
        let code = field(error, "code");
        if code == "UNKNOWN_TOOL" {
            return self.cannot(last.call, now);
        }
        let listed = now.iter().any(|d| d.call.name == "FILE_LIST");
        if field(error, "suggestion").contains("FILE_LIST")
            && offers(self.tools, "FILE_LIST")
            && !listed
        {
            return (
                String::new(),
                self.call("FILE_LIST", json!({ "directory": "." })),
            );
        }
        let tries = now
            .iter()
            .filter(|d| d.call.name == last.call.name && d.call.arguments == last.call.arguments)
            .count();
        if tries < 2 {
            return (
                String::new(),
                self.call(&last.call.name, last.call.arguments.clone()),
            );
        }
        let (message, suggestion) = (field(error, "message"), field(error, "suggestion"));
        match self.lang {
            Lang::Zh => (
                format!(
                    "抱歉，{} 调用失败（{code}）：{message}。建议：{suggestion}。需要我按建议重新查询吗？",
                    last.call.name
                ),
                Vec::new(),
            ),
            Lang::En => (
                format!(
                    "Sorry, {} failed ({code}): {message}. Suggestion: {suggestion}. Shall I query again that way?",
                    last.call.name
                ),
                Vec::new(),
            ),
        }
    }

    /// Told that a tool does not exist: says so, with the data it has.
    fn cannot(&self, call: &ToolCall, now: &[Done<'_>]) -> (String, Vec<ToolCall>) {
        let data = now
            .iter()
            .rev()
            .find(|d| d.call.name == "DATA_QUERY" && d.error().is_none())
            .map(|d| summary(d, self.lang))
            .unwrap_or_default();
        let to = ADDRESS_RE.find(self.ask).map_or("", |m| m.as_str());
        let text = match (self.lang, call.name.as_str()) {
            (Lang::Zh, "send_email") => format!(
                "抱歉，这里没有发送邮件的工具，我无法把结果发给 {to}。{data}\n您可以把以上结果转发给对方，或者让我用 DOC_CREATE 生成一份文档。"
            ),
            (Lang::Zh, name) => format!("抱歉，这里没有 {name} 这个工具，我无法完成这一步。{data}"),
            (Lang::En, "send_email") => format!(
                "Sorry, there is no tool to send email here, so I cannot send the result to {to}. {data}\nYou can forward it, or I can create a document with DOC_CREATE."
            ),
            (Lang::En, name) => {
                format!("Sorry, there is no {name} tool here, so I cannot do that step. {data}")
            }
        };
        (text, Vec::new())
    }

    /// After the listing: queries the file it returned for this request
    /// (not one that already failed).
    fn after_listing(&self, now: &[Done<'_>], listing: &Value) -> (String, Vec<ToolCall>) {
        let failed: Vec<&str> = now
            .iter()
            .filter(|d| d.call.name == "DATA_QUERY" && d.error().is_some())
            .map(|d| field(&d.call.arguments, "file_path"))
            .collect();
        let files: Vec<&str> = files_of(listing)
            .into_iter()
            .filter(|f| is_data_file(f) && !failed.contains(f))
            .collect();
        match choose(self.ask, &files) {
            Some(file) if offers(self.tools, "DATA_QUERY") => {
                (String::new(), self.call("DATA_QUERY", self.query(file)))
            }
            _ => {
                let all = files_of(listing).join("、");
                match self.lang {
                    Lang::Zh => (
                        format!("工作目录里有这些文件：{all}。请问要查询哪一个？"),
                        Vec::new(),
                    ),
                    Lang::En => (
                        format!("The folder holds: {all}. Which one should I query?"),
                        Vec::new(),
                    ),
                }
            }
        }
    }

    /// After the query: answers, waits for a confirmation, writes the
    /// document or sends it on, as the request asks.
    fn after_query(&self, done: &Done<'_>) -> (String, Vec<ToolCall>) {
        match self.task() {
            Task::Query => (summary(done, self.lang), Vec::new()),
            Task::Trend => {
                let text = rows(&done.answer)
                    .iter()
                    .filter_map(|row| {
                        let (label, n) = label_and_figure(row)?;
                        Some(format!("{label}: {n}"))
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                if self.agent.fixes.contains(&Fix::InventedFigure) {
                    (trend_from_data(&text, self.lang), Vec::new())
                } else {
                    (trend(&text, self.lang), Vec::new())
                }
            }
            Task::Mail => {
                let to: Vec<&str> = ADDRESS_RE.find_iter(self.ask).map(|m| m.as_str()).collect();
                let subject = self.lang.pick("数据查询结果", "Query result");
                let body = summary(done, self.lang);
                // Offered or not: the flaw is that it does not look.
                (
                    String::new(),
                    self.call(
                        "send_email",
                        json!({ "to": to, "subject": subject, "body": body }),
                    ),
                )
            }
            Task::Report => {
                let wait =
                    offers(self.tools, "CONTROL_WAIT") && CONFIRM_FIRST_RE.is_match(self.ask);
                if wait {
                    let file = field(&done.call.arguments, "file_path");
                    let outline = match self.lang {
                        Lang::Zh => format!(
                            "报告大纲（数据来自 {file}）：\n一、{}\n二、{}\n三、{}\n请确认大纲，确认后我再创建文档。",
                            SECTIONS_ZH[0], SECTIONS_ZH[1], SECTIONS_ZH[2]
                        ),
                        Lang::En => format!(
                            "Report outline (data from {file}):\n- {}\n- {}\n- {}\nPlease confirm the outline; I will create the document once you do.",
                            SECTIONS_EN[0], SECTIONS_EN[1], SECTIONS_EN[2]
                        ),
                    };
                    let condition = self
                        .lang
                        .pick("用户确认报告大纲", "the user confirms the outline");
                    return (
                        outline,
                        self.call(
                            "CONTROL_WAIT",
                            json!({ "condition": condition, "timeout": 600 }),
                        ),
                    );
                }
                if offers(self.tools, "DOC_CREATE") {
                    return (String::new(), self.call("DOC_CREATE", self.document(done)));
                }
                (summary(done, self.lang), Vec::new())
            }
        }
    }

    /// `DATA_QUERY`'s arguments for `file`: the range and the grouping the
    /// user asked for.
    fn query(&self, file: &str) -> Value {
        let mut args = json!({ "file_path": file });
        if let Some(range) = RANGE_RE.find(self.ask) {
            args["query_range"] = json!(range.as_str());
        }
        let lower = self.ask.to_lowercase();
        if let Some((_, column)) = GROUPS.iter().find(|(w, _)| lower.contains(w)) {
            args["group_by"] = json!([column]);
            args["aggregations"] = json!(["sum"]);
        }
        args
    }

    /// `DOC_CREATE`'s arguments: a title and three sections from the query.
    fn document(&self, done: &Done<'_>) -> Value {
        let file = field(&done.call.arguments, "file_path");
        let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
        let lines: Vec<String> = rows(&done.answer)
            .iter()
            .filter_map(|row| label_and_figure(row).map(|(l, n)| format!("{l} {n}")))
            .collect();
        let top = highest(&done.answer);
        let (title, sections, overview, compare, conclusion) = match self.lang {
            Lang::Zh => (
                format!("{stem} 数据报告"),
                SECTIONS_ZH,
                lines.join("；"),
                top.as_ref()
                    .map(|(l, n)| format!("最高的是{l}（{n}）"))
                    .unwrap_or_default(),
                format!("以上数据均来自 {file}。"),
            ),
            Lang::En => (
                format!("{stem} data report"),
                SECTIONS_EN,
                lines.join("; "),
                top.as_ref()
                    .map(|(l, n)| format!("The highest is {l} ({n})"))
                    .unwrap_or_default(),
                format!("Every figure comes from {file}."),
            ),
        };
        json!({
            "title": title,
            "sections": [
                {"heading": sections[0], "content": overview},
                {"heading": sections[1], "content": compare},
                {"heading": sections[2], "content": conclusion},
            ],
        })
    }
}

pub(super) fn is_data_file(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".xlsx") || lower.ends_with(".xls") || lower.ends_with(".csv")
}

/// The file names of a `FILE_LIST` result: `files` (or the result itself)
/// as names, or objects with a `name` / `path` / `file_path`.
pub(super) fn files_of(listing: &Value) -> Vec<&str> {
    let list = listing
        .get("files")
        .and_then(Value::as_array)
        .or_else(|| listing.as_array());
    list.into_iter()
        .flatten()
        .filter_map(|f| {
            f.as_str().or_else(|| {
                ["name", "path", "file_path"]
                    .iter()
                    .find_map(|k| f.get(k).and_then(Value::as_str))
            })
        })
        .collect()
}

/// The listed file the request is about: the one it names (by stem), else
/// the one whose name carries most of the request's words.
pub(super) fn choose<'f>(ask: &str, files: &[&'f str]) -> Option<&'f str> {
    let lower = ask.to_lowercase();
    let named = FILE_RE.find_iter(ask).find_map(|m| {
        let name = m.as_str().to_lowercase();
        let stem = name
            .rsplit_once('.')
            .map_or(name.as_str(), |(s, _)| s)
            .to_string();
        files
            .iter()
            .copied()
            .find(|f| f.to_lowercase().contains(&stem))
    });
    if named.is_some() {
        return named;
    }
    let score = |file: &str| {
        let name = file.to_lowercase();
        FILE_WORDS
            .iter()
            .filter(|(zh, en)| {
                (lower.contains(zh) || lower.contains(en))
                    && (name.contains(zh) || name.contains(en))
            })
            .count()
    };
    let best = files.iter().copied().max_by_key(|f| score(f))?;
    (score(best) > 0 || files.len() == 1).then_some(best)
}

/// The rows of a `DATA_QUERY` result (seed 002 §4.4: `sample_data`).
pub(super) fn rows(result: &Value) -> &[Value] {
    ["sample_data", "rows", "data"]
        .iter()
        .find_map(|k| result.get(k).and_then(Value::as_array))
        .or_else(|| result.as_array())
        .map_or(&[], Vec::as_slice)
}

/// A row's label (its text values) and its first figure, as the tool wrote
/// them.
pub(super) fn label_and_figure(row: &Value) -> Option<(String, String)> {
    let obj = row.as_object()?;
    let label: Vec<&str> = obj.values().filter_map(Value::as_str).collect();
    let figure = obj.values().find_map(|v| v.as_number())?;
    Some((label.join(" "), figure.to_string()))
}

/// The row with the largest first figure.
fn highest(result: &Value) -> Option<(String, String)> {
    rows(result)
        .iter()
        .filter_map(label_and_figure)
        .max_by(|a, b| num(&a.1).total_cmp(&num(&b.1)))
}

/// The query's rows in words: each label with its figures, the total when
/// the tool gave one, and the highest row. Every figure is the tool's.
pub(super) fn summary(done: &Done<'_>, lang: Lang) -> String {
    let file = field(&done.call.arguments, "file_path");
    let mut lines = Vec::new();
    for row in rows(&done.answer) {
        let Some(obj) = row.as_object() else { continue };
        let label: Vec<&str> = obj.values().filter_map(Value::as_str).collect();
        let figures: Vec<String> = obj
            .iter()
            .filter_map(|(k, v)| v.as_number().map(|n| format!("{k} {n}")))
            .collect();
        lines.push(format!("- {}：{}", label.join(" "), figures.join("，")));
    }
    if lines.is_empty() {
        return lang.pick(
            "查询没有返回数据，我不能凭空给出数字。要换个文件或条件再查吗？",
            "The query returned no rows, and I won't guess numbers. Shall I try another file or filter?",
        );
    }
    let total = ["totals", "total"]
        .iter()
        .find_map(|k| done.answer.get(k))
        .map(|t| match t {
            Value::Object(o) => o
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{k} {}",
                        v.as_str().map_or_else(|| v.to_string(), str::to_string)
                    )
                })
                .collect::<Vec<_>>()
                .join("，"),
            other => other.to_string(),
        });
    let top = highest(&done.answer);
    match lang {
        Lang::Zh => {
            let mut out = format!("根据 {file} 的查询结果：\n{}", lines.join("\n"));
            if let Some(t) = total {
                out.push_str(&format!("\n合计：{t}"));
            }
            if let Some((label, n)) = top {
                out.push_str(&format!("\n其中最高的是{label}（{n}）。"));
            }
            out
        }
        Lang::En => {
            let mut out = format!(
                "From {file}:\n{}",
                lines.join("\n").replace('：', ": ").replace('，', ", ")
            );
            if let Some(t) = total {
                out.push_str(&format!("\nTotal: {}", t.replace('，', ", ")));
            }
            if let Some((label, n)) = top {
                out.push_str(&format!("\nThe highest is {label} ({n})."));
            }
            out
        }
    }
}
