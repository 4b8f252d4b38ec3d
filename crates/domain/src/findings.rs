//! The exploration block of a campaign report: issues, judge summary and
//! findings, coverage, simulator faults; and what the aggregation reads of
//! a session or of a tally row of like sessions.

use crate::i18n::{Msg, Text};
use crate::ids::SessionId;
use crate::session::{
    EndReason, ExperienceRecord, SeedRef, SessionStatus, SimulatorFault, Trigger,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How many sessions an issue lists; its count has them all.
pub const ISSUE_SESSIONS_LISTED: usize = 50;
/// How many phrasings an issue lists.
pub const ISSUE_TEXTS_LISTED: usize = 20;

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
    /// What the check of the virtual user found, per fault kind (every
    /// kind appears, with 0 when no session has it).
    pub simulator_fault_kinds: BTreeMap<String, FaultCount>,
    /// What the judge found in the targets' steps, per kind
    /// (`unknown-tool`, `repeated-failed-call`, `claimed-failed`,
    /// `claimed-no-step`): sessions with one, and findings; only the kinds
    /// found.
    #[serde(default)]
    pub trajectory_kinds: BTreeMap<String, FaultCount>,
}

/// Faults of one kind in a campaign.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    specta::Type,
    utoipa::ToSchema,
)]
pub struct FaultCount {
    /// Sessions with at least one fault of the kind.
    pub sessions: u32,
    /// Faults of the kind (a session may have several).
    pub faults: u32,
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
    /// The issue in one phrasing per language, when it is one of the
    /// built-in virtual user's (a count it carries is a parameter, so one
    /// issue is one line); `None` for free text, shown as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg: Option<Msg>,
    /// Every distinct phrasing reported (e.g. in English and Chinese), in
    /// the order first seen; at most [`ISSUE_TEXTS_LISTED`].
    pub texts: Vec<String>,
    /// How many sessions reported it.
    pub count: u32,
    /// The first sessions that reported it, at most 50
    /// ([`ISSUE_SESSIONS_LISTED`]); `count` has them all.
    pub session_ids: Vec<SessionId>,
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
    pub session_id: SessionId,
    /// As the judge wrote it, e.g. `poor`, `fair`, `good`.
    pub severity: String,
    pub dimension: Option<String>,
    pub text: Text,
    pub evidence: Option<Text>,
    /// The round (1-based user turn) the finding refers to, when known.
    pub turn: Option<u32>,
    /// The step of that round (1-based) the finding is about, when known.
    #[serde(default)]
    pub step: Option<u32>,
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
    /// Production conversations of the campaign's target (imported
    /// traces) placed on the grid, and those that fit no cell.
    #[serde(default)]
    pub production_conversations: u32,
    #[serde(default)]
    pub production_unplaced: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CoverageCell {
    pub persona_id: String,
    pub goal_id: String,
    pub sessions: u32,
    pub achieved: u32,
    /// Blockers and misled points reported in this cell.
    pub issues: u32,
    /// Production conversations that fall on this cell: with no session,
    /// a cell production hits that exploration never tried.
    #[serde(default)]
    pub production: u32,
}

/// What the aggregation needs of one session.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionFacts {
    pub id: SessionId,
    pub status: SessionStatus,
    pub end_reason: Option<EndReason>,
    pub trigger: Trigger,
    pub seed_ref: Option<SeedRef>,
    pub experience: Option<ExperienceRecord>,
    /// `none`, `pending`, `done` or `failed`.
    pub judge_status: String,
    pub judge_review: Option<serde_json::Value>,
    /// What the check of the virtual user found (empty when unchecked).
    pub simulator_faults: Vec<SimulatorFault>,
}

/// What one session, or a tally row of like sessions, adds to the counts.
pub struct SessionGroup<'a> {
    pub status: &'a str,
    pub end_reason: Option<EndReason>,
    pub trigger: Trigger,
    pub judge_status: &'a str,
    pub seed: Option<(&'a str, &'a str)>,
    /// A record that counts (the session is not a simulator error).
    pub has_experience: bool,
    /// Of which the session completed.
    pub record: bool,
    /// The record (any) says the goal was achieved.
    pub goal_achieved: bool,
    pub emotion: &'a str,
    pub simulator_fault: bool,
    pub sessions: u32,
    pub issues: u32,
}

impl SessionGroup<'_> {
    /// The sessions of the group whose record counts towards goal
    /// achievement, and of them those whose record says the goal was met.
    pub fn goal_counts(&self) -> (u32, u32) {
        if !(self.has_experience && self.record) {
            return (0, 0);
        }
        (
            self.sessions,
            if self.goal_achieved { self.sessions } else { 0 },
        )
    }
}
