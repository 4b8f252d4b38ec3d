//! Layer 4, the runtime: the platform's background work, started the same
//! way by every shell (the desktop app, `agenteval serve`): the fixed-run
//! [`scheduler`], the audit [`retention`] job, the [`judge_worker`]
//! reviewing closed sessions and, given a cadence, the resident
//! [`patrol_agent`]. Each reads the platform's role models at every use, so
//! that changed settings take effect without a restart.

pub mod judge_worker;
pub mod patrol_agent;
pub mod retention;
pub mod scheduler;

pub use patrol_agent::{PatrolAgent, PatrolControl, PatrolHandle, PatrolStatus};

use crate::Platform;
use crate::judge::JudgeSampling;
use crate::patrol_agent::PatrolConfig;
use std::sync::Arc;
use std::time::Duration;

/// What the background work is started with.
#[derive(Debug, Clone, Copy)]
pub struct RuntimeConfig {
    /// Audit rows older than this many days are deleted.
    pub audit_retention_days: u32,
    /// The patrol agent's heartbeat; `None` runs no patrol agent.
    pub patrol_interval: Option<Duration>,
}

/// Starts the background work on the current tokio runtime; returns the
/// control of the patrol agent (pause, resume, cadence), empty without one.
pub fn start(platform: &Arc<Platform>, config: RuntimeConfig) -> PatrolControl {
    if platform.read_only() {
        // Every piece of it writes: the database takes nothing now.
        tracing::warn!("the database is read-only: no run is played, no session reviewed");
        return PatrolControl::new(None);
    }
    scheduler::spawn(platform.clone());
    retention::spawn(platform.clone(), config.audit_retention_days);
    let sampling = JudgeSampling::default();
    judge_worker::spawn(platform.clone(), sampling);
    PatrolControl::new(config.patrol_interval.map(|interval| {
        PatrolAgent::spawn(
            platform.clone(),
            PatrolConfig {
                interval,
                sampling,
                ..Default::default()
            },
        )
    }))
}
