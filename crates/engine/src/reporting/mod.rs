//! Layer 5, reporting: the campaign report (fixed figures from the run
//! tallies, the exploration block from the session tallies), the findings,
//! the period-over-period comparison, the analysis and the offline exports.
//! It reads through the operations and the store, and nothing below names it.

pub mod analysis;
pub mod comparison;
pub mod evidence;
pub mod export;
pub mod findings;
pub mod report;
pub mod side_by_side;
pub mod summary;
