//! Desktop settings: role models, patrol cadence, the embedded HTTP API and
//! the UI language, kept as JSON beside the database (owner-only file,
//! because it holds the API key of the embedded server).

use agenteval_engine::{Error, Platform, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Language {
    En,
    Zh,
}

/// An OpenAI-compatible model playing one role. The API key is write-only:
/// given in `api_key`, kept in the secret store, referenced by `api_key_ref`.
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
}

/// Which model plays which role; `None` = the built-in offline engine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct RoleModels {
    pub judge: Option<RoleModel>,
    pub analyst: Option<RoleModel>,
    pub virtual_user: Option<RoleModel>,
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
}

pub const DEFAULT_API_PORT: u16 = 8787;
pub const DEFAULT_PATROL_MINUTES: u32 = 60;

impl Settings {
    fn fresh() -> Self {
        Self {
            language: Language::En,
            patrol_interval_minutes: DEFAULT_PATROL_MINUTES,
            api: ApiSettings {
                enabled: false,
                port: DEFAULT_API_PORT,
                key: new_api_key(),
            },
            role_models: RoleModels::default(),
        }
    }

    fn validate(&self) -> Result<()> {
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
        for (role, m) in [
            ("judge", &self.role_models.judge),
            ("analyst", &self.role_models.analyst),
            ("virtual_user", &self.role_models.virtual_user),
        ] {
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

/// Settings stored in `settings.json` in the data folder.
#[derive(Debug)]
pub struct SettingsStore {
    path: PathBuf,
    current: std::sync::Mutex<Settings>,
}

impl SettingsStore {
    /// Reads the settings, creating them on first run. An unreadable file
    /// is kept aside and replaced by defaults rather than blocking start-up.
    pub fn open(dir: &Path) -> Result<Self> {
        let path = dir.join("settings.json");
        let settings = match std::fs::read_to_string(&path) {
            Ok(text) => match serde_json::from_str::<Settings>(&text) {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!(error = %e, "settings.json is invalid; keeping it as settings.json.bad");
                    let _ = std::fs::rename(&path, dir.join("settings.json.bad"));
                    Settings::fresh()
                }
            },
            Err(_) => Settings::fresh(),
        };
        let store = Self {
            path,
            current: std::sync::Mutex::new(settings.clone()),
        };
        store.write(&settings)?;
        Ok(store)
    }

    pub fn get(&self) -> Settings {
        self.current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Validates and stores new settings; clear-text role-model keys move
    /// into the platform's secret store.
    pub fn update(&self, platform: &Platform, mut new: Settings) -> Result<Settings> {
        new.api.key = new.api.key.trim().to_string();
        new.validate()?;
        for m in [
            &mut new.role_models.judge,
            &mut new.role_models.analyst,
            &mut new.role_models.virtual_user,
        ]
        .into_iter()
        .flatten()
        {
            if let Some(key) = m.api_key.take().filter(|k| !k.is_empty()) {
                m.api_key_ref = Some(platform.secrets.put(&key)?);
            }
        }
        self.write(&new)?;
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = new.clone();
        Ok(new)
    }

    fn write(&self, settings: &Settings) -> Result<()> {
        let text = serde_json::to_string_pretty(settings)?;
        let tmp = self.path.with_extension("json.tmp");
        std::fs::write(&tmp, text).map_err(Error::internal)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))
                .map_err(Error::internal)?;
        }
        std::fs::rename(&tmp, &self.path).map_err(Error::internal)?;
        Ok(())
    }
}
