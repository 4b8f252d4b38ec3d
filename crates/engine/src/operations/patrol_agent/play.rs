//! Starting a session on a seed cell through the ledger, and letting the
//! virtual user (model or persona engine) play it to the end and the judge
//! review it.

use super::*;
use crate::domain::ids::CampaignId;

/// One seed cell to explore now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ExploreSeed {
    pub campaign_id: CampaignId,
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
    pub(super) persona: serde_json::Value,
    pub(super) goal: serde_json::Value,
    pub(super) max_turns: u32,
    /// How many sessions of the same cell came before this one.
    pub(super) wording: u32,
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
        return Err(crate::Error::invalid_msg(
            crate::msg!(
                "error-seed-cell-unknown",
                persona = seed.persona_id.as_str(),
                goal = seed.goal_id.as_str(),
                campaign = campaign.id.to_string()
            ),
            crate::msg!("error-seed-cell-unknown-suggestion"),
        ));
    };
    let (persona, goal, variant) = match seed.variant {
        None | Some(VariantKind::Other) => (persona, goal, None),
        Some(kind) => {
            let rng_seed = platform.clock.now().timestamp_millis() as u64
                ^ virtual_user::seed_of(campaign.id.into());
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
    let wording = platform
        .list_sessions(campaign.id)
        .await?
        .iter()
        .filter(|s| {
            s.id.0 < session.id.0
                && s.seed_ref
                    .as_ref()
                    .is_some_and(|r| r.persona_id == seed.persona_id && r.goal_id == seed.goal_id)
        })
        .count() as u32;
    Ok(StartedSeed {
        session,
        persona,
        goal,
        max_turns: campaign.effective_budget.max_turns,
        wording,
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
        wording,
    } = started;
    // At most the role's concurrency of sessions play at once: a slow local
    // model then fills the window instead of being asked for everything at
    // once. The ledger already counted the session when it was started.
    let user_slot = clients.user_slots.acquire().await;
    let model = clients.virtual_user.clone().map(|c| {
        Arc::new(platform.metered(
            c,
            session.campaign_id.into(),
            crate::provenance::HostRole::VirtualUser,
        )) as Arc<dyn crate::role_models::ChatClient>
    });
    let mut user = virtual_user::for_session(session.id, &persona, &goal, model, wording);
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
                .fail_session(session.id, crate::msg!("session-user-broke-off"), end)
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
