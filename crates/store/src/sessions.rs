//! Exploration sessions: their rows, what a budget decision reads and
//! writes of a session in the writer's transaction, and the reads used for
//! drill-down (see `agenteval_engine::exploration::session`).

use super::session_tallies::{Place, TalliedColumns, retally, tally_new_session};
use super::{Store, Tx};
use agenteval_domain::campaign::{Budget, CampaignStatus};
use agenteval_domain::chat::ChatMessage;
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Error, Result};
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::parse_id;
use agenteval_domain::session::{CampaignWindow, SessionState};
use agenteval_domain::session::{
    EndReason, ExplorationSession, PlayedBy, SessionStatus, SessionTurn, Trigger, TurnRole,
};
use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};
use sqlx::Row;
use sqlx::sqlite::SqliteRow;
use uuid::Uuid;

impl Store {
    /// The session `id`, if there is one.
    pub async fn session(&self, id: SessionId) -> Result<Option<ExplorationSession>> {
        let doing = move || format!("store: reading session {id}");
        sqlx::query("SELECT * FROM exploration_sessions WHERE id = ?")
            .bind(id.to_string())
            .fetch_optional(self.sqlite_pool()?)
            .await
            .with_context(doing)?
            .map(|row| session_from_row(&row))
            .transpose()
            .with_context(doing)
    }

    /// A campaign's sessions, oldest first.
    pub async fn campaign_sessions(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<ExplorationSession>> {
        let doing = move || format!("store: reading the sessions of campaign {campaign_id}");
        let rows = sqlx::query(
            "SELECT * FROM exploration_sessions WHERE campaign_id = ? ORDER BY started_at, id",
        )
        .bind(campaign_id.to_string())
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(session_from_row)
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// The sessions among `ids` that exist, in no particular order.
    pub async fn sessions_among(&self, ids: &[SessionId]) -> Result<Vec<ExplorationSession>> {
        let doing = || format!("store: reading {} sessions by id", ids.len());
        let rows = sqlx::query(
            "SELECT * FROM exploration_sessions WHERE id IN (SELECT value FROM json_each(?))",
        )
        .bind(serde_json::to_string(ids)?)
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(session_from_row)
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// The turns of the sessions `ids`, each with its session, by session
    /// then in order.
    pub async fn turns_of_sessions(
        &self,
        ids: &[SessionId],
    ) -> Result<Vec<(SessionId, SessionTurn)>> {
        let doing = || format!("store: reading the turns of {} sessions", ids.len());
        let rows = sqlx::query(
            "SELECT session_id, seq, role, content, latency_ms, created_at FROM session_turns
             WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY session_id, seq",
        )
        .bind(serde_json::to_string(ids)?)
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(|r| {
                let role: &str = r.try_get("role")?;
                Ok((
                    parse_id(r.try_get::<&str, _>("session_id")?)?,
                    SessionTurn {
                        seq: r.try_get::<i64, _>("seq")? as u32,
                        role: if role == "user" {
                            TurnRole::User
                        } else {
                            TurnRole::Target
                        },
                        content: r.try_get("content")?,
                        latency_ms: r.try_get::<Option<i64>, _>("latency_ms")?.map(|l| l as u64),
                        created_at: from_ms(r.try_get("created_at")?),
                    },
                ))
            })
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// Ends session `id` as `failed` with `end_reason` and `reason` at
    /// `now` if it is still running; whether it was.
    pub async fn fail_running_session(
        &self,
        id: Uuid,
        end_reason: EndReason,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool> {
        let reason = reason.to_string();
        self.transact(move |tx| tx.fail_running_session(id, end_reason, &reason, now))
            .await
    }
}

// A budget decision reads and writes these on each session start, message
// and close (a hot path): their contexts are static.
impl Tx<'_> {
    /// The status of campaign `id` now.
    pub fn campaign_status(&self, id: CampaignId) -> Result<CampaignStatus> {
        let doing = "store: reading a campaign's status";
        let status: String = self
            .sqlite()?
            .prepare_cached("SELECT status FROM campaigns WHERE id = ?")
            .and_then(|mut st| st.query_row(params![id.to_string()], |r| r.get(0)))
            .context(doing)?;
        CampaignStatus::parse(&status).context(doing)
    }

    /// How many sessions campaign `campaign_id` has started, and when the
    /// last one started (ms), if any.
    pub fn session_counts(&self, campaign_id: CampaignId) -> Result<(i64, Option<i64>)> {
        self.sqlite()?
            .prepare_cached(
                "SELECT COUNT(*), MAX(started_at) FROM exploration_sessions WHERE campaign_id = ?",
            )
            .and_then(|mut st| {
                st.query_row(params![campaign_id.to_string()], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })
            })
            .context("store: counting a campaign's sessions")
    }

    /// Stores a new session as it starts (no turn, no record, no review).
    pub fn insert_session(&self, session: &ExplorationSession) -> Result<()> {
        let doing = "store: storing a new session";
        let persona = serde_json::to_string(&session.persona).context(doing)?;
        let goal = serde_json::to_string(&session.goal).context(doing)?;
        let seed_ref = session
            .seed_ref
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .context(doing)?;
        // What the tallies count of it, as stored: nothing has ended yet.
        let place = Place {
            id: session.id.to_string(),
            campaign_id: session.campaign_id.to_string(),
            started_at: to_ms(session.started_at),
        };
        let columns = TalliedColumns {
            status: session.status.as_str().into(),
            trigger: session.trigger.as_str().into(),
            judge_status: session.judge_status.clone(),
            seed_ref,
            ..Default::default()
        };
        let insert = || {
            self.sqlite()?
                .prepare_cached(
                    "INSERT INTO exploration_sessions (id, campaign_id, target_id, persona, goal, seed_ref, status,
                        trigger_kind, judge_status, turn_count, started_at, created_at, updated_at,
                        played_by, user_model)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                )
                .and_then(|mut st| {
                    st.execute(params![
                        place.id,
                        place.campaign_id,
                        session.target_id.to_string(),
                        persona,
                        goal,
                        columns.seed_ref,
                        columns.status,
                        columns.trigger,
                        columns.judge_status,
                        session.turn_count,
                        place.started_at,
                        to_ms(session.created_at),
                        to_ms(session.updated_at),
                        session.played_by.as_str(),
                        session.user_model,
                    ])
                })
                .map(drop)
                .context(doing)
        };
        tally_new_session(self.sqlite()?, &place, &columns, insert)
    }

    /// Session `id` as a decision on it reads it, with its campaign's
    /// state; `None` when there is no such session.
    pub fn session_state(&self, id: SessionId) -> Result<Option<SessionState>> {
        let doing = "store: reading a session's state for a decision";
        let row = self
            .sqlite()?
            .prepare_cached(
                "SELECT s.campaign_id, s.target_id, s.status, s.end_reason, s.turn_count,
                        c.status, c.window_start, c.window_end, c.budget
                 FROM exploration_sessions s JOIN campaigns c ON c.id = s.campaign_id
                 WHERE s.id = ?",
            )
            .and_then(|mut st| {
                st.query_row(params![id.to_string()], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, Option<String>>(3)?,
                        r.get::<_, i64>(4)?,
                        r.get::<_, String>(5)?,
                        r.get::<_, i64>(6)?,
                        r.get::<_, i64>(7)?,
                        r.get::<_, Option<String>>(8)?,
                    ))
                })
                .optional()
            })
            .context(doing)?;
        let Some(row) = row else {
            return Ok(None);
        };
        let (campaign_id, target_id, status, end_reason, turns, c_status, start, end, budget) = row;
        let read = || -> Result<SessionState> {
            let budget: Option<Budget> = budget.map(|b| serde_json::from_str(&b)).transpose()?;
            Ok(SessionState {
                id,
                campaign: CampaignWindow {
                    id: parse_id(&campaign_id)?,
                    status: CampaignStatus::parse(&c_status)?,
                    start: from_ms(start),
                    end: from_ms(end),
                },
                target_id: parse_id(&target_id)?,
                status: SessionStatus::parse(&status)?,
                end_reason: end_reason.and_then(|r| EndReason::parse(&r)),
                turn_count: turns as u32,
                max_turns: budget.unwrap_or_default().effective().max_turns,
            })
        };
        read().map(Some).context(doing)
    }

    /// Expires session `id` at `now` if it is still running (its
    /// campaign's window ended).
    pub fn expire_session(&self, id: SessionId, now: DateTime<Utc>) -> Result<()> {
        retally(self.sqlite()?, &[id], || {
            self.sqlite()?
                .prepare_cached(
                    "UPDATE exploration_sessions SET status = 'expired', end_reason = 'expired', ended_at = ?1, updated_at = ?1
                     WHERE id = ?2 AND status = 'running'",
                )
                .and_then(|mut st| st.execute(params![to_ms(now), id.to_string()]))
                .context("store: expiring a session")
        })?;
        Ok(())
    }

    /// Counts one more user turn of session `id`, at `now`.
    pub fn count_user_turn(&self, id: SessionId, now: DateTime<Utc>) -> Result<()> {
        self.sqlite()?
            .prepare_cached(
                "UPDATE exploration_sessions SET turn_count = turn_count + 1, updated_at = ? WHERE id = ?",
            )
            .and_then(|mut st| st.execute(params![to_ms(now), id.to_string()]))
            .context("store: counting a session's user turn")?;
        Ok(())
    }

    /// Stores the user's turn `seq` of session `session_id`, said at `now`.
    pub fn insert_user_turn(
        &self,
        id: Uuid,
        session_id: SessionId,
        seq: i64,
        content: &str,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.sqlite()?
            .prepare_cached(
                "INSERT INTO session_turns (id, session_id, seq, role, content, latency_ms, created_at)
                 VALUES (?, ?, ?, 'user', ?, NULL, ?)",
            )
            .and_then(|mut st| {
                st.execute(params![
                    id.to_string(),
                    session_id.to_string(),
                    seq,
                    content,
                    to_ms(now)
                ])
            })
            .context("store: storing a session's user turn")?;
        Ok(())
    }

    /// Session `session_id`'s conversation up to and including turn `seq`,
    /// as the target is sent it.
    pub fn conversation_until(&self, session_id: SessionId, seq: i64) -> Result<Vec<ChatMessage>> {
        self.sqlite()?
            .prepare_cached(
                "SELECT role, content FROM session_turns WHERE session_id = ? AND seq <= ? ORDER BY seq",
            )
            .and_then(|mut st| {
                st.query_map(params![session_id.to_string(), seq], |r| {
                    let role: String = r.get(0)?;
                    let content: String = r.get(1)?;
                    Ok(if role == "user" {
                        ChatMessage::user(content)
                    } else {
                        ChatMessage::assistant(content)
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()
            })
            .context("store: reading a session's conversation")
    }

    /// Ends session `id` as `failed` (`target_error`, `reason`) at `at`
    /// (ms) if it is still running: the target did not answer.
    pub fn fail_session_on_target_error(&self, id: SessionId, reason: &str, at: i64) -> Result<()> {
        retally(self.sqlite()?, &[id], || {
            self.sqlite()?
                .prepare_cached(
                    "UPDATE exploration_sessions SET status = 'failed', end_reason = 'target_error',
                        failure_reason = ?1, ended_at = ?2, updated_at = ?2
                     WHERE id = ?3 AND status = 'running'",
                )
                .and_then(|mut st| st.execute(params![reason, at, id.to_string()]))
                .context("store: failing a session on a target error")
        })?;
        Ok(())
    }

    /// Ends session `id` as `failed` with `end_reason` and `reason` at
    /// `now` if it is still running; whether it was.
    pub fn fail_running_session(
        &self,
        id: Uuid,
        end_reason: EndReason,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool> {
        let now = to_ms(now);
        let changed = retally(self.sqlite()?, &[SessionId(id)], || {
            self.sqlite()?
                .prepare_cached(
                    "UPDATE exploration_sessions SET status = 'failed', end_reason = ?1, failure_reason = ?2,
                        ended_at = ?3, updated_at = ?3
                     WHERE id = ?4 AND status = 'running'",
                )
                .and_then(|mut st| {
                    st.execute(params![end_reason.as_str(), reason, now, id.to_string()])
                })
                .context("store: failing a running session")
        })?;
        Ok(changed > 0)
    }

    /// Completes session `id` at `now` with `end_reason` and its experience
    /// record (as JSON); its judge review is then pending.
    pub fn complete_session(
        &self,
        id: Uuid,
        end_reason: EndReason,
        experience: &str,
        now: DateTime<Utc>,
    ) -> Result<()> {
        retally(self.sqlite()?, &[SessionId(id)], || {
            self.sqlite()?
                .prepare_cached(
                    "UPDATE exploration_sessions SET status = 'completed', end_reason = ?1, experience = ?2,
                        judge_status = 'pending', ended_at = ?3, updated_at = ?3
                     WHERE id = ?4",
                )
                .and_then(|mut st| {
                    st.execute(params![
                        end_reason.as_str(),
                        experience,
                        to_ms(now),
                        id.to_string()
                    ])
                })
                .context("store: completing a session")
        })?;
        Ok(())
    }
}

/// A session from a `SELECT * FROM exploration_sessions` row.
pub fn session_from_row(row: &SqliteRow) -> Result<ExplorationSession> {
    let json = |col: &str| -> Result<Option<serde_json::Value>> {
        Ok(row
            .try_get::<Option<String>, _>(col)?
            .map(|s| serde_json::from_str(&s))
            .transpose()?)
    };
    Ok(ExplorationSession {
        id: parse_id(row.try_get("id")?)?,
        campaign_id: parse_id(row.try_get("campaign_id")?)?,
        target_id: parse_id(row.try_get("target_id")?)?,
        persona: json("persona")?.unwrap_or_default(),
        goal: json("goal")?.unwrap_or_default(),
        seed_ref: json("seed_ref")?.map(serde_json::from_value).transpose()?,
        status: SessionStatus::parse(row.try_get("status")?)?,
        trigger: Trigger::parse(row.try_get("trigger_kind")?),
        played_by: {
            let raw: &str = row.try_get("played_by")?;
            PlayedBy::parse(raw)
                .ok_or_else(|| Error::internal(anyhow::anyhow!("unknown played_by {raw}")))?
        },
        user_model: row.try_get("user_model")?,
        end_reason: row
            .try_get::<Option<String>, _>("end_reason")?
            .and_then(|s| EndReason::parse(&s)),
        experience: json("experience")?
            .map(serde_json::from_value)
            .transpose()?,
        judge_status: row.try_get("judge_status")?,
        judge_review: json("judge_review")?,
        simulator_faults: json("simulator_faults")?
            .map(serde_json::from_value)
            .transpose()?,
        turn_count: row.try_get::<i64, _>("turn_count")? as u32,
        failure_reason: row.try_get("failure_reason")?,
        started_at: from_ms(row.try_get("started_at")?),
        ended_at: row.try_get::<Option<i64>, _>("ended_at")?.map(from_ms),
        created_at: from_ms(row.try_get("created_at")?),
        updated_at: from_ms(row.try_get("updated_at")?),
    })
}
