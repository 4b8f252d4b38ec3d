//! Injected time and ids, so that windows, intervals and `time_scale` are
//! tested without sleeping.

use chrono::{DateTime, Duration, Utc};
use std::sync::Mutex;
use uuid::Uuid;

pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;
}

/// The wall clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that moves only when told to.
#[derive(Debug)]
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    pub fn new(start: DateTime<Utc>) -> Self {
        Self(Mutex::new(start))
    }

    pub fn advance(&self, by: Duration) {
        let mut t = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *t += by;
    }

    pub fn set(&self, to: DateTime<Utc>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = to;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

pub trait IdSource: Send + Sync + 'static {
    fn next_id(&self) -> Uuid;
}

/// UUID v7 ids: time-ordered, so that rows sort by creation.
#[derive(Debug, Default, Clone, Copy)]
pub struct UuidV7;

impl IdSource for UuidV7 {
    fn next_id(&self) -> Uuid {
        Uuid::now_v7()
    }
}

/// Milliseconds since the epoch: how every time is stored.
pub fn to_ms(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

pub fn from_ms(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}
