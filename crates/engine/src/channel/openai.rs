//! OpenAI-compatible chat completions over reqwest. (Implementation in progress.)

use super::{Channel, ChannelError, ChannelErrorKind, ChatReply, ChatRequest};
use crate::target::Header;
use std::time::Duration;

pub struct OpenAiChannel {
    _http: reqwest::Client,
}

impl OpenAiChannel {
    pub fn new(
        http: reqwest::Client,
        _base_url: String,
        _model: String,
        _api_key: Option<String>,
        _headers: Vec<Header>,
        _timeout: Duration,
    ) -> Self {
        Self { _http: http }
    }
}

#[async_trait::async_trait]
impl Channel for OpenAiChannel {
    async fn send(&self, _request: &ChatRequest) -> Result<ChatReply, ChannelError> {
        Err(ChannelError::new(
            ChannelErrorKind::Config,
            "not implemented",
        ))
    }
}
