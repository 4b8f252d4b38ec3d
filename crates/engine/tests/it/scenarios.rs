//! Tests: scenario packs and the loader.

use agenteval_engine::channel::{ChatMessage, ChatReply, Role, ToolCall};
use agenteval_engine::checks::{TurnContext, check_call, run_checks};
use agenteval_engine::demo_agent::DemoAgent;
use agenteval_engine::domain::steps::{Step, StepAnswer, ToolError};
use agenteval_engine::office::{Workspace, is_office_tool};
use agenteval_engine::scenario::{
    PackSource, Scenario, load_dir, load_dirs, load_sources, pack_sources, scenario_lang,
    user_packs_dir, workspace_source,
};
use std::path::{Path, PathBuf};

fn shipped() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// Runs a scenario's turns through the demo agent and its checks; returns
/// whether every check passed, and the failed details. Tools that declare
/// responses are played as the engine plays them (see
/// `operations/exchange.rs`): every call of a round answered, the target
/// asked again, until it answers in words or reaches the turn's step limit.
/// A scenario with a workspace has its office tools played over a copy of
/// its files, and its checks read the documents and files there.
pub(crate) async fn run_with_demo(s: &Scenario) -> (bool, Vec<String>) {
    run_with(&DemoAgent::new(), s).await
}

/// [`run_with_demo`] with a given demo agent (with flaws or fixes).
pub(crate) async fn run_with(agent: &DemoAgent, s: &Scenario) -> (bool, Vec<String>) {
    let mut history: Vec<ChatMessage> = Vec::new();
    if let Some(system) = &s.system {
        history.push(ChatMessage::system(system.clone()));
    }
    let ws = s.workspace.as_ref().map(|_| {
        let source = workspace_source(s).expect("the workspace's files");
        Workspace::copy_of(&source, scenario_lang(s)).expect("a copy of the workspace")
    });
    let mut failures = Vec::new();
    for (i, turn) in s.turns.iter().enumerate() {
        history.push(ChatMessage::user(turn.user.clone()));
        let asked = history.len();
        let mut steps = Vec::new();
        let mut rounds = 0;
        let r = loop {
            let r = agent.respond(&history, &s.tools);
            let played = s.plays_tools()
                && !r.tool_calls.is_empty()
                && (ws.is_some()
                    || r.tool_calls.iter().all(|c| {
                        check_call(&s.tools, c).map_or(true, |t| !t.responses.is_empty())
                    }));
            if !played || rounds >= s.max_steps(i) {
                break r;
            }
            rounds += 1;
            answer_calls(
                s,
                ws.as_ref(),
                &mut history,
                &r.content,
                &r.tool_calls,
                rounds,
                &mut steps,
            );
        };
        if rounds >= s.max_steps(i) && !r.tool_calls.is_empty() {
            failures.push(format!("turn {i} max_steps: still calling tools"));
        }
        let reply = ChatReply {
            content: r.content.clone(),
            tool_calls: r.tool_calls.clone(),
            usage: Some(r.usage),
            latency_ms: 1,
            model: None,
        };
        // The next turn answers the calls this one ended on.
        let more = i + 1 < s.turns.len() && !r.tool_calls.is_empty();
        let mut carried = history.clone();
        if more {
            answer_calls(
                s,
                ws.as_ref(),
                &mut carried,
                &r.content,
                &r.tool_calls,
                rounds + 1,
                &mut steps,
            );
        }
        let (documents, files) = match &ws {
            Some(w) => (w.documents(), w.files_matching("**/*")),
            None => Default::default(),
        };
        let ctx = TurnContext {
            steps: &steps,
            documents: &documents,
            files: &files,
            scenario: s,
            turn: i,
            history: &history[..asked],
            reply: &if more {
                ChatReply {
                    tool_calls: Vec::new(),
                    ..reply.clone()
                }
            } else {
                reply.clone()
            },
        };
        for res in run_checks(&turn.checks, &ctx, None).await {
            if !res.passed {
                failures.push(format!("turn {i} {}: {}", res.kind, res.detail));
            }
        }
        if more {
            history = carried;
        } else {
            let mut msg = ChatMessage::assistant(r.content);
            msg.tool_calls = r.tool_calls;
            history.push(msg);
        }
    }
    (failures.is_empty(), failures)
}

/// The engine's answer to each call (a declared response, the workspace's
/// office tool, or its own error), added to `history` after the assistant
/// message, kept as steps.
fn answer_calls(
    s: &Scenario,
    ws: Option<&Workspace>,
    history: &mut Vec<ChatMessage>,
    content: &str,
    calls: &[ToolCall],
    round: u32,
    steps: &mut Vec<Step>,
) {
    let mut m = ChatMessage::assistant(content);
    m.tool_calls = calls.to_vec();
    history.push(m);
    for call in calls {
        let mut document = None;
        let answer = match check_call(&s.tools, call) {
            Err(e) => StepAnswer::Error(e),
            Ok(tool) if tool.responses.is_empty() && is_office_tool(&tool.name) && ws.is_some() => {
                let (answer, doc) = ws.expect("a workspace").play(&call.name, &call.arguments);
                document = doc;
                answer
            }
            Ok(tool) => tool
                .responses
                .iter()
                .find(|r| r.matches(&call.arguments))
                .map_or_else(
                    || {
                        StepAnswer::Error(ToolError {
                            code: "NO_RESPONSE".into(),
                            message: format!("`{}` has no result for these arguments.", tool.name),
                            suggestion: String::new(),
                        })
                    },
                    |r| r.answer(),
                ),
        };
        let mut t = ChatMessage::new(Role::Tool, answer.content());
        t.tool_call_id = Some(call.id.clone());
        history.push(t);
        steps.push(Step {
            round,
            call: call.clone(),
            answer,
            latency_ms: 1,
            tokens_in: None,
            tokens_out: None,
            document,
        });
    }
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

const GOOD: &str = "scenarios:
  - id: good.one
    title: One
    turns:
      - user: hello
        checks:
          - type: contains
            value: hi
";

#[test]
fn every_shipped_pack_loads_without_errors() {
    let report = load_dir(&shipped());
    assert!(
        report.errors.is_empty(),
        "shipped packs must be valid: {:?}",
        report.errors
    );
    for pack in ["send_email", "office_agent", "customer_service"] {
        assert!(
            report.scenarios.iter().any(|s| s.pack == pack),
            "pack {pack} is shipped and must contribute scenarios"
        );
    }
    let count = |p: &str| report.scenarios.iter().filter(|s| s.pack == p).count();
    assert!(count("send_email") >= 8, "send_email needs >= 8 scenarios");
    // Seed 002's benchmark in one file, its agent that acts in another.
    let benchmark = |s: &&Scenario| s.source_file.ends_with("office_agent/office_agent.yaml");
    let acting = |s: &&Scenario| s.source_file.ends_with("office_agent/office_tools.yaml");
    assert_eq!(
        report.scenarios.iter().filter(benchmark).count(),
        12,
        "seed 002 has 12 tasks"
    );
    assert_eq!(
        count("office_agent"),
        12 + report.scenarios.iter().filter(acting).count(),
        "the office pack is the benchmark and the acting scenarios"
    );
    assert!(
        report
            .scenarios
            .iter()
            .filter(acting)
            .all(|s| s.plays_tools() && s.group.is_some()),
        "every acting scenario has tools the engine plays, and a group"
    );
    assert!(count("customer_service") >= 6);
    let office: Vec<_> = report.scenarios.iter().filter(benchmark).collect();
    for g in ["basic", "intermediate", "advanced"] {
        assert_eq!(
            office
                .iter()
                .filter(|s| s.group.as_deref() == Some(g))
                .count(),
            4,
            "seed 002 puts 4 tasks in group {g}"
        );
    }
    for s in &report.scenarios {
        assert!(s.source_line >= 1, "{} must know its line", s.id);
        assert_eq!(s.content_hash.len(), 64, "sha256 hex for {}", s.id);
    }
}

#[tokio::test]
async fn demo_agent_passes_most_shipped_scenarios_and_fails_on_its_flaws() {
    let report = load_dir(&shipped());
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let total = report.scenarios.len();
    let mut failed = Vec::new();
    for s in &report.scenarios {
        let (ok, why) = run_with_demo(s).await;
        if !ok {
            failed.push((s.id.clone(), why));
        }
    }
    let passed = total - failed.len();
    assert!(
        passed > 0 && passed < total,
        "the demo must pass some and fail some: {passed}/{total}"
    );
    let failed_ids: Vec<&str> = failed.iter().map(|(id, _)| id.as_str()).collect();
    for flaw in [
        "send_email.change_of_mind",
        "office.sales_trend",
        "cs.two_requests",
        "office.invalid_range_retry",
        "office.quarterly_trend_from_file",
        "office.email_tool_not_offered",
        "office.late_employees",
        "office.contract_clauses",
    ] {
        assert!(
            failed_ids.contains(&flaw),
            "{flaw} exercises a deliberate flaw of the demo agent and must fail"
        );
    }
    assert_eq!(
        failed.len(),
        8,
        "only the deliberate flaws should fail; failures: {failed:#?}"
    );
}

#[test]
fn the_shipped_packs_are_built_in_and_a_folder_replaces_a_pack_by_name() {
    let on_disk = load_dir(&shipped());
    let built_in = load_sources(&[PackSource::Shipped]);
    assert!(built_in.errors.is_empty(), "{:?}", built_in.errors);
    let ids = |r: &agenteval_engine::scenario::LoadReport| {
        let mut v: Vec<String> = r.scenarios.iter().map(|s| s.id.clone()).collect();
        v.sort();
        v
    };
    assert_eq!(
        ids(&built_in),
        ids(&on_disk),
        "the binary holds what scenarios/ holds"
    );
    assert!(
        built_in
            .scenarios
            .iter()
            .all(|s| !s.pack.is_empty() && s.source_file.ends_with(".yaml"))
    );

    // A folder with its own `send_email` pack: that pack replaces the
    // shipped one, the other shipped packs stay.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "send_email/mine.yaml",
        &GOOD.replace("good.one", "mine.send"),
    );
    let mixed = load_sources(&[
        PackSource::Dir(dir.path().to_path_buf()),
        PackSource::Shipped,
    ]);
    assert!(mixed.errors.is_empty(), "{:?}", mixed.errors);
    let send: Vec<&str> = mixed
        .scenarios
        .iter()
        .filter(|s| s.pack == "send_email")
        .map(|s| s.id.as_str())
        .collect();
    assert_eq!(
        send,
        vec!["mine.send"],
        "the folder's pack, not the shipped one"
    );
    let others = |r: &agenteval_engine::scenario::LoadReport| {
        r.scenarios
            .iter()
            .filter(|s| s.pack != "send_email")
            .count()
    };
    assert!(others(&mixed) > 0);
    assert_eq!(
        others(&mixed),
        others(&built_in),
        "every other shipped pack is kept"
    );
}

#[test]
fn the_users_packs_in_the_data_folder_load_and_are_told_apart_from_the_shipped_ones() {
    let data = tempfile::tempdir().unwrap();
    assert_eq!(
        pack_sources(None, data.path()),
        [PackSource::Shipped],
        "no folder of one's own yet: the shipped packs only"
    );
    write(
        &user_packs_dir(data.path()),
        "my_pack/mine.yaml",
        &GOOD.replace("good.one", "mine.own"),
    );
    let extra = tempfile::tempdir().unwrap();
    let sources = pack_sources(Some(extra.path().to_path_buf()), data.path());
    assert_eq!(
        sources,
        [
            PackSource::Dir(extra.path().to_path_buf()),
            PackSource::Dir(data.path().join("scenarios")),
            PackSource::Shipped
        ]
    );
    let loaded = load_sources(&sources);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let own: Vec<(&str, &str)> = loaded
        .scenarios
        .iter()
        .filter(|s| !s.shipped)
        .map(|s| (s.pack.as_str(), s.id.as_str()))
        .collect();
    assert_eq!(
        own,
        [("my_pack", "mine.own")],
        "the user's pack, marked as not shipped"
    );
    let shipped = loaded.scenarios.iter().filter(|s| s.shipped).count();
    assert_eq!(
        shipped,
        load_sources(&[PackSource::Shipped]).scenarios.len()
    );
    let summary = agenteval_engine::scenario::ScenarioSummary::from(&loaded.scenarios[0]);
    assert_eq!(
        summary.shipped, loaded.scenarios[0].shipped,
        "the listing says where it came from"
    );
}

#[test]
fn syntax_error_names_file_and_line_and_imports_nothing_from_it() {
    let dir = tempfile::tempdir().expect("tmp");
    write(dir.path(), "pack/good.yaml", GOOD);
    write(
        dir.path(),
        "pack/broken.yaml",
        "scenarios:\n  - id: broken.one\n    title: One\n    turns:\n      - user: [unclosed\n",
    );
    let report = load_dir(dir.path());
    assert_eq!(report.files, 2);
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    let e = &report.errors[0];
    assert!(e.file.ends_with("broken.yaml"), "names the file: {e}");
    assert!(
        (5..=6).contains(&e.line),
        "the unclosed flow sequence starts on line 5: {e}"
    );
    assert!(report.scenarios.iter().all(|s| s.id != "broken.one"));
    assert_eq!(report.scenarios.len(), 1, "the good file still loads");
    assert_eq!(report.scenarios[0].pack, "pack");
    assert_eq!(report.scenarios[0].source_file, "pack/good.yaml");
}

#[test]
fn unknown_check_type_is_named_with_its_line() {
    let dir = tempfile::tempdir().expect("tmp");
    write(
        dir.path(),
        "p/f.yaml",
        "scenarios:
  - id: a.first
    title: First
    turns:
      - user: hi
        checks:
          - type: contains
            value: x
  - id: a.second
    title: Second
    turns:
      - user: hi
        checks:
          - type: sounds_polite
",
    );
    let report = load_dir(dir.path());
    assert!(
        report.scenarios.is_empty(),
        "a file with an error contributes nothing, not even its valid first scenario"
    );
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    let e = &report.errors[0];
    assert!(e.message.contains("sounds_polite"), "names the type: {e}");
    assert!(e.file.ends_with("f.yaml"));
    assert!(
        (13..=15).contains(&e.line),
        "the bad check is on line 14: {e}"
    );
}

#[test]
fn unknown_field_is_refused() {
    let dir = tempfile::tempdir().expect("tmp");
    write(
        dir.path(),
        "p/f.yaml",
        "scenarios:\n  - id: a.one\n    title: One\n    turns:\n      - user: hi\n        check:\n          - type: contains\n            value: x\n",
    );
    let report = load_dir(dir.path());
    assert!(report.scenarios.is_empty());
    assert_eq!(report.errors.len(), 1);
    assert!(
        report.errors[0].message.contains("check"),
        "a typo'd key must be named: {}",
        report.errors[0]
    );
}

#[test]
fn duplicate_id_across_files_refuses_the_second_file() {
    let dir = tempfile::tempdir().expect("tmp");
    write(dir.path(), "a/first.yaml", GOOD);
    write(
        dir.path(),
        "b/second.yaml",
        "scenarios:\n  - id: other.ok\n    title: Ok\n    turns:\n      - user: hi\n\n  - id: good.one\n    title: Again\n    turns:\n      - user: hi\n",
    );
    let report = load_dir(dir.path());
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    let e = &report.errors[0];
    assert!(e.file.ends_with("second.yaml"), "{e}");
    assert_eq!(e.line, 7, "the repeated id is on line 7: {e}");
    assert!(e.message.contains("good.one") && e.message.contains("first.yaml"));
    let ids: Vec<&str> = report.scenarios.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(
        ids,
        vec!["good.one"],
        "other.ok comes from the refused file and must not be imported"
    );
}

#[test]
fn duplicate_id_across_roots_is_refused() {
    let a = tempfile::tempdir().expect("tmp");
    let b = tempfile::tempdir().expect("tmp");
    write(a.path(), "p/x.yaml", GOOD);
    write(b.path(), "q/y.yaml", GOOD);
    let report = load_dirs(&[a.path().to_path_buf(), b.path().to_path_buf()]);
    assert_eq!(report.scenarios.len(), 1);
    assert_eq!(report.errors.len(), 1);
}

#[test]
fn semantic_errors_point_at_the_offending_check() {
    let dir = tempfile::tempdir().expect("tmp");
    write(
        dir.path(),
        "p/f.yaml",
        r#"scenarios:
  - id: s.one
    title: One
    turns:
      - user: hi
        checks:
          - type: contains
            value: x
          - type: regex
            pattern: "([a-z"
      - user: again
        checks:
          - type: json_path
            path: "$[?"
          - type: rubric
            rubric: polite
            min_score: 9
          - type: tool_called
            name: send_email
  - id: s.two
    title: Two
    turns: []
"#,
    );
    let report = load_dir(dir.path());
    assert!(report.scenarios.is_empty());
    let lines: Vec<(u32, &str)> = report
        .errors
        .iter()
        .map(|e| (e.line, e.message.as_str()))
        .collect();
    let find = |kind: &str| {
        lines
            .iter()
            .find(|(_, m)| m.contains(kind))
            .unwrap_or_else(|| panic!("an error about {kind} in {lines:?}"))
            .0
    };
    assert_eq!(find("regex check"), 9, "bad regex is on line 9");
    assert_eq!(find("json_path check"), 13, "bad JSONPath is on line 13");
    assert_eq!(find("min_score"), 15, "bad rubric is on line 15");
    assert_eq!(find("tool_called check"), 18, "unoffered tool on line 18");
    assert_eq!(find("no turns"), 20, "empty turns at the scenario, line 20");
}

#[test]
fn defaults_are_inherited_and_the_hash_ignores_location() {
    let dir = tempfile::tempdir().expect("tmp");
    let text = "defaults:\n  tags: [base]\n  system: be brief\n  facts: [\"price: 10\"]\nscenarios:\n  - id: d.one\n    title: One\n    tags: [extra]\n    turns:\n      - user: hi\n";
    write(dir.path(), "p/one.yaml", text);
    write(dir.path(), "q/other.yaml", &text.replace("d.one", "d.two"));
    let report = load_dir(dir.path());
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let one = &report.scenarios[0];
    assert_eq!(one.tags, vec!["base", "extra"]);
    assert_eq!(one.system.as_deref(), Some("be brief"));
    assert_eq!(one.facts, vec!["price: 10"]);
    assert_ne!(
        report.scenarios[0].content_hash, report.scenarios[1].content_hash,
        "different ids are different definitions"
    );
    write(dir.path(), "moved/elsewhere.yaml", text);
    std::fs::remove_file(dir.path().join("p/one.yaml")).expect("rm");
    let moved = load_dir(dir.path());
    let moved_one = moved
        .scenarios
        .iter()
        .find(|s| s.id == "d.one")
        .expect("still loads");
    assert_eq!(moved_one.pack, "moved");
    assert_eq!(
        moved_one.content_hash, one.content_hash,
        "moving a file to another pack keeps the definition's hash"
    );
    let again = load_dir(dir.path());
    assert_eq!(
        again
            .scenarios
            .iter()
            .find(|s| s.id == "d.one")
            .map(|s| &s.content_hash),
        Some(&one.content_hash),
        "the hash is stable"
    );
}

#[tokio::test]
async fn platform_loads_into_catalog_and_table() {
    let t = crate::support::platform().await;
    let report = t.platform.load_scenarios(&[shipped()]).await.expect("load");
    assert!(report.errors.is_empty());
    let list = t.platform.list_scenarios();
    assert_eq!(list.len(), report.scenarios.len());
    assert!(list.iter().any(|s| s.id == "send_email.happy_path"));
    let stored: i64 = t.platform.inspect().scenario_count().await.expect("count");
    assert_eq!(
        stored as usize,
        list.len(),
        "every loaded scenario is stored"
    );
    // Loading again upserts instead of duplicating.
    t.platform
        .load_scenarios(&[shipped()])
        .await
        .expect("reload");
    let stored_again: i64 = t.platform.inspect().scenario_count().await.expect("count");
    assert_eq!(stored_again, stored);
}
