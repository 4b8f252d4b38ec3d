//! Handlers of exploration sessions: create, converse, close, fail,
//! discard, and the reads of a campaign's sessions and budget ledger.

use crate::AppState;
use crate::error::{ApiJson, ApiResult, ErrorResponse, decode, parse_id};
use agenteval_engine::domain::ids::CampaignId;
use agenteval_engine::exploration::{
    CloseSession, CreateSession, EndReason, ExplorationSession, FailSession, LedgerEntry,
    MessageReply, SendMessage, SessionTranscript,
};
use agenteval_engine::msg;
use agenteval_engine::scenario::regression::RegressionDraft;
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// This module's routes, one `routes!` per path (method and path are the
/// handlers' `#[utoipa::path]`).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_session))
        .routes(routes!(get_session))
        .routes(routes!(send_message, session_messages))
        .routes(routes!(close_session))
        .routes(routes!(fail_session))
        .routes(routes!(discard_session))
        .routes(routes!(draft_regression))
        .routes(routes!(list_sessions))
        .routes(routes!(campaign_ledger))
}

/// Creates a running session within the campaign's budget.
#[utoipa::path(post, path = "/api/exploration/sessions", request_body = CreateSession,
    responses((status = 200, body = ExplorationSession), (status = 400, body = ErrorResponse),
        (status = 404, body = ErrorResponse, description = "NOT_FOUND: the campaign, or seed_ref's persona or goal in its seed set"),
        (status = 409, body = ErrorResponse, description = "CAMPAIGN_NOT_RUNNING, AUTO_NOT_ALLOWED_ON_ACCELERATED_LINE, SESSION_BUDGET_EXHAUSTED, INTERVAL_NOT_ELAPSED (with next_allowed_at), CONFLICT (auto session on a campaign without seeds)"),
        (status = 422, body = ErrorResponse)))]
pub async fn create_session(
    State(st): State<AppState>,
    ApiJson(raw): ApiJson<serde_json::Value>,
) -> ApiResult<Json<ExplorationSession>> {
    // A campaign_id that is not a UUID names no campaign: 404, like an
    // unknown UUID, rather than a structural error.
    if let Some(serde_json::Value::String(id)) = raw.get("campaign_id") {
        parse_id::<CampaignId>("campaign", id)?;
    }
    let req: CreateSession = decode(&raw)?;
    Ok(Json(st.platform.create_session(req).await?))
}

#[utoipa::path(get, path = "/api/exploration/sessions/{id}", params(("id" = String, Path)),
    responses((status = 200, body = ExplorationSession), (status = 404, body = ErrorResponse)))]
pub async fn get_session(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<ExplorationSession>> {
    Ok(Json(
        st.platform.get_session(parse_id("session", &id)?).await?,
    ))
}

/// Sends the virtual user's message to the target; returns its reply.
#[utoipa::path(post, path = "/api/exploration/sessions/{id}/messages", params(("id" = String, Path)),
    request_body = SendMessage,
    responses((status = 200, body = MessageReply), (status = 400, body = ErrorResponse),
        (status = 404, body = ErrorResponse),
        (status = 409, body = ErrorResponse, description = "TURN_LIMIT_REACHED, SESSION_NOT_RUNNING"),
        (status = 502, body = ErrorResponse, description = "TARGET_UNAVAILABLE: the session has failed")))]
pub async fn send_message(
    State(st): State<AppState>,
    Path(id): Path<String>,
    ApiJson(req): ApiJson<SendMessage>,
) -> ApiResult<Json<MessageReply>> {
    Ok(Json(
        st.platform
            .send_message(parse_id("session", &id)?, req)
            .await?,
    ))
}

/// The session with its whole conversation.
#[utoipa::path(get, path = "/api/exploration/sessions/{id}/messages", params(("id" = String, Path)),
    responses((status = 200, body = SessionTranscript), (status = 404, body = ErrorResponse)))]
pub async fn session_messages(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<SessionTranscript>> {
    Ok(Json(
        st.platform
            .session_messages(parse_id("session", &id)?)
            .await?,
    ))
}

/// Closes the session with its experience record; queues the judge review.
#[utoipa::path(post, path = "/api/exploration/sessions/{id}/close", params(("id" = String, Path)),
    request_body = CloseSession,
    responses((status = 200, body = ExplorationSession), (status = 404, body = ErrorResponse),
        (status = 409, body = ErrorResponse, description = "SESSION_NOT_RUNNING"),
        (status = 422, body = ErrorResponse)))]
pub async fn close_session(
    State(st): State<AppState>,
    Path(id): Path<String>,
    ApiJson(req): ApiJson<CloseSession>,
) -> ApiResult<Json<ExplorationSession>> {
    Ok(Json(
        st.platform
            .close_session(parse_id("session", &id)?, req)
            .await?,
    ))
}

/// Discards a running session: it ends as `abandoned`, without a record,
/// counted apart, its slot of the session budget given back. A session
/// left open longer than its lease (30 minutes without a user turn) ends
/// so by itself.
#[utoipa::path(post, path = "/api/exploration/sessions/{id}/discard", params(("id" = String, Path)),
    responses((status = 200, body = ExplorationSession), (status = 404, body = ErrorResponse),
        (status = 409, body = ErrorResponse, description = "SESSION_NOT_RUNNING")))]
pub async fn discard_session(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<ExplorationSession>> {
    Ok(Json(
        st.platform
            .discard_session(parse_id("session", &id)?)
            .await?,
    ))
}

/// Where in a session to draft a regression scenario, and into which pack.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RegressionQuery {
    /// The user turn (1-based) to guard: the judge's poorest finding there,
    /// else the turn as the caller flags it (its reply must not recur);
    /// default: the session's poorest judge finding.
    #[param(minimum = 1)]
    pub turn: Option<u32>,
    /// The pack it is meant for (default `regressions`).
    pub pack: Option<String>,
}

/// Drafts a regression scenario from the session's judge finding (at
/// `turn`, else its poorest; a turn without one is flagged by the caller): the user's turns up to it, the check that
/// guards against it and its lineage, as a pack file to review and save
/// (`POST /api/scenarios/files`). Nothing is written.
#[utoipa::path(get, path = "/api/exploration/sessions/{id}/regression", params(("id" = String, Path), RegressionQuery),
    responses((status = 200, body = RegressionDraft),
        (status = 400, body = ErrorResponse, description = "INVALID_INPUT: a query that cannot be read"),
        (status = 404, body = ErrorResponse),
        (status = 409, body = ErrorResponse, description = "CONFLICT: no turn asked and no judge finding at a turn, or a turn past the session's end")))]
pub async fn draft_regression(
    State(st): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<RegressionQuery>, QueryRejection>,
) -> ApiResult<Json<RegressionDraft>> {
    let id = parse_id("session", &id)?;
    let q = crate::error::query(query, msg!("error-query-regression-suggestion"))?;
    Ok(Json(
        st.platform
            .draft_regression(id, q.turn, q.pack, crate::reader_lang())
            .await?,
    ))
}

/// Ends the session as failed (the virtual user could not carry on).
#[utoipa::path(post, path = "/api/exploration/sessions/{id}/fail", params(("id" = String, Path)),
    request_body = FailSession,
    responses((status = 200, body = ExplorationSession), (status = 404, body = ErrorResponse),
        (status = 409, body = ErrorResponse, description = "SESSION_NOT_RUNNING")))]
pub async fn fail_session(
    State(st): State<AppState>,
    Path(id): Path<String>,
    ApiJson(req): ApiJson<FailSession>,
) -> ApiResult<Json<ExplorationSession>> {
    Ok(Json(
        st.platform
            .fail_session(
                parse_id("session", &id)?,
                req.reason,
                req.end_reason.unwrap_or(EndReason::SimulatorError),
            )
            .await?,
    ))
}

#[utoipa::path(get, path = "/api/exploration/campaigns/{id}/sessions", params(("id" = String, Path)),
    responses((status = 200, body = [ExplorationSession]), (status = 404, body = ErrorResponse)))]
pub async fn list_sessions(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Vec<ExplorationSession>>> {
    Ok(Json(
        st.platform
            .list_sessions(parse_id("campaign", &id)?)
            .await?,
    ))
}

/// Every budget decision of the campaign, oldest first.
#[utoipa::path(get, path = "/api/exploration/campaigns/{id}/ledger", params(("id" = String, Path)),
    responses((status = 200, body = [LedgerEntry]), (status = 404, body = ErrorResponse)))]
pub async fn campaign_ledger(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Vec<LedgerEntry>>> {
    Ok(Json(st.platform.ledger(parse_id("campaign", &id)?).await?))
}
