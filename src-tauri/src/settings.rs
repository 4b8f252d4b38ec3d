//! Desktop settings: role models, patrol cadence, the embedded HTTP API and
//! the UI language, kept as JSON beside the database (owner-only file).
//! No key stays in it in clear: role-model keys and the API key live in the
//! OS keychain or, without one, encrypted in the data folder (see
//! [`crate::keychain`]); the file keeps references.
//!
//! Saved role models are applied on top of the environment: a role set
//! here wins, a role left empty here takes `AGENTEVAL_<ROLE>_*` if set.

use crate::keychain::{KeyStorage, KeyVault};
use agenteval_engine::calibration::JudgePolicy;
use agenteval_engine::role_models::{MAX_CONCURRENCY, ModelConfig, RoleModels as EngineRoleModels};
use agenteval_engine::secrets::Secrets;
use agenteval_engine::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    En,
    Zh,
}

/// An OpenAI-compatible model playing one role. The API key is write-only:
/// given in `api_key`, kept in the keychain (or encrypted), referenced by
/// `api_key_ref`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct RoleModel {
    pub base_url: String,
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_ref: Option<String>,
    /// Cap on each answer (`max_tokens`); empty = the role's default
    /// (virtual user 300, judge 800, analyst 1500, tool simulator 600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Sessions the role works on at once; empty = 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<u32>,
    /// The analyst only: tokens of the report digest it reads; empty =
    /// 4000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u32>,
}

/// Which model plays which role; `None` = the environment's model for that
/// role, else the built-in offline engine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct RoleModels {
    pub judge: Option<RoleModel>,
    pub analyst: Option<RoleModel>,
    pub virtual_user: Option<RoleModel>,
    /// Answers a played tool's call that no declared response matches
    /// (none: `NO_RESPONSE`).
    #[serde(default)]
    pub tool_simulator: Option<RoleModel>,
}

impl RoleModels {
    fn each(&self) -> [(&'static str, &Option<RoleModel>); 4] {
        [
            ("judge", &self.judge),
            ("analyst", &self.analyst),
            ("virtual_user", &self.virtual_user),
            ("tool_simulator", &self.tool_simulator),
        ]
    }

    fn each_mut(&mut self) -> [(&'static str, &mut Option<RoleModel>); 4] {
        [
            ("judge", &mut self.judge),
            ("analyst", &mut self.analyst),
            ("virtual_user", &mut self.virtual_user),
            ("tool_simulator", &mut self.tool_simulator),
        ]
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ApiSettings {
    /// Serve the HTTP API (for external assistants) while the app runs.
    pub enabled: bool,
    pub port: u16,
    pub key: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct Settings {
    pub language: Language,
    /// How often the patrol agent wakes up.
    pub patrol_interval_minutes: u32,
    pub api: ApiSettings,
    pub role_models: RoleModels,
    /// When the judge counts as calibrated against people's blind labels,
    /// and whether it reviews its sample twice (settings saved before this
    /// existed take the defaults).
    #[serde(default)]
    pub judge: JudgePolicy,
    /// Offline mode: refuse every target and role model not on this
    /// machine (see `agenteval_engine::provenance::Offline`).
    #[serde(default)]
    pub offline: bool,
}

pub const DEFAULT_API_PORT: u16 = 8787;
pub const DEFAULT_PATROL_MINUTES: u32 = 60;
pub const MAX_TOKENS_LIMIT: u32 = 100_000;

impl Language {
    /// The engine's language of the same name.
    pub fn lang(self) -> agenteval_engine::Lang {
        match self {
            Self::En => agenteval_engine::Lang::En,
            Self::Zh => agenteval_engine::Lang::Zh,
        }
    }
}

impl Settings {
    /// First-run settings: the UI speaks the system's language
    /// (`LC_ALL`, `LC_MESSAGES`, `LANG`) when it is Chinese, else English.
    fn fresh() -> Self {
        Self {
            language: match agenteval_engine::Lang::from_env() {
                agenteval_engine::Lang::Zh => Language::Zh,
                agenteval_engine::Lang::En => Language::En,
            },
            patrol_interval_minutes: DEFAULT_PATROL_MINUTES,
            api: ApiSettings {
                enabled: false,
                port: DEFAULT_API_PORT,
                key: new_api_key(),
            },
            role_models: RoleModels::default(),
            judge: JudgePolicy::default(),
            offline: false,
        }
    }

    fn validate(&self) -> Result<()> {
        self.judge.validate()?;
        if !(1..=24 * 60).contains(&self.patrol_interval_minutes) {
            return Err(Error::invalid(
                "patrol_interval_minutes must be 1-1440",
                "Use e.g. 60 for an hourly patrol.",
            ));
        }
        if self.api.port < 1024 {
            return Err(Error::invalid(
                "the API port must be 1024-65535",
                "Use a free unprivileged port such as 8787.",
            ));
        }
        if self.api.key.trim().len() < 16 {
            return Err(Error::invalid(
                "the API key must be at least 16 characters",
                "Generate a new key with the button next to the field.",
            ));
        }
        for (role, m) in self.role_models.each() {
            if let Some(m) = m {
                if !(m.base_url.starts_with("http://") || m.base_url.starts_with("https://")) {
                    return Err(Error::invalid(
                        format!("role model {role}: base_url must be an http(s) URL"),
                        "Give the endpoint's base URL, e.g. http://127.0.0.1:8000/v1",
                    ));
                }
                if m.model.trim().is_empty() {
                    return Err(Error::invalid(
                        format!("role model {role}: model must not be empty"),
                        "Name the model the endpoint serves.",
                    ));
                }
                if m.max_tokens
                    .is_some_and(|n| !(1..=MAX_TOKENS_LIMIT).contains(&n))
                {
                    return Err(Error::invalid(
                        format!("role model {role}: max_tokens must be 1-{MAX_TOKENS_LIMIT}"),
                        "Leave it empty for the role's default.",
                    ));
                }
                if m.concurrency
                    .is_some_and(|n| !(1..=MAX_CONCURRENCY).contains(&n))
                {
                    return Err(Error::invalid(
                        format!("role model {role}: concurrency must be 1-{MAX_CONCURRENCY}"),
                        "Leave it empty for 4 sessions at once.",
                    ));
                }
                let budget = agenteval_engine::analysis::MIN_INPUT_TOKENS..=MAX_TOKENS_LIMIT;
                if m.input_tokens.is_some_and(|n| !budget.contains(&n)) {
                    return Err(Error::invalid(
                        format!(
                            "role model {role}: input_tokens must be {}-{MAX_TOKENS_LIMIT}",
                            budget.start()
                        ),
                        "Leave it empty for a 4000-token digest of the report.",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A random key for the embedded API: 32 hex characters.
pub fn new_api_key() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `settings.json`: the settings with the API key replaced by a reference.
#[derive(Serialize, Deserialize)]
struct OnDisk {
    #[serde(flatten)]
    settings: Settings,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    api_key_ref: Option<String>,
}

/// The settings in force and where the API key is stored.
#[derive(Debug, Clone)]
struct Current {
    settings: Settings,
    api_key_ref: String,
}

/// Settings stored in `settings.json` in the data folder.
#[derive(Debug)]
pub struct SettingsStore {
    path: PathBuf,
    vault: KeyVault,
    current: std::sync::Mutex<Current>,
}

impl SettingsStore {
    /// Reads the settings, creating them on first run. An unreadable file
    /// is kept aside and replaced by defaults rather than blocking start-up;
    /// a clear API key left by an older version moves into the vault.
    pub fn open(dir: &Path, secrets: &Secrets, vault: KeyVault) -> Result<Self> {
        let path = dir.join("settings.json");
        let disk = match std::fs::read_to_string(&path) {
            Ok(text) => match serde_json::from_str::<OnDisk>(&text) {
                Ok(d) => Some(d),
                Err(e) => {
                    tracing::warn!(error = %e, "settings.json is invalid; keeping it as settings.json.bad");
                    let _ = std::fs::rename(&path, dir.join("settings.json.bad"));
                    None
                }
            },
            Err(_) => None,
        };
        let mut settings = disk
            .as_ref()
            .map_or_else(Settings::fresh, |d| d.settings.clone());
        let stored_ref = disk.and_then(|d| d.api_key_ref);
        let mut api_key_ref = None;
        if let Some(reference) = stored_ref {
            match vault.get(secrets, &reference) {
                Ok(key) => {
                    settings.api.key = key;
                    api_key_ref = Some(reference);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "the embedded API key cannot be read; a new one is generated");
                    settings.api.key = new_api_key();
                }
            }
        } else if settings.api.key.trim().len() < 16 {
            settings.api.key = new_api_key();
        }
        let api_key_ref = match api_key_ref {
            Some(r) => r,
            None => vault.put(secrets, "api-key", &settings.api.key)?,
        };
        let current = Current {
            settings,
            api_key_ref,
        };
        let store = Self {
            path,
            vault,
            current: std::sync::Mutex::new(current.clone()),
        };
        store.write(&current)?;
        Ok(store)
    }

    pub fn get(&self) -> Settings {
        self.lock().settings.clone()
    }

    /// Where keys are kept.
    pub fn key_storage(&self) -> KeyStorage {
        self.vault.storage()
    }

    /// Validates and stores new settings; clear-text keys move into the
    /// vault (keychain or encrypted file).
    pub fn update(&self, secrets: &Secrets, mut new: Settings) -> Result<Settings> {
        new.api.key = new.api.key.trim().to_string();
        new.validate()?;
        let old = self.lock().clone();
        for (role, m) in new.role_models.each_mut() {
            if let Some(m) = m.as_mut()
                && let Some(key) = m.api_key.take().filter(|k| !k.is_empty())
            {
                m.api_key_ref = Some(self.vault.put(secrets, &format!("role/{role}"), &key)?);
            }
        }
        let api_key_ref = if new.api.key == old.settings.api.key {
            old.api_key_ref.clone()
        } else {
            self.vault.put(secrets, "api-key", &new.api.key)?
        };
        let current = Current {
            settings: new.clone(),
            api_key_ref,
        };
        self.write(&current)?;
        // Keychain entries of roles that no longer have a key.
        let kept: Vec<_> = new
            .role_models
            .each()
            .into_iter()
            .filter_map(|(_, m)| m.as_ref()?.api_key_ref.clone())
            .collect();
        for (_, m) in old.settings.role_models.each() {
            if let Some(r) = m.as_ref().and_then(|m| m.api_key_ref.as_ref())
                && !kept.contains(r)
            {
                self.vault.forget(r);
            }
        }
        *self.lock() = current;
        Ok(new)
    }

    /// The saved role models for the engine, keys read from the vault. A
    /// role whose key cannot be read is left out (offline, or the
    /// environment's model) with a warning: it degrades only that role.
    pub fn role_models(&self, secrets: &Secrets, settings: &Settings) -> EngineRoleModels {
        let convert = |role: &str, m: &Option<RoleModel>| {
            let m = m.as_ref()?;
            let api_key = match &m.api_key_ref {
                Some(r) => match self.vault.get(secrets, r) {
                    Ok(k) => Some(k),
                    Err(e) => {
                        tracing::warn!(role, error = %e, "role model key unreadable; the role is left unconfigured");
                        return None;
                    }
                },
                None => None,
            };
            Some(ModelConfig {
                base_url: m.base_url.clone(),
                model: m.model.clone(),
                api_key,
                api_key_env: m.api_key_env.clone().filter(|v| !v.is_empty()),
                timeout_ms: None,
                max_tokens: m.max_tokens,
                concurrency: m.concurrency,
                input_tokens: m.input_tokens,
            })
        };
        let r = &settings.role_models;
        EngineRoleModels {
            virtual_user: convert("virtual_user", &r.virtual_user),
            judge: convert("judge", &r.judge),
            analyst: convert("analyst", &r.analyst),
            tool_simulator: convert("tool_simulator", &r.tool_simulator),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Current> {
        self.current.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self, current: &Current) -> Result<()> {
        let mut settings = current.settings.clone();
        settings.api.key = String::new();
        let disk = OnDisk {
            settings,
            api_key_ref: Some(current.api_key_ref.clone()),
        };
        write_private(&self.path, &serde_json::to_string_pretty(&disk)?)
    }
}

/// Replaces `path` with `text` at once (a temporary file renamed over it),
/// readable by its owner only.
pub(crate) fn write_private(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(Error::internal)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))
            .map_err(Error::internal)?;
    }
    std::fs::rename(&tmp, path).map_err(Error::internal)?;
    Ok(())
}
