//! `agenteval init`, `run` and `compare` end to end: the binary against
//! `agenteval demo-target` on 127.0.0.1, as a CI job runs them.

use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

use support::{DemoTarget, bin};

/// A project folder made by `agenteval init`, pointed at `port`.
fn project(port: u16) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tmp");
    let out = bin()
        .args(["init", "--dir"])
        .arg(dir.path())
        .output()
        .expect("init");
    assert!(out.status.success(), "init: {out:?}");
    let config = dir.path().join("agenteval.yaml");
    let text = std::fs::read_to_string(&config).expect("config written");
    assert!(
        text.contains("127.0.0.1:8788"),
        "the starter points at the demo target"
    );
    std::fs::write(
        &config,
        text.replace("127.0.0.1:8788", &format!("127.0.0.1:{port}")),
    )
    .expect("write config");
    dir
}

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(dir: &Path, args: &[&str]) -> Outcome {
    run_with_env(dir, args, &[])
}

fn run_with_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let out = bin()
        .envs(env.iter().copied())
        .current_dir(dir)
        .args(["run", "--data-dir", "data"])
        .args(args)
        .output()
        .expect("run agenteval run");
    Outcome {
        code: out.status.code().expect("exit code"),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

#[test]
fn the_gate_passes_at_a_rate_the_demo_agent_meets_and_fails_above_it() {
    let target = DemoTarget::start(&[]);
    let dir = project(target.port);
    let met = run(dir.path(), &["--repeat", "1", "--min-pass-rate", "0.7"]);
    assert_eq!(met.code, 0, "{met:?}");
    assert!(met.stdout.contains("pass rate:   80.0%"), "{met:?}");
    assert!(met.stdout.contains("Gate passed"), "{met:?}");
    assert!(
        met.stderr.contains("runs 5/5"),
        "progress goes to stderr as plain lines when it is not a terminal: {met:?}"
    );
    for name in ["report.md", "report.json", "junit.xml"] {
        assert!(
            dir.path().join("agenteval-out").join(name).is_file(),
            "{name} exported to the default out_dir"
        );
    }
    let missed = run(
        dir.path(),
        &[
            "--repeat",
            "1",
            "--min-pass-rate",
            "0.9",
            "--out-dir",
            "strict",
        ],
    );
    assert_eq!(missed.code, 1, "{missed:?}");
    assert!(
        missed
            .stdout
            .contains("Gate failed: the pass rate 80.0% is below the minimum 90.0%"),
        "{missed:?}"
    );
    assert!(
        dir.path().join("strict/junit.xml").is_file(),
        "--out-dir is used"
    );
}

#[test]
fn a_flaw_fails_against_the_baseline_and_a_clean_rerun_is_within_noise() {
    let clean = DemoTarget::start(&[]);
    let dir = project(clean.port);
    let first = run(dir.path(), &["--repeat", "2", "--out-dir", "base"]);
    assert_eq!(first.code, 0, "{first:?}");
    let baseline = "base/report.json";

    // The same config against a target with a bug: the config's port
    // changes, everything else stays.
    let flawed = DemoTarget::start(&["--flaw", "refund-days"]);
    let config = dir.path().join("agenteval.yaml");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(
        &config,
        text.replace(
            &format!("127.0.0.1:{}", clean.port),
            &format!("127.0.0.1:{}", flawed.port),
        ),
    )
    .expect("write");
    let bad = run(
        dir.path(),
        &[
            "--repeat",
            "2",
            "--min-pass-rate",
            "0",
            "--baseline",
            baseline,
            "--out-dir",
            "flawed",
        ],
    );
    assert_eq!(bad.code, 1, "{bad:?}");
    assert!(
        bad.stdout.contains(
            "Gate failed: 1 scenario always passed in the baseline and now always fails: starter.refund_zh"
        ),
        "the regressed scenario is named: {bad:?}"
    );
    assert!(
        bad.stdout
            .contains("regressed (always passed, now always fail): starter.refund_zh"),
        "{bad:?}"
    );

    std::fs::write(&config, text).expect("back to the clean target");
    let again = run(
        dir.path(),
        &[
            "--repeat",
            "2",
            "--baseline",
            baseline,
            "--out-dir",
            "again",
        ],
    );
    assert_eq!(again.code, 0, "{again:?}");
    assert!(
        again.stdout.contains("is within noise"),
        "a clean rerun is within noise: {again:?}"
    );

    // The same comparisons for scripts, from the exports and by campaign id.
    let compare = |a: &str, b: &str| {
        let out = bin()
            .current_dir(dir.path())
            .args(["compare", a, b, "--data-dir", "data"])
            .output()
            .expect("compare");
        (
            out.status.code().expect("code"),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, text) = compare(baseline, "flawed/report.json");
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("starter.refund_zh") && text.contains("95% interval"),
        "{text}"
    );
    assert!(
        text.contains("pass^2"),
        "pass^k where scenarios repeat: {text}"
    );
    let id = |file: &str| {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join(file)).expect("read"))
                .expect("json");
        v["campaign"]["id"].as_str().expect("id").to_string()
    };
    let (code, text) = compare(&id(baseline), &id("again/report.json"));
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("within noise"), "{text}");
}

#[test]
fn a_flaky_behaviour_is_reported_as_flaky_and_junit_counts_what_the_summary_says() {
    let target = DemoTarget::start(&["--flaky", "opening-hours"]);
    let dir = project(target.port);
    let out = run(dir.path(), &["--repeat", "2", "--min-pass-rate", "0.5"]);
    assert_eq!(out.code, 0, "flaky alone does not fail the gate: {out:?}");
    assert!(
        out.stdout
            .contains("flaky:       starter.opening_hours (1 of 2 runs passed)"),
        "{out:?}"
    );
    assert!(
        out.stdout.contains("flaky, not failing the gate"),
        "{out:?}"
    );

    // The summary's counts ...
    let line = out
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("scenarios:"))
        .expect("scenarios line");
    let numbers: Vec<u32> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    let [total, passed, failed, flaky, errors] = numbers[..] else {
        panic!("unexpected summary line {line}");
    };
    assert_eq!((total, flaky), (5, 1), "{line}");

    // ... are the JUnit's.
    let xml = std::fs::read_to_string(dir.path().join("agenteval-out/junit.xml")).expect("junit");
    let mut reader = quick_xml::Reader::from_str(&xml);
    let (mut cases, mut failures, mut flaky_cases, mut error_cases) = (0, 0, 0, 0);
    let mut suite_counts = None;
    let mut case_flaky = false;
    loop {
        match reader.read_event().expect("the JUnit parses") {
            quick_xml::events::Event::Eof => break,
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => {
                let attr = |name: &str| {
                    e.try_get_attribute(name)
                        .ok()
                        .flatten()
                        .and_then(|a| a.unescape_value().ok())
                        .and_then(|v| v.parse::<u32>().ok())
                };
                match e.name().as_ref() {
                    b"testsuite" => {
                        suite_counts = Some((attr("tests"), attr("failures"), attr("errors")));
                    }
                    b"testcase" => {
                        cases += 1;
                        case_flaky = false;
                    }
                    b"failure" => failures += 1,
                    b"error" => error_cases += 1,
                    b"flakyFailure" if !case_flaky => {
                        case_flaky = true;
                        flaky_cases += 1;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    assert_eq!(cases, total, "one test case per scenario");
    assert_eq!(failures, failed, "failures are the failed scenarios");
    assert_eq!(flaky_cases, flaky, "flaky runs as such, not as failures");
    assert_eq!(error_cases, errors);
    assert_eq!(cases - failures - flaky_cases - error_cases, passed);
    assert_eq!(
        suite_counts,
        Some((Some(total), Some(failed), Some(errors))),
        "the suite's attributes agree"
    );

    let strict = run(
        dir.path(),
        &["--repeat", "2", "--min-pass-rate", "0.5", "--fail-on-flaky"],
    );
    assert_eq!(strict.code, 1, "{strict:?}");
    assert!(
        strict
            .stdout
            .contains("flaky scenarios with --fail-on-flaky: starter.opening_hours"),
        "{strict:?}"
    );
}

#[test]
fn an_unreachable_target_exits_3_without_a_verdict() {
    // A port nobody listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let dir = project(port);
    let out = run(dir.path(), &["--wait-seconds", "0"]);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stderr.contains("could not be reached"), "{out:?}");
    assert!(out.stderr.contains("No verdict"), "{out:?}");
    assert!(!out.stdout.contains("Gate"), "no gate verdict: {out:?}");

    // A configured judge that does not answer: no verdict either, rather
    // than rubric checks quietly scored by the offline fallback.
    let target = DemoTarget::start(&[]);
    let dir = project(target.port);
    let judge = format!("http://127.0.0.1:{port}/v1");
    let out = run_with_env(
        dir.path(),
        &[],
        &[
            ("AGENTEVAL_JUDGE_BASE_URL", judge.as_str()),
            ("AGENTEVAL_JUDGE_MODEL", "judge"),
        ],
    );
    assert_eq!(out.code, 3, "{out:?}");
    assert!(out.stderr.contains("the judge model judge"), "{out:?}");
}

#[test]
fn config_errors_exit_2_with_file_and_line() {
    let dir = project(9);
    let config = dir.path().join("agenteval.yaml");
    let text = std::fs::read_to_string(&config).expect("config");
    let line = |needle: &str, text: &str| {
        text.lines()
            .position(|l| l.contains(needle))
            .expect("line present")
            + 1
    };

    let bad_rate = text.replace("min_pass_rate: 0.7", "min_pass_rate: 1.5");
    std::fs::write(&config, &bad_rate).expect("write");
    let out = run(dir.path(), &[]);
    assert_eq!(out.code, 2, "{out:?}");
    let expected = format!("agenteval.yaml:{}:", line("min_pass_rate: 1.5", &bad_rate));
    assert!(
        out.stderr.contains(&expected),
        "expected {expected}: {out:?}"
    );
    assert!(out.stderr.contains("from 0 to 1"), "{out:?}");

    let typo = text.replace("  repeat: 3", "  repeats: 3");
    std::fs::write(&config, &typo).expect("write");
    let out = run(dir.path(), &[]);
    assert_eq!(out.code, 2, "{out:?}");
    let expected = format!("agenteval.yaml:{}:", line("repeats: 3", &typo));
    assert!(
        out.stderr.contains(&expected) && out.stderr.contains("repeats"),
        "unknown keys are refused at their line ({expected}): {out:?}"
    );

    // A broken scenario pack: its file and line, before anything runs.
    std::fs::write(&config, &text).expect("write");
    std::fs::write(
        dir.path().join("scenarios/starter/broken.yaml"),
        "scenarios:\n  - id: x\n    title: t\n    turns:\n      - user: hi\n        check: []\n",
    )
    .expect("write pack");
    let out = run(dir.path(), &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("broken.yaml:6:"), "{out:?}");

    let out = run(dir.path(), &["--min-pass-rate", "90"]);
    assert_eq!(out.code, 2, "usage errors exit 2 too: {out:?}");
    assert!(
        !dir.path().join("agenteval-out").exists(),
        "nothing was run or written"
    );
}

/// A shipped pack taken by name runs with no folder of packs: all of its
/// scenarios and none of the other shipped packs'; a name this binary
/// does not ship is refused at its line with the names it does.
#[test]
fn a_shipped_pack_is_named_without_a_folder() {
    let target = DemoTarget::start(&[]);
    let dir = project(target.port);
    let config = dir.path().join("agenteval.yaml");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::remove_dir_all(dir.path().join("scenarios")).expect("no folder of packs");
    let shipped = text.replace("  paths: [scenarios]", "  packs: [send_email]");
    std::fs::write(&config, &shipped).expect("write");
    let out = run(dir.path(), &["--repeat", "1", "--min-pass-rate", "0"]);
    assert_eq!(out.code, 0, "{out:?}");
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("agenteval-out/report.json")).expect("report"),
    )
    .expect("JSON");
    let ids: Vec<&str> = report["fixed"]["per_scenario"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|s| s["scenario_id"].as_str().expect("id"))
        .collect();
    let pack = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/send_email/send_email.yaml"),
    )
    .expect("the shipped pack's source");
    let in_pack = pack
        .lines()
        .filter(|l| l.trim_start().starts_with("- id:"))
        .count();
    assert_eq!(ids.len(), in_pack, "every scenario of the pack: {ids:?}");
    assert!(
        ids.iter().all(|id| pack.contains(&format!("id: {id}"))),
        "none of another pack: {ids:?}"
    );

    let unknown = text.replace(
        "  paths: [scenarios]",
        "  packs: [send_email, no_such_pack]",
    );
    std::fs::write(&config, &unknown).expect("write");
    let out = run(dir.path(), &[]);
    assert_eq!(out.code, 2, "{out:?}");
    let at = unknown
        .lines()
        .position(|l| l.contains("no_such_pack"))
        .expect("the line")
        + 1;
    assert!(
        out.stderr.contains(&format!("agenteval.yaml:{at}:"))
            && out
                .stderr
                .contains("\"no_such_pack\" is not a pack shipped with agenteval")
            && out.stderr.contains("office_agent"),
        "{out:?}"
    );
}

/// The README's "Use in CI" commands, as written, in a fresh folder.
#[test]
fn the_readme_use_in_ci_section_works_in_a_fresh_folder() {
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .expect("README");
    let section = readme
        .split("\n## Use in CI")
        .nth(1)
        .expect("a Use in CI section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a sh block in the section");
    let dir = tempfile::tempdir().expect("tmp");
    let bin_dir = PathBuf::from(env!("CARGO_BIN_EXE_agenteval"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = format!("trap 'kill $(jobs -p) 2>/dev/null' EXIT\nset -e\n{block}");
    let out = bin_command("bash")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .env("PATH", path)
        .env("HOME", dir.path())
        .env("XDG_DATA_HOME", dir.path().join("xdg"))
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{block}\n--- stdout\n{stdout}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Gate passed"), "{stdout}");
    assert!(dir.path().join("agenteval-out/junit.xml").is_file());
}

fn bin_command(program: &str) -> Command {
    let mut c = Command::new(program);
    for role in ["USER", "JUDGE", "ANALYST"] {
        for field in ["BASE_URL", "MODEL", "API_KEY"] {
            c.env_remove(format!("AGENTEVAL_{role}_{field}"));
        }
    }
    c
}
