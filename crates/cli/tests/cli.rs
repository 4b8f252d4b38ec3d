//! The `agenteval` binary, run as a user runs it.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agenteval"))
}

fn repo_scenarios() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

#[test]
fn demo_runs_offline_and_writes_a_report_with_a_meaningful_pass_rate() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report.md");
    let output = bin()
        .args(["demo", "--seconds", "2", "--data-dir"])
        .arg(dir.path())
        .arg("--out")
        .arg(&out)
        .arg("--scenarios")
        .arg(repo_scenarios())
        .env_remove("AGENTEVAL_API_KEY")
        .output()
        .expect("run agenteval demo");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "demo failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("report:"),
        "it says where the report is: {stdout}"
    );
    assert!(
        dir.path().join("agenteval.db").is_file(),
        "the database is in the data folder"
    );
    let md = std::fs::read_to_string(&out).expect("report written");
    let rate_line = md
        .lines()
        .find(|l| l.starts_with("**Pass rate:"))
        .expect("pass rate line");
    let rate: f64 = rate_line
        .trim_start_matches("**Pass rate: ")
        .split('%')
        .next()
        .and_then(|s| s.parse().ok())
        .expect("a percentage");
    assert!(
        rate > 0.0 && rate < 100.0,
        "the demo agent's strengths pass and its flaws fail: {rate}%"
    );
    assert!(
        md.contains("no_unverified_numbers"),
        "the invented trend number is caught"
    );
    assert!(
        stdout.contains("exploration:"),
        "the demo explores too: {stdout}"
    );
    let analysis = md.find("## Appendix: Analysis").expect("analysis appendix");
    let findings = md
        .find("## Appendix: Exploration findings")
        .expect("exploration findings");
    assert!(analysis < findings, "appendices come in order");
    assert!(
        md.contains("| Goal achievement |"),
        "an achievement rate is reported"
    );
    assert!(
        md.contains("### Judge findings"),
        "judge reviews are reported"
    );
    assert!(
        md.contains("(#session-"),
        "findings link to their transcripts"
    );
}

#[test]
fn export_regenerates_from_stored_data_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let status = bin()
        .args(["demo", "--seconds", "1", "--data-dir"])
        .arg(dir.path())
        .arg("--scenarios")
        .arg(repo_scenarios())
        .output()
        .unwrap();
    assert!(status.status.success());
    let md = std::fs::read_to_string(dir.path().join("demo-report.md")).unwrap();
    let id = md
        .lines()
        .find(|l| l.starts_with("| Campaign id |"))
        .and_then(|l| l.split('`').nth(1))
        .expect("campaign id in the report")
        .to_string();
    for (format, probe) in [
        ("md", "# Campaign report"),
        ("json", "\"fixed\""),
        ("csv", "run_id,scenario_id"),
        ("junit", "<testsuites"),
    ] {
        let out = bin()
            .args([
                "export",
                "--campaign",
                &id,
                "--format",
                format,
                "--data-dir",
            ])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "export {format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(probe),
            "{format} export looks like {format}"
        );
    }
    let regenerated = bin()
        .args(["export", "--campaign", &id, "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&regenerated.stdout);
    assert_eq!(
        text.lines()
            .filter(|l| !l.starts_with("| Generated"))
            .collect::<Vec<_>>(),
        md.lines()
            .filter(|l| !l.starts_with("| Generated"))
            .collect::<Vec<_>>(),
        "the export is regenerated from stored data"
    );
    let missing = bin()
        .args([
            "export",
            "--campaign",
            "01900000-0000-7000-8000-000000000000",
            "--data-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!missing.status.success(), "an unknown campaign is an error");
    assert!(String::from_utf8_lossy(&missing.stderr).contains("does not exist"));
}
