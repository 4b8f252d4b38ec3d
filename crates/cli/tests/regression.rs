//! `agenteval scenarios from-session`: the demo's "stated a figure (12.5)"
//! session becomes a regression scenario (its user turns up to the finding,
//! a number gate on the flagged reply, its lineage), a pack that `scenarios
//! check` accepts, that fails against the demo agent, which still
//! invents the figure, and passes against `agenteval demo-target --fix
//! invented-figure`, the release that fixed it.

use serde_json::Value;
use std::path::Path;

mod support;

use support::{DemoTarget, bin, ok};

/// The demo's campaign id, from its summary.
fn demo(data: &Path) -> String {
    let stdout = ok(
        bin()
            .args(["demo", "--seconds", "2", "--data-dir"])
            .arg(data)
            .arg("--out")
            .arg(data.join("demo.md"))
            .output()
            .expect("demo"),
        "demo",
    );
    stdout
        .lines()
        .filter_map(|l| {
            // "campaign:" in English, "活动：" in Chinese: the id ends the line.
            l.split_whitespace()
                .last()
                .filter(|w| uuid::Uuid::parse_str(w).is_ok())
                .map(str::to_string)
        })
        .next()
        .expect("the demo names its campaign")
}

#[test]
fn an_invented_figure_becomes_a_regression_scenario_that_the_flawed_agent_fails() {
    let dir = tempfile::tempdir().expect("tmp");
    let data = dir.path().join("data");
    let campaign = demo(&data);
    let report: Value = serde_json::from_str(&ok(
        bin()
            .args([
                "export",
                "--format",
                "json",
                "--campaign",
                &campaign,
                "--data-dir",
            ])
            .arg(&data)
            .output()
            .expect("export"),
        "export",
    ))
    .expect("the JSON export");
    let finding = report["exploration"]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["text"]["key"] == "judge-invented-figure")
        .expect("the demo's judge finds the invented 12.5");
    let session = finding["session_id"].as_str().expect("session id");
    let turn = finding["turn"].as_u64().expect("at a turn");

    // Drafted into a pack folder of its own.
    let packs = dir.path().join("packs");
    let said = ok(
        bin()
            .args(["scenarios", "from-session", session, "--data-dir"])
            .arg(&data)
            .arg("--out")
            .arg(&packs)
            .output()
            .expect("from-session"),
        "from-session",
    );
    assert!(
        said.contains("12.5"),
        "it says what it guards against: {said}"
    );
    let files: Vec<_> = std::fs::read_dir(packs.join("regressions"))
        .expect("the regressions pack")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let yaml = std::fs::read_to_string(&files[0]).expect("the pack file");
    let file: Value = serde_yaml_ng::from_str(&yaml).expect("YAML");
    let scenario = &file["scenarios"][0];
    let turns = scenario["turns"].as_array().expect("turns");
    assert_eq!(
        turns.len() as u64,
        turn,
        "the user's turns up to the finding: {yaml}"
    );
    assert_eq!(
        turns.last().unwrap()["checks"][0]["type"],
        "no_unverified_numbers",
        "{yaml}"
    );
    assert_eq!(scenario["lineage"]["session_id"], session);
    assert_eq!(scenario["lineage"]["campaign_id"], campaign.as_str());
    assert_eq!(scenario["lineage"]["turn"], turn);
    ok(
        bin()
            .args(["scenarios", "check"])
            .arg(&packs)
            .output()
            .expect("check"),
        "scenarios check accepts the drafted pack",
    );

    // Run against the demo agent, which still invents the figure: it fails.
    let flawed = run_pack(
        &dir.path().join("flawed"),
        &dir.path().join("flawed-data"),
        &packs,
        "  kind: builtin\n  agent: demo",
    );
    assert_eq!(flawed.status, Some(1), "the gate fails: {}", flawed.log);
    let failing = &flawed.report["fixed"]["per_scenario"][0];
    assert_eq!(failing["tally"]["failed"], 1, "{failing}");
    assert_eq!(
        failing["failing_checks"][0]["kind"],
        "no_unverified_numbers"
    );

    // The release that fixed it passes the same scenario.
    let fixed_agent = DemoTarget::start(&["--fix", "invented-figure"]);
    let fixed = run_pack(
        &dir.path().join("fixed"),
        &dir.path().join("fixed-data"),
        &packs,
        &format!(
            "  kind: openai\n  base_url: http://127.0.0.1:{}/v1\n  model: agenteval-demo",
            fixed_agent.port
        ),
    );
    assert_eq!(fixed.status, Some(0), "the gate passes: {}", fixed.log);
    let passing = &fixed.report["fixed"]["per_scenario"][0];
    assert_eq!(passing["tally"]["passed"], 1, "{passing}");
    assert_eq!(passing["scenario_id"], failing["scenario_id"]);

    // Saved among the data folder's packs (no --out), it joins every run of
    // the demo's target in that folder, beside what the project selects.
    ok(
        bin()
            .args(["scenarios", "from-session", session, "--data-dir"])
            .arg(&data)
            .output()
            .expect("from-session"),
        "from-session into the data folder",
    );
    let smoke = dir.path().join("smoke");
    std::fs::create_dir_all(smoke.join("smoke")).expect("smoke pack");
    std::fs::write(
        smoke.join("smoke/hello.yaml"),
        "scenarios:\n  - id: smoke.hello\n    title: Hello\n    turns:\n      - user: 你好\n",
    )
    .expect("smoke scenario");
    let target_name = report["target_name"].as_str().expect("the demo's target");
    let guarded = run_pack(
        &dir.path().join("guarded"),
        &data,
        &smoke,
        &format!("  name: {target_name}\n  kind: builtin\n  agent: demo"),
    );
    assert!(
        guarded.log.contains("found by exploration, now guarded"),
        "{}",
        guarded.log
    );
    let ran: Vec<&str> = guarded.report["fixed"]["per_scenario"]
        .as_array()
        .expect("per scenario")
        .iter()
        .filter_map(|s| s["scenario_id"].as_str())
        .collect();
    assert!(ran.contains(&"smoke.hello"), "{ran:?}");
    assert!(
        ran.contains(&failing["scenario_id"].as_str().expect("id")),
        "the promoted scenario ran too: {ran:?}"
    );
    assert_eq!(
        guarded.report["guarded"][0]["scenario_id"], failing["scenario_id"],
        "{}",
        guarded.report["guarded"]
    );
}

struct RunOutcome {
    status: Option<i32>,
    log: String,
    report: Value,
}

/// `agenteval run` of the pack folder `packs` against `target` (the YAML
/// lines under `target:`), in the project folder `project` on the data
/// folder `data`.
fn run_pack(project: &Path, data: &Path, packs: &Path, target: &str) -> RunOutcome {
    std::fs::create_dir_all(project).expect("project");
    std::fs::write(
        project.join("agenteval.yaml"),
        format!(
            "name: regression\ntarget:\n{target}\nscenarios:\n  paths: [{}]\nplan:\n  repeat: 1\ngate:\n  min_pass_rate: 1.0\n",
            packs.display()
        ),
    )
    .expect("config");
    let run = bin()
        .current_dir(project)
        .args(["run", "--data-dir"])
        .arg(data)
        .output()
        .expect("run");
    let report = std::fs::read_to_string(project.join("agenteval-out/report.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    RunOutcome {
        status: run.status.code(),
        log: format!(
            "{}\n{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        ),
        report,
    }
}
