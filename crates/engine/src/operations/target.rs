//! Targets: the agents under evaluation and how to reach them.

use crate::domain::ids::TargetId;
use crate::error::{Error, Result};
use crate::msg;
use crate::platform::Platform;

pub use crate::domain::target::*;

impl Platform {
    /// Checks a channel and moves a clear-text API key into the secret
    /// store. `current` is the stored channel on update: its key is kept
    /// unless a new one is given.
    fn prepare_channel(
        &self,
        mut channel: ChannelConfig,
        current: Option<&ChannelConfig>,
    ) -> Result<ChannelConfig> {
        match &mut channel {
            ChannelConfig::Openai {
                base_url,
                model,
                api_key,
                api_key_ref,
                ..
            } => {
                validate_url("channel.base_url", base_url)?;
                if model.trim().is_empty() {
                    return Err(Error::invalid_msg(
                        msg!("error-target-model-empty"),
                        msg!("error-target-model-empty-suggestion"),
                    ));
                }
                let stored = match current {
                    Some(ChannelConfig::Openai { api_key_ref, .. }) => api_key_ref.clone(),
                    _ => None,
                };
                if let Some(key) = api_key.take() {
                    *api_key_ref = Some(self.secrets.put(&key)?);
                } else if api_key_ref.is_some() && *api_key_ref != stored {
                    return Err(Error::invalid_msg(
                        msg!("error-target-key-ref"),
                        msg!("error-target-key-ref-suggestion"),
                    ));
                } else if current.is_some() {
                    // Left out on update: the key stays.
                    *api_key_ref = stored;
                }
            }
            ChannelConfig::Http { url, .. } => validate_url("channel.url", url)?,
            ChannelConfig::Builtin { .. } => {}
        }
        if let Some(url) = channel_url(&channel) {
            self.offline().check("the target", url)?;
        }
        Ok(channel)
    }

    /// Creates a target. A clear-text API key is moved into the secret store.
    /// Under offline mode, a target that is not on this machine is refused.
    #[tracing::instrument(skip_all, fields(name = %req.name))]
    pub async fn create_target(&self, req: TargetSettings) -> Result<Target> {
        let settings = Settings::check(&req)?;
        let channel = self.prepare_channel(req.channel, None)?;
        let now = self.clock.now();
        let target = settings.target(TargetId(self.ids.next_id()), channel, now, None, now);
        self.store.insert_target(&target).await?;
        self.audit_operation("target.create", Some(target.id.into()), "ok")
            .await;
        Ok(target)
    }

    /// Replaces a target's settings. Campaigns already created keep the
    /// model label they recorded; their next requests use the new settings.
    #[tracing::instrument(skip_all, fields(id = %id))]
    pub async fn update_target(&self, id: TargetId, req: TargetSettings) -> Result<Target> {
        let current = self.get_target(id).await?;
        let settings = Settings::check(&req)?;
        let channel = self.prepare_channel(req.channel, Some(&current.channel))?;
        let target = settings.target(
            id,
            channel,
            current.created_at,
            current.archived_at,
            self.clock.now(),
        );
        self.store.update_target(&target).await?;
        // The next request builds the channel with the new settings.
        self.forget_channel(id);
        self.audit_operation("target.update", Some(id.into()), "ok")
            .await;
        self.get_target(id).await
    }

    /// Removes a target: deleted when no campaign uses it, else archived
    /// (kept for the campaigns' reports, out of the list). Idempotent for
    /// an archived target.
    #[tracing::instrument(skip(self))]
    pub async fn delete_target(&self, id: TargetId) -> Result<TargetRemoval> {
        self.get_target(id).await?;
        let now = self.clock.now();
        // One statement each, so that no read lock has to be upgraded while
        // other connections write: deleted when no campaign uses it, else
        // archived (a campaign created in between makes it archived).
        let outcome = if self.store.delete_unused_target(id).await? {
            RemovalOutcome::Deleted
        } else {
            self.store.archive_target(id, now).await?;
            RemovalOutcome::Archived
        };
        self.forget_channel(id);
        let action = match outcome {
            RemovalOutcome::Deleted => "target.delete",
            RemovalOutcome::Archived => "target.archive",
        };
        self.audit_operation(action, Some(id.into()), "ok").await;
        Ok(TargetRemoval { id, outcome })
    }

    /// The targets in use, oldest first (archived ones left out).
    pub async fn list_targets(&self) -> Result<Vec<Target>> {
        self.list_targets_with(false).await
    }

    /// The targets, oldest first; archived ones too when asked.
    pub async fn list_targets_with(&self, include_archived: bool) -> Result<Vec<Target>> {
        self.store.targets(include_archived).await
    }

    pub async fn get_target(&self, id: TargetId) -> Result<Target> {
        self.store
            .target(id)
            .await?
            .ok_or_else(|| Error::not_found("target", id))
    }
}
