//! Reading what a stored judge review says: scores, findings, the judge,
//! and whether the virtual user was at fault.

use crate::findings::JudgeFinding;
use crate::i18n::Text;
use crate::ids::SessionId;

pub fn severity_rank(s: &str) -> u8 {
    match s.to_lowercase().as_str() {
        "poor" | "bad" | "critical" | "severe" | "high" | "fail" | "failed" | "error" => 0,
        "fair" | "medium" | "warning" | "warn" | "needs_improvement" | "mixed" | "moderate" => 1,
        "good" | "ok" | "low" | "pass" | "passed" | "excellent" | "info" => 2,
        _ => 3,
    }
}

pub fn text_of(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

pub fn first_str(
    obj: &serde_json::Map<String, serde_json::Value>,
    keys: &[&str],
) -> Option<String> {
    keys.iter().find_map(|k| obj.get(*k).and_then(text_of))
}

/// Per-dimension scores of a review: `{"dimensions": {"attitude": 4 |
/// {"score": 4, ...}}}`, the same under `scores`, or a list of `{name |
/// dimension, score}`.
pub fn review_scores(review: &serde_json::Value) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for key in ["dimensions", "scores"] {
        match review.get(key) {
            Some(serde_json::Value::Object(map)) => {
                for (name, v) in map {
                    let score = v
                        .as_f64()
                        .or_else(|| v.get("score").and_then(|s| s.as_f64()));
                    if let Some(score) = score.filter(|s| s.is_finite()) {
                        out.push((name.clone(), score));
                    }
                }
            }
            Some(serde_json::Value::Array(items)) => {
                for item in items {
                    let name = item
                        .get("name")
                        .or_else(|| item.get("dimension"))
                        .and_then(|n| n.as_str());
                    let score = item.get("score").and_then(|s| s.as_f64());
                    if let (Some(name), Some(score)) = (name, score.filter(|s| s.is_finite())) {
                        out.push((name.to_string(), score));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The findings of a review, from its `findings` list.
pub fn review_findings(session_id: SessionId, findings: &serde_json::Value) -> Vec<JudgeFinding> {
    let Some(items) = findings.as_array() else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| match item {
            serde_json::Value::String(s) if !s.trim().is_empty() => Some(JudgeFinding {
                session_id,
                severity: "unrated".into(),
                dimension: None,
                text: s.trim().into(),
                evidence: None,
                turn: None,
                step: None,
            }),
            serde_json::Value::Object(obj) => {
                let text = first_str(
                    obj,
                    &[
                        "text",
                        "finding",
                        "summary",
                        "message",
                        "description",
                        "issue",
                    ],
                )?;
                Some(JudgeFinding {
                    session_id,
                    severity: first_str(obj, &["severity", "grade", "level", "rating", "verdict"])
                        .unwrap_or_else(|| "unrated".into()),
                    dimension: first_str(obj, &["dimension", "category"]),
                    // The built-in judge writes messages (JSON objects); a
                    // model writes sentences.
                    text: Text::from_key(&text),
                    evidence: first_str(obj, &["evidence", "quote"]).map(|e| Text::from_key(&e)),
                    turn: whole(obj.get("turn")),
                    step: whole(obj.get("step")),
                })
            }
            _ => None,
        })
        .collect()
}

/// An integer (not `1.0`) from 0 to u32::MAX.
fn whole(v: Option<&serde_json::Value>) -> Option<u32> {
    v.and_then(serde_json::Value::as_u64)
        .and_then(|t| u32::try_from(t).ok())
}

/// Who wrote a review: its model, else its method (`heuristic`).
pub fn review_judge(review: &serde_json::Value) -> Option<String> {
    ["model", "method"].iter().find_map(|k| {
        review
            .get(*k)
            .and_then(|v| v.as_str())
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
    })
}

pub fn simulator_at_fault(review: &serde_json::Value) -> bool {
    review.get("simulator_fault").and_then(|v| v.as_bool()) == Some(true)
        || review
            .get("simulator")
            .and_then(|s| s.get("at_fault"))
            .and_then(|v| v.as_bool())
            == Some(true)
}
