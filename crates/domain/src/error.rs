//! One error shape for every transport: `{code, message, suggestion}`.
//!
//! The engine returns [`Error`]; the HTTP server maps [`ErrorCode`] to a
//! status in one place and the desktop shell passes the same body to the UI.
//! Internal details (SQL errors, I/O) are logged, never shown to the user.

use crate::i18n::{Lang, Msg};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Stable error codes shared with TypeScript and HTTP clients.
///
/// Guardrail refusals carry the reason codes of the exploration budget so
/// that a refusal is feedback an agent can act on.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The request is malformed or a field is invalid (HTTP 400).
    InvalidInput,
    /// Missing or wrong API key (HTTP 401).
    Unauthorized,
    /// The API key is valid but its role does not allow the call: a viewer
    /// changing something, a key other than an admin managing keys (HTTP
    /// 403).
    Forbidden,
    /// The id names nothing (HTTP 404).
    NotFound,
    /// The request body is larger than allowed (HTTP 413).
    PayloadTooLarge,
    /// The structure is well-formed JSON but cannot be processed (HTTP 422).
    Unprocessable,
    /// A state refusal that is not a guardrail (HTTP 409).
    Conflict,
    /// The campaign's exploration session budget is used up (HTTP 409).
    SessionBudgetExhausted,
    /// The session reached its maximum number of user turns (HTTP 409).
    TurnLimitReached,
    /// Too soon after the previous session start (HTTP 409).
    IntervalNotElapsed,
    /// Auto-triggered sessions are refused on the accelerated line (HTTP 409).
    AutoNotAllowedOnAcceleratedLine,
    /// The campaign is not running (HTTP 409).
    CampaignNotRunning,
    /// The session is not running (HTTP 409).
    SessionNotRunning,
    /// The target could not be reached after the retry policy (HTTP 502).
    TargetUnavailable,
    /// A configured role model failed (HTTP 502).
    ModelUnavailable,
    /// Offline mode refuses an endpoint that is not on this machine (HTTP
    /// 403).
    OfflineRefused,
    /// The database cannot be reached or cannot take a write now (down,
    /// restarting, a full disk, a read-only data folder): nothing was
    /// changed, and the same request may be sent again (HTTP 503 with
    /// `Retry-After`).
    DatabaseUnavailable,
    /// A real fault inside the platform (HTTP 500).
    Internal,
}

impl ErrorCode {
    /// Whether this code is one of the exploration guardrail reason codes.
    pub fn is_guardrail(self) -> bool {
        matches!(
            self,
            Self::SessionBudgetExhausted
                | Self::TurnLimitReached
                | Self::IntervalNotElapsed
                | Self::AutoNotAllowedOnAcceleratedLine
                | Self::CampaignNotRunning
                | Self::SessionNotRunning
        )
    }

    /// The wire name, e.g. `SESSION_BUDGET_EXHAUSTED`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidInput => "INVALID_INPUT",
            Self::Unauthorized => "UNAUTHORIZED",
            Self::Forbidden => "FORBIDDEN",
            Self::NotFound => "NOT_FOUND",
            Self::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            Self::Unprocessable => "UNPROCESSABLE",
            Self::Conflict => "CONFLICT",
            Self::SessionBudgetExhausted => "SESSION_BUDGET_EXHAUSTED",
            Self::TurnLimitReached => "TURN_LIMIT_REACHED",
            Self::IntervalNotElapsed => "INTERVAL_NOT_ELAPSED",
            Self::AutoNotAllowedOnAcceleratedLine => "AUTO_NOT_ALLOWED_ON_ACCELERATED_LINE",
            Self::CampaignNotRunning => "CAMPAIGN_NOT_RUNNING",
            Self::SessionNotRunning => "SESSION_NOT_RUNNING",
            Self::TargetUnavailable => "TARGET_UNAVAILABLE",
            Self::ModelUnavailable => "MODEL_UNAVAILABLE",
            Self::OfflineRefused => "OFFLINE_REFUSED",
            Self::DatabaseUnavailable => "DATABASE_UNAVAILABLE",
            Self::Internal => "INTERNAL",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The body every transport sends for an error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub message: String,
    pub suggestion: String,
    /// For `INTERVAL_NOT_ELAPSED`: when the next session is allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_allowed_at: Option<DateTime<Utc>>,
    /// The message and the suggestion as catalogue messages, for a reader
    /// in another language; `message` and `suggestion` are them rendered
    /// in the request's language (English where none was asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<Box<ErrorText>>,
}

/// An error's words as catalogue messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ErrorText {
    pub message: Msg,
    pub suggestion: Msg,
}

impl ErrorBody {
    /// The message and the suggestion as messages: those of the catalogue,
    /// or the English words of an error that has none.
    pub fn into_msgs(self) -> (Msg, Msg) {
        match self.text {
            Some(t) => {
                let ErrorText {
                    message,
                    suggestion,
                } = *t;
                (message, suggestion)
            }
            None => (
                Msg::new("error-plain").arg("text", self.message),
                Msg::new("error-plain").arg("text", self.suggestion),
            ),
        }
    }

    /// The body with its message and suggestion in `lang`.
    pub fn in_lang(mut self, lang: Lang) -> Self {
        if let Some(t) = &self.text {
            self.message = t.message.render(lang);
            self.suggestion = t.suggestion.render(lang);
        }
        self
    }
}

/// The engine's error: a user-facing body plus, for internal faults, the
/// cause that is logged and never shown. Its `Display`, for the log, ends
/// with the cause's chain (what the engine was doing, then why it failed);
/// the user is shown the body alone.
#[derive(Debug, thiserror::Error)]
#[error("{}: {}{}", body.code, body.message, cause.as_ref().map(|c| format!(" ({c:#})")).unwrap_or_default())]
pub struct Error {
    pub body: ErrorBody,
    #[source]
    pub cause: Option<anyhow::Error>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>, suggestion: impl Into<String>) -> Self {
        Self {
            body: ErrorBody {
                code,
                message: message.into(),
                suggestion: suggestion.into(),
                next_allowed_at: None,
                text: None,
            },
            cause: None,
        }
    }

    /// An error whose words are catalogue messages, rendered in the
    /// reader's language.
    pub fn msg(code: ErrorCode, message: Msg, suggestion: Msg) -> Self {
        let mut e = Self::new(code, message.render(Lang::En), suggestion.render(Lang::En));
        e.body.text = Some(Box::new(ErrorText {
            message,
            suggestion,
        }));
        e
    }

    pub fn invalid(message: impl Into<String>, suggestion: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidInput, message, suggestion)
    }

    /// `INVALID_INPUT` in words of the catalogue.
    pub fn invalid_msg(message: Msg, suggestion: Msg) -> Self {
        Self::msg(ErrorCode::InvalidInput, message, suggestion)
    }

    /// `INVALID_INPUT`: `field` must be from `min` to `max`, and is `got`.
    pub fn out_of_range(
        field: &str,
        min: impl Into<crate::i18n::Arg>,
        max: impl Into<crate::i18n::Arg>,
        got: impl std::fmt::Display,
        suggestion: Msg,
    ) -> Self {
        Self::invalid_msg(
            crate::msg!(
                "error-field-range",
                field = field,
                min = min,
                max = max,
                got = got.to_string()
            ),
            suggestion,
        )
    }

    /// `what` names the kind of thing (`campaign`, `session`, ...): an
    /// `error-thing-<what>` message of the catalogue.
    pub fn not_found(what: &str, id: impl std::fmt::Display) -> Self {
        let thing = Msg::name("error-thing", what);
        Self::msg(
            ErrorCode::NotFound,
            crate::msg!(
                "error-not-found",
                thing = thing.clone(),
                id = id.to_string()
            ),
            crate::msg!("error-not-found-suggestion", thing = thing),
        )
    }

    /// An internal fault: the cause is kept for the log, the user sees a
    /// generic message.
    pub fn internal(cause: impl Into<anyhow::Error>) -> Self {
        Self {
            body: ErrorBody {
                code: ErrorCode::Internal,
                message: "an internal error occurred".into(),
                suggestion: "Retry; if it persists, see the log for details.".into(),
                next_allowed_at: None,
                text: Some(Box::new(ErrorText {
                    message: crate::msg!("error-internal"),
                    suggestion: crate::msg!("error-internal-suggestion"),
                })),
            },
            cause: Some(cause.into()),
        }
    }

    /// The database is unavailable: `why` is one of `down`, `full` and
    /// `read_only` (its message and suggestion), `cause` for the log.
    pub fn database_unavailable(why: &str, cause: impl Into<anyhow::Error>) -> Self {
        let (message, suggestion) = match why {
            "full" => (
                crate::msg!("error-database-full"),
                crate::msg!("error-database-full-suggestion"),
            ),
            "read_only" => (
                crate::msg!("error-database-read-only"),
                crate::msg!("error-database-read-only-suggestion"),
            ),
            _ => (
                crate::msg!("error-database-down"),
                crate::msg!("error-database-down-suggestion"),
            ),
        };
        let mut e = Self::msg(ErrorCode::DatabaseUnavailable, message, suggestion);
        e.cause = Some(cause.into());
        e
    }

    pub fn with_next_allowed_at(mut self, at: DateTime<Utc>) -> Self {
        self.body.next_allowed_at = Some(at);
        self
    }

    pub fn code(&self) -> ErrorCode {
        self.body.code
    }
}

impl Error {
    /// The database knows migration `schema`, which this build does not:
    /// a newer AgentEval wrote it (`written_by`, when it recorded itself).
    pub fn newer_data_folder(schema: i64, written_by: Option<&str>) -> Self {
        Self::newer_schema(
            "this data folder",
            "or choose another data folder (AGENTEVAL_DATA_DIR)",
            schema,
            written_by,
        )
    }

    /// [`Error::newer_data_folder`] for a shared database: every process
    /// on it must be at least as new as the newest that migrated it.
    pub fn newer_database(schema: i64, written_by: Option<&str>) -> Self {
        Self::newer_schema(
            "this database",
            "as the other workers on it are",
            schema,
            written_by,
        )
    }

    fn newer_schema(what: &str, or: &str, schema: i64, written_by: Option<&str>) -> Self {
        let this = env!("CARGO_PKG_VERSION");
        // A development build of the same version may run ahead.
        let written_by = written_by.filter(|v| *v != this);
        let by = match written_by {
            Some(v) => format!("AgentEval {v}, newer than this one ({this})"),
            None => format!("a newer AgentEval than this one ({this})"),
        };
        Self::new(
            ErrorCode::Conflict,
            format!(
                "{what} was written by {by}: its database is at schema version \
                 {schema}, which this build does not know"
            ),
            format!(
                "Open it with AgentEval {} or later, {or}.",
                written_by.unwrap_or("the newer")
            ),
        )
    }
}

impl Error {
    /// Names what the engine was doing when this internal fault happened,
    /// for the log (`store: reading campaign 0192…: database is locked`);
    /// an error for the user is left as it is.
    pub fn context(mut self, doing: impl std::fmt::Display + Send + Sync + 'static) -> Self {
        if let Some(cause) = self.cause.take() {
            self.cause = Some(cause.context(doing));
        }
        self
    }
}

/// [`Error::context`] on a result, at the places where the engine touches
/// the database, files and the network.
pub trait Context<T> {
    fn context(self, doing: &'static str) -> Result<T>;
    fn with_context<D: std::fmt::Display + Send + Sync + 'static>(
        self,
        doing: impl FnOnce() -> D,
    ) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for std::result::Result<T, E> {
    fn context(self, doing: &'static str) -> Result<T> {
        self.map_err(|e| e.into().context(doing))
    }

    fn with_context<D: std::fmt::Display + Send + Sync + 'static>(
        self,
        doing: impl FnOnce() -> D,
    ) -> Result<T> {
        self.map_err(|e| e.into().context(doing()))
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Self::internal(e)
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Self::internal(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_reads_what_was_being_done_and_why_the_user_only_the_body() {
        let io = std::io::Error::other("disk full");
        let err: Result<()> = Err(io).context("store: writing the key file");
        let err = err.unwrap_err();
        assert_eq!(err.body.message, "an internal error occurred");
        assert_eq!(
            err.to_string(),
            "INTERNAL: an internal error occurred (store: writing the key file: disk full)",
            "the log line names what the engine was doing, then the cause"
        );
        let user = Error::invalid("name must not be empty", "Give a name.");
        assert_eq!(
            user.to_string(),
            "INVALID_INPUT: name must not be empty",
            "an error for the user has no cause to add"
        );
    }
}
