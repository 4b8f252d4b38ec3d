//! The built-in demo agent served as an OpenAI-compatible endpoint, so that
//! any tool (the platform itself, the `openai` SDK, promptfoo, benchmarks)
//! can be pointed at it.
//!
//! - `POST /v1/chat/completions`: messages and tools in, one choice out;
//!   `stream: true` is answered with server-sent events ending in
//!   `data: [DONE]`.
//! - `GET /v1/models`: the one model, `agenteval-demo`.
//!
//! A conversation of an agent that acts goes both ways: the request's
//! assistant messages carry their `tool_calls` and its `tool` messages
//! their `tool_call_id`, and the demo agent reads them (offered seed 002's
//! office tools it works in steps); its own calls go out with ids, and
//! `finish_reason` is `tool_calls`.
//!
//! The handler is lock-free (an atomic counter for ids) because the
//! zero-latency target is the ceiling that benchmarks measure against.

use agenteval_engine::channel::openai::wire;
use agenteval_engine::channel::{ChatMessage, Role, ToolCall, ToolSpec};
use agenteval_engine::demo_agent::DemoAgent;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::task::JoinHandle;

pub const MODEL: &str = "agenteval-demo";

/// How the demo target behaves.
#[derive(Debug, Clone, Default)]
pub struct DemoTargetOptions {
    /// Added before every answer, to simulate a slow model.
    pub latency: Duration,
}

struct DemoTarget {
    agent: DemoAgent,
    options: DemoTargetOptions,
    next_id: AtomicU64,
}

/// The demo target's routes.
pub fn router(options: DemoTargetOptions) -> Router {
    router_with_agent(options, DemoAgent::new())
}

/// The demo target's routes over a given demo agent (for instance one with
/// flaws switched on, see [`DemoAgent::with_flaws`]).
pub fn router_with_agent(options: DemoTargetOptions, agent: DemoAgent) -> Router {
    let state = Arc::new(DemoTarget {
        agent,
        options,
        next_id: AtomicU64::new(1),
    });
    Router::new()
        .route("/v1/chat/completions", post(chat_completions))
        .route("/v1/models", get(models))
        .fallback(not_found)
        .with_state(state)
}

/// Serves on `bind` until the process is stopped.
pub async fn serve(bind: SocketAddr) -> anyhow::Result<()> {
    serve_with(bind, DemoTargetOptions::default()).await
}

/// Serves on `bind` with `options` until the process is stopped.
pub async fn serve_with(bind: SocketAddr, options: DemoTargetOptions) -> anyhow::Result<()> {
    serve_agent(bind, options, DemoAgent::new()).await
}

/// Serves `agent` on `bind` with `options` until the process is stopped.
pub async fn serve_agent(
    bind: SocketAddr,
    options: DemoTargetOptions,
    agent: DemoAgent,
) -> anyhow::Result<()> {
    let (addr, handle) = spawn_agent(bind, options, agent).await?;
    tracing::info!(%addr, "demo target listening at http://{addr}/v1");
    handle.await??;
    Ok(())
}

/// Binds (port 0 picks a free port) and serves in the background; returns
/// the bound address and the server task.
pub async fn spawn(
    bind: SocketAddr,
    options: DemoTargetOptions,
) -> anyhow::Result<(SocketAddr, JoinHandle<std::io::Result<()>>)> {
    spawn_agent(bind, options, DemoAgent::new()).await
}

/// [`spawn`] over a given demo agent.
pub async fn spawn_agent(
    bind: SocketAddr,
    options: DemoTargetOptions,
    agent: DemoAgent,
) -> anyhow::Result<(SocketAddr, JoinHandle<std::io::Result<()>>)> {
    use axum::serve::ListenerExt;
    let listener =
        crate::listen(bind).map_err(|e| anyhow::anyhow!("cannot listen on {bind}: {e}"))?;
    let addr = listener.local_addr()?;
    // Small request/response pairs on keep-alive connections stall on
    // Nagle's algorithm without this.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let app = router_with_agent(options, agent);
    let handle = tokio::spawn(async move { axum::serve(listener, app).await });
    Ok((addr, handle))
}

#[derive(Deserialize)]
struct CompletionRequest {
    messages: Vec<wire::MessageIn>,
    #[serde(default)]
    tools: Option<Vec<wire::Tool<'static>>>,
    #[serde(default)]
    stream: Option<bool>,
    #[serde(default)]
    stream_options: Option<StreamOptions>,
}

#[derive(Deserialize)]
struct StreamOptions {
    #[serde(default)]
    include_usage: bool,
}

struct BadRequest(String);

fn role(name: Option<&str>) -> Result<Role, BadRequest> {
    let name = name.unwrap_or_default();
    wire::role_of(name).ok_or_else(|| {
        BadRequest(format!(
            "'{name}' is not a valid role: use system, developer, user, assistant or tool"
        ))
    })
}

fn text(content: Option<Value>) -> Result<String, BadRequest> {
    agenteval_engine::channel::openai::content_text(content).map_err(|_| {
        BadRequest("message content must be a string or an array of content parts".into())
    })
}

fn into_conversation(
    request: CompletionRequest,
) -> Result<(Vec<ChatMessage>, Vec<ToolSpec>), BadRequest> {
    if request.messages.is_empty() {
        return Err(BadRequest("'messages' must not be empty".into()));
    }
    let mut messages = Vec::with_capacity(request.messages.len());
    for m in request.messages {
        messages.push(ChatMessage {
            role: role(m.role.as_deref())?,
            content: text(m.content)?,
            // A call without an id gets `call_<i>`, as the client reads one.
            tool_calls: m
                .tool_calls
                .unwrap_or_default()
                .into_iter()
                .enumerate()
                .map(|(i, c)| c.into_call(i))
                .collect(),
            tool_call_id: m.tool_call_id,
        });
    }
    let tools = request
        .tools
        .unwrap_or_default()
        .into_iter()
        .map(wire::Tool::into_spec)
        .collect();
    Ok((messages, tools))
}

#[derive(Serialize)]
struct Completion<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    model: &'static str,
    choices: [CompletionChoice<'a>; 1],
    usage: wire::Usage,
}

#[derive(Serialize)]
struct CompletionChoice<'a> {
    index: u32,
    message: wire::MessageOut<'a>,
    finish_reason: &'static str,
}

#[derive(Serialize)]
struct Chunk<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    model: &'static str,
    choices: Vec<ChunkChoice<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<wire::Usage>,
}

#[derive(Serialize)]
struct ChunkChoice<'a> {
    index: u32,
    delta: Delta<'a>,
    finish_reason: Option<&'static str>,
}

#[derive(Serialize, Default)]
struct Delta<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<wire::ToolCallOut<'a>>,
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// An OpenAI-style error body.
fn openai_error(status: StatusCode, kind: &str, message: &str) -> Response {
    let body = serde_json::json!({
        "error": {"message": message, "type": kind, "param": null, "code": null}
    });
    (status, axum::Json(body)).into_response()
}

fn json_response(body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn chat_completions(State(target): State<Arc<DemoTarget>>, body: Bytes) -> Response {
    let request: CompletionRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            return openai_error(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                &format!("the request body is not a valid chat completion request: {e}"),
            );
        }
    };
    let stream = request.stream.unwrap_or(false);
    let include_usage = request
        .stream_options
        .as_ref()
        .is_some_and(|o| o.include_usage);
    let (messages, tools) = match into_conversation(request) {
        Ok(c) => c,
        Err(BadRequest(message)) => {
            return openai_error(StatusCode::BAD_REQUEST, "invalid_request_error", &message);
        }
    };
    if !target.options.latency.is_zero() {
        tokio::time::sleep(target.options.latency).await;
    }
    let reply = target.agent.respond(&messages, &tools);
    let id = format!(
        "chatcmpl-demo-{}",
        target.next_id.fetch_add(1, Ordering::Relaxed)
    );
    let created = unix_now();
    let finish_reason = if reply.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    let usage = wire::Usage::from(reply.usage);
    if stream {
        return sse_response(
            &id,
            created,
            &reply.content,
            &reply.tool_calls,
            finish_reason,
            include_usage.then_some(usage),
        );
    }
    let content = if reply.content.is_empty() && !reply.tool_calls.is_empty() {
        None
    } else {
        Some(reply.content.as_str())
    };
    let completion = Completion {
        id: &id,
        object: "chat.completion",
        created,
        model: MODEL,
        choices: [CompletionChoice {
            index: 0,
            message: wire::MessageOut {
                role: "assistant",
                content,
                tool_calls: wire::ToolCallOut::all(&reply.tool_calls, false),
                tool_call_id: None,
            },
            finish_reason,
        }],
        usage,
    };
    match serde_json::to_vec(&completion) {
        Ok(body) => json_response(body),
        Err(e) => {
            tracing::error!(error = %e, "cannot serialize a demo completion");
            openai_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "internal error",
            )
        }
    }
}

/// The whole reply as server-sent events at once: the demo agent answers
/// immediately, so there is nothing to gain from trickling it out.
fn sse_response(
    id: &str,
    created: u64,
    content: &str,
    tool_calls: &[ToolCall],
    finish_reason: &'static str,
    usage: Option<wire::Usage>,
) -> Response {
    fn chunk<'a>(
        id: &'a str,
        created: u64,
        delta: Delta<'a>,
        finish: Option<&'static str>,
    ) -> Chunk<'a> {
        Chunk {
            id,
            object: "chat.completion.chunk",
            created,
            model: MODEL,
            choices: vec![ChunkChoice {
                index: 0,
                delta,
                finish_reason: finish,
            }],
            usage: None,
        }
    }
    let mut chunks = vec![chunk(
        id,
        created,
        Delta {
            role: Some("assistant"),
            content: Some(""),
            ..Delta::default()
        },
        None,
    )];
    if !content.is_empty() {
        chunks.push(chunk(
            id,
            created,
            Delta {
                content: Some(content),
                ..Delta::default()
            },
            None,
        ));
    }
    if !tool_calls.is_empty() {
        chunks.push(chunk(
            id,
            created,
            Delta {
                tool_calls: wire::ToolCallOut::all(tool_calls, true),
                ..Delta::default()
            },
            None,
        ));
    }
    chunks.push(chunk(id, created, Delta::default(), Some(finish_reason)));
    if let Some(usage) = usage {
        chunks.push(Chunk {
            id,
            object: "chat.completion.chunk",
            created,
            model: MODEL,
            choices: Vec::new(),
            usage: Some(usage),
        });
    }
    let mut body = String::new();
    for c in &chunks {
        match serde_json::to_string(c) {
            Ok(json) => {
                body.push_str("data: ");
                body.push_str(&json);
                body.push_str("\n\n");
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot serialize a demo chunk");
                return openai_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "server_error",
                    "internal error",
                );
            }
        }
    }
    body.push_str("data: [DONE]\n\n");
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn models() -> Response {
    let body = serde_json::json!({
        "object": "list",
        "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "agenteval"}],
    });
    axum::Json(body).into_response()
}

async fn not_found() -> Response {
    openai_error(
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        "unknown route: the demo target serves POST /v1/chat/completions and GET /v1/models",
    )
}
