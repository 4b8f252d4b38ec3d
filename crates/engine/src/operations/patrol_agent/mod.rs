//! The resident patrol agent (常驻巡检代理): wakes on a heartbeat, asks the
//! platform's patrol operation what is going on, decides per campaign to
//! keep observing or to dispatch an exploration session, runs the virtual
//! user, then the judge review.
//!
//! It keeps no state between wake-ups: everything it decides on comes from
//! the patrol report (budget remaining, next allowed start, covered cells,
//! goals that failed). A guardrail refusal is feedback: the agent records
//! `next_allowed_at`, stops dispatching on that campaign for this wake-up
//! and never retries before that time. Errors of the agent or its models
//! are logged and touch nothing but exploration; fixed plans never wait on
//! it.

use crate::domain::ids::CampaignId;
use crate::error::{ErrorCode, Result};
use crate::exploration::patrol::{CoverageState, PatrolCampaign};
use crate::exploration::{
    CreateSession, EndReason, ExplorationSession, PlayedBy, SeedRef, Trigger, Variant,
};
use crate::judge::JudgeSampling;
use crate::platform::Platform;
use crate::role_models::RoleClients;
use crate::virtual_user::{self, SessionOutcome, VariantKind, derive_variant};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;

mod choose;
mod play;

pub use choose::*;
pub use play::*;

/// How the agent runs.
#[derive(Debug, Clone)]
pub struct PatrolConfig {
    /// Heartbeat (default one hour).
    pub interval: Duration,
    /// Start paused: no wake-up does anything until resumed.
    pub paused: bool,
    pub sampling: JudgeSampling,
    /// Sessions the agent may start per campaign in one wake-up (default 1).
    /// The platform's interval guardrail bounds it anyway.
    pub max_dispatch_per_campaign: u32,
}

impl Default for PatrolConfig {
    fn default() -> Self {
        Self {
            interval: Duration::from_secs(3600),
            paused: false,
            sampling: JudgeSampling::default(),
            max_dispatch_per_campaign: 1,
        }
    }
}

/// What the agent did with one campaign at one wake-up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PatrolAction {
    /// Kept observing (no budget, interval not elapsed, not patrollable).
    Observe,
    /// Started one or more sessions.
    Dispatch,
    /// The platform refused a session: feedback, not failure.
    Refused,
    /// Something went wrong; logged, exploration only.
    Error,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CampaignDecision {
    pub campaign_id: CampaignId,
    pub campaign_name: String,
    pub action: PatrolAction,
    pub reason: String,
    /// For a refusal: its reason code (`INTERVAL_NOT_ELAPSED`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<ErrorCode>,
    /// No session is started on this campaign before this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_allowed_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub sessions: Vec<SessionOutcome>,
}

/// One wake-up's work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PatrolOutcome {
    pub at: DateTime<Utc>,
    pub paused: bool,
    pub campaigns: Vec<CampaignDecision>,
    /// Judge reviews made at this wake-up (own sessions and sessions that
    /// external assistants closed).
    pub reviewed: usize,
}
