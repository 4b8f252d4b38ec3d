//! Tests: fixed.
