//! Provenance: what left this machine. Every campaign records each host
//! its requests went to, per role (the target, the virtual user, the judge,
//! the analyst, the tool simulator), with request counts and tokens where the endpoint reported
//! them. Built-in agents (the demo target, the persona engine, the
//! heuristic judge, the template analysis) contact no host and record
//! nothing, so that a campaign that only talked to loopback addresses, or
//! to no host at all, reports that nothing left this machine.
//!
//! Requests happen thousands of times a second in benches: each is counted
//! in memory ([`Contacts::note`]) and the counts are written by the
//! group-commit writer with whatever batch it commits next (migration
//! 0014), as the run tallies are.
//!
//! Offline mode ([`Offline`]) refuses every endpoint that is not loopback,
//! when a target or role model is saved and again before each request.

use crate::error::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Mutex;
use uuid::Uuid;

/// Who a request was made for.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    specta::Type,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum HostRole {
    Target,
    VirtualUser,
    Judge,
    Analyst,
    ToolSimulator,
}

impl HostRole {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Target => "target",
            Self::VirtualUser => "virtual_user",
            Self::Judge => "judge",
            Self::Analyst => "analyst",
            Self::ToolSimulator => "tool_simulator",
        }
    }

    pub fn parse(s: &str) -> Self {
        match s {
            "virtual_user" => Self::VirtualUser,
            "judge" => Self::Judge,
            "analyst" => Self::Analyst,
            "tool_simulator" => Self::ToolSimulator,
            _ => Self::Target,
        }
    }
}

impl From<crate::models::Role> for HostRole {
    fn from(role: crate::models::Role) -> Self {
        match role {
            crate::models::Role::VirtualUser => Self::VirtualUser,
            crate::models::Role::Judge => Self::Judge,
            crate::models::Role::Analyst => Self::Analyst,
            crate::models::Role::ToolSimulator => Self::ToolSimulator,
        }
    }
}

/// `scheme://host:port` of a URL (the port always written, the path, the
/// query and any credentials never); `None` for what is no URL.
pub fn host_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url.trim()).ok()?;
    let host = parsed.host_str()?;
    let port = parsed.port_or_known_default()?;
    Some(format!("{}://{host}:{port}", parsed.scheme()))
}

/// Whether a URL (or a `scheme://host:port` from [`host_of`]) points at
/// this machine: `localhost`, 127.0.0.0/8 or ::1.
pub fn is_loopback(url: &str) -> bool {
    let Ok(parsed) = url::Url::parse(url.trim()) else {
        return false;
    };
    let Some(host) = parsed.host_str() else {
        return false;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<std::net::IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => {
            let d = bare.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
    }
}

/// Offline mode: whether only loopback endpoints may be used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Offline(pub bool);

impl Offline {
    /// From `AGENTEVAL_OFFLINE` (`1`, `true`, `yes`, `on`).
    pub fn from_env() -> Self {
        Self(std::env::var("AGENTEVAL_OFFLINE").is_ok_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        }))
    }

    /// The one rule: under offline mode an endpoint that is not loopback
    /// is refused. `what` names it for the message (e.g. "the judge model").
    pub fn check(self, what: &str, url: &str) -> Result<()> {
        if !self.0 || is_loopback(url) {
            return Ok(());
        }
        let host = host_of(url).unwrap_or_else(|| url.trim().chars().take(200).collect());
        Err(Error::new(
            ErrorCode::OfflineRefused,
            format!(
                "offline mode refuses {what} at {host}: only this machine (localhost, 127.0.0.0/8, ::1) may be contacted"
            ),
            "Use an endpoint on this machine, or turn offline mode off (the --offline flag, AGENTEVAL_OFFLINE, or the desktop app's settings).",
        ))
    }
}

/// Requests and tokens to one host for one role of one campaign.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub requests: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
}

pub type Key = (Uuid, HostRole, String);

/// Contacts counted in memory until the writer's next batch stores them.
#[derive(Debug, Default)]
pub struct Contacts(Mutex<HashMap<Key, Counts>>);

impl Contacts {
    /// One request to `host` for `role` of `campaign`, with the tokens the
    /// endpoint reported (if any).
    pub fn note(
        &self,
        campaign: Uuid,
        role: HostRole,
        host: &str,
        usage: Option<crate::chat::Usage>,
    ) {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let c = map.entry((campaign, role, host.to_string())).or_default();
        c.requests += 1;
        if let Some(u) = usage {
            c.tokens_in += u64::from(u.tokens_in);
            c.tokens_out += u64::from(u.tokens_out);
        }
    }

    /// Whether no contact waits to be stored.
    pub fn is_empty(&self) -> bool {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).is_empty()
    }

    pub fn take(&self) -> HashMap<Key, Counts> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }

    pub fn give_back(&self, counts: HashMap<Key, Counts>) {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        for (k, c) in counts {
            let e = map.entry(k).or_default();
            e.requests += c.requests;
            e.tokens_in += c.tokens_in;
            e.tokens_out += c.tokens_out;
        }
    }

    /// Counts again what a batch that failed did not store.
    pub fn restore(&self, pending: Pending) {
        self.give_back(pending.0);
    }
}

/// Counts written in a batch not yet committed.
pub struct Pending(pub HashMap<Key, Counts>);

/// One host a campaign contacted for one role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct HostContact {
    /// `scheme://host:port`.
    pub host: String,
    pub role: HostRole,
    pub requests: u64,
    /// Tokens the endpoint reported (0 when it reported none).
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// On this machine (localhost, 127.0.0.0/8, ::1).
    pub loopback: bool,
}

/// What left this machine during a campaign.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Provenance {
    /// Every host contacted, by role then host.
    pub hosts: Vec<HostContact>,
    /// No host was contacted, or only loopback ones: nothing left this
    /// machine (built-in agents run in-process).
    pub nothing_left_machine: bool,
}

impl Default for Provenance {
    /// No host contacted.
    fn default() -> Self {
        Self {
            hosts: Vec::new(),
            nothing_left_machine: true,
        }
    }
}
