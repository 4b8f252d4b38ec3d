//! The resident patrol agent running in the background: its heartbeat
//! loop ([`PatrolAgent`]) and the control the shells hold over it
//! ([`PatrolControl`]: pause, resume, cadence, status). What it decides
//! and plays at each wake-up are operations (`crate::patrol_agent`).

use crate::campaign::Line;
use crate::error::{ErrorCode, Result};
use crate::exploration::Trigger;
use crate::exploration::patrol::PatrolCampaign;
use crate::judge::{JudgeSampling, review_pending};
use crate::patrol_agent::*;
use crate::platform::Platform;
use crate::role_models::RoleClients;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

mod agent;
mod control;

pub use agent::*;
pub use control::*;
