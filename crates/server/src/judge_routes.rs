//! Handlers of the judge's calibration: the blind review queue (judged
//! sessions, and fixed runs with rubric checks), blind labels, and
//! calibration per criterion.

use crate::AppState;
use crate::error::{ApiJson, ApiResult, ErrorResponse, parse_id};
use agenteval_engine::calibration::{
    BlindQueue, BlindRunQueue, JudgeCalibration, LabelRevealed, RunLabelRevealed, SubmitLabel,
    SubmitRunLabel,
};
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// This module's routes, one `routes!` per path (method and path are the
/// handlers' `#[utoipa::path]`).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(blind_queue))
        .routes(routes!(submit_label))
        .routes(routes!(blind_run_queue))
        .routes(routes!(submit_run_label))
        .routes(routes!(judge_calibration))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct QueueQuery {
    /// Items to return, 1-50 (default 10).
    #[param(minimum = 1, maximum = 50)]
    pub limit: Option<u32>,
}

/// The next judged sessions nobody labelled: conversations only, never
/// the judge's scores (labels are given blind).
#[utoipa::path(get, path = "/api/campaigns/{id}/blind-queue", params(("id" = String, Path), QueueQuery),
    responses((status = 200, body = BlindQueue), (status = 400, body = ErrorResponse), (status = 404, body = ErrorResponse)))]
pub async fn blind_queue(
    State(st): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<QueueQuery>, QueryRejection>,
) -> ApiResult<Json<BlindQueue>> {
    let q = queue_query(query)?;
    Ok(Json(
        st.platform
            .blind_queue(parse_id("campaign", &id)?, q.limit)
            .await?,
    ))
}

/// The queue's `?limit=`, or the app's error shape for a malformed one.
fn queue_query(query: Result<Query<QueueQuery>, QueryRejection>) -> ApiResult<QueueQuery> {
    crate::error::query(
        query,
        agenteval_engine::msg!("error-query-limit-suggestion"),
    )
}

/// The next fixed runs whose rubric checks the judge scored and nobody
/// labelled: conversations and rubric texts only, never the judge's scores.
#[utoipa::path(get, path = "/api/campaigns/{id}/blind-run-queue", params(("id" = String, Path), QueueQuery),
    responses((status = 200, body = BlindRunQueue), (status = 400, body = ErrorResponse), (status = 404, body = ErrorResponse)))]
pub async fn blind_run_queue(
    State(st): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<QueueQuery>, QueryRejection>,
) -> ApiResult<Json<BlindRunQueue>> {
    let q = queue_query(query)?;
    Ok(Json(
        st.platform
            .blind_run_queue(parse_id("campaign", &id)?, q.limit)
            .await?,
    ))
}

/// A person's blind label of a run's rubric checks (1-5 each); answers
/// with the judge's scores, to compare.
#[utoipa::path(post, path = "/api/judge-run-labels", request_body = SubmitRunLabel,
    responses((status = 200, body = RunLabelRevealed), (status = 400, body = ErrorResponse),
        (status = 404, body = ErrorResponse),
        (status = 409, body = ErrorResponse, description = "CONFLICT: already labelled, the run has no judged rubric check, or the scores do not name its checks")))]
pub async fn submit_run_label(
    State(st): State<AppState>,
    ApiJson(req): ApiJson<SubmitRunLabel>,
) -> ApiResult<Json<RunLabelRevealed>> {
    Ok(Json(st.platform.submit_run_label(req).await?))
}

/// A person's blind label of a judged session (1-5 per criterion);
/// answers with the judge's scores, to compare.
#[utoipa::path(post, path = "/api/judge-labels", request_body = SubmitLabel,
    responses((status = 200, body = LabelRevealed), (status = 400, body = ErrorResponse),
        (status = 404, body = ErrorResponse),
        (status = 409, body = ErrorResponse, description = "CONFLICT: already labelled, or the session has no judge scores")))]
pub async fn submit_label(
    State(st): State<AppState>,
    ApiJson(req): ApiJson<SubmitLabel>,
) -> ApiResult<Json<LabelRevealed>> {
    Ok(Json(st.platform.submit_label(req).await?))
}

/// Judge-human agreement per criterion (n, agreement, linearly weighted
/// kappa with its 95% bootstrap interval, calibrated or advisory), and the
/// judge's self-agreement when sessions were reviewed twice.
#[utoipa::path(get, path = "/api/campaigns/{id}/judge-calibration", params(("id" = String, Path)),
    responses((status = 200, body = JudgeCalibration), (status = 404, body = ErrorResponse)))]
pub async fn judge_calibration(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<JudgeCalibration>> {
    Ok(Json(
        st.platform
            .judge_calibration(parse_id("campaign", &id)?)
            .await?,
    ))
}
