//! Provenance: what left this machine. Every campaign records each host
//! its requests went to, per role (the target, the virtual user, the judge,
//! the analyst), with request counts and tokens where the endpoint reported
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
}

impl HostRole {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Target => "target",
            Self::VirtualUser => "virtual_user",
            Self::Judge => "judge",
            Self::Analyst => "analyst",
        }
    }

    pub(crate) fn parse(s: &str) -> Self {
        match s {
            "virtual_user" => Self::VirtualUser,
            "judge" => Self::Judge,
            "analyst" => Self::Analyst,
            _ => Self::Target,
        }
    }
}

impl From<crate::role_models::Role> for HostRole {
    fn from(role: crate::role_models::Role) -> Self {
        match role {
            crate::role_models::Role::VirtualUser => Self::VirtualUser,
            crate::role_models::Role::Judge => Self::Judge,
            crate::role_models::Role::Analyst => Self::Analyst,
        }
    }
}

/// `scheme://host:port` of a URL (the port always written, the path, the
/// query and any credentials never); `None` for what is no URL.
pub fn host_of(url: &str) -> Option<String> {
    let parsed = reqwest::Url::parse(url.trim()).ok()?;
    let host = parsed.host_str()?;
    let port = parsed.port_or_known_default()?;
    Some(format!("{}://{host}:{port}", parsed.scheme()))
}

/// Whether a URL (or a `scheme://host:port` from [`host_of`]) points at
/// this machine: `localhost`, 127.0.0.0/8 or ::1.
pub fn is_loopback(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url.trim()) else {
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
pub(crate) struct Counts {
    pub requests: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
}

pub(crate) type Key = (Uuid, HostRole, String);

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
        usage: Option<crate::channel::Usage>,
    ) {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let c = map.entry((campaign, role, host.to_string())).or_default();
        c.requests += 1;
        if let Some(u) = usage {
            c.tokens_in += u64::from(u.tokens_in);
            c.tokens_out += u64::from(u.tokens_out);
        }
    }

    pub(crate) fn take(&self) -> HashMap<Key, Counts> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }

    pub(crate) fn give_back(&self, counts: HashMap<Key, Counts>) {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        for (k, c) in counts {
            let e = map.entry(k).or_default();
            e.requests += c.requests;
            e.tokens_in += c.tokens_in;
            e.tokens_out += c.tokens_out;
        }
    }

    /// Counts again what a batch that failed did not store.
    pub(crate) fn restore(&self, pending: Pending) {
        self.give_back(pending.0);
    }
}

/// Counts written in a batch not yet committed.
pub(crate) struct Pending(pub(crate) HashMap<Key, Counts>);

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

impl crate::platform::Platform {
    /// What a campaign sent off this machine, including what was counted a
    /// moment ago (the writer commits it first).
    pub async fn campaign_provenance(&self, campaign_id: Uuid) -> Result<Provenance> {
        self.store.transact(|_| Ok(())).await?;
        self.store
            .snapshot(move |read| read.provenance(campaign_id))
            .await
    }

    /// `client`, counting each request with `campaign`'s provenance and
    /// refusing, under offline mode, an endpoint not on this machine.
    pub(crate) fn metered<C>(&self, client: C, campaign: Uuid, role: HostRole) -> Metered<C> {
        Metered {
            inner: client,
            contacts: self.contacts.clone(),
            offline: self.offline(),
            campaign,
            role,
        }
    }

    /// Counts one request to a target or role model (nothing for built-in
    /// agents, which have no host).
    pub(crate) fn note_contact(
        &self,
        campaign: Uuid,
        role: HostRole,
        host: Option<&str>,
        usage: Option<crate::channel::Usage>,
    ) {
        if let Some(host) = host {
            self.contacts.note(campaign, role, host, usage);
        }
    }
}

/// A role model's client that counts each request with a campaign's
/// provenance and, under offline mode, refuses to send to an endpoint that
/// is not on this machine (the last wall, whatever was configured).
/// `C` is an `Arc` or a reference of the client.
pub(crate) struct Metered<C> {
    pub inner: C,
    pub contacts: std::sync::Arc<Contacts>,
    pub offline: Offline,
    pub campaign: Uuid,
    pub role: HostRole,
}

impl<'a, C: std::ops::Deref<Target = dyn crate::role_models::ChatClient + 'a>> Metered<C> {
    fn host(&self) -> Result<Option<String>, crate::channel::ChannelError> {
        let Some(url) = self.inner.endpoint() else {
            return Ok(None);
        };
        self.offline
            .check(
                &format!("the {} model", self.role.as_str().replace('_', "-")),
                &url,
            )
            .map_err(|e| {
                crate::channel::ChannelError::new(
                    crate::channel::ChannelErrorKind::Config,
                    e.body.message,
                )
            })?;
        Ok(host_of(&url))
    }

    fn note(&self, host: &Option<String>, usage: Option<crate::channel::Usage>) {
        if let Some(host) = host {
            self.contacts.note(self.campaign, self.role, host, usage);
        }
    }
}

#[async_trait::async_trait]
impl<'a, C> crate::role_models::ChatClient for Metered<C>
where
    C: std::ops::Deref<Target = dyn crate::role_models::ChatClient + 'a> + Send + Sync,
{
    async fn complete(
        &self,
        messages: &[crate::channel::ChatMessage],
    ) -> Result<crate::channel::ChatReply, crate::channel::ChannelError> {
        let host = self.host()?;
        let reply = self.inner.complete(messages).await;
        self.note(&host, reply.as_ref().ok().and_then(|r| r.usage));
        reply
    }

    async fn complete_structured(
        &self,
        messages: &[crate::channel::ChatMessage],
        schema: &crate::structured::OutputSchema,
    ) -> Result<crate::role_models::StructuredReply, crate::channel::ChannelError> {
        let host = self.host()?;
        let reply = self.inner.complete_structured(messages, schema).await;
        self.note(&host, reply.as_ref().ok().and_then(|r| r.reply.usage));
        reply
    }

    fn model_name(&self) -> String {
        self.inner.model_name()
    }

    fn endpoint(&self) -> Option<String> {
        self.inner.endpoint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_keep_scheme_host_and_port_only() {
        assert_eq!(
            host_of("http://user:pw@127.0.0.1:8080/v1/chat?key=s").as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert_eq!(
            host_of("https://api.example.com/v1").as_deref(),
            Some("https://api.example.com:443")
        );
        assert_eq!(
            host_of("http://[::1]:9/x").as_deref(),
            Some("http://[::1]:9")
        );
        assert!(is_loopback("http://127.9.9.9:1") && is_loopback("http://[::1]:9"));
        assert!(is_loopback("http://localhost:3000/v1"));
        assert!(!is_loopback("http://10.1.2.3:8080/v1"));
        assert!(!is_loopback("http://localhost.example.com/"));
        assert!(Offline(true).check("x", "http://127.0.0.1:1/v1").is_ok());
        let e = Offline(true)
            .check("the judge model", "http://10.1.2.3:8080/v1")
            .unwrap_err();
        assert_eq!(e.body.code, ErrorCode::OfflineRefused);
        assert!(e.body.message.contains("http://10.1.2.3:8080"));
        assert!(Offline(false).check("x", "http://10.1.2.3:8080/v1").is_ok());
    }
}
