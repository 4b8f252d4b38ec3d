//! Agent text anywhere in a real report (with exploration findings and an
//! analysis): the Markdown renderer never panics and the text cannot add or
//! remove a heading, a table row boundary or a code fence.
#![no_main]

use agenteval_engine::report::CampaignReport;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use std::sync::OnceLock;

const BASE: &str = include_str!("../fixtures/report.json");

/// Free text leaves (titles, issues, notes, claims): strings with a space
/// that are neither ids nor times.
fn is_free_text(s: &str) -> bool {
    s.contains(' ') && s.len() > 3 && !s.starts_with("20")
}

fn replace(v: &mut Value, pieces: &[String], next: &mut usize) {
    match v {
        Value::String(s) if is_free_text(s) => {
            *s = pieces[*next % pieces.len()].clone();
            *next += 1;
        }
        Value::Array(items) => items.iter_mut().for_each(|i| replace(i, pieces, next)),
        Value::Object(map) => map.values_mut().for_each(|i| replace(i, pieces, next)),
        _ => {}
    }
}

fn base() -> &'static Value {
    static BASE_VALUE: OnceLock<Value> = OnceLock::new();
    BASE_VALUE.get_or_init(|| serde_json::from_str(BASE).expect("fixture is JSON"))
}

/// The report with every free text plain: what the structure must be.
fn plain() -> &'static str {
    static PLAIN: OnceLock<String> = OnceLock::new();
    PLAIN.get_or_init(|| render(&["plain text".to_string()]).expect("benign text renders"))
}

fn render(pieces: &[String]) -> Option<String> {
    let mut v = base().clone();
    replace(&mut v, pieces, &mut 0);
    let report: CampaignReport = serde_json::from_value(v).ok()?;
    Some(agenteval_engine::export::markdown(&report))
}

/// The document's skeleton: headings and fences by line.
fn skeleton(md: &str) -> Vec<String> {
    md.lines()
        .filter(|l| l.starts_with('#') || l.starts_with("```"))
        .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let pieces: Vec<String> = text.split('\u{1}').map(str::to_string).collect();
    let Some(fuzzed) = render(&pieces) else {
        return;
    };
    let plain = plain();
    assert_eq!(
        skeleton(&fuzzed),
        skeleton(plain),
        "agent text changed the document's structure"
    );
    for (f, p) in fuzzed.lines().zip(plain.lines()) {
        if p.starts_with('|') {
            let cells = |l: &str| l.replace("\\|", "").matches('|').count();
            assert_eq!(cells(f), cells(p), "agent text changed a table row: {f}");
        }
    }
});
