//! The guardrail machinery: what a decision reads of a campaign and a
//! session, the shaping of what a request carries, and budget decisions
//! taken in one transaction each, budget by budget in turn.

use super::*;
use crate::domain::ids::{CampaignId, SessionId};
use crate::i18n::Msg;
use crate::msg;

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
            return Err(Error::invalid_msg(
                msg!("error-seed-value-empty", field = field),
                msg!("error-seed-value-suggestion", field = field),
            ));
        }
        _ => {
            return Err(Error::msg(
                ErrorCode::Unprocessable,
                msg!("error-seed-value-shape", field = field),
                msg!("error-seed-value-suggestion", field = field),
            ));
        }
    };
    if serde_json::to_string(&value)?.len() > MAX_PERSONA_GOAL_BYTES {
        return Err(Error::invalid_msg(
            msg!("error-seed-value-large", field = field),
            msg!("error-seed-value-large-suggestion", field = field),
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
        return Err(Error::invalid_msg(
            msg!("error-user-model-played-by", played_by = played_by.as_str()),
            msg!("error-user-model-played-by-suggestion"),
        ));
    }
    if name.is_empty() || name.chars().count() > MAX_USER_MODEL_CHARS {
        return Err(Error::invalid_msg(
            msg!("error-user-model-length", max = MAX_USER_MODEL_CHARS),
            msg!("error-user-model-length-suggestion"),
        ));
    }
    Ok(Some(name))
}

pub(super) fn session_not_running(
    id: Uuid,
    status: SessionStatus,
    end_reason: Option<EndReason>,
) -> Error {
    let status = Msg::name("session-status", status.as_str());
    let message = match end_reason {
        Some(r) => msg!(
            "guard-session-ended",
            id = id.to_string(),
            status = status,
            reason = Msg::name("end-reason", r.as_str())
        ),
        None => msg!(
            "guard-session-not-running",
            id = id.to_string(),
            status = status
        ),
    };
    Error::msg(
        ErrorCode::SessionNotRunning,
        message,
        msg!("guard-session-not-running-suggestion"),
    )
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

impl Platform {
    /// Takes a decision on the sessions of campaign `campaign_id` (a new
    /// one) in one transaction, the campaign locked first, so that
    /// decisions on one campaign take turns across processes too: `decide`
    /// gets the transaction, the id of its ledger row, the time of the
    /// decision (read once the lock is held, so that decisions taken in
    /// turn are stamped in turn) and the campaign's status then, and
    /// records the action allowed or refused.
    pub(super) async fn decide<T: Send + 'static>(
        &self,
        campaign_id: CampaignId,
        decide: impl FnOnce(&Tx<'_>, Uuid, DateTime<Utc>, CampaignStatus) -> Result<Decided<T>>
        + Send
        + 'static,
    ) -> Result<T> {
        let entry_id = self.ids.next_id();
        let clock = self.clock.clone();
        self.store
            .transact(move |tx| {
                let status = tx
                    .lock_campaign(campaign_id)?
                    .ok_or_else(|| Error::not_found("campaign", campaign_id))?;
                decide(tx, entry_id, clock.now(), status)
            })
            .await?
            .into_result()
    }

    /// Takes a decision on an action on a session (message, close): reads
    /// the session and its campaign's state, refuses (and records) the
    /// action if the session is not open, and otherwise runs `act`, which
    /// performs and records the action or refuses it. A close locks the
    /// session's campaign first, as a create does; a message, which spends
    /// its session's turns alone, locks only its session, as it reads it
    /// (see `Tx::lock_session`), so that the other sessions of the
    /// campaign decide meanwhile.
    pub(super) async fn decide_on_session<T: Send + 'static>(
        &self,
        session_id: SessionId,
        action: LedgerAction,
        act: impl FnOnce(&Tx<'_>, &SessionState, Entry, DateTime<Utc>) -> Result<Decided<T>>
        + Send
        + 'static,
    ) -> Result<T> {
        let entry_id = self.ids.next_id();
        let clock = self.clock.clone();
        self.store
            .transact(move |tx| {
                let state = if action == LedgerAction::Message {
                    tx.lock_session(session_id)?
                } else {
                    tx.lock_campaign_of_session(session_id)?;
                    tx.session_state(session_id)?
                };
                let mut session = state.ok_or_else(|| Error::not_found("session", session_id))?;
                // Read once the lock is held (see `decide`).
                let now = clock.now();
                let entry = session.entry(entry_id, action, now);
                if let Err(refusal) = check_open(&mut session, tx, now)? {
                    return entry.refuse(tx, refusal);
                }
                act(tx, &session, entry, now)
            })
            .await?
            .into_result()
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
    seed_decision(campaign, trigger, seed_ref)?;
    budget_decision(campaign, used, last, now)
}

/// The guardrails of a new session that only its campaign's settings and
/// the request decide (the line, the seeds), in their documented order.
pub(super) fn seed_decision(
    campaign: &Campaign,
    trigger: Trigger,
    seed_ref: Option<&SeedRef>,
) -> Result<()> {
    if trigger == Trigger::Auto && campaign.line == Line::Accelerated {
        return Err(Error::msg(
            ErrorCode::AutoNotAllowedOnAcceleratedLine,
            msg!(
                "guard-accelerated",
                id = campaign.id.to_string(),
                scale = campaign.time_scale.to_string()
            ),
            msg!("guard-accelerated-suggestion"),
        ));
    }
    if trigger == Trigger::Auto && campaign.seed_set.is_empty() {
        return Err(Error::msg(
            ErrorCode::Conflict,
            msg!("guard-no-seeds", id = campaign.id.to_string()),
            msg!("guard-no-seeds-suggestion"),
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
                return Err(Error::msg(
                    ErrorCode::NotFound,
                    msg!("guard-unknown-persona", id = s.persona_id.as_str()),
                    msg!("guard-unknown-persona-suggestion"),
                ));
            }
            if !campaign.seed_set.goals.iter().any(|g| g.id == s.goal_id) {
                return Err(Error::msg(
                    ErrorCode::NotFound,
                    msg!("guard-unknown-goal", id = s.goal_id.as_str()),
                    msg!("guard-unknown-goal-suggestion"),
                ));
            }
        }
        None if trigger == Trigger::Auto => {
            return Err(Error::invalid_msg(
                msg!("guard-auto-needs-seed"),
                msg!("guard-auto-needs-seed-suggestion"),
            ));
        }
        None => {}
    }
    Ok(())
}

/// The budget's guardrails of a new session: `used` sessions so far, the
/// `last` one started at that time (ms).
fn budget_decision(
    campaign: &Campaign,
    used: i64,
    last: Option<i64>,
    now: DateTime<Utc>,
) -> Result<()> {
    let budget = campaign.effective_budget;
    if used >= i64::from(budget.max_sessions) {
        return Err(Error::msg(
            ErrorCode::SessionBudgetExhausted,
            msg!(
                "guard-budget",
                id = campaign.id.to_string(),
                max = budget.max_sessions
            ),
            msg!("guard-budget-suggestion"),
        ));
    }
    if let Some(last) = last {
        let next = from_ms(last) + min_interval(campaign);
        if next > now {
            return Err(Error::msg(
                ErrorCode::IntervalNotElapsed,
                msg!(
                    "guard-interval",
                    minutes = budget.min_interval_minutes.to_string(),
                    next = next.to_rfc3339()
                ),
                msg!("guard-interval-suggestion"),
            )
            .with_next_allowed_at(next));
        }
    }
    Ok(())
}
