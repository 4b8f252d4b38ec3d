//! The patrol agent: one wake-up over every running formal campaign.

use super::*;

/// The resident agent. Build it with [`PatrolAgent::new`] to drive it by
/// hand ([`wake_once`](Self::wake_once)), or [`PatrolAgent::spawn`] for the
/// heartbeat.
pub struct PatrolAgent {
    pub(super) platform: Arc<Platform>,
    /// Fixed clients (tests inject fakes); `None`: the platform's role
    /// models in force at each wake-up.
    pub(super) clients: Option<RoleClients>,
    pub(super) sampling: JudgeSampling,
    pub(super) max_dispatch_per_campaign: u32,
    pub(super) paused: AtomicBool,
    pub(super) last_wake_at: Mutex<Option<DateTime<Utc>>>,
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

    pub(super) fn build(
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

    pub(super) fn clients(&self) -> RoleClients {
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

    pub(super) async fn tend(&self, c: &PatrolCampaign, clients: &RoleClients) -> CampaignDecision {
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
