//! MCP over streamable HTTP at `/mcp`, as a client speaks it.

use super::App;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// Speaks JSON-RPC to `/mcp` with `key` (none: no header), as an MCP
/// client does over streamable HTTP; the HTTP status and the JSON-RPC
/// message (from a JSON body or the first SSE event).
pub async fn rpc(
    app: &App,
    key: Option<&str>,
    lang: &str,
    id: u64,
    method: &str,
    params: Value,
) -> (StatusCode, Value) {
    let mut req = app
        .http
        .post(format!("{}/mcp", app.base))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .header("Accept-Language", lang)
        .body(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
    if let Some(key) = key {
        req = req.header("X-API-Key", key);
    }
    let res = req.send().await.expect("request");
    let status = res.status();
    let text = res.text().await.expect("body");
    let body = serde_json::from_str(&text).unwrap_or_else(|_| {
        text.lines()
            .find_map(|l| l.strip_prefix("data:"))
            .and_then(|d| serde_json::from_str(d.trim()).ok())
            .unwrap_or(Value::String(text.clone()))
    });
    (status, body)
}

/// Calls a tool; its result (`isError`, `structuredContent`).
pub async fn tool(app: &App, key: &str, lang: &str, name: &str, args: Value) -> Value {
    let (status, body) = rpc(
        app,
        Some(key),
        lang,
        7,
        "tools/call",
        json!({"name": name, "arguments": args}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{name}: {body}");
    assert!(
        body["error"].is_null(),
        "{name} is not a protocol error: {body}"
    );
    body["result"].clone()
}
