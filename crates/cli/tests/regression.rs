//! `agenteval scenarios from-session`: the demo's "stated a figure (12.5)"
//! session becomes a regression scenario (its user turns up to the finding,
//! a number gate on the flagged reply, its lineage), a pack that `scenarios
//! check` accepts and that fails against the demo agent, which still
//! invents the figure.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_agenteval"));
    for role in ["USER", "JUDGE", "ANALYST"] {
        for field in ["BASE_URL", "MODEL", "API_KEY"] {
            c.env_remove(format!("AGENTEVAL_{role}_{field}"));
        }
    }
    c.env("LANG", "C");
    c
}

fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

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
            l.trim()
                .strip_prefix("campaign:")
                .map(|s| s.trim().to_string())
        })
        .find(|s| s.len() == 36)
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
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).expect("project");
    std::fs::write(
        project.join("agenteval.yaml"),
        format!(
            "name: regression\ntarget:\n  kind: builtin\n  agent: demo\nscenarios:\n  paths: [{}]\nplan:\n  repeat: 1\ngate:\n  min_pass_rate: 1.0\n",
            packs.display()
        ),
    )
    .expect("config");
    let run = bin()
        .current_dir(&project)
        .args(["run", "--data-dir"])
        .arg(dir.path().join("run-data"))
        .output()
        .expect("run");
    assert_eq!(
        run.status.code(),
        Some(1),
        "the gate fails: {}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let result: Value = serde_json::from_str(
        &std::fs::read_to_string(project.join("agenteval-out/report.json")).expect("report.json"),
    )
    .expect("JSON");
    let failing = &result["fixed"]["per_scenario"][0];
    assert_eq!(failing["tally"]["failed"], 1, "{failing}");
    assert_eq!(
        failing["failing_checks"][0]["kind"],
        "no_unverified_numbers"
    );
}
