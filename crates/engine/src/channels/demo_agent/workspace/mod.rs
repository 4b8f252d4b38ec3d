//! Seed 002's office agent in a workspace of real files. Offered the office
//! tools the engine plays over a folder (docs/OFFICE_TOOLS.md), recognised
//! by a tool only a workspace offers (`FILE_READ`, `DATA_VISUALIZE`,
//! `DOC_APPEND`, `DOC_EXPORT`, `SLIDE_BUILD`) or by `DATA_QUERY`'s
//! `aggregations` given as an object, the demo agent works through the
//! office pack's tasks in steps, one call a reply: it lists the files,
//! looks at a sheet before it aggregates (and leaves its `合计` row out with
//! a `!=` filter), groups and sums with `DATA_QUERY`, reads text documents
//! with `FILE_READ`, writes what it found with `DOC_CREATE` (appends a
//! chart with `DOC_APPEND`), exports with `DOC_EXPORT` (what it read
//! first), builds a deck with `SLIDE_BUILD`, and answers in words. Every
//! figure it writes comes from a tool result. It reads the `tool` messages
//! of the conversation (JSON text; an error as `{"status": {code, message,
//! suggestion}}`): on `FILE_NOT_FOUND` it lists the files and takes the
//! right one; another error it tells the user.
//!
//! Its deliberate flaws here, each failing one check of its scenario:
//!
//! - asked for a trend, it writes an average growth figure no tool
//!   returned into the report (`office.sales_trend`: the number gate,
//!   which reads the documents; [`Fix::InventedFigure`] fixes it);
//! - asked for employees late several days in a row, it looks for runs in
//!   the rows its filter returned, where late days with on-time days
//!   between them sit side by side: an employee late three times, never
//!   twice in a row, is warned too (`office.late_employees`:
//!   `not_contains`);
//! - asked for a contract's key clauses, it summarises the clauses it has a
//!   recipe for, and the penalty clause (违约责任) is not among them: the
//!   summary has no 违约金 (`office.contract_clauses`: `document`).

use super::acting::{Done, answered, choose, field, files_of, is_data_file};
use super::*;

mod data;
mod sheets;
mod texts;

#[cfg(test)]
mod tests;

/// The office tools only a workspace offers.
const WORKSPACE_ONLY: [&str; 5] = [
    "FILE_READ",
    "DATA_VISUALIZE",
    "DOC_APPEND",
    "DOC_EXPORT",
    "SLIDE_BUILD",
];

/// Whether `tools` are the office tools the engine plays over a workspace
/// (not seed 002's tools with declared responses, which `acting` serves).
pub(super) fn offered(tools: &[ToolSpec]) -> bool {
    if tools.iter().any(|t| !t.responses.is_empty()) {
        return false;
    }
    let aggregations_object = tools.iter().any(|t| {
        t.name == "DATA_QUERY"
            && t.parameters
                .pointer("/properties/aggregations/type")
                .and_then(Value::as_str)
                == Some("object")
    });
    aggregations_object || WORKSPACE_ONLY.iter().any(|n| offers(tools, n))
}

/// What the user asks done in the workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Job {
    Export,
    Slides,
    Diff,
    Contract,
    Weekly,
    LateRuns,
    LateCount,
    Chart,
    Trend,
    Top,
    Compose,
    Ask,
}

/// The jobs in routing order: the first that matches is done.
static JOBS: LazyLock<Vec<(Job, Regex)>> = LazyLock::new(|| {
    vec![
        (
            Job::Export,
            re(r"(?i)\bpdf\b|\bexport|导出|转换为|转为|转成"),
        ),
        (
            Job::Slides,
            re(r"(?i)\bppt\b|\bslides?\b|\bdeck\b|\bpresentation\b|幻灯片|演示文稿"),
        ),
        (
            Job::Diff,
            re(r"(?i)\bcompare\b|\bdiff|\bversions?\b|对比|差异|版本"),
        ),
        (Job::Contract, re(r"(?i)\bcontract\b|合同")),
        (Job::Weekly, re(r"(?i)weekly report|周报")),
        (
            Job::LateRuns,
            re(r"(?i)\bconsecutive|\bin a row\b|连续迟到"),
        ),
        (Job::LateCount, re(r"(?i)\blate\b|迟到")),
        (
            Job::Chart,
            re(r"(?i)\bcharts?\b|\bplot\b|图表|柱状图|折线图|饼图"),
        ),
        (Job::Trend, re(r"(?i)\btrends?\b|\bgrowth\b|趋势|增长|增速")),
        (
            Job::Top,
            re(r"(?i)\btop\s*\d+|\brank|前\s*[0-9一二三四五六七八九十]+\s*(?:名|的|个|位)|排名"),
        ),
        (Job::Compose, re(r"(?i)\bcreate\b|\bwrite\b|创建|新建|撰写")),
    ]
});

/// Words of a question about the workspace's data: without one (and
/// without a file named), the agent just talks.
static DATA_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bdata\b|\bsales\b|\bfiles?\b|\bsheet|\bspreadsheet|数据|销售|文件|表|报告|统计|多少|利润|成本",
    )
});
/// A file path the user gives: its extension decides what it is.
static PATH_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)[\w\-./]+\.(?:md|txt|docx?|xlsx?|csv|pdf|html)\b"));
/// Words before a path that make it where the result goes.
static OUTPUT_BEFORE_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:写入|写到|保存为|保存到|另存为|输出为|输出到|\binto|\bas|\bto)\s*$"));
/// Words glued before a file name in Chinese ("把会议纪要.md").
const LEADING_WORDS: [&str; 8] = ["把", "从", "将", "读取", "阅读", "打开", "对比", "用"];

pub(super) type Move = (String, Vec<ToolCall>);

/// The demo agent's move in a workspace; `None` when the user asks nothing
/// about its files.
pub(super) fn act(
    agent: &DemoAgent,
    messages: &[ChatMessage],
    tools: &[ToolSpec],
    lang: Lang,
) -> Option<Move> {
    let u = messages.iter().rposition(|m| m.role == Role::User)?;
    let ask = messages[u].content.as_str();
    let job = JOBS
        .iter()
        .find(|(_, r)| r.is_match(ask))
        .map_or(Job::Ask, |(j, _)| *j);
    if job == Job::Ask && !DATA_RE.is_match(ask) && !PATH_RE.is_match(ask) {
        return None;
    }
    let ws = Ws {
        agent,
        ask,
        tools,
        lang,
        round: messages
            .iter()
            .filter(|m| m.role == Role::Assistant && !m.tool_calls.is_empty())
            .count(),
        now: answered(&messages[u + 1..]),
    };
    Some(ws.play(job))
}

/// What the agent knows while it decides: the request, the tools, and the
/// calls of this turn with their answers.
pub(super) struct Ws<'a> {
    agent: &'a DemoAgent,
    ask: &'a str,
    tools: &'a [ToolSpec],
    lang: Lang,
    /// Replies with calls so far: keeps the ids of repeated calls apart.
    round: usize,
    now: Vec<Done<'a>>,
}

/// What kind of file a task needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Data,
    Text,
}

impl Kind {
    fn holds(self, name: &str) -> bool {
        match self {
            Kind::Data => is_data_file(name),
            Kind::Text => is_text_file(name),
        }
    }
}

fn is_text_file(name: &str) -> bool {
    let lower = name.to_lowercase();
    [".md", ".txt", ".docx", ".doc", ".html"]
        .iter()
        .any(|e| lower.ends_with(e))
}

impl<'a> Ws<'a> {
    fn play(&self, job: Job) -> Move {
        if let Some(last) = self.now.last()
            && let Some(error) = last.error()
        {
            return self.recover(last, error);
        }
        match job {
            Job::Export => self.export(),
            Job::Slides => self.slides(),
            Job::Diff => self.diff(),
            Job::Contract => self.contract(),
            Job::Weekly => self.weekly(),
            Job::LateRuns => self.late_runs(),
            Job::LateCount => self.late_count(),
            Job::Chart => self.chart(),
            Job::Trend => self.trend(),
            Job::Top => self.top(),
            Job::Compose => self.compose(),
            Job::Ask => self.ask_data(),
        }
    }

    fn offers(&self, name: &str) -> bool {
        offers(self.tools, name)
    }

    fn call(&self, name: &str, arguments: Value) -> Move {
        let digest = Sha256::digest(format!("{name}{arguments}#{}", self.round).as_bytes());
        let call = ToolCall {
            id: format!("call_{}", &hex::encode(digest)[..12]),
            name: name.to_string(),
            arguments,
        };
        (String::new(), vec![call])
    }

    fn say(&self, zh: &str, en: &str) -> Move {
        (self.lang.pick(zh, en), Vec::new())
    }

    fn words(&self, text: String) -> Move {
        (text, Vec::new())
    }

    /// The successful calls of `name` this turn.
    fn ok(&self, name: &'a str) -> impl Iterator<Item = &Done<'a>> + '_ {
        self.now
            .iter()
            .filter(move |d| d.call.name == name && d.error().is_none())
    }

    fn last_ok(&self, name: &'a str) -> Option<&Done<'a>> {
        self.ok(name).last()
    }

    /// The paths of this turn's calls that failed.
    fn failed(&self) -> Vec<&str> {
        self.now
            .iter()
            .filter(|d| d.error().is_some())
            .map(|d| field(&d.call.arguments, "file_path"))
            .collect()
    }

    /// The files of this turn's last listing.
    fn listing(&self) -> Option<Vec<&str>> {
        self.last_ok("FILE_LIST").map(|d| files_of(&d.answer))
    }

    fn list(&self) -> Move {
        self.call("FILE_LIST", json!({ "directory": "." }))
    }

    /// The paths the user names, as (path, is it where the result goes).
    fn paths(&self) -> Vec<(String, bool)> {
        PATH_RE
            .find_iter(self.ask)
            .map(|m| {
                let mut path = m.as_str();
                for w in LEADING_WORDS {
                    path = path.strip_prefix(w).unwrap_or(path);
                }
                let before = &self.ask[..m.start()];
                let output =
                    path.starts_with("output/") || OUTPUT_BEFORE_RE.is_match(before.trim_end());
                (path.to_string(), output)
            })
            .collect()
    }

    /// The files the user names to work on, of `kind`.
    fn inputs(&self, kind: Kind) -> Vec<String> {
        self.paths()
            .into_iter()
            .filter(|(p, out)| !out && kind.holds(p))
            .map(|(p, _)| p)
            .collect()
    }

    /// Where the user wants the result written, when they say.
    fn output(&self) -> Option<String> {
        self.paths()
            .into_iter()
            .find(|(p, out)| *out && !p.ends_with(".pdf"))
            .map(|(p, _)| p)
    }

    /// The file of `kind` to work on: from this turn's listing (not one that
    /// failed), else the one the user names.
    fn pick(&self, kind: Kind) -> Option<String> {
        let failed = self.failed();
        if let Some(listed) = self.listing() {
            let files: Vec<&str> = listed
                .into_iter()
                .filter(|f| kind.holds(f) && !failed.contains(f))
                .collect();
            return choose(self.ask, &files).map(str::to_string);
        }
        self.inputs(kind)
            .into_iter()
            .find(|f| !failed.contains(&f.as_str()))
    }

    /// The file of `kind` to work on, or the move that finds it: the
    /// listing, or a question to the user.
    fn find(&self, kind: Kind) -> Result<String, Move> {
        if let Some(file) = self.pick(kind) {
            return Ok(file);
        }
        if self.offers("FILE_LIST") && self.listing().is_none() {
            return Err(self.list());
        }
        let all = self.listing().unwrap_or_default().join("、");
        Err(self.words(match self.lang {
            Lang::Zh => format!("工作目录里没有找到合适的文件（现有：{all}）。请问要用哪个文件？"),
            Lang::En => format!(
                "I found no suitable file in the folder (it holds: {all}). Which file should I use?"
            ),
        }))
    }

    /// `DOC_CREATE` of `sections` at the path the user gave (else
    /// `default`), or `None` once done (or when no document is asked for).
    fn create(&self, default: &str, sections: Vec<(String, String)>) -> Option<Move> {
        if !self.offers("DOC_CREATE") || self.last_ok("DOC_CREATE").is_some() {
            return None;
        }
        let path = self.output().unwrap_or_else(|| default.to_string());
        let sections: Vec<Value> = sections
            .into_iter()
            .map(|(title, content)| json!({ "title": title, "content": content }))
            .collect();
        Some(self.call(
            "DOC_CREATE",
            json!({ "file_path": path, "sections": sections }),
        ))
    }

    /// Where the document this turn created is, as the tool said.
    fn created(&self) -> String {
        self.last_ok("DOC_CREATE")
            .map(|d| field(&d.answer, "file_path").to_string())
            .or_else(|| self.output())
            .unwrap_or_default()
    }

    /// The name the user gives in quotes (`命名为“产品价格对比”`).
    fn named(&self) -> Option<String> {
        QUOTED_RE.captures_iter(self.ask).find_map(|c| {
            let all = c.get(0)?;
            let before = self.ask[..all.start()].trim_end();
            ["命名为", "名为", "名称为", "called", "named"]
                .iter()
                .any(|w| before.ends_with(w))
                .then(|| c[1].trim().to_string())
        })
    }

    /// Whether the user asked for a document.
    fn wants_doc(&self) -> bool {
        self.output().is_some()
    }

    /// The section titles the user gives in quotes (not a sheet's or a
    /// deck's name, nor a text to write).
    fn asked_sections(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in QUOTED_RE.captures_iter(self.ask) {
            let (Some(all), Some(title)) = (c.get(0), c.get(1)) else {
                continue;
            };
            let after = &self.ask[all.end()..];
            let before = self.ask[..all.start()].trim_end();
            let named = [
                "命名为",
                "名为",
                "标题为",
                "标题是",
                "正文为",
                "正文是",
                "titled",
            ]
            .iter()
            .any(|w| before.ends_with(w));
            let sheet = after.trim_start().starts_with("工作表")
                || after.trim_start().to_lowercase().starts_with("sheet");
            let title = title.as_str().trim().to_string();
            if !named && !sheet && !out.contains(&title) {
                out.push(title);
            }
        }
        out
    }

    /// The asked section title that carries `word`, else `default`.
    fn section(&self, word: &str, default: (&str, &str)) -> String {
        self.asked_sections()
            .into_iter()
            .find(|s| s.contains(word))
            .unwrap_or_else(|| self.lang.pick(default.0, default.1))
    }

    /// After a tool error: a missing file is looked for in the listing (the
    /// suggestion says so); any other error is told to the user.
    fn recover(&self, last: &Done<'_>, error: &Value) -> Move {
        let code = field(error, "code");
        let suggestion = field(error, "suggestion");
        let listed = self.listing().is_some();
        if (code == "FILE_NOT_FOUND" || suggestion.contains("FILE_LIST"))
            && self.offers("FILE_LIST")
            && !listed
        {
            return self.list();
        }
        let message = field(error, "message");
        self.words(match self.lang {
            Lang::Zh => format!(
                "抱歉，{} 调用失败（{code}）：{message}。建议：{suggestion}。请告诉我要怎么调整。",
                last.call.name
            ),
            Lang::En => format!(
                "Sorry, {} failed ({code}): {message}. Suggestion: {suggestion}. How should I proceed?",
                last.call.name
            ),
        })
    }
}

/// A number as the tool wrote it, without a needless `.0`.
pub(super) fn shown(v: &Value) -> Option<String> {
    let n = v.as_number()?;
    if let Some(f) = n.as_f64()
        && f.fract() == 0.0
        && f.abs() < 1e15
        && !n.is_i64()
        && !n.is_u64()
    {
        return Some(format!("{}", f as i64));
    }
    Some(n.to_string())
}
