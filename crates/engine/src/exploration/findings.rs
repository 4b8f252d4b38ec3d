//! The exploration block of the campaign report: a pure aggregation over
//! session rows (status, end reason, experience record, judge review), so
//! that it is fast on large campaigns and testable without a database.

use super::session::{EndReason, ExperienceRecord, SessionStatus, Trigger};
use super::{SeedRef, issue_key};
use crate::campaign::SeedSet;
use crate::error::Result;
use crate::platform::Platform;
use crate::store::text;
use crate::target::parse_id;
use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use uuid::Uuid;

/// Exploration findings of one campaign; absent from the report when the
/// campaign has no exploration session.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct ExplorationFindings {
    pub sessions_total: u32,
    /// Every status appears, with 0 when no session has it.
    pub sessions_by_status: BTreeMap<String, u32>,
    pub sessions_by_end_reason: BTreeMap<String, u32>,
    pub sessions_by_trigger: BTreeMap<String, u32>,
    /// Completed sessions that carry an experience record.
    pub records: u32,
    pub goals_achieved: u32,
    /// goals_achieved / records; `None` without any record.
    pub goal_achievement_rate: Option<f64>,
    /// Blockers and misled points, grouped (trimmed, case-folded), most
    /// frequent first.
    pub issues: Vec<Issue>,
    /// Emotions of the experience records.
    pub emotions: BTreeMap<String, u32>,
    pub judge: JudgeSummary,
    /// Every judge finding, poor ones first.
    pub findings: Vec<JudgeFinding>,
    pub coverage: CoverageGrid,
    /// Sessions whose review blames the virtual user rather than the
    /// target, or that ended with `simulator_error`; counted apart so that
    /// simulator faults are not the target's.
    pub simulator_faults: u32,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum IssueKind {
    Blocker,
    Misled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Issue {
    pub kind: IssueKind,
    /// The text as first reported.
    pub text: String,
    /// How many sessions reported it.
    pub count: u32,
    pub session_ids: Vec<Uuid>,
}

#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct JudgeSummary {
    pub reviewed: u32,
    pub failed: u32,
    pub pending: u32,
    /// Average score per quality dimension over the reviewed sessions.
    pub dimensions: BTreeMap<String, DimensionScore>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct DimensionScore {
    pub average: f64,
    pub count: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct JudgeFinding {
    pub session_id: Uuid,
    /// As the judge wrote it, e.g. `poor`, `fair`, `good`.
    pub severity: String,
    pub dimension: Option<String>,
    pub text: String,
    pub evidence: Option<String>,
    /// The round (1-based user turn) the finding refers to, when known.
    pub turn: Option<u32>,
}

/// Persona x goal grid, so that gaps in exploration are visible.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct CoverageGrid {
    pub personas: Vec<String>,
    pub goals: Vec<String>,
    pub cells: Vec<CoverageCell>,
    /// Sessions without a seed_ref (manual debugging).
    pub unseeded_sessions: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CoverageCell {
    pub persona_id: String,
    pub goal_id: String,
    pub sessions: u32,
    pub achieved: u32,
    /// Blockers and misled points reported in this cell.
    pub issues: u32,
}

/// What the aggregation needs of one session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionFacts {
    pub id: Uuid,
    pub status: SessionStatus,
    pub end_reason: Option<EndReason>,
    pub trigger: Trigger,
    pub seed_ref: Option<SeedRef>,
    pub experience: Option<ExperienceRecord>,
    /// `none`, `pending`, `done` or `failed`.
    pub judge_status: String,
    pub judge_review: Option<serde_json::Value>,
}

fn severity_rank(s: &str) -> u8 {
    match s.to_lowercase().as_str() {
        "poor" | "bad" | "critical" | "severe" | "high" | "fail" | "failed" | "error" => 0,
        "fair" | "medium" | "warning" | "warn" | "needs_improvement" | "mixed" | "moderate" => 1,
        "good" | "ok" | "low" | "pass" | "passed" | "excellent" | "info" => 2,
        _ => 3,
    }
}

fn text_of(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

fn first_str(obj: &serde_json::Map<String, serde_json::Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| obj.get(*k).and_then(text_of))
}

/// Per-dimension scores of a review: `{"dimensions": {"attitude": 4 |
/// {"score": 4, ...}}}`, the same under `scores`, or a list of `{name |
/// dimension, score}`.
fn review_scores(review: &serde_json::Value) -> Vec<(String, f64)> {
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

fn review_findings(session_id: Uuid, review: &serde_json::Value) -> Vec<JudgeFinding> {
    let Some(items) = review.get("findings").and_then(|f| f.as_array()) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| match item {
            serde_json::Value::String(s) if !s.trim().is_empty() => Some(JudgeFinding {
                session_id,
                severity: "unrated".into(),
                dimension: None,
                text: s.trim().to_string(),
                evidence: None,
                turn: None,
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
                    text,
                    evidence: first_str(obj, &["evidence", "quote"]),
                    turn: obj
                        .get("turn")
                        .and_then(|t| t.as_u64())
                        .and_then(|t| u32::try_from(t).ok()),
                })
            }
            _ => None,
        })
        .collect()
}

fn simulator_at_fault(review: &serde_json::Value) -> bool {
    review.get("simulator_fault").and_then(|v| v.as_bool()) == Some(true)
        || review
            .get("simulator")
            .and_then(|s| s.get("at_fault"))
            .and_then(|v| v.as_bool())
            == Some(true)
}

/// Aggregates a campaign's sessions; `None` when there is none.
pub fn aggregate(seed_set: &SeedSet, sessions: &[SessionFacts]) -> Option<ExplorationFindings> {
    if sessions.is_empty() {
        return None;
    }
    let mut f = ExplorationFindings {
        sessions_total: sessions.len() as u32,
        ..Default::default()
    };
    for s in SessionStatus::ALL {
        f.sessions_by_status.insert(s.as_str().into(), 0);
    }
    let mut issues: Vec<Issue> = Vec::new();
    let mut issue_index: HashMap<(IssueKind, String), usize> = HashMap::new();
    let mut dims: BTreeMap<String, (f64, u32)> = BTreeMap::new();
    let mut personas: Vec<String> = seed_set.personas.iter().map(|p| p.id.clone()).collect();
    let mut goals: Vec<String> = seed_set.goals.iter().map(|g| g.id.clone()).collect();
    let mut cells: BTreeMap<(String, String), CoverageCell> = BTreeMap::new();

    for s in sessions {
        *f.sessions_by_status
            .entry(s.status.as_str().into())
            .or_default() += 1;
        if let Some(r) = s.end_reason {
            *f.sessions_by_end_reason
                .entry(r.as_str().into())
                .or_default() += 1;
        }
        *f.sessions_by_trigger
            .entry(s.trigger.as_str().into())
            .or_default() += 1;

        let mut cell_issues = 0;
        // A session the virtual user could not carry is the simulator's
        // fault: its record says nothing about the target, so it stays out
        // of the achievement rate, the emotions and the issues.
        let simulator_error = s.end_reason == Some(EndReason::SimulatorError);
        if simulator_error {
            f.simulator_faults += 1;
        }
        if let Some(e) = s.experience.as_ref().filter(|_| !simulator_error) {
            if s.status == SessionStatus::Completed {
                f.records += 1;
                if e.goal_achieved {
                    f.goals_achieved += 1;
                }
            }
            *f.emotions.entry(e.emotion.clone()).or_default() += 1;
            for (kind, list) in [
                (IssueKind::Blocker, &e.blockers),
                (IssueKind::Misled, &e.misled),
            ] {
                for text in list {
                    let text = text.trim();
                    if text.is_empty() {
                        continue;
                    }
                    cell_issues += 1;
                    let key = (kind, issue_key(text));
                    let i = *issue_index.entry(key).or_insert_with(|| {
                        issues.push(Issue {
                            kind,
                            text: text.to_string(),
                            count: 0,
                            session_ids: Vec::new(),
                        });
                        issues.len() - 1
                    });
                    // Sessions come one at a time: a repeat is the last id.
                    if issues[i].session_ids.last() != Some(&s.id) {
                        issues[i].session_ids.push(s.id);
                        issues[i].count += 1;
                    }
                }
            }
        }

        match s.judge_status.as_str() {
            "done" => f.judge.reviewed += 1,
            "failed" => f.judge.failed += 1,
            "pending" => f.judge.pending += 1,
            _ => {}
        }
        if let Some(review) = &s.judge_review
            && s.judge_status == "done"
        {
            for (name, score) in review_scores(review) {
                let d = dims.entry(name).or_default();
                d.0 += score;
                d.1 += 1;
            }
            f.findings.extend(review_findings(s.id, review));
            if simulator_at_fault(review) && !simulator_error {
                f.simulator_faults += 1;
            }
        }

        match &s.seed_ref {
            Some(r) => {
                if !personas.contains(&r.persona_id) {
                    personas.push(r.persona_id.clone());
                }
                if !goals.contains(&r.goal_id) {
                    goals.push(r.goal_id.clone());
                }
                let cell = cells
                    .entry((r.persona_id.clone(), r.goal_id.clone()))
                    .or_insert_with(|| CoverageCell {
                        persona_id: r.persona_id.clone(),
                        goal_id: r.goal_id.clone(),
                        sessions: 0,
                        achieved: 0,
                        issues: 0,
                    });
                cell.sessions += 1;
                if s.experience.as_ref().is_some_and(|e| e.goal_achieved) {
                    cell.achieved += 1;
                }
                cell.issues += cell_issues;
            }
            None => f.coverage.unseeded_sessions += 1,
        }
    }

    f.goal_achievement_rate =
        (f.records > 0).then(|| f64::from(f.goals_achieved) / f64::from(f.records));
    issues.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| (a.kind as u8).cmp(&(b.kind as u8)))
            .then_with(|| a.text.cmp(&b.text))
    });
    f.issues = issues;
    f.findings.sort_by_key(|x| severity_rank(&x.severity));
    f.judge.dimensions = dims
        .into_iter()
        .map(|(name, (sum, count))| {
            (
                name,
                DimensionScore {
                    average: sum / f64::from(count),
                    count,
                },
            )
        })
        .collect();
    for p in &personas {
        for g in &goals {
            let cell = cells
                .remove(&(p.clone(), g.clone()))
                .unwrap_or(CoverageCell {
                    persona_id: p.clone(),
                    goal_id: g.clone(),
                    sessions: 0,
                    achieved: 0,
                    issues: 0,
                });
            f.coverage.cells.push(cell);
        }
    }
    f.coverage.personas = personas;
    f.coverage.goals = goals;
    Some(f)
}

/// The exploration block of a campaign's report, read on a read
/// connection (see [`Platform::read`]); `None` for an unknown campaign.
fn campaign_findings(
    conn: &rusqlite::Connection,
    campaign_id: Uuid,
) -> Result<Option<ExplorationFindings>> {
    let id = campaign_id.to_string();
    let seed_set: Option<String> = conn
        .prepare_cached("SELECT seed_set FROM campaigns WHERE id = ?")?
        .query_row([&id], |r| r.get(0))
        .optional()?;
    let Some(seed_set) = seed_set else {
        return Ok(None);
    };
    let seed_set: SeedSet = serde_json::from_str(&seed_set)?;
    // Each JSON column is parsed straight from the row into its type.
    fn json<T: serde::de::DeserializeOwned>(
        row: &rusqlite::Row<'_>,
        column: &str,
    ) -> Result<Option<T>> {
        Ok(text(row, column)?.map(serde_json::from_str).transpose()?)
    }
    let mut statement = conn.prepare_cached(
        "SELECT id, status, end_reason, trigger_kind, seed_ref, experience, judge_status, judge_review
         FROM exploration_sessions WHERE campaign_id = ? ORDER BY started_at, id",
    )?;
    let mut rows = statement.query([&id])?;
    let mut sessions = Vec::new();
    while let Some(row) = rows.next()? {
        sessions.push(SessionFacts {
            id: parse_id(&row.get::<_, String>("id")?)?,
            status: SessionStatus::parse(&row.get::<_, String>("status")?)?,
            end_reason: row
                .get::<_, Option<String>>("end_reason")?
                .and_then(|s| EndReason::parse(&s)),
            trigger: if row.get::<_, String>("trigger_kind")? == "manual" {
                Trigger::Manual
            } else {
                Trigger::Auto
            },
            seed_ref: json(row, "seed_ref")?,
            experience: json(row, "experience")?,
            judge_status: row.get("judge_status")?,
            judge_review: json(row, "judge_review")?,
        });
    }
    Ok(aggregate(&seed_set, &sessions))
}

impl Platform {
    /// The exploration block of a campaign's report; `None` for an unknown
    /// campaign.
    pub async fn exploration_findings(
        &self,
        campaign_id: Uuid,
    ) -> Result<Option<ExplorationFindings>> {
        self.read(move |conn| campaign_findings(conn, campaign_id))
            .await
    }
}
