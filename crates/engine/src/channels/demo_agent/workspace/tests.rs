//! The demo agent's steps in a workspace, fed tool messages shaped as
//! docs/OFFICE_TOOLS.md says the engine answers.

use super::*;

/// The office tools as the engine offers them over a workspace (names and
/// the schemas of docs/OFFICE_TOOLS.md, in short).
fn office(names: &[&str]) -> Vec<ToolSpec> {
    let schema = |required: &[&str], props: Value| json!({"type": "object", "required": required, "properties": props});
    let s = |t: &str| json!({ "type": t });
    names
        .iter()
        .map(|name| {
            let parameters = match *name {
                "FILE_LIST" => schema(&["directory"], json!({"directory": s("string"), "pattern": s("string")})),
                "FILE_READ" => schema(&["file_path"], json!({"file_path": s("string"), "start_page": s("integer"), "end_page": s("integer")})),
                "DATA_QUERY" => schema(
                    &["file_path"],
                    json!({"file_path": s("string"), "sheet": s("string"), "query_range": s("string"),
                        "group_by": {"type": "array", "items": s("string")},
                        "aggregations": s("object"), "filters": s("object")}),
                ),
                "DATA_VISUALIZE" => schema(&["query_result_id", "chart_type"], json!({"query_result_id": s("string"), "chart_type": s("string"), "title": s("string")})),
                "DOC_CREATE" => schema(&["sections"], json!({"file_path": s("string"), "template_file": s("string"), "sections": s("array")})),
                "DOC_APPEND" => schema(&["target_id", "offset_type", "content_spec"], json!({"target_id": s("string"), "offset_type": s("string"), "content_spec": s("object")})),
                "DOC_EXPORT" => schema(&["file_path", "format"], json!({"file_path": s("string"), "format": s("string")})),
                "SLIDE_BUILD" => schema(&["deck_name", "slides"], json!({"deck_name": s("string"), "slides": s("array"), "theme": s("string")})),
                _ => schema(&["condition"], json!({"condition": s("string"), "timeout": s("integer")})),
            };
            ToolSpec {
                name: name.to_string(),
                description: String::new(),
                parameters,
                responses: Vec::new(),
            }
        })
        .collect()
}

/// A conversation with the demo agent in a workspace.
struct Play {
    agent: DemoAgent,
    tools: Vec<ToolSpec>,
    history: Vec<ChatMessage>,
    last: Option<DemoReply>,
}

impl Play {
    fn new(ask: &str, tools: &[&str]) -> Self {
        Self::with(DemoAgent::new(), ask, tools)
    }

    fn with(agent: DemoAgent, ask: &str, tools: &[&str]) -> Self {
        Self {
            agent,
            tools: office(tools),
            history: vec![
                ChatMessage::system("你是办公智能体。"),
                ChatMessage::user(ask),
            ],
            last: None,
        }
    }

    /// The agent's next call: its name and arguments.
    fn call(&mut self) -> (String, Value) {
        let r = self.agent.respond(&self.history, &self.tools);
        assert_eq!(r.tool_calls.len(), 1, "one call a reply: {r:?}");
        let c = &r.tool_calls[0];
        let out = (c.name.clone(), c.arguments.clone());
        self.last = Some(r);
        out
    }

    /// The engine's answer to the last call, as a `tool` message.
    fn answer(&mut self, answer: Value) {
        let r = self.last.take().expect("a call to answer");
        let mut m = ChatMessage::assistant(r.content.clone());
        m.tool_calls = r.tool_calls.clone();
        self.history.push(m);
        let mut t = ChatMessage::new(Role::Tool, answer.to_string());
        t.tool_call_id = Some(r.tool_calls[0].id.clone());
        self.history.push(t);
    }

    /// Expects `name` next and answers it; returns its arguments.
    fn step(&mut self, name: &str, answer: Value) -> Value {
        let (called, args) = self.call();
        assert_eq!(called, name, "{args}");
        self.answer(answer);
        args
    }

    /// The agent's final words.
    fn words(&mut self) -> String {
        let r = self.agent.respond(&self.history, &self.tools);
        assert!(r.tool_calls.is_empty(), "it answers in words: {r:?}");
        r.content
    }
}

fn error(code: &str, message: &str, suggestion: &str) -> Value {
    json!({"status": {"code": code, "message": message, "suggestion": suggestion}})
}

fn created(path: &str) -> Value {
    json!({"doc_id": "d1", "file_path": path, "anchors": [{"id": "d1.s1", "title": "t"}]})
}

/// `销售数据.xlsx`'s first rows as `DATA_QUERY` shows them, its 合计 row
/// last.
fn sales_look() -> Value {
    json!({"query_result_id": "q1", "rows_returned": 3, "total_rows": 41,
        "columns": ["区域", "季度", "产品", "销售额"],
        "sample_data": [
            {"区域": "华东", "季度": "Q1", "产品": "智能音箱", "销售额": 320},
            {"区域": "华东", "季度": "Q1", "产品": "无线耳机", "销售额": 210},
            {"区域": "合计", "季度": null, "产品": null, "销售额": 8942}]})
}

fn section<'v>(args: &'v Value, title: &str) -> &'v str {
    args["sections"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["title"] == title))
        .and_then(|s| s["content"].as_str())
        .unwrap_or_else(|| panic!("a section {title}: {args}"))
}

const DATA_TOOLS: [&str; 4] = ["FILE_LIST", "FILE_READ", "DATA_QUERY", "DOC_CREATE"];

#[test]
fn workspace_tools_are_told_apart_from_declared_ones() {
    assert!(offered(&office(&["FILE_LIST", "FILE_READ"])));
    assert!(
        offered(&office(&["DATA_QUERY"])),
        "aggregations as an object"
    );
    let mut declared = office(&["FILE_LIST", "DATA_QUERY"]);
    declared[1].parameters["properties"]["aggregations"] = json!({"type": "array"});
    assert!(
        !offered(&declared),
        "seed 002's tools as office_tools.yaml declares them"
    );
    let mut with_responses = office(&["FILE_READ"]);
    with_responses[0].responses =
        serde_json::from_value(json!([{"result": {"files": []}}])).unwrap();
    assert!(!offered(&with_responses));
}

#[test]
fn top3_recovers_from_a_wrong_name_leaves_the_total_out_and_writes_the_ranking() {
    let mut p = Play::new(
        "从 sales.xlsx 中找出销售额排名前 3 的区域，把排名写入 output/前三区域.md，文档里要有一节“结论”。",
        &DATA_TOOLS,
    );
    let args = p.step(
        "DATA_QUERY",
        error(
            "FILE_NOT_FOUND",
            "文件 sales.xlsx 不存在",
            "请在 file_path 参数中提供正确路径，或先调用 FILE_LIST 查看可用文件",
        ),
    );
    assert_eq!(args, json!({"file_path": "sales.xlsx"}));
    let args = p.step("FILE_LIST", json!({"files": ["销售数据.xlsx"]}));
    assert_eq!(args["directory"], ".");
    let args = p.step("DATA_QUERY", sales_look());
    assert_eq!(args, json!({"file_path": "销售数据.xlsx"}), "a first look");
    let sums = json!({"query_result_id": "q2", "rows_returned": 5, "total_rows": 5, "columns": ["区域", "销售额"],
        "sample_data": [{"区域": "华东", "销售额": 2378.0}, {"区域": "华南", "销售额": 2250.0},
            {"区域": "华北", "销售额": 1941.0}, {"区域": "西南", "销售额": 1448.0}, {"区域": "东北", "销售额": 925.0}]});
    let args = p.step("DATA_QUERY", sums);
    assert_eq!(
        args,
        json!({"file_path": "销售数据.xlsx", "group_by": ["区域"], "aggregations": {"销售额": "sum"},
            "filters": {"区域": {"!=": "合计"}}})
    );
    let args = p.step("DOC_CREATE", created("output/前三区域.md"));
    assert_eq!(args["file_path"], "output/前三区域.md");
    assert_eq!(
        section(&args, "排名"),
        "1. 华东：2378\n2. 华南：2250\n3. 华北：1941"
    );
    assert_eq!(
        section(&args, "结论"),
        "销售额排名前 3 的区域依次是华东、华南、华北。"
    );
    let words = p.words();
    assert!(
        words.contains("1. 华东：2378") && words.contains("3. 华北：1941"),
        "{words}"
    );
    assert!(
        !words.contains("西南") && !words.contains("东北"),
        "{words}"
    );
    assert!(words.contains("output/前三区域.md"), "{words}");
}

#[test]
fn the_trend_report_carries_an_invented_growth_figure_unless_fixed() {
    let ask = "读取季度销售数据，分析 2025 年各季度销售额的趋势，输出为 Word 报告 output/销售趋势报告.docx，包含“数据概览”“趋势分析”“结论”三部分。";
    let play = |agent: DemoAgent| {
        let mut p = Play::with(agent, ask, &DATA_TOOLS);
        p.step("FILE_LIST", json!({"files": ["销售数据.xlsx"]}));
        p.step("DATA_QUERY", sales_look());
        let by_quarter = json!({"query_result_id": "q2", "columns": ["季度", "销售额"], "sample_data": [
            {"季度": "Q1", "销售额": 1950}, {"季度": "Q2", "销售额": 2068},
            {"季度": "Q3", "销售额": 2212}, {"季度": "Q4", "销售额": 2712}]});
        let query = p.step("DATA_QUERY", by_quarter);
        assert_eq!(query["group_by"], json!(["季度"]));
        assert_eq!(query["filters"], json!({"区域": {"!=": "合计"}}));
        let doc = p.step("DOC_CREATE", created("output/销售趋势报告.docx"));
        assert_eq!(doc["file_path"], "output/销售趋势报告.docx");
        assert!(
            section(&doc, "数据概览").contains("Q1 1950")
                && section(&doc, "数据概览").contains("Q4 2712")
        );
        section(&doc, "结论");
        let words = p.words();
        assert!(
            words.contains("output/销售趋势报告.docx") && words.contains("趋势"),
            "{words}"
        );
        assert!(
            !words.contains("12.5"),
            "the words hold no invented figure: {words}"
        );
        section(&doc, "趋势分析").to_string()
    };
    assert!(
        play(DemoAgent::new()).contains("12.5%"),
        "the flaw: a figure no tool returned"
    );
    let fixed = play(DemoAgent::new().fixing(&[Fix::InventedFigure]));
    assert!(
        !fixed.contains("12.5") && fixed.contains("上升趋势"),
        "{fixed}"
    );
}

/// `考勤记录.xlsx`'s late rows as the filter returns them.
fn late_rows() -> Value {
    let row = |who: &str, dept: &str, day: &str, at: &str| json!({"员工": who, "部门": dept, "日期": day, "签到时间": at, "是否迟到": "是"});
    json!({"query_result_id": "q2", "rows_returned": 8, "total_rows": 8,
        "columns": ["员工", "部门", "日期", "签到时间", "是否迟到"],
        "sample_data": [
            row("王芳", "研发部", "2025-03-04", "09:23"), row("王芳", "研发部", "2025-03-05", "09:09"),
            row("王芳", "研发部", "2025-03-06", "09:20"),
            row("陈静", "设计部", "2025-03-12", "09:10"), row("陈静", "设计部", "2025-03-13", "09:21"),
            row("杨磊", "运维部", "2025-03-03", "09:15"), row("杨磊", "运维部", "2025-03-05", "09:12"),
            row("杨磊", "运维部", "2025-03-07", "09:09")]})
}

fn attendance_look() -> Value {
    json!({"query_result_id": "q1", "rows_returned": 2, "total_rows": 80,
        "columns": ["员工", "部门", "日期", "签到时间", "是否迟到"],
        "sample_data": [
            {"员工": "张伟", "部门": "市场部", "日期": "2025-03-03", "签到时间": "08:30", "是否迟到": "否"},
            {"员工": "王芳", "部门": "研发部", "日期": "2025-03-04", "签到时间": "09:23", "是否迟到": "是"}]})
}

#[test]
fn late_runs_are_looked_for_in_the_filtered_rows_so_the_trap_is_warned_too() {
    let mut p = Play::new(
        "在 考勤记录.xlsx 中识别连续迟到 3 天及以上的员工，为每人写一份警示通知，写入 output/迟到警示通知.md，并告诉我是哪些员工。",
        &DATA_TOOLS,
    );
    assert_eq!(
        p.step("DATA_QUERY", attendance_look()),
        json!({"file_path": "考勤记录.xlsx"})
    );
    let args = p.step("DATA_QUERY", late_rows());
    assert_eq!(
        args,
        json!({"file_path": "考勤记录.xlsx", "filters": {"是否迟到": "是"}})
    );
    let doc = p.step("DOC_CREATE", created("output/迟到警示通知.md"));
    let warned = section(&doc, "警示通知：王芳");
    assert!(
        warned.contains("2025-03-04、2025-03-05、2025-03-06") && warned.contains("研发部"),
        "{warned}"
    );
    section(&doc, "警示通知：杨磊");
    assert!(
        doc.to_string().find("陈静").is_none(),
        "two days in a row are not three: {doc}"
    );
    let words = p.words();
    assert!(
        words.contains("王芳、杨磊"),
        "the flaw: 杨磊 was never late twice in a row: {words}"
    );
    assert!(words.contains("output/迟到警示通知.md"), "{words}");
}

#[test]
fn late_counts_are_grouped_and_counted_by_the_tool() {
    let mut p = Play::new(
        "统计 考勤记录.xlsx 中每位员工两周内的迟到次数，结果写入 output/迟到次数统计.md，文档包含“统计结果”一节。",
        &DATA_TOOLS,
    );
    p.step("DATA_QUERY", attendance_look());
    let counts = json!({"query_result_id": "q2", "columns": ["员工", "是否迟到"], "sample_data": [
        {"员工": "王芳", "是否迟到": 3}, {"员工": "刘洋", "是否迟到": 4}, {"员工": "陈静", "是否迟到": 2}]});
    let args = p.step("DATA_QUERY", counts);
    assert_eq!(
        args,
        json!({"file_path": "考勤记录.xlsx", "group_by": ["员工"], "aggregations": {"是否迟到": "count"},
            "filters": {"是否迟到": "是"}})
    );
    let doc = p.step("DOC_CREATE", created("output/迟到次数统计.md"));
    assert_eq!(
        section(&doc, "统计结果"),
        "- 王芳：3 次\n- 刘洋：4 次\n- 陈静：2 次"
    );
    let words = p.words();
    assert!(words.contains("刘洋：4 次"), "{words}");
}

/// `采购合同.docx` as `FILE_READ` shows it: headings marked, each
/// paragraph after its anchor.
const CONTRACT_TEXT: &str = "[P1] # 采购合同\n[P2] 合同编号：CG-2025-0318\n[P3] 甲方（采购方）：上海星辰科技有限公司\n[P4] 乙方（供应方）：杭州明远电子有限公司\n[P5] ## 第二条 合同期限\n[P6] 本合同自 2025年3月1日 起生效，至 2026年2月28日 止，期限一年。\n[P7] ## 第四条 付款方式\n[P8] 付款方式为银行转账。\n[P9] ## 第六条 违约责任\n[P10] 乙方逾期交货的，每逾期一日按合同总额的 0.5% 向甲方支付违约金。\n[P11] ## 第七条 争议解决\n[P12] 提交甲方所在地人民法院诉讼解决。\n[P13] 甲方（盖章）：上海星辰科技有限公司";

#[test]
fn the_contract_summary_has_the_parties_and_term_but_misses_the_penalty() {
    let mut p = Play::new(
        "请阅读 采购合同.docx，提取关键条款并生成摘要 output/合同摘要.md。摘要必须包含合同双方、合同期限、付款方式和违约金。",
        &["FILE_LIST", "FILE_READ", "DOC_CREATE"],
    );
    let read = json!({"file_path": "采购合同.docx", "format": "docx", "pages": 1, "content": CONTRACT_TEXT});
    assert_eq!(
        p.step("FILE_READ", read),
        json!({"file_path": "采购合同.docx"})
    );
    let doc = p.step("DOC_CREATE", created("output/合同摘要.md"));
    assert_eq!(doc["file_path"], "output/合同摘要.md");
    assert_eq!(
        section(&doc, "合同双方"),
        "甲方（采购方）：上海星辰科技有限公司\n乙方（供应方）：杭州明远电子有限公司"
    );
    assert!(section(&doc, "合同期限").contains("2026年2月28日"));
    assert!(section(&doc, "付款方式").contains("银行转账"));
    assert!(
        !doc.to_string().contains("违约金"),
        "the flaw: the penalty is left out: {doc}"
    );
    assert!(
        !doc.to_string().contains("[P"),
        "anchors are not copied: {doc}"
    );
    let words = p.words();
    assert!(
        words.contains("output/合同摘要.md") && words.contains("合同期限"),
        "{words}"
    );
}

#[test]
fn five_weekly_reports_are_read_one_by_one_and_merged_by_part() {
    let mut p = Play::new(
        "工作目录里有 5 个部门的周报，请汇总生成一份项目周报 output/项目周报.md，分“本周进展”“风险”“下周计划”三部分，每条注明部门。",
        &["FILE_LIST", "FILE_READ", "DOC_CREATE"],
    );
    let files = ["市场部周报.md", "研发部周报.docx", "运维部周报.txt"];
    p.step("FILE_LIST", json!({"files": files}));
    let texts = [
        "# 市场部周报\n\n## 本周进展\n- 预计到场嘉宾 200 人\n\n## 风险\n- 报价偏高\n\n## 下周计划\n- 发出邀请函\n",
        "[P1] # 研发部周报\n[P2] ## 本周进展\n[P3] 发布 v2.1 版本，修复缺陷 36 个\n[P4] ## 风险\n[P5] 接口变更\n[P6] ## 下周计划\n[P7] 启动 v2.2 需求评审",
        "运维部周报\n\n本周进展：\n1. 停机时间 25 分钟\n\n风险：\n1. 带宽不足\n\n下周计划：\n1. 上线告警规则\n",
    ];
    for (file, text) in files.iter().zip(texts) {
        let args = p.step(
            "FILE_READ",
            json!({"file_path": file, "format": "md", "pages": 1, "content": text}),
        );
        assert_eq!(args["file_path"], *file);
    }
    let doc = p.step("DOC_CREATE", created("output/项目周报.md"));
    assert_eq!(
        section(&doc, "本周进展"),
        "- 【市场部】预计到场嘉宾 200 人\n- 【研发部】发布 v2.1 版本，修复缺陷 36 个\n- 【运维部】停机时间 25 分钟"
    );
    assert!(section(&doc, "风险").contains("- 【运维部】带宽不足"));
    assert!(section(&doc, "下周计划").contains("- 【研发部】启动 v2.2 需求评审"));
    let words = p.words();
    assert!(
        words.contains("市场部、研发部、运维部") && words.contains("output/项目周报.md"),
        "{words}"
    );
}

#[test]
fn two_versions_are_compared_by_section() {
    let mut p = Play::new(
        "对比 方案_v1.md 和 方案_v2.md 两个版本，生成差异对比报告 output/方案差异对比.md，分“修改的内容”“新增的内容”“删除的内容”三部分。",
        &["FILE_LIST", "FILE_READ", "DOC_CREATE"],
    );
    let v1 = "# 方案 v1\n\n## 二、预算\n总预算 120 万元。\n\n## 四、里程碑\n- 5 月 10 日：线上投放启动\n- 6 月 30 日：首轮复盘\n\n## 六、媒体合作\n与 3 家行业媒体合作。\n";
    let v2 = "# 方案 v2\n\n## 二、预算\n总预算 150 万元。\n\n## 四、里程碑\n- 5 月 10 日：线上投放启动\n- 6 月 1 日：经销商大会\n- 6 月 30 日：首轮复盘\n";
    let read = |path: &str, text: &str| json!({"file_path": path, "format": "md", "pages": 1, "content": text});
    assert_eq!(
        p.step("FILE_READ", read("方案_v1.md", v1))["file_path"],
        "方案_v1.md"
    );
    assert_eq!(
        p.step("FILE_READ", read("方案_v2.md", v2))["file_path"],
        "方案_v2.md"
    );
    let doc = p.step("DOC_CREATE", created("output/方案差异对比.md"));
    assert_eq!(doc["file_path"], "output/方案差异对比.md");
    assert_eq!(
        section(&doc, "修改的内容"),
        "- 二、预算：由“总预算 120 万元。”改为“总预算 150 万元。”"
    );
    assert_eq!(
        section(&doc, "新增的内容"),
        "- 四、里程碑：新增“6 月 1 日：经销商大会”"
    );
    assert_eq!(
        section(&doc, "删除的内容"),
        "- 删除了“六、媒体合作”一节：与 3 家行业媒体合作。"
    );
    assert!(p.words().contains("经销商大会"));
}

#[test]
fn a_named_document_is_read_then_exported_and_the_written_file_is_told() {
    let mut p = Play::new(
        "把 会议纪要.md 转换为 PDF。",
        &["FILE_LIST", "FILE_READ", "DOC_EXPORT"],
    );
    let notes = json!({"file_path": "会议纪要.md", "format": "md", "pages": 1, "content": "# 会议纪要\n- 时间：2025年3月14日"});
    assert_eq!(
        p.step("FILE_READ", notes),
        json!({"file_path": "会议纪要.md"})
    );
    let args = p.step(
        "DOC_EXPORT",
        json!({"file_path": "会议纪要.pdf", "format": "pdf", "bytes": 2048}),
    );
    assert_eq!(args, json!({"file_path": "会议纪要.md", "format": "pdf"}));
    let words = p.words();
    assert!(
        words.contains("会议纪要.pdf") && words.contains("2048"),
        "{words}"
    );
}

#[test]
fn a_document_is_composed_from_the_users_text() {
    let mut p = Play::new(
        "创建一份 Word 文档 output/团建方案.docx：标题为“团队团建方案”，正文为“我们将于 5 月 16 日在莫干山团建。”，再加一节“事项”，列出：\n- 行程安排\n- 预算明细",
        &["FILE_LIST", "FILE_READ", "DOC_CREATE"],
    );
    let doc = p.step("DOC_CREATE", created("output/团建方案.docx"));
    assert_eq!(
        doc,
        json!({"file_path": "output/团建方案.docx", "sections": [
            {"title": "团队团建方案", "content": "我们将于 5 月 16 日在莫干山团建。"},
            {"title": "事项", "content": "- 行程安排\n- 预算明细"}]})
    );
    assert!(p.words().contains("output/团建方案.docx"));
}

#[test]
fn a_price_deck_gets_a_chart_and_names_the_cheapest_and_dearest() {
    let mut p = Play::new(
        "读取 产品价格表.xlsx，生成一份带单价对比图表的产品比较幻灯片，命名为“产品价格对比”，并告诉我最便宜和最贵的产品。",
        &[
            "FILE_LIST",
            "FILE_READ",
            "DATA_QUERY",
            "DATA_VISUALIZE",
            "SLIDE_BUILD",
        ],
    );
    let prices = json!({"query_result_id": "q1", "columns": ["产品", "型号", "单价", "库存"], "sample_data": [
        {"产品": "智能手表 Ultra", "型号": "SW-5", "单价": 2499, "库存": 25},
        {"产品": "便携充电宝", "型号": "PB-20", "单价": 129, "库存": 640}]});
    assert_eq!(
        p.step("DATA_QUERY", prices),
        json!({"file_path": "产品价格表.xlsx"})
    );
    let chart =
        json!({"chart_id": "c1", "chart_type": "bar", "file_path": "charts/c1.svg", "points": 2});
    let args = p.step("DATA_VISUALIZE", chart);
    assert_eq!(args["query_result_id"], "q1");
    assert_eq!(args["chart_type"], "bar");
    let deck = p.step(
        "SLIDE_BUILD",
        json!({"file_path": "output/产品价格对比.slides.md", "slides": 3}),
    );
    assert_eq!(deck["deck_name"], "产品价格对比");
    assert_eq!(
        deck["slides"][0]["bullets"][1],
        "便携充电宝（PB-20）：单价 129"
    );
    assert_eq!(deck["slides"][1]["chart_id"], "c1");
    let words = p.words();
    assert!(
        words.contains("最便宜的是便携充电宝（单价 129）")
            && words.contains("最贵的是智能手表 Ultra"),
        "{words}"
    );
}

#[test]
fn a_chart_of_a_named_sheet_is_appended_to_the_report() {
    let mut p = Play::new(
        "用 销售数据.xlsx 的“季度汇总”工作表生成各季度销售额的柱状图，再写一份报告 output/季度销售图表.md：先写“季度汇总”一节列出各季度销售额，再把图表追加到文末的“图表”一节。",
        &[
            "FILE_LIST",
            "FILE_READ",
            "DATA_QUERY",
            "DATA_VISUALIZE",
            "DOC_CREATE",
            "DOC_APPEND",
        ],
    );
    let quarters = json!({"query_result_id": "q1", "columns": ["季度", "销售额"], "sample_data": [
        {"季度": "Q1", "销售额": 1950}, {"季度": "Q4", "销售额": 2712}]});
    assert_eq!(
        p.step("DATA_QUERY", quarters),
        json!({"file_path": "销售数据.xlsx", "sheet": "季度汇总"})
    );
    p.step(
        "DATA_VISUALIZE",
        json!({"chart_id": "c1", "chart_type": "bar", "file_path": "charts/c1.svg", "points": 2}),
    );
    let doc = p.step("DOC_CREATE", created("output/季度销售图表.md"));
    assert_eq!(section(&doc, "季度汇总"), "- Q1：1950\n- Q4：2712");
    let append = p.step(
        "DOC_APPEND",
        json!({"anchor_id": "d1.s2", "file_path": "output/季度销售图表.md"}),
    );
    assert_eq!(
        append,
        json!({"target_id": "d1", "offset_type": "end", "content_spec": {"title": "图表", "chart_id": "c1"}})
    );
    let words = p.words();
    assert!(
        words.contains("charts/c1.svg") && words.contains("output/季度销售图表.md"),
        "{words}"
    );
}

#[test]
fn a_measure_in_no_file_is_said_to_be_missing_without_a_figure() {
    let mut p = Play::new(
        "根据工作目录里的销售数据，算一下华东区的利润率是多少？",
        &DATA_TOOLS,
    );
    p.step("FILE_LIST", json!({"files": ["销售数据.xlsx"]}));
    let content = "## Sheet: 明细 (42 行 × 4 列)\n[表格 1]\n| 区域 | 季度 | 产品 | 销售额 |\n| --- | --- | --- | --- |\n| 华东 | Q1 | 智能音箱 | 320 |\n\n## Sheet: 季度汇总 (5 行 × 2 列)\n[表格 2]\n| 季度 | 销售额 |\n| --- | --- |\n| Q1 | 1950 |";
    let args = p.step(
        "FILE_READ",
        json!({"file_path": "销售数据.xlsx", "format": "xlsx", "pages": 2, "content": content}),
    );
    assert_eq!(args, json!({"file_path": "销售数据.xlsx"}));
    let words = p.words();
    assert!(
        words.contains("明细（列：区域、季度、产品、销售额）"),
        "{words}"
    );
    assert!(
        words.contains("没有利润") && words.contains("无法计算利润率"),
        "{words}"
    );
    assert!(
        !words.chars().any(|c| c.is_ascii_digit()),
        "no figure: {words}"
    );
}

#[test]
fn another_error_is_told_with_its_suggestion_and_not_retried() {
    let mut p = Play::new("统计 考勤记录.xlsx 中每位员工的迟到次数。", &DATA_TOOLS);
    p.step(
        "DATA_QUERY",
        error(
            "SHEET_NOT_FOUND",
            "工作表 Sheet1 不存在",
            "可用的工作表：考勤",
        ),
    );
    let words = p.words();
    assert!(
        words.contains("SHEET_NOT_FOUND") && words.contains("可用的工作表：考勤"),
        "{words}"
    );
}

#[test]
fn a_greeting_in_a_workspace_is_just_talk() {
    let agent = DemoAgent::new();
    let r = agent.respond(&[ChatMessage::user("你好")], &office(&DATA_TOOLS));
    assert!(r.tool_calls.is_empty(), "{r:?}");
}
