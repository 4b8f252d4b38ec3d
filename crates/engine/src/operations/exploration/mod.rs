//! Exploration: virtual-user sessions inside a campaign, the guardrail
//! ledger that bounds them, and the patrol view that lets a stateless agent
//! decide what to explore next.
//!
//! Sessions are their own entity (never runs) so that exploration data
//! never enters the fixed-scenario pass rate.

pub mod explore;
pub(crate) mod issues;
pub mod ledger;
pub mod patrol;
pub mod session;
pub mod simulator_faults;

pub use explore::{ExploreRequest, ExploreStarted};
pub use ledger::{LedgerAction, LedgerEntry};
pub use patrol::PatrolReport;
pub use session::{
    CloseSession, CreateSession, EndReason, ExperienceRecord, ExplorationSession, FailSession,
    MessageReply, PlayedBy, SendMessage, SessionStatus, SessionTranscript, SessionTurn, Trigger,
};
pub use simulator_faults::{SimulatorFault, SimulatorFaultKind};

pub use crate::domain::session::{
    EMOTIONS, SeedRef, Variant, VariantKind, issue_key, normalize_emotion,
};
