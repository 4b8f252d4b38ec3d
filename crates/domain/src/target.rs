//! Targets: the agents under evaluation, how to reach them, and the
//! checks their settings pass.

use crate::error::{Error, Result};
use crate::ids::TargetId;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// How the platform talks to a target.
///
/// Secrets are never stored in clear: `api_key` is accepted on input and
/// moved into the secret store; what is persisted and returned is
/// `api_key_ref` (an opaque reference) or `api_key_env` (the name of an
/// environment variable that holds the key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChannelConfig {
    /// An OpenAI-compatible `/chat/completions` endpoint.
    Openai {
        /// An http:// or https:// URL, e.g. http://127.0.0.1:8000/v1.
        #[schema(pattern = r"^https?://")]
        base_url: String,
        #[schema(min_length = 1, pattern = r"\S")]
        model: String,
        /// Write-only: accepted on create, never returned or stored in clear.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        api_key: Option<String>,
        /// Name of an environment variable holding the key.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        api_key_env: Option<String>,
        /// Reference into the secret store (set by the platform; an update
        /// may send the target's own back).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schema(read_only)]
        api_key_ref: Option<String>,
        #[serde(default)]
        headers: Vec<Header>,
    },
    /// A generic HTTP JSON endpoint.
    Http {
        /// An http:// or https:// URL.
        #[schema(pattern = r"^https?://")]
        url: String,
        /// JSON body template; `{{message}}` and `{{history}}` are replaced.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request_template: Option<serde_json::Value>,
        /// JSONPath to the reply text in the response, default `$.reply`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        response_path: Option<String>,
        #[serde(default)]
        headers: Vec<Header>,
    },
    /// The built-in deterministic demo agent.
    Builtin { agent: BuiltinAgent },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Header {
    pub name: String,
    pub value: String,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum BuiltinAgent {
    Demo,
}

impl ChannelConfig {
    /// The model identity shown in reports and used for comparisons: an
    /// identifier, the same in every language.
    pub fn model_label(&self) -> String {
        match self {
            Self::Openai {
                model, base_url, ..
            } => format!("{model} @ {base_url}"),
            Self::Http { url, .. } => format!("http {url}"),
            Self::Builtin {
                agent: BuiltinAgent::Demo,
            } => "builtin:demo".into(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Target {
    pub id: TargetId,
    pub name: String,
    pub channel: ChannelConfig,
    /// Maximum simultaneous requests to this target.
    pub concurrency: u32,
    /// Maximum requests per second; `None` = unlimited.
    pub rate_per_second: Option<f64>,
    pub timeout_ms: u64,
    pub max_retries: u32,
    /// Price per million input tokens, for cost estimates.
    pub price_in_per_mtok: f64,
    /// Price per million output tokens.
    pub price_out_per_mtok: f64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// When the target was archived (removed while campaigns used it);
    /// archived targets are left out of the target list and take no new
    /// campaign.
    pub archived_at: Option<DateTime<Utc>>,
}

/// Defaults from the send_email skill's preconditions: 2 retries, 15 s.
pub const DEFAULT_TIMEOUT_MS: u64 = 15_000;
pub const DEFAULT_MAX_RETRIES: u32 = 2;
pub const DEFAULT_CONCURRENCY: u32 = 4;

/// A target's settings, as created and as replaced: every setting left
/// out takes its default. On update the API key stays as it is unless a
/// new `api_key` is given; `api_key_ref`, when sent back, must be the
/// target's own.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TargetSettings {
    /// 1-200 characters, not only spaces.
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    pub name: String,
    pub channel: ChannelConfig,
    /// Requests at once, 1-1024 (default 4).
    #[serde(default)]
    #[schema(minimum = 1, maximum = 1024)]
    pub concurrency: Option<u32>,
    /// Requests per second at most, 0.001-100000; left out: no limit.
    #[serde(default)]
    #[schema(minimum = 0.001, maximum = 100000.0)]
    pub rate_per_second: Option<f64>,
    /// 100-600000 ms (default 15000).
    #[serde(default)]
    #[schema(minimum = 100, maximum = 600000)]
    pub timeout_ms: Option<u64>,
    /// 0-10 (default 2).
    #[serde(default)]
    #[schema(minimum = 0, maximum = 10)]
    pub max_retries: Option<u32>,
    #[serde(default)]
    #[schema(minimum = 0.0)]
    pub price_in_per_mtok: Option<f64>,
    #[serde(default)]
    #[schema(minimum = 0.0)]
    pub price_out_per_mtok: Option<f64>,
}

/// What became of a removed target.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RemovalOutcome {
    /// No campaign used it: it is gone.
    Deleted,
    /// Campaigns use it: it is kept for their reports, out of the list.
    Archived,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TargetRemoval {
    pub id: TargetId,
    pub outcome: RemovalOutcome,
}

/// A target's settings, checked: nothing out of range is corrected.
pub struct Settings {
    name: String,
    concurrency: u32,
    rate_per_second: Option<f64>,
    timeout_ms: u64,
    max_retries: u32,
    price_in_per_mtok: f64,
    price_out_per_mtok: f64,
}

impl Settings {
    /// Target `id` with these settings.
    pub fn target(
        self,
        id: TargetId,
        channel: ChannelConfig,
        created_at: DateTime<Utc>,
        archived_at: Option<DateTime<Utc>>,
        updated_at: DateTime<Utc>,
    ) -> Target {
        Target {
            id,
            name: self.name,
            channel,
            concurrency: self.concurrency,
            rate_per_second: self.rate_per_second,
            timeout_ms: self.timeout_ms,
            max_retries: self.max_retries,
            price_in_per_mtok: self.price_in_per_mtok,
            price_out_per_mtok: self.price_out_per_mtok,
            created_at,
            updated_at,
            archived_at,
        }
    }
}

/// The longest timeout a target may have (10 minutes).
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// The most retries a target may have.
pub const MAX_RETRIES: u32 = 10;
/// The slowest rate limit a target may have: one request per 1,000 s.
pub const MIN_RATE_PER_SECOND: f64 = 0.001;
/// The fastest rate limit a target may have.
pub const MAX_RATE_PER_SECOND: f64 = 100_000.0;

impl Settings {
    pub fn check(req: &TargetSettings) -> Result<Self> {
        let name = req.name.trim();
        if name.is_empty() || name.chars().count() > 200 {
            return Err(Error::invalid_msg(
                crate::msg!("error-target-name"),
                crate::msg!("error-target-name-suggestion"),
            ));
        }
        let concurrency = req.concurrency.unwrap_or(DEFAULT_CONCURRENCY);
        if !(1..=1024).contains(&concurrency) {
            return Err(Error::out_of_range(
                "concurrency",
                1,
                1024,
                concurrency,
                crate::msg!("error-target-concurrency-suggestion"),
            ));
        }
        if let Some(r) = req.rate_per_second
            && !(MIN_RATE_PER_SECOND..=MAX_RATE_PER_SECOND).contains(&r)
        {
            return Err(Error::out_of_range(
                "rate_per_second",
                MIN_RATE_PER_SECOND.to_string(),
                MAX_RATE_PER_SECOND.to_string(),
                r,
                crate::msg!("error-target-rate-suggestion"),
            ));
        }
        let timeout_ms = req.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
        if !(100..=MAX_TIMEOUT_MS).contains(&timeout_ms) {
            return Err(Error::out_of_range(
                "timeout_ms",
                100,
                MAX_TIMEOUT_MS,
                timeout_ms,
                crate::msg!("error-target-timeout-suggestion"),
            ));
        }
        let max_retries = req.max_retries.unwrap_or(DEFAULT_MAX_RETRIES);
        if max_retries > MAX_RETRIES {
            return Err(Error::out_of_range(
                "max_retries",
                0,
                MAX_RETRIES,
                max_retries,
                crate::msg!("error-target-retries-suggestion"),
            ));
        }
        let price = |field: &str, v: Option<f64>| -> Result<f64> {
            let v = v.unwrap_or(0.0);
            if v.is_finite() && v >= 0.0 {
                Ok(v)
            } else {
                Err(Error::invalid_msg(
                    crate::msg!("error-price", field = field, got = v.to_string()),
                    crate::msg!("error-price-suggestion"),
                ))
            }
        };
        Ok(Self {
            name: name.to_string(),
            concurrency,
            rate_per_second: req.rate_per_second,
            timeout_ms,
            max_retries,
            price_in_per_mtok: price("price_in_per_mtok", req.price_in_per_mtok)?,
            price_out_per_mtok: price("price_out_per_mtok", req.price_out_per_mtok)?,
        })
    }
}

impl TargetSettings {
    pub fn builtin_demo(name: &str) -> Self {
        Self {
            name: name.into(),
            channel: ChannelConfig::Builtin {
                agent: BuiltinAgent::Demo,
            },
            concurrency: None,
            rate_per_second: None,
            timeout_ms: None,
            max_retries: None,
            price_in_per_mtok: None,
            price_out_per_mtok: None,
        }
    }

    /// An OpenAI-compatible endpoint without a key, with default limits.
    pub fn openai(name: &str, base_url: &str, model: &str) -> Self {
        Self {
            channel: ChannelConfig::Openai {
                base_url: base_url.into(),
                model: model.into(),
                api_key: None,
                api_key_env: None,
                api_key_ref: None,
                headers: Vec::new(),
            },
            ..Self::builtin_demo(name)
        }
    }
}

pub fn validate_url(field: &str, url: &str) -> Result<()> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(Error::invalid_msg(
            crate::msg!("error-url", field = field, got = url),
            crate::msg!("error-url-suggestion"),
        ));
    }
    Ok(())
}

/// The URL a target's channel talks to; `None` for a built-in agent.
pub fn channel_url(channel: &ChannelConfig) -> Option<&str> {
    match channel {
        ChannelConfig::Openai { base_url, .. } => Some(base_url),
        ChannelConfig::Http { url, .. } => Some(url),
        ChannelConfig::Builtin { .. } => None,
    }
}
