//! What one exploration session adds to the report's exploration tallies
//! (`session_tally`, `session_dimension_tally`, `session_findings`,
//! `session_fault_tally`; migrations 0009 and 0013): one pure function of
//! the session's stored values, [`SessionTally::of`]. The store subtracts
//! what a session added before a write and adds what it adds after, in the
//! write's transaction, and fills the tallies from every session with the
//! same function (migration 0019), so that the two never disagree.
//!
//! The rules are those the SQL views of migrations 0009 and 0013 held, kept
//! to the letter, odd shapes included, since the JSON columns hold what
//! older versions and older judges wrote:
//!
//! - a JSON column counts only when it is valid JSON (an experience record
//!   only when it is an object; a review only when `judge_status` is
//!   `done`);
//! - blank means Unicode White_Space only (Rust's `trim`, the characters
//!   the views trimmed);
//! - a value read as text from JSON is what SQLite's `->>` gives once
//!   stored in a text column (see [`sql_text`]);
//! - a session ended by `simulator_error`, or in which the check of the
//!   virtual user found a fault, is the simulator's fault: its record adds
//!   no issue, emotion or experience; a found fault also keeps its judge
//!   scores out.

use serde_json::Value;

/// A session's stored columns that its tallies are computed from, JSON as
/// stored text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoredSession<'a> {
    pub status: &'a str,
    pub end_reason: Option<&'a str>,
    pub trigger: &'a str,
    pub judge_status: &'a str,
    pub seed_ref: Option<&'a str>,
    pub experience: Option<&'a str>,
    pub judge_review: Option<&'a str>,
    pub simulator_faults: Option<&'a str>,
}

/// The `session_tally` row a session counts in: sessions alike in every
/// figure the report counts by.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionTallyKey {
    pub status: String,
    /// `''` while running.
    pub end_reason: String,
    pub trigger: String,
    pub judge_status: String,
    /// The persona a `seed_ref` names: the session is seeded.
    pub persona_id: Option<String>,
    /// The goal a `seed_ref` names, seeded or not; `''` when none.
    pub goal_id: String,
    /// A record that counts (the session is not the simulator's fault).
    pub has_experience: bool,
    /// Of which the session completed.
    pub record: bool,
    /// The record (any, counted or not) says the goal was achieved.
    pub goal_achieved: bool,
    /// The counted record's emotion, `''` without one.
    pub emotion: String,
    /// A simulator error or fault, or a review that blames the simulator.
    pub simulator_fault: bool,
}

/// One finding of a session's review, as `session_findings` keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredFinding {
    /// Its position in the review's list (findings keep that order).
    pub seq: i64,
    pub severity: String,
    pub dimension: Option<String>,
    pub text: String,
    pub evidence: Option<String>,
    pub turn: Option<u32>,
    pub step: Option<u32>,
}

/// What one session adds to the exploration tallies.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionTally {
    pub key: SessionTallyKey,
    /// Blockers and misled points its counted record reports.
    pub issues: u32,
    /// The review's score per dimension (a name may come twice: each
    /// counts).
    pub scores: Vec<(String, f64)>,
    pub findings: Vec<StoredFinding>,
    /// Faults the check of the virtual user found, per kind, by kind.
    pub faults: Vec<(String, u32)>,
    /// Who judged it: its review's model, else the review's method.
    pub judge: Option<String>,
    /// Its review scores it (the review's `dimensions` are an object): a
    /// session the judge's calibration may compare with a person's label.
    pub scored: bool,
}

impl SessionTally {
    /// Whether it adds one session under its key and nothing else (no
    /// issue, score, finding, fault, judge): what a session adds as it
    /// starts.
    pub fn is_count_only(&self) -> bool {
        self.issues == 0
            && self.scores.is_empty()
            && self.findings.is_empty()
            && self.faults.is_empty()
            && self.judge.is_none()
            && !self.scored
    }

    /// What the session with these stored values adds.
    pub fn of(s: &StoredSession<'_>) -> Self {
        let json = |text: Option<&str>| text.and_then(|t| serde_json::from_str::<Value>(t).ok());
        let faults = json(s.simulator_faults);
        let found_fault = matches!(&faults, Some(Value::Array(items)) if !items.is_empty());
        let simulator_error = s.end_reason == Some("simulator_error") || found_fault;
        let experience = json(s.experience).filter(Value::is_object);
        let counted = experience.as_ref().filter(|_| !simulator_error);
        let review = match s.judge_status {
            "done" => json(s.judge_review),
            _ => None,
        };
        let seed = json(s.seed_ref);
        let seed_id = |key: &str| seed.as_ref().and_then(|r| r.get(key)).and_then(sql_text);
        let key = SessionTallyKey {
            status: s.status.to_string(),
            end_reason: s.end_reason.unwrap_or_default().to_string(),
            trigger: s.trigger.to_string(),
            judge_status: s.judge_status.to_string(),
            persona_id: seed_id("persona_id"),
            goal_id: seed_id("goal_id").unwrap_or_default(),
            has_experience: counted.is_some(),
            record: counted.is_some() && s.status == "completed",
            goal_achieved: experience
                .as_ref()
                .is_some_and(|e| e.get("goal_achieved") == Some(&Value::Bool(true))),
            emotion: counted
                .and_then(|e| e.get("emotion"))
                .and_then(sql_text)
                .unwrap_or_default(),
            simulator_fault: simulator_error || review.as_ref().is_some_and(blames_simulator),
        };
        SessionTally {
            key,
            issues: counted.map_or(0, |e| issue_count(e, "blockers") + issue_count(e, "misled")),
            scores: review
                .as_ref()
                .filter(|_| !found_fault)
                .map(review_scores)
                .unwrap_or_default(),
            findings: review.as_ref().map(review_findings).unwrap_or_default(),
            faults: faults.as_ref().map(fault_kinds).unwrap_or_default(),
            judge: review.as_ref().and_then(judge_name),
            scored: review
                .as_ref()
                .is_some_and(|r| r.get("dimensions").is_some_and(Value::is_object)),
        }
    }
}

/// Who wrote a review: its `model`, else its `method` (each read as
/// SQLite's `->>` reads it), trimmed; `None` when both are blank.
fn judge_name(review: &Value) -> Option<String> {
    let field = |name: &str| {
        review
            .get(name)
            .and_then(sql_text)
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
    };
    field("model").or_else(|| field("method"))
}

/// The elements SQLite's `json_each` walks over a value: an array's items,
/// an object's values, or the value itself.
fn each(v: &Value) -> Box<dyn Iterator<Item = &Value> + '_> {
    match v {
        Value::Array(items) => Box::new(items.iter()),
        Value::Object(map) => Box::new(map.values()),
        other => Box::new(std::iter::once(other)),
    }
}

/// The non-blank texts under `key` of a record.
fn issue_count(record: &Value, key: &str) -> u32 {
    record.get(key).map_or(0, |list| {
        each(list)
            .filter(|i| i.as_str().is_some_and(|t| !t.trim().is_empty()))
            .count() as u32
    })
}

/// Whether a review blames the virtual user: `simulator_fault: true` or
/// `simulator: {"at_fault": true}`.
fn blames_simulator(review: &Value) -> bool {
    let yes = Some(&Value::Bool(true));
    review.get("simulator_fault") == yes
        || review.get("simulator").and_then(|s| s.get("at_fault")) == yes
}

/// A review's score per dimension: `{"dimensions": {"name": 4 | {"score":
/// 4}}}`, the same under `scores`, or a list of `{"name" | "dimension":
/// ..., "score": 4}` (a `name` that is not text names nothing).
fn review_scores(review: &Value) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for key in ["dimensions", "scores"] {
        match review.get(key) {
            Some(Value::Object(map)) => {
                for (name, v) in map {
                    let score = match v {
                        Value::Number(n) => n.as_f64(),
                        Value::Object(_) => number(v.get("score")),
                        _ => None,
                    };
                    if let Some(score) = score {
                        out.push((name.clone(), score));
                    }
                }
            }
            Some(Value::Array(items)) => {
                for item in items.iter().filter(|i| i.is_object()) {
                    let name = match item.get("name") {
                        Some(name) => name.as_str(),
                        None => item.get("dimension").and_then(Value::as_str),
                    };
                    if let (Some(name), Some(score)) = (name, number(item.get("score"))) {
                        out.push((name.to_string(), score));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// An integer (not `1.0`) from 0 to u32::MAX.
fn whole(v: Option<&Value>) -> Option<u32> {
    v.and_then(Value::as_u64)
        .and_then(|t| u32::try_from(t).ok())
}

fn number(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
}

/// A review's findings, from its `findings` list: plain texts (trimmed,
/// blanks left out) or objects whose text, severity, dimension and
/// evidence may go by several names, the first present (not null) one
/// counting; an object without a text is no finding.
fn review_findings(review: &Value) -> Vec<StoredFinding> {
    let Some(Value::Array(items)) = review.get("findings") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (seq, item) in items.iter().enumerate() {
        let seq = seq as i64;
        match item {
            Value::String(s) if !s.trim().is_empty() => out.push(StoredFinding {
                seq,
                severity: "unrated".into(),
                dimension: None,
                text: s.trim().to_string(),
                evidence: None,
                turn: None,
                step: None,
            }),
            Value::Object(_) => {
                let first = |keys: &[&str]| {
                    keys.iter()
                        .find_map(|k| item.get(*k).filter(|v| !v.is_null()))
                        .map(json_text)
                };
                let text = [
                    "text",
                    "finding",
                    "summary",
                    "message",
                    "description",
                    "issue",
                ];
                let Some(text) = first(&text) else {
                    continue;
                };
                out.push(StoredFinding {
                    seq,
                    severity: first(&["severity", "grade", "level", "rating", "verdict"])
                        .unwrap_or_else(|| "unrated".into()),
                    dimension: first(&["dimension", "category"]),
                    text,
                    evidence: first(&["evidence", "quote"]),
                    turn: whole(item.get("turn")),
                    step: whole(item.get("step")),
                });
            }
            _ => {}
        }
    }
    out
}

/// Faults per kind in a session's stored check: the objects among what
/// `json_each` walks, grouped by their `kind` (one without a kind counts
/// nowhere).
fn fault_kinds(faults: &Value) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    for kind in each(faults)
        .filter(|f| f.is_object())
        .filter_map(|f| f.get("kind").and_then(sql_text))
    {
        match out.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => out.push((kind, 1)),
        }
    }
    out.sort();
    out
}

/// A JSON value as text: a string as it is, anything else as its JSON.
fn json_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// What SQLite's `->>` gives for `v`, once stored in a text column: `None`
/// for null, a string as it is, `1` or `0` for a boolean, a number as
/// SQLite writes it, an array or object as its JSON.
pub fn sql_text(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::String(s) => s.clone(),
        Value::Bool(b) => if *b { "1" } else { "0" }.to_string(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.to_string(),
            None => sql_real_text(n.as_f64()?),
        },
        other => other.to_string(),
    })
}

/// A real number as SQLite writes it as text (`%!.15g`): 15 significant
/// digits, trailing zeros dropped but one kept after the point, an
/// exponent below 1e-4 and from 1e15 on (`1.0e+20`).
fn sql_real_text(x: f64) -> String {
    if x == 0.0 {
        return "0.0".into();
    }
    // `d.dddddddddddddde<exp>`, rounded to 15 significant digits.
    let sci = format!("{:.14e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    let sign = if x < 0.0 { "-" } else { "" };
    let point = |int: &str, frac: &str| {
        let frac = if frac.is_empty() { "0" } else { frac };
        format!("{int}.{frac}")
    };
    if !(-4..15).contains(&exp) {
        let m = point(&digits[..1], &digits[1..]);
        let e = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{m}e{e}{:02}", exp.abs());
    }
    if exp < 0 {
        let zeros = "0".repeat((-exp - 1) as usize);
        return format!("{sign}0.{zeros}{digits}");
    }
    let int_len = exp as usize + 1;
    let padded = format!("{digits:0<int_len$}");
    let (int, frac) = padded.split_at(int_len);
    format!("{sign}{}", point(int, frac))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stored<'a>(status: &'a str, judge_status: &'a str) -> StoredSession<'a> {
        StoredSession {
            status,
            trigger: "auto",
            judge_status,
            ..Default::default()
        }
    }

    #[test]
    fn a_running_session_counts_once_under_its_status_and_seed() {
        let seed = json!({"persona_id": "p1", "goal_id": "g1"}).to_string();
        let t = SessionTally::of(&StoredSession {
            seed_ref: Some(&seed),
            ..stored("running", "none")
        });
        assert_eq!(t.key.status, "running");
        assert_eq!(t.key.end_reason, "", "no end reason while running");
        assert_eq!(t.key.persona_id.as_deref(), Some("p1"));
        assert_eq!(t.key.goal_id, "g1");
        assert!(!t.key.has_experience && !t.key.simulator_fault);
        assert_eq!(
            (t.issues, t.scores.len(), t.findings.len()),
            (0, 0, 0),
            "nothing else before it ends"
        );
    }

    #[test]
    fn a_seed_counts_when_it_names_a_persona() {
        let of = |seed: &str| {
            let key = SessionTally::of(&StoredSession {
                seed_ref: Some(seed),
                ..stored("running", "none")
            })
            .key;
            (key.persona_id, key.goal_id)
        };
        let seeded = |p: &str, g: &str| (Some(p.to_string()), g.to_string());
        assert_eq!(of(r#"{"persona_id": "p"}"#), seeded("p", ""));
        assert_eq!(
            of(r#"{"persona_id": 7, "goal_id": true}"#),
            seeded("7", "1")
        );
        assert_eq!(
            of(r#"{"persona_id": null, "goal_id": "g"}"#),
            (None, "g".into()),
            "unseeded, but the goal is kept"
        );
        assert_eq!(of(r#"["p", "g"]"#), (None, "".into()), "not an object");
        assert_eq!(of("{not json"), (None, "".into()));
    }

    #[test]
    fn a_record_counts_its_non_blank_issues_and_its_emotion() {
        let e = json!({
            "goal_achieved": true,
            "blockers": ["slow", "\u{3000}\u{a0}", "", 3, "  no reply "],
            "misled": "one text alone",
            "emotion": "satisfied",
        })
        .to_string();
        let t = SessionTally::of(&StoredSession {
            end_reason: Some("user_goal_met"),
            experience: Some(&e),
            ..stored("completed", "pending")
        });
        assert_eq!(t.issues, 3, "Unicode blanks and non-texts are left out");
        assert!(t.key.has_experience && t.key.record && t.key.goal_achieved);
        assert_eq!(t.key.emotion, "satisfied");

        let e = json!({"blockers": {"a": "x", "b": " "}, "misled": null, "goal_achieved": 1})
            .to_string();
        let t = SessionTally::of(&StoredSession {
            experience: Some(&e),
            ..stored("failed", "none")
        });
        assert_eq!(
            t.issues, 1,
            "an object's values are walked; null is no text"
        );
        assert!(
            t.key.has_experience && !t.key.record,
            "a failed session's record"
        );
        assert!(!t.key.goal_achieved, "only `true` achieves");
        assert_eq!(t.key.emotion, "", "no emotion given");

        for not_a_record in ["[1, 2]", "\"text\"", "{broken"] {
            let t = SessionTally::of(&StoredSession {
                experience: Some(not_a_record),
                ..stored("completed", "pending")
            });
            assert!(!t.key.has_experience, "{not_a_record} is no record");
        }
    }

    #[test]
    fn an_emotion_is_read_as_sqlite_stores_it_as_text() {
        let emotion = |v: Value| {
            let e = json!({"emotion": v}).to_string();
            SessionTally::of(&StoredSession {
                experience: Some(&e),
                ..stored("completed", "none")
            })
            .key
            .emotion
        };
        assert_eq!(emotion(json!(true)), "1");
        assert_eq!(emotion(json!(3)), "3");
        assert_eq!(emotion(json!(2.5)), "2.5");
        assert_eq!(emotion(json!(3.0)), "3.0");
        assert_eq!(emotion(json!({"a": [1]})), r#"{"a":[1]}"#);
        assert_eq!(emotion(Value::Null), "");
    }

    #[test]
    fn reals_are_written_as_sqlite_writes_them() {
        for (x, text) in [
            (0.0, "0.0"),
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (1.0 / 3.0, "0.333333333333333"),
            (123456.789, "123456.789"),
            (1e14, "100000000000000.0"),
            (1e15, "1.0e+15"),
            (1e20, "1.0e+20"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (1.5e300, "1.5e+300"),
            (9.999999999999999, "10.0"),
        ] {
            assert_eq!(sql_real_text(x), text, "{x}");
        }
    }

    #[test]
    fn a_simulator_error_or_fault_keeps_the_record_out() {
        let e = json!({"goal_achieved": true, "blockers": ["x"], "emotion": "angry"}).to_string();
        let review = json!({"dimensions": {"attitude": 4}}).to_string();
        let errored = SessionTally::of(&StoredSession {
            end_reason: Some("simulator_error"),
            experience: Some(&e),
            judge_review: Some(&review),
            ..stored("completed", "done")
        });
        assert!(errored.key.simulator_fault && !errored.key.has_experience);
        assert_eq!((errored.issues, errored.key.emotion.as_str()), (0, ""));
        assert!(errored.key.goal_achieved, "the record still says so");
        assert_eq!(
            errored.scores,
            [("attitude".to_string(), 4.0)],
            "an error alone keeps the scores"
        );

        let faults =
            json!([{"kind": "drifted"}, {"kind": "invented_fact"}, {"kind": "drifted"}, 5])
                .to_string();
        let faulty = SessionTally::of(&StoredSession {
            end_reason: Some("user_goal_met"),
            experience: Some(&e),
            judge_review: Some(&review),
            simulator_faults: Some(&faults),
            ..stored("completed", "done")
        });
        assert!(faulty.key.simulator_fault && !faulty.key.has_experience);
        assert!(faulty.scores.is_empty(), "a found fault drops the scores");
        assert_eq!(
            faulty.faults,
            [("drifted".into(), 2), ("invented_fact".into(), 1)]
        );

        let clean = SessionTally::of(&StoredSession {
            experience: Some(&e),
            simulator_faults: Some("[]"),
            ..stored("completed", "none")
        });
        assert!(!clean.key.simulator_fault && clean.key.has_experience);
        assert!(clean.faults.is_empty());
        let odd = SessionTally::of(&StoredSession {
            simulator_faults: Some(r#"{"a": {"kind": "quit_early"}, "b": "drifted"}"#),
            ..stored("completed", "none")
        });
        assert!(!odd.key.simulator_fault, "only a non-empty list is a fault");
        assert_eq!(
            odd.faults,
            [("quit_early".into(), 1)],
            "but its objects count"
        );
    }

    #[test]
    fn a_review_blames_the_simulator_only_when_done() {
        let blame = |status: &str, review: Value| {
            let r = review.to_string();
            SessionTally::of(&StoredSession {
                judge_review: Some(&r),
                ..stored("completed", status)
            })
            .key
            .simulator_fault
        };
        assert!(blame("done", json!({"simulator_fault": true})));
        assert!(blame("done", json!({"simulator": {"at_fault": true}})));
        assert!(!blame("done", json!({"simulator_fault": 1})));
        assert!(!blame("done", json!({"simulator": [true]})));
        assert!(!blame("failed", json!({"simulator_fault": true})));
    }

    #[test]
    fn scores_are_read_in_every_shape_the_views_accepted() {
        let review = json!({
            "dimensions": {"attitude": {"score": 4}, "hallucination": 5, "tone": "n/a",
                           "pace": {"score": "3"}, "depth": 2.5},
            "scores": [{"name": "attitude", "score": 2}, {"dimension": "speed", "score": 3.5},
                       {"name": 7, "dimension": "ignored", "score": 1},
                       {"name": null, "dimension": "ignored", "score": 1},
                       {"dimension": "no score"}, ["attitude", 3], 4],
        })
        .to_string();
        let mut scores = SessionTally::of(&StoredSession {
            judge_review: Some(&review),
            ..stored("completed", "done")
        })
        .scores;
        scores.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let expected: Vec<(String, f64)> = [
            ("attitude", 2.0),
            ("attitude", 4.0),
            ("depth", 2.5),
            ("hallucination", 5.0),
            ("speed", 3.5),
        ]
        .into_iter()
        .map(|(n, s)| (n.to_string(), s))
        .collect();
        assert_eq!(scores, expected);
        let listed = r#"{"dimensions": [{"name": "a", "score": 1}], "scores": {"b": 2}}"#;
        assert_eq!(
            SessionTally::of(&StoredSession {
                judge_review: Some(listed),
                ..stored("completed", "done")
            })
            .scores
            .len(),
            2,
            "either key in either shape"
        );
    }

    #[test]
    fn findings_keep_their_place_and_take_the_first_name_given() {
        let review = json!({"findings": [
            "  a plain finding\u{2003}",
            "\u{3000}",
            {"grade": "poor", "text": "invented a date", "turn": 2},
            {"severity": null, "grade": "fair", "finding": "slow", "category": "pace",
             "quote": "wait", "turn": -1},
            {"severity": "poor", "evidence": "no text, not a finding"},
            {"issue": {"k": 1}, "level": 3, "dimension": false, "turn": 4294967296_u64},
            {"text": "", "turn": 1.0},
            7,
        ]})
        .to_string();
        let f = SessionTally::of(&StoredSession {
            judge_review: Some(&review),
            ..stored("completed", "done")
        })
        .findings;
        let seqs: Vec<i64> = f.iter().map(|f| f.seq).collect();
        assert_eq!(seqs, [0, 2, 3, 5, 6], "each keeps its place in the list");
        assert_eq!(
            (f[0].text.as_str(), f[0].severity.as_str()),
            ("a plain finding", "unrated")
        );
        assert_eq!((f[1].severity.as_str(), f[1].turn), ("poor", Some(2)));
        assert_eq!(
            f[2].severity, "fair",
            "a null severity gives way to the grade"
        );
        assert_eq!(f[2].dimension.as_deref(), Some("pace"));
        assert_eq!(f[2].evidence.as_deref(), Some("wait"));
        assert_eq!(f[2].turn, None, "a negative turn is none");
        assert_eq!(
            f[3].text, r#"{"k":1}"#,
            "a text that is not text, as its JSON"
        );
        assert_eq!(
            (f[3].severity.as_str(), f[3].dimension.as_deref()),
            ("3", Some("false"))
        );
        assert_eq!(f[3].turn, None, "beyond u32");
        assert_eq!(
            (f[4].text.as_str(), f[4].turn),
            ("", None),
            "an empty text is kept; 1.0 is no turn"
        );

        let pending = SessionTally::of(&StoredSession {
            judge_review: Some(&review),
            ..stored("completed", "pending")
        });
        assert!(pending.findings.is_empty(), "only a review that is done");
    }
}
