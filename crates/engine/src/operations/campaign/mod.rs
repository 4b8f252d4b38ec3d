//! Campaigns: creating, listing, finalizing and removing them (the types
//! are the domain's, [`crate::domain::campaign`]).

mod operations;

pub use crate::domain::campaign::*;
