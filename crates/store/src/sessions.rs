//! Exploration sessions: their rows, what a budget decision reads and
//! writes of a session in the writer's transaction, and the reads used for
//! drill-down (see `agenteval_engine::exploration::session`).

use super::session_tallies::{Place, TalliedColumns, retally, tally_new_session};
use super::sql::{Row, Sql, args};
use super::{Store, Tx};
use agenteval_domain::campaign::{Budget, CampaignStatus};
use agenteval_domain::chat::ChatMessage;
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Error, Result};
use agenteval_domain::i18n::Text;
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::ledger::Entry;
use agenteval_domain::parse_id;
use agenteval_domain::session::{CampaignWindow, SessionState};
use agenteval_domain::session::{
    EndReason, ExplorationSession, PlayedBy, SessionStatus, SessionTurn, Trigger, TurnRole,
};
use chrono::{DateTime, Utc};
use uuid::Uuid;

impl Store {
    /// The session `id`, if there is one.
    pub async fn session(&self, id: SessionId) -> Result<Option<ExplorationSession>> {
        self.read_one(move |c| {
            c.row(
                "SELECT * FROM exploration_sessions WHERE id = ?",
                args![id.to_string()],
                session_from_row,
            )
        })
        .await
        .with_context(move || format!("store: reading session {id}"))
    }

    /// A campaign's sessions, oldest first.
    pub async fn campaign_sessions(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<ExplorationSession>> {
        self.read(move |c| {
            c.rows(
                "SELECT * FROM exploration_sessions WHERE campaign_id = ? ORDER BY started_at, id",
                args![campaign_id.to_string()],
                session_from_row,
            )
        })
        .await
        .with_context(move || format!("store: reading the sessions of campaign {campaign_id}"))
    }

    /// A page of a campaign's sessions, oldest first: the first `limit`
    /// after the session `after` (its start in ms and its id; `None` from
    /// the first).
    pub async fn campaign_sessions_after(
        &self,
        campaign_id: CampaignId,
        after: Option<(i64, SessionId)>,
        limit: u32,
    ) -> Result<Vec<ExplorationSession>> {
        let (at, id) = after.map_or((i64::MIN, String::new()), |(at, id)| (at, id.to_string()));
        self.read(move |c| {
            c.rows(
                "SELECT * FROM exploration_sessions WHERE campaign_id = ? \
                 AND (started_at > ? OR (started_at = ? AND id > ?)) ORDER BY started_at, id LIMIT ?",
                args![campaign_id.to_string(), at, at, id, i64::from(limit)],
                session_from_row,
            )
        })
        .await
        .with_context(move || {
            format!("store: reading a page of the sessions of campaign {campaign_id}")
        })
    }

    /// The sessions among `ids` that exist, in no particular order.
    pub async fn sessions_among(&self, ids: &[SessionId]) -> Result<Vec<ExplorationSession>> {
        let n = ids.len();
        let doing = move || format!("store: reading {n} sessions by id");
        let ids = serde_json::to_string(ids).with_context(doing)?;
        self.read(move |c| {
            c.rows(
                Sql::dialects(
                    "SELECT * FROM exploration_sessions WHERE id IN (SELECT value FROM json_each(?))",
                    "SELECT * FROM exploration_sessions
                     WHERE id IN (SELECT jsonb_array_elements_text(CAST(? AS jsonb)))",
                ),
                args![ids],
                session_from_row,
            )
        })
        .await
        .with_context(doing)
    }

    /// The turns of the sessions `ids`, each with its session, by session
    /// then in order.
    pub async fn turns_of_sessions(
        &self,
        ids: &[SessionId],
    ) -> Result<Vec<(SessionId, SessionTurn)>> {
        let n = ids.len();
        let doing = move || format!("store: reading the turns of {n} sessions");
        let ids = serde_json::to_string(ids).with_context(doing)?;
        self.read(move |c| {
            c.rows(
                Sql::dialects(
                    "SELECT session_id, seq, role, content, latency_ms, created_at, steps FROM session_turns
                     WHERE session_id IN (SELECT value FROM json_each(?)) ORDER BY session_id, seq",
                    "SELECT session_id, seq, role, content, latency_ms, created_at, steps FROM session_turns
                     WHERE session_id IN (SELECT jsonb_array_elements_text(CAST(? AS jsonb)))
                     ORDER BY session_id, seq",
                ),
                args![ids],
                |r| {
                    Ok((
                        parse_id(r.str("session_id")?)?,
                        SessionTurn {
                            seq: r.get::<i64>("seq")? as u32,
                            role: if r.str("role")? == "user" {
                                TurnRole::User
                            } else {
                                TurnRole::Target
                            },
                            content: r.get("content")?,
                            latency_ms: r.get::<Option<i64>>("latency_ms")?.map(|l| l as u64),
                            created_at: from_ms(r.get("created_at")?),
                            steps: stored_steps(r.text("steps")?),
                        },
                    ))
                },
            )
        })
        .await
        .with_context(doing)
    }

    /// Ends session `id` as `failed` with `end_reason` and `reason` at
    /// `now` if it is still running; whether it was.
    pub async fn fail_running_session(
        &self,
        id: Uuid,
        end_reason: EndReason,
        reason: &Text,
        now: DateTime<Utc>,
    ) -> Result<bool> {
        let reason = reason.clone();
        self.transact(move |tx| tx.fail_running_session(id, end_reason, &reason, now))
            .await
    }
}

/// What a decision reads of a session and its campaign.
macro_rules! session_state {
    () => {
        "SELECT s.campaign_id, s.target_id, s.status, s.end_reason, s.turn_count,
                c.status, c.window_start, c.window_end, c.budget
         FROM exploration_sessions s JOIN campaigns c ON c.id = s.campaign_id
         WHERE s.id = ?"
    };
}

const SESSION_STATE: &str = session_state!();

/// [`SESSION_STATE`], the session's row locked (see [`Tx::lock_session`]).
const SESSION_STATE_LOCKED: Sql = Sql::dialects(
    session_state!(),
    concat!(session_state!(), " FOR NO KEY UPDATE OF s"),
);

// A budget decision reads and writes these on each session start, message
// and close (a hot path): their contexts are static.
impl Tx<'_> {
    /// How many sessions campaign `campaign_id` has started (those
    /// abandoned apart), when the last one started (ms), if any, and how
    /// many of them run with no activity since `idle_before` (left open
    /// past their lease: see [`Tx::idle_sessions`]).
    pub fn session_counts(
        &self,
        campaign_id: CampaignId,
        idle_before: DateTime<Utc>,
    ) -> Result<(i64, Option<i64>, i64)> {
        self.0
            .row(
                "SELECT COUNT(*) - COUNT(CASE WHEN end_reason = 'abandoned' THEN 1 END), MAX(started_at),
                        COUNT(CASE WHEN status = 'running' AND updated_at < ? THEN 1 END)
                 FROM exploration_sessions WHERE campaign_id = ?",
                args![to_ms(idle_before), campaign_id.to_string()],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?
            .ok_or_else(|| Error::internal(anyhow::anyhow!("a count returned no row")))
            .context("store: counting a campaign's sessions")
    }

    /// Stores a new session as it starts (no turn, no record, no review).
    pub fn insert_session(&self, session: &ExplorationSession) -> Result<()> {
        let doing = "store: storing a new session";
        let persona = serde_json::to_string(&session.persona).context(doing)?;
        let goal = serde_json::to_string(&session.goal).context(doing)?;
        let place = Place {
            id: session.id.to_string(),
            campaign_id: session.campaign_id.to_string(),
            started_at: to_ms(session.started_at),
        };
        let columns = TalliedColumns::of_new_session(session).context(doing)?;
        let insert = || {
            let ordinal = self.count_in_seed_cell(session)?;
            self.0
                .exec(
                    "INSERT INTO exploration_sessions (id, campaign_id, target_id, persona, goal, seed_ref, status,
                        trigger_kind, judge_status, turn_count, started_at, created_at, updated_at,
                        played_by, user_model, seed_ordinal)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    args![
                        &place.id,
                        &place.campaign_id,
                        session.target_id.to_string(),
                        &persona,
                        &goal,
                        &columns.seed_ref,
                        &columns.status,
                        &columns.trigger,
                        &columns.judge_status,
                        session.turn_count,
                        place.started_at,
                        to_ms(session.created_at),
                        to_ms(session.updated_at),
                        session.played_by.as_str(),
                        &session.user_model,
                        ordinal,
                    ],
                )
                .map(drop)
                .context(doing)
        };
        tally_new_session(&self.0, &place, &columns, insert)
    }

    /// Counts a new session in its seed cell (its campaign's sessions of
    /// the same persona and goal; those without a seed together) and
    /// returns its place there, from 1. Sessions are created in turn, each
    /// started when created, so that this is its place by start.
    fn count_in_seed_cell(&self, session: &ExplorationSession) -> Result<i64> {
        let (persona, goal) = session
            .seed_ref
            .as_ref()
            .map_or(("", ""), |s| (s.persona_id.as_str(), s.goal_id.as_str()));
        self.0
            .value(
                "INSERT INTO seed_cell_sessions (campaign_id, persona_id, goal_id, sessions)
                 VALUES (?, ?, ?, 1)
                 ON CONFLICT (campaign_id, persona_id, goal_id)
                 DO UPDATE SET sessions = seed_cell_sessions.sessions + 1
                 RETURNING sessions",
                args![session.campaign_id.to_string(), persona, goal],
            )
            .context("store: counting a new session in its seed cell")
    }

    /// Session `id` as a decision on it reads it, with its campaign's
    /// state; `None` when there is no such session.
    pub fn session_state(&self, id: SessionId) -> Result<Option<SessionState>> {
        self.read_session_state(id, SESSION_STATE.into())
    }

    /// [`Tx::session_state`], session `id` locked until the end of the
    /// transaction in the same statement: how a decision on one of its
    /// messages takes its turn. A message spends its session's turns, not
    /// its campaign's budget, so the messages of one session take turns
    /// (across processes too) while the other sessions of the campaign
    /// decide at the same time. On PostgreSQL the session's row is locked
    /// (`FOR NO KEY UPDATE`, as [`Tx::lock_campaign`] and for the same
    /// reason); whatever else changes the session (a close, an expiry, an
    /// abandonment) updates that row, so it waits for the decision or the
    /// decision for it, and reads what it left. On SQLite the writer's
    /// thread runs one decision at a time already.
    pub fn lock_session(&self, id: SessionId) -> Result<Option<SessionState>> {
        self.read_session_state(id, SESSION_STATE_LOCKED)
    }

    fn read_session_state(&self, id: SessionId, sql: Sql) -> Result<Option<SessionState>> {
        let doing = "store: reading a session's state for a decision";
        self.0
            .row(sql, args![id.to_string()], |r| {
                let budget: Option<Budget> = r.text(8)?.map(serde_json::from_str).transpose()?;
                Ok(SessionState {
                    id,
                    campaign: CampaignWindow {
                        id: parse_id(r.str(0)?)?,
                        status: CampaignStatus::parse(r.str(5)?)?,
                        start: from_ms(r.get(6)?),
                        end: from_ms(r.get(7)?),
                    },
                    target_id: parse_id(r.str(1)?)?,
                    status: SessionStatus::parse(r.str(2)?)?,
                    end_reason: r.text(3)?.and_then(EndReason::parse),
                    turn_count: r.get::<i64>(4)? as u32,
                    max_turns: budget.unwrap_or_default().effective().max_turns,
                })
            })
            .context(doing)
    }

    /// Expires session `id` at `now` if it is still running (its
    /// campaign's window ended).
    pub fn expire_session(&self, id: SessionId, now: DateTime<Utc>) -> Result<()> {
        self.end_without_record(id, "expired", now)
            .context("store: expiring a session")
            .map(drop)
    }

    /// Ends session `id` as `abandoned` at `now` if it is still running
    /// (left open past its lease, or discarded); whether it was.
    pub fn abandon_session(&self, id: SessionId, now: DateTime<Utc>) -> Result<bool> {
        self.end_without_record(id, "abandoned", now)
            .context("store: abandoning a session")
    }

    fn end_without_record(
        &self,
        id: SessionId,
        end_reason: &str,
        now: DateTime<Utc>,
    ) -> Result<bool> {
        let now = to_ms(now);
        let ended = retally(&self.0, &[id], || {
            self.0.exec(
                "UPDATE exploration_sessions SET status = 'expired', end_reason = ?, ended_at = ?, updated_at = ?
                 WHERE id = ? AND status = 'running'",
                args![end_reason.to_string(), now, now, id.to_string()],
            )
            .context("store: ending a session without a record")
        })?;
        Ok(ended > 0)
    }

    /// Running sessions of campaign `campaign_id` (of every campaign when
    /// `None`) with no activity since `before`: left open, past their lease.
    pub fn idle_sessions(
        &self,
        campaign_id: Option<CampaignId>,
        before: DateTime<Utc>,
    ) -> Result<Vec<SessionId>> {
        let campaign = campaign_id.map(|c| c.to_string()).unwrap_or_default();
        self.0
            .rows(
                "SELECT id FROM exploration_sessions
                 WHERE status = 'running' AND updated_at < ? AND (? = '' OR campaign_id = ?)",
                args![to_ms(before), campaign.clone(), campaign],
                |r| Ok(SessionId(parse_id(r.str(0)?)?)),
            )
            .context("store: finding sessions left open")
    }

    /// Counts one more user turn of session `id`, at `now`.
    pub(crate) fn count_user_turn(&self, id: SessionId, now: DateTime<Utc>) -> Result<()> {
        self.0
            .exec(
                "UPDATE exploration_sessions SET turn_count = turn_count + 1, updated_at = ? WHERE id = ?",
                args![to_ms(now), id.to_string()],
            )
            .context("store: counting a session's user turn")?;
        Ok(())
    }

    /// Stores the user's turn `seq` of session `session_id`, said at `now`.
    pub(crate) fn insert_user_turn(
        &self,
        id: Uuid,
        session_id: SessionId,
        seq: i64,
        content: &str,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.0
            .exec(
                "INSERT INTO session_turns (id, session_id, seq, role, content, latency_ms, created_at)
                 VALUES (?, ?, ?, 'user', ?, NULL, ?)",
                args![
                    id.to_string(),
                    session_id.to_string(),
                    seq,
                    content,
                    to_ms(now)
                ],
            )
            .context("store: storing a session's user turn")?;
        Ok(())
    }

    /// Session `session_id`'s conversation up to and including turn `seq`,
    /// as the target is sent it.
    pub fn conversation_until(&self, session_id: SessionId, seq: i64) -> Result<Vec<ChatMessage>> {
        self.0
            .rows(
                "SELECT role, content, steps FROM session_turns WHERE session_id = ? AND seq <= ? ORDER BY seq",
                args![session_id.to_string(), seq],
                said,
            )
            .map(|turns| turns.into_iter().flatten().collect())
            .context("store: reading a session's conversation")
    }

    /// Takes user turn `seq` of the session of `entry`, an allowed message
    /// said `content` at the entry's time: counts the turn, stores the
    /// words as turn `turn_id` and appends `entry` to the ledger. Returns
    /// the conversation up to and including that turn, as the target is
    /// sent it. On PostgreSQL one statement (its last part reads the turns
    /// stored before it).
    pub fn take_turn(
        &self,
        entry: &Entry,
        turn_id: Uuid,
        seq: i64,
        content: &str,
    ) -> Result<Vec<ChatMessage>> {
        let session_id = entry.session_id.ok_or_else(|| {
            Error::internal(anyhow::anyhow!("a message's entry names no session"))
        })?;
        if !self.0.is_postgres() {
            let now = from_ms(entry.at);
            self.count_user_turn(session_id, now)?;
            self.insert_user_turn(turn_id, session_id, seq, content, now)?;
            self.append_ledger_entry(entry, None)?;
            return self.conversation_until(session_id, seq);
        }
        let mut conversation: Vec<ChatMessage> = self
            .0
            .rows(
                "WITH counted AS (
                     UPDATE exploration_sessions SET turn_count = turn_count + 1, updated_at = $1
                     WHERE id = $2),
                 said AS (
                     INSERT INTO session_turns (id, session_id, seq, role, content, latency_ms, created_at)
                     VALUES ($3, $2, $4, 'user', $5, NULL, $1)),
                 allowed AS (
                     INSERT INTO ledger_entries (id, campaign_id, session_id, action, allowed, reason_code, at)
                     VALUES ($6, $7, $2, 'message', true, NULL, $1))
                 SELECT role, content, steps FROM session_turns
                 WHERE session_id = $2 AND seq < $4 ORDER BY seq",
                args![
                    entry.at,
                    session_id.to_string(),
                    turn_id.to_string(),
                    seq,
                    content,
                    entry.id.to_string(),
                    entry.campaign_id.to_string(),
                ],
                said,
            )
            .context("store: taking a session's user turn")?
            .into_iter()
            .flatten()
            .collect();
        conversation.push(ChatMessage::user(content));
        Ok(conversation)
    }

    /// Ends session `id` as `failed` (`target_error`, `reason`) at `at`
    /// (ms) if it is still running: the target did not answer.
    pub fn fail_session_on_target_error(
        &self,
        id: SessionId,
        reason: &Text,
        at: i64,
    ) -> Result<()> {
        retally(&self.0, &[id], || {
            self.0
                .exec(
                    "UPDATE exploration_sessions SET status = 'failed', end_reason = 'target_error',
                        failure_reason = ?, ended_at = ?, updated_at = ?
                     WHERE id = ? AND status = 'running'",
                    args![reason.to_key(), at, at, id.to_string()],
                )
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
        reason: &Text,
        now: DateTime<Utc>,
    ) -> Result<bool> {
        let now = to_ms(now);
        let changed = retally(&self.0, &[SessionId(id)], || {
            self.0
                .exec(
                    "UPDATE exploration_sessions SET status = 'failed', end_reason = ?, failure_reason = ?,
                        ended_at = ?, updated_at = ?
                     WHERE id = ? AND status = 'running'",
                    args![end_reason.as_str(), reason.to_key(), now, now, id.to_string()],
                )
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
        let now = to_ms(now);
        retally(&self.0, &[SessionId(id)], || {
            self.0
                .exec(
                    "UPDATE exploration_sessions SET status = 'completed', end_reason = ?, experience = ?,
                        judge_status = 'pending', ended_at = ?, updated_at = ?
                     WHERE id = ?",
                    args![end_reason.as_str(), experience, now, now, id.to_string()],
                )
                .context("store: completing a session")
        })?;
        Ok(())
    }
}

/// A session from a `SELECT * FROM exploration_sessions` row.
pub fn session_from_row(row: &Row<'_>) -> Result<ExplorationSession> {
    let json = |col: &str| -> Result<Option<serde_json::Value>> {
        Ok(row.text(col)?.map(serde_json::from_str).transpose()?)
    };
    Ok(ExplorationSession {
        id: parse_id(row.str("id")?)?,
        campaign_id: parse_id(row.str("campaign_id")?)?,
        target_id: parse_id(row.str("target_id")?)?,
        persona: json("persona")?.unwrap_or_default(),
        goal: json("goal")?.unwrap_or_default(),
        seed_ref: json("seed_ref")?.map(serde_json::from_value).transpose()?,
        status: SessionStatus::parse(row.str("status")?)?,
        trigger: Trigger::parse(row.str("trigger_kind")?),
        played_by: {
            let raw = row.str("played_by")?;
            PlayedBy::parse(raw)
                .ok_or_else(|| Error::internal(anyhow::anyhow!("unknown played_by {raw}")))?
        },
        user_model: row.get("user_model")?,
        end_reason: row.text("end_reason")?.and_then(EndReason::parse),
        experience: json("experience")?
            .map(serde_json::from_value)
            .transpose()?,
        judge_status: row.get("judge_status")?,
        judge_review: json("judge_review")?,
        simulator_faults: json("simulator_faults")?
            .map(serde_json::from_value)
            .transpose()?,
        turn_count: row.get::<i64>("turn_count")? as u32,
        failure_reason: row.text("failure_reason")?.map(Text::from_key),
        started_at: from_ms(row.get("started_at")?),
        ended_at: row.get::<Option<i64>>("ended_at")?.map(from_ms),
        created_at: from_ms(row.get("created_at")?),
        updated_at: from_ms(row.get("updated_at")?),
    })
}

/// A reply's stored steps (JSON [Step]); none when absent or unreadable.
fn stored_steps(text: Option<&str>) -> Vec<agenteval_domain::steps::Step> {
    text.and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default()
}

/// A stored turn as the target is sent it: the user's words, or the
/// target's reply after the tool steps that led to it.
fn said(r: &Row<'_>) -> Result<Vec<ChatMessage>> {
    said_at(r, 0)
}

/// [`said`] of a row whose turn's role, content and steps are the columns
/// from `first` on.
pub(crate) fn said_at(r: &Row<'_>, first: usize) -> Result<Vec<ChatMessage>> {
    let content: String = r.get(first + 1)?;
    Ok(if r.str(first)? == "user" {
        vec![ChatMessage::user(content)]
    } else {
        agenteval_domain::chat::with_steps(&stored_steps(r.text(first + 2)?), content)
    })
}
