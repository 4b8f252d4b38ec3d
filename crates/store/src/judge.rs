//! The judge's queries: the sessions waiting for a review, what a review
//! reads of a session, and the reviews stored.

use super::Store;
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::judge::{JudgeReview, SessionForReview, SessionMessage};
use agenteval_domain::parse_id;
use serde_json::Value;
use sqlx::Row;
use uuid::Uuid;

// The judge worker reads and writes through these once per session (a
// hot path): the contexts are static.
impl Store {
    /// A session's judge status (`pending`, `done`, `failed`, …), `None`
    /// when there is no such session.
    pub async fn judge_status(&self, session_id: SessionId) -> Result<Option<String>> {
        sqlx::query_scalar("SELECT judge_status FROM exploration_sessions WHERE id = ?")
            .bind(session_id.to_string())
            .fetch_optional(self.sqlite_pool()?)
            .await
            .context("store: reading a session's judge status")
    }

    /// The sessions whose review is pending, in the order they ended.
    pub async fn sessions_pending_review(&self) -> Result<Vec<Uuid>> {
        let ids: Vec<String> = sqlx::query_scalar(
            "SELECT id FROM exploration_sessions WHERE judge_status = 'pending' ORDER BY ended_at, id",
        )
        .fetch_all(self.sqlite_pool()?)
        .await
        .context("store: reading the sessions pending review")?;
        ids.iter()
            .map(|id| parse_id(id))
            .collect::<Result<_>>()
            .context("store: reading the sessions pending review")
    }

    /// A session's turns in order, as a review (or a person labelling it)
    /// reads them.
    pub async fn session_messages_for_review(
        &self,
        session_id: SessionId,
    ) -> Result<Vec<SessionMessage>> {
        let doing = "store: reading a session's turns for review";
        let turns = sqlx::query(
            "SELECT role, content, latency_ms FROM session_turns WHERE session_id = ? ORDER BY seq",
        )
        .bind(session_id.to_string())
        .fetch_all(self.sqlite_pool()?)
        .await
        .context(doing)?;
        turns
            .iter()
            .map(|t| {
                Ok(SessionMessage {
                    role: t.try_get("role")?,
                    content: t.try_get("content")?,
                    latency_ms: t.try_get("latency_ms")?,
                })
            })
            .collect::<Result<_>>()
            .context(doing)
    }

    /// What the judge reads of a session, with its campaign; `None` when
    /// there is no such session.
    pub async fn session_for_review(
        &self,
        session_id: SessionId,
    ) -> Result<Option<(CampaignId, SessionForReview)>> {
        let doing = "store: reading a session for review";
        let Some(row) = sqlx::query(
            "SELECT campaign_id, persona, goal, experience, end_reason FROM exploration_sessions WHERE id = ?",
        )
        .bind(session_id.to_string())
        .fetch_optional(self.sqlite_pool()?)
        .await
        .context(doing)?
        else {
            return Ok(None);
        };
        let json = |col: &str| -> Option<Value> {
            row.try_get::<Option<String>, _>(col)
                .ok()
                .flatten()
                .and_then(|s| serde_json::from_str(&s).ok())
        };
        let read = || -> Result<(Uuid, Option<String>)> {
            Ok((
                parse_id(row.try_get("campaign_id")?)?,
                row.try_get("end_reason")?,
            ))
        };
        let (campaign_id, end_reason) = read().context(doing)?;
        let messages = self.session_messages_for_review(session_id).await?;
        Ok(Some((
            CampaignId(campaign_id),
            SessionForReview {
                persona: json("persona").unwrap_or(Value::Null),
                goal: json("goal").unwrap_or(Value::Null),
                experience: json("experience"),
                end_reason,
                messages,
            },
        )))
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
        self.transact(move |tx| {
            let written = crate::session_tallies::retally(&tx.0, &[session_id], || {
                tx.sqlite()?.prepare_cached(
                    "UPDATE exploration_sessions SET judge_review = ?, judge_status = ?, updated_at = ?
                     WHERE id = ? AND judge_status = 'pending'",
                )
                .and_then(|mut st| {
                    st.execute(rusqlite::params![review, status, at_ms, session_id.to_string()])
                })
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
        sqlx::query(
            "INSERT INTO judge_second_passes (session_id, campaign_id, variation, review, created_at)
             VALUES (?, ?, ?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET
             variation = excluded.variation, review = excluded.review, created_at = excluded.created_at",
        )
        .bind(session_id.to_string())
        .bind(campaign_id.to_string())
        .bind(variation)
        .bind(serde_json::to_string(review)?)
        .bind(at_ms)
        .execute(self.sqlite_pool()?)
        .await
        .context("store: storing a session's second judge pass")?;
        Ok(())
    }
}
