//! Reviewing sessions as they close: loading a session for review,
//! storing the review, and catching up on pending ones (the worker task
//! that calls this is the runtime's, `runtime/judge_worker.rs`).

use super::*;
use crate::domain::ids::{CampaignId, SessionId};

/// Loads what the judge needs of one session.
pub async fn load_session(
    platform: &Platform,
    session_id: SessionId,
) -> Result<(CampaignId, SessionForReview)> {
    let (campaign_id, mut session) = platform
        .store
        .session_for_review(session_id)
        .await?
        .ok_or_else(|| crate::Error::not_found("session", session_id))?;
    (session.tools, session.max_steps) = platform.session_tool_names(campaign_id).await?;
    Ok((campaign_id, session))
}

/// How long a worker may take over one review (the judge's retries
/// included) before another worker of the cluster may review the session
/// instead: a worker that died mid-review loses the session after this.
pub const JUDGE_LEASE: chrono::Duration = chrono::Duration::minutes(10);

/// Reviews one session whose judge review is pending and stores the
/// result; returns `None` when it was not pending (already reviewed, or
/// never closed) or another worker sharing the database is reviewing it (it
/// holds the session's lease: the judge is asked once per session across
/// the cluster). A model failure is stored as a `failed` review.
pub async fn review_session(
    platform: &Platform,
    session_id: SessionId,
    judge: Option<&dyn ChatClient>,
    sampling: JudgeSampling,
) -> Result<Option<JudgeReview>> {
    let lease = format!("judge:{session_id}");
    let now = platform.clock.now();
    if !platform
        .store
        .take_lease(&lease, now, now + JUDGE_LEASE)
        .await?
    {
        return Ok(None);
    }
    let reviewed = review_leased(platform, session_id, judge, sampling).await;
    if let Err(e) = platform.store.release_lease(&lease).await {
        tracing::warn!(%session_id, error = ?e, "could not release the judge's lease");
    }
    reviewed
}

/// [`review_session`] once this worker holds the session's lease. The
/// status is read under the lease: a worker that reviewed the session
/// stored its review before letting the lease go.
async fn review_leased(
    platform: &Platform,
    session_id: SessionId,
    judge: Option<&dyn ChatClient>,
    sampling: JudgeSampling,
) -> Result<Option<JudgeReview>> {
    let status = platform.store.judge_status(session_id).await?;
    if status.as_deref() != Some("pending") {
        return Ok(None);
    }
    let (campaign_id, session) = load_session(platform, session_id).await?;
    let metered =
        judge.map(|c| platform.metered(c, campaign_id.into(), crate::provenance::HostRole::Judge));
    let judge = metered
        .as_ref()
        .map(|c| c as &dyn crate::role_models::ChatClient);
    let (review, status) = match judge {
        None => (heuristic_review(&session), "done"),
        Some(client) => match model_review(client, &session, sampling).await {
            Ok(r) => {
                if let Some(mode) = r.output_mode {
                    platform
                        .note_output_mode(campaign_id, crate::role_models::Role::Judge, mode)
                        .await;
                }
                (r, "done")
            }
            Err(error) => {
                tracing::warn!(%session_id, error = %error.render(crate::i18n::Lang::En), "judge review failed");
                (
                    JudgeReview {
                        method: JudgeMethod::Model,
                        model: Some(client.model_name()),
                        dimensions: None,
                        findings: Vec::new(),
                        simulator: None,
                        simulator_fault: false,
                        sample: None,
                        error: Some(error.into()),
                        output_mode: None,
                    },
                    "failed",
                )
            }
        },
    };
    let review = review.finalize();
    let now = to_ms(platform.clock.now());
    if !platform
        .store
        .store_judge_review(session_id, &review, status, now)
        .await?
    {
        return Ok(None);
    }
    if status == "done" && platform.judge_policy().second_pass {
        super::second_pass::second_pass(
            platform,
            session_id,
            campaign_id,
            &session,
            judge,
            sampling,
        )
        .await;
    }
    platform.notify(Event::SessionChanged {
        campaign_id,
        session_id,
    });
    Ok(Some(review))
}

/// Reviews every session whose judge review is pending; returns how many
/// were reviewed (done or failed).
pub async fn review_pending(
    platform: &Platform,
    judge: Option<&dyn ChatClient>,
    sampling: JudgeSampling,
) -> Result<usize> {
    let mut reviewed = 0;
    for id in platform.store.sessions_pending_review().await? {
        if review_session(platform, SessionId(id), judge, sampling)
            .await?
            .is_some()
        {
            reviewed += 1;
        }
    }
    Ok(reviewed)
}
