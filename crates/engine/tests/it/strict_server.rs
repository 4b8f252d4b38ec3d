//! A strict OpenAI-compatible chat completions server on 127.0.0.1, as
//! strict as OpenAI's, DeepSeek's and Qwen's APIs are about tool messages:
//! an assistant message with `tool_calls` must be followed at once by one
//! `tool` message per `tool_call_id`, and a `tool` message must answer a
//! call of the assistant message before it. Anything else gets OpenAI's
//! 400 body. The replies come from a scripted agent: a function of the
//! conversation it was sent.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The agent behind the server: the conversation in, the assistant message
/// out (`{"content": ..., "tool_calls": [...]}`).
pub type Agent = Arc<dyn Fn(&[Value]) -> Value + Send + Sync>;

/// The same, given the whole request (its tools too).
pub type Handler = Arc<dyn Fn(&Value) -> Value + Send + Sync>;

pub struct StrictServer {
    pub addr: SocketAddr,
    /// Every request body it accepted, in order.
    accepted: Arc<Mutex<Vec<Value>>>,
    /// Every refusal it sent: the request and OpenAI's message.
    refused: Arc<Mutex<Vec<(Value, String)>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for StrictServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl StrictServer {
    pub async fn start(agent: Agent) -> Self {
        Self::start_with(Arc::new(move |body: &Value| {
            let messages = body["messages"].as_array().cloned().unwrap_or_default();
            agent(&messages)
        }))
        .await
    }

    /// A server whose replies come from `handler`, given each request.
    pub async fn start_with(agent: Handler) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().unwrap();
        let accepted: Arc<Mutex<Vec<Value>>> = Arc::default();
        let refused: Arc<Mutex<Vec<(Value, String)>>> = Arc::default();
        let (a, r) = (accepted.clone(), refused.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let (agent, a, r) = (agent.clone(), a.clone(), r.clone());
                tokio::spawn(async move {
                    let _ = serve(stream, agent, a, r).await;
                });
            }
        });
        Self {
            addr,
            accepted,
            refused,
            task,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn accepted(&self) -> Vec<Value> {
        self.accepted.lock().unwrap().clone()
    }

    pub fn refused(&self) -> Vec<(Value, String)> {
        self.refused.lock().unwrap().clone()
    }
}

/// Why OpenAI would refuse these messages, in its words; `None` when it
/// would take them.
pub fn refusal(messages: &[Value]) -> Option<(String, String)> {
    let mut open: Vec<String> = Vec::new();
    let mut answered: HashSet<String> = HashSet::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or_default();
        if role == "tool" {
            let id = m["tool_call_id"].as_str().unwrap_or_default().to_string();
            if !open.contains(&id) || !answered.insert(id) {
                return Some((
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.".into(),
                    format!("messages.[{i}].role"),
                ));
            }
            if m["content"].is_null() {
                return Some((
                    "Invalid value for 'content': expected a string, got null.".into(),
                    format!("messages.[{i}].content"),
                ));
            }
            continue;
        }
        let missing: Vec<&String> = open.iter().filter(|id| !answered.contains(*id)).collect();
        if !missing.is_empty() {
            return Some((
                format!(
                    "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
                    missing
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                format!("messages.[{i}].role"),
            ));
        }
        open.clear();
        answered.clear();
        if role == "assistant"
            && let Some(calls) = m["tool_calls"].as_array()
        {
            for c in calls {
                let args = c["function"]["arguments"].as_str();
                if c["type"] != "function" || c["id"].as_str().is_none() || args.is_none() {
                    return Some((
                        "Invalid tool call: each needs an id, type 'function' and arguments as a string.".into(),
                        format!("messages.[{i}].tool_calls"),
                    ));
                }
                open.push(c["id"].as_str().unwrap_or_default().to_string());
            }
        }
    }
    let missing: Vec<&String> = open.iter().filter(|id| !answered.contains(*id)).collect();
    if !missing.is_empty() {
        return Some((
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'.".into(),
            format!("messages.[{}].role", messages.len()),
        ));
    }
    None
}

async fn serve(
    mut stream: TcpStream,
    agent: Handler,
    accepted: Arc<Mutex<Vec<Value>>>,
    refused: Arc<Mutex<Vec<(Value, String)>>>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let (head_end, length) = loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            break (end + 4, length);
        }
    };
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body: Value = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let (status, out) = match refusal(&messages) {
        Some((message, param)) => {
            refused
                .lock()
                .unwrap()
                .push((body.clone(), message.clone()));
            (
                "400 Bad Request",
                json!({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": null}}),
            )
        }
        None => {
            accepted.lock().unwrap().push(body.clone());
            let mut message = agent(&body);
            // An agent that breaks down: `{"__fail": true}` is answered 503.
            if message["__fail"] == json!(true) {
                let text =
                    json!({"error": {"message": "the agent broke down", "type": "server_error"}})
                        .to_string();
                let response = format!(
                    "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
                    text.len()
                );
                stream.write_all(response.as_bytes()).await?;
                return Ok(());
            }
            message["role"] = json!("assistant");
            if message.get("content").is_none() {
                message["content"] = Value::Null;
            }
            let finish = if message["tool_calls"]
                .as_array()
                .is_some_and(|c| !c.is_empty())
            {
                "tool_calls"
            } else {
                "stop"
            };
            (
                "200 OK",
                json!({
                    "id": "chatcmpl-strict",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
                }),
            )
        }
    };
    let text = out.to_string();
    let response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    );
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

/// One run of `scenario`, from the pack `pack` (YAML), played on `p`
/// against the target at `base_url` (refusing nothing it is sent): the
/// campaign, the run and its turns.
pub async fn play_once(
    p: &std::sync::Arc<agenteval_engine::Platform>,
    pack: &str,
    base_url: &str,
    scenario: &str,
) -> (
    agenteval_engine::CampaignId,
    agenteval_engine::fixed::Run,
    Vec<agenteval_engine::fixed::RunTurn>,
) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("tools")).unwrap();
    play_once_in(p, dir.path(), pack, base_url, scenario).await
}

/// [`play_once`] with the pack folder `dir/tools` made by the caller (a
/// workspace beside the pack, say).
pub async fn play_once_in(
    p: &std::sync::Arc<agenteval_engine::Platform>,
    dir: &std::path::Path,
    pack: &str,
    base_url: &str,
    scenario: &str,
) -> (
    agenteval_engine::CampaignId,
    agenteval_engine::fixed::Run,
    Vec<agenteval_engine::fixed::RunTurn>,
) {
    use agenteval_engine::campaign::{CreateCampaign, Plan, PlanEntry};
    std::fs::write(dir.join("tools/tools.yaml"), pack).unwrap();
    let loaded = agenteval_engine::scenario::load_dir(dir);
    assert!(
        loaded.errors.is_empty(),
        "the pack loads: {:?}",
        loaded.errors
    );
    p.scenarios.insert_all(loaded.scenarios);
    let target = p
        .create_target(agenteval_engine::target::TargetSettings {
            max_retries: Some(0),
            ..agenteval_engine::target::TargetSettings::openai("strict", base_url, "agent")
        })
        .await
        .unwrap();
    let campaign = p
        .create_campaign(CreateCampaign {
            name: "tools".into(),
            target_id: target.id,
            plan: Some(Plan {
                entries: vec![PlanEntry {
                    scenario_id: scenario.into(),
                    rounds: Some(1),
                    ..Default::default()
                }],
            }),
            duration_hours: Some(1.0),
            ..Default::default()
        })
        .await
        .unwrap();
    p.tick().await.unwrap();
    let run = p.list_runs(campaign.id).await.unwrap().remove(0);
    let turns = p.run_turns(run.id).await.unwrap();
    (campaign.id, run, turns)
}

/// A tool call as an agent's reply carries it.
pub fn call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}})
}

/// The `tool` messages after the last user message: what the tools said
/// in this turn so far, as (content, parsed JSON when it is JSON).
pub fn turn_results(messages: &[Value]) -> Vec<Value> {
    let start = messages
        .iter()
        .rposition(|m| m["role"] == "user")
        .map_or(0, |i| i + 1);
    messages[start..]
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            let text = m["content"].as_str().unwrap_or_default();
            serde_json::from_str(text).unwrap_or_else(|_| json!(text))
        })
        .collect()
}

/// The last user message's text.
pub fn last_user(messages: &[Value]) -> String {
    messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_strict_server_refuses_what_openai_refuses() {
    let call_msg =
        json!({"role": "assistant", "content": "", "tool_calls": [call("c1", "T", json!({}))]});
    let user = json!({"role": "user", "content": "next"});
    let tool = json!({"role": "tool", "tool_call_id": "c1", "content": "{}"});
    let (message, _) = refusal(&[call_msg.clone(), user.clone()]).expect("unanswered call");
    assert!(message.contains("c1"), "{message}");
    assert!(refusal(&[call_msg.clone(), tool.clone(), user.clone()]).is_none());
    assert!(
        refusal(&[user.clone(), tool.clone()]).is_some(),
        "a tool message that answers no call"
    );
    assert!(
        refusal(&[call_msg, tool.clone(), tool]).is_some(),
        "two answers to one call"
    );
}
