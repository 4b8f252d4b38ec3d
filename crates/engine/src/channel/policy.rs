//! Timeout, retries with exponential backoff, concurrency and rate limits
//! around a channel. (Implementation in progress.)

use super::{Channel, ChannelError, ChatReply, ChatRequest};
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct PolicyConfig {
    pub max_retries: u32,
    pub concurrency: u32,
    pub rate_per_second: Option<f64>,
}

impl PolicyConfig {
    pub fn for_target(t: &crate::target::Target) -> Self {
        Self {
            max_retries: t.max_retries,
            concurrency: t.concurrency,
            rate_per_second: t.rate_per_second,
        }
    }
}

pub struct Policy {
    inner: Arc<dyn Channel>,
    _config: PolicyConfig,
}

impl Policy {
    pub fn new(inner: Arc<dyn Channel>, config: PolicyConfig) -> Self {
        Self {
            inner,
            _config: config,
        }
    }
}

#[async_trait::async_trait]
impl Channel for Policy {
    async fn send(&self, request: &ChatRequest) -> Result<ChatReply, ChannelError> {
        self.inner.send(request).await
    }
}
