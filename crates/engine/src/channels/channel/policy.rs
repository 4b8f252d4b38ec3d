//! Retries with exponential backoff, a concurrency limit and a rate limit
//! around a channel. The per-attempt timeout belongs to the channel itself.

use super::{Channel, ChannelError, ChatReply, ChatRequest};
use rand::Rng;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// First backoff delay; doubled per retry.
pub const DEFAULT_BACKOFF_BASE: Duration = Duration::from_millis(250);
/// Longest wait between attempts, also the cap on a `Retry-After`.
pub const DEFAULT_BACKOFF_MAX: Duration = Duration::from_secs(10);

#[derive(Debug, Clone)]
pub struct PolicyConfig {
    /// Retries after the first attempt, for retryable errors only.
    pub max_retries: u32,
    /// Maximum simultaneous requests (0 is treated as 1).
    pub concurrency: u32,
    /// Maximum requests per second; `None`, zero or negative = unlimited.
    pub rate_per_second: Option<f64>,
    pub backoff_base: Duration,
    pub backoff_max: Duration,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        Self {
            max_retries: crate::domain::target::DEFAULT_MAX_RETRIES,
            concurrency: crate::domain::target::DEFAULT_CONCURRENCY,
            rate_per_second: None,
            backoff_base: DEFAULT_BACKOFF_BASE,
            backoff_max: DEFAULT_BACKOFF_MAX,
        }
    }
}

impl PolicyConfig {
    pub fn for_target(t: &crate::domain::target::Target) -> Self {
        Self {
            max_retries: t.max_retries,
            concurrency: t.concurrency,
            rate_per_second: t.rate_per_second,
            ..Self::default()
        }
    }

    /// The wait before retry number `retry` (0 = first retry): exponential
    /// with "equal jitter" (half fixed, half random) so that clients that
    /// failed together do not retry together. A `Retry-After` from the
    /// endpoint wins, capped at `backoff_max`.
    pub fn backoff(&self, retry: u32, retry_after_ms: Option<u64>) -> Duration {
        if let Some(ms) = retry_after_ms {
            return Duration::from_millis(ms).min(self.backoff_max);
        }
        let exp = self
            .backoff_base
            .saturating_mul(2u32.saturating_pow(retry.min(30)))
            .min(self.backoff_max);
        let half = exp / 2;
        let jitter_ms = half.as_millis() as u64;
        let jitter = if jitter_ms == 0 {
            Duration::ZERO
        } else {
            Duration::from_millis(rand::rng().random_range(0..=jitter_ms))
        };
        half + jitter
    }
}

/// Spaces request starts evenly at the configured rate (a token bucket of
/// size one on tokio time, so that paused-time tests see exact spacing).
struct RateLimit {
    interval: Duration,
    next_slot: Mutex<Option<Instant>>,
}

impl RateLimit {
    fn new(rate_per_second: Option<f64>) -> Option<Self> {
        let rate = rate_per_second.filter(|r| r.is_finite() && *r > 0.0)?;
        // A target's rate is at least MIN_RATE_PER_SECOND (checked when it
        // is saved); a smaller one stored before is held to it rather than
        // overflowing a Duration.
        let slowest = Duration::from_secs_f64(1.0 / crate::domain::target::MIN_RATE_PER_SECOND);
        Some(Self {
            interval: Duration::try_from_secs_f64(1.0 / rate).map_or(slowest, |d| d.min(slowest)),
            next_slot: Mutex::new(None),
        })
    }

    async fn wait(&self) {
        let slot = {
            let mut next = self
                .next_slot
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let now = Instant::now();
            let slot = next.map_or(now, |n| n.max(now));
            *next = Some(slot + self.interval);
            slot
        };
        tokio::time::sleep_until(slot).await;
    }
}

pub struct Policy {
    inner: Arc<dyn Channel>,
    config: PolicyConfig,
    permits: Semaphore,
    rate: Option<RateLimit>,
}

impl Policy {
    pub fn new(inner: Arc<dyn Channel>, config: PolicyConfig) -> Self {
        let permits = Semaphore::new(config.concurrency.max(1) as usize);
        let rate = RateLimit::new(config.rate_per_second);
        Self {
            inner,
            config,
            permits,
            rate,
        }
    }

    /// One attempt, paced by the rate limit when `paced`.
    async fn attempt(&self, request: &ChatRequest, paced: bool) -> Result<ChatReply, ChannelError> {
        // The permit is held only for the attempt, not during backoff, so a
        // failing request does not block the others.
        let _permit = self
            .permits
            .acquire()
            .await
            .expect("the semaphore is never closed");
        if let Some(rate) = self.rate.as_ref().filter(|_| paced) {
            rate.wait().await;
        }
        self.inner.send(request).await
    }
}

fn attempts_text(n: u32) -> String {
    if n == 1 {
        "1 attempt".into()
    } else {
        format!("{n} attempts")
    }
}

#[async_trait::async_trait]
impl Channel for Policy {
    fn host(&self) -> Option<String> {
        self.inner.host()
    }

    async fn send(&self, request: &ChatRequest) -> Result<ChatReply, ChannelError> {
        self.send_with_retries(request, true).await
    }

    async fn probe(&self, request: &ChatRequest) -> Result<ChatReply, ChannelError> {
        self.send_with_retries(request, false).await
    }
}

impl Policy {
    /// Sends `request` with the target's retries (see [`Policy::attempt`]).
    async fn send_with_retries(
        &self,
        request: &ChatRequest,
        paced: bool,
    ) -> Result<ChatReply, ChannelError> {
        let mut attempts = 0u32;
        loop {
            attempts += 1;
            match self.attempt(request, paced).await {
                Ok(reply) => return Ok(reply),
                Err(mut e) => {
                    let retries_done = attempts - 1;
                    if !e.retryable() {
                        e.message = format!(
                            "{} (not retried: the error is permanent; {} made)",
                            e.message,
                            attempts_text(attempts)
                        );
                        return Err(e);
                    }
                    if retries_done >= self.config.max_retries {
                        e.message =
                            format!("gave up after {}: {}", attempts_text(attempts), e.message);
                        return Err(e);
                    }
                    let wait = self.config.backoff(retries_done, e.retry_after_ms);
                    tracing::debug!(
                        attempt = attempts,
                        wait_ms = wait.as_millis() as u64,
                        error = %e.message,
                        "retrying after a retryable channel error"
                    );
                    tokio::time::sleep(wait).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(base_ms: u64, max_ms: u64) -> PolicyConfig {
        PolicyConfig {
            backoff_base: Duration::from_millis(base_ms),
            backoff_max: Duration::from_millis(max_ms),
            ..PolicyConfig::default()
        }
    }

    #[test]
    fn backoff_grows_exponentially_within_jitter_bounds() {
        let c = config(100, 10_000);
        for retry in 0..5u32 {
            let exp = 100u64 * 2u64.pow(retry);
            for _ in 0..50 {
                let d = c.backoff(retry, None).as_millis() as u64;
                assert!(
                    d >= exp / 2 && d <= exp,
                    "retry {retry}: equal jitter keeps {d} ms within [{}, {exp}]",
                    exp / 2
                );
            }
        }
    }

    #[test]
    fn backoff_is_capped() {
        let c = config(100, 1_000);
        for _ in 0..50 {
            assert!(
                c.backoff(20, None) <= Duration::from_secs(1),
                "the cap bounds late retries"
            );
        }
    }

    #[test]
    fn retry_after_wins_but_is_capped() {
        let c = config(100, 1_000);
        assert_eq!(c.backoff(0, Some(700)), Duration::from_millis(700));
        assert_eq!(
            c.backoff(0, Some(60_000)),
            Duration::from_secs(1),
            "a long Retry-After must not stall an evaluation"
        );
    }
}
