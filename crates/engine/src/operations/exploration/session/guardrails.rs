//! The guardrail machinery: what a decision reads of a campaign and a
//! session, the shaping of what a request carries, and budget decisions
//! taken in one transaction each, campaign by campaign in turn.

use super::*;
use crate::domain::ids::{CampaignId, SessionId, TargetId};

/// Whether a campaign accepts exploration now (see [`CampaignWindow`]).
pub(crate) fn campaign_running(c: &Campaign, now: DateTime<Utc>) -> bool {
    CampaignWindow::of(c).running(now)
}

/// The minimum real time between two session starts.
pub(crate) fn min_interval(c: &Campaign) -> Duration {
    let ms = c.effective_budget.min_interval_minutes * 60_000.0 / c.time_scale.max(1.0);
    Duration::milliseconds(ms.round() as i64)
}

pub(super) fn shape_json(field: &str, value: serde_json::Value) -> Result<serde_json::Value> {
    let value = match value {
        serde_json::Value::Object(m) if !m.is_empty() => serde_json::Value::Object(m),
        serde_json::Value::String(s) if !s.trim().is_empty() => {
            serde_json::Value::String(s.trim().to_string())
        }
        serde_json::Value::Object(_) | serde_json::Value::String(_) => {
            return Err(Error::invalid(
                format!("{field} must not be empty"),
                format!("Describe the {field}, e.g. {{\"name\": \"...\", ...}} or a sentence."),
            ));
        }
        _ => {
            return Err(Error::new(
                ErrorCode::Unprocessable,
                format!("{field} must be a JSON object or a string"),
                format!("Describe the {field}, e.g. {{\"name\": \"...\", ...}} or a sentence."),
            ));
        }
    };
    if serde_json::to_string(&value)?.len() > MAX_PERSONA_GOAL_BYTES {
        return Err(Error::invalid(
            format!("{field} is larger than 16 KiB"),
            format!("Keep the {field} short: describe it, do not paste documents."),
        ));
    }
    Ok(value)
}

/// The model name stored with a session: only for `played_by: model`,
/// trimmed, never empty, at most [`MAX_USER_MODEL_CHARS`] characters.
pub(super) fn shape_user_model(
    played_by: PlayedBy,
    user_model: Option<String>,
) -> Result<Option<String>> {
    let Some(name) = user_model.map(|m| m.trim().to_string()) else {
        return Ok(None);
    };
    if played_by != PlayedBy::Model {
        return Err(Error::invalid(
            format!(
                "user_model is given but played_by is {}",
                played_by.as_str()
            ),
            "Send user_model only with played_by: \"model\", or leave it out.",
        ));
    }
    if name.is_empty() || name.chars().count() > MAX_USER_MODEL_CHARS {
        return Err(Error::invalid(
            format!("user_model must be 1 to {MAX_USER_MODEL_CHARS} characters"),
            "Name the model that plays the user, e.g. \"qwen2.5-7b-instruct\".",
        ));
    }
    Ok(Some(name))
}

pub(super) fn session_not_running(
    id: Uuid,
    status: SessionStatus,
    end_reason: Option<EndReason>,
) -> Error {
    Error::new(
        ErrorCode::SessionNotRunning,
        format!(
            "session {id} is {}{}",
            status.as_str(),
            end_reason
                .map(|r| format!(" ({})", r.as_str()))
                .unwrap_or_default()
        ),
        "Start a new session if the budget allows; this one accepts no more messages.",
    )
}

/// Reads session `id` and its campaign's state in the decision's
/// transaction.
pub(super) fn load_state(tx: &Tx<'_>, id: SessionId) -> Result<SessionState> {
    tx.session_state(id)?
        .ok_or_else(|| Error::not_found("session", id))
}

/// Checks a session-level action (message, close) against the session's
/// state and its campaign's window; expires the session when the window
/// has ended. The outer error is an internal one.
pub(super) fn check_open(
    state: &mut SessionState,
    tx: &Tx<'_>,
    now: DateTime<Utc>,
) -> Result<Result<()>> {
    if state.status == SessionStatus::Running && !state.campaign.running(now) {
        // The window ended before the scheduler finalized the campaign.
        tx.expire_session(state.id, now)?;
        crate::exploration::simulator_faults::check_and_store(tx, state.id)?;
        state.status = SessionStatus::Expired;
        state.end_reason = Some(EndReason::Expired);
    }
    Ok(if state.status == SessionStatus::Running {
        Ok(())
    } else {
        Err(session_not_running(
            state.id.into(),
            state.status,
            state.end_reason,
        ))
    })
}

/// A message's reserved turn.
pub(super) struct Reserved {
    pub(super) campaign_id: CampaignId,
    pub(super) target_id: TargetId,
    /// 0-based index of this user turn.
    pub(super) index: u32,
    pub(super) max_turns: u32,
    /// The conversation up to and including this user turn.
    pub(super) history: Vec<ChatMessage>,
}

/// The campaign whose budget a decision spends: decisions on one campaign
/// take turns, across processes too.
#[derive(Debug, Clone, Copy)]
pub(super) enum Decides {
    /// A new session of this campaign.
    Campaign(CampaignId),
    /// An action on this session, on its campaign's budget.
    Session(SessionId),
}

impl Platform {
    /// Takes a budget decision in one transaction, its campaign locked
    /// first (see [`Decides`]): `decide` gets the transaction, the id of
    /// its ledger row and the time of the decision (read once the lock is
    /// held, so that decisions taken in turn are stamped in turn), and
    /// records the action allowed or refused.
    pub(super) async fn decide<T: Send + 'static>(
        &self,
        on: Decides,
        decide: impl FnOnce(&Tx<'_>, Uuid, DateTime<Utc>) -> Result<Decided<T>> + Send + 'static,
    ) -> Result<T> {
        let entry_id = self.ids.next_id();
        let clock = self.clock.clone();
        match self
            .store
            .transact(move |tx| {
                match on {
                    Decides::Campaign(id) => tx.lock_campaign(id)?,
                    Decides::Session(id) => tx.lock_campaign_of_session(id)?,
                }
                decide(tx, entry_id, clock.now())
            })
            .await?
        {
            Decided::Allowed(done) => Ok(done),
            Decided::Refused(refusal) => Err(refusal),
        }
    }

    /// Takes a decision on an action on a session (message, close), its
    /// campaign locked: reads the session and its campaign's state, refuses
    /// (and records) the action if the session is not open, and otherwise
    /// runs `act`, which performs and records the action or refuses it.
    pub(super) async fn decide_on_session<T: Send + 'static>(
        &self,
        session_id: SessionId,
        action: LedgerAction,
        act: impl FnOnce(&Tx<'_>, &SessionState, Entry, DateTime<Utc>) -> Result<Decided<T>>
        + Send
        + 'static,
    ) -> Result<T> {
        self.decide(Decides::Session(session_id), move |tx, entry_id, now| {
            let mut session = load_state(tx, session_id)?;
            let entry = session.entry(entry_id, action, now);
            if let Err(refusal) = check_open(&mut session, tx, now)? {
                return entry.refuse(tx, refusal);
            }
            act(tx, &session, entry, now)
        })
        .await
    }

    /// Audits a session's change of state and tells the listeners.
    pub(super) async fn session_changed(
        &self,
        action: &str,
        campaign_id: CampaignId,
        session_id: SessionId,
    ) {
        self.audit_operation(action, Some(session_id.into()), "ok")
            .await;
        self.notify(Event::SessionChanged {
            campaign_id,
            session_id,
        });
    }
}

/// The guardrails of a new session, in their documented order (see
/// [`Platform::create_session`]); `used` sessions so far, the `last` one
/// started at that time (ms).
pub(super) fn create_decision(
    campaign: &Campaign,
    window: &CampaignWindow,
    trigger: Trigger,
    seed_ref: Option<&SeedRef>,
    used: i64,
    last: Option<i64>,
    now: DateTime<Utc>,
) -> Result<()> {
    if !window.running(now) {
        return Err(window.not_running_error(now));
    }
    if trigger == Trigger::Auto && campaign.line == Line::Accelerated {
        return Err(Error::new(
            ErrorCode::AutoNotAllowedOnAcceleratedLine,
            format!(
                "campaign {} runs on the accelerated line (time_scale {}): only manual sessions are allowed",
                campaign.id, campaign.time_scale
            ),
            "Send trigger: \"manual\" to debug exploration on this campaign.",
        ));
    }
    if trigger == Trigger::Auto && campaign.seed_set.is_empty() {
        return Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "campaign {} has an empty seed set and takes no part in automatic exploration",
                campaign.id
            ),
            "Send trigger: \"manual\" to debug, or create a campaign with seed personas and goals.",
        ));
    }
    match seed_ref {
        Some(s) => {
            if !campaign
                .seed_set
                .personas
                .iter()
                .any(|p| p.id == s.persona_id)
            {
                return Err(Error::new(
                    ErrorCode::NotFound,
                    format!(
                        "seed_ref.persona_id {:?} is not a persona of the campaign's seed set",
                        s.persona_id
                    ),
                    "Use a persona id listed by GET /api/exploration/patrol (seeds.personas).",
                ));
            }
            if !campaign.seed_set.goals.iter().any(|g| g.id == s.goal_id) {
                return Err(Error::new(
                    ErrorCode::NotFound,
                    format!(
                        "seed_ref.goal_id {:?} is not a goal of the campaign's seed set",
                        s.goal_id
                    ),
                    "Use a goal id listed by GET /api/exploration/patrol (seeds.goals).",
                ));
            }
        }
        None if trigger == Trigger::Auto => {
            return Err(Error::invalid(
                "auto-triggered sessions need a seed_ref {persona_id, goal_id}",
                "Name the seed persona and goal the session comes from; variants add seed_ref.variant.",
            ));
        }
        None => {}
    }
    let budget = campaign.effective_budget;
    if used >= i64::from(budget.max_sessions) {
        return Err(Error::new(
            ErrorCode::SessionBudgetExhausted,
            format!(
                "campaign {} has used its {} exploration sessions for this window",
                campaign.id, budget.max_sessions
            ),
            "Stop dispatching sessions for this campaign; its fixed plan carries on.",
        ));
    }
    if let Some(last) = last {
        let next = from_ms(last) + min_interval(campaign);
        if next > now {
            return Err(Error::new(
                ErrorCode::IntervalNotElapsed,
                format!(
                    "the previous session started less than {} minutes (campaign time) ago; the next is allowed at {}",
                    budget.min_interval_minutes,
                    next.to_rfc3339()
                ),
                "Wait until next_allowed_at before starting another session.",
            )
            .with_next_allowed_at(next));
        }
    }
    Ok(())
}
