//! Tests: the checks on what an agent produced in its workspace, on
//! constructed turns: `document`, `file_exists`, and the number gate over
//! the documents a turn wrote.

use agenteval_engine::channel::{ChatMessage, ChatReply, ToolCall};
use agenteval_engine::checks::{CheckResult, TurnContext, run_checks};
use agenteval_engine::domain::steps::{DocumentText, Step, StepAnswer};
use agenteval_engine::scenario::{Check, Scenario};
use serde_json::json;

fn scenario() -> Scenario {
    serde_json::from_value(json!({
        "id": "t.ws", "title": "t", "pack": "t", "turns": [{"user": "汇总销售数据"}],
        "source_file": "t.yaml", "source_line": 1, "content_hash": ""
    }))
    .expect("a scenario")
}

fn step(name: &str, answer: serde_json::Value, document: Option<DocumentText>) -> Step {
    Step {
        round: 1,
        call: ToolCall {
            id: format!("call_{name}"),
            name: name.into(),
            arguments: json!({}),
        },
        answer: StepAnswer::Result(answer),
        latency_ms: 5,
        tokens_in: None,
        tokens_out: None,
        document,
    }
}

fn report_doc(text: &str) -> DocumentText {
    DocumentText::new("output/report.md", text)
}

async fn check(check: Check, steps: &[Step], files: &[&str], reply: &str) -> CheckResult {
    let s = scenario();
    let history = vec![ChatMessage::user("汇总销售数据")];
    let documents: Vec<DocumentText> = steps.iter().filter_map(|s| s.document.clone()).collect();
    let files: Vec<String> = files.iter().map(|f| f.to_string()).collect();
    let reply = ChatReply {
        content: reply.into(),
        tool_calls: vec![],
        usage: None,
        latency_ms: 10,
        model: None,
    };
    let ctx = TurnContext {
        scenario: &s,
        turn: 0,
        history: &history,
        reply: &reply,
        steps,
        documents: &documents,
        files: &files,
    };
    run_checks(&[check], &ctx, None).await.remove(0)
}

fn document(path: Option<&str>, contains: &[&str], sections: &[&str]) -> Check {
    Check::Document {
        path: path.map(str::to_string),
        contains: contains.iter().map(|s| s.to_string()).collect(),
        sections: sections.iter().map(|s| s.to_string()).collect(),
    }
}

fn zh(r: &CheckResult) -> String {
    r.detail.render(agenteval_engine::Lang::Zh)
}

#[tokio::test]
async fn a_document_check_reads_what_the_agent_wrote_and_points_at_the_step() {
    let query = step(
        "DATA_QUERY",
        json!({"sample_data": [{"区域": "华南", "销售额": 1310}]}),
        None,
    );
    let made = step(
        "DOC_CREATE",
        json!({"doc_id": "d1"}),
        Some(report_doc("# 概览\n华南 1310\n# 结论\n华南第一")),
    );
    let steps = [query, made];
    let passed = check(
        document(Some("*.md"), &["华南"], &["结论"]),
        &steps,
        &[],
        "",
    )
    .await;
    assert!(passed.passed, "{passed:?}");
    assert_eq!(passed.step, Some(2), "the step that wrote it");

    let lacks = check(document(None, &["华东", "华南"], &[]), &steps, &[], "").await;
    assert!(!lacks.passed);
    assert!(
        zh(&lacks).contains("缺少") && zh(&lacks).contains("华东"),
        "{}",
        zh(&lacks)
    );
    assert!(
        !zh(&lacks).contains("华南\""),
        "only what is missing is named"
    );

    let no_heading = check(document(None, &[], &["风险"]), &steps, &[], "").await;
    assert!(!no_heading.passed);
    assert!(zh(&no_heading).contains("风险"));

    let elsewhere = check(document(Some("*.docx"), &["华南"], &[]), &steps, &[], "").await;
    assert!(!elsewhere.passed, "a Markdown file is not a .docx");
    assert!(
        zh(&elsewhere).contains("output/report.md"),
        "{}",
        zh(&elsewhere)
    );

    let none = check(document(None, &["华南"], &[]), &[], &[], "华南").await;
    assert!(!none.passed, "words in the reply are not a document");
}

#[tokio::test]
async fn file_exists_matches_a_glob_in_any_folder_unless_it_names_one() {
    let files = ["data/sales.xlsx", "output/纪要.pdf"];
    let exists = |p: &str| Check::FileExists { path: p.into() };
    assert!(check(exists("output/*.pdf"), &[], &files, "").await.passed);
    assert!(check(exists("*.pdf"), &[], &files, "").await.passed);
    assert!(check(exists("**/*.xlsx"), &[], &files, "").await.passed);
    let missing = check(exists("output/*.docx"), &[], &files, "").await;
    assert!(!missing.passed);
    assert!(zh(&missing).contains("没有与"), "{}", zh(&missing));
    assert!(
        !check(exists("*.pdf"), &[], &["data/sales.xlsx"], "")
            .await
            .passed
    );
}

#[tokio::test]
async fn the_number_gate_reads_the_documents_a_turn_wrote() {
    let query = step(
        "DATA_QUERY",
        json!({"sample_data": [{"季度": "Q1", "销售额": 820}, {"季度": "Q2", "销售额": 860}]}),
        None,
    );
    let honest = step(
        "DOC_CREATE",
        json!({"doc_id": "d1"}),
        Some(report_doc("# 趋势\nQ1 820，Q2 860")),
    );
    let gate = Check::NoUnverifiedNumbers;
    let ok = check(gate.clone(), &[query.clone(), honest], &[], "报告已生成").await;
    assert!(ok.passed, "{ok:?}");

    // The DOC_CREATE step's own answer echoes the document: it is no source.
    let invented = step(
        "DOC_CREATE",
        json!({"doc_id": "d1", "anchors": [{"title": "增长 12.5%"}]}),
        Some(report_doc("# 趋势\nQ1 820，Q2 860，平均增长 12.5%")),
    );
    let caught = check(gate, &[query, invented], &[], "报告已生成").await;
    assert!(!caught.passed);
    assert_eq!(
        caught.step,
        Some(2),
        "it points at the step that wrote the figure"
    );
    let said = zh(&caught);
    assert!(
        said.contains("12.5%") && said.contains("output/report.md"),
        "{said}"
    );
}

#[tokio::test]
async fn an_export_of_a_file_the_workspace_came_with_is_not_the_agents_figure() {
    // The meeting notes came with the workspace; exporting them to PDF
    // writes their figures without the agent having read them.
    let export = step(
        "DOC_EXPORT",
        json!({"file_path": "会议纪要.pdf", "format": "pdf"}),
        Some(DocumentText::new("会议纪要.pdf", "# 周会\n预算 35 万")),
    );
    let gate = check(Check::NoUnverifiedNumbers, &[export], &[], "已导出").await;
    assert!(gate.passed, "{gate:?}");
}
