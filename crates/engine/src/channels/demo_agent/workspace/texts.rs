//! The workspace tasks over text documents: weekly reports merged, a
//! contract summarised, two versions compared, a document exported, a
//! document composed from the user's text.

use super::*;

/// The anchor `FILE_READ` puts before each paragraph of a .docx (`[P7]`).
static ANCHOR_RE: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*\[P\d+\]\s*"));
/// A list marker: `- `, `* `, `• `, `1. `, `1、`.
static MARKER_RE: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:[-*•]\s+|\d{1,2}[.)、]\s*)"));
/// A contract clause heading: `第六条 违约责任`.
static CLAUSE_RE: LazyLock<Regex> = LazyLock::new(|| re(r"^第[一二三四五六七八九十百\d]+条\s*"));
static VERSION_RE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)v\d|版"));
static FORMAT_RE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(pdf|docx|html|txt|md)\b"));
static TITLE_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:标题(?:为|是)?|titled)\s*["“「]([^"”」]+)["”」]"#));
static BODY_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:正文(?:为|是)?|text)\s*[:：]?\s*["“「]([^"”」]+)["”」]"#));

/// The parts of a weekly report, the words of their headings, and their
/// titles.
const PARTS: [(&[&str], &str, &str); 3] = [
    (
        &["进展", "完成", "本周工作", "progress"],
        "本周进展",
        "Progress",
    ),
    (&["风险", "问题", "risk"], "风险", "Risks"),
    (&["计划", "下周", "plan"], "下周计划", "Next week"),
];
/// Headings known without a mark (a .docx heading read as plain text).
const KNOWN_HEADINGS: [&str; 5] = ["本周进展", "本周工作", "风险", "下周计划", "问题"];
/// The clauses the agent summarises (the penalty clause is not among
/// them: a deliberate flaw), with the words of their headings.
const CLAUSES: [(&str, &[&str]); 6] = [
    ("采购内容", &["采购内容", "标的"]),
    ("合同期限", &["期限"]),
    ("交货", &["交货", "交付"]),
    ("付款方式", &["付款", "支付"]),
    ("质量保证", &["质量", "质保"]),
    ("争议解决", &["争议"]),
];

/// A heading of a text as `FILE_READ` shows it: `#` lines, a contract's
/// `第六条 ...`, or a short line ending in a colon (`风险：`).
fn heading(line: &str) -> Option<String> {
    if KNOWN_HEADINGS.contains(&line) {
        return Some(line.to_string());
    }
    if line.starts_with('#') {
        return Some(line.trim_start_matches('#').trim().to_string());
    }
    if CLAUSE_RE.is_match(line) {
        return Some(line.to_string());
    }
    let short = line.chars().count() <= 12;
    [':', '：']
        .iter()
        .find_map(|c| line.strip_suffix(*c))
        .filter(|_| short)
        .map(|t| t.trim().to_string())
}

/// A text's sections in order: (heading, its lines), the paragraph
/// anchors, list markers and table markers gone; the lines before the
/// first heading under "".
fn sections(content: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = vec![(String::new(), Vec::new())];
    for raw in content.lines() {
        let line = ANCHOR_RE.replace(raw, "");
        let line = line.trim();
        if line.is_empty() || line.starts_with("[表格") || line.starts_with("[Table") {
            continue;
        }
        if let Some(h) = heading(line) {
            out.push((h, Vec::new()));
        } else if let Some(last) = out.last_mut() {
            last.1.push(MARKER_RE.replace(line, "").trim().to_string());
        }
    }
    out
}

fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map_or(name, |(s, _)| s)
}

impl Ws<'_> {
    /// The text a `FILE_READ` of `file` returned this turn.
    fn read(&self, file: &str) -> Option<&str> {
        self.ok("FILE_READ")
            .find(|d| field(&d.call.arguments, "file_path") == file)
            .map(|d| field(&d.answer, "content"))
    }

    /// Reads each of `files` not read yet; `None` once all are.
    fn read_next(&self, files: &[String]) -> Option<Move> {
        files
            .iter()
            .find(|f| self.read(f).is_none())
            .map(|f| self.call("FILE_READ", json!({ "file_path": f })))
    }

    /// Every department's weekly report read and merged into one report
    /// with progress, risks and plans, each line naming its department.
    pub(super) fn weekly(&self) -> Move {
        let Some(listed) = self.listing() else {
            return self.list();
        };
        let texts: Vec<&str> = listed.into_iter().filter(|f| is_text_file(f)).collect();
        let weekly: Vec<String> = texts
            .iter()
            .filter(|f| f.contains("周报") || f.to_lowercase().contains("weekly"))
            .map(|f| f.to_string())
            .collect();
        let files = if weekly.is_empty() {
            texts.iter().map(|f| f.to_string()).collect()
        } else {
            weekly
        };
        if let Some(m) = self.read_next(&files) {
            return m;
        }
        let mut parts: [Vec<String>; 3] = Default::default();
        let mut depts = Vec::new();
        for file in &files {
            let dept = stem(file).replace("周报", "");
            for (head, lines) in sections(self.read(file).unwrap_or_default()) {
                let lower = head.to_lowercase();
                let Some(i) = PARTS
                    .iter()
                    .position(|(words, _, _)| words.iter().any(|w| lower.contains(w)))
                else {
                    continue;
                };
                parts[i].extend(lines.iter().map(|l| format!("- 【{dept}】{l}")));
            }
            depts.push(dept);
        }
        let asked = self.asked_sections();
        let sections: Vec<(String, String)> = PARTS
            .iter()
            .zip(&parts)
            .enumerate()
            .map(|(i, ((_, zh, en), lines))| {
                let title = asked
                    .get(i)
                    .filter(|_| asked.len() == 3)
                    .cloned()
                    .unwrap_or_else(|| self.lang.pick(zh, en));
                (title, lines.join("\n"))
            })
            .collect();
        if let Some(m) = self.create("output/weekly-report.md", sections) {
            return m;
        }
        self.words(match self.lang {
            Lang::Zh => format!(
                "已汇总{}的周报，生成项目周报 {}，分本周进展、风险和下周计划三部分，每条注明了部门。",
                depts.join("、"),
                self.created()
            ),
            Lang::En => format!(
                "Merged the weekly reports of {} into {}, with progress, risks and next week's plan, each line naming its department.",
                depts.join(", "),
                self.created()
            ),
        })
    }

    /// A contract read and its key clauses summarised: the parties, and the
    /// clauses it has a recipe for.
    pub(super) fn contract(&self) -> Move {
        let file = match self.find(Kind::Text) {
            Ok(f) => f,
            Err(m) => return m,
        };
        let Some(text) = self.read(&file) else {
            return self.call("FILE_READ", json!({ "file_path": file }));
        };
        let parts = sections(text);
        let parties: Vec<&str> = parts
            .iter()
            .filter(|(h, _)| !CLAUSE_RE.is_match(h))
            .flat_map(|(_, lines)| lines.iter().map(String::as_str))
            .filter(|l| l.starts_with("甲方") || l.starts_with("乙方"))
            .collect();
        let mut summary: Vec<(String, String)> = Vec::new();
        if !parties.is_empty() {
            summary.push(("合同双方".to_string(), parties.join("\n")));
        }
        for (title, words) in CLAUSES {
            let clause = parts
                .iter()
                .find(|(h, _)| words.iter().any(|w| h.contains(w)));
            if let Some((_, lines)) = clause {
                summary.push((title.to_string(), lines.join("\n")));
            }
        }
        let titles: Vec<String> = summary.iter().map(|(t, _)| t.clone()).collect();
        let term = summary
            .iter()
            .find(|(t, _)| t == "合同期限")
            .map(|(_, c)| c.clone());
        if let Some(m) = self.create("output/contract-summary.md", summary) {
            return m;
        }
        let mut out = match self.lang {
            Lang::Zh => format!(
                "已阅读 {file}，生成合同摘要 {}，包含：{}。",
                self.created(),
                titles.join("、")
            ),
            Lang::En => format!(
                "Read {file} and wrote the summary {}, with: {}.",
                self.created(),
                titles.join(", ")
            ),
        };
        if let Some(term) = term {
            out.push_str(&self.lang.pick("\n合同期限：", "\nTerm: "));
            out.push_str(&term);
        }
        self.words(out)
    }

    /// The two versions the user names (else the listing's versioned
    /// texts), in that order.
    fn versions(&self) -> Result<Vec<String>, Move> {
        let named = self.inputs(Kind::Text);
        if named.len() >= 2 {
            return Ok(named.into_iter().take(2).collect());
        }
        let Some(listed) = self.listing() else {
            return Err(self.list());
        };
        let mut found: Vec<String> = listed
            .into_iter()
            .filter(|f| is_text_file(f) && VERSION_RE.is_match(stem(f)))
            .map(str::to_string)
            .collect();
        found.sort();
        if found.len() < 2 {
            return Err(self.say(
                "工作目录里没有找到两个版本的文档，请告诉我要对比哪两个文件。",
                "I found no two versions in the folder: which two files should I compare?",
            ));
        }
        Ok(found.into_iter().take(2).collect())
    }

    /// Two versions read and compared section by section: what changed,
    /// what was added, what was removed.
    pub(super) fn diff(&self) -> Move {
        let files = match self.versions() {
            Ok(f) => f,
            Err(m) => return m,
        };
        if let Some(m) = self.read_next(&files) {
            return m;
        }
        // The title and the text before the first heading are not compared.
        let body = |file: &String| {
            let mut parts = sections(self.read(file).unwrap_or_default());
            parts.retain(|(h, lines)| !h.is_empty() && !lines.is_empty());
            parts
        };
        let (changed, added, removed) = compare(&body(&files[0]), &body(&files[1]), self.lang);
        let none = self.lang.pick("无", "None");
        let text = |v: &[String]| {
            if v.is_empty() {
                none.clone()
            } else {
                v.join("\n")
            }
        };
        let sections = vec![
            (
                self.section("修改", ("修改的内容", "Changed")),
                text(&changed),
            ),
            (self.section("新增", ("新增的内容", "Added")), text(&added)),
            (
                self.section("删除", ("删除的内容", "Removed")),
                text(&removed),
            ),
        ];
        if let Some(m) = self.create("output/diff.md", sections) {
            return m;
        }
        let (a, b) = (&files[0], &files[1]);
        self.words(match self.lang {
            Lang::Zh => format!(
                "已对比 {a} 和 {b}，差异报告写入 {}。\n修改：\n{}\n新增：\n{}\n删除：\n{}",
                self.created(),
                text(&changed),
                text(&added),
                text(&removed)
            ),
            Lang::En => format!(
                "Compared {a} with {b}; the report is in {}.\nChanged:\n{}\nAdded:\n{}\nRemoved:\n{}",
                self.created(),
                text(&changed),
                text(&added),
                text(&removed)
            ),
        })
    }

    /// A document read, then exported to the format the user asks for.
    pub(super) fn export(&self) -> Move {
        let format = FORMAT_RE
            .captures_iter(self.ask)
            .map(|c| c[1].to_lowercase())
            .find(|f| {
                self.inputs(Kind::Text)
                    .iter()
                    .all(|i| !i.ends_with(f.as_str()))
            })
            .unwrap_or_else(|| "pdf".to_string());
        let file = match self.find(Kind::Text) {
            Ok(f) => f,
            Err(m) => return m,
        };
        // It reads what it exports first: the export's text is a document
        // of the run, and its figures are then ones a tool returned.
        if self.offers("FILE_READ") && self.read(&file).is_none() {
            return self.call("FILE_READ", json!({ "file_path": file }));
        }
        let Some(done) = self.last_ok("DOC_EXPORT") else {
            return self.call("DOC_EXPORT", json!({ "file_path": file, "format": format }));
        };
        let path = field(&done.answer, "file_path");
        let bytes = done.answer.get("bytes").and_then(shown);
        self.words(match (self.lang, bytes) {
            (Lang::Zh, Some(b)) => format!(
                "已将 {file} 导出为 {}：{path}（{b} 字节）。",
                format.to_uppercase()
            ),
            (Lang::Zh, None) => format!("已将 {file} 导出为 {}：{path}。", format.to_uppercase()),
            (Lang::En, Some(b)) => format!(
                "Exported {file} as {}: {path} ({b} bytes).",
                format.to_uppercase()
            ),
            (Lang::En, None) => format!("Exported {file} as {}: {path}.", format.to_uppercase()),
        })
    }

    /// A document written from the user's own text: a title with its body,
    /// and a list under the section the user names.
    pub(super) fn compose(&self) -> Move {
        let title = TITLE_RE
            .captures(self.ask)
            .map(|c| c[1].trim().to_string())
            .or_else(|| self.asked_sections().first().cloned())
            .unwrap_or_else(|| self.lang.pick("文档", "Document"));
        let body = BODY_RE
            .captures(self.ask)
            .map(|c| c[1].trim().to_string())
            .unwrap_or_default();
        let items: Vec<String> = self
            .ask
            .lines()
            .map(str::trim)
            .filter(|l| MARKER_RE.is_match(l))
            .map(|l| format!("- {}", MARKER_RE.replace(l, "").trim()))
            .collect();
        let list_title = self
            .asked_sections()
            .into_iter()
            .find(|s| *s != title)
            .unwrap_or_else(|| self.lang.pick("列表", "List"));
        let mut sections = vec![(title.clone(), body)];
        if !items.is_empty() {
            sections.push((list_title.clone(), items.join("\n")));
        }
        if let Some(m) = self.create("output/document.docx", sections) {
            return m;
        }
        self.words(match self.lang {
            Lang::Zh => format!(
                "已创建文档 {}：标题“{title}”、正文和“{list_title}”列表。",
                self.created()
            ),
            Lang::En => format!(
                "Created {}: the title \"{title}\", its text and the list \"{list_title}\".",
                self.created()
            ),
        })
    }
}

/// Two versions' sections compared: lines changed (one removed where one
/// was added, in the same section), lines or sections added, and removed.
fn compare(
    old: &[(String, Vec<String>)],
    new: &[(String, Vec<String>)],
    lang: Lang,
) -> (Vec<String>, Vec<String>, Vec<String>) {
    let (mut changed, mut added, mut removed) = (Vec::new(), Vec::new(), Vec::new());
    for (head, lines) in old {
        let Some((_, now)) = new.iter().find(|(h, _)| h == head) else {
            removed.push(match lang {
                Lang::Zh => format!("- 删除了“{head}”一节：{}", lines.join("；")),
                Lang::En => format!("- The section \"{head}\" was removed: {}", lines.join("; ")),
            });
            continue;
        };
        let gone: Vec<&String> = lines.iter().filter(|l| !now.contains(l)).collect();
        let came: Vec<&String> = now.iter().filter(|l| !lines.contains(l)).collect();
        for (i, line) in came.iter().enumerate() {
            match (gone.get(i), lang) {
                (Some(was), Lang::Zh) => changed.push(format!("- {head}：由“{was}”改为“{line}”")),
                (Some(was), Lang::En) => {
                    changed.push(format!("- {head}: \"{was}\" became \"{line}\""))
                }
                (None, Lang::Zh) => added.push(format!("- {head}：新增“{line}”")),
                (None, Lang::En) => added.push(format!("- {head}: added \"{line}\"")),
            }
        }
        for was in gone.iter().skip(came.len()) {
            removed.push(match lang {
                Lang::Zh => format!("- {head}：删除了“{was}”"),
                Lang::En => format!("- {head}: removed \"{was}\""),
            });
        }
    }
    for (head, lines) in new {
        if !old.iter().any(|(h, _)| h == head) {
            added.push(match lang {
                Lang::Zh => format!("- 新增“{head}”一节：{}", lines.join("；")),
                Lang::En => format!("- The section \"{head}\" was added: {}", lines.join("; ")),
            });
        }
    }
    (changed, added, removed)
}
