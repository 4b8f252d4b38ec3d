//! Exploration: sessions, the guardrail ledger, patrol. (Implementation in progress.)

pub mod findings;
