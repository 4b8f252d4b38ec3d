//! Tests: checks.
