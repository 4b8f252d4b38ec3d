//! The domain: the plain types every layer of the engine speaks (what a
//! target, a campaign, a run, a verdict, a tally are), the checks on them,
//! the engine's one error and its clock. It is a crate of its own so that
//! the compiler keeps it below everything else: the store persists these
//! types, the channels, operations, runtime and reporting build on them,
//! and nothing here can name any of those.

pub mod api_key;
pub mod calibration;
pub mod campaign;
pub mod chat;
pub mod clock;
pub mod emotion;
pub mod error;
pub mod evidence;
pub mod findings;
pub mod i18n;
pub mod ids;
pub mod issue_keys;
pub mod judge;
pub mod judge_review;
pub mod ledger;
pub mod models;
pub mod provenance;
pub mod report;
pub mod review;
pub mod run;
pub mod scenario;
pub mod session;
pub mod simulator_fault;
pub mod stats;
pub mod steps;
pub mod tally;
pub mod target;
pub mod text;
pub mod traces;

pub use error::{Error, ErrorBody, ErrorCode, Result};
pub use i18n::{Lang, Msg, Text};
pub use ids::parse_id;
