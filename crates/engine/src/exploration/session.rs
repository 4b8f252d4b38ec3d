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

use super::ledger::{Decided, Entry, LedgerAction};
use super::{SeedRef, issue_key, normalize_emotion};
use crate::campaign::{Budget, Campaign, CampaignStatus, Line};
use crate::channel::{ChatMessage, ChatRequest, ToolCall};
use crate::clock::{from_ms, to_ms};
use crate::error::{Error, ErrorCode, Result};
use crate::platform::{Event, Platform};
use crate::target::parse_id;
use chrono::{DateTime, Duration, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use sqlx::{Row, SqliteConnection};
use uuid::Uuid;

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

    fn parse(s: &str) -> Self {
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

/// What the guardrails read of a campaign's state: its status now and its
/// window (which never changes).
#[derive(Debug, Clone, Copy)]
struct CampaignWindow {
    id: Uuid,
    status: CampaignStatus,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
}

impl CampaignWindow {
    fn of(c: &Campaign) -> Self {
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
    fn running(&self, now: DateTime<Utc>) -> bool {
        matches!(
            self.status,
            CampaignStatus::Running | CampaignStatus::Scheduled
        ) && self.start <= now
            && now < self.end
    }

    fn not_running_error(&self, now: DateTime<Utc>) -> Error {
        let why = match self.status {
            CampaignStatus::Finalized => "it has been finalized".to_string(),
            CampaignStatus::Cancelled => "it was cancelled".to_string(),
            CampaignStatus::Draft => "it is a draft".to_string(),
            _ if now >= self.end => format!("its window ended at {}", self.end.to_rfc3339()),
            _ => format!("its window starts at {}", self.start.to_rfc3339()),
        };
        Error::new(
            ErrorCode::CampaignNotRunning,
            format!("campaign {} is not running: {why}", self.id),
            "Explore only campaigns whose window is open; GET /api/exploration/patrol lists them.",
        )
    }
}

/// Whether a campaign accepts exploration now (see [`CampaignWindow`]).
pub(crate) fn campaign_running(c: &Campaign, now: DateTime<Utc>) -> bool {
    CampaignWindow::of(c).running(now)
}

/// The minimum real time between two session starts.
pub(crate) fn min_interval(c: &Campaign) -> Duration {
    let ms = c.effective_budget.min_interval_minutes * 60_000.0 / c.time_scale.max(1.0);
    Duration::milliseconds(ms.round() as i64)
}

fn shape_json(field: &str, value: serde_json::Value) -> Result<serde_json::Value> {
    let value = match value {
        serde_json::Value::Object(m) if !m.is_empty() => serde_json::Value::Object(m),
        serde_json::Value::String(s) if !s.trim().is_empty() => {
            serde_json::Value::String(s.trim().to_string())
        }
        serde_json::Value::Object(_) | serde_json::Value::String(_) => {
            return Err(Error::invalid(
                format!("{field} must not be empty"),
                format!("Describe the {field}, e.g. {{\"name\": \"...\", ...}} or a sentence."),
            ));
        }
        _ => {
            return Err(Error::new(
                ErrorCode::Unprocessable,
                format!("{field} must be a JSON object or a string"),
                format!("Describe the {field}, e.g. {{\"name\": \"...\", ...}} or a sentence."),
            ));
        }
    };
    if serde_json::to_string(&value)?.len() > MAX_PERSONA_GOAL_BYTES {
        return Err(Error::invalid(
            format!("{field} is larger than 16 KiB"),
            format!("Keep the {field} short: describe it, do not paste documents."),
        ));
    }
    Ok(value)
}

/// The model name stored with a session: only for `played_by: model`,
/// trimmed, never empty, at most [`MAX_USER_MODEL_CHARS`] characters.
fn shape_user_model(played_by: PlayedBy, user_model: Option<String>) -> Result<Option<String>> {
    let Some(name) = user_model.map(|m| m.trim().to_string()) else {
        return Ok(None);
    };
    if played_by != PlayedBy::Model {
        return Err(Error::invalid(
            format!(
                "user_model is given but played_by is {}",
                played_by.as_str()
            ),
            "Send user_model only with played_by: \"model\", or leave it out.",
        ));
    }
    if name.is_empty() || name.chars().count() > MAX_USER_MODEL_CHARS {
        return Err(Error::invalid(
            format!("user_model must be 1 to {MAX_USER_MODEL_CHARS} characters"),
            "Name the model that plays the user, e.g. \"qwen2.5-7b-instruct\".",
        ));
    }
    Ok(Some(name))
}

fn normalize_issues(items: Option<Vec<String>>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for item in items.unwrap_or_default() {
        let text: String = item.trim().chars().take(MAX_ISSUE_CHARS).collect();
        let text = text.trim().to_string();
        if text.is_empty() || !seen.insert(issue_key(&text)) {
            continue;
        }
        out.push(text);
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
            Some(r @ (EndReason::TargetError | EndReason::Expired)) => {
                return Err(Error::invalid(
                    format!(
                        "end_reason {} is set by the platform, not on close",
                        r.as_str()
                    ),
                    "Use user_goal_met, user_gave_up, max_turns, simulator_error or budget_exhausted.",
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
                notes: self
                    .notes
                    .unwrap_or_default()
                    .trim()
                    .chars()
                    .take(MAX_NOTES_CHARS)
                    .collect(),
            },
            end_reason,
        ))
    }
}

pub(crate) fn session_from_row(row: &sqlx::sqlite::SqliteRow) -> Result<ExplorationSession> {
    let json = |col: &str| -> Result<Option<serde_json::Value>> {
        Ok(row
            .try_get::<Option<String>, _>(col)?
            .map(|s| serde_json::from_str(&s))
            .transpose()?)
    };
    Ok(ExplorationSession {
        id: parse_id(row.try_get("id")?)?,
        campaign_id: parse_id(row.try_get("campaign_id")?)?,
        target_id: parse_id(row.try_get("target_id")?)?,
        persona: json("persona")?.unwrap_or_default(),
        goal: json("goal")?.unwrap_or_default(),
        seed_ref: json("seed_ref")?.map(serde_json::from_value).transpose()?,
        status: SessionStatus::parse(row.try_get("status")?)?,
        trigger: Trigger::parse(row.try_get("trigger_kind")?),
        played_by: {
            let raw: &str = row.try_get("played_by")?;
            PlayedBy::parse(raw)
                .ok_or_else(|| Error::internal(anyhow::anyhow!("unknown played_by {raw}")))?
        },
        user_model: row.try_get("user_model")?,
        end_reason: row
            .try_get::<Option<String>, _>("end_reason")?
            .and_then(|s| EndReason::parse(&s)),
        experience: json("experience")?
            .map(serde_json::from_value)
            .transpose()?,
        judge_status: row.try_get("judge_status")?,
        judge_review: json("judge_review")?,
        turn_count: row.try_get::<i64, _>("turn_count")? as u32,
        failure_reason: row.try_get("failure_reason")?,
        started_at: from_ms(row.try_get("started_at")?),
        ended_at: row.try_get::<Option<i64>, _>("ended_at")?.map(from_ms),
        created_at: from_ms(row.try_get("created_at")?),
        updated_at: from_ms(row.try_get("updated_at")?),
    })
}

async fn load_session(conn: &mut SqliteConnection, id: Uuid) -> Result<ExplorationSession> {
    let row = sqlx::query("SELECT * FROM exploration_sessions WHERE id = ?")
        .bind(id.to_string())
        .fetch_optional(conn)
        .await?
        .ok_or_else(|| Error::not_found("session", id))?;
    session_from_row(&row)
}

fn session_not_running(id: Uuid, status: SessionStatus, end_reason: Option<EndReason>) -> Error {
    Error::new(
        ErrorCode::SessionNotRunning,
        format!(
            "session {id} is {}{}",
            status.as_str(),
            end_reason
                .map(|r| format!(" ({})", r.as_str()))
                .unwrap_or_default()
        ),
        "Start a new session if the budget allows; this one accepts no more messages.",
    )
}

/// A session as a decision reads it, with its campaign's state, inside the
/// writer's transaction.
struct SessionState {
    id: Uuid,
    campaign: CampaignWindow,
    target_id: Uuid,
    status: SessionStatus,
    end_reason: Option<EndReason>,
    turn_count: u32,
    max_turns: u32,
}

impl SessionState {
    fn load(conn: &Connection, id: Uuid) -> Result<Self> {
        let row = conn
            .prepare_cached(
                "SELECT s.campaign_id, s.target_id, s.status, s.end_reason, s.turn_count,
                        c.status, c.window_start, c.window_end, c.budget
                 FROM exploration_sessions s JOIN campaigns c ON c.id = s.campaign_id
                 WHERE s.id = ?",
            )?
            .query_row(params![id.to_string()], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, i64>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, i64>(6)?,
                    r.get::<_, i64>(7)?,
                    r.get::<_, Option<String>>(8)?,
                ))
            })
            .optional()?
            .ok_or_else(|| Error::not_found("session", id))?;
        let (campaign_id, target_id, status, end_reason, turns, c_status, start, end, budget) = row;
        let budget: Option<Budget> = budget.map(|b| serde_json::from_str(&b)).transpose()?;
        Ok(Self {
            id,
            campaign: CampaignWindow {
                id: parse_id(&campaign_id)?,
                status: CampaignStatus::parse(&c_status)?,
                start: from_ms(start),
                end: from_ms(end),
            },
            target_id: parse_id(&target_id)?,
            status: SessionStatus::parse(&status)?,
            end_reason: end_reason.and_then(|r| EndReason::parse(&r)),
            turn_count: turns as u32,
            max_turns: budget.unwrap_or_default().effective().max_turns,
        })
    }

    /// Checks a session-level action (message, close) against the
    /// session's state and its campaign's window; expires the session when
    /// the window has ended. The outer error is an internal one.
    fn check_open(&mut self, conn: &Connection, now: DateTime<Utc>) -> Result<Result<()>> {
        if self.status == SessionStatus::Running && !self.campaign.running(now) {
            // The window ended before the scheduler finalized the campaign.
            conn.prepare_cached(
                "UPDATE exploration_sessions SET status = 'expired', end_reason = 'expired', ended_at = ?1, updated_at = ?1
                 WHERE id = ?2 AND status = 'running'",
            )?
            .execute(params![to_ms(now), self.id.to_string()])?;
            self.status = SessionStatus::Expired;
            self.end_reason = Some(EndReason::Expired);
        }
        Ok(if self.status == SessionStatus::Running {
            Ok(())
        } else {
            Err(session_not_running(self.id, self.status, self.end_reason))
        })
    }

    /// The ledger row of an action on this session.
    fn entry(&self, id: Uuid, action: LedgerAction, now: DateTime<Utc>) -> Entry {
        Entry {
            id,
            campaign_id: self.campaign.id,
            session_id: Some(self.id),
            action,
            at: to_ms(now),
        }
    }
}

/// A message's reserved turn.
struct Reserved {
    campaign_id: Uuid,
    target_id: Uuid,
    /// 0-based index of this user turn.
    index: u32,
    max_turns: u32,
    /// The conversation up to and including this user turn.
    history: Vec<ChatMessage>,
}

impl Platform {
    /// Takes a budget decision on the writer's thread: `decide` gets the
    /// connection, the id of its ledger row and the time of the decision
    /// (read there, so that decisions taken in turn are stamped in turn),
    /// and records the action allowed or refused.
    async fn decide<T: Send + 'static>(
        &self,
        decide: impl FnOnce(&Connection, Uuid, DateTime<Utc>) -> Result<Decided<T>> + Send + 'static,
    ) -> Result<T> {
        let entry_id = self.ids.next_id();
        let clock = self.clock.clone();
        match self
            .writer
            .transact(move |conn| decide(conn, entry_id, clock.now()))
            .await?
        {
            Decided::Allowed(done) => Ok(done),
            Decided::Refused(refusal) => Err(refusal),
        }
    }

    /// Takes a decision on an action on a session (message, close) on the
    /// writer's thread: reads the session and its campaign's state, refuses
    /// (and records) the action if the session is not open, and otherwise
    /// runs `act`, which performs and records the action or refuses it.
    async fn decide_on_session<T: Send + 'static>(
        &self,
        session_id: Uuid,
        action: LedgerAction,
        act: impl FnOnce(&Connection, &SessionState, Entry, DateTime<Utc>) -> Result<Decided<T>>
        + Send
        + 'static,
    ) -> Result<T> {
        self.decide(move |conn, entry_id, now| {
            let mut session = SessionState::load(conn, session_id)?;
            let entry = session.entry(entry_id, action, now);
            if let Err(refusal) = session.check_open(conn, now)? {
                return entry.refuse(conn, refusal);
            }
            act(conn, &session, entry, now)
        })
        .await
    }

    /// Audits a session's change of state and tells the listeners.
    async fn session_changed(&self, action: &str, campaign_id: Uuid, session_id: Uuid) {
        self.audit("platform", action, Some(session_id), "ok").await;
        self.notify(Event::SessionChanged {
            campaign_id,
            session_id,
        });
    }
}

/// The guardrails of a new session, in their documented order (see
/// [`Platform::create_session`]); `used` sessions so far, the `last` one
/// started at that time (ms).
fn create_decision(
    campaign: &Campaign,
    window: &CampaignWindow,
    trigger: Trigger,
    seed_ref: Option<&SeedRef>,
    used: i64,
    last: Option<i64>,
    now: DateTime<Utc>,
) -> Result<()> {
    if !window.running(now) {
        return Err(window.not_running_error(now));
    }
    if trigger == Trigger::Auto && campaign.line == Line::Accelerated {
        return Err(Error::new(
            ErrorCode::AutoNotAllowedOnAcceleratedLine,
            format!(
                "campaign {} runs on the accelerated line (time_scale {}): only manual sessions are allowed",
                campaign.id, campaign.time_scale
            ),
            "Send trigger: \"manual\" to debug exploration on this campaign.",
        ));
    }
    if trigger == Trigger::Auto && campaign.seed_set.is_empty() {
        return Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "campaign {} has an empty seed set and takes no part in automatic exploration",
                campaign.id
            ),
            "Send trigger: \"manual\" to debug, or create a campaign with seed personas and goals.",
        ));
    }
    match seed_ref {
        Some(s) => {
            if !campaign
                .seed_set
                .personas
                .iter()
                .any(|p| p.id == s.persona_id)
            {
                return Err(Error::invalid(
                    format!(
                        "seed_ref.persona_id {:?} is not a persona of the campaign's seed set",
                        s.persona_id
                    ),
                    "Use a persona id listed by GET /api/exploration/patrol (seeds.personas).",
                ));
            }
            if !campaign.seed_set.goals.iter().any(|g| g.id == s.goal_id) {
                return Err(Error::invalid(
                    format!(
                        "seed_ref.goal_id {:?} is not a goal of the campaign's seed set",
                        s.goal_id
                    ),
                    "Use a goal id listed by GET /api/exploration/patrol (seeds.goals).",
                ));
            }
        }
        None if trigger == Trigger::Auto => {
            return Err(Error::invalid(
                "auto-triggered sessions need a seed_ref {persona_id, goal_id}",
                "Name the seed persona and goal the session comes from; variants add seed_ref.variant.",
            ));
        }
        None => {}
    }
    let budget = campaign.effective_budget;
    if used >= i64::from(budget.max_sessions) {
        return Err(Error::new(
            ErrorCode::SessionBudgetExhausted,
            format!(
                "campaign {} has used its {} exploration sessions for this window",
                campaign.id, budget.max_sessions
            ),
            "Stop dispatching sessions for this campaign; its fixed plan carries on.",
        ));
    }
    if let Some(last) = last {
        let next = from_ms(last) + min_interval(campaign);
        if next > now {
            return Err(Error::new(
                ErrorCode::IntervalNotElapsed,
                format!(
                    "the previous session started less than {} minutes (campaign time) ago; the next is allowed at {}",
                    budget.min_interval_minutes,
                    next.to_rfc3339()
                ),
                "Wait until next_allowed_at before starting another session.",
            )
            .with_next_allowed_at(next));
        }
    }
    Ok(())
}

impl Platform {
    /// Creates a `running` exploration session after the guardrail checks,
    /// in this order: campaign exists (404), campaign running (409
    /// `CAMPAIGN_NOT_RUNNING`), no auto trigger on the accelerated line
    /// (409 `AUTO_NOT_ALLOWED_ON_ACCELERATED_LINE`), seeds (auto sessions
    /// need a seed_ref into the seed set: 400 `INVALID_INPUT` for an
    /// unknown id, 409 `CONFLICT` when the campaign has no seeds), session
    /// budget (409 `SESSION_BUDGET_EXHAUSTED`), interval (409
    /// `INTERVAL_NOT_ELAPSED` with `next_allowed_at`).
    #[tracing::instrument(skip_all, fields(campaign_id = %req.campaign_id))]
    pub async fn create_session(&self, req: CreateSession) -> Result<ExplorationSession> {
        let persona = shape_json("persona", req.persona)?;
        let goal = shape_json("goal", req.goal)?;
        let trigger = req.trigger.unwrap_or_default();
        let played_by = req.played_by.unwrap_or_default();
        let user_model = shape_user_model(played_by, req.user_model)?;
        if let Some(s) = &req.seed_ref
            && let Some(v) = &s.variant
            && v.note.chars().count() > 2000
        {
            return Err(Error::invalid(
                "seed_ref.variant.note is longer than 2000 characters",
                "Say briefly how the variant differs from its seed.",
            ));
        }

        // Everything but the campaign's status is fixed at creation; the
        // status is read again inside the decision.
        let campaign = self.get_campaign(req.campaign_id).await?;
        let session_id = self.ids.next_id();
        let create = move |conn: &Connection, entry_id: Uuid, now: DateTime<Utc>| {
            let entry = Entry {
                id: entry_id,
                campaign_id: campaign.id,
                session_id: None,
                action: LedgerAction::Create,
                at: to_ms(now),
            };
            let status: String = conn
                .prepare_cached("SELECT status FROM campaigns WHERE id = ?")?
                .query_row(params![campaign.id.to_string()], |r| r.get(0))?;
            let mut window = CampaignWindow::of(&campaign);
            window.status = CampaignStatus::parse(&status)?;
            let (used, last): (i64, Option<i64>) = conn
                .prepare_cached(
                    "SELECT COUNT(*), MAX(started_at) FROM exploration_sessions WHERE campaign_id = ?",
                )?
                .query_row(params![campaign.id.to_string()], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?;
            let decision = create_decision(
                &campaign,
                &window,
                trigger,
                req.seed_ref.as_ref(),
                used,
                last,
                now,
            );
            if let Err(refusal) = decision {
                return entry.refuse(conn, refusal);
            }
            let session = ExplorationSession {
                id: session_id,
                campaign_id: campaign.id,
                target_id: campaign.target_id,
                persona,
                goal,
                seed_ref: req.seed_ref,
                status: SessionStatus::Running,
                trigger,
                played_by,
                user_model,
                end_reason: None,
                experience: None,
                judge_status: "none".into(),
                judge_review: None,
                turn_count: 0,
                failure_reason: None,
                started_at: now,
                ended_at: None,
                created_at: now,
                updated_at: now,
            };
            conn.prepare_cached(
                "INSERT INTO exploration_sessions (id, campaign_id, target_id, persona, goal, seed_ref, status,
                    trigger_kind, judge_status, turn_count, started_at, created_at, updated_at,
                    played_by, user_model)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7, 'none', 0, ?8, ?8, ?8, ?9, ?10)",
            )?
            .execute(params![
                session.id.to_string(),
                session.campaign_id.to_string(),
                session.target_id.to_string(),
                serde_json::to_string(&session.persona)?,
                serde_json::to_string(&session.goal)?,
                session.seed_ref.as_ref().map(serde_json::to_string).transpose()?,
                session.trigger.as_str(),
                to_ms(now),
                session.played_by.as_str(),
                session.user_model,
            ])?;
            Entry {
                session_id: Some(session.id),
                ..entry
            }
            .allow(conn)?;
            Ok(Decided::Allowed(session))
        };
        let session = self.decide(create).await?;
        self.session_changed("session.create", session.campaign_id, session.id)
            .await;
        Ok(session)
    }

    /// Sends the virtual user's message to the target and returns the reply.
    #[tracing::instrument(skip(self, req))]
    pub async fn send_message(&self, session_id: Uuid, req: SendMessage) -> Result<MessageReply> {
        let content = req.content.trim().to_string();
        if content.is_empty() {
            return Err(Error::invalid(
                "content must not be empty",
                "Send what the virtual user says next.",
            ));
        }
        if content.len() > MAX_MESSAGE_BYTES {
            return Err(Error::invalid(
                "content is longer than 8 KiB",
                "Send shorter messages, as a real user would.",
            ));
        }

        // Reserve the turn: check + increment + user turn + ledger row, and
        // read the conversation so far, in one decision.
        let turn_id = self.ids.next_id();
        let reserve = move |conn: &Connection, session: &SessionState, entry: Entry, now| {
            if session.turn_count >= session.max_turns {
                let refusal = Error::new(
                    ErrorCode::TurnLimitReached,
                    format!(
                        "session {} has used its {} user turns",
                        session.id, session.max_turns
                    ),
                    "Close the session with its experience record (end_reason max_turns).",
                );
                return entry.refuse(conn, refusal);
            }
            let index = session.turn_count;
            let user_seq = i64::from(index) * 2;
            conn.prepare_cached(
                    "UPDATE exploration_sessions SET turn_count = turn_count + 1, updated_at = ? WHERE id = ?",
                )?
                .execute(params![to_ms(now), session.id.to_string()])?;
            conn.prepare_cached(
                    "INSERT INTO session_turns (id, session_id, seq, role, content, latency_ms, created_at)
                     VALUES (?, ?, ?, 'user', ?, NULL, ?)",
                )?
                .execute(params![
                    turn_id.to_string(),
                    session.id.to_string(),
                    user_seq,
                    content,
                    to_ms(now)
                ])?;
            entry.allow(conn)?;
            let history = conn
                    .prepare_cached(
                        "SELECT role, content FROM session_turns WHERE session_id = ? AND seq <= ? ORDER BY seq",
                    )?
                    .query_map(params![session.id.to_string(), user_seq], |r| {
                        let role: String = r.get(0)?;
                        let content: String = r.get(1)?;
                        Ok(if role == "user" {
                            ChatMessage::user(content)
                        } else {
                            ChatMessage::assistant(content)
                        })
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Decided::Allowed(Reserved {
                campaign_id: session.campaign.id,
                target_id: session.target_id,
                index,
                max_turns: session.max_turns,
                history,
            }))
        };
        let Reserved {
            campaign_id,
            target_id,
            index,
            max_turns,
            history,
        } = self
            .decide_on_session(session_id, LedgerAction::Message, reserve)
            .await?;
        // The user's turn is stored: live views show it before the reply.
        self.notify(Event::SessionChanged {
            campaign_id,
            session_id,
        });
        let user_seq = i64::from(index) * 2;
        let reply = match self.channel_for(target_id).await {
            Ok(channel) => channel
                .send(&ChatRequest {
                    messages: history,
                    tools: Default::default(),
                })
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.body.message),
        };
        match reply {
            Ok(reply) => {
                let row = crate::writer::ReplyRow {
                    id: self.ids.next_id().to_string(),
                    session_id: session_id.to_string(),
                    seq: user_seq + 1,
                    content: reply.content.clone(),
                    latency_ms: reply.latency_ms as i64,
                    at: to_ms(self.clock.now()),
                };
                // Group-committed with other sessions' replies.
                self.writer
                    .enqueue(crate::writer::Write::Reply(row))
                    .committed()
                    .await?;
                self.notify(Event::SessionChanged {
                    campaign_id,
                    session_id,
                });
                Ok(MessageReply {
                    session_id,
                    reply: reply.content,
                    latency_ms: reply.latency_ms,
                    turn: index + 1,
                    turns_remaining: max_turns.saturating_sub(index + 1),
                    max_turns,
                    tool_calls: reply.tool_calls,
                })
            }
            Err(reason) => {
                let at = to_ms(self.clock.now());
                let failure = reason.clone();
                self.writer
                    .transact(move |conn| {
                        conn.prepare_cached(
                            "UPDATE exploration_sessions SET status = 'failed', end_reason = 'target_error',
                                failure_reason = ?1, ended_at = ?2, updated_at = ?2
                             WHERE id = ?3 AND status = 'running'",
                        )?
                        .execute(params![failure, at, session_id.to_string()])?;
                        Ok(())
                    })
                    .await?;
                self.audit(
                    "platform",
                    "session.fail",
                    Some(session_id),
                    "TARGET_UNAVAILABLE",
                )
                .await;
                self.notify(Event::SessionChanged {
                    campaign_id,
                    session_id,
                });
                Err(Error::new(
                    ErrorCode::TargetUnavailable,
                    format!(
                        "the target did not answer after its retries: {reason}; the session has failed"
                    ),
                    "Check the target (targets page, connection test); then start a new session.",
                ))
            }
        }
    }

    /// Closes a running session with its experience record and queues the
    /// judge review.
    #[tracing::instrument(skip(self, req))]
    pub async fn close_session(
        &self,
        session_id: Uuid,
        req: CloseSession,
    ) -> Result<ExplorationSession> {
        let (record, end_reason) = req.normalize()?;
        let json = serde_json::to_string(&record)?;
        let close = move |conn: &Connection, session: &SessionState, entry: Entry, now| {
            conn.prepare_cached(
                    "UPDATE exploration_sessions SET status = 'completed', end_reason = ?1, experience = ?2,
                        judge_status = 'pending', ended_at = ?3, updated_at = ?3
                     WHERE id = ?4",
                )?
                .execute(params![end_reason.as_str(), json, to_ms(now), session.id.to_string()])?;
            // A simulator error's record says nothing about the target.
            if end_reason != EndReason::SimulatorError {
                super::findings::record_issues(conn, session.campaign.id, session.id, &record)?;
            }
            entry.allow(conn)?;
            Ok(Decided::Allowed(session.campaign.id))
        };
        let campaign_id = self
            .decide_on_session(session_id, LedgerAction::Close, close)
            .await?;
        self.session_changed("session.close", campaign_id, session_id)
            .await;
        self.get_session(session_id).await
    }

    /// Ends a running session as `failed` (e.g. the virtual user's model
    /// broke down: `simulator_error`).
    #[tracing::instrument(skip(self))]
    pub async fn fail_session(
        &self,
        session_id: Uuid,
        reason: &str,
        end_reason: EndReason,
    ) -> Result<ExplorationSession> {
        let reason: String = reason.trim().chars().take(2000).collect();
        let session = self.get_session(session_id).await?;
        let now = to_ms(self.clock.now());
        let changed = sqlx::query(
            "UPDATE exploration_sessions SET status = 'failed', end_reason = ?, failure_reason = ?,
                ended_at = ?, updated_at = ?
             WHERE id = ? AND status = 'running'",
        )
        .bind(end_reason.as_str())
        .bind(&reason)
        .bind(now)
        .bind(now)
        .bind(session_id.to_string())
        .execute(&self.db)
        .await?
        .rows_affected();
        if changed == 0 {
            return Err(session_not_running(
                session.id,
                session.status,
                session.end_reason,
            ));
        }
        self.session_changed("session.fail", session.campaign_id, session_id)
            .await;
        self.get_session(session_id).await
    }

    /// A campaign's sessions, oldest first.
    pub async fn list_sessions(&self, campaign_id: Uuid) -> Result<Vec<ExplorationSession>> {
        self.get_campaign(campaign_id).await?;
        let rows = sqlx::query(
            "SELECT * FROM exploration_sessions WHERE campaign_id = ? ORDER BY started_at, id",
        )
        .bind(campaign_id.to_string())
        .fetch_all(&self.db)
        .await?;
        rows.iter().map(session_from_row).collect()
    }

    pub async fn get_session(&self, id: Uuid) -> Result<ExplorationSession> {
        let mut conn = self.db.acquire().await?;
        load_session(&mut conn, id).await
    }

    /// One session with its whole conversation.
    pub async fn session_messages(&self, id: Uuid) -> Result<SessionTranscript> {
        let session = self.get_session(id).await?;
        let mut transcripts = self.session_transcripts(&[session.id]).await?;
        Ok(transcripts.remove(0))
    }

    /// Sessions with their whole conversations, in the order of `ids`
    /// (each once), read in two queries however many there are; unknown
    /// ids are left out.
    pub async fn session_transcripts(&self, ids: &[Uuid]) -> Result<Vec<SessionTranscript>> {
        let list = serde_json::to_string(ids)?;
        let sessions = sqlx::query(
            "SELECT * FROM exploration_sessions WHERE id IN (SELECT value FROM json_each(?))",
        )
        .bind(&list)
        .fetch_all(&self.db)
        .await?;
        let mut transcripts = sessions
            .iter()
            .map(|row| {
                let session = session_from_row(row)?;
                let transcript = SessionTranscript {
                    session,
                    messages: Vec::new(),
                };
                Ok((transcript.session.id, transcript))
            })
            .collect::<Result<std::collections::HashMap<Uuid, SessionTranscript>>>()?;
        let rows = sqlx::query(
            "SELECT session_id, seq, role, content, latency_ms, created_at FROM session_turns
             WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY session_id, seq",
        )
        .bind(&list)
        .fetch_all(&self.db)
        .await?;
        for r in &rows {
            let session_id = parse_id(r.try_get::<&str, _>("session_id")?)?;
            let Some(transcript) = transcripts.get_mut(&session_id) else {
                continue;
            };
            let role: &str = r.try_get("role")?;
            transcript.messages.push(SessionTurn {
                seq: r.try_get::<i64, _>("seq")? as u32,
                role: if role == "user" {
                    TurnRole::User
                } else {
                    TurnRole::Target
                },
                content: r.try_get("content")?,
                latency_ms: r.try_get::<Option<i64>, _>("latency_ms")?.map(|l| l as u64),
                created_at: from_ms(r.try_get("created_at")?),
            });
        }
        Ok(ids.iter().filter_map(|id| transcripts.remove(id)).collect())
    }
}
