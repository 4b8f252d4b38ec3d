//! The virtual user: role-plays a seeded persona pursuing a seeded goal,
//! decides each turn whether to follow up, wait, change its mind, give up or
//! stop because the goal is met, and files an experience record at close.
//!
//! Two implementations of [`VirtualUser`]: the offline deterministic
//! [`PersonaEngine`] (seeded from the session id, so a session replays the
//! same way) and [`ModelUser`], which role-plays through a [`ChatClient`].
//! [`run_session`] drives either one through an exploration session.
//!
//! [`ChatClient`]: crate::role_models::ChatClient

pub(crate) mod model_user;
mod persona_engine;
mod profile;
mod session;
mod variant;

use crate::domain::ids::SessionId;
pub use model_user::ModelUser;
pub use persona_engine::PersonaEngine;
pub use profile::{
    FollowUpStrategy, Lang, PersonaProfile, Verbosity, has_cjk, parse_goal, parse_persona,
};
pub use session::{SessionOutcome, SessionPort, run_session};
pub use variant::{VariantKind, derive_variant};

use serde::{Deserialize, Serialize};
use std::sync::Arc;
use uuid::Uuid;

/// Who said something in an exploration conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    User,
    Target,
}

/// One message of the conversation as the virtual user saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Utterance {
    pub speaker: Speaker,
    pub content: String,
    /// A reply's steps, as the workbench shows a person the agent's
    /// progress: the tool calls the engine answered before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<crate::domain::steps::Step>,
}

impl Utterance {
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            speaker: Speaker::User,
            content: content.into(),
            steps: Vec::new(),
        }
    }
    pub fn target(content: impl Into<String>) -> Self {
        Self::target_with(content, Vec::new())
    }
    /// A reply and the steps the agent took before it.
    pub fn target_with(content: impl Into<String>, steps: Vec<crate::domain::steps::Step>) -> Self {
        Self {
            speaker: Speaker::Target,
            content: content.into(),
            steps,
        }
    }
}

/// What the virtual user does next.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Say something more: the opening request, an answer, a push.
    FollowUp,
    /// The target said it is working on it: acknowledge and wait.
    Wait,
    /// Correct something said before (once per session at most).
    ChangeMind,
    /// Patience ran out: stop without the goal.
    GiveUp,
    /// The goal is met.
    Done,
}

impl Decision {
    pub fn parse(s: &str) -> Option<Self> {
        Some(
            match s
                .trim()
                .to_ascii_lowercase()
                .replace(['-', ' '], "_")
                .as_str()
            {
                "follow_up" | "followup" | "continue" | "ask" => Self::FollowUp,
                "wait" => Self::Wait,
                "change_mind" | "changemind" => Self::ChangeMind,
                "give_up" | "giveup" | "quit" => Self::GiveUp,
                "done" | "goal_met" | "finish" | "finished" => Self::Done,
                _ => return None,
            },
        )
    }

    /// Whether the conversation ends with this decision.
    pub fn ends(self) -> bool {
        matches!(self, Self::GiveUp | Self::Done)
    }
}

/// One decision with what to say (nothing when the conversation ends).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserTurn {
    pub decision: Decision,
    pub message: Option<String>,
}

/// The virtual user's structured self-report at close (体验记录), as filed;
/// the platform normalises it (emotion allow-list, limits) on close.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct ExperienceRecord {
    pub goal_achieved: bool,
    /// Where it got stuck, e.g. "asked for the subject twice".
    pub blockers: Vec<String>,
    /// Where it was misled, e.g. "stated a figure (42) not in the data".
    pub misled: Vec<String>,
    pub emotion: String,
    /// The built-in virtual user's are a message of the catalogue; a
    /// model's are its words.
    pub notes: crate::i18n::Text,
}

/// Why a session ended (DESIGN §11: every session ends with a reason).
pub use crate::exploration::EndReason;

/// The virtual user could not produce a usable turn or record (a model's
/// malformed output after the retry, or the model being unreachable): a
/// message of the catalogue, its technical cause a parameter.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", .0.render(crate::i18n::Lang::En))]
pub struct SimulatorError(pub crate::i18n::Msg);

/// A virtual user: decides turns from the conversation so far and reports
/// its experience at the end.
#[async_trait::async_trait]
pub trait VirtualUser: Send {
    /// The next turn, given the conversation so far (empty at the start).
    async fn next_turn(&mut self, transcript: &[Utterance]) -> Result<UserTurn, SimulatorError>;

    /// The experience record once the session ended for `end`.
    async fn experience(
        &mut self,
        transcript: &[Utterance],
        end: EndReason,
    ) -> Result<ExperienceRecord, SimulatorError>;

    /// `persona_engine` or `model:<name>`, recorded with the session.
    fn kind(&self) -> String;

    /// How a model was last asked for its JSON; `None` without a model.
    fn output_mode(&self) -> Option<crate::structured::OutputMode> {
        None
    }
}

/// The virtual user for a session: the model when one is configured for the
/// role, else the deterministic persona engine seeded from the session id,
/// opening in its `wording` (the session's place among its cell's).
pub fn for_session(
    session_id: SessionId,
    persona: &serde_json::Value,
    goal: &serde_json::Value,
    model: Option<Arc<dyn crate::role_models::ChatClient>>,
    wording: u32,
) -> Box<dyn VirtualUser> {
    match model {
        Some(client) => Box::new(ModelUser::new(
            client,
            parse_persona(persona),
            parse_goal(goal),
        )),
        None => Box::new(
            PersonaEngine::from_json(persona, goal, seed_of(session_id.into()))
                .with_wording(wording),
        ),
    }
}

/// The language the persona speaks (explicitly, or by its goal's language).
pub fn lang_of(persona: &crate::campaign::Persona, goal: &crate::campaign::Goal) -> Lang {
    PersonaProfile::of(persona, goal, &serde_json::Value::Null).lang
}

/// A stable RNG seed from a session id.
pub fn seed_of(id: Uuid) -> u64 {
    let v = id.as_u128();
    (v as u64) ^ ((v >> 64) as u64)
}
