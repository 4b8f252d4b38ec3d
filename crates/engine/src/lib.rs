//! AgentEval engine: the domain, the store and every operation of the
//! product. It knows nothing of Tauri or axum; the desktop shell, the HTTP
//! server and the CLI are thin adapters over [`Platform`]'s methods.

pub mod analysis;
pub mod audit;
pub mod calibration;
pub mod campaign;
pub mod channel;
pub mod checks;
pub mod comparison;
pub mod demo_agent;
pub mod exploration;
pub mod export;
pub mod fixed;
pub mod judge;
pub mod paging;
pub mod patrol_agent;
pub mod platform;
pub mod provenance;
pub mod report;
pub mod review;
pub mod role_models;
pub mod runtime;
pub mod scenario;
pub mod secrets;
pub mod structured;
mod tally;
pub mod target;
pub mod target_probe;
pub mod virtual_user;

/// The domain types, the error and the clock, from their own crate (the
/// lowest layer), under the paths the engine has always used.
pub use agenteval_domain::{self as domain, clock, error, text};
/// The store, the only code with SQL, from its own crate (over the domain
/// alone), under the path the engine has always used.
pub use agenteval_store as store;
pub use error::{Error, ErrorBody, ErrorCode, Result};
pub use platform::{Event, Platform};
