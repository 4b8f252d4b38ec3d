//! The workspace tasks over spreadsheets: a ranking, a trend, a chart, an
//! attendance count, late runs, a price deck, and a question the data may
//! not answer.

use super::*;

/// Columns a request groups by, in the words it uses for them.
const DIMENSIONS: [&str; 8] = [
    "区域", "季度", "产品", "员工", "部门", "月份", "region", "quarter",
];
/// Measures a request may ask about; `率` ones need their stem in the data.
pub(super) const METRICS: [&str; 13] = [
    "利润率",
    "毛利率",
    "利润",
    "毛利",
    "成本",
    "营收",
    "收入",
    "销量",
    "销售额",
    "单价",
    "库存",
    "预算",
    "客单价",
];
/// The label of a row that sums the others.
const TOTALS: [&str; 5] = ["合计", "总计", "总和", "小计", "Total"];

static CHART_TYPE_RE: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)折线|\bline\b|饼|\bpie\b"));
static SHEET_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r#"(?i)["“「]([^"”」]+)["”」]\s*(?:工作表|sheet)|(?:工作表|sheet)\s*["“「]([^"”」]+)["”」]"#)
});

/// A first look at a sheet: its columns and rows.
pub(super) struct Peek<'v> {
    pub(super) columns: Vec<&'v str>,
    pub(super) rows: &'v [Value],
}

impl<'v> Peek<'v> {
    pub(super) fn of(answer: &'v Value) -> Self {
        let rows = super::super::acting::rows(answer);
        let mut columns: Vec<&str> = answer
            .get("columns")
            .and_then(Value::as_array)
            .map(|c| c.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if columns.is_empty()
            && let Some(first) = rows.first().and_then(Value::as_object)
        {
            columns = first.keys().map(String::as_str).collect();
        }
        Self { columns, rows }
    }

    /// The first column whose name holds one of `words`.
    pub(super) fn column(&self, words: &[&str]) -> Option<&'v str> {
        words
            .iter()
            .find_map(|w| self.columns.iter().copied().find(|c| c.contains(w)))
    }

    pub(super) fn numeric(&self, column: &str) -> bool {
        self.rows
            .iter()
            .any(|r| r.get(column).is_some_and(Value::is_number))
    }

    /// The numeric column the request names, else the first numeric one.
    pub(super) fn measure(&self, ask: &str) -> Option<&'v str> {
        let numeric: Vec<&str> = self
            .columns
            .iter()
            .copied()
            .filter(|c| self.numeric(c))
            .collect();
        numeric
            .iter()
            .copied()
            .find(|c| ask.contains(c))
            .or(numeric.first().copied())
    }

    /// The column the request groups by (a dimension it names).
    fn dimension(&self, ask: &str) -> Option<&'v str> {
        let lower = ask.to_lowercase();
        DIMENSIONS
            .iter()
            .filter(|w| lower.contains(*w))
            .find_map(|w| self.column(&[w]))
    }

    /// A filter leaving out the row that sums the others (`合计`).
    fn without_total(&self) -> Value {
        for row in self.rows {
            let Some(obj) = row.as_object() else { continue };
            for (k, v) in obj {
                if let Some(t) = v.as_str().filter(|t| TOTALS.contains(&t.trim())) {
                    return json!({ k: { "!=": t } });
                }
            }
        }
        json!({})
    }
}

/// A row's label (its text values) and its first figure, as shown.
pub(super) fn labelled(rows: &[Value]) -> Vec<(String, f64, String)> {
    rows.iter()
        .filter_map(|row| {
            let obj = row.as_object()?;
            let label: Vec<&str> = obj.values().filter_map(Value::as_str).collect();
            let value = obj.values().find(|v| v.is_number())?;
            let label = label.join(" ");
            (!label.is_empty() && !TOTALS.contains(&label.as_str())).then(|| {
                (
                    label,
                    value.as_f64().unwrap_or(0.0),
                    shown(value).unwrap_or_default(),
                )
            })
        })
        .collect()
}

impl Ws<'_> {
    /// This turn's successful queries of `file`.
    pub(super) fn queries(&self, file: &str) -> Vec<&Done<'_>> {
        self.ok("DATA_QUERY")
            .filter(|d| field(&d.call.arguments, "file_path") == file)
            .collect()
    }

    /// The data of a data file worked in steps: the file found, a first
    /// look at it, then the query `plan` builds from that look. Ok(the
    /// file and the planned query's answer), or the next move.
    pub(super) fn planned(
        &self,
        plan: impl Fn(&str, &Peek<'_>) -> Result<Value, Move>,
    ) -> Result<(String, &Done<'_>), Move> {
        let file = self.find(Kind::Data)?;
        let done = self.queries(&file);
        let Some(look) = done.first() else {
            return Err(self.call("DATA_QUERY", json!({ "file_path": file })));
        };
        if let Some(planned) = done.get(1) {
            return Ok((file, planned));
        }
        let args = plan(&file, &Peek::of(&look.answer))?;
        Err(self.call("DATA_QUERY", args))
    }

    /// A grouped sum of the request's measure by its dimension, the total
    /// row left out.
    fn grouped(&self) -> Result<(String, &Done<'_>), Move> {
        self.planned(|file, peek| {
            let (Some(dim), Some(measure)) = (peek.dimension(self.ask), peek.measure(self.ask))
            else {
                return Err(self.no_column(file, peek));
            };
            Ok(json!({
                "file_path": file,
                "group_by": [dim],
                "aggregations": { measure: "sum" },
                "filters": peek.without_total(),
            }))
        })
    }

    pub(super) fn no_column(&self, file: &str, peek: &Peek<'_>) -> Move {
        let columns = peek.columns.join("、");
        self.words(match self.lang {
            Lang::Zh => format!("{file} 里只有这些列：{columns}。请问要按哪一列统计？"),
            Lang::En => format!("{file} has these columns: {columns}. Which one should I use?"),
        })
    }

    /// The top N of the grouped sums, written down when asked.
    pub(super) fn top(&self) -> Move {
        let (file, done) = match self.grouped() {
            Ok(d) => d,
            Err(m) => return m,
        };
        let n_shown = TOP_N_RE
            .captures(self.ask)
            .and_then(|c| c.get(1).or(c.get(2)))
            .map_or("3", |m| m.as_str());
        let n = match n_shown {
            "一" => 1,
            "二" | "两" => 2,
            "三" => 3,
            "四" => 4,
            "五" => 5,
            s => s.parse().unwrap_or(3),
        };
        let mut ranked = labelled(super::super::acting::rows(&done.answer));
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        ranked.truncate(n);
        let lines: Vec<String> = ranked
            .iter()
            .enumerate()
            .map(|(i, (l, _, v))| format!("{}. {l}：{v}", i + 1))
            .collect();
        let names: Vec<&str> = ranked.iter().map(|(l, _, _)| l.as_str()).collect();
        // What was ranked, in the query's own words: 销售额 by 区域.
        let args = &done.call.arguments;
        let dim = args["group_by"][0].as_str().unwrap_or_default();
        let measure = args["aggregations"]
            .as_object()
            .and_then(|a| a.keys().next())
            .map_or("", String::as_str);
        let conclusion = match self.lang {
            Lang::Zh => format!(
                "{measure}排名前 {n_shown} 的{dim}依次是{}。",
                names.join("、")
            ),
            Lang::En => format!("The top {n_shown} by {measure} are {}.", names.join(", ")),
        };
        if self.wants_doc()
            && let Some(m) = self.create(
                "output/ranking.md",
                vec![
                    (self.lang.pick("排名", "Ranking"), lines.join("\n")),
                    (
                        self.section("结论", ("结论", "Conclusion")),
                        conclusion.clone(),
                    ),
                ],
            )
        {
            return m;
        }
        let mut text = match self.lang {
            Lang::Zh => format!(
                "根据 {file}（已排除合计行）：\n{}\n{conclusion}",
                lines.join("\n")
            ),
            Lang::En => format!(
                "From {file} (total row left out):\n{}\n{conclusion}",
                lines.join("\n")
            ),
        };
        if self.wants_doc() {
            text.push_str(&self.lang.pick("\n已写入 ", "\nWritten to "));
            text.push_str(&self.created());
        }
        self.words(text)
    }

    /// The grouped sums in the order of their labels (Q1, Q2, ...).
    fn series(&self, done: &Done<'_>) -> Vec<(String, f64, String)> {
        let mut series = labelled(super::super::acting::rows(&done.answer));
        series.sort_by(|a, b| a.0.cmp(&b.0));
        series
    }

    /// A trend: the figures, their direction, written into a report when
    /// asked; with the invented growth figure unless fixed.
    pub(super) fn trend(&self) -> Move {
        let (file, done) = match self.grouped() {
            Ok(d) => d,
            Err(m) => return m,
        };
        let series = self.series(done);
        let (Some(first), Some(last)) = (series.first(), series.last()) else {
            return self.say(
                "查询没有返回数据，我不能凭空分析趋势。",
                "The query returned no rows, and I won't guess a trend.",
            );
        };
        let rising = series.windows(2).all(|w| w[1].1 >= w[0].1);
        let listed: Vec<String> = series.iter().map(|(l, _, v)| format!("{l} {v}")).collect();
        let invented = !self.agent.fixes.contains(&Fix::InventedFigure);
        let (overview, analysis, conclusion) = match self.lang {
            Lang::Zh => (
                format!("数据来自 {file}：{}。", listed.join("，")),
                format!(
                    "从{}的 {} 到{}的 {}，{}{}",
                    first.0,
                    first.2,
                    last.0,
                    last.2,
                    if rising {
                        "逐期上升，整体呈上升趋势"
                    } else {
                        "有升有降"
                    },
                    if invented {
                        "，平均每季度增长约 12.5%。"
                    } else {
                        "。"
                    }
                ),
                format!(
                    "{}最高（{}），{}最低（{}）。",
                    last.0, last.2, first.0, first.2
                ),
            ),
            Lang::En => (
                format!("From {file}: {}.", listed.join(", ")),
                format!(
                    "From {} in {} to {} in {}, {}{}",
                    first.2,
                    first.0,
                    last.2,
                    last.0,
                    if rising {
                        "the figures rose every period"
                    } else {
                        "the figures went up and down"
                    },
                    if invented {
                        ", about 12.5% per quarter on average."
                    } else {
                        "."
                    }
                ),
                format!(
                    "{} is the highest ({}), {} the lowest ({}).",
                    last.0, last.2, first.0, first.2
                ),
            ),
        };
        if self.wants_doc() {
            let sections = vec![
                (
                    self.section("概览", ("数据概览", "Overview")),
                    overview.clone(),
                ),
                (
                    self.section("趋势", ("趋势分析", "Trend")),
                    analysis.clone(),
                ),
                (self.section("结论", ("结论", "Conclusion")), conclusion),
            ];
            if let Some(m) = self.create("output/trend.md", sections) {
                return m;
            }
            return self.words(match self.lang {
                Lang::Zh => format!(
                    "已生成趋势分析报告 {}。{overview}{}",
                    self.created(),
                    if rising {
                        "整体呈上升趋势。"
                    } else {
                        ""
                    }
                ),
                Lang::En => format!("The trend report is at {}. {overview}", self.created()),
            });
        }
        self.words(format!("{overview}\n{analysis}"))
    }

    /// A chart of a sheet (the one the user names, else the grouped sums),
    /// and a report with the figures and the chart appended.
    pub(super) fn chart(&self) -> Move {
        let sheet = SHEET_RE
            .captures(self.ask)
            .and_then(|c| c.get(1).or(c.get(2)))
            .map(|m| m.as_str().to_string());
        let done = match &sheet {
            Some(sheet) => {
                let file = match self.find(Kind::Data) {
                    Ok(f) => f,
                    Err(m) => return m,
                };
                match self.queries(&file).first() {
                    Some(d) => *d,
                    None => {
                        return self
                            .call("DATA_QUERY", json!({ "file_path": file, "sheet": sheet }));
                    }
                }
            }
            None => match self.grouped() {
                Ok((_, d)) => d,
                Err(m) => return m,
            },
        };
        let series = self.series(done);
        let lines: Vec<String> = series
            .iter()
            .map(|(l, _, v)| format!("- {l}：{v}"))
            .collect();
        let title = self.lang.pick("各季度销售额", "Sales by quarter");
        let Some(chart) = self.last_ok("DATA_VISUALIZE") else {
            let kind = match CHART_TYPE_RE
                .find(self.ask)
                .map(|m| m.as_str().to_lowercase())
            {
                Some(k) if k == "折线" || k == "line" => "line",
                Some(_) => "pie",
                None => "bar",
            };
            return self.call(
                "DATA_VISUALIZE",
                json!({
                    "query_result_id": field(&done.answer, "query_result_id"),
                    "chart_type": kind,
                    "title": title,
                }),
            );
        };
        let chart_id = field(&chart.answer, "chart_id");
        let asked = self.asked_sections();
        if self.wants_doc() {
            let data_title = asked
                .first()
                .cloned()
                .unwrap_or_else(|| self.lang.pick("数据汇总", "Figures"));
            if let Some(m) = self.create("output/chart.md", vec![(data_title, lines.join("\n"))]) {
                return m;
            }
            if self.last_ok("DOC_APPEND").is_none() && self.offers("DOC_APPEND") {
                let doc = self
                    .last_ok("DOC_CREATE")
                    .map_or("", |d| field(&d.answer, "doc_id"));
                let chart_title = asked
                    .get(1)
                    .cloned()
                    .unwrap_or_else(|| self.lang.pick("图表", "Chart"));
                return self.call(
                    "DOC_APPEND",
                    json!({
                        "target_id": doc,
                        "offset_type": "end",
                        "content_spec": { "title": chart_title, "chart_id": chart_id },
                    }),
                );
            }
        }
        let path = field(&chart.answer, "file_path");
        self.words(match self.lang {
            Lang::Zh => format!(
                "已生成柱状图 {path}{}。\n{}",
                if self.wants_doc() {
                    format!("，并追加到报告 {}", self.created())
                } else {
                    String::new()
                },
                lines.join("\n")
            ),
            Lang::En => format!("The chart is at {path}.\n{}", lines.join("\n")),
        })
    }

    /// The late column of an attendance sheet and its value for "late".
    pub(super) fn late_column<'v>(&self, peek: &Peek<'v>) -> Option<(&'v str, Value)> {
        let column = peek.column(&["迟到", "late", "Late"])?;
        let yes = peek
            .rows
            .iter()
            .filter_map(|r| r.get(column))
            .find(|v| {
                v.as_bool() == Some(true)
                    || v.as_str().is_some_and(|s| {
                        ["是", "迟到", "y", "yes", "true"]
                            .contains(&s.trim().to_lowercase().as_str())
                    })
            })
            .cloned()
            .unwrap_or(json!("是"));
        Some((column, yes))
    }

    /// How often each employee was late, counted by the tool.
    pub(super) fn late_count(&self) -> Move {
        let planned = self.planned(|file, peek| {
            let (Some(person), Some((late, yes))) = (
                peek.column(&["员工", "姓名", "name", "employee"]),
                self.late_column(peek),
            ) else {
                return Err(self.no_column(file, peek));
            };
            Ok(json!({
                "file_path": file,
                "group_by": [person],
                "aggregations": { late: "count" },
                "filters": { late: yes },
            }))
        });
        let (file, done) = match planned {
            Ok(d) => d,
            Err(m) => return m,
        };
        let counts = labelled(super::super::acting::rows(&done.answer));
        let unit = self.lang.pick(" 次", " times");
        let lines: Vec<String> = counts
            .iter()
            .map(|(l, _, v)| format!("- {l}：{v}{unit}"))
            .collect();
        if self.wants_doc()
            && let Some(m) = self.create(
                "output/late-count.md",
                vec![(
                    self.section("统计", ("统计结果", "Counts")),
                    lines.join("\n"),
                )],
            )
        {
            return m;
        }
        let mut text = match self.lang {
            Lang::Zh => format!("根据 {file}，各员工的迟到次数：\n{}", lines.join("\n")),
            Lang::En => format!(
                "From {file}, times each employee was late:\n{}",
                lines.join("\n")
            ),
        };
        if self.wants_doc() {
            text.push_str(&self.lang.pick("\n已写入 ", "\nWritten to "));
            text.push_str(&self.created());
        }
        self.words(text)
    }
}
