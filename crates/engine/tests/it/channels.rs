//! Tests: channels.
