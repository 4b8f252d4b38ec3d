//! The rows the writer commits, as they are queued.

use agenteval_domain::ids::RunId;
use agenteval_domain::run::Verdict;
use agenteval_domain::tally::RunOutcome;
use uuid::Uuid;

/// The verdict's reason when one of the run's turns could not be stored.
pub const TURN_LOST: &str = "storage_error: a turn could not be stored";

/// One turn of a fixed run.
#[derive(Debug, Clone)]
pub struct TurnRow {
    pub run_id: RunId,
    /// The claim that played it ([`super::ClaimedRow::attempt`]): on PostgreSQL a
    /// turn of a claim that another worker took over is not stored.
    pub attempt: i64,
    pub seq: i64,
    pub role: &'static str,
    pub content: String,
    pub latency_ms: Option<i64>,
    pub tokens_in: Option<i64>,
    pub tokens_out: Option<i64>,
    pub tool_calls: Option<String>,
    pub steps: Option<String>,
    pub created_at: i64,
}

/// A run's verdict.
#[derive(Debug, Clone)]
pub struct FinishRow {
    pub id: Uuid,
    pub verdict: Verdict,
    pub check_results: String,
    pub metrics: String,
    pub error_reason: Option<String>,
    pub finished_at: i64,
    /// The claim that played the run ([`super::ClaimedRow::attempt`]): the verdict
    /// is not stored once a later claim took the run over.
    pub attempt: i64,
    /// What the run adds to the report's tallies.
    pub outcome: Box<RunOutcome>,
}

/// An audit event.
#[derive(Debug, Clone)]
pub struct AuditRow {
    pub id: String,
    pub at: i64,
    pub actor: String,
    pub action: String,
    pub subject: Option<String>,
    pub outcome: String,
}

/// The target's reply in an exploration session (its user turn and the
/// budget decision were committed before the target was called).
#[derive(Debug, Clone)]
pub struct ReplyRow {
    pub id: String,
    pub session_id: String,
    pub seq: i64,
    pub content: String,
    pub latency_ms: i64,
    pub at: i64,
    /// JSON [Step]: the tool calls the engine answered before the reply.
    pub steps: Option<String>,
}

#[derive(Debug, Clone)]
pub enum Write {
    Turn(TurnRow),
    Finish(FinishRow),
    Reply(ReplyRow),
    Audit(AuditRow),
}

/// How a queued write was committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Committed {
    AsQueued,
    /// A run's verdict, stored as `error` because one of its turns could
    /// not be stored.
    TurnsMissing,
}
