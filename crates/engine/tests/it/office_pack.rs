//! The office pack's twelve tasks (`scenarios/office_agent/office_agent.yaml`)
//! played by the built-in demo agent over copies of the shipped workspaces,
//! every call answered by the engine's office tools for real. The file is
//! read as plain YAML (its ask, workspace, tools and checks), and its checks
//! are read here the way the scenario format defines them, so that the
//! pack's expected figures, the fixtures and the demo agent are held to one
//! another: the agent passes every task but its three deliberate flaws,
//! each failing the one check that catches it.

use agenteval_engine::Lang;
use agenteval_engine::channel::{ChatMessage, Role, ToolSpec};
use agenteval_engine::checks::canonical_numbers;
use agenteval_engine::demo_agent::{DemoAgent, Fix};
use agenteval_engine::domain::steps::{StepAnswer, is_subset};
use agenteval_engine::office::{Workspace, WorkspaceSource, office_tool_specs};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn pack_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/office_agent")
}

fn pack() -> Value {
    let text = std::fs::read_to_string(pack_dir().join("office_agent.yaml")).expect("the pack");
    serde_yaml_ng::from_str(&text).expect("YAML")
}

/// One played turn: the calls with their answers, the reply, the copy of
/// the workspace it worked in.
struct Played {
    offered: Vec<ToolSpec>,
    calls: Vec<(String, Value, StepAnswer)>,
    reply: String,
    sources: String,
    ws: Workspace,
}

fn play(agent: &DemoAgent, system: &str, s: &Value) -> Played {
    let dir = pack_dir().join(s["workspace"].as_str().expect("a workspace"));
    let ws = Workspace::copy_of(&WorkspaceSource::Dir(dir), Lang::Zh).expect("a copy");
    let names: Vec<String> = s["office_tools"]
        .as_array()
        .expect("office_tools")
        .iter()
        .filter_map(|n| n.as_str().map(str::to_string))
        .collect();
    let offered = office_tool_specs(Some(&names), Lang::Zh);
    let ask = s["turns"][0]["user"].as_str().expect("an ask");
    let mut history = vec![ChatMessage::system(system), ChatMessage::user(ask)];
    let mut calls = Vec::new();
    let mut sources = format!("{system}\n{ask}\n");
    for _ in 0..10 {
        let r = agent.respond(&history, &offered);
        if r.tool_calls.is_empty() {
            return Played {
                offered,
                calls,
                reply: r.content,
                sources,
                ws,
            };
        }
        let mut m = ChatMessage::assistant(r.content.clone());
        m.tool_calls = r.tool_calls.clone();
        history.push(m);
        for c in &r.tool_calls {
            let (answer, _) = ws.play(&c.name, &c.arguments);
            let text = answer.content();
            sources.push_str(&text);
            sources.push('\n');
            let mut t = ChatMessage::new(Role::Tool, text);
            t.tool_call_id = Some(c.id.clone());
            history.push(t);
            calls.push((c.name.clone(), c.arguments.clone(), answer));
        }
    }
    panic!("{} still calls tools after 10 rounds", s["id"]);
}

fn texts(check: &Value) -> Vec<String> {
    check["value"]
        .as_str()
        .map(str::to_string)
        .into_iter()
        .chain(
            check["any"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string)),
        )
        .collect()
}

fn sequence(p: &Played, check: &Value) -> bool {
    let want: Vec<&Value> = check["calls"].as_array().expect("calls").iter().collect();
    let matches = |(name, args, _): &(String, Value, StepAnswer), w: &Value| {
        *name == w["name"] && (w["arguments"].is_null() || is_subset(&w["arguments"], args))
    };
    match check["order"].as_str().unwrap_or("in_order") {
        "exact" => {
            p.calls.len() == want.len() && p.calls.iter().zip(&want).all(|(c, w)| matches(c, w))
        }
        "any_order" => want.iter().all(|w| p.calls.iter().any(|c| matches(c, w))),
        _ => {
            let mut next = 0;
            for c in &p.calls {
                if next < want.len() && matches(c, want[next]) {
                    next += 1;
                }
            }
            next == want.len()
        }
    }
}

/// Whether `check` (one of the pack's) holds for the played turn.
fn passes(p: &Played, check: &Value) -> bool {
    let lower = p.reply.to_lowercase();
    match check["type"].as_str().expect("a type") {
        "contains" => texts(check)
            .iter()
            .any(|t| lower.contains(&t.to_lowercase())),
        "not_contains" => !texts(check)
            .iter()
            .any(|t| lower.contains(&t.to_lowercase())),
        "regex" => regex::Regex::new(check["pattern"].as_str().unwrap())
            .unwrap()
            .is_match(&p.reply),
        "tool_called" => p.calls.iter().any(|(n, args, _)| {
            *n == check["name"]
                && check
                    .get("arguments_schema")
                    .is_none_or(|schema| jsonschema::validator_for(schema).unwrap().is_valid(args))
        }),
        "tool_not_called" => !p.calls.iter().any(|(n, _, _)| *n == check["name"]),
        "tool_sequence" => sequence(p, check),
        "no_unknown_tools" => p
            .calls
            .iter()
            .all(|(n, _, _)| p.offered.iter().any(|t| t.name == *n)),
        "recovers_from_error" => p.calls.iter().enumerate().all(|(i, (n, args, answer))| {
            answer.error().is_none()
                || !p.calls[i + 1..].iter().any(|(m, a, _)| m == n && a == args)
        }),
        "document" => {
            let glob = globset::Glob::new(check["path"].as_str().unwrap())
                .unwrap()
                .compile_matcher();
            p.ws.documents().iter().any(|d| {
                glob.is_match(&d.path)
                    && check["contains"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .all(|t| d.text.contains(t.as_str().unwrap()))
                    && check["sections"].as_array().into_iter().flatten().all(|s| {
                        d.text.lines().any(|l| {
                            l.starts_with('#')
                                && l.trim_start_matches('#').trim() == s.as_str().unwrap()
                        })
                    })
            })
        }
        "file_exists" => !p
            .ws
            .files_matching(check["path"].as_str().unwrap())
            .is_empty(),
        "no_unverified_numbers" => {
            let sources = canonical_numbers(&p.sources);
            let docs: String = p.ws.documents().iter().map(|d| d.text.clone()).collect();
            canonical_numbers(&format!("{}\n{docs}", p.reply))
                .iter()
                .all(|n| sources.contains(n))
        }
        other => panic!("a check this test does not read: {other}"),
    }
}

/// The failed checks of each task, by type.
fn failures(agent: &DemoAgent) -> Vec<(String, Vec<String>)> {
    let pack = pack();
    let system = pack["defaults"]["system"]
        .as_str()
        .expect("a system prompt");
    let mut out = Vec::new();
    for s in pack["scenarios"].as_array().expect("scenarios") {
        let p = play(agent, system, s);
        let failed: Vec<String> = s["turns"][0]["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .filter(|c| !passes(&p, c))
            .map(|c| c["type"].as_str().unwrap_or_default().to_string())
            .collect();
        out.push((s["id"].as_str().unwrap_or_default().to_string(), failed));
    }
    out
}

#[test]
fn the_demo_agent_does_the_twelve_tasks_over_the_shipped_files_but_for_its_three_flaws() {
    let pack = pack();
    let groups: Vec<&str> = pack["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["group"].as_str())
        .collect();
    for g in ["basic", "intermediate", "advanced"] {
        assert_eq!(groups.iter().filter(|x| **x == g).count(), 4, "{g}");
    }
    let failed: Vec<(String, Vec<String>)> = failures(&DemoAgent::new())
        .into_iter()
        .filter(|(_, f)| !f.is_empty())
        .collect();
    let want = |id: &str, kind: &str| (id.to_string(), vec![kind.to_string()]);
    assert_eq!(
        failed,
        [
            want("office.sales_trend", "no_unverified_numbers"),
            want("office.contract_clauses", "document"),
            want("office.late_employees", "not_contains"),
        ],
        "only the deliberate flaws fail, each on its one check"
    );
    let fixed = failures(&DemoAgent::new().fixing(&[Fix::InventedFigure]));
    assert!(
        fixed
            .iter()
            .any(|(id, f)| id == "office.sales_trend" && f.is_empty()),
        "fixed, the trend report holds only the tool's figures: {fixed:?}"
    );
}

#[test]
fn the_sales_figures_are_the_sheets_with_the_total_row_left_out() {
    let pack = pack();
    let s = pack["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "office.top3_regions")
        .expect("top 3");
    let p = play(&DemoAgent::new(), "", s);
    let names: Vec<&str> = p.calls.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "DATA_QUERY",
            "FILE_LIST",
            "DATA_QUERY",
            "DATA_QUERY",
            "DOC_CREATE"
        ]
    );
    assert_eq!(
        p.calls[0].2.error().map(|e| e.code.as_str()),
        Some("FILE_NOT_FOUND")
    );
    let StepAnswer::Result(sums) = &p.calls[3].2 else {
        panic!("the grouped query answered: {:?}", p.calls[3].2);
    };
    assert_eq!(
        sums["sample_data"],
        json!([
            {"区域": "华东", "销售额_sum": 2378}, {"区域": "华南", "销售额_sum": 2250},
            {"区域": "华北", "销售额_sum": 1941}, {"区域": "西南", "销售额_sum": 1448},
            {"区域": "东北", "销售额_sum": 925}
        ]),
        "华东's merged cells count for 华东, the 合计 row for no region"
    );
    let doc = p.ws.documents();
    assert_eq!(doc.len(), 1);
    assert!(doc[0].text.contains("1. 华东：2378"), "{}", doc[0].text);
}

/// The packs built into the binary carry the workspaces too: a shipped
/// scenario's copy holds its folder's files at the workspace's root, the
/// same files (by hash) as the folder on disk.
#[test]
fn a_shipped_workspace_is_copied_from_the_binary_at_its_own_root() {
    use agenteval_engine::scenario::{PackSource, load_dir, load_sources, workspace_source};
    let find = |r: &agenteval_engine::scenario::LoadReport| {
        r.scenarios
            .iter()
            .find(|s| s.id == "office.weekly_merge")
            .cloned()
            .expect("shipped")
    };
    let built_in = find(&load_sources(&[PackSource::Shipped]));
    let on_disk = find(&load_dir(&pack_dir().join("..")));
    let source = workspace_source(&built_in).expect("the embedded files");
    assert!(matches!(source, WorkspaceSource::Embedded(_)));
    let ws = Workspace::copy_of(&source, Lang::Zh).expect("a copy");
    assert_eq!(
        ws.files_matching("**/*"),
        [
            "市场部周报.md",
            "测试部周报.md",
            "研发部周报.docx",
            "设计部周报.md",
            "运维部周报.txt"
        ]
    );
    assert_eq!(
        built_in.workspace.as_ref().map(|w| &w.files_hash),
        on_disk.workspace.as_ref().map(|w| &w.files_hash),
        "the binary holds the folder's files"
    );
}
