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

use crate::campaign::Line;
use crate::error::{ErrorCode, Result};
use crate::exploration::patrol::{CoverageState, PatrolCampaign};
use crate::exploration::{
    CreateSession, EndReason, ExplorationSession, PlayedBy, SeedRef, Trigger, Variant,
};
use crate::judge::{JudgeSampling, review_pending};
use crate::platform::Platform;
use crate::role_models::RoleClients;
use crate::virtual_user::{self, SessionOutcome, VariantKind, derive_variant};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;
use uuid::Uuid;

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
    pub campaign_id: Uuid,
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

/// The seed cell to explore next and how.
#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    pub persona_id: String,
    pub goal_id: String,
    /// `None`: the seed as it is; else the derivation.
    pub variant: Option<VariantKind>,
    pub why: String,
}

/// Chooses what to explore: an uncovered persona x goal cell first; then a
/// goal that failed before, retried by the persona that tried it least with
/// another follow-up strategy; else the least explored cell with the goal
/// re-phrased.
pub fn choose_cell(c: &PatrolCampaign) -> Option<Pick> {
    if let Some(cell) = c.uncovered.first() {
        return Some(Pick {
            persona_id: cell.persona_id.clone(),
            goal_id: cell.goal_id.clone(),
            variant: None,
            why: "persona x goal cell not covered yet".into(),
        });
    }
    let least = |cells: Vec<&CoverageState>| {
        cells
            .into_iter()
            .min_by(|a, b| a.sessions.cmp(&b.sessions))
            .cloned()
    };
    let mut failed: Vec<_> = c.failed_goals.iter().collect();
    // Most failures relative to attempts first; ties by id for stability.
    failed.sort_by(|a, b| {
        (u64::from(b.failures) * u64::from(a.attempts.max(1)))
            .cmp(&(u64::from(a.failures) * u64::from(b.attempts.max(1))))
            .then_with(|| a.goal_id.cmp(&b.goal_id))
    });
    for goal in failed {
        let cells = c
            .coverage
            .iter()
            .filter(|s| s.goal_id == goal.goal_id)
            .collect();
        if let Some(cell) = least(cells) {
            return Some(Pick {
                persona_id: cell.persona_id,
                goal_id: cell.goal_id,
                variant: Some(VariantKind::OtherFollowUpStrategy),
                why: format!(
                    "goal {} failed {} of {} times before",
                    goal.goal_id, goal.failures, goal.attempts
                ),
            });
        }
    }
    least(c.coverage.iter().collect()).map(|cell| Pick {
        persona_id: cell.persona_id,
        goal_id: cell.goal_id,
        variant: Some(VariantKind::RephrasedGoal),
        why: "every cell covered: the least explored one, re-phrased".into(),
    })
}

/// One seed cell to explore now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ExploreSeed {
    pub campaign_id: Uuid,
    pub persona_id: String,
    pub goal_id: String,
    /// Explore a derived variant instead of the seed as it is.
    #[serde(default)]
    pub variant: Option<VariantKind>,
    /// `manual` on the accelerated line (debugging, the demo), `auto` for
    /// the patrol agent.
    pub trigger: Trigger,
}

/// A session started on a seed cell, not played yet (see [`start_seed`]).
#[derive(Debug, Clone)]
pub struct StartedSeed {
    pub session: ExplorationSession,
    persona: serde_json::Value,
    goal: serde_json::Value,
    max_turns: u32,
}

/// Who plays the user with these clients: the virtual-user model when one
/// is configured, else the built-in persona engine.
pub fn player(clients: &RoleClients) -> (PlayedBy, Option<String>) {
    match &clients.virtual_user {
        Some(model) => (PlayedBy::Model, Some(model.model_name())),
        None => (PlayedBy::Builtin, None),
    }
}

/// Starts a session on a seed cell (or its variant), checked against the
/// campaign's budget, recording who will play it with `clients`. Errors are
/// the refusal to start (guardrails, unknown seeds).
pub async fn start_seed(
    platform: &Platform,
    seed: &ExploreSeed,
    clients: &RoleClients,
) -> Result<StartedSeed> {
    let campaign = platform.get_campaign(seed.campaign_id).await?;
    let persona = campaign
        .seed_set
        .personas
        .iter()
        .find(|p| p.id == seed.persona_id)
        .map(serde_json::to_value)
        .transpose()?;
    let goal = campaign
        .seed_set
        .goals
        .iter()
        .find(|g| g.id == seed.goal_id)
        .map(serde_json::to_value)
        .transpose()?;
    let (Some(persona), Some(goal)) = (persona, goal) else {
        return Err(crate::Error::invalid(
            format!(
                "seed cell {} x {} is not in the seed set of campaign {}",
                seed.persona_id, seed.goal_id, campaign.id
            ),
            "Use persona and goal ids from the campaign's seed set.",
        ));
    };
    let (persona, goal, variant) = match seed.variant {
        None | Some(VariantKind::Other) => (persona, goal, None),
        Some(kind) => {
            let rng_seed =
                platform.clock.now().timestamp_millis() as u64 ^ virtual_user::seed_of(campaign.id);
            let (p, g, note) = derive_variant(&persona, &goal, kind, rng_seed);
            (p, g, Some(Variant { kind, note }))
        }
    };
    let (played_by, user_model) = player(clients);
    let session = platform
        .create_session(CreateSession {
            campaign_id: campaign.id,
            persona: persona.clone(),
            goal: goal.clone(),
            seed_ref: Some(SeedRef {
                persona_id: seed.persona_id.clone(),
                goal_id: seed.goal_id.clone(),
                variant,
            }),
            trigger: Some(seed.trigger),
            played_by: Some(played_by),
            user_model,
        })
        .await?;
    Ok(StartedSeed {
        session,
        persona,
        goal,
        max_turns: campaign.effective_budget.max_turns,
    })
}

/// Lets the virtual user (model or persona engine, as `clients` say)
/// converse in a started session until it ends, then runs the judge
/// review on it. Every failure ends in the returned outcome.
pub async fn play_seed(
    platform: &Platform,
    started: StartedSeed,
    clients: &RoleClients,
    sampling: JudgeSampling,
) -> SessionOutcome {
    let StartedSeed {
        session,
        persona,
        goal,
        max_turns,
    } = started;
    // At most the role's concurrency of sessions play at once: a slow local
    // model then fills the window instead of being asked for everything at
    // once. The ledger already counted the session when it was started.
    let user_slot = clients.user_slots.acquire().await;
    let mut user =
        virtual_user::for_session(session.id, &persona, &goal, clients.virtual_user.clone());
    let played = virtual_user::run_session(platform, session.id, user.as_mut(), max_turns).await;
    if let Some(mode) = user.output_mode() {
        platform
            .note_output_mode(
                session.campaign_id,
                crate::role_models::Role::VirtualUser,
                mode,
            )
            .await;
    }
    drop(user_slot);
    let mut outcome = match played {
        Ok(outcome) => outcome,
        Err(e) => {
            tracing::warn!(session = %session.id, error = %e, "exploration session broke off");
            let end = EndReason::SimulatorError;
            if let Err(e) = platform
                .fail_session(
                    session.id,
                    "the virtual user could not finish the session",
                    end,
                )
                .await
            {
                tracing::warn!(session = %session.id, error = %e, "could not mark the session failed");
            }
            SessionOutcome {
                session_id: session.id,
                end_reason: end,
                user_turns: 0,
                decisions: Vec::new(),
                record: None,
                status: "failed".into(),
                judge_status: None,
            }
        }
    };
    let judge_slot = clients.judge_slots.acquire().await;
    let reviewed =
        crate::judge::review_session(platform, session.id, clients.judge.as_deref(), sampling)
            .await;
    drop(judge_slot);
    match reviewed {
        Ok(Some(review)) => {
            outcome.judge_status = Some(
                if review.error.is_some() {
                    "failed"
                } else {
                    "done"
                }
                .into(),
            );
        }
        Ok(None) => {}
        Err(e) => tracing::warn!(session = %session.id, error = %e, "judge review failed"),
    }
    outcome
}

/// Starts a session on a seed cell, lets the virtual user (model or
/// persona engine) converse until it ends, and runs the judge review on
/// it. Errors are the refusal to start (guardrails, unknown seeds); once
/// started, every failure ends in the returned outcome.
pub async fn explore_seed(
    platform: &Platform,
    seed: &ExploreSeed,
    clients: &RoleClients,
    sampling: JudgeSampling,
) -> Result<SessionOutcome> {
    let started = start_seed(platform, seed, clients).await?;
    Ok(play_seed(platform, started, clients, sampling).await)
}

/// The resident agent. Build it with [`PatrolAgent::new`] to drive it by
/// hand ([`wake_once`](Self::wake_once)), or [`PatrolAgent::spawn`] for the
/// heartbeat.
pub struct PatrolAgent {
    platform: Arc<Platform>,
    /// Fixed clients (tests inject fakes); `None`: the platform's role
    /// models in force at each wake-up.
    clients: Option<RoleClients>,
    sampling: JudgeSampling,
    max_dispatch_per_campaign: u32,
    paused: AtomicBool,
    last_wake_at: Mutex<Option<DateTime<Utc>>>,
}

impl std::fmt::Debug for PatrolAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PatrolAgent")
            .field("clients", &self.clients)
            .field("paused", &self.paused)
            .finish_non_exhaustive()
    }
}

impl PatrolAgent {
    /// An agent that plays its roles with the platform's role models (see
    /// [`Platform::set_role_models`]).
    pub fn new(platform: Arc<Platform>, config: &PatrolConfig) -> Arc<Self> {
        Self::build(platform, config, None)
    }

    /// With clients built elsewhere (tests inject fakes).
    pub fn with_clients(
        platform: Arc<Platform>,
        config: &PatrolConfig,
        clients: RoleClients,
    ) -> Arc<Self> {
        Self::build(platform, config, Some(clients))
    }

    fn build(
        platform: Arc<Platform>,
        config: &PatrolConfig,
        clients: Option<RoleClients>,
    ) -> Arc<Self> {
        Arc::new(Self {
            platform,
            clients,
            sampling: config.sampling,
            max_dispatch_per_campaign: config.max_dispatch_per_campaign.max(1),
            paused: AtomicBool::new(config.paused),
            last_wake_at: Mutex::new(None),
        })
    }

    /// Starts the heartbeat on the current tokio runtime.
    pub fn spawn(platform: Arc<Platform>, config: PatrolConfig) -> PatrolHandle {
        let agent = Self::new(platform, &config);
        PatrolHandle::start(agent, config.interval)
    }

    fn clients(&self) -> RoleClients {
        self.clients
            .clone()
            .unwrap_or_else(|| self.platform.role_clients())
    }

    /// When the agent last did a (non-paused) wake-up.
    pub fn last_wake_at(&self) -> Option<DateTime<Utc>> {
        *self.last_wake_at.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn pause(&self) {
        self.paused.store(true, Ordering::SeqCst);
    }

    pub fn resume(&self) {
        self.paused.store(false, Ordering::SeqCst);
    }

    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::SeqCst)
    }

    /// One wake-up: patrol, decide, dispatch within budget, review.
    pub async fn wake_once(&self) -> Result<PatrolOutcome> {
        let at = self.platform.clock.now();
        if self.is_paused() {
            return Ok(PatrolOutcome {
                at,
                paused: true,
                campaigns: Vec::new(),
                reviewed: 0,
            });
        }
        *self.last_wake_at.lock().unwrap_or_else(|p| p.into_inner()) = Some(at);
        // One set of models for the whole wake-up, even if settings change
        // meanwhile.
        let clients = self.clients();
        let report = self.platform.patrol().await?;
        let mut campaigns = Vec::new();
        for c in &report.campaigns {
            campaigns.push(self.tend(c, &clients).await);
        }
        let reviewed =
            match review_pending(&self.platform, clients.judge.as_deref(), self.sampling).await {
                Ok(n) => n,
                Err(e) => {
                    tracing::warn!(error = %e, "judge reviews failed at this wake-up");
                    0
                }
            };
        let own = campaigns
            .iter()
            .flat_map(|c| &c.sessions)
            .filter(|s| s.judge_status.is_some())
            .count();
        Ok(PatrolOutcome {
            at,
            paused: false,
            campaigns,
            reviewed: reviewed + own,
        })
    }

    async fn tend(&self, c: &PatrolCampaign, clients: &RoleClients) -> CampaignDecision {
        let mut decision = CampaignDecision {
            campaign_id: c.id,
            campaign_name: c.name.clone(),
            action: PatrolAction::Observe,
            reason: String::new(),
            refusal: None,
            next_allowed_at: c.budget_remaining.next_session_allowed_at,
            sessions: Vec::new(),
        };
        // The patrol leaves the accelerated line out; the agent checks too,
        // because dispatching there would be an automatic session on a
        // compressed clock.
        let campaign = match self.platform.get_campaign(c.id).await {
            Ok(campaign) => campaign,
            Err(e) => {
                decision.action = PatrolAction::Error;
                decision.reason = e.body.message;
                return decision;
            }
        };
        if campaign.line != Line::Formal {
            decision.reason = "accelerated line: manual exploration only".into();
            return decision;
        }
        let now = self.platform.clock.now();
        if c.budget_remaining.sessions_remaining == 0
            || c.budget_remaining.next_session_allowed_at.is_none()
        {
            decision.reason = "session budget used up for this window".into();
            return decision;
        }
        if let Some(next) = c.budget_remaining.next_session_allowed_at
            && next > now
        {
            decision.reason = format!("next session allowed at {}", next.to_rfc3339());
            return decision;
        }
        let mut view = c.clone();
        // The ledger decides each session in turn; those it allows then
        // play at once, as many as the virtual user's slots take.
        let mut started = Vec::new();
        for _ in 0..self
            .max_dispatch_per_campaign
            .min(c.budget_remaining.sessions_remaining)
        {
            let Some(pick) = choose_cell(&view) else {
                decision.reason = "the seed set offers nothing to explore".into();
                break;
            };
            let seed = ExploreSeed {
                campaign_id: c.id,
                persona_id: pick.persona_id.clone(),
                goal_id: pick.goal_id.clone(),
                variant: pick.variant,
                trigger: Trigger::Auto,
            };
            match start_seed(&self.platform, &seed, clients).await {
                Ok(s) => {
                    decision.action = PatrolAction::Dispatch;
                    decision.reason = pick.why.clone();
                    started.push(s);
                }
                Err(e) if e.code().is_guardrail() || e.code() == ErrorCode::Conflict => {
                    tracing::info!(campaign = %c.id, code = %e.code(), "session refused; observing until allowed");
                    decision.refusal = Some(e.code());
                    decision.next_allowed_at = e.body.next_allowed_at;
                    decision.reason = e.body.message;
                    if started.is_empty() {
                        decision.action = PatrolAction::Refused;
                    }
                    break;
                }
                Err(e) => {
                    tracing::warn!(campaign = %c.id, error = %e, "could not start a session");
                    decision.action = PatrolAction::Error;
                    decision.reason = e.body.message;
                    break;
                }
            }
            // The cell now has a session: the next pick in this wake-up
            // moves on.
            view.uncovered
                .retain(|u| !(u.persona_id == pick.persona_id && u.goal_id == pick.goal_id));
            if let Some(cell) = view
                .coverage
                .iter_mut()
                .find(|s| s.persona_id == pick.persona_id && s.goal_id == pick.goal_id)
            {
                cell.sessions += 1;
            }
        }
        decision.sessions = futures::future::join_all(
            started
                .into_iter()
                .map(|s| play_seed(&self.platform, s, clients, self.sampling)),
        )
        .await;
        decision
    }
}

/// The running heartbeat. Dropping the handle stops it.
pub struct PatrolHandle {
    agent: Arc<PatrolAgent>,
    wake: Arc<Notify>,
    schedule: Arc<Schedule>,
    task: tokio::task::JoinHandle<()>,
}

/// The heartbeat's cadence and its next wake-up; changing the cadence
/// re-plans the pending sleep without waking the agent.
struct Schedule {
    interval: Mutex<Duration>,
    next_wake_at: Mutex<Option<DateTime<Utc>>>,
    replan: Notify,
}

impl std::fmt::Debug for PatrolHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PatrolHandle")
            .field("agent", &self.agent)
            .finish_non_exhaustive()
    }
}

impl PatrolHandle {
    fn start(agent: Arc<PatrolAgent>, interval: Duration) -> Self {
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
                    if !agent.is_paused() {
                        match agent.wake_once().await {
                            Ok(outcome) => tracing::info!(
                                campaigns = outcome.campaigns.len(),
                                reviewed = outcome.reviewed,
                                "patrol wake-up done"
                            ),
                            Err(e) => tracing::warn!(error = %e, "patrol wake-up failed"),
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
    fn interval(&self) -> Duration {
        *self.interval.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn next_wake_at(&self) -> Option<DateTime<Utc>> {
        *self.next_wake_at.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn set_next(&self, at: Option<DateTime<Utc>>) {
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
    handle: Option<Arc<PatrolHandle>>,
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

    fn running(&self) -> Result<&Arc<PatrolHandle>> {
        self.handle.as_ref().ok_or_else(|| {
            crate::Error::new(
                ErrorCode::Conflict,
                "no patrol agent runs in this process",
                "Start `agenteval serve` without --no-patrol to run the patrol agent.",
            )
        })
    }
}
