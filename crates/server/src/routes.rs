//! Handlers: each one parses its input and calls one engine operation.

use crate::AppState;
use crate::error::{ApiError, ApiJson, ApiResult, ErrorResponse, decode, parse_id};
use agenteval_engine::analysis::Analysis;
use agenteval_engine::campaign::{Campaign, CreateCampaign, NextPeriod, NextPeriodPlan};
use agenteval_engine::domain::ids::CampaignId;
use agenteval_engine::exploration::PatrolReport;
use agenteval_engine::report::CampaignReport;
use agenteval_engine::runtime::PatrolStatus;
use agenteval_engine::scenario::ScenarioSummary;
use agenteval_engine::target::{Target, TargetRemoval, TargetSettings};
use agenteval_engine::{Error, msg};
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// This module's routes behind a key, one `routes!` per path: each
/// handler's `#[utoipa::path]` gives its method and path to the router and
/// to the OpenAPI document alike.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(openapi))
        .routes(routes!(create_target, list_targets))
        .routes(routes!(get_target, update_target, delete_target))
        .routes(routes!(test_target))
        .routes(routes!(list_scenarios))
        .routes(routes!(save_scenario_file))
        .routes(routes!(create_campaign, list_campaigns))
        .routes(routes!(campaign_summaries))
        .routes(routes!(get_campaign))
        .routes(routes!(finalize_campaign))
        .routes(routes!(next_period, next_period_plan))
        .routes(routes!(campaign_report))
        .routes(routes!(compare_campaigns))
        .routes(routes!(export_campaign))
        .routes(routes!(campaign_analysis))
        .routes(routes!(add_review, list_reviews))
        .routes(routes!(search_sessions))
        .routes(routes!(explore))
        .routes(routes!(patrol))
        .routes(routes!(patrol_agent_status))
        .routes(routes!(pause_patrol_agent))
        .routes(routes!(resume_patrol_agent))
        .routes(routes!(events))
        .routes(routes!(role_models))
}

/// The one route that needs no key.
pub fn public_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(health))
}

#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Health {
    /// `ok`, or `degraded` when a dependency is down or read-only.
    pub status: String,
    /// `ok`; `unavailable` when the database cannot be reached;
    /// `read_only` when it was opened for reading only (a read-only data
    /// folder: reads answer, writes are refused).
    pub database: String,
    pub version: String,
    /// The git revision the server was built from (`unknown` outside git).
    pub revision: String,
    /// The day it was built (UTC), `YYYY-MM-DD`.
    pub built: String,
}

/// Liveness and what the server depends on; the only route that needs no
/// key. 503 when the database cannot be reached (`database: unavailable`,
/// with `Retry-After`).
#[utoipa::path(get, path = "/api/health", security(()),
    responses((status = 200, body = Health), (status = 503, body = Health)))]
pub async fn health(State(st): State<AppState>) -> axum::response::Response {
    use axum::response::IntoResponse;
    let up = st.platform.check_database().await.map_err(|e| {
        tracing::warn!(error = ?e.cause, "health: the database cannot be reached");
    });
    let read_only = st.platform.read_only();
    let (status, database) = match (&up, read_only) {
        (Err(_), _) => ("degraded", "unavailable"),
        (Ok(()), true) => ("degraded", "read_only"),
        (Ok(()), false) => ("ok", "ok"),
    };
    let health = Json(Health {
        status: status.into(),
        database: database.into(),
        version: agenteval_build_info::VERSION.into(),
        revision: agenteval_build_info::REVISION.into(),
        built: agenteval_build_info::BUILT.into(),
    });
    if up.is_ok() {
        return health.into_response();
    }
    let retry = crate::error::DATABASE_RETRY_AFTER_SECS.to_string();
    let status = axum::http::StatusCode::SERVICE_UNAVAILABLE;
    (status, [(axum::http::header::RETRY_AFTER, retry)], health).into_response()
}

#[utoipa::path(get, path = "/api/openapi.json", responses((status = 200, description = "this document")))]
pub async fn openapi() -> Json<serde_json::Value> {
    Json(crate::openapi::document())
}

#[utoipa::path(post, path = "/api/targets", request_body = TargetSettings,
    responses((status = 200, body = Target), (status = 400, body = ErrorResponse), (status = 422, body = ErrorResponse)))]
pub async fn create_target(
    State(st): State<AppState>,
    ApiJson(req): ApiJson<TargetSettings>,
) -> ApiResult<Json<Target>> {
    Ok(Json(st.platform.create_target(req).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TargetListQuery {
    /// `true` to list archived targets too (default `false`).
    pub include_archived: Option<bool>,
}

/// The targets in use; archived ones only with `include_archived=true`.
#[utoipa::path(get, path = "/api/targets", params(TargetListQuery),
    responses((status = 200, body = [Target]), (status = 400, body = ErrorResponse)))]
pub async fn list_targets(
    State(st): State<AppState>,
    query: Result<Query<TargetListQuery>, QueryRejection>,
) -> ApiResult<Json<Vec<Target>>> {
    let q = crate::error::query(query, msg!("error-query-archived-suggestion"))?;
    Ok(Json(
        st.platform
            .list_targets_with(q.include_archived.unwrap_or(false))
            .await?,
    ))
}

/// Replaces a target's settings (the API key stays unless a new one is
/// given).
#[utoipa::path(put, path = "/api/targets/{id}", params(("id" = String, Path)), request_body = TargetSettings,
    responses((status = 200, body = Target), (status = 400, body = ErrorResponse),
        (status = 404, body = ErrorResponse), (status = 422, body = ErrorResponse)))]
pub async fn update_target(
    State(st): State<AppState>,
    Path(id): Path<String>,
    ApiJson(req): ApiJson<TargetSettings>,
) -> ApiResult<Json<Target>> {
    let id = parse_id("target", &id)?;
    Ok(Json(st.platform.update_target(id, req).await?))
}

/// Removes a target: `deleted` when no campaign uses it, else `archived`
/// (kept for their reports, left out of the list).
#[utoipa::path(delete, path = "/api/targets/{id}", params(("id" = String, Path)),
    responses((status = 200, body = TargetRemoval), (status = 404, body = ErrorResponse)))]
pub async fn delete_target(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<TargetRemoval>> {
    let id = parse_id("target", &id)?;
    Ok(Json(st.platform.delete_target(id).await?))
}

#[utoipa::path(get, path = "/api/targets/{id}", params(("id" = String, Path)),
    responses((status = 200, body = Target), (status = 404, body = ErrorResponse)))]
pub async fn get_target(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Target>> {
    Ok(Json(
        st.platform.get_target(parse_id("target", &id)?).await?,
    ))
}

/// Saves a pack file among the user's packs (`<data-dir>/scenarios/<pack>/`)
/// once it loads, and loads it: e.g. a reviewed regression scenario.
#[utoipa::path(post, path = "/api/scenarios/files",
    request_body = agenteval_engine::scenario::regression::SaveScenarioFile,
    responses((status = 200, body = [ScenarioSummary]),
        (status = 400, body = ErrorResponse, description = "INVALID_INPUT: a pack or file name that cannot be saved, or a file that does not load (each error by line)"),
        (status = 409, body = ErrorResponse, description = "CONFLICT: a scenario id another file uses"),
        (status = 422, body = ErrorResponse)))]
pub async fn save_scenario_file(
    State(st): State<AppState>,
    ApiJson(req): ApiJson<agenteval_engine::scenario::regression::SaveScenarioFile>,
) -> ApiResult<Json<Vec<ScenarioSummary>>> {
    Ok(Json(st.platform.save_scenario_file(req).await?))
}

#[utoipa::path(get, path = "/api/scenarios", responses((status = 200, body = [ScenarioSummary])))]
pub async fn list_scenarios(State(st): State<AppState>) -> Json<Vec<ScenarioSummary>> {
    Json(st.platform.list_scenarios())
}

#[utoipa::path(post, path = "/api/campaigns", request_body = CreateCampaign,
    responses((status = 200, body = Campaign), (status = 400, body = ErrorResponse),
        (status = 404, body = ErrorResponse, description = "NOT_FOUND: target_id, a scenario or previous_campaign_id names nothing"),
        (status = 409, body = ErrorResponse, description = "CONFLICT: the target is archived"),
        (status = 422, body = ErrorResponse)))]
pub async fn create_campaign(
    State(st): State<AppState>,
    ApiJson(req): ApiJson<CreateCampaign>,
) -> ApiResult<Json<Campaign>> {
    Ok(Json(st.platform.create_campaign(req).await?))
}

#[utoipa::path(get, path = "/api/campaigns", responses((status = 200, body = [Campaign])))]
pub async fn list_campaigns(State(st): State<AppState>) -> ApiResult<Json<Vec<Campaign>>> {
    Ok(Json(st.platform.list_campaigns().await?))
}

/// Every campaign's headline figures for the campaign list (runs planned,
/// finished and in error, pass rate, goal achievement), from the tallies:
/// a few rows per campaign, never a report.
#[utoipa::path(get, path = "/api/campaign-summaries",
    responses((status = 200, body = [agenteval_engine::summary::CampaignSummary])))]
pub async fn campaign_summaries(
    State(st): State<AppState>,
) -> ApiResult<Json<Vec<agenteval_engine::summary::CampaignSummary>>> {
    Ok(Json(st.platform.campaign_summaries().await?))
}

#[utoipa::path(get, path = "/api/campaigns/{id}", params(("id" = String, Path)),
    responses((status = 200, body = Campaign), (status = 404, body = ErrorResponse)))]
pub async fn get_campaign(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Campaign>> {
    Ok(Json(
        st.platform.get_campaign(parse_id("campaign", &id)?).await?,
    ))
}

/// Ends the window now; running sessions expire. Idempotent.
#[utoipa::path(post, path = "/api/campaigns/{id}/finalize", params(("id" = String, Path)),
    responses((status = 200, body = Campaign), (status = 404, body = ErrorResponse)))]
pub async fn finalize_campaign(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Campaign>> {
    Ok(Json(
        st.platform
            .finalize_campaign(parse_id("campaign", &id)?)
            .await?,
    ))
}

/// The report; `exploration` is present only when the campaign has
/// exploration sessions.
#[utoipa::path(get, path = "/api/campaigns/{id}/report", params(("id" = String, Path)),
    responses((status = 200, body = CampaignReport), (status = 404, body = ErrorResponse)))]
pub async fn campaign_report(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<CampaignReport>> {
    Ok(Json(
        st.platform
            .campaign_report(parse_id("campaign", &id)?)
            .await?,
    ))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// `md` (default), `json`, `csv` (fixed runs), `sessions_csv` (exploration
    /// sessions) or `junit` (fixed runs as JUnit XML). The server also takes
    /// the aliases `markdown`, `runs_csv` and `xml`, in any case.
    #[param(value_type = Option<agenteval_engine::export::ExportFormat>, inline)]
    pub format: Option<String>,
}

/// The export as text, regenerated from stored data.
#[utoipa::path(get, path = "/api/campaigns/{id}/export", params(("id" = String, Path), ExportQuery),
    responses((status = 200, description = "the export (text/markdown, application/json, text/csv or application/xml)"),
        (status = 400, body = ErrorResponse), (status = 404, body = ErrorResponse)))]
pub async fn export_campaign(
    State(st): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<ExportQuery>, QueryRejection>,
) -> ApiResult<Response> {
    use agenteval_engine::export::ExportFormat;
    let id = parse_id("campaign", &id)?;
    let q = crate::error::query(query, msg!("error-query-format-suggestion"))?;
    let requested = q.format.unwrap_or_else(|| "md".into());
    let format = ExportFormat::parse(&requested).ok_or_else(|| {
        ApiError(Error::invalid_msg(
            msg!("error-export-format", format = requested.as_str()),
            msg!("error-export-format-suggestion"),
        ))
    })?;
    let chunks = st
        .platform
        .export_chunks(id, format, crate::reader_lang())
        .await?;
    // The runs' exports stream a page of runs at a time; a failure after
    // the first bytes can only cut the body short, and is logged.
    let body = axum::body::Body::from_stream(futures::StreamExt::map(chunks, |chunk| {
        chunk.map_err(|e| {
            tracing::error!(error = ?e.cause, "export: {}", e.body.message);
            std::io::Error::other(e.body.message)
        })
    }));
    Ok(([(header::CONTENT_TYPE, format.content_type())], body).into_response())
}

/// The campaign to compare with: another campaign of the same target.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CompareQuery {
    /// The baseline campaign's id.
    #[param(value_type = String, format = Uuid)]
    pub with: String,
}

/// This campaign beside another of the same target (the baseline): pass
/// rates with their intervals, pass^k, exploration figures, the change with
/// its interval and verdict, and each scenario fixed, broken or the same.
#[utoipa::path(get, path = "/api/campaigns/{id}/compare", params(("id" = String, Path), CompareQuery),
    responses((status = 200, body = agenteval_engine::side_by_side::SideBySide),
        (status = 400, body = ErrorResponse, description = "INVALID_INPUT: the same campaign twice, campaigns of different targets, or an id that is not a UUID"),
        (status = 404, body = ErrorResponse, description = "NOT_FOUND: either campaign")))]
pub async fn compare_campaigns(
    State(st): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<CompareQuery>, QueryRejection>,
) -> ApiResult<Json<agenteval_engine::side_by_side::SideBySide>> {
    let id = parse_id("campaign", &id)?;
    let q = crate::error::query(query, msg!("error-query-compare-suggestion"))?;
    let baseline = parse_id("campaign", &q.with)?;
    Ok(Json(st.platform.compare_campaigns(id, baseline).await?))
}

/// (Re)generates the analysis. Without a configured analyst model the
/// analysis is the template one, labelled `offline`.
#[utoipa::path(post, path = "/api/campaigns/{id}/analysis", params(("id" = String, Path)),
    responses((status = 200, body = Analysis), (status = 404, body = ErrorResponse)))]
pub async fn campaign_analysis(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<Analysis>> {
    let id = parse_id("campaign", &id)?;
    let lang = crate::reader_lang();
    Ok(Json(
        st.platform.generate_configured_analysis(id, lang).await?,
    ))
}

/// Running formal campaigns with what changed since the previous patrol;
/// records this patrol's time.
#[utoipa::path(get, path = "/api/exploration/patrol", responses((status = 200, body = PatrolReport)))]
pub async fn patrol(State(st): State<AppState>) -> ApiResult<Json<PatrolReport>> {
    Ok(Json(st.platform.patrol().await?))
}

/// The resident patrol agent: paused or not, cadence, last and next
/// wake-up (`running: false` when this server runs none).
#[utoipa::path(get, path = "/api/patrol-agent", responses((status = 200, body = PatrolStatus)))]
pub async fn patrol_agent_status(State(st): State<AppState>) -> Json<PatrolStatus> {
    Json(st.patrol.status())
}

/// Pauses the patrol agent (idempotent): exploration stops after the
/// wake-up under way; fixed plans are not affected.
#[utoipa::path(post, path = "/api/patrol-agent/pause",
    responses((status = 200, body = PatrolStatus),
        (status = 409, body = ErrorResponse, description = "CONFLICT: no patrol agent runs in this server")))]
pub async fn pause_patrol_agent(State(st): State<AppState>) -> ApiResult<Json<PatrolStatus>> {
    Ok(Json(st.patrol.pause()?))
}

/// Resumes the patrol agent and wakes it at once (idempotent).
#[utoipa::path(post, path = "/api/patrol-agent/resume",
    responses((status = 200, body = PatrolStatus),
        (status = 409, body = ErrorResponse, description = "CONFLICT: no patrol agent runs in this server")))]
pub async fn resume_patrol_agent(State(st): State<AppState>) -> ApiResult<Json<PatrolStatus>> {
    Ok(Json(st.patrol.resume()?))
}

/// Connection test: one short message through the target's channel. A
/// target that does not answer is reported in the body (`ok: false`).
#[utoipa::path(post, path = "/api/targets/{id}/test", params(("id" = String, Path)),
    responses((status = 200, body = agenteval_engine::target_probe::TargetProbe), (status = 404, body = ErrorResponse)))]
pub async fn test_target(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<agenteval_engine::target_probe::TargetProbe>> {
    let probe = st.platform.test_target(parse_id("target", &id)?).await?;
    Ok(Json(probe.in_lang(crate::reader_lang())))
}

/// A reviewer's 1-5 rating of a run or a session.
#[utoipa::path(post, path = "/api/reviews", request_body = agenteval_engine::review::CreateReview,
    responses((status = 200, body = agenteval_engine::review::HumanReview), (status = 400, body = ErrorResponse), (status = 404, body = ErrorResponse)))]
pub async fn add_review(
    State(st): State<AppState>,
    ApiJson(req): ApiJson<agenteval_engine::review::CreateReview>,
) -> ApiResult<Json<agenteval_engine::review::HumanReview>> {
    Ok(Json(st.platform.add_review(req).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReviewListQuery {
    /// The run or session whose ratings to list.
    #[param(format = Uuid)]
    pub subject_id: String,
}

/// The ratings of one run or session, newest first (empty when nobody
/// rated it).
#[utoipa::path(get, path = "/api/reviews", params(ReviewListQuery),
    responses((status = 200, body = Vec<agenteval_engine::review::HumanReview>),
        (status = 400, body = ErrorResponse, description = "INVALID_INPUT: subject_id is missing or not an id")))]
pub async fn list_reviews(
    State(st): State<AppState>,
    query: Result<Query<ReviewListQuery>, QueryRejection>,
) -> ApiResult<Json<Vec<agenteval_engine::review::HumanReview>>> {
    let q = crate::error::query(query, msg!("error-query-subject-suggestion"))?;
    let id = uuid::Uuid::parse_str(&q.subject_id).map_err(|_| {
        ApiError(Error::invalid(
            format!("subject_id {:?} is not a run or session id", q.subject_id),
            "Use the id of a run or an exploration session.",
        ))
    })?;
    Ok(Json(st.platform.reviews(id).await?))
}

/// What the following period would run, before it is started: its window,
/// its runs and the regression scenarios it adds.
#[utoipa::path(get, path = "/api/campaigns/{id}/next-period", params(("id" = String, Path)),
    responses((status = 200, body = NextPeriodPlan),
        (status = 400, body = ErrorResponse, description = "INVALID_INPUT: the campaign cannot be repeated as it is"),
        (status = 404, body = ErrorResponse, description = "NOT_FOUND: the campaign is not there")))]
pub async fn next_period_plan(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<NextPeriodPlan>> {
    let id = parse_id("campaign", &id)?;
    Ok(Json(st.platform.next_period_plan(id).await?))
}

/// Creates the following period: same target, plan, seeds and budget, the
/// next window of the same length. The body is optional: without a name
/// the period is named after this one in the reader's language.
#[utoipa::path(post, path = "/api/campaigns/{id}/next-period", params(("id" = String, Path)),
    request_body(content = Option<NextPeriod>, description = "optional"),
    responses((status = 200, body = Campaign),
        (status = 400, body = ErrorResponse, description = "INVALID_INPUT: the campaign cannot be repeated as it is, or the name is empty"),
        (status = 404, body = ErrorResponse, description = "NOT_FOUND: the campaign, or a scenario of its plan, is not there"),
        (status = 409, body = ErrorResponse, description = "CONFLICT: its target is archived"),
        (status = 422, body = ErrorResponse, description = "UNPROCESSABLE: the body is not a NextPeriod")))]
pub async fn next_period(
    State(st): State<AppState>,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Campaign>> {
    let id = parse_id("campaign", &id)?;
    // No body, or `null`, asks for the defaults.
    let req: Option<NextPeriod> = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        crate::error::decode_bytes(&body)?
    };
    let req = req.unwrap_or_default();
    Ok(Json(
        st.platform
            .next_period(id, req, crate::reader_lang())
            .await?,
    ))
}

/// Lets the virtual user (the configured model, else the built-in persona
/// engine) explore persona x goal cells, or every cell without a session:
/// the sessions are created at once, then played and judged in the
/// background.
#[utoipa::path(post, path = "/api/exploration/explore",
    request_body = agenteval_engine::exploration::ExploreRequest,
    responses((status = 200, body = agenteval_engine::exploration::ExploreStarted,
            description = "the sessions started; `refused` says why the remaining cells were not"),
        (status = 400, body = ErrorResponse, description = "INVALID_INPUT: more cells than one request takes"),
        (status = 404, body = ErrorResponse, description = "NOT_FOUND: the campaign, or a cell's persona or goal not in its seed set"),
        (status = 409, body = ErrorResponse, description = "the first cell was refused (CAMPAIGN_NOT_RUNNING, AUTO_NOT_ALLOWED_ON_ACCELERATED_LINE, SESSION_BUDGET_EXHAUSTED, INTERVAL_NOT_ELAPSED with next_allowed_at), or CONFLICT: no uncovered cell left"),
        (status = 422, body = ErrorResponse)))]
pub async fn explore(
    State(st): State<AppState>,
    ApiJson(raw): ApiJson<serde_json::Value>,
) -> ApiResult<Json<agenteval_engine::exploration::ExploreStarted>> {
    // As for sessions: a campaign_id that is not a UUID names nothing.
    if let Some(serde_json::Value::String(id)) = raw.get("campaign_id") {
        parse_id::<CampaignId>("campaign", id)?;
    }
    let req: agenteval_engine::exploration::ExploreRequest = decode(&raw)?;
    Ok(Json(st.platform.explore(req).await?))
}

/// Live events as Server-Sent Events: each `data:` is the JSON of one
/// platform event (`{kind, campaign_id, ...}`: `campaign_changed`,
/// `run_finished`, `session_changed`), with a keep-alive comment every 15 s.
/// A client that falls behind gets a `lagged` event and should reload what
/// it shows.
#[utoipa::path(get, path = "/api/events",
    responses((status = 200, content_type = "text/event-stream",
        description = "a stream that does not end: `data: {\"kind\": \"session_changed\", \"campaign_id\": ..., \"session_id\": ...}` per change")))]
pub async fn events(
    State(st): State<AppState>,
) -> axum::response::sse::Sse<
    impl futures::Stream<Item = Result<axum::response::sse::Event, std::convert::Infallible>>,
> {
    use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
    use tokio::sync::broadcast::error::RecvError;
    let stream = futures::stream::unfold(st.platform.subscribe(), |mut rx| async move {
        let event = match rx.recv().await {
            Ok(event) => match serde_json::to_string(&event) {
                Ok(json) => SseEvent::default().data(json),
                Err(e) => {
                    tracing::error!(error = %e, "could not encode an event");
                    SseEvent::default().comment("an event could not be encoded")
                }
            },
            Err(RecvError::Lagged(missed)) => SseEvent::default()
                .event("lagged")
                .data(format!("{{\"kind\":\"lagged\",\"missed\":{missed}}}")),
            Err(RecvError::Closed) => return None,
        };
        Some((Ok(event), rx))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(std::time::Duration::from_secs(15)))
}

/// Query parameters as name/value pairs; a query string that cannot be
/// decoded is 400 in the error shape. A blank filter counts as absent; a
/// blank `offset` or `limit` is not a number (400).
pub(crate) fn query_pairs(
    query: Result<Query<Vec<(String, String)>>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Vec<(String, String)>> {
    let pairs = crate::error::query(query, msg!("error-query-pairs-suggestion"))?;
    let mut given = Vec::with_capacity(pairs.len());
    for (name, value) in pairs {
        if !value.trim().is_empty() {
            given.push((name, value));
        } else if matches!(name.as_str(), "offset" | "limit") {
            page_number(&name, &value)?;
        }
    }
    Ok(given)
}

pub(crate) fn page_number(name: &str, value: &str) -> ApiResult<u32> {
    value.trim().parse().map_err(|_| {
        ApiError(Error::invalid(
            format!("{name} {value:?} is not a whole number from 0 to 4294967295"),
            format!("Send {name} as a number, e.g. {name}=100."),
        ))
    })
}

/// The sessions search's parameters, for the OpenAPI document.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SessionSearchParams {
    /// `running`, `completed`, `failed` or `expired`; blank for any (as is
    /// every blank parameter).
    #[param(pattern = "^(running|completed|failed|expired)?$")]
    pub status: Option<String>,
    /// Sessions seeded from this persona.
    pub persona_id: Option<String>,
    /// Sessions seeded from this goal.
    pub goal_id: Option<String>,
    /// Session ids, comma separated (at most 500).
    #[param(
        pattern = "^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(,[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}){0,499})?$"
    )]
    pub ids: Option<String>,
    /// Rows to skip (default 0).
    #[param(value_type = Option<u64>, maximum = 4294967295_u64)]
    pub offset: Option<u32>,
    /// Rows per page, 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
}

/// A page of the campaign's sessions in start order, filtered, with the
/// number of sessions that match.
#[utoipa::path(get, path = "/api/exploration/campaigns/{id}/sessions/search",
    params(("id" = String, Path), SessionSearchParams),
    responses((status = 200, body = agenteval_engine::paging::SessionPage),
        (status = 400, body = ErrorResponse, description = "INVALID_INPUT: an unknown status, an id that is not one, a limit outside 1..=500"),
        (status = 404, body = ErrorResponse)))]
pub async fn search_sessions(
    State(st): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<Vec<(String, String)>>, axum::extract::rejection::QueryRejection>,
) -> ApiResult<Json<agenteval_engine::paging::SessionPage>> {
    use agenteval_engine::exploration::SessionStatus;
    let id = parse_id("campaign", &id)?;
    let mut q = agenteval_engine::paging::SessionQuery::default();
    for (name, value) in query_pairs(query)? {
        match name.as_str() {
            "status" => {
                let status = SessionStatus::ALL
                    .into_iter()
                    .find(|s| s.as_str() == value.trim())
                    .ok_or_else(|| {
                        ApiError(Error::invalid(
                            format!(
                                "status {value:?} is not one of running, completed, failed, expired"
                            ),
                            "Filter by running, completed, failed or expired, or leave status out.",
                        ))
                    })?;
                q.status = Some(status);
            }
            "persona_id" => q.persona_id = Some(value),
            "goal_id" => q.goal_id = Some(value),
            "ids" => {
                let ids = value
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| {
                        s.parse::<agenteval_engine::SessionId>().map_err(|_| {
                            ApiError(Error::invalid(
                                format!("ids: {s:?} is not a session id"),
                                "Send session ids (UUIDs) separated by commas.",
                            ))
                        })
                    })
                    .collect::<ApiResult<Vec<_>>>()?;
                q.ids = Some(ids);
            }
            "offset" => q.offset = Some(page_number("offset", &value)?),
            "limit" => q.limit = Some(page_number("limit", &value)?),
            _ => {}
        }
    }
    Ok(Json(st.platform.search_sessions(id, q).await?))
}

/// Which model plays the virtual user, the judge and the analyst, or the
/// offline fallback that plays a role without one. Never a key.
#[utoipa::path(get, path = "/api/role-models",
    responses((status = 200, body = agenteval_engine::role_models::RoleModelsView)))]
pub async fn role_models(
    State(st): State<AppState>,
) -> Json<agenteval_engine::role_models::RoleModelsView> {
    Json(st.platform.role_models_view())
}
