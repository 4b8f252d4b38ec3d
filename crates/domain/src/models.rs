//! The models that play roles beside the target: which role, and how a
//! model was asked for its JSON answer.

use serde::{Deserialize, Serialize};

/// The four roles a model can play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    VirtualUser,
    Judge,
    Analyst,
    /// Answers a played tool's call that no declared response matches.
    ToolSimulator,
}

impl Role {
    pub const ALL: [Role; 4] = [
        Role::VirtualUser,
        Role::Judge,
        Role::Analyst,
        Role::ToolSimulator,
    ];

    /// The `AGENTEVAL_<PREFIX>_*` environment prefix.
    pub fn env_prefix(self) -> &'static str {
        match self {
            Role::VirtualUser => "USER",
            Role::Judge => "JUDGE",
            Role::Analyst => "ANALYST",
            Role::ToolSimulator => "TOOLS",
        }
    }

    /// Answer cap when none is configured: a user turn is short, a judge
    /// review is a JSON object with evidence, an analysis is the longest;
    /// a simulated tool result is a small JSON object.
    pub fn default_max_tokens(self) -> u32 {
        match self {
            Role::VirtualUser => 300,
            Role::Judge => 800,
            Role::Analyst => 1500,
            Role::ToolSimulator => 600,
        }
    }

    /// What plays this role when no model does (the tool simulator: none,
    /// a call no response matches is answered `NO_RESPONSE`).
    pub fn fallback(self) -> &'static str {
        match self {
            Role::VirtualUser => "persona_engine",
            Role::Judge => "heuristic",
            Role::Analyst => "template",
            Role::ToolSimulator => "no_response",
        }
    }
}

/// How a role model was asked for its JSON answer.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// `response_format: {type: "json_schema", json_schema: {name, schema, strict}}`.
    JsonSchema,
    /// `response_format: {type: "json_object", schema}`.
    JsonObjectSchema,
    /// `response_format: {type: "json_object"}`: JSON, but no schema.
    JsonObject,
    /// No `response_format`: the prompt alone asks for the JSON.
    PromptOnly,
}

impl OutputMode {
    /// The forms in the order they are tried.
    pub const LADDER: [OutputMode; 4] = [
        OutputMode::JsonSchema,
        OutputMode::JsonObjectSchema,
        OutputMode::JsonObject,
        OutputMode::PromptOnly,
    ];

    /// The form to try when this one is refused.
    pub fn next(self) -> Option<OutputMode> {
        let i = Self::LADDER.iter().position(|m| *m == self)?;
        Self::LADDER.get(i + 1).copied()
    }

    pub fn as_str(self) -> &'static str {
        match self {
            OutputMode::JsonSchema => "json_schema",
            OutputMode::JsonObjectSchema => "json_object_schema",
            OutputMode::JsonObject => "json_object",
            OutputMode::PromptOnly => "prompt_only",
        }
    }
}

impl std::fmt::Display for OutputMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
