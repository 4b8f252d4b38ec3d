//! JUnit XML of a run, one test case per scenario (its repeats together),
//! in the shape CI systems render: a scenario that failed every run is a
//! `<failure>` (each further failed run a `<rerunFailure>`), one whose
//! repeats disagree passes with a `<flakyFailure>` per failed run (the
//! Maven Surefire convention for flaky tests), one with no verdict is an
//! `<error>`.

use super::{Outcome, ScenarioResult};
use agenteval_engine::fixed::{Run, Verdict};
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};
use std::collections::HashMap;

/// What the suite is about.
pub struct Suite<'a> {
    pub name: &'a str,
    pub timestamp: String,
    pub pass_rate: Option<f64>,
    pub gate: &'a str,
}

/// Failed checks of a run, one per line.
fn run_failure(r: &Run) -> String {
    let failed: Vec<String> = r
        .check_results
        .iter()
        .filter(|c| !c.passed)
        .map(|c| agenteval_engine::export::check_line(c, agenteval_engine::Lang::En))
        .collect();
    if failed.is_empty() {
        format!("run #{}: failed", r.seq)
    } else {
        format!("run #{}: {}", r.seq, failed.join("; "))
    }
}

pub fn render(suite: &Suite<'_>, scenarios: &[ScenarioResult], runs: &[Run]) -> String {
    let count = |o: Outcome| scenarios.iter().filter(|s| s.outcome == o).count();
    let tests = scenarios.len().to_string();
    let failures = count(Outcome::Failed).to_string();
    let errors = count(Outcome::Error).to_string();
    let flaky = count(Outcome::Flaky).to_string();
    // Each scenario's runs, found once: a run of 10,000 cases has as many
    // scenarios.
    let mut by_scenario: HashMap<&str, Vec<&Run>> = HashMap::new();
    for r in runs {
        by_scenario
            .entry(r.scenario_id.as_str())
            .or_default()
            .push(r);
    }
    let runs_of = |id: &str| by_scenario.get(id).map(Vec::as_slice).unwrap_or_default();
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    let _ = w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let rate = suite
        .pass_rate
        .map_or_else(|| "n/a".to_string(), |r| format!("{r:.4}"));
    let _ = w
        .create_element("testsuites")
        .with_attributes([
            ("name", suite.name),
            ("tests", tests.as_str()),
            ("failures", failures.as_str()),
            ("errors", errors.as_str()),
        ])
        .write_inner_content(|w| {
            w.create_element("testsuite")
                .with_attributes([
                    ("name", suite.name),
                    ("tests", tests.as_str()),
                    ("failures", failures.as_str()),
                    ("errors", errors.as_str()),
                    ("skipped", "0"),
                    ("timestamp", suite.timestamp.as_str()),
                ])
                .write_inner_content(|w| {
                    w.create_element("properties").write_inner_content(|w| {
                        for (name, value) in [
                            ("pass_rate", rate.as_str()),
                            ("flaky", flaky.as_str()),
                            ("gate", suite.gate),
                        ] {
                            w.create_element("property")
                                .with_attributes([("name", name), ("value", value)])
                                .write_empty()?;
                        }
                        Ok(())
                    })?;
                    for s in scenarios {
                        testcase(w, s, runs_of(&s.id))?;
                    }
                    Ok(())
                })?;
            Ok(())
        });
    String::from_utf8(w.into_inner()).unwrap_or_default()
}

/// The test case of scenario `s`, whose runs are `runs`.
fn testcase(w: &mut Writer<Vec<u8>>, s: &ScenarioResult, runs: &[&Run]) -> std::io::Result<()> {
    let failed_runs: Vec<String> = runs
        .iter()
        .filter(|r| r.verdict == Some(Verdict::Failed))
        .map(|r| run_failure(r))
        .collect();
    let error_runs: Vec<String> = runs
        .iter()
        .filter(|r| r.verdict == Some(Verdict::Error))
        .map(|r| {
            format!(
                "run #{}: {}",
                r.seq,
                r.error
                    .as_ref()
                    .map_or_else(|| "error".into(), |e| e.text().render(crate::lang()))
            )
        })
        .collect();
    let out = format!(
        "{}: {} runs: {} passed, {} failed, {} in error ({})",
        s.title,
        s.passed + s.failed + s.errors,
        s.passed,
        s.failed,
        s.errors,
        s.outcome.label().to_lowercase()
    );
    let summary = format!("{} of {} judged runs passed", s.passed, s.passed + s.failed);
    let t = time(runs);
    w.create_element("testcase")
        .with_attributes([
            ("classname", s.pack.as_str()),
            ("name", s.id.as_str()),
            ("time", t.as_str()),
        ])
        .write_inner_content(|w| {
            match s.outcome {
                Outcome::Passed => {}
                Outcome::Failed => {
                    let first = failed_runs.first().cloned().unwrap_or_default();
                    w.create_element("failure")
                        .with_attributes([
                            ("message", format!("{summary}: {first}").as_str()),
                            ("type", "check"),
                        ])
                        .write_text_content(BytesText::new(&first))?;
                    for again in failed_runs.iter().skip(1) {
                        w.create_element("rerunFailure")
                            .with_attributes([("message", again.as_str()), ("type", "check")])
                            .write_empty()?;
                    }
                }
                Outcome::Flaky => {
                    for failed in &failed_runs {
                        w.create_element("flakyFailure")
                            .with_attributes([
                                ("message", format!("flaky, {summary}: {failed}").as_str()),
                                ("type", "check"),
                            ])
                            .write_empty()?;
                    }
                }
                Outcome::Error => {
                    let reason = error_runs.first().cloned().unwrap_or_default();
                    w.create_element("error")
                        .with_attributes([
                            (
                                "message",
                                format!("no run got a verdict: {reason}").as_str(),
                            ),
                            ("type", "run_error"),
                        ])
                        .write_empty()?;
                }
            }
            w.create_element("system-out")
                .write_text_content(BytesText::new(&out))?;
            Ok(())
        })?;
    Ok(())
}

/// The scenario's time: its runs' latencies, in seconds.
fn time(runs: &[&Run]) -> String {
    let ms: u64 = runs
        .iter()
        .filter_map(|r| r.metrics.as_ref().map(|m| m.latency_ms_total))
        .sum();
    format!("{:.3}", ms as f64 / 1000.0)
}
