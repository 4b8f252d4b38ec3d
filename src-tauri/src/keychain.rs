//! Where the desktop app keeps secrets (role-model keys, the embedded API
//! key): the OS keychain when there is one (macOS Keychain, Windows
//! Credential Manager, a Secret Service such as GNOME Keyring or KWallet on
//! Linux), else the engine's encrypted-at-rest store (ChaCha20-Poly1305
//! under `secret.key` in the data folder).
//!
//! A stored reference says where its secret is: `keychain:<account>` or the
//! engine's `enc:v1:...`, so that settings written under one backend stay
//! readable when the machine gains or loses its keychain.

use agenteval_engine::secrets::Secrets;
use agenteval_engine::{Error, ErrorCode, Result};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::path::Path;

/// The keychain service name the app's entries are filed under.
pub const SERVICE: &str = "dev.agenteval.desktop";
/// `AGENTEVAL_KEYCHAIN=off` keeps every key in the encrypted file even
/// where a keychain exists.
pub const KEYCHAIN_ENV: &str = "AGENTEVAL_KEYCHAIN";
const PREFIX: &str = "keychain:";

/// Which store new keys go to; the settings page says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum KeyStorage {
    /// The OS keychain.
    Keychain,
    /// Encrypted in the app-data folder (no keychain available).
    EncryptedFile,
}

#[derive(Debug, Clone)]
pub struct KeyVault {
    /// Set when the OS keychain answered the probe.
    keychain: Option<Keychain>,
}

#[derive(Debug, Clone)]
struct Keychain {
    service: String,
    /// Accounts are per data folder, so that two data folders (tests, a
    /// second profile) never share entries.
    scope: String,
}

impl KeyVault {
    /// Uses the OS keychain when it answers, else the encrypted file.
    pub fn detect(data_dir: &Path) -> Self {
        let off = std::env::var(KEYCHAIN_ENV).is_ok_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "off" | "0" | "false" | "no"
            )
        });
        if off {
            tracing::info!("{KEYCHAIN_ENV} is off: keys are encrypted in the data folder");
            return Self::encrypted_only();
        }
        let keychain = Keychain {
            service: SERVICE.to_string(),
            scope: scope_of(data_dir),
        };
        match keychain.probe() {
            Ok(()) => {
                tracing::info!("keys are kept in the OS keychain");
                Self {
                    keychain: Some(keychain),
                }
            }
            Err(e) => {
                tracing::info!(reason = %e, "no OS keychain available: keys are encrypted in the data folder");
                Self::encrypted_only()
            }
        }
    }

    /// Never uses a keychain.
    pub fn encrypted_only() -> Self {
        Self { keychain: None }
    }

    pub fn storage(&self) -> KeyStorage {
        if self.keychain.is_some() {
            KeyStorage::Keychain
        } else {
            KeyStorage::EncryptedFile
        }
    }

    /// Stores `secret` under `name` (e.g. `role/judge`); returns the
    /// reference to keep in the settings. A keychain that refuses the write
    /// (locked, gone) is logged and the encrypted file used instead.
    pub fn put(&self, secrets: &Secrets, name: &str, secret: &str) -> Result<String> {
        if let Some(k) = &self.keychain {
            match k.set(name, secret) {
                Ok(reference) => return Ok(reference),
                Err(e) => {
                    tracing::warn!(name, error = %e, "the OS keychain refused the key; encrypting it in the data folder")
                }
            }
        }
        secrets.put(secret)
    }

    /// Reads a stored reference back.
    pub fn get(&self, secrets: &Secrets, reference: &str) -> Result<String> {
        match reference.strip_prefix(PREFIX) {
            Some(account) => {
                let service = self
                    .keychain
                    .as_ref()
                    .map_or(SERVICE, |k| k.service.as_str());
                keyring::Entry::new(service, account)
                    .and_then(|e| e.get_password())
                    .map_err(|e| {
                        Error::new(
                            ErrorCode::Unprocessable,
                            format!("a key kept in the OS keychain cannot be read: {e}"),
                            "Unlock the keychain, or enter the key again in Settings.",
                        )
                    })
            }
            None => secrets.get(reference),
        }
    }

    /// Removes a keychain entry that is no longer referenced (best effort).
    pub fn forget(&self, reference: &str) {
        if let (Some(k), Some(account)) = (&self.keychain, reference.strip_prefix(PREFIX))
            && let Err(e) =
                keyring::Entry::new(&k.service, account).and_then(|entry| entry.delete_credential())
        {
            tracing::debug!(error = %e, "could not remove a keychain entry");
        }
    }
}

impl Keychain {
    fn account(&self, name: &str) -> String {
        format!("{}/{name}", self.scope)
    }

    /// A read of an entry that does not exist: answers `NoEntry` when a
    /// keychain is there, a platform error when none is.
    fn probe(&self) -> std::result::Result<(), keyring::Error> {
        let entry = keyring::Entry::new(&self.service, &self.account("probe"))?;
        match entry.get_password() {
            Ok(_) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(e),
        }
    }

    fn set(&self, name: &str, secret: &str) -> std::result::Result<String, keyring::Error> {
        let account = self.account(name);
        keyring::Entry::new(&self.service, &account)?.set_password(secret)?;
        Ok(format!("{PREFIX}{account}"))
    }
}

/// A short stable id of the data folder.
fn scope_of(data_dir: &Path) -> String {
    let canonical = data_dir
        .canonicalize()
        .unwrap_or_else(|_| data_dir.to_path_buf());
    let digest = Sha256::digest(canonical.to_string_lossy().as_bytes());
    hex::encode(&digest[..6])
}
