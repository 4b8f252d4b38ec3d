//! Fixed scenarios: scripted multi-turn conversations with checks, as
//! loaded and validated (the file format: `scenarios/README.md`).

use crate::chat::{ToolSpec, Tools};
use serde::{Deserialize, Serialize};

/// A fixed scenario as loaded and validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Scenario {
    /// Stable id from the file, unique across all loaded packs.
    pub id: String,
    pub title: String,
    /// Pack name (the folder).
    pub pack: String,
    #[serde(default)]
    pub tags: Vec<String>,
    /// Difficulty group, e.g. `basic`, `intermediate`, `advanced`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// A system prompt sent before the conversation, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// Facts given to the target: the only numbers it may state
    /// (`no_unverified_numbers`).
    #[serde(default)]
    pub facts: Vec<String>,
    /// Fields the final answer must cover (key-field coverage).
    #[serde(default)]
    pub key_fields: Vec<String>,
    /// OpenAI tool definitions offered to the target.
    #[serde(default)]
    #[specta(type = Vec<ToolSpec>)]
    #[schema(value_type = Vec<ToolSpec>)]
    pub tools: Tools,
    /// A folder of real files each run gets a private copy of; the engine
    /// plays the office tools over that copy (`docs/OFFICE_TOOLS.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<WorkspaceRef>,
    /// Tool rounds a turn may take (default
    /// [`crate::steps::DEFAULT_MAX_STEPS`]); a turn may set its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u32>,
    pub turns: Vec<ScenarioTurn>,
    /// File the scenario came from, relative to the scenarios root.
    pub source_file: String,
    /// One of the packs shipped with AgentEval (built into the binary),
    /// rather than a folder's: the user's own, or a replacement.
    #[serde(default)]
    pub shipped: bool,
    /// 1-based line of the scenario in its file.
    pub source_line: u32,
    /// SHA-256 of the scenario's canonical definition.
    pub content_hash: String,
    /// Where it came from, when it was drafted from an exploration finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lineage: Option<Lineage>,
    /// Where it came from, when it was drafted from a production
    /// conversation (an imported trace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_traces: Option<TraceLineage>,
}

/// A scenario's workspace: the folder as the pack names it, where its files
/// are, and a hash of them (part of the scenario's content hash, so that a
/// changed file makes a new version of the scenario).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct WorkspaceRef {
    /// As written in the pack file, relative to the file's folder.
    pub folder: String,
    /// The folder on disk (absolute); for a shipped pack, the path under
    /// the packs built into the binary.
    pub location: String,
    /// SHA-256 over every file's path and bytes.
    pub files_hash: String,
}

/// The production conversation a scenario was drafted from: the imported
/// conversation, its conversation id (or trace id) and its traces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceLineage {
    pub conversation_id: uuid::Uuid,
    pub key: String,
    pub trace_ids: Vec<String>,
}

/// The exploration finding a regression scenario was drafted from: the
/// campaign, the session, the turn (1-based user turn) and the finding in
/// words, as it was written then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Lineage {
    pub campaign_id: crate::ids::CampaignId,
    pub session_id: crate::ids::SessionId,
    pub turn: u32,
    pub finding: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ScenarioTurn {
    /// What the user says.
    pub user: String,
    #[serde(default)]
    pub checks: Vec<Check>,
    /// Tool rounds this turn may take, instead of the scenario's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u32>,
}

impl Scenario {
    /// Tool rounds turn `i` may take.
    pub fn max_steps(&self, i: usize) -> u32 {
        self.turns
            .get(i)
            .and_then(|t| t.max_steps)
            .or(self.max_steps)
            .unwrap_or(crate::steps::DEFAULT_MAX_STEPS)
    }

    /// Whether the engine plays any of its tools (one declares responses):
    /// then a turn goes on after a tool call until the target answers in
    /// words or reaches its step limit.
    pub fn plays_tools(&self) -> bool {
        self.workspace.is_some() || self.tools.iter().any(|t| !t.responses.is_empty())
    }

    /// Whether a run's result depends on a document or file the agent must
    /// produce: a `document` or `file_exists` check.
    pub fn asks_for_output(&self) -> bool {
        self.turns
            .iter()
            .flat_map(|t| &t.checks)
            .any(|c| matches!(c, Check::Document { .. } | Check::FileExists { .. }))
    }
}

/// A call a `tool_sequence` expects: the tool, and arguments the call's
/// must hold (a subset).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExpectedCall {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<serde_json::Value>,
}

/// How a `tool_sequence` reads the order of the calls.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    specta::Type,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CallOrder {
    /// The calls are exactly these, in this order, and no other.
    Exact,
    /// These calls happen in this order; others may come between.
    #[default]
    InOrder,
    /// These calls happen, in any order.
    AnyOrder,
}

/// A check on the target's reply to one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Check {
    /// The reply contains `value` (case-insensitive unless `case_sensitive`);
    /// with `any`, one of several values.
    Contains {
        #[serde(default)]
        value: Option<String>,
        #[serde(default)]
        any: Vec<String>,
        #[serde(default)]
        case_sensitive: bool,
    },
    /// The reply contains none of the values.
    NotContains {
        #[serde(default)]
        value: Option<String>,
        #[serde(default)]
        any: Vec<String>,
        #[serde(default)]
        case_sensitive: bool,
    },
    /// The reply matches the regular expression.
    Regex { pattern: String },
    /// The reply (or the first JSON object in it) has a value at `path`,
    /// optionally equal to `equals`. When the reply holds no JSON, or the
    /// path finds nothing there, the arguments of each tool call are tried.
    JsonPath {
        path: String,
        #[serde(default)]
        equals: Option<serde_json::Value>,
    },
    /// The reply arrived within `ms` milliseconds.
    MaxLatencyMs { ms: u64 },
    /// The target called tool `name` (in any step of the turn) with
    /// arguments valid against `arguments_schema`.
    ToolCalled {
        name: String,
        #[serde(default)]
        arguments_schema: Option<serde_json::Value>,
    },
    /// The target asks back for a missing required parameter (optionally
    /// naming `field`) instead of acting.
    AsksClarification {
        #[serde(default)]
        field: Option<String>,
    },
    /// Every number in the reply appears in the scenario's facts, what the
    /// user said, or a tool result of the run.
    NoUnverifiedNumbers,
    /// The turn's calls follow this sequence (see [`CallOrder`]).
    ToolSequence {
        calls: Vec<ExpectedCall>,
        #[serde(default)]
        order: CallOrder,
    },
    /// The target never called tool `name` in the turn.
    ToolNotCalled { name: String },
    /// Every call of the turn named an offered tool, with valid arguments.
    NoUnknownTools,
    /// After a tool error the target repeats the identical failing call at
    /// most `max_repeats` times (default 0), and after 3 consecutive
    /// errors stops calling tools and tells the user.
    RecoversFromError {
        #[serde(default)]
        max_repeats: Option<u32>,
    },
    /// The reply is not the target's previous reply again (ignoring case
    /// and spacing): a reply repeated until the user gives up.
    NoRepeat,
    /// A document the agent created or changed in the run's workspace (its
    /// path matching the glob `path`; any when omitted) holds every value
    /// of `contains` (case-insensitive) and a heading for each of
    /// `sections`.
    Document {
        #[serde(default)]
        path: Option<String>,
        #[serde(default)]
        contains: Vec<String>,
        #[serde(default)]
        sections: Vec<String>,
    },
    /// A file matching the glob `path` exists in the run's workspace.
    FileExists { path: String },
    /// A judge scores the reply against the rubric (1-5); passes at
    /// `min_score` (default 3). Offline, a heuristic judge scores it.
    Rubric {
        rubric: String,
        #[serde(default)]
        min_score: Option<u8>,
    },
}

impl Check {
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Contains { .. } => "contains",
            Self::NotContains { .. } => "not_contains",
            Self::Regex { .. } => "regex",
            Self::JsonPath { .. } => "json_path",
            Self::MaxLatencyMs { .. } => "max_latency_ms",
            Self::ToolCalled { .. } => "tool_called",
            Self::AsksClarification { .. } => "asks_clarification",
            Self::NoUnverifiedNumbers => "no_unverified_numbers",
            Self::ToolSequence { .. } => "tool_sequence",
            Self::ToolNotCalled { .. } => "tool_not_called",
            Self::NoUnknownTools => "no_unknown_tools",
            Self::RecoversFromError { .. } => "recovers_from_error",
            Self::NoRepeat => "no_repeat",
            Self::Document { .. } => "document",
            Self::FileExists { .. } => "file_exists",
            Self::Rubric { .. } => "rubric",
        }
    }
}

/// Summary shown in lists.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ScenarioSummary {
    pub id: String,
    pub title: String,
    pub tags: Vec<String>,
    pub pack: String,
    pub group: Option<String>,
    pub turns: u32,
    /// A shipped pack's, or one from a folder (the user's own packs).
    pub shipped: bool,
    /// The engine plays its tools (declared responses, a workspace): it
    /// can be a campaign's tool environment for exploration.
    #[serde(default)]
    pub plays_tools: bool,
}

impl From<&Scenario> for ScenarioSummary {
    fn from(s: &Scenario) -> Self {
        Self {
            id: s.id.clone(),
            title: s.title.clone(),
            tags: s.tags.clone(),
            pack: s.pack.clone(),
            group: s.group.clone(),
            turns: s.turns.len() as u32,
            shipped: s.shipped,
            plays_tools: s.plays_tools(),
        }
    }
}
