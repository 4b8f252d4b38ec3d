//! Budget decisions that PostgreSQL takes in one statement (functions
//! `take_session_turn` and `start_session` of migration 0013): no lock is
//! held while a process waits on the network, so that the decisions on one
//! campaign follow each other as fast as the server takes them. Each takes
//! the allowed case of a decision the platform otherwise takes in a
//! transaction ([`Store::transact`]), a start its refusals too, and
//! otherwise acts on nothing; on SQLite, whose writer's thread decides in
//! turn with no round trip, each answers `None` at once. What is left
//! undecided the caller decides in a transaction, which stays the
//! authority.

use super::ledger::parse_code;
use super::session_tallies::{TalliedColumns, key_args};
use super::sessions::said_at;
use super::sql::{Arg, Row, args};
use super::{Backend, Store};
use agenteval_domain::campaign::CampaignStatus;
use agenteval_domain::chat::ChatMessage;
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, ErrorCode, Result};
use agenteval_domain::ids::{CampaignId, SessionId, TargetId};
use agenteval_domain::parse_id;
use agenteval_domain::session::ExplorationSession;
use chrono::{DateTime, Utc};
use sqlx::postgres::PgRow;
use uuid::Uuid;

/// A message's user turn, as asked of [`Store::take_turn_at_once`].
#[derive(Debug, Clone)]
pub struct TurnAsked {
    pub session_id: SessionId,
    /// Its ledger row's id.
    pub entry_id: Uuid,
    /// The stored turn's id.
    pub turn_id: Uuid,
    pub content: String,
    pub now: DateTime<Utc>,
    /// The session's limit when its campaign's budget sets none.
    pub default_max_turns: u32,
}

/// A user turn taken: where it goes, and the conversation to send.
#[derive(Debug, Clone)]
pub struct TakenTurn {
    pub campaign_id: CampaignId,
    pub target_id: TargetId,
    /// 0-based index of this user turn.
    pub index: u32,
    pub max_turns: u32,
    /// The conversation up to and including this user turn.
    pub history: Vec<ChatMessage>,
}

/// A session start, as asked of [`Store::start_session_at_once`].
#[derive(Debug, Clone)]
pub struct StartAsked {
    /// The session as it would be stored; its times are those of the
    /// decision.
    pub session: ExplorationSession,
    /// Its ledger row's id.
    pub entry_id: Uuid,
    /// Sessions running with no activity since then count as idle.
    pub idle_before: DateTime<Utc>,
    pub max_sessions: u32,
    /// The least time between two starts.
    pub min_interval: chrono::Duration,
    /// The codes of the guardrails it may be refused by, in the order they
    /// are checked: the campaign's window, the budget, the interval.
    pub refusals: [ErrorCode; 3],
}

/// What a start decided at once read, and whether it started the session.
#[derive(Debug, Clone)]
pub struct StartDecided {
    pub started: bool,
    /// The guardrail that refused it (its code, recorded in the ledger).
    pub refused: Option<ErrorCode>,
    pub campaign_status: Option<CampaignStatus>,
    /// Sessions of the campaign (those abandoned apart) before this one.
    pub used: i64,
    /// When the last one started (ms).
    pub last: Option<i64>,
    /// Of them, those running idle (see [`crate::Tx::idle_sessions`]).
    pub idle: i64,
    /// The time of the decision: the time asked, or the last start when
    /// that is later (decisions taken in turn are stamped in turn).
    pub at: DateTime<Utc>,
}

impl Store {
    /// Takes the next user turn of a session in one statement on
    /// PostgreSQL, when it runs, its campaign's window is open and a turn
    /// is left: counts the turn, stores the words and appends the allowed
    /// ledger row. `None` when it did not, and on SQLite.
    pub async fn take_turn_at_once(&self, asked: TurnAsked) -> Result<Option<TakenTurn>> {
        let args = args![
            asked.session_id.to_string(),
            to_ms(asked.now),
            asked.entry_id,
            asked.turn_id,
            asked.content.as_str(),
            asked.default_max_turns,
        ];
        let Some(rows) = self
            .at_once(
                "SELECT * FROM take_session_turn($1, $2, $3, $4, $5, $6)",
                args,
            )
            .await
            .context("store: taking a session's user turn at once")?
        else {
            return Ok(None);
        };
        let mut taken: Option<TakenTurn> = None;
        for row in &rows {
            let r = Row::Postgres(row);
            let taken = match &mut taken {
                Some(taken) => taken,
                None => taken.insert(TakenTurn {
                    campaign_id: parse_id(r.str(0)?)?,
                    target_id: parse_id(r.str(1)?)?,
                    index: r.get::<i64>(2)? as u32,
                    max_turns: r.get::<i64>(3)? as u32,
                    history: Vec::new(),
                }),
            };
            // One row with no turn when there is none before.
            if r.text(4)?.is_some() {
                taken.history.extend(said_at(&r, 4)?);
            }
        }
        Ok(taken.map(|mut taken| {
            taken.history.push(ChatMessage::user(asked.content));
            taken
        }))
    }

    /// Decides a session's start in one statement on PostgreSQL: when its
    /// campaign's window is open, and the budget and the interval allow
    /// it, stores the session with its seed cell and tallies and appends
    /// the allowed ledger row; refused by one of these, appends the
    /// refused row. Says what it read. Not decided (`started` false, no
    /// `refused`) while a session of the campaign runs idle; `None` when
    /// there is no such campaign, when the session adds more to the
    /// tallies than a count (nothing yet can), and on SQLite.
    pub async fn start_session_at_once(&self, asked: StartAsked) -> Result<Option<StartDecided>> {
        let s = &asked.session;
        if !matches!(self.backend, Backend::Postgres { .. }) {
            return Ok(None);
        }
        let tally = TalliedColumns::of_new_session(s)?.tally();
        if !tally.is_count_only() {
            return Ok(None);
        }
        let (cell_persona, cell_goal) = s
            .seed_ref
            .as_ref()
            .map_or((String::new(), String::new()), |r| {
                (r.persona_id.clone(), r.goal_id.clone())
            });
        let columns: Vec<Arg<'_>> = [
            args![
                s.campaign_id.to_string(),
                to_ms(s.started_at),
                to_ms(asked.idle_before),
                asked.max_sessions,
                asked.min_interval.num_milliseconds(),
                asked.entry_id,
                asked.refusals[0].as_str(),
                asked.refusals[1].as_str(),
                asked.refusals[2].as_str(),
                s.id.to_string(),
                s.target_id.to_string(),
                serde_json::to_string(&s.persona)?,
                serde_json::to_string(&s.goal)?,
                s.seed_ref.as_ref().map(serde_json::to_string).transpose()?,
                s.status.as_str(),
                s.trigger.as_str(),
                s.judge_status.clone(),
                s.played_by.as_str(),
                s.user_model.clone(),
                cell_persona,
                cell_goal,
            ],
            &key_args(&tally.key),
        ]
        .concat();
        let sql = "SELECT * FROM start_session($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
             $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29,
             $30, $31, $32, $33)";
        let Some(rows) = self
            .at_once(sql, &columns)
            .await
            .context("store: starting a session at once")?
        else {
            return Ok(None);
        };
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let r = Row::Postgres(row);
        Ok(Some(StartDecided {
            started: r.get(0)?,
            refused: r.text(1)?.map(parse_code).transpose()?,
            campaign_status: r.text(2)?.map(CampaignStatus::parse).transpose()?,
            used: r.get::<Option<i64>>(3)?.unwrap_or_default(),
            last: r.get(4)?,
            idle: r.get::<Option<i64>>(5)?.unwrap_or_default(),
            at: from_ms(r.get(6)?),
        }))
    }

    /// The rows of `sql`, one statement that commits by itself, on
    /// PostgreSQL (see `postgres::query`); `None` on SQLite.
    async fn at_once(&self, sql: &str, args: &[Arg<'_>]) -> Result<Option<Vec<PgRow>>> {
        match &self.backend {
            Backend::Postgres { pool, .. } => {
                crate::postgres::query(pool, sql, args).await.map(Some)
            }
            Backend::Sqlite { .. } => Ok(None),
        }
    }
}
