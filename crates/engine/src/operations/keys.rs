//! Named API keys with roles, for a server a team shares (DESIGN §8):
//! creating one (the key is shown that once), listing, revoking, and
//! recognising the key a request carries. Only a key's SHA-256 is stored,
//! and a request's key is looked up by it.

use crate::domain::api_key::{self, NewApiKey};
use crate::error::{Error, ErrorCode, Result};
use crate::msg;
use crate::platform::Platform;
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::sync::Mutex;
use uuid::Uuid;

pub use crate::domain::api_key::{
    ApiKeyInfo, ApiKeyRole, Caller, CreateApiKey, CreatedApiKey, DESKTOP_USER_NAME, Identity,
    SERVER_KEY_NAME,
};

/// A key's last use is written at most this often: a request does not pay
/// for a write, only the first of each minute does.
pub const LAST_USED_EVERY: chrono::Duration = chrono::Duration::minutes(1);

/// When this process last wrote each key's use, so that requests arriving
/// together write it once.
#[derive(Debug, Default)]
pub(crate) struct KeyUses(Mutex<HashMap<Uuid, DateTime<Utc>>>);

impl KeyUses {
    /// Whether `key`'s use at `now` is to be written: when neither the
    /// database (its `last_used_at`) nor this process holds a use from the
    /// last minute. Claims the write when it is.
    fn claim(&self, key: &ApiKeyInfo, now: DateTime<Utc>) -> bool {
        let recent = |at: DateTime<Utc>| now - at < LAST_USED_EVERY;
        if key.last_used_at.is_some_and(recent) {
            return false;
        }
        let mut written = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if written.get(&key.id).copied().is_some_and(recent) {
            return false;
        }
        written.insert(key.id, now);
        true
    }
}

impl Platform {
    /// Creates key `req.name` with role `req.role` and gives it out, the
    /// only time it is: 400 for an invalid name or role, 409 when the name
    /// is taken (by a revoked key too). `actor` is who asked, for the
    /// audit trail.
    pub async fn create_api_key(&self, req: CreateApiKey, actor: &str) -> Result<CreatedApiKey> {
        let name = api_key::check_key_name(&req.name)?.to_string();
        let role = ApiKeyRole::parse(&req.role)?;
        let mut bytes = [0u8; 32];
        rand::Rng::fill(&mut rand::rng(), &mut bytes);
        let key = api_key::key_from_bytes(&bytes);
        let new = NewApiKey {
            id: self.ids.next_id(),
            name: name.clone(),
            role,
            key_hash: api_key::hash_key(&key),
            prefix: api_key::shown_prefix(&key),
            created_at: self.clock.now(),
        };
        if !self.store.insert_api_key(&new).await? {
            return Err(Error::msg(
                ErrorCode::Conflict,
                msg!("error-key-exists", name = name),
                msg!("error-key-exists-suggestion"),
            ));
        }
        self.audit(actor, "key.create", Some(new.id), "ok").await;
        Ok(CreatedApiKey {
            name,
            role,
            prefix: new.prefix,
            key,
        })
    }

    /// Every key, revoked ones too, oldest first: never a key nor its hash.
    pub async fn list_api_keys(&self) -> Result<Vec<ApiKeyInfo>> {
        self.store.api_keys().await
    }

    /// Revokes key `name` (404 when there is none); revoking it again
    /// changes nothing and answers it as it is. `actor` is who asked.
    pub async fn revoke_api_key(&self, name: &str, actor: &str) -> Result<ApiKeyInfo> {
        let revoked = self
            .store
            .revoke_api_key(name, self.clock.now())
            .await?
            .ok_or_else(|| {
                Error::msg(
                    ErrorCode::NotFound,
                    msg!("error-key-unknown", name = name),
                    msg!("error-key-unknown-suggestion"),
                )
            })?;
        self.audit(actor, "key.revoke", Some(revoked.id), "ok")
            .await;
        Ok(revoked)
    }

    /// The name and role of the named key `key`, or `None` when it is no
    /// key or a revoked one. Its use is recorded at most once a minute
    /// ([`LAST_USED_EVERY`]).
    pub async fn authenticate(&self, key: &str) -> Result<Option<Caller>> {
        let Some(found) = self.store.api_key_by_hash(&api_key::hash_key(key)).await? else {
            return Ok(None);
        };
        if found.revoked_at.is_some() {
            return Ok(None);
        }
        let now = self.clock.now();
        if self.key_uses.claim(&found, now)
            && let Err(e) = self.store.set_api_key_last_used(found.id, now).await
        {
            // The call goes on; a use a minute later records it.
            tracing::warn!(error = %e, key = %found.name, "could not record a key's use");
        }
        Ok(Some(Caller {
            name: found.name,
            role: found.role,
        }))
    }
}
