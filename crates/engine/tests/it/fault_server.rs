//! A fault-injecting HTTP server on 127.0.0.1 for channel tests.
//!
//! Written on a bare TcpListener (not a framework) so that it can misbehave
//! the way real endpoints do: hang, reset the connection, drip bytes, send
//! bodies that never end. Each connection serves one request and is then
//! closed. Request `n` (0-based) gets `script[min(n, len-1)]`, so a script
//! `[Status(500), Ok(..)]` fails once and then succeeds forever.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

#[derive(Debug, Clone)]
pub enum Fault {
    /// 200 with this JSON body.
    Ok(Value),
    /// Any status with a body and extra headers.
    Status {
        status: u16,
        body: String,
        headers: Vec<(String, String)>,
    },
    /// 200 with this body as is (e.g. broken JSON).
    Raw(String),
    /// Read the request, never answer.
    Hang,
    /// Read the request, then reset the connection (RST).
    Reset,
    /// 200 announcing `n` bytes in Content-Length and sending them.
    Oversize(usize),
    /// 200, then one body byte per `interval`, forever.
    SlowDrip(Duration),
    /// 200 with a chunked body that never ends.
    Endless,
    /// Wait, then behave as the inner fault.
    Delay(Duration, Box<Fault>),
    /// Hold the request until [`FaultServer::open_gate`], then behave as
    /// the inner fault.
    Gated(Box<Fault>),
}

impl Fault {
    pub fn status(status: u16, body: &str) -> Self {
        Self::Status {
            status,
            body: body.into(),
            headers: Vec::new(),
        }
    }
}

/// What the server saw of one request.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == &name.to_ascii_lowercase())
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("the client sent JSON")
    }
}

struct Shared {
    script: Vec<Fault>,
    requests: Mutex<Vec<Recorded>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    gate: watch::Sender<bool>,
}

pub struct FaultServer {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FaultServer {
    pub async fn start(script: Vec<Fault>) -> Self {
        assert!(!script.is_empty(), "a script needs at least one fault");
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let shared = Arc::new(Shared {
            script,
            requests: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            gate: watch::channel(false).0,
        });
        let s = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(handle(stream, s.clone()));
            }
        });
        Self { addr, shared, task }
    }

    /// An OpenAI-style base URL.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Requests fully received so far.
    pub fn attempts(&self) -> usize {
        self.shared.requests.lock().expect("lock").len()
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().expect("lock").clone()
    }

    pub fn in_flight(&self) -> usize {
        self.shared.in_flight.load(Ordering::SeqCst)
    }

    pub fn max_in_flight(&self) -> usize {
        self.shared.max_in_flight.load(Ordering::SeqCst)
    }

    pub fn open_gate(&self) {
        self.shared.gate.send_replace(true);
    }
}

/// A chat completion body as OpenAI sends it.
pub fn completion(content: &str) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "fault-model",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
    })
}

/// A completion whose only content is tool calls.
pub fn tool_call_completion(calls: &[(&str, &str, &str)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    json!({
        "id": "chatcmpl-2",
        "object": "chat.completion",
        "created": 1,
        "model": "fault-model",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": null, "tool_calls": calls},
            "finish_reason": "tool_calls"
        }],
        "usage": {"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39}
    })
}

struct InFlight(Arc<Shared>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn read_request(stream: &mut TcpStream) -> Option<Recorded> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let header_end = loop {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[header_end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Recorded {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).to_string(),
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

async fn write_full(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    headers: &[(String, String)],
    body: &[u8],
) {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n",
        reason(status),
        body.len()
    );
    for (n, v) in headers {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(body).await;
    let _ = stream.shutdown().await;
}

async fn handle(mut stream: TcpStream, shared: Arc<Shared>) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    let index = {
        let mut requests = shared.requests.lock().expect("lock");
        requests.push(request);
        requests.len() - 1
    };
    let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    shared.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let _guard = InFlight(shared.clone());
    let fault = shared.script[index.min(shared.script.len() - 1)].clone();
    respond(&mut stream, fault, &shared).await;
}

async fn respond(stream: &mut TcpStream, mut fault: Fault, shared: &Shared) {
    loop {
        match fault {
            Fault::Delay(d, inner) => {
                tokio::time::sleep(d).await;
                fault = *inner;
            }
            Fault::Gated(inner) => {
                let mut rx = shared.gate.subscribe();
                let _ = rx.wait_for(|open| *open).await;
                fault = *inner;
            }
            _ => break,
        }
    }
    match fault {
        Fault::Ok(body) => {
            let body = serde_json::to_vec(&body).expect("serialize");
            write_full(stream, 200, "application/json", &[], &body).await;
        }
        Fault::Status {
            status,
            body,
            headers,
        } => {
            write_full(
                stream,
                status,
                "application/json",
                &headers,
                body.as_bytes(),
            )
            .await
        }
        Fault::Raw(body) => write_full(stream, 200, "application/json", &[], body.as_bytes()).await,
        Fault::Hang => {
            // Held until the test's runtime ends.
            std::future::pending::<()>().await;
        }
        Fault::Reset => {
            // SO_LINGER 0 turns the close into a RST, as a crashing proxy does.
            #[allow(deprecated)]
            let _ = stream.set_linger(Some(Duration::ZERO));
        }
        Fault::Oversize(n) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {n}\r\nconnection: close\r\n\r\n"
            );
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let block = vec![b' '; 64 * 1024];
            let mut sent = 0;
            while sent < n {
                let len = block.len().min(n - sent);
                if stream.write_all(&block[..len]).await.is_err() {
                    return;
                }
                sent += len;
            }
        }
        Fault::SlowDrip(interval) => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\nconnection: close\r\n\r\n{";
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            loop {
                tokio::time::sleep(interval).await;
                if stream.write_all(b" ").await.is_err() {
                    return;
                }
            }
        }
        Fault::Endless => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let data = vec![b' '; 32 * 1024];
            let frame = [
                format!("{:x}\r\n", data.len()).into_bytes(),
                data,
                b"\r\n".to_vec(),
            ]
            .concat();
            while stream.write_all(&frame).await.is_ok() {}
        }
        Fault::Delay(..) | Fault::Gated(..) => unreachable!("unwrapped above"),
    }
}
