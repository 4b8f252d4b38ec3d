//! Layer 2, the channels: how the platform talks to a target (OpenAI-compatible
//! and HTTP JSON, with retries and limits) and the built-in agents that
//! answer without a network. They name the domain and the store only.

pub mod channel;
pub mod demo_agent;
