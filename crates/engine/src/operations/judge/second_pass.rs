//! The judge's second pass over a reviewed session, for its
//! self-agreement (see [`crate::calibration`]): the rounds are presented in
//! reverse order and, for a judge model, the rubric is reworded. The
//! heuristic judge is rule-based and deterministic: only its
//! order-dependent rules (repeated replies, refusal runs) can answer
//! differently, so its self-agreement is 1 unless those rules are at play.

use super::model::{RubricWording, model_review_worded};
use super::*;
use crate::domain::ids::{CampaignId, SessionId};

/// What was varied in a second pass.
pub const REVERSED_ROUNDS: &str = "reversed_rounds";
pub const REVERSED_AND_REWORDED: &str = "reversed_rounds+reworded_rubric";

/// The session with its rounds in reverse order (a greeting before the
/// first user message stays first; each reply stays after its message).
pub fn reversed_rounds(session: &SessionForReview) -> SessionForReview {
    let mut head = Vec::new();
    let mut groups: Vec<Vec<SessionMessage>> = Vec::new();
    for m in &session.messages {
        if m.role == "user" {
            groups.push(vec![m.clone()]);
        } else if let Some(last) = groups.last_mut() {
            last.push(m.clone());
        } else {
            head.push(m.clone());
        }
    }
    groups.reverse();
    SessionForReview {
        messages: head
            .into_iter()
            .chain(groups.into_iter().flatten())
            .collect(),
        ..session.clone()
    }
}

/// Reviews the session a second time and stores that review; a failure is
/// logged and leaves the session without a second pass.
pub(super) async fn second_pass(
    platform: &Platform,
    session_id: SessionId,
    campaign_id: CampaignId,
    session: &SessionForReview,
    judge: Option<&dyn ChatClient>,
    sampling: JudgeSampling,
) {
    let varied = reversed_rounds(session);
    let (review, variation) = match judge {
        None => (heuristic_review(&varied), REVERSED_ROUNDS),
        Some(client) => {
            match model_review_worded(client, &varied, sampling, RubricWording::Reworded).await {
                Ok(r) => (r, REVERSED_AND_REWORDED),
                Err(error) => {
                    tracing::warn!(%session_id, error = %error.render(crate::i18n::Lang::En), "second judge pass failed");
                    return;
                }
            }
        }
    };
    let stored = platform
        .store
        .store_second_pass(
            session_id,
            campaign_id,
            variation,
            &review.finalize(),
            to_ms(platform.clock.now()),
        )
        .await;
    if let Err(error) = stored {
        tracing::warn!(%session_id, %error, "could not store the second judge pass");
    }
}
