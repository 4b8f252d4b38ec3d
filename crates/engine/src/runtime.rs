//! The platform's background work, started the same way by every shell
//! (the desktop app, `agenteval serve`): the fixed-run scheduler, the audit
//! retention job, the judge worker reviewing closed sessions and, given a
//! cadence, the resident patrol agent. Each reads the platform's role
//! models at every use, so that changed settings take effect without a
//! restart.

use crate::Platform;
use crate::judge::JudgeSampling;
use crate::patrol_agent::{PatrolAgent, PatrolConfig, PatrolControl};
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
    crate::fixed::spawn_scheduler(platform.clone());
    crate::audit::spawn_retention(platform.clone(), config.audit_retention_days);
    let sampling = JudgeSampling::default();
    crate::judge::spawn_worker(platform.clone(), sampling);
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
