//! Driving one exploration session: the virtual user speaks, the platform
//! forwards to the target and records both turns, until the user is done,
//! gives up, or a limit ends it; then the session is closed with its
//! experience record and end reason.

use super::{Decision, EndReason, ExperienceRecord, Speaker, Utterance, VirtualUser};
use crate::domain::ids::SessionId;
use crate::error::{ErrorCode, Result};
use crate::exploration::{CloseSession, SendMessage};
use crate::i18n::{Msg, Text};
use crate::platform::Platform;
use serde::{Deserialize, Serialize};

/// The session operations the virtual user needs. [`crate::Platform`]
/// implements it over its exploration operations; the indirection lets
/// the loop be exercised on its own.
#[async_trait::async_trait]
pub trait SessionPort: Send + Sync {
    /// Sends one user message; returns the target's reply (with its steps).
    async fn send(&self, session_id: SessionId, content: &str) -> Result<Utterance>;
    /// Closes the session with the experience record.
    async fn close(
        &self,
        session_id: SessionId,
        record: &ExperienceRecord,
        end: EndReason,
    ) -> Result<()>;
    /// Marks the session failed (the target could not be reached), with
    /// why in a message of the catalogue.
    async fn fail(&self, session_id: SessionId, reason: Msg, end: EndReason) -> Result<()>;
}

#[async_trait::async_trait]
impl SessionPort for Platform {
    async fn send(&self, session_id: SessionId, content: &str) -> Result<Utterance> {
        let reply = self
            .send_message(
                session_id,
                SendMessage {
                    content: content.to_string(),
                },
            )
            .await?;
        Ok(Utterance::target_with(reply.reply, reply.steps))
    }

    async fn close(
        &self,
        session_id: SessionId,
        record: &ExperienceRecord,
        end: EndReason,
    ) -> Result<()> {
        self.close_session(
            session_id,
            CloseSession {
                goal_achieved: record.goal_achieved,
                blockers: Some(record.blockers.clone()),
                misled: Some(record.misled.clone()),
                emotion: Some(record.emotion.clone()),
                notes: match &record.notes {
                    Text::Plain(words) => Some(words.clone()),
                    Text::Msg(_) => None,
                },
                notes_said: record.notes.msg().cloned(),
                end_reason: Some(end),
            },
        )
        .await?;
        Ok(())
    }

    async fn fail(&self, session_id: SessionId, reason: Msg, end: EndReason) -> Result<()> {
        self.fail_session(session_id, reason, end).await?;
        Ok(())
    }
}

/// How a session went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SessionOutcome {
    pub session_id: SessionId,
    pub end_reason: EndReason,
    pub user_turns: u32,
    pub decisions: Vec<Decision>,
    /// The record filed at close (`None` when the session failed or expired).
    pub record: Option<ExperienceRecord>,
    /// `completed` (closed), `failed` or `expired`.
    pub status: String,
    /// The judge review's status once it ran (`done` or `failed`); `None`
    /// until then.
    #[serde(default)]
    pub judge_status: Option<String>,
}

/// Runs the conversation until the user is done or gives up, the target
/// fails, a guardrail refuses, or `max_turns` user turns were sent; the
/// last reply is always read before the session closes, so a goal met on
/// the final turn counts.
pub async fn run_session(
    port: &dyn SessionPort,
    session_id: SessionId,
    user: &mut dyn VirtualUser,
    max_turns: u32,
) -> Result<SessionOutcome> {
    let mut transcript: Vec<Utterance> = Vec::new();
    let mut decisions = Vec::new();
    let mut simulator_problem = None;
    let end = loop {
        let turn = match user.next_turn(&transcript).await {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!(%session_id, error = %e, "virtual user failed");
                simulator_problem = Some(e.0);
                break EndReason::SimulatorError;
            }
        };
        decisions.push(turn.decision);
        match turn.decision {
            Decision::Done => break EndReason::UserGoalMet,
            Decision::GiveUp => break EndReason::UserGaveUp,
            _ => {}
        }
        let user_turns = transcript
            .iter()
            .filter(|u| u.speaker == Speaker::User)
            .count() as u32;
        if user_turns >= max_turns {
            // The decision to go on is not acted on: the turn budget is spent.
            decisions.pop();
            break EndReason::MaxTurns;
        }
        let Some(message) = turn.message.filter(|m| !m.trim().is_empty()) else {
            simulator_problem = Some(crate::msg!("user-model-said-nothing"));
            break EndReason::SimulatorError;
        };
        match port.send(session_id, &message).await {
            Ok(reply) => {
                transcript.push(Utterance::user(message));
                transcript.push(reply);
            }
            Err(e) => match e.code() {
                ErrorCode::TurnLimitReached => break EndReason::MaxTurns,
                ErrorCode::SessionBudgetExhausted => break EndReason::BudgetExhausted,
                ErrorCode::SessionNotRunning | ErrorCode::CampaignNotRunning => {
                    return Ok(outcome(
                        session_id,
                        EndReason::Expired,
                        &transcript,
                        decisions,
                        None,
                        "expired",
                    ));
                }
                code => {
                    // A target's failure was logged where it happened.
                    if code != ErrorCode::TargetUnavailable {
                        tracing::warn!(%session_id, error = %e, "the session failed");
                    }
                    let reason = e.body.clone().into_msgs().0;
                    port.fail(session_id, reason, EndReason::TargetError)
                        .await?;
                    return Ok(outcome(
                        session_id,
                        EndReason::TargetError,
                        &transcript,
                        decisions,
                        None,
                        "failed",
                    ));
                }
            },
        }
    };

    let mut end = end;
    let record = match simulator_problem {
        Some(problem) => simulator_record(problem),
        None => match user.experience(&transcript, end).await {
            Ok(r) => r,
            Err(e) => {
                end = EndReason::SimulatorError;
                simulator_record(e.0)
            }
        },
    };
    match port.close(session_id, &record, end).await {
        Ok(()) => Ok(outcome(
            session_id,
            end,
            &transcript,
            decisions,
            Some(record),
            "completed",
        )),
        Err(e)
            if matches!(
                e.code(),
                ErrorCode::SessionNotRunning | ErrorCode::CampaignNotRunning
            ) =>
        {
            Ok(outcome(
                session_id,
                EndReason::Expired,
                &transcript,
                decisions,
                None,
                "expired",
            ))
        }
        Err(e) => Err(e),
    }
}

/// The record filed when the virtual user itself failed: nothing is
/// claimed about the target.
fn simulator_record(problem: Msg) -> ExperienceRecord {
    ExperienceRecord {
        goal_achieved: false,
        blockers: Vec::new(),
        misled: Vec::new(),
        emotion: "neutral".into(),
        notes: crate::msg!("user-could-not-continue", problem = problem).into(),
    }
}

fn outcome(
    session_id: SessionId,
    end_reason: EndReason,
    transcript: &[Utterance],
    decisions: Vec<Decision>,
    record: Option<ExperienceRecord>,
    status: &str,
) -> SessionOutcome {
    SessionOutcome {
        session_id,
        end_reason,
        user_turns: transcript
            .iter()
            .filter(|u| u.speaker == Speaker::User)
            .count() as u32,
        decisions,
        record,
        status: status.into(),
        judge_status: None,
    }
}
