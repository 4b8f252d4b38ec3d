//! The exploration block of the campaign report. The report reads it from
//! tallies kept as sessions change (migration 0009); [`aggregate`] computes
//! the same figures from session rows, without a database, and is what the
//! tallies are tested against.

mod issue_keys;

pub use issue_keys::issue_group_key;

use super::SeedRef;
use super::session::{EndReason, ExperienceRecord, SessionStatus, Trigger};
use crate::campaign::SeedSet;
use crate::error::Result;
use crate::platform::Platform;
use crate::store::text;
use crate::target::parse_id;
use rusqlite::OptionalExtension;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
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
    /// Blockers and misled points, grouped by a language-independent key
    /// (see [`issue_group_key`]), most frequent first.
    pub issues: Vec<Issue>,
    /// Emotions of the experience records.
    pub emotions: BTreeMap<String, u32>,
    pub judge: JudgeSummary,
    /// Who judged the reviewed sessions: model names, or `heuristic` for
    /// the offline judge; sorted.
    pub judge_models: Vec<String>,
    /// Every judge finding, poor ones first; a finding a review repeats
    /// (same dimension and text) is listed once per session.
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

impl IssueKind {
    pub fn as_str(self) -> &'static str {
        match self {
            IssueKind::Blocker => "blocker",
            IssueKind::Misled => "misled",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Issue {
    pub kind: IssueKind,
    /// The language-independent key the issue is grouped by: `builtin:...`
    /// for the built-in virtual user's catalogue, else the folded text.
    pub key: String,
    /// The text as first reported.
    pub text: String,
    /// Every distinct phrasing reported (e.g. in English and Chinese), in
    /// the order first seen; at most [`ISSUE_TEXTS_LISTED`].
    pub texts: Vec<String>,
    /// How many sessions reported it.
    pub count: u32,
    /// The first sessions that reported it, at most 50
    /// ([`ISSUE_SESSIONS_LISTED`]); `count` has them all.
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
    /// Persona ids: the seed set's, then any other a session named.
    pub personas: Vec<String>,
    /// Goal ids, likewise.
    pub goals: Vec<String>,
    /// The seed set's persona names by id.
    pub persona_names: BTreeMap<String, String>,
    /// The seed set's goal titles by id.
    pub goal_titles: BTreeMap<String, String>,
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

/// The findings of a review, from its `findings` list.
fn review_findings(session_id: Uuid, findings: &serde_json::Value) -> Vec<JudgeFinding> {
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

/// Who wrote a review: its model, else its method (`heuristic`).
fn review_judge(review: &serde_json::Value) -> Option<String> {
    ["model", "method"].iter().find_map(|k| {
        review
            .get(*k)
            .and_then(|v| v.as_str())
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
    })
}

fn simulator_at_fault(review: &serde_json::Value) -> bool {
    review.get("simulator_fault").and_then(|v| v.as_bool()) == Some(true)
        || review
            .get("simulator")
            .and_then(|s| s.get("at_fault"))
            .and_then(|v| v.as_bool())
            == Some(true)
}

/// How many sessions an issue lists; its count has them all.
pub const ISSUE_SESSIONS_LISTED: usize = 50;
/// How many phrasings an issue lists.
pub const ISSUE_TEXTS_LISTED: usize = 20;

/// The issues an experience record reports, each (kind, key) once, with
/// the text as written.
fn reported_issues(e: &ExperienceRecord) -> Vec<(IssueKind, String, &str)> {
    let mut out: Vec<(IssueKind, String, &str)> = Vec::new();
    for (kind, list) in [
        (IssueKind::Blocker, &e.blockers),
        (IssueKind::Misled, &e.misled),
    ] {
        for text in list.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
            let key = issue_group_key(text);
            if !out.iter().any(|(k, key2, _)| *k == kind && *key2 == key) {
                out.push((kind, key, text));
            }
        }
    }
    out
}

/// Blockers and misled points of an experience record, blanks left out.
fn issue_count(e: &ExperienceRecord) -> u32 {
    let blank = |t: &&String| t.trim().is_empty();
    (e.blockers.iter().filter(|t| !blank(t)).count()
        + e.misled.iter().filter(|t| !blank(t)).count()) as u32
}

/// Adds a closed session's issues to the campaign's issue tally, in the
/// transaction that closes it (see migration 0009).
pub(crate) fn record_issues(
    conn: &rusqlite::Connection,
    campaign_id: Uuid,
    session_id: Uuid,
    record: &ExperienceRecord,
) -> rusqlite::Result<()> {
    let mut upsert = conn.prepare_cached(
        "INSERT INTO session_issue_tally (campaign_id, kind, key, text, sessions, session_ids, texts)
         VALUES (?1, ?2, ?3, ?4, 1, json_array(?5), json_array(?4))
         ON CONFLICT DO UPDATE SET sessions = sessions + 1,
             session_ids = CASE WHEN json_array_length(session_ids) < ?6
                                THEN json_insert(session_ids, '$[#]', ?5) ELSE session_ids END,
             texts = CASE WHEN json_array_length(texts) < ?7
                               AND NOT EXISTS (SELECT 1 FROM json_each(texts) WHERE value = ?4)
                          THEN json_insert(texts, '$[#]', ?4) ELSE texts END",
    )?;
    for (kind, key, text) in reported_issues(record) {
        upsert.execute(rusqlite::params![
            campaign_id.to_string(),
            kind.as_str(),
            key,
            text,
            session_id.to_string(),
            ISSUE_SESSIONS_LISTED as i64,
            ISSUE_TEXTS_LISTED as i64,
        ])?;
    }
    Ok(())
}

/// Fills the issue tally from the sessions already closed, once, when a
/// database is first opened after migration 0009 or 0011 (which changed
/// the keys and added the phrasings).
pub(crate) fn backfill_issues(conn: &rusqlite::Connection) -> Result<()> {
    if !crate::store::backfill_pending(conn, "session_issue_tally")? {
        return Ok(());
    }
    conn.execute("DELETE FROM session_issue_tally", [])?;
    let mut statement = conn.prepare(
        "SELECT id, campaign_id, experience FROM exploration_sessions
         WHERE experience IS NOT NULL AND coalesce(end_reason, '') != 'simulator_error'
         ORDER BY ended_at, id",
    )?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let Ok(record) =
            serde_json::from_str::<ExperienceRecord>(text(row, "experience")?.unwrap_or_default())
        else {
            continue;
        };
        let session = parse_id(text(row, "id")?.unwrap_or_default())?;
        let campaign = parse_id(text(row, "campaign_id")?.unwrap_or_default())?;
        record_issues(conn, campaign, session, &record)?;
    }
    crate::store::backfill_done(conn, "session_issue_tally")?;
    Ok(())
}

/// What one session, or a tally row of like sessions, adds to the counts.
struct SessionGroup<'a> {
    status: &'a str,
    end_reason: Option<EndReason>,
    trigger: Trigger,
    judge_status: &'a str,
    seed: Option<(&'a str, &'a str)>,
    /// A record that counts (the session is not a simulator error).
    has_experience: bool,
    /// Of which the session completed.
    record: bool,
    /// The record (any) says the goal was achieved.
    goal_achieved: bool,
    emotion: &'a str,
    simulator_fault: bool,
    sessions: u32,
    issues: u32,
}

/// The exploration findings being added up, from tallies or from sessions.
struct FindingsAcc {
    f: ExplorationFindings,
    issues: Vec<Issue>,
    issue_index: HashMap<(IssueKind, String), usize>,
    /// Findings listed so far: session, dimension, text.
    findings_seen: HashSet<(Uuid, Option<String>, String)>,
    dims: BTreeMap<String, (f64, u32)>,
    seeded_personas: Vec<String>,
    seeded_goals: Vec<String>,
    cells: BTreeMap<(String, String), CoverageCell>,
}

impl FindingsAcc {
    fn new(seed_set: &SeedSet) -> Self {
        let mut f = ExplorationFindings::default();
        for s in SessionStatus::ALL {
            f.sessions_by_status.insert(s.as_str().into(), 0);
        }
        f.coverage.persona_names = seed_set
            .personas
            .iter()
            .map(|p| (p.id.clone(), p.name.clone()))
            .collect();
        f.coverage.goal_titles = seed_set
            .goals
            .iter()
            .map(|g| (g.id.clone(), g.title.clone()))
            .collect();
        FindingsAcc {
            f,
            issues: Vec::new(),
            issue_index: HashMap::new(),
            findings_seen: HashSet::new(),
            dims: BTreeMap::new(),
            seeded_personas: seed_set.personas.iter().map(|p| p.id.clone()).collect(),
            seeded_goals: seed_set.goals.iter().map(|g| g.id.clone()).collect(),
            cells: BTreeMap::new(),
        }
    }

    fn sessions(&mut self, g: SessionGroup<'_>) {
        let (f, n) = (&mut self.f, g.sessions);
        f.sessions_total += n;
        *f.sessions_by_status.entry(g.status.into()).or_default() += n;
        if let Some(r) = g.end_reason {
            *f.sessions_by_end_reason
                .entry(r.as_str().into())
                .or_default() += n;
        }
        *f.sessions_by_trigger
            .entry(g.trigger.as_str().into())
            .or_default() += n;
        if g.simulator_fault {
            f.simulator_faults += n;
        }
        if g.has_experience {
            if g.record {
                f.records += n;
                if g.goal_achieved {
                    f.goals_achieved += n;
                }
            }
            *f.emotions.entry(g.emotion.into()).or_default() += n;
        }
        match g.judge_status {
            "done" => f.judge.reviewed += n,
            "failed" => f.judge.failed += n,
            "pending" => f.judge.pending += n,
            _ => {}
        }
        match g.seed {
            Some((persona, goal)) => {
                let cell = self
                    .cells
                    .entry((persona.to_string(), goal.to_string()))
                    .or_insert_with(|| CoverageCell {
                        persona_id: persona.to_string(),
                        goal_id: goal.to_string(),
                        sessions: 0,
                        achieved: 0,
                        issues: 0,
                    });
                cell.sessions += n;
                if g.goal_achieved {
                    cell.achieved += n;
                }
                cell.issues += g.issues;
            }
            None => f.coverage.unseeded_sessions += n,
        }
    }

    /// An issue reported by `sessions` sessions in the phrasings `texts`
    /// (`text` first), the first of the sessions listed.
    fn issue(
        &mut self,
        kind: IssueKind,
        key: String,
        text: &str,
        texts: &[String],
        sessions: u32,
        ids: &[Uuid],
    ) {
        let issues = &mut self.issues;
        let i = *self
            .issue_index
            .entry((kind, key.clone()))
            .or_insert_with(|| {
                issues.push(Issue {
                    kind,
                    key,
                    text: text.to_string(),
                    texts: Vec::new(),
                    count: 0,
                    session_ids: Vec::new(),
                });
                issues.len() - 1
            });
        let issue = &mut issues[i];
        issue.count += sessions;
        let room = ISSUE_SESSIONS_LISTED.saturating_sub(issue.session_ids.len());
        issue.session_ids.extend(ids.iter().take(room));
        for t in std::iter::once(text).chain(texts.iter().map(String::as_str)) {
            if issue.texts.len() < ISSUE_TEXTS_LISTED && !issue.texts.iter().any(|x| x == t) {
                issue.texts.push(t.to_string());
            }
        }
    }

    /// A judge finding, unless the session's review already gave it.
    fn finding(&mut self, f: JudgeFinding) {
        if self
            .findings_seen
            .insert((f.session_id, f.dimension.clone(), f.text.clone()))
        {
            self.f.findings.push(f);
        }
    }

    /// A judge that reviewed some of the sessions.
    fn judge_model(&mut self, name: &str) {
        let name = name.trim();
        if !name.is_empty() && !self.f.judge_models.iter().any(|m| m == name) {
            self.f.judge_models.push(name.to_string());
        }
    }

    fn score(&mut self, name: &str, sum: f64, count: u32) {
        let d = self.dims.entry(name.to_string()).or_default();
        d.0 += sum;
        d.1 += count;
    }

    /// `None` when the campaign has no session.
    fn finish(self) -> Option<ExplorationFindings> {
        let FindingsAcc {
            mut f,
            mut issues,
            dims,
            seeded_personas: mut personas,
            seeded_goals: mut goals,
            mut cells,
            ..
        } = self;
        if f.sessions_total == 0 {
            return None;
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
        f.judge_models.sort();
        f.judge.dimensions = dims
            .into_iter()
            .map(|(name, (sum, count))| {
                let average = sum / f64::from(count);
                (name, DimensionScore { average, count })
            })
            .collect();
        // Personas and goals outside the seed set follow it, by id.
        let extra = |known: &Vec<String>, ids: Vec<&String>| -> Vec<String> {
            let mut ids: Vec<String> = ids
                .into_iter()
                .filter(|id| !known.contains(id))
                .cloned()
                .collect();
            ids.sort();
            ids.dedup();
            ids
        };
        let more_personas = extra(&personas, cells.keys().map(|(p, _)| p).collect());
        let more_goals = extra(&goals, cells.keys().map(|(_, g)| g).collect());
        personas.extend(more_personas);
        goals.extend(more_goals);
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
}

/// Aggregates a campaign's sessions, in start order; `None` when there is
/// none. The report reads the same figures from tallies kept as sessions
/// change (see [`Platform::exploration_findings`]).
pub fn aggregate(seed_set: &SeedSet, sessions: &[SessionFacts]) -> Option<ExplorationFindings> {
    let mut acc = FindingsAcc::new(seed_set);
    for s in sessions {
        // A session the virtual user could not carry is the simulator's
        // fault: its record says nothing about the target, so it stays out
        // of the achievement rate, the emotions and the issues.
        let simulator_error = s.end_reason == Some(EndReason::SimulatorError);
        let counted = s.experience.as_ref().filter(|_| !simulator_error);
        if let Some(e) = counted {
            for (kind, key, text) in reported_issues(e) {
                acc.issue(kind, key, text, &[], 1, &[s.id]);
            }
        }
        let review = s.judge_review.as_ref().filter(|_| s.judge_status == "done");
        if let Some(review) = review {
            for (name, score) in review_scores(review) {
                acc.score(&name, score, 1);
            }
            if let Some(findings) = review.get("findings") {
                for f in review_findings(s.id, findings) {
                    acc.finding(f);
                }
            }
            if let Some(judge) = review_judge(review) {
                acc.judge_model(&judge);
            }
        }
        acc.sessions(SessionGroup {
            status: s.status.as_str(),
            end_reason: s.end_reason,
            trigger: s.trigger,
            judge_status: &s.judge_status,
            seed: s
                .seed_ref
                .as_ref()
                .map(|r| (r.persona_id.as_str(), r.goal_id.as_str())),
            has_experience: counted.is_some(),
            record: counted.is_some() && s.status == SessionStatus::Completed,
            goal_achieved: s.experience.as_ref().is_some_and(|e| e.goal_achieved),
            emotion: counted.map_or("", |e| e.emotion.as_str()),
            simulator_fault: simulator_error || review.is_some_and(simulator_at_fault),
            sessions: 1,
            issues: counted.map_or(0, issue_count),
        });
    }
    acc.finish()
}

/// The exploration block of a campaign's report, from the tallies that
/// migration 0009 keeps and the reviewed sessions' findings, read on a read
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
    let mut acc = FindingsAcc::new(&serde_json::from_str(&seed_set)?);

    let mut statement =
        conn.prepare_cached("SELECT * FROM session_tally WHERE campaign_id = ? AND sessions > 0")?;
    let mut rows = statement.query([&id])?;
    while let Some(row) = rows.next()? {
        let seeded: bool = row.get("seeded")?;
        let seed = match seeded {
            true => Some((
                text(row, "persona_id")?.unwrap_or_default(),
                text(row, "goal_id")?.unwrap_or_default(),
            )),
            false => None,
        };
        acc.sessions(SessionGroup {
            status: text(row, "status")?.unwrap_or_default(),
            end_reason: text(row, "end_reason")?.and_then(EndReason::parse),
            trigger: match text(row, "trigger_kind")? {
                Some("manual") => Trigger::Manual,
                _ => Trigger::Auto,
            },
            judge_status: text(row, "judge_status")?.unwrap_or_default(),
            seed,
            has_experience: row.get("has_experience")?,
            record: row.get("record")?,
            goal_achieved: row.get("goal_achieved")?,
            emotion: text(row, "emotion")?.unwrap_or_default(),
            simulator_fault: row.get("simulator_fault")?,
            sessions: row.get("sessions")?,
            issues: row.get("issues")?,
        });
    }

    let mut statement = conn.prepare_cached(
        "SELECT name, score_sum, count FROM session_dimension_tally
         WHERE campaign_id = ? AND count > 0",
    )?;
    let mut rows = statement.query([&id])?;
    while let Some(row) = rows.next()? {
        acc.score(
            text(row, "name")?.unwrap_or_default(),
            row.get("score_sum")?,
            row.get("count")?,
        );
    }

    let mut statement = conn.prepare_cached(
        "SELECT kind, key, text, sessions, session_ids, texts FROM session_issue_tally
         WHERE campaign_id = ?",
    )?;
    let mut rows = statement.query([&id])?;
    while let Some(row) = rows.next()? {
        let kind = match text(row, "kind")? {
            Some("misled") => IssueKind::Misled,
            _ => IssueKind::Blocker,
        };
        let ids: Vec<Uuid> = serde_json::from_str(text(row, "session_ids")?.unwrap_or("[]"))?;
        let texts: Vec<String> = serde_json::from_str(text(row, "texts")?.unwrap_or("[]"))?;
        acc.issue(
            kind,
            row.get("key")?,
            text(row, "text")?.unwrap_or_default(),
            &texts,
            row.get("sessions")?,
            &ids,
        );
    }

    let mut statement = conn.prepare_cached(
        "SELECT session_id, severity, dimension, text, evidence, turn FROM session_findings
         WHERE campaign_id = ? ORDER BY started_at, session_id, seq",
    )?;
    let mut rows = statement.query([&id])?;
    while let Some(row) = rows.next()? {
        acc.finding(JudgeFinding {
            session_id: parse_id(text(row, "session_id")?.unwrap_or_default())?,
            severity: row.get("severity")?,
            dimension: row.get("dimension")?,
            text: row.get("text")?,
            evidence: row.get("evidence")?,
            turn: row.get("turn")?,
        });
    }

    // Who judged: read from the reviews of the campaign's sessions (a
    // campaign's sessions are bounded by its budget).
    let mut statement = conn.prepare_cached(
        "SELECT DISTINCT coalesce(nullif(judge_review ->> '$.model', ''), judge_review ->> '$.method')
         FROM exploration_sessions
         WHERE campaign_id = ? AND judge_status = 'done' AND json_valid(judge_review)",
    )?;
    let mut rows = statement.query([&id])?;
    while let Some(row) = rows.next()? {
        if let Some(judge) = row.get_ref(0)?.as_str_or_null().ok().flatten() {
            acc.judge_model(judge);
        }
    }
    Ok(acc.finish())
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
