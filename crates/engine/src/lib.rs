//! AgentEval engine: every operation of the product, over the domain and
//! the store crates. It knows nothing of Tauri or axum; the desktop shell,
//! the HTTP server and the CLI are thin adapters over [`Platform`]'s
//! methods.
//!
//! The tree is the layers (docs/ARCHITECTURE.md), each naming only those
//! below it (`scripts/check-layers.py`):
//!
//! - [`domain`] and [`store`], crates of their own;
//! - [`channels`]: how the platform talks to a target, the built-in agents;
//! - [`operations`]: `impl Platform`, one feature a module;
//! - [`runtime`]: the background work, one `start` for every shell;
//! - [`reporting`]: the report, findings, comparison, analysis, exports.
//!
//! Each module is also re-exported here under its own name
//! (`agenteval_engine::campaign`), the one path the shells and tests use.

pub mod channels;
pub mod operations;
pub mod reporting;
pub mod runtime;

/// The domain types, the error and the clock, from their own crate (the
/// lowest layer), under the paths the engine has always used.
pub use agenteval_domain::{self as domain, clock, error, i18n, msg, text};
/// The store, the only code with SQL, from its own crate (over the domain
/// alone), under the path the engine has always used.
pub use agenteval_store::{self as store, secrets};

pub use channels::{channel, demo_agent};
pub use operations::{
    audit, calibration, campaign, checks, exchange, exploration, fixed, judge, keys, office,
    paging, patrol_agent, platform, provenance, review, role_models, scenario, structured, target,
    target_probe, tool_player, traces, virtual_user,
};
pub use reporting::{analysis, comparison, export, findings, report, side_by_side, summary};

pub use domain::ids::{CampaignId, RunId, SessionId, TargetId};
pub use error::{Error, ErrorBody, ErrorCode, Result};
pub use i18n::{Lang, Msg, Text};
pub use platform::{DATABASE_URL_ENV, Event, Platform};
