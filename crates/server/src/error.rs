//! The one place where engine error codes become HTTP statuses, and the
//! JSON extractor that gives malformed bodies the app's error shape.

use agenteval_engine::{Error, ErrorBody, ErrorCode, Msg, msg};
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Json, body::Bytes};
use serde::de::DeserializeOwned;

/// The HTTP status of an error code.
pub fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::InvalidInput => StatusCode::BAD_REQUEST,
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::Forbidden => StatusCode::FORBIDDEN,
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::Unprocessable => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::Conflict
        | ErrorCode::SessionBudgetExhausted
        | ErrorCode::TurnLimitReached
        | ErrorCode::IntervalNotElapsed
        | ErrorCode::AutoNotAllowedOnAcceleratedLine
        | ErrorCode::CampaignNotRunning
        | ErrorCode::SessionNotRunning => StatusCode::CONFLICT,
        ErrorCode::TargetUnavailable | ErrorCode::ModelUnavailable => StatusCode::BAD_GATEWAY,
        ErrorCode::OfflineRefused => StatusCode::FORBIDDEN,
        ErrorCode::DatabaseUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// Seconds a client should wait before sending again a request the
/// database could not take.
pub const DATABASE_RETRY_AFTER_SECS: u32 = 5;

/// An engine error on its way to the client.
#[derive(Debug)]
pub struct ApiError(pub Error);

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        Self(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = self.0.code();
        if let Some(cause) = &self.0.cause {
            // The cause stays in the log; the client sees the generic body.
            tracing::error!(error = ?cause, code = %code, "request failed");
        }
        let lang = crate::reader_lang();
        let mut response = (status_of(code), Json(self.0.body.in_lang(lang))).into_response();
        if code == ErrorCode::DatabaseUnavailable {
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from(DATABASE_RETRY_AFTER_SECS),
            );
        }
        // Read back by the audit layer to record the outcome.
        response.extensions_mut().insert(code);
        response
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// A JSON body. Malformed JSON is 400 `INVALID_INPUT`, well-formed JSON of
/// the wrong structure is 422 `UNPROCESSABLE` naming the field, a body over
/// the limit is 413 `PAYLOAD_TOO_LARGE`. The content type is not required,
/// so that `curl -d` works.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = read_body(req, state, || {
            Error::msg(
                ErrorCode::PayloadTooLarge,
                msg!("error-body-too-large"),
                msg!("error-body-too-large-suggestion"),
            )
        })
        .await?;
        decode_bytes(&bytes).map(Self)
    }
}

/// A request's whole body: one over its route's limit is the error
/// `too_large` gives (413 `PAYLOAD_TOO_LARGE`), one that cannot be read is
/// 400 `INVALID_INPUT`.
pub(crate) async fn read_body<S: Send + Sync>(
    req: Request,
    state: &S,
    too_large: impl FnOnce() -> Error,
) -> ApiResult<Bytes> {
    Bytes::from_request(req, state).await.map_err(|rej| {
        ApiError(if rej.status() == StatusCode::PAYLOAD_TOO_LARGE {
            too_large()
        } else {
            Error::invalid_msg(
                msg!("error-body-unreadable", detail = rej.body_text()),
                msg!("error-body-unreadable-suggestion"),
            )
        })
    })
}

/// The body again with every whole number written as a float (`5.0`)
/// written as an integer (`5`); `None` when it has none (or is not JSON).
fn whole_numbers_as_integers(bytes: &[u8]) -> Option<Vec<u8>> {
    fn rewrite(v: &mut serde_json::Value) -> bool {
        match v {
            serde_json::Value::Number(n) if n.is_f64() => {
                let f = n.as_f64().unwrap_or(f64::NAN);
                let whole = f.fract() == 0.0 && f.abs() < 9.0e15;
                if whole {
                    *n = serde_json::Number::from(f as i64);
                }
                whole
            }
            serde_json::Value::Array(items) => items.iter_mut().fold(false, |c, v| rewrite(v) | c),
            serde_json::Value::Object(map) => map.values_mut().fold(false, |c, v| rewrite(v) | c),
            _ => false,
        }
    }
    let mut value: serde_json::Value = serde_json::from_slice(bytes).ok()?;
    rewrite(&mut value).then(|| serde_json::to_vec(&value).ok())?
}

/// Decodes JSON with the same error mapping as [`ApiJson`].
pub fn decode<T: DeserializeOwned>(value: &serde_json::Value) -> ApiResult<T> {
    let bytes = serde_json::to_vec(value).map_err(|e| ApiError(Error::internal(e)))?;
    decode_bytes(&bytes)
}

pub(crate) fn decode_bytes<T: DeserializeOwned>(bytes: &[u8]) -> ApiResult<T> {
    match Json::<T>::from_bytes(bytes) {
        Ok(Json(v)) => Ok(v),
        // JSON has one kind of number: `5.0` is the whole number 5, as the
        // OpenAPI document's `integer` fields allow. Only a body refused as
        // it is gets looked at again, with such numbers written as integers.
        Err(JsonRejection::JsonDataError(_))
            if let Some(Json(v)) =
                whole_numbers_as_integers(bytes).and_then(|b| Json::<T>::from_bytes(&b).ok()) =>
        {
            Ok(v)
        }
        Err(JsonRejection::JsonDataError(e)) => Err(Error::msg(
            ErrorCode::Unprocessable,
            msg!("error-body-structure", detail = e.body_text()),
            msg!("error-body-structure-suggestion"),
        )
        .into()),
        Err(e) => Err(Error::invalid_msg(
            msg!("error-body-not-json", detail = e.body_text()),
            msg!("error-body-not-json-suggestion"),
        )
        .into()),
    }
}

/// A query string that `Query` could not decode (a duplicate or malformed
/// parameter) as 400 `INVALID_INPUT` in the error shape; `suggestion` says
/// what the route's parameters look like.
pub fn query<T>(
    query: Result<axum::extract::Query<T>, axum::extract::rejection::QueryRejection>,
    suggestion: Msg,
) -> ApiResult<T> {
    query.map(|q| q.0).map_err(|e| {
        ApiError(Error::invalid_msg(
            msg!("error-query", detail = e.body_text()),
            suggestion,
        ))
    })
}

/// The error body, for the OpenAPI document.
pub type ErrorResponse = ErrorBody;

pub fn unauthorized() -> ApiError {
    ApiError(Error::msg(
        ErrorCode::Unauthorized,
        msg!("error-unauthorized"),
        msg!("error-unauthorized-suggestion"),
    ))
}

/// 403: `caller`'s role does not allow the call; `what` says what the
/// role may not do.
pub fn forbidden(caller: &agenteval_engine::keys::Caller, what: Forbidden) -> ApiError {
    let (name, role) = (caller.name.clone(), caller.role.to_string());
    let message = match what {
        Forbidden::ReadOnly => msg!("error-forbidden-read-only", name = name, role = role),
        Forbidden::AdminOnly => msg!("error-forbidden-admin-only", name = name, role = role),
    };
    ApiError(Error::msg(
        ErrorCode::Forbidden,
        message,
        msg!("error-forbidden-suggestion"),
    ))
}

/// What a role may not do.
pub enum Forbidden {
    /// Anything but reading (a viewer).
    ReadOnly,
    /// Managing keys (anyone but an admin).
    AdminOnly,
}

pub fn not_found_route() -> ApiError {
    ApiError(Error::msg(
        ErrorCode::NotFound,
        msg!("error-no-route"),
        msg!("error-no-route-suggestion"),
    ))
}

/// 405 in the error shape (there is no dedicated code: the request itself
/// is wrong).
pub async fn method_not_allowed() -> Response {
    let e = Error::invalid_msg(
        msg!("error-method-not-allowed"),
        msg!("error-method-not-allowed-suggestion"),
    );
    let lang = crate::reader_lang();
    (StatusCode::METHOD_NOT_ALLOWED, Json(e.body.in_lang(lang))).into_response()
}

/// Parses an id from the path; anything that is not a UUID names nothing.
pub fn parse_id<T: From<uuid::Uuid>>(kind: &str, raw: &str) -> ApiResult<T> {
    uuid::Uuid::parse_str(raw)
        .map(T::from)
        .map_err(|_| ApiError(Error::not_found(kind, raw)))
}
