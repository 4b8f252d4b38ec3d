//! `agenteval bench`: every suite runs end to end on small figures and
//! reports what it measured. Nothing here asserts a time; the checks are on
//! what the suites count (errors, overruns, rows), which must hold at any
//! speed.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

/// Runs a suite and returns its `RESULT` figures by name.
fn bench(args: &[&str]) -> HashMap<String, f64> {
    let output = Command::new(env!("CARGO_BIN_EXE_agenteval"))
        .arg("bench")
        .args(args)
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .expect("run agenteval bench");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "bench {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("RESULT "))
        .map(|l| {
            let mut parts = l.split_whitespace();
            let name = parts.next().expect("a name").to_string();
            let value = parts.next().expect("a value").parse().expect("a number");
            assert!(parts.next().is_some(), "every figure has a unit: {l}");
            (name, value)
        })
        .collect()
}

#[test]
fn throughput_runs_every_scenario_without_error_and_reports_a_ratio() {
    let r = bench(&[
        "throughput",
        "--rounds",
        "2",
        "--ceiling-seconds",
        "1",
        "--concurrency",
        "8",
    ]);
    assert_eq!(r["throughput_errors"], 0.0, "no run ends in error: {r:?}");
    assert!(r["throughput_ceiling_rps"] > 0.0 && r["throughput_turns_per_s"] > 0.0);
    let ratio = r["throughput_turns_per_s"] / r["throughput_ceiling_rps"];
    assert!(
        (r["throughput_ratio_to_ceiling"] - ratio).abs() < 0.01,
        "the ratio is engine / ceiling: {r:?}"
    );
}

#[test]
fn ledger_refuses_over_budget_and_never_overruns() {
    let r = bench(&[
        "ledger",
        "--requests",
        "400",
        "--clients",
        "16",
        "--campaigns",
        "2",
        "--max-sessions",
        "5",
        "--max-turns",
        "3",
        "--warmup",
        "100",
    ]);
    assert_eq!(r["ledger_requests"], 400.0);
    assert_eq!(r["ledger_warmup_requests"], 100.0);
    assert_eq!(r["ledger_overruns"], 0.0, "{r:?}");
    assert_eq!(r["ledger_5xx"], 0.0, "{r:?}");
    assert_eq!(
        r["ledger_sessions_created"], 10.0,
        "2 campaigns x 5 sessions"
    );
    assert!(
        r["ledger_messages"] <= 10.0 * 3.0,
        "at most 3 turns in each of 10 sessions: {r:?}"
    );
    assert!(r["ledger_refused_409"] > 0.0, "budgets ran out: {r:?}");
}

#[test]
fn report_counts_what_it_generated() {
    let r = bench(&[
        "report",
        "--sessions",
        "300",
        "--runs",
        "200",
        "--repeat",
        "1",
    ]);
    assert_eq!(r["report_turns"], (300 * 8 + 200 * 2) as f64, "{r:?}");
    assert!(r["report_aggregation_ms"] > 0.0 && r["report_scan_ms"] > 0.0);
}

#[test]
fn concurrency_completes_every_session() {
    let r = bench(&[
        "concurrency",
        "--sessions",
        "20",
        "--turns",
        "2",
        "--latency-ms",
        "50",
    ]);
    assert_eq!(r["concurrency_failed_sessions"], 0.0, "{r:?}");
    assert_eq!(r["concurrency_turns"], 40.0, "{r:?}");
    assert!(r["concurrency_peak_rss_mb"] > 0.0);
}

#[test]
fn run_times_agenteval_run_over_every_case() {
    let r = bench(&["run", "--cases", "20"]);
    assert_eq!(r["run_cases"], 20.0, "{r:?}");
    assert_eq!(r["run_runs_done"], 20.0, "every case ran once: {r:?}");
    assert!(r["run_wall_s"] > 0.0 && r["run_ms_per_case"] > 0.0, "{r:?}");
    assert!(r["run_peak_rss_mb"] > 0.0, "{r:?}");
}

#[test]
fn office_query_answers_every_query_right_and_reports_its_speed() {
    // The suite itself stops on a wrong sum or average.
    let r = bench(&["office-query", "--rows", "2000", "--queries", "4"]);
    assert_eq!(r["office_query_rows"], 2000.0);
    assert!(
        r["office_query_first_ms"] > 0.0 && r["office_query_qps"] > 0.0,
        "{r:?}"
    );
    assert!(r["office_query_peak_rss_mb"] > 0.0, "{r:?}");
}
