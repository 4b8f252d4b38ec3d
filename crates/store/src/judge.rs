//! The judge's queries: the sessions waiting for a review, what a review
//! reads of a session, and the reviews stored.

use super::Store;
use super::sql::{Conn, Sql, args};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::judge::{JudgeReview, SessionForReview, SessionMessage};
use agenteval_domain::parse_id;
use agenteval_domain::session::PlayedBy;
use serde_json::Value;
use uuid::Uuid;

/// The sessions whose review is pending, in the order they ended (a
/// session without an end first, as SQLite sorts NULL).
const PENDING_REVIEW: Sql = Sql::dialects(
    "SELECT id FROM exploration_sessions WHERE judge_status = 'pending' ORDER BY ended_at, id",
    "SELECT id FROM exploration_sessions WHERE judge_status = 'pending' ORDER BY ended_at NULLS FIRST, id",
);

// The judge worker reads and writes through these once per session (a
// hot path): the contexts are static.
impl Store {
    /// A session's judge status (`pending`, `done`, `failed`, …), `None`
    /// when there is no such session.
    pub async fn judge_status(&self, session_id: SessionId) -> Result<Option<String>> {
        self.read(move |c| {
            c.row(
                "SELECT judge_status FROM exploration_sessions WHERE id = ?",
                args![session_id.to_string()],
                |r| r.get(0),
            )
        })
        .await
        .context("store: reading a session's judge status")
    }

    /// The sessions whose review is pending, in the order they ended.
    pub async fn sessions_pending_review(&self) -> Result<Vec<Uuid>> {
        self.read(|c| c.rows(PENDING_REVIEW, args![], |r| r.uuid(0)))
            .await
            .context("store: reading the sessions pending review")
    }

    /// A session's turns in order, as a review (or a person labelling it)
    /// reads them.
    pub async fn session_messages_for_review(
        &self,
        session_id: SessionId,
    ) -> Result<Vec<SessionMessage>> {
        self.read(move |c| session_messages(c, session_id))
            .await
            .context("store: reading a session's turns for review")
    }

    /// What the judge reads of a session, with its campaign; `None` when
    /// there is no such session.
    pub async fn session_for_review(
        &self,
        session_id: SessionId,
    ) -> Result<Option<(CampaignId, SessionForReview)>> {
        self.read(move |c| {
            let session = c
                .row(
                    "SELECT campaign_id, persona, goal, experience, end_reason, played_by FROM exploration_sessions WHERE id = ?",
                    args![session_id.to_string()],
                    |r| {
                        let json = |col: &str| -> Option<Value> {
                            r.text(col)
                                .ok()
                                .flatten()
                                .and_then(|s| serde_json::from_str(s).ok())
                        };
                        Ok((
                            CampaignId(parse_id(r.str("campaign_id")?)?),
                            json("persona").unwrap_or(Value::Null),
                            json("goal").unwrap_or(Value::Null),
                            json("experience"),
                            r.get::<Option<String>>("end_reason")?,
                            PlayedBy::parse(r.str("played_by")?).unwrap_or_default(),
                        ))
                    },
                )
                .context("store: reading a session for review")?;
            let Some((campaign_id, persona, goal, experience, end_reason, played_by)) = session
            else {
                return Ok(None);
            };
            let messages = session_messages(c, session_id)
                .context("store: reading a session's turns for review")?;
            Ok(Some((
                campaign_id,
                SessionForReview {
                    persona,
                    goal,
                    experience,
                    end_reason,
                    played_by,
                    messages,
                    // The engine knows the tools (its scenarios).
                    tools: Vec::new(),
                    max_steps: None,
                },
            )))
        })
        .await
    }

    /// Stores a session's review with `status` (`done` or `failed`) if the
    /// review is still pending: a concurrent reviewer that finished first
    /// keeps its result. Whether this one was stored.
    pub async fn store_judge_review(
        &self,
        session_id: SessionId,
        review: &JudgeReview,
        status: &str,
        at_ms: i64,
    ) -> Result<bool> {
        let review = serde_json::to_string(review)?;
        let status = status.to_string();
        self.write(move |c| {
            let written = crate::session_tallies::retally(c, &[session_id], || {
                c.exec(
                    "UPDATE exploration_sessions SET judge_review = ?, judge_status = ?, updated_at = ?
                     WHERE id = ? AND judge_status = 'pending'",
                    args![review, status, at_ms, session_id.to_string()],
                )
                .context("store: storing a session's judge review")
            })?;
            Ok(written > 0)
        })
        .await
    }

    /// Stores (or replaces) a session's second judge pass, made with
    /// `variation` of what the first pass saw.
    pub async fn store_second_pass(
        &self,
        session_id: SessionId,
        campaign_id: CampaignId,
        variation: &str,
        review: &JudgeReview,
        at_ms: i64,
    ) -> Result<()> {
        let variation = variation.to_string();
        let review = serde_json::to_string(review)?;
        self.write(move |c| {
            c.exec(
                "INSERT INTO judge_second_passes (session_id, campaign_id, variation, review, created_at)
                 VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET
                 variation = excluded.variation, review = excluded.review, created_at = excluded.created_at",
                args![
                    session_id.to_string(),
                    campaign_id.to_string(),
                    variation,
                    review,
                    at_ms,
                ],
            )
        })
        .await
        .context("store: storing a session's second judge pass")?;
        Ok(())
    }
}

/// A session's turns in order, as the judge reads them.
pub(crate) fn session_messages(c: &Conn<'_>, session_id: SessionId) -> Result<Vec<SessionMessage>> {
    c.rows(
        "SELECT role, content, latency_ms, steps FROM session_turns WHERE session_id = ? ORDER BY seq",
        args![session_id.to_string()],
        |t| {
            Ok(SessionMessage {
                role: t.get("role")?,
                content: t.get("content")?,
                latency_ms: t.get("latency_ms")?,
                // Steps that no longer read (a newer engine's) are left out.
                steps: t
                    .text("steps")?
                    .and_then(|s| serde_json::from_str(s).ok())
                    .unwrap_or_default(),
            })
        },
    )
}
