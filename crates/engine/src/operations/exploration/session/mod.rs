//! Exploration sessions: create, message, close, fail, and the read side
//! used for drill-down.
//!
//! Every create/message/close is a budget decision taken against the ledger
//! (see [`super::ledger`]), taken in one transaction with the budget it
//! spends locked: a create's or a close's campaign, a message's session
//! (on SQLite, a step of the group-commit writer's thread). The
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
use crate::channel::ChatMessage;
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

pub(crate) use guardrails::{campaign_running, min_interval};

pub use crate::domain::session::*;
