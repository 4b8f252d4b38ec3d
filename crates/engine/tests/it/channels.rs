//! Tests: channels to targets (OpenAI-compatible, HTTP JSON) and the retry,
//! concurrency and rate-limit policy, against a fault-injecting server.

use crate::fault_server::{Fault, FaultServer, completion, tool_call_completion};
use agenteval_engine::channel::http_json::HttpJsonChannel;
use agenteval_engine::channel::openai::OpenAiChannel;
use agenteval_engine::channel::policy::{Policy, PolicyConfig};
use agenteval_engine::channel::{
    Channel, ChannelError, ChannelErrorKind, ChatMessage, ChatReply, ChatRequest, Role, ToolCall,
    ToolSpec, Usage,
};
use agenteval_engine::target::{ChannelConfig, Header, TargetSettings};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const KEY: &str = "sk-test-very-secret-key-123";

fn openai(server: &FaultServer, timeout_ms: u64) -> OpenAiChannel {
    OpenAiChannel::new(
        reqwest::Client::new(),
        server.base_url(),
        "fault-model".into(),
        Some(KEY.into()),
        Vec::new(),
        Duration::from_millis(timeout_ms),
    )
}

/// Fast backoff so that retry tests take milliseconds.
fn fast(max_retries: u32) -> PolicyConfig {
    PolicyConfig {
        max_retries,
        concurrency: 4,
        rate_per_second: None,
        backoff_base: Duration::from_millis(10),
        backoff_max: Duration::from_millis(50),
    }
}

fn with_policy(channel: impl Channel + 'static, config: PolicyConfig) -> Policy {
    Policy::new(Arc::new(channel), config)
}

fn hello() -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::system("be brief"), ChatMessage::user("hello")],
        tools: Default::default(),
    }
}

fn send_email_tool() -> ToolSpec {
    ToolSpec {
        responses: Vec::new(),
        name: "send_email".into(),
        description: "Send an email".into(),
        parameters: json!({
            "type": "object",
            "properties": {"to": {"type": "string"}, "subject": {"type": "string"}},
            "required": ["to"]
        }),
    }
}

#[tokio::test]
async fn openai_success_parses_content_usage_model_and_latency() {
    let server = FaultServer::start(vec![Fault::Ok(completion("Hi there"))]).await;
    let reply = openai(&server, 5_000)
        .send(&hello())
        .await
        .expect("a 200 chat completion is a reply");
    assert_eq!(reply.content, "Hi there", "content of choices[0].message");
    assert_eq!(
        reply.usage,
        Some(Usage {
            tokens_in: 12,
            tokens_out: 5
        }),
        "usage maps prompt/completion tokens"
    );
    assert_eq!(reply.model.as_deref(), Some("fault-model"));
    assert!(reply.tool_calls.is_empty(), "no tool calls were sent");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(
        requests[0].path, "/v1/chat/completions",
        "base_url + /chat/completions"
    );
}

#[tokio::test]
async fn openai_request_carries_messages_tools_key_and_headers() {
    let server = FaultServer::start(vec![Fault::Ok(completion("ok"))]).await;
    let channel = OpenAiChannel::new(
        reqwest::Client::new(),
        format!("{}/", server.base_url()),
        "my-model".into(),
        Some(KEY.into()),
        vec![Header {
            name: "X-Tenant".into(),
            value: "acme".into(),
        }],
        Duration::from_secs(5),
    );
    let request = ChatRequest {
        messages: vec![
            ChatMessage::system("You are an office assistant."),
            ChatMessage::user("Email Bob"),
            ChatMessage {
                role: Role::Assistant,
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_1".into(),
                    name: "send_email".into(),
                    arguments: json!({"to": "bob@example.com"}),
                }],
                tool_call_id: None,
            },
            ChatMessage {
                role: Role::Tool,
                content: "{\"status\":\"sent\"}".into(),
                tool_calls: Vec::new(),
                tool_call_id: Some("call_1".into()),
            },
        ],
        tools: vec![send_email_tool()].into(),
    };
    channel
        .send(&request)
        .await
        .expect("a trailing slash in base_url is tolerated");
    let seen = &server.requests()[0];
    assert_eq!(
        seen.path, "/v1/chat/completions",
        "no double slash from the trailing one"
    );
    assert_eq!(
        seen.header("authorization"),
        Some(format!("Bearer {KEY}").as_str()),
        "the key is sent as a Bearer token"
    );
    assert_eq!(
        seen.header("x-tenant"),
        Some("acme"),
        "extra headers are sent"
    );
    let body = seen.json();
    assert_eq!(body["model"], "my-model");
    let messages = body["messages"].as_array().expect("messages array");
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages[1]["content"], "Email Bob");
    assert_eq!(
        messages[2]["content"], "",
        "assistant content is \"\" not null: several servers reject null"
    );
    assert_eq!(messages[2]["tool_calls"][0]["type"], "function");
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["name"],
        "send_email"
    );
    let arguments = messages[2]["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .expect("arguments travel as a JSON string");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(arguments).expect("valid JSON"),
        json!({"to": "bob@example.com"})
    );
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_call_id"], "call_1");
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "send_email");
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"],
        json!(["to"])
    );
}

#[tokio::test]
async fn openai_tool_call_reply_is_parsed_and_invalid_arguments_kept_raw() {
    let server = FaultServer::start(vec![Fault::Ok(tool_call_completion(&[
        (
            "call_a",
            "send_email",
            "{\"to\":\"bob@example.com\",\"subject\":\"Hi\"}",
        ),
        ("call_b", "send_email", "{not json"),
    ]))])
    .await;
    let reply = openai(&server, 5_000)
        .send(&ChatRequest {
            messages: vec![ChatMessage::user("email bob")],
            tools: vec![send_email_tool()].into(),
        })
        .await
        .expect("a tool-call completion is a reply");
    assert_eq!(reply.content, "", "null content becomes empty text");
    assert_eq!(reply.tool_calls.len(), 2);
    assert_eq!(reply.tool_calls[0].id, "call_a");
    assert_eq!(reply.tool_calls[0].name, "send_email");
    assert_eq!(
        reply.tool_calls[0].arguments,
        json!({"to": "bob@example.com", "subject": "Hi"}),
        "arguments are parsed to JSON"
    );
    assert_eq!(
        reply.tool_calls[1].arguments,
        json!("{not json"),
        "invalid arguments are kept as the raw string for checks to report"
    );
    assert_eq!(
        reply.usage,
        Some(Usage {
            tokens_in: 30,
            tokens_out: 9
        })
    );
}

#[tokio::test]
async fn retries_succeed_after_a_transient_500() {
    let server = FaultServer::start(vec![
        Fault::status(500, "{\"error\":\"boom\"}"),
        Fault::Ok(completion("recovered")),
    ])
    .await;
    let reply = with_policy(openai(&server, 5_000), fast(2))
        .send(&hello())
        .await
        .expect("one 500 is within the retry budget");
    assert_eq!(reply.content, "recovered");
    assert_eq!(
        server.attempts(),
        2,
        "one failed attempt and one successful retry"
    );
}

#[tokio::test]
async fn a_429_reports_retry_after_and_is_retried() {
    let limited = Fault::Status {
        status: 429,
        body: "{\"error\":{\"message\":\"slow down\"}}".into(),
        headers: vec![("Retry-After".into(), "3".into())],
    };
    let server = FaultServer::start(vec![limited.clone(), Fault::Ok(completion("ok"))]).await;
    let e = openai(&server, 5_000)
        .send(&hello())
        .await
        .expect_err("a 429 is an error for the bare channel");
    assert_eq!(e.kind, ChannelErrorKind::RateLimited);
    assert_eq!(e.status, Some(429));
    assert_eq!(
        e.retry_after_ms,
        Some(3_000),
        "Retry-After seconds are parsed"
    );
    assert!(e.retryable(), "429 is retryable");
    assert!(
        e.message.contains("slow down"),
        "the message quotes the body: {}",
        e.message
    );

    let server = FaultServer::start(vec![limited, Fault::Ok(completion("after wait"))]).await;
    // backoff_max (50 ms) caps the 3 s Retry-After, so this stays fast.
    let reply = with_policy(openai(&server, 5_000), fast(2))
        .send(&hello())
        .await
        .expect("the policy waits and retries after a 429");
    assert_eq!(reply.content, "after wait");
    assert_eq!(server.attempts(), 2);
}

#[tokio::test]
async fn gives_up_after_max_retries_saying_how_many_attempts() {
    let server = FaultServer::start(vec![Fault::status(503, "overloaded")]).await;
    let e = with_policy(openai(&server, 5_000), fast(2))
        .send(&hello())
        .await
        .expect_err("a target that always fails is an error");
    assert_eq!(
        server.attempts(),
        3,
        "1 attempt + max_retries (2) retries, no more"
    );
    assert_eq!(
        e.kind,
        ChannelErrorKind::Status,
        "the last error's kind is kept"
    );
    assert_eq!(e.status, Some(503));
    assert!(
        e.message.contains("3 attempts"),
        "the message says how many attempts were made: {}",
        e.message
    );
    assert!(
        e.message.contains("503"),
        "the message names the status: {}",
        e.message
    );
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    for status in [400u16, 401, 404, 422] {
        let server = FaultServer::start(vec![Fault::status(status, "{\"error\":\"bad\"}")]).await;
        let e = with_policy(openai(&server, 5_000), fast(3))
            .send(&hello())
            .await
            .expect_err("a 4xx is an error");
        assert_eq!(
            server.attempts(),
            1,
            "HTTP {status} is permanent: retrying cannot help"
        );
        assert_eq!(e.kind, ChannelErrorKind::Status);
        assert_eq!(e.status, Some(status));
        assert!(
            e.message.contains("1 attempt"),
            "the message says how many attempts were made: {}",
            e.message
        );
    }
}

#[tokio::test]
async fn a_hanging_target_times_out_and_is_retried() {
    let server = FaultServer::start(vec![Fault::Hang]).await;
    let e = openai(&server, 200)
        .send(&hello())
        .await
        .expect_err("a target that never answers");
    assert_eq!(
        e.kind,
        ChannelErrorKind::Timeout,
        "the per-attempt timeout fires: {}",
        e.message
    );
    assert!(
        e.message.contains("200 ms"),
        "the message names the timeout: {}",
        e.message
    );

    let server = FaultServer::start(vec![Fault::Hang, Fault::Ok(completion("second try"))]).await;
    let reply = with_policy(openai(&server, 200), fast(1))
        .send(&hello())
        .await
        .expect("a timeout is retryable");
    assert_eq!(reply.content, "second try");
    assert_eq!(server.attempts(), 2);
}

#[tokio::test]
async fn a_slow_drip_body_times_out() {
    let server = FaultServer::start(vec![Fault::SlowDrip(Duration::from_millis(20))]).await;
    let e = openai(&server, 300)
        .send(&hello())
        .await
        .expect_err("a body that never completes");
    assert_eq!(
        e.kind,
        ChannelErrorKind::Timeout,
        "the timeout covers reading the body, not only the headers: {}",
        e.message
    );
}

#[tokio::test]
async fn a_connection_reset_is_a_retryable_connect_error() {
    let server = FaultServer::start(vec![Fault::Reset]).await;
    let e = openai(&server, 5_000)
        .send(&hello())
        .await
        .expect_err("a reset connection");
    assert_eq!(e.kind, ChannelErrorKind::Connect, "{}", e.message);
    assert!(e.retryable());

    let server = FaultServer::start(vec![Fault::Reset, Fault::Ok(completion("back"))]).await;
    let reply = with_policy(openai(&server, 5_000), fast(1))
        .send(&hello())
        .await
        .expect("the policy retries after a reset");
    assert_eq!(reply.content, "back");
    assert_eq!(server.attempts(), 2);
}

#[tokio::test]
async fn a_refused_connection_is_a_connect_error() {
    // Bind, note the port, close: nothing listens there any more.
    let addr = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind")
        .local_addr()
        .expect("addr");
    let channel = OpenAiChannel::new(
        reqwest::Client::new(),
        format!("http://{addr}/v1"),
        "m".into(),
        Some(KEY.into()),
        Vec::new(),
        Duration::from_secs(5),
    );
    let e = with_policy(channel, fast(1))
        .send(&hello())
        .await
        .expect_err("nothing listens");
    assert_eq!(e.kind, ChannelErrorKind::Connect, "{}", e.message);
    assert!(
        e.message.contains("2 attempts"),
        "connect errors are retried: {}",
        e.message
    );
}

#[tokio::test]
async fn malformed_replies_are_not_retried() {
    for (fault, why, shown) in [
        (
            Fault::Raw("{\"choices\": [".into()),
            "truncated JSON",
            "EOF",
        ),
        (
            Fault::Raw("<html>gateway</html>".into()),
            "not JSON",
            "it starts with: <html>gateway",
        ),
        (
            Fault::Ok(json!({"object": "chat.completion"})),
            "no choices",
            "choices",
        ),
        (
            Fault::Ok(json!({"choices": []})),
            "empty choices",
            "choices",
        ),
    ] {
        let server = FaultServer::start(vec![fault]).await;
        let e = with_policy(openai(&server, 5_000), fast(2))
            .send(&hello())
            .await
            .expect_err(why);
        assert_eq!(e.kind, ChannelErrorKind::Malformed, "{why}: {}", e.message);
        assert!(
            e.message.contains(shown),
            "{why}: the message shows what was wrong: {}",
            e.message
        );
        assert_eq!(
            server.attempts(),
            1,
            "{why}: the same endpoint will answer the same way"
        );
    }
}

#[tokio::test]
async fn oversize_replies_are_refused() {
    let server = FaultServer::start(vec![Fault::Oversize(5 * 1024 * 1024)]).await;
    let e = openai(&server, 10_000)
        .send(&hello())
        .await
        .expect_err("5 MiB is over the 4 MiB default cap");
    assert_eq!(
        e.kind,
        ChannelErrorKind::TooLarge,
        "announced size: {}",
        e.message
    );

    let server = FaultServer::start(vec![Fault::Endless]).await;
    let e = openai(&server, 10_000)
        .with_max_reply_bytes(256 * 1024)
        .send(&hello())
        .await
        .expect_err("a body that never ends");
    assert_eq!(
        e.kind,
        ChannelErrorKind::TooLarge,
        "the cap stops a chunked body with no announced size: {}",
        e.message
    );
}

#[tokio::test]
async fn concurrency_limit_is_respected() {
    let server =
        FaultServer::start(vec![Fault::Gated(Box::new(Fault::Ok(completion("ok"))))]).await;
    let mut config = fast(0);
    config.concurrency = 2;
    let channel = Arc::new(with_policy(openai(&server, 10_000), config));
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let c = channel.clone();
            tokio::spawn(async move { c.send(&hello()).await })
        })
        .collect();
    wait_until(|| server.in_flight() == 2).await;
    // Give excess requests (if the limit leaked) time to arrive while the
    // gate still holds the first two.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        server.in_flight(),
        2,
        "only `concurrency` requests may be outstanding"
    );
    server.open_gate();
    for t in tasks {
        t.await.expect("task").expect("every request succeeds");
    }
    assert_eq!(server.attempts(), 8);
    assert_eq!(
        server.max_in_flight(),
        2,
        "the server never saw more than 2 at once"
    );
}

#[tokio::test]
async fn the_in_flight_counter_sees_unlimited_concurrency() {
    // The control for the test above: without a policy, all 8 overlap.
    let server =
        FaultServer::start(vec![Fault::Gated(Box::new(Fault::Ok(completion("ok"))))]).await;
    let channel = Arc::new(openai(&server, 10_000));
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let c = channel.clone();
            tokio::spawn(async move { c.send(&hello()).await })
        })
        .collect();
    wait_until(|| server.in_flight() == 8).await;
    server.open_gate();
    for t in tasks {
        t.await.expect("task").expect("ok");
    }
    assert_eq!(server.max_in_flight(), 8);
}

async fn wait_until(condition: impl Fn() -> bool) {
    for _ in 0..1000 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("condition not reached within 10 s");
}

/// Records when each request started.
struct Stamps(Mutex<Vec<tokio::time::Instant>>);

#[async_trait::async_trait]
impl Channel for Stamps {
    async fn send(&self, _request: &ChatRequest) -> Result<ChatReply, ChannelError> {
        self.0
            .lock()
            .expect("lock")
            .push(tokio::time::Instant::now());
        Ok(ChatReply {
            content: "ok".into(),
            tool_calls: Vec::new(),
            usage: None,
            latency_ms: 0,
            model: None,
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_spaces_request_starts() {
    let stamps = Arc::new(Stamps(Mutex::new(Vec::new())));
    let mut config = fast(0);
    config.concurrency = 8;
    config.rate_per_second = Some(20.0);
    let policy = Arc::new(Policy::new(stamps.clone(), config));
    let t0 = tokio::time::Instant::now();
    let tasks: Vec<_> = (0..6)
        .map(|_| {
            let p = policy.clone();
            tokio::spawn(async move { p.send(&hello()).await })
        })
        .collect();
    for t in tasks {
        t.await.expect("task").expect("ok");
    }
    let mut starts = stamps.0.lock().expect("lock").clone();
    starts.sort();
    assert_eq!(starts.len(), 6);
    let interval = Duration::from_millis(50);
    for (k, start) in starts.iter().enumerate() {
        // Slot k is at least k intervals after t0, and no request starts
        // before its slot: a lower bound that holds however slow the machine.
        assert!(
            *start >= t0 + interval * k as u32,
            "request {k} started {:?} after t0; 20/s allows it no earlier than {:?}",
            *start - t0,
            interval * k as u32
        );
    }
}

#[tokio::test]
async fn http_json_fills_the_template_and_reads_the_path() {
    let server = FaultServer::start(vec![Fault::Ok(
        json!({"data": {"answer": "Sent to Bob."}, "other": 1}),
    )])
    .await;
    let channel = HttpJsonChannel::new(
        reqwest::Client::new(),
        server.url("/chat"),
        Some(json!({
            "input": {"text": "{{message}}"},
            "context": "{{history}}",
            "note": "user said: {{message}}",
            "fixed": 42
        })),
        Some("$.data.answer".into()),
        vec![Header {
            name: "Authorization".into(),
            value: "Token abc".into(),
        }],
        Duration::from_secs(5),
    )
    .expect("valid config");
    let request = ChatRequest {
        messages: vec![
            ChatMessage::system("sys"),
            ChatMessage::user("first"),
            ChatMessage::assistant("reply"),
            ChatMessage::user("email Bob"),
        ],
        tools: Default::default(),
    };
    let reply = channel.send(&request).await.expect("a reply");
    assert_eq!(reply.content, "Sent to Bob.", "text at $.data.answer");
    assert_eq!(reply.usage, None, "a generic endpoint reports no usage");
    let seen = &server.requests()[0];
    assert_eq!(seen.path, "/chat");
    assert_eq!(seen.header("authorization"), Some("Token abc"));
    let body = seen.json();
    assert_eq!(
        body["input"]["text"], "email Bob",
        "{{message}} is the last user message"
    );
    assert_eq!(
        body["context"].as_array().map(Vec::len),
        Some(4),
        "{{history}} as a whole value is the messages array"
    );
    assert_eq!(body["context"][3]["role"], "user");
    assert_eq!(body["note"], "user said: email Bob");
    assert_eq!(body["fixed"], 42);
}

#[tokio::test]
async fn http_json_default_template_and_path() {
    let server = FaultServer::start(vec![Fault::Ok(json!({"reply": "hello back"}))]).await;
    let channel = HttpJsonChannel::new(
        reqwest::Client::new(),
        server.url("/"),
        None,
        None,
        Vec::new(),
        Duration::from_secs(5),
    )
    .expect("defaults are valid");
    let reply = channel.send(&hello()).await.expect("a reply");
    assert_eq!(reply.content, "hello back", "default path $.reply");
    let body = server.requests()[0].json();
    assert_eq!(body["message"], "hello");
    assert_eq!(body["history"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn http_json_rejects_a_bad_path_and_reports_a_missing_reply() {
    let e = HttpJsonChannel::new(
        reqwest::Client::new(),
        "http://127.0.0.1:9/".into(),
        None,
        Some("$.[oops".into()),
        Vec::new(),
        Duration::from_secs(1),
    )
    .err()
    .expect("an invalid JSONPath is a configuration error");
    assert_eq!(e.kind, ChannelErrorKind::Config);
    assert!(e.message.contains("$.[oops"), "{}", e.message);

    let server = FaultServer::start(vec![Fault::Ok(json!({"answer": "x"}))]).await;
    let channel = HttpJsonChannel::new(
        reqwest::Client::new(),
        server.url("/"),
        None,
        None,
        Vec::new(),
        Duration::from_secs(5),
    )
    .expect("valid");
    let e = with_policy(channel, fast(2))
        .send(&hello())
        .await
        .expect_err("nothing at $.reply");
    assert_eq!(e.kind, ChannelErrorKind::Malformed, "{}", e.message);
    assert_eq!(server.attempts(), 1, "a wrong shape is not retried");
}

#[tokio::test]
async fn http_json_shares_the_error_classification() {
    let server = FaultServer::start(vec![
        Fault::status(502, "bad gateway"),
        Fault::Ok(json!({"reply": "ok"})),
    ])
    .await;
    let channel = HttpJsonChannel::new(
        reqwest::Client::new(),
        server.url("/"),
        None,
        None,
        Vec::new(),
        Duration::from_secs(5),
    )
    .expect("valid");
    let reply = with_policy(channel, fast(1))
        .send(&hello())
        .await
        .expect("502 is retried");
    assert_eq!(reply.content, "ok");
    assert_eq!(server.attempts(), 2);
}

#[tokio::test]
async fn the_api_key_never_appears_in_error_messages() {
    // Some endpoints echo the key they were given (OpenAI quotes part of it).
    let server = FaultServer::start(vec![Fault::status(
        401,
        &format!("{{\"error\":{{\"message\":\"Incorrect API key provided: {KEY}\"}}}}"),
    )])
    .await;
    let e = with_policy(openai(&server, 5_000), fast(2))
        .send(&hello())
        .await
        .expect_err("401");
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str()),
        "the key was sent"
    );
    assert!(
        !e.message.contains(KEY),
        "the key is scrubbed from the message: {}",
        e.message
    );
    assert!(
        e.message.contains("Incorrect API key provided"),
        "the rest of the body is quoted: {}",
        e.message
    );
    assert!(!format!("{e:?}").contains(KEY), "nor in the Debug form");

    // Nor in transport errors.
    let server = FaultServer::start(vec![Fault::Hang]).await;
    let e = openai(&server, 100)
        .send(&hello())
        .await
        .expect_err("timeout");
    assert!(!format!("{e:?}").contains(KEY));
}

#[tokio::test]
async fn a_target_built_by_the_platform_uses_its_stored_key_and_policy() {
    let tp = crate::support::platform().await;
    let server = FaultServer::start(vec![
        Fault::status(500, "flaky"),
        Fault::Ok(completion("via platform")),
    ])
    .await;
    let target = tp
        .platform
        .create_target(TargetSettings {
            name: "fault target".into(),
            channel: ChannelConfig::Openai {
                base_url: server.base_url(),
                model: "fault-model".into(),
                api_key: Some(KEY.into()),
                api_key_env: None,
                api_key_ref: None,
                headers: Vec::new(),
            },
            concurrency: Some(2),
            rate_per_second: None,
            timeout_ms: Some(5_000),
            max_retries: Some(1),
            price_in_per_mtok: None,
            price_out_per_mtok: None,
        })
        .await
        .expect("create target");
    let channel = tp
        .platform
        .channel_for(target.id)
        .await
        .expect("build channel");
    let reply = channel
        .send(&hello())
        .await
        .expect("one retry covers one 500");
    assert_eq!(reply.content, "via platform");
    assert_eq!(server.attempts(), 2, "max_retries 1 allowed the retry");
    assert_eq!(
        server.requests()[1].header("authorization"),
        Some(format!("Bearer {KEY}").as_str()),
        "the key came back out of the secret store"
    );
}

#[tokio::test]
async fn a_bad_header_is_a_configuration_error_that_names_it() {
    let server = FaultServer::start(vec![Fault::Ok(completion("unused"))]).await;
    let channel = OpenAiChannel::new(
        reqwest::Client::new(),
        server.base_url(),
        "m".into(),
        Some(KEY.into()),
        vec![Header {
            name: "Bad Header".into(),
            value: "x".into(),
        }],
        Duration::from_secs(5),
    );
    let e = with_policy(channel, fast(2))
        .send(&hello())
        .await
        .expect_err("a header name with a space cannot be sent");
    assert_eq!(e.kind, ChannelErrorKind::Config);
    assert!(e.message.contains("Bad Header"), "{}", e.message);
    assert_eq!(server.attempts(), 0, "nothing is sent with a broken config");

    let e = OpenAiChannel::new(
        reqwest::Client::new(),
        server.base_url(),
        "m".into(),
        Some(format!("{KEY}\n")),
        Vec::new(),
        Duration::from_secs(5),
    )
    .send(&hello())
    .await
    .expect_err("a key with a newline cannot be a header");
    assert_eq!(e.kind, ChannelErrorKind::Config);
    assert!(
        !e.message.contains(KEY),
        "the message describes the key without quoting it: {}",
        e.message
    );
}
