//! The exploration block of the campaign report. The report reads it from
//! tallies kept as sessions change (migration 0009); [`aggregate`] computes
//! the same figures from session rows, without a database, and is what the
//! tallies are tested against.

mod aggregate;
mod issue_keys;
pub(crate) mod issues;
mod reviews;

pub use aggregate::*;
pub use issue_keys::issue_group_key;
pub(crate) use issues::*;
use reviews::*;

use super::session::{EndReason, ExperienceRecord, SessionStatus};
use crate::campaign::SeedSet;
use crate::error::Result;
use crate::platform::Platform;
use crate::store::{Read, Tx};
use std::collections::{BTreeMap, HashMap, HashSet};
use uuid::Uuid;

pub use crate::domain::findings::*;
