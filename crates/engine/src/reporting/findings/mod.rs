//! The exploration block of the campaign report. The report reads it from
//! tallies kept as sessions change (migration 0009); [`aggregate`] computes
//! the same figures from session rows, without a database, and is what the
//! tallies are tested against.

mod aggregate;

pub use crate::domain::issue_keys::issue_group_key;
use crate::domain::judge_review::*;
pub use aggregate::*;

use crate::campaign::SeedSet;
use crate::error::Result;
use crate::exploration::issues::{issue_count, reported_issues};
use crate::exploration::session::{EndReason, SessionStatus};
use crate::platform::Platform;
use crate::store::Read;
use std::collections::{BTreeMap, HashMap, HashSet};
use uuid::Uuid;

pub use crate::domain::findings::*;
