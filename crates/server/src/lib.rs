//! AgentEval HTTP API: an axum router over the engine's operations.
//!
//! Every route is under `/api` and needs the `X-API-Key` header, except
//! `GET /api/health`: the server's own key (an admin, named
//! [`SERVER_KEY_NAME`]) or a named key, whose role decides what it may
//! call (see [`authorize`]). MCP is served at [`MCP_PATH`] behind the same
//! keys (see [`mcp`]). Errors are `{code, message, suggestion}` with
//! the status from [`error::status_of`]. When a built UI folder is given it
//! is served at `/`.

pub mod demo_target;
pub mod error;
pub mod judge_routes;
pub mod key_routes;
mod links;
pub mod mcp;
pub mod openapi;
pub mod routes;
pub mod run_routes;
pub mod session_routes;
pub mod trace_routes;

use agenteval_engine::keys::Caller;
pub use agenteval_engine::keys::SERVER_KEY_NAME;
use agenteval_engine::runtime::PatrolControl;
use agenteval_engine::{Error, ErrorCode, Lang, Platform, i18n};
use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{HeaderValue, Method};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use subtle::ConstantTimeEq;
use tokio::task::JoinHandle;
use tower::ServiceExt;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::trace::TraceLayer;
use utoipa_axum::router::OpenApiRouter;

/// Largest request body accepted.
pub const BODY_LIMIT: usize = 1024 * 1024;

/// How `agenteval serve` runs the API.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub bind: SocketAddr,
    pub api_key: String,
    /// The built UI to serve at `/`, when present.
    pub ui_dir: Option<PathBuf>,
    /// The resident patrol agent of this process, for the
    /// `/api/patrol-agent` routes (`PatrolControl::none()`: none runs).
    pub patrol: PatrolControl,
}

#[derive(Clone)]
pub struct AppState {
    pub platform: Arc<Platform>,
    api_key: Arc<str>,
    ui_dir: Option<PathBuf>,
    pub patrol: PatrolControl,
}

/// The API router (no UI, no patrol agent).
pub fn router(platform: Arc<Platform>, api_key: String) -> Router {
    build(
        platform,
        ServeConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            api_key,
            ui_dir: None,
            patrol: PatrolControl::none(),
        },
    )
}

fn build(platform: Arc<Platform>, config: ServeConfig) -> Router {
    let state = AppState {
        platform,
        api_key: config.api_key.into(),
        ui_dir: config.ui_dir.filter(|d| d.is_dir()),
        patrol: config.patrol,
    };
    let (api, _) = protected_api().split_for_parts();
    let protected = api
        // MCP over streamable HTTP: the same keys; each tool says whether
        // it writes, so a viewer's POST is let through to be refused there.
        .route_service(MCP_PATH, mcp::http_service(state.platform.clone()))
        .route_layer(middleware::from_fn_with_state(state.clone(), authorize));
    let (public, _) = public_api().split_for_parts();
    Router::new()
        .merge(protected)
        .merge(public)
        .method_not_allowed_fallback(error::method_not_allowed)
        .fallback(fallback)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn(in_reader_language))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// Every route behind a key, each declared once by its handler's
/// `#[utoipa::path]` (its method and path), which makes both the route
/// and its operation in the OpenAPI document. The key routes sit behind
/// [`require_admin`] besides.
fn protected_api() -> OpenApiRouter<AppState> {
    let admin = key_routes::admin_router().route_layer(middleware::from_fn(require_admin));
    OpenApiRouter::new()
        .merge(tagged(admin, "key_routes"))
        .merge(tagged(key_routes::router(), "key_routes"))
        .merge(tagged(routes::router(), "routes"))
        .merge(tagged(run_routes::router(), "run_routes"))
        .merge(tagged(session_routes::router(), "session_routes"))
        .merge(tagged(judge_routes::router(), "judge_routes"))
        .merge(tagged(trace_routes::router(), "trace_routes"))
}

/// The routes that need no key.
fn public_api() -> OpenApiRouter<AppState> {
    tagged(routes::public_router(), "routes")
}

/// Tags each operation of `router` with the module of its handler, which
/// groups them in the document.
fn tagged(mut router: OpenApiRouter<AppState>, tag: &str) -> OpenApiRouter<AppState> {
    for item in router.get_openapi_mut().paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.delete,
            &mut item.patch,
        ];
        for op in operations.into_iter().flatten() {
            op.tags.get_or_insert_with(Vec::new).push(tag.to_string());
        }
    }
    router
}

/// The OpenAPI paths and schemas of every route (see [`openapi::document`]).
pub(crate) fn api_paths() -> utoipa::openapi::OpenApi {
    protected_api().merge(public_api()).into_openapi()
}

/// Answers in the reader's language: `?lang=zh|en`, else the first of
/// `Accept-Language` the catalogue has, else English. Every message the
/// answer holds carries its `text` in that language, and an error its
/// `message` and `suggestion`. An unknown `lang` is 400.
async fn in_reader_language(req: Request, next: Next) -> Response {
    match lang_of_request(req.uri(), req.headers()) {
        Ok(lang) => i18n::scope(lang, next.run(req)).await,
        Err(e) => error::ApiError(e).into_response(),
    }
}

/// The language a request asks for: `?lang=zh|en` (an unknown one is an
/// error), else the first of `Accept-Language` the catalogue has, else
/// English.
pub(crate) fn lang_of_request(
    uri: &axum::http::Uri,
    headers: &axum::http::HeaderMap,
) -> Result<Lang, Error> {
    let asked = uri.query().and_then(|q| {
        url::form_urlencoded::parse(q.as_bytes())
            .find(|(k, _)| k == "lang")
            .map(|(_, v)| v.into_owned())
    });
    match asked {
        Some(v) => match Lang::parse(&v) {
            Some(lang) if !v.trim().is_empty() => Ok(lang),
            _ => Err(Error::msg(
                ErrorCode::InvalidInput,
                agenteval_engine::msg!("error-unknown-language", lang = v),
                agenteval_engine::msg!("error-unknown-language-suggestion"),
            )),
        },
        None => Ok(headers
            .get(axum::http::header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok())
            .and_then(Lang::from_accept_language)
            .unwrap_or_default()),
    }
}

/// The language of the request being answered: what [`in_reader_language`]
/// found in it.
pub(crate) fn reader_lang() -> Lang {
    i18n::render_lang().unwrap_or_default()
}

/// Recognises the caller by its `X-API-Key`, refuses what its role may
/// not do, and records an audit event for the call, whatever its outcome,
/// naming the key (`key:<name>`; `anonymous` without a valid one).
///
/// The server's own key (`--api-key`, compared in constant time) is an
/// admin named [`SERVER_KEY_NAME`]; any other key is looked up among the
/// named keys by its hash (a revoked one is refused: 401). A viewer may
/// only read (GET, which covers the exports, the reports and the live
/// events): any other method is 403 `FORBIDDEN`. The key routes need an
/// admin besides ([`require_admin`]).
async fn authorize(State(st): State<AppState>, mut req: Request, next: Next) -> Response {
    let action = format!(
        "{} {}",
        req.method(),
        req.extensions()
            .get::<MatchedPath>()
            .map(|p| p.as_str().to_string())
            .unwrap_or_else(|| req.uri().path().to_string())
    );
    let subject = req
        .uri()
        .path()
        .split('/')
        .find_map(|seg| uuid::Uuid::parse_str(seg).ok());
    let presented = req.headers().get("x-api-key").cloned();
    let caller = match caller_of(&st, presented.as_ref()).await {
        Ok(Some(caller)) => caller,
        Ok(None) => {
            st.platform
                .audit(
                    "anonymous",
                    &action,
                    subject,
                    ErrorCode::Unauthorized.as_str(),
                )
                .await;
            return error::unauthorized().into_response();
        }
        Err(e) => {
            let e = error::ApiError(e);
            st.platform
                .audit("anonymous", &action, subject, e.0.code().as_str())
                .await;
            return e.into_response();
        }
    };
    let actor = caller.actor();
    if !caller.role.may_change() && !reads_only(req.method()) && req.uri().path() != MCP_PATH {
        st.platform
            .audit(&actor, &action, subject, ErrorCode::Forbidden.as_str())
            .await;
        return error::forbidden(&caller, error::Forbidden::ReadOnly).into_response();
    }
    req.extensions_mut().insert(caller);
    // The rows the operation records itself name the key too.
    let response = agenteval_engine::audit::acting_for(actor.clone(), next.run(req)).await;
    let outcome = response
        .extensions()
        .get::<ErrorCode>()
        .map(|c| c.as_str())
        .unwrap_or("ok");
    st.platform.audit(&actor, &action, subject, outcome).await;
    response
}

/// Where MCP is served over streamable HTTP. Its requests are all POSTs:
/// which tools a viewer may call is the MCP server's to say.
pub const MCP_PATH: &str = "/mcp";

/// Whether a method only reads.
fn reads_only(method: &Method) -> bool {
    method == Method::GET || method == Method::HEAD
}

/// The caller whose key (`X-API-Key`) a request carries, or `None`
/// without a valid one.
async fn caller_of(st: &AppState, key: Option<&HeaderValue>) -> Result<Option<Caller>, Error> {
    let Some(key) = key else {
        return Ok(None);
    };
    if bool::from(key.as_bytes().ct_eq(st.api_key.as_bytes())) {
        return Ok(Some(Caller::server_key()));
    }
    match key.to_str() {
        Ok(key) if !key.is_empty() => st.platform.authenticate(key).await,
        _ => Ok(None),
    }
}

/// The key routes are an admin's alone: 403 `FORBIDDEN` for any other
/// key. Runs inside [`authorize`], which audits the refusal.
async fn require_admin(req: Request, next: Next) -> Response {
    match req.extensions().get::<Caller>().cloned() {
        Some(caller) if caller.role.may_manage_keys() => next.run(req).await,
        Some(caller) => error::forbidden(&caller, error::Forbidden::AdminOnly).into_response(),
        None => error::unauthorized().into_response(),
    }
}

/// The content security policy of the served UI, as strict as the desktop
/// app's (`src-tauri/tauri.conf.json`): scripts only from the UI itself (no
/// inline script), connections only back to this server, nothing framed.
/// Styles may be inline: the component library sets them at run time.
pub const UI_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; \
     base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/// Unknown `/api` paths get 404 in the error shape; anything else is the
/// UI when one is served (with `index.html` for client-side routes).
async fn fallback(State(st): State<AppState>, req: Request) -> Response {
    let path = req.uri().path();
    match &st.ui_dir {
        Some(dir) if path != "/api" && !path.starts_with("/api/") => {
            let serve = ServeDir::new(dir).fallback(ServeFile::new(dir.join("index.html")));
            let mut res = match serve.oneshot(req).await {
                Ok(res) => res.into_response(),
                Err(e) => match e {},
            };
            res.headers_mut().insert(
                axum::http::header::CONTENT_SECURITY_POLICY,
                axum::http::HeaderValue::from_static(UI_CSP),
            );
            res
        }
        _ => error::not_found_route().into_response(),
    }
}

/// Connections waiting to be accepted. Tokio's default (1,024) is too few
/// for a burst of a thousand clients connecting at once: the kernel drops
/// the excess connection requests and each client retries only after a
/// second.
const LISTEN_BACKLOG: u32 = 4096;

/// A listening socket on `bind` with room for bursts of connections.
pub fn listen(bind: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if bind.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As tokio's own `bind` does: a restarted server may reuse its port.
    socket.set_reuseaddr(true)?;
    socket.bind(bind)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Serves the API (and the UI) until Ctrl-C.
pub async fn serve(platform: Arc<Platform>, config: ServeConfig) -> anyhow::Result<()> {
    let listener = listen(config.bind)?;
    tracing::info!(addr = %listener.local_addr()?, "AgentEval API listening");
    let app = build(platform, config);
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

/// Starts the API in the background; returns the bound address (bind port
/// 0 for a free one) and the server task.
pub async fn spawn(
    platform: Arc<Platform>,
    config: ServeConfig,
) -> anyhow::Result<(SocketAddr, JoinHandle<()>)> {
    let listener = listen(config.bind)?;
    let addr = listener.local_addr()?;
    let app = build(platform, config);
    let handle = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "API server stopped");
        }
    });
    Ok((addr, handle))
}
