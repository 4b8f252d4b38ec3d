//! Exploration sessions as the platform keeps them: where a session's
//! persona and goal come from, its status, trigger, end and experience
//! record, its turns, and the requests that create, message and close it.

use crate::campaign::{Campaign, CampaignStatus};
use crate::chat::ToolCall;
use crate::clock::to_ms;
use crate::error::{Error, ErrorCode, Result};
use crate::i18n::Text;
use crate::ids::{CampaignId, SessionId, TargetId};
use crate::ledger::{Entry, LedgerAction};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Where a session's persona and goal come from. Auto-triggered sessions
/// must name seeds of the campaign's seed set; a variant says how it was
/// derived from them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SeedRef {
    pub persona_id: String,
    pub goal_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<Variant>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Variant {
    pub kind: VariantKind,
    #[serde(default)]
    pub note: String,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum VariantKind {
    /// Same goal, expressed differently.
    RephrasedGoal,
    /// Same persona, another way of following up.
    OtherFollowUpStrategy,
    Other,
}

pub use crate::emotion::{EMOTIONS, normalize_emotion};

pub use crate::issue_keys::issue_key;

/// Largest persona or goal accepted, as serialised JSON.
pub const MAX_PERSONA_GOAL_BYTES: usize = 16 * 1024;
/// Largest user message accepted.
pub const MAX_MESSAGE_BYTES: usize = 8 * 1024;
/// Longest note on how a seed's variant differs from it.
pub const MAX_VARIANT_NOTE_CHARS: usize = 2000;
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

    pub fn parse(s: &str) -> Self {
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
    /// A person ended the session on purpose, neither met nor given up.
    Stopped,
    /// Left open without a word for longer than its lease (a closed tab),
    /// or discarded: counted apart, its budget slot returned.
    Abandoned,
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
            Self::Stopped => "stopped",
            Self::Abandoned => "abandoned",
        }
    }

    /// The reasons a client may give on close; the others are the
    /// platform's to set.
    pub const ON_CLOSE: [Self; 6] = [
        Self::UserGoalMet,
        Self::UserGaveUp,
        Self::Stopped,
        Self::MaxTurns,
        Self::SimulatorError,
        Self::BudgetExhausted,
    ];

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "user_goal_met" => Self::UserGoalMet,
            "user_gave_up" => Self::UserGaveUp,
            "max_turns" => Self::MaxTurns,
            "target_error" => Self::TargetError,
            "simulator_error" => Self::SimulatorError,
            "budget_exhausted" => Self::BudgetExhausted,
            "expired" => Self::Expired,
            "stopped" => Self::Stopped,
            "abandoned" => Self::Abandoned,
            _ => return None,
        })
    }
}

/// The virtual user's structured self-report, normalised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ExperienceRecord {
    pub goal_achieved: bool,
    /// As filed; the built-in virtual user's phrasings read as messages of
    /// the catalogue, in the reader's language.
    #[serde(deserialize_with = "crate::issue_keys::deserialize_issues")]
    #[specta(type = Vec<Text>)]
    pub blockers: Vec<Text>,
    #[serde(deserialize_with = "crate::issue_keys::deserialize_issues")]
    #[specta(type = Vec<Text>)]
    pub misled: Vec<Text>,
    /// One of [`super::EMOTIONS`].
    pub emotion: String,
    /// What the client sent when it was not already one of the allowed
    /// emotions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emotion_raw: Option<String>,
    /// The built-in virtual user's notes are a message; anyone else's
    /// are their words.
    #[serde(default)]
    pub notes: Text,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ExplorationSession {
    pub id: SessionId,
    pub campaign_id: CampaignId,
    pub target_id: TargetId,
    /// A JSON object, or a description in words.
    #[schema(schema_with = object_or_any_text)]
    pub persona: serde_json::Value,
    /// A JSON object, or what the user wants in words.
    #[schema(schema_with = object_or_any_text)]
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
    pub simulator_faults: Option<Vec<SimulatorFault>>,
    /// User turns so far.
    pub turn_count: u32,
    /// Why it failed: a message of the catalogue, or words its client
    /// sent (or a sentence stored before there were messages).
    pub failure_reason: Option<Text>,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// What a new session starts from; the rest is as every session starts.
#[derive(Debug, Clone)]
pub struct SessionStart {
    pub id: SessionId,
    pub campaign_id: CampaignId,
    pub target_id: TargetId,
    pub persona: serde_json::Value,
    pub goal: serde_json::Value,
    pub seed_ref: Option<SeedRef>,
    pub trigger: Trigger,
    pub played_by: PlayedBy,
    pub user_model: Option<String>,
}

impl ExplorationSession {
    /// A session that starts running at `at`: no turn yet, nothing ended,
    /// judged or checked.
    pub fn starting(start: SessionStart, at: DateTime<Utc>) -> Self {
        let SessionStart {
            id,
            campaign_id,
            target_id,
            persona,
            goal,
            seed_ref,
            trigger,
            played_by,
            user_model,
        } = start;
        Self {
            id,
            campaign_id,
            target_id,
            persona,
            goal,
            seed_ref,
            status: SessionStatus::Running,
            trigger,
            played_by,
            user_model,
            end_reason: None,
            experience: None,
            judge_status: "none".into(),
            judge_review: None,
            simulator_faults: None,
            turn_count: 0,
            failure_reason: None,
            started_at: at,
            ended_at: None,
            created_at: at,
            updated_at: at,
        }
    }

    /// The same new session, started at `at` instead (as the decision that
    /// let it start stamped it).
    pub fn started_at(self, at: DateTime<Utc>) -> Self {
        Self {
            started_at: at,
            created_at: at,
            updated_at: at,
            ..self
        }
    }
}

/// A JSON object with at least one property, as the OpenAPI document
/// declares a persona or a goal (a plain sentence is accepted too).
/// A persona or a goal as a session takes it: a JSON object with a field
/// at least, or a description in words (not only spaces).
fn object_or_text(non_empty: bool) -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::Type;
    use utoipa::openapi::{ObjectBuilder, OneOfBuilder};
    let object = ObjectBuilder::new()
        .schema_type(Type::Object)
        .min_properties(non_empty.then_some(1));
    let text = ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(non_empty.then(|| r"\S".to_string()));
    utoipa::openapi::schema::Schema::OneOf(OneOfBuilder::new().item(object).item(text).build())
}

fn non_empty_object_or_text() -> utoipa::openapi::schema::Schema {
    object_or_text(true)
}

fn object_or_any_text() -> utoipa::openapi::schema::Schema {
    object_or_text(false)
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CreateSession {
    pub campaign_id: CampaignId,
    /// A JSON object describing the virtual user (or a plain description),
    /// not empty, at most 16 KiB.
    #[schema(schema_with = non_empty_object_or_text)]
    pub persona: serde_json::Value,
    /// What the user wants: a string or a JSON object, not empty, at most
    /// 16 KiB.
    #[schema(schema_with = non_empty_object_or_text)]
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
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    pub user_model: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SendMessage {
    /// What the virtual user says: not only spaces, at most 8 KiB (2,048
    /// characters always fit).
    #[schema(min_length = 1, max_length = 2048, pattern = r"\S")]
    pub content: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct MessageReply {
    pub session_id: SessionId,
    /// The target's reply.
    pub reply: String,
    pub latency_ms: u64,
    /// Which user turn this was (1-based).
    pub turn: u32,
    pub turns_remaining: u32,
    pub max_turns: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The tool calls the engine answered before the reply.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<crate::steps::Step>,
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
    /// The notes of the built-in virtual user, as a message (instead of
    /// `notes`); never sent by a client.
    #[serde(skip)]
    pub notes_said: Option<crate::i18n::Msg>,
    /// Defaults to `user_goal_met` when the goal was achieved, else
    /// `user_gave_up`; `target_error` and `expired` are the platform's.
    #[serde(default)]
    #[schema(schema_with = end_reasons_on_close)]
    pub end_reason: Option<EndReason>,
}

/// [`EndReason::ON_CLOSE`], or null, for the OpenAPI document.
fn end_reasons_on_close() -> utoipa::openapi::Object {
    use utoipa::openapi::schema::{SchemaType, Type};
    let mut values: Vec<serde_json::Value> = EndReason::ON_CLOSE
        .iter()
        .map(|r| r.as_str().into())
        .collect();
    values.push(serde_json::Value::Null);
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(values))
        .build()
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
    /// The tool calls the engine answered before a target reply, when the
    /// campaign offers its sessions tools.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<crate::steps::Step>,
}

/// One session for drill-down: the session (status, end reason, experience
/// record, judge review) and its whole conversation.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SessionTranscript {
    #[serde(flatten)]
    pub session: ExplorationSession,
    pub messages: Vec<SessionTurn>,
}

pub use crate::simulator_fault::{SimulatorFault, SimulatorFaultKind};

fn normalize_issues(items: Option<Vec<String>>) -> Vec<Text> {
    let mut out: Vec<Text> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for item in items.unwrap_or_default() {
        let text: String = item.trim().chars().take(MAX_ISSUE_CHARS).collect();
        let text = text.trim().to_string();
        if text.is_empty() || !seen.insert(issue_key(&text)) {
            continue;
        }
        out.push(crate::issue_keys::issue_text(&text));
        if out.len() == MAX_ISSUES {
            break;
        }
    }
    out
}

impl CloseSession {
    /// Normalises the record instead of failing on illegal values.
    pub fn normalize(self) -> Result<(ExperienceRecord, EndReason)> {
        let end_reason = match self.end_reason {
            None if self.goal_achieved => EndReason::UserGoalMet,
            None => EndReason::UserGaveUp,
            Some(r) if !EndReason::ON_CLOSE.contains(&r) => {
                return Err(Error::invalid_msg(
                    crate::msg!("error-end-reason-on-close", reason = r.as_str()),
                    crate::msg!("error-end-reason-on-close-suggestion"),
                ));
            }
            Some(r) => r,
        };
        let raw = self.emotion.unwrap_or_default();
        let (emotion, canonical) = normalize_emotion(&raw);
        let raw = raw.trim();
        Ok((
            ExperienceRecord {
                goal_achieved: self.goal_achieved,
                blockers: normalize_issues(self.blockers),
                misled: normalize_issues(self.misled),
                emotion: emotion.to_string(),
                emotion_raw: (!canonical && !raw.is_empty())
                    .then(|| raw.chars().take(200).collect()),
                notes: match self.notes_said {
                    Some(said) => Text::Msg(said),
                    None => Text::Plain(
                        self.notes
                            .unwrap_or_default()
                            .trim()
                            .chars()
                            .take(MAX_NOTES_CHARS)
                            .collect(),
                    ),
                },
            },
            end_reason,
        ))
    }
}

/// What the guardrails read of a campaign's state: its status now and its
/// window (which never changes).
#[derive(Debug, Clone, Copy)]
pub struct CampaignWindow {
    pub id: CampaignId,
    pub status: CampaignStatus,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

impl CampaignWindow {
    pub fn of(c: &Campaign) -> Self {
        Self {
            id: c.id,
            status: c.status,
            start: c.window_start,
            end: c.window_end,
        }
    }

    /// Whether the campaign accepts exploration now. A campaign whose
    /// window has ended is not running even before the scheduler finalizes
    /// it.
    pub fn running(&self, now: DateTime<Utc>) -> bool {
        matches!(
            self.status,
            CampaignStatus::Running | CampaignStatus::Scheduled
        ) && self.start <= now
            && now < self.end
    }

    pub fn not_running_error(&self, now: DateTime<Utc>) -> Error {
        let (why, at) = match self.status {
            CampaignStatus::Finalized => ("finalized", None),
            CampaignStatus::Cancelled => ("cancelled", None),
            CampaignStatus::Draft => ("draft", None),
            _ if now >= self.end => ("ended", Some(self.end)),
            _ => ("not-started", Some(self.start)),
        };
        Error::msg(
            ErrorCode::CampaignNotRunning,
            crate::msg!(
                "guard-campaign-not-running",
                id = self.id.to_string(),
                why = why,
                at = at.map(|t| t.to_rfc3339()).unwrap_or_default()
            ),
            crate::msg!("guard-campaign-not-running-suggestion"),
        )
    }
}

/// A session as a decision reads it, with its campaign's state, inside the
/// writer's transaction.
pub struct SessionState {
    pub id: SessionId,
    pub campaign: CampaignWindow,
    pub target_id: TargetId,
    pub status: SessionStatus,
    pub end_reason: Option<EndReason>,
    pub turn_count: u32,
    pub max_turns: u32,
}

impl SessionState {
    /// The ledger row of an action on this session.
    pub fn entry(&self, id: Uuid, action: LedgerAction, now: DateTime<Utc>) -> Entry {
        Entry {
            id,
            campaign_id: self.campaign.id,
            session_id: Some(self.id),
            action,
            at: to_ms(now),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::Lang;

    #[test]
    fn a_fault_is_said_in_the_readers_language() {
        let fault = |kind, detail: &str| {
            SimulatorFault::new(kind, None, Some(detail.into()), String::new())
        };
        let disagrees = fault(SimulatorFaultKind::RecordDisagrees, "met").msg();
        assert_eq!(
            disagrees.render(Lang::Zh),
            "虚拟用户的体验记录说目标已达成，它却放弃了"
        );
        assert!(disagrees.render(Lang::En).contains("gave up"));
        let other = fault(SimulatorFaultKind::RecordDisagrees, "not_met").msg();
        assert!(
            other.render(Lang::Zh).contains("未达成"),
            "{}",
            other.render(Lang::Zh)
        );
        // The language it spoke is not named in English inside a Chinese sentence.
        let left = fault(SimulatorFaultKind::LeftLanguage, "English")
            .msg()
            .render(Lang::Zh);
        assert!(!left.contains("English"), "{left}");
        let quit = fault(SimulatorFaultKind::QuitEarly, "1")
            .msg()
            .render(Lang::Zh);
        assert!(quit.contains("回复 1 次"), "{quit}");
    }
}
