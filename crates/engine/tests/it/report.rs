//! Tests: report.
