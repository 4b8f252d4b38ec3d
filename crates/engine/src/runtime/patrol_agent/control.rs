//! The running patrol agent: its schedule, its handle and the control the
//! shells hold (pause, resume, cadence, status).

use super::*;

/// The running heartbeat. Dropping the handle stops it.
pub struct PatrolHandle {
    pub(super) agent: Arc<PatrolAgent>,
    pub(super) wake: Arc<Notify>,
    pub(super) schedule: Arc<Schedule>,
    pub(super) task: tokio::task::JoinHandle<()>,
}

/// The heartbeat's cadence and its next wake-up; changing the cadence
/// re-plans the pending sleep without waking the agent.
pub(super) struct Schedule {
    pub(super) interval: Mutex<Duration>,
    pub(super) next_wake_at: Mutex<Option<DateTime<Utc>>>,
    pub(super) replan: Notify,
}

impl std::fmt::Debug for PatrolHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PatrolHandle")
            .field("agent", &self.agent)
            .finish_non_exhaustive()
    }
}

impl PatrolHandle {
    pub(super) fn start(agent: Arc<PatrolAgent>, interval: Duration) -> Self {
        let wake = Arc::new(Notify::new());
        let schedule = Arc::new(Schedule {
            interval: Mutex::new(interval),
            next_wake_at: Mutex::new(None),
            replan: Notify::new(),
        });
        let task = tokio::spawn({
            let agent = agent.clone();
            let wake = wake.clone();
            let schedule = schedule.clone();
            async move {
                loop {
                    // One worker of a cluster wakes per cadence (a
                    // single process always holds the lease); a paused
                    // agent leaves it to the others.
                    if !agent.is_paused() {
                        match agent.platform.take_patrol_lease(schedule.interval()).await {
                            Ok(true) => match agent.wake_once().await {
                                Ok(outcome) => tracing::info!(
                                    campaigns = outcome.campaigns.len(),
                                    reviewed = outcome.reviewed,
                                    "patrol wake-up done"
                                ),
                                Err(e) => tracing::warn!(error = %e, "patrol wake-up failed"),
                            },
                            Ok(false) => {
                                tracing::debug!(
                                    "another worker holds the patrol lease: no wake-up here"
                                )
                            }
                            Err(e) => {
                                tracing::warn!(error = %e, "the patrol lease could not be taken")
                            }
                        }
                    }
                    let slept_at = tokio::time::Instant::now();
                    let slept_at_utc = agent.platform.clock.now();
                    loop {
                        let interval = schedule.interval();
                        let next = slept_at_utc
                            + chrono::Duration::from_std(interval).unwrap_or(chrono::Duration::MAX);
                        schedule.set_next(Some(next));
                        tokio::select! {
                            _ = tokio::time::sleep_until(slept_at + interval) => break,
                            _ = wake.notified() => break,
                            _ = schedule.replan.notified() => continue,
                        }
                    }
                }
            }
        });
        Self {
            agent,
            wake,
            schedule,
            task,
        }
    }

    pub fn agent(&self) -> &Arc<PatrolAgent> {
        &self.agent
    }

    pub fn pause(&self) {
        self.agent.pause();
    }

    /// Resumes and wakes at once.
    pub fn resume(&self) {
        self.agent.resume();
        self.wake.notify_one();
    }

    pub fn is_paused(&self) -> bool {
        self.agent.is_paused()
    }

    /// Wakes the agent now instead of at the next heartbeat.
    pub fn wake_now(&self) {
        self.wake.notify_one();
    }

    pub fn interval(&self) -> Duration {
        self.schedule.interval()
    }

    /// Changes the cadence: the next wake-up comes `interval` after the
    /// previous one (at once if that time has passed).
    pub fn set_interval(&self, interval: Duration) {
        *self
            .schedule
            .interval
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = interval.max(Duration::from_secs(1));
        self.schedule.replan.notify_one();
    }

    /// What the agent is doing: paused or not, cadence, last and next
    /// wake-up.
    pub fn status(&self) -> PatrolStatus {
        let paused = self.is_paused();
        PatrolStatus {
            running: true,
            paused,
            interval_minutes: u32::try_from(self.interval().as_secs().div_ceil(60))
                .unwrap_or(u32::MAX),
            last_wake_at: self.agent.last_wake_at(),
            next_wake_at: if paused {
                None
            } else {
                self.schedule.next_wake_at()
            },
        }
    }

    pub fn stop(self) {
        self.task.abort();
    }
}

impl Schedule {
    pub(super) fn interval(&self) -> Duration {
        *self.interval.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn next_wake_at(&self) -> Option<DateTime<Utc>> {
        *self.next_wake_at.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn set_next(&self, at: Option<DateTime<Utc>>) {
        *self.next_wake_at.lock().unwrap_or_else(|p| p.into_inner()) = at;
    }
}

impl Drop for PatrolHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The patrol agent's state as the API and the UI show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PatrolStatus {
    /// Whether this process runs a patrol agent (`agenteval serve
    /// --no-patrol` runs none).
    pub running: bool,
    pub paused: bool,
    /// Heartbeat in minutes (0 when no agent runs).
    pub interval_minutes: u32,
    /// The last wake-up that did its work (paused wake-ups do nothing).
    pub last_wake_at: Option<DateTime<Utc>>,
    /// The next planned wake-up; `None` while paused or when no agent runs.
    pub next_wake_at: Option<DateTime<Utc>>,
}

/// The operations on the resident patrol agent shared by every shell
/// (Tauri commands, HTTP routes): status, pause, resume. Cheap to clone;
/// holds no agent when the process runs none.
#[derive(Debug, Clone, Default)]
pub struct PatrolControl {
    pub(super) handle: Option<Arc<PatrolHandle>>,
}

impl PatrolControl {
    pub fn new(handle: Option<PatrolHandle>) -> Self {
        Self {
            handle: handle.map(Arc::new),
        }
    }

    /// No agent in this process.
    pub fn none() -> Self {
        Self::default()
    }

    pub fn handle(&self) -> Option<&Arc<PatrolHandle>> {
        self.handle.as_ref()
    }

    pub fn status(&self) -> PatrolStatus {
        self.handle
            .as_ref()
            .map(|h| h.status())
            .unwrap_or(PatrolStatus {
                running: false,
                paused: false,
                interval_minutes: 0,
                last_wake_at: None,
                next_wake_at: None,
            })
    }

    /// Pauses exploration by the agent (idempotent). A wake-up under way
    /// finishes; the next ones do nothing until resumed.
    pub fn pause(&self) -> Result<PatrolStatus> {
        let handle = self.running()?;
        handle.pause();
        tracing::info!("patrol agent paused");
        Ok(handle.status())
    }

    /// Resumes the agent and wakes it at once (idempotent).
    pub fn resume(&self) -> Result<PatrolStatus> {
        let handle = self.running()?;
        // Resuming an agent that runs changes nothing (and wakes nothing).
        if handle.is_paused() {
            handle.resume();
            tracing::info!("patrol agent resumed");
        }
        Ok(handle.status())
    }

    pub(super) fn running(&self) -> Result<&Arc<PatrolHandle>> {
        self.handle.as_ref().ok_or_else(|| {
            crate::Error::msg(
                ErrorCode::Conflict,
                crate::msg!("error-patrol-agent-absent"),
                crate::msg!("error-patrol-agent-absent-suggestion"),
            )
        })
    }
}
