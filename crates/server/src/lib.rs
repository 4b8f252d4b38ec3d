//! AgentEval HTTP API: an axum router over the engine's operations.
