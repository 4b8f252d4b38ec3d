//! Exploration sessions: create, message, close, fail, and the read side
//! used for drill-down.
//!
//! Every create/message/close is a budget decision taken against the ledger
//! (see [`super::ledger`]), taken on the group-commit writer's thread. The
//! target is never called inside a decision: a message first reserves its
//! turn (check + increment + ledger row, committed), then talks to the
//! target, then stores the reply. Concurrent messages therefore can never
//! exceed the turn limit, and a slow target never blocks other sessions'
//! decisions.
//!
//! Here: the session's types. `guardrails.rs`: what a decision reads and
//! how it is taken; `operations.rs`: the operations themselves.

use super::ledger::{Decided, Entry, LedgerAction};
use super::{SeedRef, issue_key, normalize_emotion};
use crate::campaign::{Campaign, CampaignStatus, Line};
use crate::channel::{ChatMessage, ChatRequest, ToolCall};
use crate::clock::{from_ms, to_ms};
use crate::error::{Error, ErrorCode, Result};
use crate::platform::{Event, Platform};
use crate::store::Tx;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

mod guardrails;
mod operations;

pub(crate) use guardrails::{CampaignWindow, SessionState, campaign_running, min_interval};

/// Largest persona or goal accepted, as serialised JSON.
pub const MAX_PERSONA_GOAL_BYTES: usize = 16 * 1024;
/// Largest user message accepted.
pub const MAX_MESSAGE_BYTES: usize = 8 * 1024;
pub const MAX_ISSUE_CHARS: usize = 500;
pub const MAX_ISSUES: usize = 50;
pub const MAX_NOTES_CHARS: usize = 4000;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    Running,
    Completed,
    Failed,
    Expired,
}

impl SessionStatus {
    pub const ALL: [Self; 4] = [Self::Running, Self::Completed, Self::Failed, Self::Expired];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Expired => "expired",
        }
    }

    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "running" => Self::Running,
            "completed" => Self::Completed,
            "failed" => Self::Failed,
            "expired" => Self::Expired,
            other => {
                return Err(Error::internal(anyhow::anyhow!(
                    "unknown session status {other}"
                )));
            }
        })
    }
}

/// Who started a session: the patrol (auto) or a person debugging (manual).
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
pub enum Trigger {
    #[default]
    Auto,
    Manual,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Manual => "manual",
        }
    }

    pub(crate) fn parse(s: &str) -> Self {
        if s == "manual" {
            Self::Manual
        } else {
            Self::Auto
        }
    }
}

/// Who played the user in a session: a person typing in the app, an
/// external assistant over the HTTP API, the built-in persona engine, or a
/// configured virtual-user model. Apart from the trigger (who started it).
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
pub enum PlayedBy {
    Person,
    #[default]
    Assistant,
    Builtin,
    Model,
}

impl PlayedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Person => "person",
            Self::Assistant => "assistant",
            Self::Builtin => "builtin",
            Self::Model => "model",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "person" => Self::Person,
            "assistant" => Self::Assistant,
            "builtin" => Self::Builtin,
            "model" => Self::Model,
            _ => return None,
        })
    }
}

/// Longest model name stored with a session.
pub const MAX_USER_MODEL_CHARS: usize = 200;

/// Why a session ended. Every ended session carries one.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    UserGoalMet,
    UserGaveUp,
    MaxTurns,
    TargetError,
    SimulatorError,
    BudgetExhausted,
    Expired,
}

impl EndReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UserGoalMet => "user_goal_met",
            Self::UserGaveUp => "user_gave_up",
            Self::MaxTurns => "max_turns",
            Self::TargetError => "target_error",
            Self::SimulatorError => "simulator_error",
            Self::BudgetExhausted => "budget_exhausted",
            Self::Expired => "expired",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "user_goal_met" => Self::UserGoalMet,
            "user_gave_up" => Self::UserGaveUp,
            "max_turns" => Self::MaxTurns,
            "target_error" => Self::TargetError,
            "simulator_error" => Self::SimulatorError,
            "budget_exhausted" => Self::BudgetExhausted,
            "expired" => Self::Expired,
            _ => return None,
        })
    }
}

/// The virtual user's structured self-report, normalised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ExperienceRecord {
    pub goal_achieved: bool,
    pub blockers: Vec<String>,
    pub misled: Vec<String>,
    /// One of [`super::EMOTIONS`].
    pub emotion: String,
    /// What the client sent when it was not already one of the allowed
    /// emotions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emotion_raw: Option<String>,
    #[serde(default)]
    pub notes: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ExplorationSession {
    pub id: Uuid,
    pub campaign_id: Uuid,
    pub target_id: Uuid,
    #[schema(value_type = Object)]
    pub persona: serde_json::Value,
    #[schema(value_type = Object)]
    pub goal: serde_json::Value,
    pub seed_ref: Option<SeedRef>,
    pub status: SessionStatus,
    pub trigger: Trigger,
    /// Who played the user.
    pub played_by: PlayedBy,
    /// The model's name when `played_by` is `model`.
    pub user_model: Option<String>,
    pub end_reason: Option<EndReason>,
    pub experience: Option<ExperienceRecord>,
    /// `none`, `pending`, `done` or `failed`.
    pub judge_status: String,
    #[schema(value_type = Option<Object>)]
    pub judge_review: Option<serde_json::Value>,
    /// What the check of the virtual user found once the session ended
    /// (empty: nothing); `None` while it runs.
    pub simulator_faults: Option<Vec<crate::exploration::SimulatorFault>>,
    /// User turns so far.
    pub turn_count: u32,
    pub failure_reason: Option<String>,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CreateSession {
    pub campaign_id: Uuid,
    /// A JSON object describing the virtual user (or a plain description).
    #[schema(value_type = Object)]
    pub persona: serde_json::Value,
    /// What the user wants: a string or a JSON object.
    #[schema(value_type = Object)]
    pub goal: serde_json::Value,
    #[serde(default)]
    pub seed_ref: Option<SeedRef>,
    #[serde(default)]
    pub trigger: Option<Trigger>,
    /// Who plays the user (default `assistant`: a client of the API).
    #[serde(default)]
    pub played_by: Option<PlayedBy>,
    /// The model's name, only with `played_by: "model"`.
    #[serde(default)]
    pub user_model: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SendMessage {
    pub content: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct MessageReply {
    pub session_id: Uuid,
    /// The target's reply.
    pub reply: String,
    pub latency_ms: u64,
    /// Which user turn this was (1-based).
    pub turn: u32,
    pub turns_remaining: u32,
    pub max_turns: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
}

/// The experience record as sent by the client; normalised on close.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CloseSession {
    pub goal_achieved: bool,
    #[serde(default)]
    pub blockers: Option<Vec<String>>,
    #[serde(default)]
    pub misled: Option<Vec<String>>,
    #[serde(default)]
    pub emotion: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    /// Defaults to `user_goal_met` when the goal was achieved, else
    /// `user_gave_up`.
    #[serde(default)]
    pub end_reason: Option<EndReason>,
}

/// A session the virtual user or the agent could not carry on.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct FailSession {
    pub reason: String,
    /// Defaults to `simulator_error`.
    #[serde(default)]
    pub end_reason: Option<EndReason>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TurnRole {
    User,
    Target,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SessionTurn {
    pub seq: u32,
    pub role: TurnRole,
    pub content: String,
    pub latency_ms: Option<u64>,
    pub created_at: DateTime<Utc>,
}

/// One session for drill-down: the session (status, end reason, experience
/// record, judge review) and its whole conversation.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SessionTranscript {
    #[serde(flatten)]
    pub session: ExplorationSession,
    pub messages: Vec<SessionTurn>,
}
