//! Tests: demo_agent.
