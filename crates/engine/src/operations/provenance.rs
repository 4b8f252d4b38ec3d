//! Provenance as the platform keeps it: a campaign's record of what left
//! this machine (the types: [`crate::domain::provenance`]), and the role
//! models' clients metered and held to offline mode.

use crate::domain::ids::CampaignId;
use crate::error::Result;
use uuid::Uuid;

pub use crate::domain::provenance::*;

impl crate::platform::Platform {
    /// What a campaign sent off this machine, including what was counted a
    /// moment ago (the writer commits it first).
    pub async fn campaign_provenance(&self, campaign_id: CampaignId) -> Result<Provenance> {
        self.store.flush().await?;
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
    use crate::error::ErrorCode;

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
