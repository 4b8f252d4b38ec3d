//! Handlers of the named API keys: list, create, revoke. Only an admin key
//! reaches them ([`crate::require_admin`]); the audit trail names the key
//! that asked.

use crate::AppState;
use crate::error::{ApiJson, ApiResult, ErrorResponse};
use agenteval_engine::keys::{ApiKeyInfo, Caller, CreateApiKey, CreatedApiKey, Identity};
use axum::extract::{Path, State};
use axum::{Extension, Json};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Who the caller is: any valid key.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(whoami))
}

/// The key routes proper, which [`crate::require_admin`] guards.
pub fn admin_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_keys, create_key))
        .routes(routes!(revoke_key))
}

/// Who the request's key is and what its role may do, so that a client
/// can show it and hide what a viewer may not do. Any valid key may ask.
#[utoipa::path(get, path = "/api/whoami", responses((status = 200, body = Identity)))]
pub async fn whoami(Extension(caller): Extension<Caller>) -> Json<Identity> {
    Json(caller.identity())
}

/// Every key, revoked ones too, oldest first: never a key nor its hash.
#[utoipa::path(get, path = "/api/keys",
    responses((status = 200, body = [ApiKeyInfo]),
        (status = 403, body = ErrorResponse, description = "the key is not an admin key (FORBIDDEN)")))]
pub async fn list_keys(State(st): State<AppState>) -> ApiResult<Json<Vec<ApiKeyInfo>>> {
    Ok(Json(st.platform.list_api_keys().await?))
}

/// Creates a named key with a role (`viewer`, `editor` or `admin`); the
/// answer holds the key itself, given out only this once.
#[utoipa::path(post, path = "/api/keys", request_body = CreateApiKey,
    responses((status = 200, body = CreatedApiKey),
        (status = 400, body = ErrorResponse, description = "an invalid name or role (INVALID_INPUT)"),
        (status = 403, body = ErrorResponse, description = "the key is not an admin key (FORBIDDEN)"),
        (status = 409, body = ErrorResponse, description = "a key of this name exists (CONFLICT)"),
        (status = 422, body = ErrorResponse)))]
pub async fn create_key(
    State(st): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiJson(req): ApiJson<CreateApiKey>,
) -> ApiResult<Json<CreatedApiKey>> {
    Ok(Json(
        st.platform.create_api_key(req, &caller.actor()).await?,
    ))
}

/// Revokes a key by name: it is refused (401) from then on. Revoking it
/// again changes nothing.
#[utoipa::path(delete, path = "/api/keys/{name}", params(("name" = String, Path)),
    responses((status = 200, body = ApiKeyInfo),
        (status = 403, body = ErrorResponse, description = "the key is not an admin key (FORBIDDEN)"),
        (status = 404, body = ErrorResponse, description = "no key has this name (NOT_FOUND)")))]
pub async fn revoke_key(
    State(st): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(name): Path<String>,
) -> ApiResult<Json<ApiKeyInfo>> {
    Ok(Json(
        st.platform.revoke_api_key(&name, &caller.actor()).await?,
    ))
}
