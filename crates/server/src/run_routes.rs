//! Handlers of a campaign's fixed-scenario runs: the whole list, a page of
//! them filtered, and one run with its turns.

use crate::AppState;
use crate::error::{ApiResult, ErrorResponse, parse_id};
use crate::routes::{page_number, query_pairs};
use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// This module's routes, one `routes!` per path (method and path are the
/// handlers' `#[utoipa::path]`).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_runs))
        .routes(routes!(search_runs))
        .routes(routes!(get_run))
        .routes(routes!(run_turns))
}

/// The campaign's fixed-scenario runs, in plan order (never exploration).
#[utoipa::path(get, path = "/api/campaigns/{id}/runs", params(("id" = String, Path)),
    responses((status = 200, body = Vec<agenteval_engine::fixed::Run>), (status = 404, body = ErrorResponse)))]
pub async fn list_runs(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Vec<agenteval_engine::fixed::Run>>> {
    let id = parse_id("campaign", &id)?;
    st.platform.get_campaign(id).await?;
    Ok(Json(st.platform.list_runs(id).await?))
}

/// One run with its turns (each with the steps of an agent that acts) and
/// its checks' results: a run opened by its link, on no page read.
#[utoipa::path(get, path = "/api/runs/{id}", params(("id" = String, Path)),
    responses((status = 200, body = agenteval_engine::fixed::RunWithTurns), (status = 404, body = ErrorResponse)))]
pub async fn get_run(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<agenteval_engine::fixed::RunWithTurns>> {
    Ok(Json(st.platform.get_run(parse_id("run", &id)?).await?))
}

/// One run's turns as they were persisted.
#[utoipa::path(get, path = "/api/runs/{id}/turns", params(("id" = String, Path)),
    responses((status = 200, body = Vec<agenteval_engine::fixed::RunTurn>), (status = 404, body = ErrorResponse)))]
pub async fn run_turns(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Vec<agenteval_engine::fixed::RunTurn>>> {
    Ok(Json(st.platform.run_turns(parse_id("run", &id)?).await?))
}

/// The runs search's parameters, for the OpenAPI document.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RunSearchParams {
    /// `passed`, `failed`, `error`, `skipped` or `pending`; blank for any
    /// (as is every blank parameter).
    #[param(pattern = "^(passed|failed|error|skipped|pending)?$")]
    pub verdict: Option<String>,
    pub scenario_id: Option<String>,
    /// Runs of the scenarios with this tag.
    pub tag: Option<String>,
    /// Rows to skip (default 0).
    #[param(value_type = Option<u64>, maximum = 4294967295_u64)]
    pub offset: Option<u32>,
    /// Rows per page, 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
}

/// A page of the campaign's runs in plan order, filtered, with the number
/// of runs that match.
#[utoipa::path(get, path = "/api/campaigns/{id}/runs/search", params(("id" = String, Path), RunSearchParams),
    responses((status = 200, body = agenteval_engine::paging::RunPage),
        (status = 400, body = ErrorResponse, description = "INVALID_INPUT: an unknown verdict, a limit outside 1..=500, a number that is not one"),
        (status = 404, body = ErrorResponse)))]
pub async fn search_runs(
    State(st): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<Vec<(String, String)>>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<agenteval_engine::paging::RunPage>> {
    let id = parse_id("campaign", &id)?;
    let mut q = agenteval_engine::paging::RunQuery::default();
    for (name, value) in query_pairs(query)? {
        match name.as_str() {
            "verdict" => q.verdict = Some(value),
            "scenario_id" => q.scenario_id = Some(value),
            "tag" => q.tag = Some(value),
            "offset" => q.offset = Some(page_number("offset", &value)?),
            "limit" => q.limit = Some(page_number("limit", &value)?),
            _ => {}
        }
    }
    Ok(Json(st.platform.search_runs(id, q).await?))
}
