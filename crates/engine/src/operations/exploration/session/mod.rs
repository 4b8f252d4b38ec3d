//! Exploration sessions: create, message, close, fail, and the read side
//! used for drill-down.
//!
//! Every create/message/close is a budget decision taken against the ledger
//! (see [`super::ledger`]), taken in one transaction with the budget it
//! spends locked: a create's or a close's campaign, a message's session
//! (on SQLite, a step of the group-commit writer's thread; on PostgreSQL,
//! a start or a message the server can take in one statement is taken
//! there, see [`super::ledger`]). The
//! target is never called inside a decision: a message first reserves its
//! turn (check + increment + ledger row, committed), then talks to the
//! target, then stores the reply. Concurrent messages therefore can never
//! exceed the turn limit, and a slow target never blocks other sessions'
//! decisions.
//!
//! Here: the session's types. `guardrails.rs`: what a decision reads and
//! how it is taken; `operations.rs`: the operations themselves.

use super::ledger::{Decided, Entry, LedgerAction, Record};
use crate::campaign::{Campaign, CampaignStatus, Line};
use crate::clock::{from_ms, to_ms};
use crate::error::{Error, ErrorCode, Result};
use crate::platform::{Event, Platform};
use crate::store::Tx;
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

mod guardrails;
mod lease;
mod operations;
mod tools;

pub use tools::SessionTools;

pub use lease::SESSION_LEASE;

/// The campaigns sessions were started on, as read for the first start:
/// all a start uses of a campaign but its status is fixed when it is
/// created, and each decision reads the status again. At most
/// [`StartCampaigns::MAX`] are kept (all are forgotten when more come).
#[derive(Default)]
pub(crate) struct StartCampaigns(
    std::sync::Mutex<std::collections::HashMap<crate::CampaignId, std::sync::Arc<Campaign>>>,
);

impl StartCampaigns {
    const MAX: usize = 1024;
}

pub(crate) use guardrails::{campaign_running, min_interval};

pub use crate::domain::session::*;
