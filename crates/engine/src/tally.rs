//! The report's tallies: what they sum (in the domain) and how they are
//! kept (in the store), under one name for the engine's operations.

pub(crate) use crate::domain::tally::*;
