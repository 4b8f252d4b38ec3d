//! Tests: scenarios with a workspace. The loader finds the folder beside
//! the pack and offers the office tools; a run plays them for real over a
//! private copy of real files (a spreadsheet written here), against the
//! strict OpenAI-compatible server, and the checks read the documents the
//! agent wrote.

use crate::strict_server::{Agent, StrictServer, call, play_once_in, turn_results};
use crate::support::platform;
use agenteval_engine::fixed::Verdict;
use agenteval_engine::scenario::load_dir;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// Regions and sales, the order of the rows a sheet holds.
const SALES: [(&str, f64); 6] = [
    ("华东", 700.0),
    ("华南", 810.0),
    ("华东", 580.0),
    ("华北", 950.0),
    ("华南", 500.0),
    ("西南", 600.0),
];

/// `sales.xlsx` in `dir`: 区域, 销售额.
fn write_sales(dir: &Path) {
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet();
    sheet.write_string(0, 0, "区域").unwrap();
    sheet.write_string(0, 1, "销售额").unwrap();
    for (i, (region, amount)) in SALES.iter().enumerate() {
        sheet.write_string(i as u32 + 1, 0, *region).unwrap();
        sheet.write_number(i as u32 + 1, 1, *amount).unwrap();
    }
    std::fs::create_dir_all(dir).unwrap();
    book.save(dir.join("sales.xlsx")).unwrap();
}

/// The pack folder `root/tools` with its workspace `ws`.
fn pack_folder(root: &Path) {
    std::fs::create_dir_all(root.join("tools")).unwrap();
    write_sales(&root.join("tools/ws"));
}

const PACK: &str = r#"
scenarios:
  - id: ws.report
    title: 销售简报
    workspace: ws
    turns:
      - user: 根据 sales.xlsx 按区域汇总销售额，写一份简报
        checks:
          - {type: tool_sequence, calls: [{name: FILE_LIST}, {name: DATA_QUERY}, {name: DOC_CREATE}], order: exact}
          - {type: document, path: "*.md", contains: [华东], sections: [汇总]}
          - {type: file_exists, path: "output/*.md"}
          - {type: no_unverified_numbers}
"#;

/// An agent that lists, queries the file the listing names grouped by
/// region, writes what came back into a document (plus `extra`), and says
/// it is done.
fn reporting_agent(extra: &'static str) -> Agent {
    Arc::new(move |messages: &[Value]| {
        let results = turn_results(messages);
        match results.len() {
            0 => {
                json!({"content": "", "tool_calls": [call("c1", "FILE_LIST", json!({"directory": "."}))]})
            }
            1 => {
                let file = results[0]["files"][0]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                json!({"tool_calls": [call("c2", "DATA_QUERY", json!({
                    "file_path": file, "group_by": ["区域"], "aggregations": {"销售额": "sum"}
                }))]})
            }
            2 => {
                let lines: Vec<String> = results[1]["sample_data"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|r| {
                        format!(
                            "- {}：{}",
                            r["区域"].as_str().unwrap_or_default(),
                            r["销售额_sum"]
                        )
                    })
                    .collect();
                let content = format!("{}{extra}", lines.join("\n"));
                json!({"tool_calls": [call("c3", "DOC_CREATE", json!({
                    "file_path": "output/简报.md",
                    "sections": [{"title": "汇总", "content": content}]
                }))]})
            }
            _ => json!({"content": "简报已写好：output/简报.md"}),
        }
    })
}

#[tokio::test]
async fn a_run_plays_the_office_tools_over_real_files_and_checks_the_document() {
    let server = StrictServer::start(reporting_agent("")).await;
    let tp = platform().await;
    let dir = tempfile::tempdir().unwrap();
    pack_folder(dir.path());
    let before = std::fs::read(dir.path().join("tools/ws/sales.xlsx")).unwrap();
    let (_, run, turns) = play_once_in(
        &tp.platform,
        dir.path(),
        PACK,
        &server.base_url(),
        "ws.report",
    )
    .await;
    assert!(server.refused().is_empty(), "{:?}", server.refused());
    let failed: Vec<_> = run.check_results.iter().filter(|c| !c.passed).collect();
    assert_eq!(run.verdict, Some(Verdict::Passed), "{failed:?}");

    let steps = &turns.iter().find(|t| t.role == "target").unwrap().steps;
    let names: Vec<&str> = steps.iter().map(|s| s.call.name.as_str()).collect();
    assert_eq!(names, ["FILE_LIST", "DATA_QUERY", "DOC_CREATE"]);
    // The sums are computed over the sheet: each region's, independently.
    let answer: Value = serde_json::from_str(&steps[1].answer.content()).unwrap();
    let east: f64 = SALES.iter().filter(|r| r.0 == "华东").map(|r| r.1).sum();
    let row = answer["sample_data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["区域"] == "华东")
        .expect("a 华东 row");
    assert_eq!(row["销售额_sum"].as_f64(), Some(east));
    assert_eq!(answer["total_rows"], 4, "four regions");
    // The document is kept with the step that wrote it, as text.
    let doc = steps[2].document.as_ref().expect("the document's text");
    assert_eq!(doc.path, "output/简报.md");
    assert!(
        doc.text.contains("# 汇总") && doc.text.contains(&format!("{east}")),
        "{}",
        doc.text
    );

    let metrics = run.metrics.as_ref().unwrap();
    assert_eq!(metrics.steps, Some(3));
    assert_eq!(metrics.produced, Some(true));
    assert!(metrics.task_completed());
    // The pack's file is as it was; the run's copy is gone.
    assert_eq!(
        std::fs::read(dir.path().join("tools/ws/sales.xlsx")).unwrap(),
        before
    );
    assert!(!dir.path().join("tools/ws/output").exists());
}

#[tokio::test]
async fn a_figure_no_tool_returned_in_a_document_fails_the_number_gate_at_its_step() {
    let server = StrictServer::start(reporting_agent("\n同比增长 12.5%")).await;
    let tp = platform().await;
    let dir = tempfile::tempdir().unwrap();
    pack_folder(dir.path());
    let (_, run, _) = play_once_in(
        &tp.platform,
        dir.path(),
        PACK,
        &server.base_url(),
        "ws.report",
    )
    .await;
    assert_eq!(run.verdict, Some(Verdict::Failed));
    let gate = run
        .check_results
        .iter()
        .find(|c| c.kind == "no_unverified_numbers")
        .unwrap();
    assert!(!gate.passed);
    assert_eq!(gate.step, Some(3), "the DOC_CREATE step");
    let said = gate.detail.render(agenteval_engine::Lang::Zh);
    assert!(
        said.contains("12.5%") && said.contains("output/简报.md"),
        "{said}"
    );
    // The document was produced: the task is complete, the figure wrong.
    assert_eq!(run.metrics.as_ref().unwrap().produced, Some(true));
}

#[test]
fn the_loader_offers_the_office_tools_and_hashes_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    pack_folder(dir.path());
    std::fs::write(dir.path().join("tools/tools.yaml"), PACK).unwrap();
    let loaded = load_dir(dir.path());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let s = &loaded.scenarios[0];
    let offered: Vec<&str> = s.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(offered.len(), 9, "{offered:?}");
    assert!(offered.contains(&"DATA_QUERY") && offered.contains(&"CONTROL_WAIT"));
    let ws = s.workspace.as_ref().unwrap();
    assert_eq!(ws.folder, "ws");
    assert!(Path::new(&ws.location).join("sales.xlsx").is_file());

    // A changed file is a new version of the scenario.
    let hash = s.content_hash.clone();
    std::fs::write(dir.path().join("tools/ws/notes.md"), "# 备注").unwrap();
    let again = load_dir(dir.path());
    assert_ne!(again.scenarios[0].content_hash, hash);

    // A subset is offered as asked.
    let subset = PACK.replace(
        "workspace: ws",
        "workspace: ws\n    office_tools: [FILE_LIST, DATA_QUERY, DOC_CREATE]",
    );
    std::fs::write(dir.path().join("tools/tools.yaml"), subset).unwrap();
    let names: Vec<String> = load_dir(dir.path()).scenarios[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(names, ["FILE_LIST", "DATA_QUERY", "DOC_CREATE"]);
}

#[test]
fn a_workspace_the_loader_cannot_use_is_refused_by_line() {
    let dir = tempfile::tempdir().unwrap();
    pack_folder(dir.path());
    let refused = |pack: String| {
        std::fs::write(dir.path().join("tools/tools.yaml"), pack).unwrap();
        let loaded = load_dir(dir.path());
        assert!(loaded.scenarios.is_empty(), "nothing half-loaded");
        loaded
            .errors
            .iter()
            .map(|e| e.message.clone())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(
        refused(PACK.replace("workspace: ws", "workspace: gone")).contains("`gone` does not exist")
    );
    assert!(refused(PACK.replace("workspace: ws", "workspace: ../ws")).contains("no `..`"));
    assert!(
        refused(PACK.replace(
            "workspace: ws",
            "workspace: ws\n    office_tools: [FILE_DELETE]"
        ))
        .contains("`FILE_DELETE` is not an office tool")
    );
    let no_workspace = PACK
        .replace("    workspace: ws\n", "")
        .replace("{type: tool_sequence, calls: [{name: FILE_LIST}, {name: DATA_QUERY}, {name: DOC_CREATE}], order: exact}", "{type: contains, value: 汇总}");
    assert!(refused(no_workspace).contains("has no `workspace`"));
}
