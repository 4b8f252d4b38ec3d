//! The workspace tasks that read a sheet's rows as they are: late runs in
//! an attendance sheet, a price deck, and a question the data may not
//! answer.

use super::data::{METRICS, Peek, labelled};
use super::*;

static DAYS_RE: LazyLock<Regex> = LazyLock::new(|| re(r"(\d+)\s*(?:天|days?)"));
/// A sheet's heading in `FILE_READ`'s text: `## Sheet: 明细 (41 行 × 4 列)`.
static SHEET_HEADING_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^#+\s*(?:sheet|工作表)\s*[:：]\s*([^(（]+)"));

/// A row's text cells, in order.
fn texts(row: &Value) -> Vec<&str> {
    row.as_object()
        .map(|o| o.values().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn cell<'v>(row: &'v Value, column: Option<&str>) -> &'v str {
    column
        .and_then(|c| row.get(c))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The sheets of a spreadsheet as `FILE_READ` shows it, each with the
/// columns of its header row.
fn sheets_of(content: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut waiting = false;
    for line in content.lines().map(str::trim) {
        if let Some(c) = SHEET_HEADING_RE.captures(line) {
            out.push((c[1].trim().to_string(), Vec::new()));
            waiting = true;
        } else if line.starts_with('|') && (waiting || out.is_empty()) {
            let cells: Vec<String> = line
                .split('|')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect();
            if out.is_empty() {
                out.push((String::new(), Vec::new()));
            }
            if let Some(last) = out.last_mut() {
                last.1 = cells;
            }
            waiting = false;
        }
    }
    out
}

impl Ws<'_> {
    /// Employees late several days in a row, with a warning each. The flaw:
    /// a "run" is a stretch of one employee's rows side by side in the
    /// filtered result, where the on-time days between are gone.
    pub(super) fn late_runs(&self) -> Move {
        let planned = self.planned(|file, peek| {
            let Some((late, yes)) = self.late_column(peek) else {
                return Err(self.no_column(file, peek));
            };
            Ok(json!({ "file_path": file, "filters": { late: yes } }))
        });
        let (file, done) = match planned {
            Ok(d) => d,
            Err(m) => return m,
        };
        let peek = Peek::of(&done.answer);
        let person = peek.column(&["员工", "姓名", "name", "employee"]);
        let dept = peek.column(&["部门", "department"]);
        let date = peek.column(&["日期", "date"]);
        let time = peek.column(&["签到", "时间", "time"]);
        let n_shown = DAYS_RE
            .captures(self.ask)
            .and_then(|c| c.get(1))
            .map_or("3", |m| m.as_str());
        let n: usize = n_shown.parse().unwrap_or(3);
        let mut runs: Vec<(&str, Vec<&Value>)> = Vec::new();
        for row in peek.rows {
            let who = cell(row, person);
            match runs.last_mut() {
                Some((w, rows)) if *w == who => rows.push(row),
                _ => runs.push((who, vec![row])),
            }
        }
        runs.retain(|(who, rows)| !who.is_empty() && rows.len() >= n);
        let names: Vec<&str> = runs.iter().map(|(w, _)| *w).collect();
        if names.is_empty() {
            return self.words(match self.lang {
                Lang::Zh => format!("根据 {file}，没有员工连续迟到 {n_shown} 天及以上。"),
                Lang::En => format!("From {file}, no employee was late {n_shown} days in a row."),
            });
        }
        let sections: Vec<(String, String)> = runs
            .iter()
            .map(|(who, rows)| {
                let dates: Vec<&str> = rows.iter().map(|r| cell(r, date)).collect();
                let times: Vec<&str> = rows.iter().map(|r| cell(r, time)).collect();
                let unit = cell(rows[0], dept);
                match self.lang {
                    Lang::Zh => (
                        format!("警示通知：{who}"),
                        format!(
                            "{who}{}：考勤记录显示你在 {} 迟到（签到时间 {}），已连续迟到 {n_shown} 天及以上。请严格遵守公司考勤制度，按时到岗；如再次发生，将按制度处理。",
                            if unit.is_empty() { String::new() } else { format!("（{unit}）") },
                            dates.join("、"),
                            times.join("、"),
                        ),
                    ),
                    Lang::En => (
                        format!("Warning: {who}"),
                        format!(
                            "{who}: the attendance record shows you late on {} (signed in at {}), {n_shown} days or more in a row. Please keep to the working hours; a repeat will be handled by company rules.",
                            dates.join(", "),
                            times.join(", "),
                        ),
                    ),
                }
            })
            .collect();
        if self.wants_doc()
            && let Some(m) = self.create("output/late-warnings.md", sections)
        {
            return m;
        }
        let doc = if self.wants_doc() {
            self.created()
        } else {
            String::new()
        };
        self.words(match self.lang {
            Lang::Zh => format!(
                "根据 {file}，连续迟到 {n_shown} 天及以上的员工：{}。{}",
                names.join("、"),
                if doc.is_empty() {
                    String::new()
                } else {
                    format!("已为每人写好警示通知，保存在 {doc}。")
                }
            ),
            Lang::En => format!(
                "From {file}, late {n_shown} days or more in a row: {}. {}",
                names.join(", "),
                if doc.is_empty() {
                    String::new()
                } else {
                    format!("A warning for each is in {doc}.")
                }
            ),
        })
    }

    /// A deck comparing the products of a price sheet, with a chart of the
    /// prices, and the cheapest and dearest product named.
    pub(super) fn slides(&self) -> Move {
        let file = match self.find(Kind::Data) {
            Ok(f) => f,
            Err(m) => return m,
        };
        let Some(done) = self.queries(&file).first().copied() else {
            return self.call("DATA_QUERY", json!({ "file_path": file }));
        };
        let peek = Peek::of(&done.answer);
        let Some(price) = peek
            .column(&["单价", "价格", "price", "Price"])
            .filter(|c| peek.numeric(c))
            .or(peek.measure(self.ask))
        else {
            return self.no_column(&file, &peek);
        };
        let products: Vec<(String, f64, String)> = peek
            .rows
            .iter()
            .filter_map(|row| {
                let t = texts(row);
                let v = row.get(price)?;
                let name = match t.as_slice() {
                    [] => return None,
                    [one] => one.to_string(),
                    [first, rest @ ..] => format!("{first}（{}）", rest.join("，")),
                };
                Some((name, v.as_f64()?, shown(v)?))
            })
            .collect();
        let cheap = products.iter().min_by(|a, b| a.1.total_cmp(&b.1));
        let dear = products.iter().max_by(|a, b| a.1.total_cmp(&b.1));
        let (Some(cheap), Some(dear)) = (cheap, dear) else {
            return self.no_column(&file, &peek);
        };
        let first_name =
            |p: &(String, f64, String)| p.0.split('（').next().unwrap_or_default().to_string();
        let chart = self.last_ok("DATA_VISUALIZE");
        if chart.is_none() && self.offers("DATA_VISUALIZE") {
            return self.call(
                "DATA_VISUALIZE",
                json!({
                    "query_result_id": field(&done.answer, "query_result_id"),
                    "chart_type": "bar",
                    "title": self.lang.pick(&format!("{price}对比"), &format!("{price} compared")),
                }),
            );
        }
        let verdict = match self.lang {
            Lang::Zh => format!(
                "最便宜的是{}（{price} {}），最贵的是{}（{price} {}）。",
                first_name(cheap),
                cheap.2,
                first_name(dear),
                dear.2
            ),
            Lang::En => format!(
                "The cheapest is {} ({price} {}), the dearest {} ({price} {}).",
                first_name(cheap),
                cheap.2,
                first_name(dear),
                dear.2
            ),
        };
        let Some(deck) = self.last_ok("SLIDE_BUILD") else {
            let bullets: Vec<String> = products
                .iter()
                .map(|(n, _, v)| format!("{n}：{price} {v}"))
                .collect();
            let stem = file.rsplit('/').next().unwrap_or(&file);
            let stem = stem.rsplit_once('.').map_or(stem, |(s, _)| s);
            let mut slides = vec![
                json!({ "title": self.lang.pick("产品一览", "Products"), "bullets": bullets }),
            ];
            if let Some(c) = chart {
                slides.push(json!({
                    "title": self.lang.pick(&format!("{price}对比"), &format!("{price} compared")),
                    "chart_id": field(&c.answer, "chart_id"),
                }));
            }
            slides.push(json!({
                "title": self.lang.pick("结论", "Conclusion"),
                "bullets": [verdict.clone()],
            }));
            return self.call(
                "SLIDE_BUILD",
                json!({ "deck_name": self.named().unwrap_or_else(|| stem.to_string()), "slides": slides }),
            );
        };
        let path = field(&deck.answer, "file_path");
        self.words(match self.lang {
            Lang::Zh => {
                format!("已生成幻灯片 {path}，含产品一览、{price}对比图表和结论。\n{verdict}")
            }
            Lang::En => format!(
                "The deck is at {path}, with the products, a chart and a conclusion.\n{verdict}"
            ),
        })
    }

    /// A question about the data: it looks at the file first, and says so
    /// when what is asked is not in it; else it queries and answers.
    pub(super) fn ask_data(&self) -> Move {
        let file = match self.find(Kind::Data) {
            Ok(f) => f,
            Err(m) => return m,
        };
        let metric = METRICS.iter().copied().find(|m| self.ask.contains(m));
        if let Some(metric) = metric
            && self.offers("FILE_READ")
        {
            let read = self
                .ok("FILE_READ")
                .find(|d| field(&d.call.arguments, "file_path") == file);
            let Some(read) = read else {
                return self.call("FILE_READ", json!({ "file_path": file }));
            };
            let content = field(&read.answer, "content");
            let stem = metric.trim_end_matches('率');
            if !content.contains(stem) {
                return self.missing(&file, metric, stem, content);
            }
        }
        let Some(done) = self.queries(&file).last().copied() else {
            return self.call("DATA_QUERY", json!({ "file_path": file }));
        };
        let done = Done {
            call: done.call,
            answer: json!({ "sample_data": labelled_rows(&done.answer) }),
        };
        self.words(super::super::acting::summary(&done, self.lang))
    }

    /// What the file holds, and that the asked measure is not in it.
    fn missing(&self, file: &str, metric: &str, stem: &str, content: &str) -> Move {
        let sheets: Vec<String> = sheets_of(content)
            .into_iter()
            .map(|(name, columns)| match self.lang {
                Lang::Zh => format!("{name}（列：{}）", columns.join("、")),
                Lang::En => format!("{name} (columns: {})", columns.join(", ")),
            })
            .collect();
        self.words(match self.lang {
            Lang::Zh => format!(
                "我查看了 {file}：{}。表中没有{stem}或成本相关的数据，无法计算{metric}，我也不会凭空估算。如果您能提供包含{stem}或成本的数据，我可以据此计算。",
                sheets.join("；")
            ),
            Lang::En => format!(
                "I looked at {file}: {}. It holds no {stem} or cost data, so I cannot work out the {metric}, and I won't guess it. If you can share data with {stem} or costs, I will compute it.",
                sheets.join("; ")
            ),
        })
    }
}

/// The rows of a query without the total row, as rows again.
fn labelled_rows(answer: &Value) -> Vec<Value> {
    let rows = super::super::acting::rows(answer);
    let kept = labelled(rows);
    rows.iter()
        .filter(|r| {
            let label = texts(r).join(" ");
            kept.iter().any(|(l, _, _)| *l == label)
        })
        .cloned()
        .collect()
}
