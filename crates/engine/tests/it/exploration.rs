//! Tests: exploration.
