//! The domain: the plain types every layer speaks (what a target, a
//! campaign, a run, a verdict, a tally are) and the checks on them. It
//! names no other layer: the store persists these types, the channels,
//! operations, runtime and reporting build on them.

pub mod campaign;
pub mod chat;
pub mod ids;
pub mod models;
pub mod provenance;
pub mod report;
pub mod review;
pub mod run;
pub mod scenario;
pub(crate) mod tally;
pub mod target;

pub(crate) use ids::parse_id;
