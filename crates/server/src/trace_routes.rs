//! Production traces: the OTLP/HTTP receiver (`POST /v1/traces`, protobuf
//! or JSON, as OpenTelemetry's exporters send them), an import of an
//! OTLP/JSON file, and the imported conversations: the list, one
//! conversation, a scenario drafted from it, seeds proposed from several.

use crate::AppState;
use crate::error::{ApiJson, ApiResult, ErrorResponse, parse_id};
use agenteval_engine::domain::traces::{ImportSummary, ImportedConversation, SeedProposal};
use agenteval_engine::msg;
use agenteval_engine::traces::{
    Encoding, ImportRequest, ImportedPage, ImportedQuery, TraceDraft, otlp,
};
use agenteval_engine::{Error, ErrorCode};
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequest, Path, Query, Request, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The largest trace body: an exporter's batch, or a day's file.
pub const TRACE_BODY_LIMIT: usize = 32 * 1024 * 1024;

/// This module's routes, one `routes!` per path; their bodies may be
/// larger than the API's others.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(receive_traces))
        .routes(routes!(import_traces))
        .routes(routes!(list_conversations))
        .routes(routes!(get_conversation))
        .routes(routes!(draft_from_conversation))
        .routes(routes!(propose_seeds))
        .layer(axum::extract::DefaultBodyLimit::max(TRACE_BODY_LIMIT))
}

/// A trace body, read whole: over [`TRACE_BODY_LIMIT`] (with a
/// Content-Length or chunked) it is 413 `PAYLOAD_TOO_LARGE` in the API's
/// error shape, and nothing of it is kept.
pub struct TraceBody(Bytes);

impl<S: Send + Sync> FromRequest<S> for TraceBody {
    type Rejection = crate::error::ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = crate::error::read_body(req, state, || {
            Error::msg(
                ErrorCode::PayloadTooLarge,
                msg!(
                    "error-trace-body-too-large",
                    limit = format!("{} MiB", TRACE_BODY_LIMIT >> 20)
                ),
                msg!("error-trace-body-too-large-suggestion"),
            )
        })
        .await?;
        Ok(Self(bytes))
    }
}

/// Where imported conversations go, and whether they are redacted.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImportParams {
    /// The target whose production these are.
    pub target_id: Option<uuid::Uuid>,
    /// Replace e-mail addresses, phone numbers and ids before anything is
    /// kept: `true` unless `false` is given (the receiver takes traffic
    /// nobody looks at first).
    pub redact: Option<bool>,
    /// The name the import is listed under (default: `otlp-http`, or
    /// `upload` for a file).
    pub source: Option<String>,
}

fn request(p: ImportParams, default_source: &str, encoding: Encoding) -> ImportRequest {
    ImportRequest::new(
        p.source.as_deref(),
        default_source,
        encoding,
        p.target_id.map(agenteval_engine::TargetId),
        p.redact,
    )
}

/// An OTLP `ExportTraceServiceResponse` (in the request's encoding): what
/// an import skipped, as a partial success.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OtlpResponse {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial_success: Option<OtlpPartialSuccess>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OtlpPartialSuccess {
    /// GenAI spans read and skipped; a line that could not be read at
    /// all is named in `errorMessage` only.
    pub rejected_spans: u64,
    pub error_message: String,
}

/// The OTLP/HTTP receiver: an OpenTelemetry exporter's traces
/// (`application/x-protobuf`, or `application/json`), their GenAI
/// conversations kept (redacted unless `redact=false`). Spans that cannot
/// be read or kept (of the wrong shape, without a trace id, with an
/// attribute over 1 MiB, without messages) are a partial success, each
/// named in `errorMessage`, the others kept; a body that is not an export
/// at all is 400, one over 32 MiB 413.
#[utoipa::path(post, path = "/v1/traces", params(ImportParams),
    request_body(content = serde_json::Value, description = "ExportTraceServiceRequest: protobuf (application/x-protobuf) or OTLP/JSON (application/json)",
        content_type = "application/json"),
    responses((status = 200, body = OtlpResponse, description = "ExportTraceServiceResponse, in the request's encoding"),
        (status = 400, body = ErrorResponse, description = "INVALID_INPUT: the body is not an OTLP trace export"),
        (status = 404, body = ErrorResponse, description = "NOT_FOUND: target_id names no target"),
        (status = 413, body = ErrorResponse, description = "PAYLOAD_TOO_LARGE: the body is larger than 32 MiB")))]
pub async fn receive_traces(
    State(st): State<AppState>,
    headers: HeaderMap,
    query: Result<Query<ImportParams>, QueryRejection>,
    TraceBody(body): TraceBody,
) -> ApiResult<Response> {
    let params = crate::error::query(query, msg!("error-query-import-suggestion"))?;
    let protobuf = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/x-protobuf"));
    let encoding = if protobuf {
        Encoding::Protobuf
    } else {
        Encoding::Json
    };
    let summary = st
        .platform
        .import_traces(&body, request(params, "otlp-http", encoding))
        .await?;
    if summary.spans == 0 && !summary.problems.is_empty() {
        let first = &summary.problems[0].msg;
        return Err(Error::msg(
            ErrorCode::InvalidInput,
            first.clone(),
            msg!("error-otlp-body-suggestion"),
        )
        .into());
    }
    let lang = crate::reader_lang();
    let partial_success = (!summary.problems.is_empty()).then(|| OtlpPartialSuccess {
        rejected_spans: summary.skipped_spans as u64,
        error_message: summary
            .problems
            .iter()
            .map(|p| p.msg.render(lang))
            .collect::<Vec<_>>()
            .join("; "),
    });
    if protobuf {
        let (rejected, why) =
            partial_success.map_or((0, String::new()), |p| (p.rejected_spans, p.error_message));
        return Ok((
            [(header::CONTENT_TYPE, "application/x-protobuf")],
            otlp::protobuf_response(rejected, why),
        )
            .into_response());
    }
    Ok(Json(OtlpResponse { partial_success }).into_response())
}

/// OTLP/JSON text, as a collector's file exporter writes it: something
/// besides spaces.
#[derive(utoipa::ToSchema)]
#[schema(pattern = r"\S")]
pub struct OtlpText(#[allow(dead_code)] String);

/// Imports OTLP/JSON text (a collector's file exporter output: one export
/// a line, or one document), as the app's import does: the summary says
/// what was kept, redacted and skipped, each skipped line by its number.
#[utoipa::path(post, path = "/api/traces/import", params(ImportParams),
    request_body(content = OtlpText, content_type = "text/plain", description = "OTLP/JSON text"),
    responses((status = 200, body = ImportSummary),
        (status = 400, body = ErrorResponse, description = "INVALID_INPUT: an empty body"),
        (status = 404, body = ErrorResponse, description = "NOT_FOUND: target_id names no target"),
        (status = 413, body = ErrorResponse, description = "PAYLOAD_TOO_LARGE: the body is larger than 32 MiB")))]
pub async fn import_traces(
    State(st): State<AppState>,
    query: Result<Query<ImportParams>, QueryRejection>,
    TraceBody(body): TraceBody,
) -> ApiResult<Json<ImportSummary>> {
    let params = crate::error::query(query, msg!("error-query-import-suggestion"))?;
    Ok(Json(
        st.platform
            .import_traces(&body, request(params, "upload", Encoding::Json))
            .await?,
    ))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ConversationListQuery {
    pub target_id: Option<uuid::Uuid>,
    /// Words the conversation contains (case-insensitive).
    pub text: Option<String>,
    /// Rows to skip (default 0).
    #[param(maximum = 4294967295_u64)]
    pub offset: Option<u32>,
    /// Rows per page: 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
}

/// The imported conversations, newest first, with a preview each.
#[utoipa::path(get, path = "/api/traces/conversations", params(ConversationListQuery),
    responses((status = 200, body = ImportedPage), (status = 400, body = ErrorResponse)))]
pub async fn list_conversations(
    State(st): State<AppState>,
    query: Result<Query<ConversationListQuery>, QueryRejection>,
) -> ApiResult<Json<ImportedPage>> {
    let q = crate::error::query(query, msg!("error-query-import-suggestion"))?;
    Ok(Json(
        st.platform
            .imported_conversations(ImportedQuery {
                target_id: q.target_id.map(agenteval_engine::TargetId),
                text: q.text,
                offset: q.offset,
                limit: q.limit,
            })
            .await?,
    ))
}

#[utoipa::path(get, path = "/api/traces/conversations/{id}", params(("id" = String, Path)),
    responses((status = 200, body = ImportedConversation), (status = 404, body = ErrorResponse)))]
pub async fn get_conversation(
    State(st): State<AppState>,
    Path(id): Path<String>,
) -> ApiResult<Json<ImportedConversation>> {
    let id: uuid::Uuid = parse_id("conversation", &id)?;
    Ok(Json(st.platform.imported_conversation(id).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DraftQuery {
    /// The pack to put it in (default `production`).
    pub pack: Option<String>,
}

/// A fixed scenario drafted from the conversation: its pack file to
/// review, edit and save (`POST /api/scenarios/files`).
#[utoipa::path(get, path = "/api/traces/conversations/{id}/draft", params(("id" = String, Path), DraftQuery),
    responses((status = 200, body = TraceDraft), (status = 404, body = ErrorResponse),
        (status = 409, body = ErrorResponse, description = "CONFLICT: the conversation has no user turn")))]
pub async fn draft_from_conversation(
    State(st): State<AppState>,
    Path(id): Path<String>,
    query: Result<Query<DraftQuery>, QueryRejection>,
) -> ApiResult<Json<TraceDraft>> {
    let id: uuid::Uuid = parse_id("conversation", &id)?;
    let q = crate::error::query(query, msg!("error-query-import-suggestion"))?;
    Ok(Json(
        st.platform
            .draft_from_conversation(id, q.pack, crate::reader_lang())
            .await?,
    ))
}

/// Which imported conversations to propose seeds from.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ProposeSeeds {
    /// 1 to 200 imported conversations' ids.
    #[schema(min_items = 1, max_items = 200)]
    pub ids: Vec<uuid::Uuid>,
}

/// Personas and goals proposed from the conversations (by the analyst
/// model when one is configured, else by rules), each with its
/// conversations and traces as lineage: a seed set to add to a
/// campaign's, and who proposed it.
#[utoipa::path(post, path = "/api/traces/seeds", request_body = ProposeSeeds,
    responses((status = 200, body = SeedProposal), (status = 400, body = ErrorResponse),
        (status = 404, body = ErrorResponse), (status = 422, body = ErrorResponse)))]
pub async fn propose_seeds(
    State(st): State<AppState>,
    ApiJson(req): ApiJson<ProposeSeeds>,
) -> ApiResult<Json<SeedProposal>> {
    Ok(Json(
        st.platform
            .seeds_from_conversations(&req.ids, crate::reader_lang())
            .await?,
    ))
}
