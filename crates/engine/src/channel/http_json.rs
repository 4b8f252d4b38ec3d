//! A generic HTTP JSON channel. (Implementation in progress.)

use super::{Channel, ChannelError, ChannelErrorKind, ChatReply, ChatRequest};
use crate::target::Header;
use std::time::Duration;

pub struct HttpJsonChannel {
    _http: reqwest::Client,
}

impl HttpJsonChannel {
    pub fn new(
        http: reqwest::Client,
        _url: String,
        _request_template: Option<serde_json::Value>,
        _response_path: Option<String>,
        _headers: Vec<Header>,
        _timeout: Duration,
    ) -> Result<Self, ChannelError> {
        Ok(Self { _http: http })
    }
}

#[async_trait::async_trait]
impl Channel for HttpJsonChannel {
    async fn send(&self, _request: &ChatRequest) -> Result<ChatReply, ChannelError> {
        Err(ChannelError::new(
            ChannelErrorKind::Config,
            "not implemented",
        ))
    }
}
