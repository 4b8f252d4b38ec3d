//! Ids as stored: text that must read back as a UUID.

use crate::error::{Error, Result};
use uuid::Uuid;

/// An id read back from storage; one that does not parse is an internal
/// error (the store wrote it), never the user's.
pub fn parse_id(s: &str) -> Result<Uuid> {
    Uuid::parse_str(s).map_err(Error::internal)
}
