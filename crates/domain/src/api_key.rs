//! Named API keys with roles, for a server a team shares (DESIGN §8).
//!
//! A key is a random token shown once when it is created; only its SHA-256
//! is stored, with a short prefix that lists can show. A fast hash is the
//! right tool here: the token carries 256 random bits, so there is nothing
//! to guess that a slow hash would protect, and every request looks its
//! key up by that hash.

use crate::error::{Error, Result};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// What a key may do.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum ApiKeyRole {
    /// Reads only: every GET, the exports, the reports and the live events.
    Viewer,
    /// Everything in the API except managing keys.
    Editor,
    /// Everything, managing keys included.
    Admin,
}

impl ApiKeyRole {
    pub const ALL: [Self; 3] = [Self::Viewer, Self::Editor, Self::Admin];

    /// The stored and wire name, e.g. `viewer`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Viewer => "viewer",
            Self::Editor => "editor",
            Self::Admin => "admin",
        }
    }

    /// A role from its name; anything else is refused with the names.
    pub fn parse(raw: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|r| r.as_str() == raw)
            .ok_or_else(|| {
                Error::invalid_msg(
                    crate::msg!("error-key-role", got = raw),
                    crate::msg!("error-key-role-suggestion"),
                )
            })
    }

    /// Whether calls that change something (any method but GET) are allowed.
    pub fn may_change(self) -> bool {
        self != Self::Viewer
    }

    /// Whether the key-management calls are allowed.
    pub fn may_manage_keys(self) -> bool {
        self == Self::Admin
    }
}

impl std::fmt::Display for ApiKeyRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The name under which the server's own key (`agenteval serve --api-key`
/// or `AGENTEVAL_API_KEY`) acts, as an admin; no named key may take it.
pub const SERVER_KEY_NAME: &str = "server-key";

/// How every generated key begins, so that a leaked one is recognisable.
pub const KEY_PREFIX: &str = "aek_";

/// Characters of a key shown in lists: the [`KEY_PREFIX`] and 8 of its
/// 64 hexadecimal digits (32 bits of 256), enough to tell keys apart.
const SHOWN_CHARS: usize = KEY_PREFIX.len() + 8;

/// The longest key name.
pub const MAX_NAME_CHARS: usize = 64;

/// A key as lists show it: never the key itself nor its hash.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct ApiKeyInfo {
    pub id: Uuid,
    pub name: String,
    pub role: ApiKeyRole,
    /// The key's first characters (`aek_1a2b3c4d`), not secret.
    pub prefix: String,
    pub created_at: DateTime<Utc>,
    /// When the key was last used, to the minute.
    pub last_used_at: Option<DateTime<Utc>>,
    /// When the key was revoked; a revoked key is refused (401).
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A key to store: its hash and prefix, never the key.
#[derive(Debug, Clone, PartialEq)]
pub struct NewApiKey {
    pub id: Uuid,
    pub name: String,
    pub role: ApiKeyRole,
    /// SHA-256 of the key, in hexadecimal ([`hash_key`]).
    pub key_hash: String,
    pub prefix: String,
    pub created_at: DateTime<Utc>,
}

/// `POST /api/keys`, `agenteval keys create`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CreateApiKey {
    /// 1-64 letters, digits, `.`, `_` or `-`, beginning with a letter or a
    /// digit; unique; not `server-key` (the server's own key).
    #[schema(pattern = r"^(?!server-key$)[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
    pub name: String,
    /// `viewer`, `editor` or `admin`.
    #[schema(value_type = ApiKeyRole)]
    pub role: String,
}

/// A key just created: the only time the key itself is given out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct CreatedApiKey {
    pub name: String,
    pub role: ApiKeyRole,
    pub prefix: String,
    /// The key, to send as `X-API-Key`: shown only this once.
    pub key: String,
}

/// Who made a call: the name and role of the key it carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub name: String,
    pub role: ApiKeyRole,
}

impl Caller {
    /// The server's own key, an admin.
    pub fn server_key() -> Self {
        Self {
            name: SERVER_KEY_NAME.to_string(),
            role: ApiKeyRole::Admin,
        }
    }

    /// The audit trail's actor for this caller: `key:alice`.
    pub fn actor(&self) -> String {
        format!("key:{}", self.name)
    }

    /// The person at the desktop app on its own database: it is theirs.
    pub fn desktop_user() -> Self {
        Self {
            name: DESKTOP_USER_NAME.to_string(),
            role: ApiKeyRole::Admin,
        }
    }

    /// Who this caller is and what it may do, as `GET /api/whoami` says.
    pub fn identity(&self) -> Identity {
        Identity {
            name: self.name.clone(),
            role: self.role,
            may_change: self.role.may_change(),
            may_manage_keys: self.role.may_manage_keys(),
        }
    }
}

/// The name the desktop app's own user acts under on its local database.
pub const DESKTOP_USER_NAME: &str = "desktop";

/// Who a key is and what it may do (`GET /api/whoami`): a client shows the
/// name and role and hides the actions the role may not take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, specta::Type)]
pub struct Identity {
    /// The key's name (`server-key` for the server's own key, `desktop` for
    /// the desktop app on its own database).
    pub name: String,
    pub role: ApiKeyRole,
    /// Whether calls that change something are allowed (not a viewer).
    pub may_change: bool,
    /// Whether the key routes are allowed (an admin).
    pub may_manage_keys: bool,
}

/// A key name as given, or why it is refused (nothing is trimmed or
/// changed silently).
pub fn check_key_name(raw: &str) -> Result<&str> {
    let fix = || crate::msg!("error-key-name-suggestion");
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if raw.is_empty() {
        return Err(Error::invalid_msg(
            crate::msg!("error-key-name-empty"),
            fix(),
        ));
    }
    if raw.chars().count() > MAX_NAME_CHARS {
        return Err(Error::invalid_msg(
            crate::msg!("error-key-name-long", max = MAX_NAME_CHARS),
            fix(),
        ));
    }
    if !raw.chars().all(allowed) || !raw.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(Error::invalid_msg(
            crate::msg!("error-key-name-character", name = raw),
            fix(),
        ));
    }
    if raw == SERVER_KEY_NAME {
        return Err(Error::invalid_msg(
            crate::msg!("error-key-name-server", name = SERVER_KEY_NAME),
            crate::msg!("error-key-name-taken-suggestion"),
        ));
    }
    Ok(raw)
}

/// A key from 32 random bytes: [`KEY_PREFIX`] and 64 hexadecimal digits.
pub fn key_from_bytes(bytes: &[u8; 32]) -> String {
    format!("{KEY_PREFIX}{}", hex::encode(bytes))
}

/// What is stored to recognise a key: its SHA-256 in hexadecimal.
pub fn hash_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// The characters of a key that lists show.
pub fn shown_prefix(key: &str) -> String {
    key.chars().take(SHOWN_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_read_their_names_and_refuse_others() {
        for role in ApiKeyRole::ALL {
            assert_eq!(ApiKeyRole::parse(role.as_str()).unwrap(), role);
        }
        let err = ApiKeyRole::parse("Admin").unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::InvalidInput, "case matters");
        assert!(!ApiKeyRole::Viewer.may_change());
        assert!(ApiKeyRole::Editor.may_change() && !ApiKeyRole::Editor.may_manage_keys());
        assert!(ApiKeyRole::Admin.may_manage_keys());
    }

    #[test]
    fn a_name_is_taken_as_given_or_refused() {
        for ok in ["alice", "ci-nightly", "a", "team.bot_2", &"x".repeat(64)] {
            assert_eq!(check_key_name(ok).unwrap(), ok);
        }
        for bad in [
            "",
            " alice",
            "alice ",
            "-x",
            "a/b",
            "名字",
            &"x".repeat(65),
            "server-key",
        ] {
            assert!(check_key_name(bad).is_err(), "{bad:?} is refused");
        }
    }

    #[test]
    fn a_key_shows_its_prefix_and_is_stored_as_its_hash() {
        let key = key_from_bytes(&[0xab; 32]);
        assert_eq!(key.len(), 4 + 64);
        assert_eq!(shown_prefix(&key), "aek_abababab");
        let hash = hash_key(&key);
        assert_eq!(hash.len(), 64);
        assert!(!hash.contains(&key[4..]), "the hash is not the key");
        assert_eq!(
            hash_key("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "SHA-256, the standard test vector"
        );
    }
}
