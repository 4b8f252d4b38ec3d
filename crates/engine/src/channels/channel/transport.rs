//! The HTTP exchange shared by the OpenAI-compatible and the generic JSON
//! channels: one POST with a per-attempt timeout, a cap on the reply size,
//! and error classification that never repeats a secret.

use super::{ChannelError, ChannelErrorKind};
use crate::domain::target::Header;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use std::time::{Duration, Instant};

/// Replies larger than this are refused: a target that streams without end
/// must not exhaust memory.
pub const DEFAULT_MAX_REPLY_BYTES: usize = 4 * 1024 * 1024;

/// How much of an error body is quoted in a message.
const EXCERPT_CHARS: usize = 200;

/// Header values shorter than this are not treated as secrets when
/// scrubbing messages (redacting "1" everywhere would garble them).
const MIN_SECRET_LEN: usize = 8;

/// Where and how to POST.
pub(super) struct Endpoint {
    pub url: String,
    /// `url`, parsed once rather than per request.
    parsed: reqwest::Url,
    pub headers: HeaderMap,
    pub timeout: Duration,
    pub max_reply_bytes: usize,
    /// Strings that must never appear in an error message.
    secrets: Vec<String>,
}

/// A 2xx reply body with the time the attempt took.
pub(super) struct Reply {
    pub body: Vec<u8>,
    pub latency: Duration,
}

impl Endpoint {
    pub fn new(
        url: String,
        api_key: Option<&str>,
        headers: &[Header],
        timeout: Duration,
    ) -> Result<Self, ChannelError> {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ChannelError::new(
                ChannelErrorKind::Config,
                format!(
                    "the target URL must start with http:// or https://, got {:?}",
                    display_url(&url)
                ),
            ));
        }
        let parsed = reqwest::Url::parse(&url).map_err(|e| {
            ChannelError::new(
                ChannelErrorKind::Config,
                format!("the target URL {:?} is not valid: {e}", display_url(&url)),
            )
        })?;
        let mut map = HeaderMap::new();
        let mut secrets = Vec::new();
        for h in headers {
            let name = HeaderName::from_bytes(h.name.as_bytes()).map_err(|_| {
                ChannelError::new(
                    ChannelErrorKind::Config,
                    format!("header name {:?} is not a valid HTTP header name", h.name),
                )
            })?;
            let mut value = HeaderValue::from_str(&h.value).map_err(|_| {
                ChannelError::new(
                    ChannelErrorKind::Config,
                    format!(
                        "the value of header {:?} contains characters not allowed in HTTP headers",
                        h.name
                    ),
                )
            })?;
            value.set_sensitive(true);
            map.append(name, value);
            if h.value.len() >= MIN_SECRET_LEN {
                secrets.push(h.value.clone());
            }
        }
        if let Some(key) = api_key.filter(|k| !k.is_empty()) {
            let mut value = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| {
                ChannelError::new(
                    ChannelErrorKind::Config,
                    "the API key contains characters not allowed in HTTP headers",
                )
            })?;
            value.set_sensitive(true);
            map.insert(AUTHORIZATION, value);
            secrets.push(key.to_owned());
        }
        // Longest first, so that a secret containing another is redacted whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        Ok(Self {
            url,
            parsed,
            headers: map,
            timeout,
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
            secrets,
        })
    }

    /// Replaces every secret in `text` so that it can be shown.
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), "[redacted]");
            }
        }
        out
    }

    fn error(&self, kind: ChannelErrorKind, message: String) -> ChannelError {
        ChannelError::new(kind, self.scrub(&message))
    }

    /// POSTs `body` as JSON and returns the body of a 2xx reply.
    pub async fn post_json(
        &self,
        http: &reqwest::Client,
        body: &(impl serde::Serialize + Sync),
    ) -> Result<Reply, ChannelError> {
        let started = Instant::now();
        // One timer covers connect, headers and the whole body.
        let attempt = async {
            let response = http
                .post(self.parsed.clone())
                .headers(self.headers.clone())
                .json(body)
                .send()
                .await
                .map_err(|e| self.transport_error(&e))?;
            let status = response.status();
            if status.is_success() {
                let body = self.read_capped(response).await?;
                Ok(body)
            } else {
                Err(self.status_error(response).await)
            }
        };
        let body = match tokio::time::timeout(self.timeout, attempt).await {
            Ok(result) => result?,
            Err(_) => return Err(self.timeout_error()),
        };
        Ok(Reply {
            body,
            latency: started.elapsed(),
        })
    }

    fn timeout_error(&self) -> ChannelError {
        self.error(
            ChannelErrorKind::Timeout,
            format!(
                "{} did not answer within {} ms",
                display_url(&self.url),
                self.timeout.as_millis()
            ),
        )
    }

    fn transport_error(&self, e: &reqwest::Error) -> ChannelError {
        if e.is_timeout() {
            return self.timeout_error();
        }
        let kind = if e.is_builder() {
            ChannelErrorKind::Config
        } else if e.is_body() || e.is_decode() {
            ChannelErrorKind::Malformed
        } else {
            // Refused, reset, closed early, DNS or TLS failures: the
            // endpoint could not be reached properly; retrying may help.
            ChannelErrorKind::Connect
        };
        self.error(
            kind,
            format!(
                "request to {} failed: {}",
                display_url(&self.url),
                error_chain(e)
            ),
        )
    }

    /// Reads the body, refusing it as soon as it grows past the cap.
    async fn read_capped(&self, mut response: reqwest::Response) -> Result<Vec<u8>, ChannelError> {
        let cap = self.max_reply_bytes;
        if response.content_length().is_some_and(|n| n > cap as u64) {
            return Err(self.too_large());
        }
        let mut body = Vec::with_capacity(
            response
                .content_length()
                .map_or(8 * 1024, |n| n as usize)
                .min(cap),
        );
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > cap {
                        return Err(self.too_large());
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => return Ok(body),
                Err(e) => return Err(self.transport_error(&e)),
            }
        }
    }

    fn too_large(&self) -> ChannelError {
        self.error(
            ChannelErrorKind::TooLarge,
            format!(
                "the reply from {} is larger than {} bytes",
                display_url(&self.url),
                self.max_reply_bytes
            ),
        )
    }

    async fn status_error(&self, mut response: reqwest::Response) -> ChannelError {
        let status = response.status().as_u16();
        let retry_after_ms = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(parse_retry_after);
        // Only the start of the body is quoted; a failing read just leaves
        // the excerpt shorter.
        let mut head = Vec::new();
        while head.len() < 16 * 1024 {
            match response.chunk().await {
                Ok(Some(chunk)) => head.extend_from_slice(&chunk),
                _ => break,
            }
        }
        let excerpt = excerpt(&String::from_utf8_lossy(&head));
        let kind = if status == 429 {
            ChannelErrorKind::RateLimited
        } else {
            ChannelErrorKind::Status
        };
        let mut message = format!("{} answered HTTP {status}", display_url(&self.url));
        if !excerpt.is_empty() {
            message.push_str(": ");
            message.push_str(&excerpt);
        }
        let mut error = self.error(kind, message);
        error.status = Some(status);
        error.retry_after_ms = retry_after_ms;
        error
    }

    /// A body that did not parse: the parse error and the body's start,
    /// which usually shows what answered instead (an HTML error page, a proxy).
    pub fn unparseable(
        &self,
        expected: &str,
        body: &[u8],
        error: impl std::fmt::Display,
    ) -> ChannelError {
        let start = excerpt(&String::from_utf8_lossy(&body[..body.len().min(1024)]));
        self.malformed(format_args!(
            "is not {expected} ({error}); it starts with: {start}"
        ))
    }

    pub fn malformed(&self, what: impl std::fmt::Display) -> ChannelError {
        self.error(
            ChannelErrorKind::Malformed,
            format!("the reply from {} {what}", display_url(&self.url)),
        )
    }
}

/// The URL without its query string, which may carry a key.
pub(super) fn display_url(url: &str) -> &str {
    url.split_once('?').map_or(url, |(head, _)| head)
}

/// The error and its causes, without the URL (shown separately).
fn error_chain(e: &reqwest::Error) -> String {
    use std::error::Error as _;
    let mut parts: Vec<String> = Vec::new();
    let mut current: Option<&(dyn std::error::Error + 'static)> = e.source();
    let head = e.to_string();
    let head = head
        .split_once(" for url (")
        .map_or(head.as_str(), |(h, _)| h);
    parts.push(head.to_owned());
    while let Some(cause) = current {
        let text = cause.to_string();
        if !parts.iter().any(|p| p == &text) {
            parts.push(text);
        }
        current = cause.source();
    }
    parts.join(": ")
}

/// The first characters of a body, on one line.
fn excerpt(body: &str) -> String {
    let flat: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > EXCERPT_CHARS {
        let cut: String = flat.chars().take(EXCERPT_CHARS).collect();
        format!("{cut}...")
    } else {
        flat
    }
}

/// `Retry-After` as delay-seconds (integer or decimal) or an HTTP date.
pub(super) fn parse_retry_after(value: &str) -> Option<u64> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then_some((secs * 1000.0) as u64);
    }
    let at = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let ms = (at.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_milliseconds();
    Some(ms.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_accepts_seconds_and_dates() {
        assert_eq!(parse_retry_after("2"), Some(2000), "integer seconds");
        assert_eq!(parse_retry_after(" 0.5 "), Some(500), "decimal seconds");
        assert_eq!(parse_retry_after("-1"), None, "negative delays are invalid");
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(0),
            "a date in the past means retry now"
        );
        assert_eq!(parse_retry_after("soon"), None, "garbage is ignored");
    }

    #[test]
    fn excerpt_is_short_and_on_one_line() {
        let long = "x ".repeat(500);
        let e = excerpt(&long);
        assert!(e.chars().count() <= EXCERPT_CHARS + 3, "excerpt is capped");
        assert!(!excerpt("a\nb").contains('\n'), "excerpt is one line");
    }

    #[test]
    fn scrub_redacts_key_and_long_header_values() {
        let endpoint = Endpoint::new(
            "http://127.0.0.1:1/v1".into(),
            Some("sk-very-secret"),
            &[Header {
                name: "X-Token".into(),
                value: "tok-12345678".into(),
            }],
            Duration::from_secs(1),
        )
        .expect("valid endpoint");
        let s = endpoint.scrub("bad key sk-very-secret and tok-12345678");
        assert!(!s.contains("sk-very-secret") && !s.contains("tok-12345678"));
    }

    #[test]
    fn display_url_drops_query() {
        assert_eq!(
            display_url("http://h/x?key=abc"),
            "http://h/x",
            "query strings can hold keys"
        );
    }
}
