//! Secrets at rest: target and model API keys are encrypted with
//! ChaCha20-Poly1305 under a key that never lives in the database.
//!
//! The key comes from `AGENTEVAL_SECRET_KEY` (any passphrase; hashed to 256
//! bits) or from `secret.key` beside the data, created with owner-only
//! permissions. A stored reference is `enc:v1:<hex nonce><hex ciphertext>`:
//! useless without the key, and never printed.

use agenteval_domain::error::{Context, Error, ErrorCode, Result};
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use rand::RngCore;
use sha2::{Digest, Sha256};
use std::path::Path;

pub const KEY_ENV: &str = "AGENTEVAL_SECRET_KEY";
pub const KEY_FILE: &str = "secret.key";
const PREFIX: &str = "enc:v1:";

pub struct Secrets {
    cipher: ChaCha20Poly1305,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secrets(..)")
    }
}

impl Secrets {
    /// Key from `AGENTEVAL_SECRET_KEY`, else from (or into) `data_dir/secret.key`.
    pub fn open(data_dir: &Path) -> Result<Self> {
        if let Ok(pass) = std::env::var(KEY_ENV)
            && !pass.is_empty()
        {
            return Ok(Self::from_passphrase(&pass));
        }
        let path = data_dir.join(KEY_FILE);
        let key = match std::fs::read(&path) {
            Ok(bytes) if bytes.len() == 32 => bytes,
            Ok(_) => {
                return Err(Error::new(
                    ErrorCode::Internal,
                    format!("{} is not a 32-byte key", path.display()),
                    format!("Restore the key file, or set {KEY_ENV}."),
                ));
            }
            Err(_) => {
                let mut key = vec![0u8; 32];
                rand::rng().fill_bytes(&mut key);
                write_owner_only(&path, &key)?;
                key
            }
        };
        Ok(Self {
            cipher: ChaCha20Poly1305::new(Key::from_slice(&key)),
        })
    }

    pub fn from_passphrase(pass: &str) -> Self {
        let key = Sha256::digest(pass.as_bytes());
        Self {
            cipher: ChaCha20Poly1305::new(&key),
        }
    }

    /// A key that lives only in memory (tests).
    pub fn ephemeral() -> Self {
        let mut key = [0u8; 32];
        rand::rng().fill_bytes(&mut key);
        Self {
            cipher: ChaCha20Poly1305::new(Key::from_slice(&key)),
        }
    }

    /// Encrypts a secret; returns the reference to store.
    pub fn put(&self, plaintext: &str) -> Result<String> {
        let mut nonce = [0u8; 12];
        rand::rng().fill_bytes(&mut nonce);
        let ct = self
            .cipher
            .encrypt(Nonce::from_slice(&nonce), plaintext.as_bytes())
            .map_err(|_| Error::internal(anyhow::anyhow!("encryption failed")))?;
        Ok(format!("{PREFIX}{}{}", hex::encode(nonce), hex::encode(ct)))
    }

    /// Decrypts a stored reference.
    pub fn get(&self, reference: &str) -> Result<String> {
        let unreadable = || {
            Error::new(
                ErrorCode::Unprocessable,
                "a stored secret cannot be decrypted with the current key",
                format!(
                    "Set {KEY_ENV} (or restore {KEY_FILE}) to the key used when the secret was saved, or enter the secret again."
                ),
            )
        };
        let hexed = reference.strip_prefix(PREFIX).ok_or_else(unreadable)?;
        let bytes = hex::decode(hexed).map_err(|_| unreadable())?;
        if bytes.len() < 12 + 16 {
            return Err(unreadable());
        }
        let (nonce, ct) = bytes.split_at(12);
        let pt = self
            .cipher
            .decrypt(Nonce::from_slice(nonce), ct)
            .map_err(|_| unreadable())?;
        String::from_utf8(pt).map_err(|_| unreadable())
    }
}

fn write_owner_only(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let doing = || format!("creating the key file {}", path.display());
    let mut f = opts.open(path).with_context(doing)?;
    f.write_all(bytes).with_context(doing)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_no_clear_text() {
        let s = Secrets::ephemeral();
        let r = s.put("sk-very-secret").unwrap();
        assert!(
            !r.contains("sk-very-secret"),
            "the reference must not contain the secret"
        );
        assert_eq!(s.get(&r).unwrap(), "sk-very-secret");
        let other = Secrets::ephemeral();
        assert_eq!(
            other.get(&r).unwrap_err().code(),
            ErrorCode::Unprocessable,
            "a wrong key cannot decrypt"
        );
    }

    #[test]
    fn key_file_is_owner_only_and_stable() {
        let dir = tempfile::tempdir().unwrap();
        let a = Secrets::open(dir.path()).unwrap();
        let r = a.put("k").unwrap();
        let b = Secrets::open(dir.path()).unwrap();
        assert_eq!(b.get(&r).unwrap(), "k", "reopening uses the same key file");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(KEY_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
