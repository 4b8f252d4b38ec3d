//! Office tasks modelled on seed 002: figures, trends, tables, events,
//! reports, contracts, document diffs, attendance, slides and documents.

use super::*;

/// `label: number` pairs, the way users paste small tables into chat.
pub(super) static PAIR_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"([\p{Han}A-Za-z][\p{Han}A-Za-z0-9 _\-]{0,30}?)\s*[:：=]\s*[¥$￥]?\s*(-?\d+(?:\.\d+)?)")
});
pub(super) static NUMBER_RE: LazyLock<Regex> = LazyLock::new(|| re(r"[0-9]"));

pub(super) fn pairs(text: &str) -> Vec<(String, String)> {
    PAIR_RE
        .captures_iter(text)
        .map(|c| (c[1].trim().to_string(), c[2].to_string()))
        .collect()
}

pub(super) fn num(s: &str) -> f64 {
    s.parse().unwrap_or(0.0)
}

pub(super) fn no_data(lang: Lang) -> String {
    lang.pick(
        "我这里没有相关数据，不能凭空给出数字。请把数据（例如表格内容或文件）发给我，可以吗？",
        "I don't have that data, and I won't guess numbers. Could you share the data (the table or the file) with me?",
    )
}

pub(super) fn missing_data(text: &str, lang: Lang) -> String {
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
pub(super) fn trend(text: &str, lang: Lang) -> String {
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

/// The trend answer once the invented figure is fixed: the figures given,
/// the first and the last, and the direction; no number that is not in
/// the data. Without two figures it asks for them.
pub(super) fn trend_from_data(text: &str, lang: Lang) -> String {
    let p = pairs(text);
    let [first, .., last] = p.as_slice() else {
        return no_data(lang);
    };
    let listed: Vec<String> = p.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let (a, b) = (num(&first.1), num(&last.1));
    match lang {
        Lang::Zh => format!(
            "趋势分析：{}。从{}的 {} 到{}的 {}，整体呈{}。数据只有这些，我不对增速做推测。",
            listed.join("，"),
            first.0,
            first.1,
            last.0,
            last.1,
            match a.total_cmp(&b) {
                std::cmp::Ordering::Less => "上升趋势",
                std::cmp::Ordering::Greater => "下降趋势",
                std::cmp::Ordering::Equal => "持平",
            }
        ),
        Lang::En => format!(
            "Trend analysis: {}. From {} in {} to {} in {}, the figures went {}. That is all the data shows; I won't guess a growth rate.",
            listed.join(", "),
            first.1,
            first.0,
            last.1,
            last.0,
            match a.total_cmp(&b) {
                std::cmp::Ordering::Less => "up",
                std::cmp::Ordering::Greater => "down",
                std::cmp::Ordering::Equal => "flat",
            }
        ),
    }
}

pub(super) static TOP_N_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)top\s*(\d+)|前\s*(\d+|[一二三四五六七八九十])"));

pub(super) fn top_n(text: &str, lang: Lang) -> String {
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

pub(super) fn to_json(text: &str, lang: Lang) -> String {
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

pub(super) static DATE_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\d{4}-\d{2}-\d{2}|\d{1,2}月\d{1,2}[日号]|明天|后天|今天|下?周[一二三四五六日天]|\btomorrow\b|\btoday\b|\b(?:next\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b",
    )
});
pub(super) static TIME_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\d{1,2}:\d{2}|(?:上午|下午|晚上)?\d{1,2}点(?:半|\d{1,2}分)?|\b\d{1,2}\s?(?:am|pm)\b")
});
pub(super) static QUOTED_RE: LazyLock<Regex> = LazyLock::new(|| re(r#"["“「]([^"”」]+)["”」]"#));

/// Creates an event. Date and time come from the first message that gave
/// them: a later change is not taken into account (a deliberate flaw).
pub(super) fn calendar(thread: &[&str], lang: Lang, tools: &[ToolSpec]) -> (String, Vec<ToolCall>) {
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

pub(super) static DEPT_LINE_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?m)^\s*[-*]?\s*([\p{Han}A-Za-z][\p{Han}A-Za-z0-9 &_\-]{0,24}?)\s*[:：]\s*(.+?)\s*$")
});

pub(super) fn weekly_report(text: &str, lang: Lang) -> String {
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

pub(super) fn sentences(text: &str) -> Vec<&str> {
    text.split(['。', '；', ';', '\n', '.'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

pub(super) fn contract(text: &str, lang: Lang) -> String {
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

pub(super) static VERSION_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)(?:版本|version|方案|v)\s*[A-Za-z0-9一二]+\s*[:：]"));

pub(super) fn diff(text: &str, lang: Lang) -> String {
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

pub(super) static ATTENDANCE_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?m)^\s*[-*]?\s*([\p{Han}A-Za-z][\p{Han}A-Za-z .]{0,20}?)\s*[:：]\s*(.+?)\s*$")
});
pub(super) static LATE_TOKEN_RE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)迟到|\blate\b|准时|正常|\bon time\b|\bok\b"));
pub(super) static STREAK_RE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:连续|consecutive)\D{0,12}?(\d+)|(\d+)\D{0,12}?(?:consecutive|天以上|天及以上)")
});

pub(super) fn lateness(text: &str, lang: Lang) -> String {
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

pub(super) fn price_slides(text: &str, lang: Lang) -> String {
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

pub(super) fn to_pdf(text: &str, lang: Lang, tools: &[ToolSpec]) -> (String, Vec<ToolCall>) {
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

pub(super) fn create_doc(text: &str, lang: Lang) -> String {
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
