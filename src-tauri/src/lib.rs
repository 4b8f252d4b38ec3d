//! AgentEval Desktop: the Tauri shell over the engine. It opens the
//! platform in the app-data folder, loads the scenario packs, runs the
//! scheduler, forwards the platform's events to the webview and exposes the
//! engine's operations as commands (see [`commands`]).

// The commands: every `#[tauri::command]` of `commands`, found by build.rs
// (`with_commands!`, `COMMANDS`).
#[macro_use]
mod command_list {
    include!(concat!(env!("OUT_DIR"), "/commands.rs"));
}
pub mod commands;
pub mod keychain;
#[cfg(test)]
mod operations_export;
pub mod remote;
pub mod rendering;
pub mod settings;

use agenteval_engine::role_models::RoleModels;
use agenteval_engine::runtime::PatrolControl;
use agenteval_engine::scenario::PackSource;
use agenteval_engine::target::TargetSettings;
use agenteval_engine::{Error, ErrorCode, Event, Platform};
use serde::Serialize;
use settings::{ApiSettings, Settings, SettingsStore};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tauri::Manager;
use tauri_specta::Event as _;

/// Something changed in the platform; the UI refreshes what shows it.
/// `None`: events may have been missed (a lagging reader, the team
/// server's stream reconnected), so the UI refreshes everything it shows.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct PlatformEvent(pub Option<Event>);

/// What start-up found, shown on the settings page.
#[derive(Debug)]
pub struct Startup {
    pub data_dir: PathBuf,
    pub log_dir: PathBuf,
    pub scenario_errors: Vec<String>,
}

/// Registers the commands build.rs found in [`commands`].
macro_rules! registered {
    ($($name:ident,)*) => {
        tauri_specta::collect_commands![$(commands::$name),*]
    };
}

/// The one place commands and events are registered, for the app and for
/// the bindings export.
pub fn specta_builder() -> tauri_specta::Builder<tauri::Wry> {
    tauri_specta::Builder::<tauri::Wry>::new()
        .commands(with_commands!(registered))
        .events(tauri_specta::collect_events![PlatformEvent])
        .dangerously_cast_bigints_to_number()
        .disable_serde_phases()
}

/// Where the scenario packs come from: the folder `AGENTEVAL_SCENARIOS`
/// names, if any, the user's packs in the data folder (created empty at
/// the first start, for them to fill), then the packs shipped in the binary
/// (a folder's pack replaces the shipped pack of the same name).
fn scenario_sources(data_dir: &Path) -> Vec<PackSource> {
    if let Err(e) = std::fs::create_dir_all(agenteval_engine::scenario::user_packs_dir(data_dir)) {
        tracing::warn!(error = %e, "cannot create the folder for your own scenario packs");
    }
    agenteval_engine::scenario::pack_sources(
        std::env::var_os("AGENTEVAL_SCENARIOS").map(PathBuf::from),
        data_dir,
    )
}

/// Loads the scenario packs into the platform's catalog; invalid files are
/// reported (file:line) and left out.
async fn load_scenarios(platform: &Platform, sources: &[PackSource]) -> Vec<String> {
    // Through the platform, so that reports and exports know the titles.
    let report = match platform.load_scenario_sources(sources).await {
        Ok(r) => r,
        Err(e) => return vec![e.body.message],
    };
    tracing::info!(
        loaded = report.scenarios.len(),
        shipped = report.scenarios.iter().filter(|s| s.shipped).count(),
        errors = report.errors.len(),
        ?sources,
        "scenarios loaded"
    );
    report.errors.iter().map(|e| e.to_string()).collect()
}

/// The role models in force: the saved ones, role by role over the
/// environment's `AGENTEVAL_<ROLE>_*`.
pub fn effective_role_models(
    platform: &Platform,
    store: &SettingsStore,
    settings: &Settings,
) -> RoleModels {
    store
        .role_models(&platform.secrets, settings)
        .or(RoleModels::from_env())
}

fn patrol_interval(settings: &Settings) -> std::time::Duration {
    std::time::Duration::from_secs(u64::from(settings.patrol_interval_minutes.max(1)) * 60)
}

/// What runs beside the UI and follows the settings: the patrol agent (its
/// cadence), the platform's role models and the embedded HTTP API.
#[derive(Debug)]
pub struct Resident {
    pub patrol: PatrolControl,
    api: tokio::sync::Mutex<Option<EmbeddedApi>>,
}

#[derive(Debug)]
struct EmbeddedApi {
    settings: ApiSettings,
    addr: std::net::SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Resident {
    pub fn new(patrol: PatrolControl) -> Self {
        Self {
            patrol,
            api: tokio::sync::Mutex::new(None),
        }
    }

    /// Saves `settings` and puts them into effect, or refuses them and
    /// changes nothing: under offline mode (the settings' switch or the
    /// `--offline` the app was started with) every role model must be on
    /// this machine.
    pub async fn save(
        &self,
        platform: &Arc<Platform>,
        store: &SettingsStore,
        settings: Settings,
    ) -> agenteval_engine::Result<Settings> {
        let models = effective_role_models(platform, store, &settings);
        platform.check_offline(settings.offline, &models)?;
        let saved = store.update(&platform.secrets, settings)?;
        self.apply(platform, store, &saved).await?;
        Ok(saved)
    }

    /// Puts saved settings into effect without a restart: role models for
    /// the next piece of work, the patrol cadence for the next wake-up, and
    /// the embedded API restarted when its port or key changed.
    pub async fn apply(
        &self,
        platform: &Arc<Platform>,
        store: &SettingsStore,
        settings: &Settings,
    ) -> agenteval_engine::Result<()> {
        platform.apply_offline(
            settings.offline,
            effective_role_models(platform, store, settings),
        )?;
        platform.set_judge_policy(settings.judge)?;
        if let Some(handle) = self.patrol.handle() {
            handle.set_interval(patrol_interval(settings));
        }
        self.apply_api(platform, &settings.api).await
    }

    /// Where the embedded API listens now, if it runs.
    pub async fn api_addr(&self) -> Option<std::net::SocketAddr> {
        self.api.lock().await.as_ref().map(|a| a.addr)
    }

    async fn apply_api(
        &self,
        platform: &Arc<Platform>,
        wanted: &ApiSettings,
    ) -> agenteval_engine::Result<()> {
        let mut running = self.api.lock().await;
        if wanted.enabled && running.as_ref().is_some_and(|r| &r.settings == wanted) {
            return Ok(());
        }
        if let Some(old) = running.take() {
            old.task.abort();
            // Wait for the listener to close, so the port can be reused.
            let _ = old.task.await;
            tracing::info!(addr = %old.addr, "embedded API stopped");
        }
        if !wanted.enabled {
            return Ok(());
        }
        let config = agenteval_server::ServeConfig {
            bind: std::net::SocketAddr::from(([127, 0, 0, 1], wanted.port)),
            api_key: wanted.key.clone(),
            ui_dir: None,
            patrol: self.patrol.clone(),
        };
        let (addr, task) = agenteval_server::spawn(platform.clone(), config)
            .await
            .map_err(|e| {
                Error::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "the settings are saved, but the API cannot listen on 127.0.0.1:{}: {e}",
                        wanted.port
                    ),
                    "Choose a free port and save again.",
                )
            })?;
        tracing::info!(%addr, "embedded API listening");
        *running = Some(EmbeddedApi {
            settings: wanted.clone(),
            addr,
            task,
        });
        Ok(())
    }
}

/// A newcomer starts with a target that needs no configuration, named in
/// the UI's language.
async fn ensure_demo_target(
    platform: &Platform,
    lang: agenteval_engine::Lang,
) -> agenteval_engine::Result<()> {
    if platform.list_targets().await?.is_empty() {
        platform
            .create_target(TargetSettings::builtin_demo(
                &agenteval_engine::msg!("demo-target-name").render(lang),
            ))
            .await?;
    }
    Ok(())
}

fn init_logging(log_dir: &Path) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let writer = std::fs::create_dir_all(log_dir)
        .and_then(|_| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log_dir.join("agenteval-desktop.log"))
        })
        .ok();
    let result = match writer {
        Some(file) => tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_ansi(false)
            .with_writer(std::sync::Mutex::new(file))
            .try_init(),
        None => tracing_subscriber::fmt().with_env_filter(filter).try_init(),
    };
    // Already initialised (e.g. tests): keep the existing subscriber.
    let _ = result;
}

fn setup(app: &mut tauri::App, builder: &tauri_specta::Builder<tauri::Wry>) -> anyhow::Result<()> {
    builder.mount_events(app);
    let data_dir = match std::env::var_os("AGENTEVAL_DATA_DIR") {
        Some(d) => PathBuf::from(d),
        None => app.path().app_data_dir()?,
    };
    let log_dir = app
        .path()
        .app_log_dir()
        .unwrap_or_else(|_| data_dir.join("logs"));
    init_logging(&log_dir);
    std::fs::create_dir_all(&data_dir)?;
    tracing::info!(data_dir = %data_dir.display(), "starting AgentEval Desktop");

    let platform = tauri::async_runtime::block_on(Platform::builder(&data_dir).open())
        .map_err(|e| anyhow::anyhow!("cannot open the data folder: {e}"))?;
    let scenario_errors =
        tauri::async_runtime::block_on(load_scenarios(&platform, &scenario_sources(&data_dir)));
    let vault = keychain::KeyVault::detect(&data_dir);
    let settings = SettingsStore::open(&data_dir, &platform.secrets, vault.clone())?;
    let lang = settings.get().language.lang();
    if let Err(e) = tauri::async_runtime::block_on(ensure_demo_target(&platform, lang)) {
        tracing::warn!(error = %e, "could not create the demo target");
    }
    let emitter = app.handle().clone();
    let emit: remote::Emit = Arc::new(move |event| emit_platform_event(&emitter, event));
    let team = remote::TeamServer::open(&data_dir, &platform.secrets, vault, emit)?;
    tauri::async_runtime::block_on(async { team.follow_events() });
    let current = settings.get();
    // Before anything runs: the saved role models, over the environment's.
    platform.set_role_models(effective_role_models(&platform, &settings, &current));

    let handle = app.handle().clone();
    let events = platform.subscribe();
    tauri::async_runtime::spawn(forward_events(handle, events));
    // Exploration runs beside the fixed plans: the judge reviews closed
    // sessions, the resident patrol agent explores running formal
    // campaigns. Both read the platform's role models at each use, so that
    // saved settings take effect without a restart.
    let resident = tauri::async_runtime::block_on(async {
        let retention = agenteval_engine::audit::retention_days_from_env().unwrap_or_else(|e| {
            tracing::warn!(error = %e.body.message, "using the default audit retention");
            agenteval_engine::audit::DEFAULT_RETENTION_DAYS
        });
        let patrol = agenteval_engine::runtime::start(
            &platform,
            agenteval_engine::runtime::RuntimeConfig {
                audit_retention_days: retention,
                patrol_interval: Some(patrol_interval(&current)),
            },
        );
        let resident = Resident::new(patrol);
        if let Err(e) = resident.apply(&platform, &settings, &current).await {
            tracing::warn!(error = %e, "could not apply the settings at start-up");
        }
        resident
    });

    app.manage(resident.patrol.clone());
    app.manage(resident);
    app.manage(platform);
    app.manage(settings);
    app.manage(team);
    app.manage(Startup {
        data_dir,
        log_dir,
        scenario_errors,
    });
    Ok(())
}

fn emit_platform_event(handle: &tauri::AppHandle, event: Option<Event>) {
    if let Err(e) = PlatformEvent(event).emit(handle) {
        tracing::debug!(error = %e, "could not emit event");
    }
}

async fn forward_events(
    handle: tauri::AppHandle,
    mut events: tokio::sync::broadcast::Receiver<Event>,
) {
    use tokio::sync::broadcast::error::RecvError;
    loop {
        match events.recv().await {
            // On a team server the UI follows the server's events instead.
            Ok(_)
                if handle
                    .try_state::<remote::TeamServer>()
                    .is_some_and(|t| t.connection().is_some()) => {}
            Ok(event) => emit_platform_event(&handle, Some(event)),
            // Events were missed: every view refreshes.
            Err(RecvError::Lagged(_)) => emit_platform_event(&handle, None),
            Err(RecvError::Closed) => break,
        }
    }
}

/// How long a window may stay hidden when its page never reports loaded
/// (a web process that crashed at start, say): then it is shown anyway.
const SHOW_WINDOW_AT_THE_LATEST: std::time::Duration = std::time::Duration::from_secs(3);

/// Runs the desktop app.
///
/// The window opens hidden (`tauri.conf.json`) and is shown once its page has
/// loaded. Shown before, its first draw makes WebKitGTK wait up to 500 ms
/// for the web process's first frame while that process is still waiting
/// for the app to start it: half of all starts painted the campaign list
/// half a second late, after a blank white window.
pub fn run() {
    let builder = specta_builder();
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .invoke_handler(builder.invoke_handler())
        .on_page_load(|webview, payload| {
            if payload.event() == tauri::webview::PageLoadEvent::Finished {
                show(&webview.window());
            }
        })
        .setup(move |app| {
            let handle = app.handle().clone();
            std::thread::spawn(move || {
                std::thread::sleep(SHOW_WINDOW_AT_THE_LATEST);
                for window in handle.webview_windows().values() {
                    show(&window.as_ref().window());
                }
            });
            setup(app, &builder).map_err(|e| {
                let boxed: Box<dyn std::error::Error> = e.into();
                boxed
            })
        })
        .run(tauri::generate_context!());
    if let Err(e) = result {
        tracing::error!(error = %e, "AgentEval Desktop stopped with an error");
        eprintln!("AgentEval Desktop stopped with an error: {e}");
        std::process::exit(1);
    }
}

fn show(window: &tauri::Window) {
    if let Err(e) = window.show() {
        tracing::warn!(error = %e, "could not show the window");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agenteval_engine::patrol_agent::PatrolConfig;
    use agenteval_engine::runtime::PatrolAgent;

    /// Writes the committed TypeScript bindings; CI fails when they differ.
    #[test]
    fn export_typescript_bindings() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings.ts");
        specta_builder()
            .export(specta_typescript::Typescript::default(), &path)
            .expect("bindings export");
        let text = std::fs::read_to_string(&path).expect("bindings written");
        assert!(
            text.contains("Do not edit this file manually"),
            "the generated file carries the do-not-edit header"
        );
        assert!(
            text.contains("createCampaign"),
            "every registered command appears in the bindings"
        );
    }

    /// The window may call exactly the registered commands: each one in the
    /// generated bindings has its permission in the build manifest and in
    /// the set the main window's capability file grants, and nothing else
    /// is granted.
    #[test]
    fn the_window_is_granted_exactly_the_registered_commands() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let bindings =
            std::fs::read_to_string(root.join("../ui/src/bindings.ts")).expect("bindings");
        let mut invoked: Vec<&str> = bindings
            .split("__TAURI_INVOKE(\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        invoked.sort_unstable();
        let mut listed = command_list::COMMANDS.to_vec();
        listed.sort_unstable();
        assert_eq!(
            invoked, listed,
            "build.rs lists every registered command once"
        );

        let capability: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.join("capabilities/main.json")).expect("capability file"),
        )
        .expect("capability JSON");
        assert_eq!(capability["windows"], serde_json::json!(["main"]));
        let granted: Vec<&str> = capability["permissions"]
            .as_array()
            .expect("permissions")
            .iter()
            .filter_map(|p| p.as_str())
            .collect();
        let own: Vec<&str> = granted
            .iter()
            .copied()
            .filter(|p| !p.contains(':'))
            .collect();
        assert_eq!(own, ["app-commands"], "the app's commands as one set");
        let set = std::fs::read_to_string(root.join("permissions/app-commands.toml"))
            .expect("the set build.rs writes");
        let mut in_set: Vec<String> = set
            .lines()
            .filter_map(|l| l.trim().strip_prefix("\"allow-")?.strip_suffix("\","))
            .map(|p| p.replace('-', "_"))
            .collect();
        in_set.sort_unstable();
        assert_eq!(in_set, listed, "each command granted by name");
        let plugins: Vec<&str> = granted
            .iter()
            .copied()
            .filter(|p| p.contains(':'))
            .collect();
        assert_eq!(
            plugins,
            [
                "core:event:allow-listen",
                "core:event:allow-unlisten",
                "dialog:allow-save",
                "opener:allow-reveal-item-in-dir"
            ],
            "no plugin permission beyond what the UI calls"
        );
    }

    async fn platform_in(dir: &Path) -> Arc<Platform> {
        Platform::builder(dir)
            .role_models(RoleModels::default())
            .open()
            .await
            .expect("platform")
    }

    /// A role model at `base_url` with nothing else set.
    fn role_model(base_url: &str, model: &str) -> settings::RoleModel {
        settings::RoleModel {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            api_key_env: None,
            api_key_ref: None,
            max_tokens: None,
            concurrency: None,
            input_tokens: None,
        }
    }

    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port()
    }

    #[tokio::test]
    async fn settings_round_trip_and_keys_encrypted_without_a_keychain() {
        let dir = tempfile::tempdir().expect("temp dir");
        let platform = platform_in(dir.path()).await;
        let open = || {
            settings::SettingsStore::open(
                dir.path(),
                &platform.secrets,
                keychain::KeyVault::encrypted_only(),
            )
            .expect("open settings")
        };
        let store = open();
        assert_eq!(
            store.key_storage(),
            keychain::KeyStorage::EncryptedFile,
            "without a keychain the settings page says keys are encrypted in the data folder"
        );
        let fresh = store.get();
        assert!(!fresh.api.enabled, "the embedded API is off until enabled");
        assert_eq!(fresh.api.key.len(), 32, "a fresh install gets a random key");
        assert_eq!(
            open().get(),
            fresh,
            "settings persist across restarts (same key, same values)"
        );
        let mut bad = fresh.clone();
        bad.patrol_interval_minutes = 0;
        let err = store
            .update(&platform.secrets, bad)
            .expect_err("zero cadence is refused");
        assert_eq!(err.code(), ErrorCode::InvalidInput, "{err}");
        let mut too_many = fresh.clone();
        too_many.role_models.analyst = Some(settings::RoleModel {
            max_tokens: Some(0),
            ..role_model("http://127.0.0.1:9/v1", "m")
        });
        assert_eq!(
            store
                .update(&platform.secrets, too_many)
                .expect_err("max_tokens 0 is refused")
                .code(),
            ErrorCode::InvalidInput
        );
        let mut small_budget = fresh.clone();
        small_budget.role_models.analyst = Some(settings::RoleModel {
            input_tokens: Some(100),
            ..role_model("http://127.0.0.1:9/v1", "m")
        });
        let err = store
            .update(&platform.secrets, small_budget.clone())
            .expect_err("an input budget under 500 tokens is refused");
        assert!(
            err.body.message.contains("input_tokens must be 500-"),
            "{err}"
        );

        let mut with_key = fresh;
        with_key.role_models.judge = Some(settings::RoleModel {
            api_key: Some("sk-secret-value".into()),
            max_tokens: Some(256),
            ..role_model("http://127.0.0.1:9/v1", "judge-model")
        });
        with_key.role_models.analyst =
            small_budget
                .role_models
                .analyst
                .map(|m| settings::RoleModel {
                    input_tokens: Some(1200),
                    ..m
                });
        with_key.api.key = "api-key-0123456789abcdef".into();
        let saved = store
            .update(&platform.secrets, with_key)
            .expect("valid settings");
        let judge = saved.role_models.judge.clone().expect("judge kept");
        assert!(
            judge.api_key.is_none(),
            "the clear key is never kept in settings"
        );
        assert!(
            judge
                .api_key_ref
                .as_deref()
                .is_some_and(|r| r.starts_with("enc:v1:")),
            "the key is encrypted by the engine's secret store: {judge:?}"
        );
        let on_disk = std::fs::read_to_string(dir.path().join("settings.json")).expect("file");
        assert!(
            !on_disk.contains("sk-secret-value") && !on_disk.contains("api-key-0123456789abcdef"),
            "no clear-text key on disk: {on_disk}"
        );
        let reopened = open();
        assert_eq!(
            reopened.get().api.key,
            "api-key-0123456789abcdef",
            "the API key is read back from its encrypted reference"
        );
        let models = reopened.role_models(&platform.secrets, &reopened.get());
        let engine_judge = models.judge.expect("the judge is configured");
        assert_eq!(engine_judge.api_key.as_deref(), Some("sk-secret-value"));
        assert_eq!(engine_judge.max_tokens, Some(256));
        assert_eq!(
            models.analyst.and_then(|a| a.input_tokens),
            Some(1200),
            "the analyst's input budget reaches the engine"
        );
        assert!(models.virtual_user.is_none());
    }

    #[tokio::test]
    async fn a_clear_api_key_from_an_older_version_moves_out_of_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let platform = platform_in(dir.path()).await;
        std::fs::write(
            dir.path().join("settings.json"),
            r#"{"language":"zh","patrol_interval_minutes":30,"api":{"enabled":false,"port":8787,"key":"legacy-key-0123456789"},"role_models":{"judge":null,"analyst":null,"virtual_user":null}}"#,
        )
        .expect("legacy file");
        let store = settings::SettingsStore::open(
            dir.path(),
            &platform.secrets,
            keychain::KeyVault::encrypted_only(),
        )
        .expect("open");
        assert_eq!(store.get().api.key, "legacy-key-0123456789");
        assert_eq!(store.get().patrol_interval_minutes, 30);
        let on_disk = std::fs::read_to_string(dir.path().join("settings.json")).expect("file");
        assert!(!on_disk.contains("legacy-key"), "{on_disk}");
    }

    #[tokio::test]
    async fn saved_settings_take_effect_without_a_restart() {
        let dir = tempfile::tempdir().expect("temp dir");
        let platform = platform_in(dir.path()).await;
        let store = settings::SettingsStore::open(
            dir.path(),
            &platform.secrets,
            keychain::KeyVault::encrypted_only(),
        )
        .expect("open");
        let patrol = PatrolControl::new(Some(PatrolAgent::spawn(
            platform.clone(),
            PatrolConfig {
                paused: true,
                ..Default::default()
            },
        )));
        let resident = Resident::new(patrol.clone());
        let mut s = store.get();
        s.api.enabled = true;
        s.api.port = free_port();
        s.patrol_interval_minutes = 15;
        s.role_models.analyst = Some(settings::RoleModel {
            api_key: Some("sk-analyst".into()),
            ..role_model("http://127.0.0.1:9/v1", "analyst-from-settings")
        });
        let saved = store.update(&platform.secrets, s).expect("save");
        resident
            .apply(&platform, &store, &saved)
            .await
            .expect("apply");
        let analyst = platform.role_models().analyst.expect("analyst in force");
        assert_eq!(analyst.model, "analyst-from-settings");
        assert_eq!(analyst.api_key.as_deref(), Some("sk-analyst"));
        assert!(
            platform.role_clients().analyst.is_some(),
            "the analysis now has a client"
        );
        assert_eq!(patrol.status().interval_minutes, 15, "cadence applied");

        let http =
            status_of_get(resident.api_addr().await.expect("API runs"), &saved.api.key).await;
        assert_eq!(http, 200, "the embedded API answers with the saved key");

        // A new port and key: the server moves without a restart.
        let old_addr = resident.api_addr().await.expect("API runs");
        let mut moved = saved.clone();
        moved.api.port = free_port();
        moved.api.key = "another-key-0123456789".into();
        moved.role_models.analyst = None;
        let moved = store.update(&platform.secrets, moved).expect("save");
        resident
            .apply(&platform, &store, &moved)
            .await
            .expect("apply");
        let new_addr = resident.api_addr().await.expect("API runs");
        assert_eq!(new_addr.port(), moved.api.port);
        assert_eq!(status_of_get(new_addr, "another-key-0123456789").await, 200);
        assert_eq!(
            status_of_get(new_addr, &saved.api.key).await,
            401,
            "the old key no longer opens the API"
        );
        assert!(
            tokio::net::TcpStream::connect(old_addr).await.is_err(),
            "the old port is closed"
        );
        assert!(
            platform.role_models().analyst.is_none(),
            "a cleared role goes offline"
        );

        let mut off = moved;
        off.api.enabled = false;
        let off = store.update(&platform.secrets, off).expect("save");
        resident
            .apply(&platform, &store, &off)
            .await
            .expect("apply");
        assert!(resident.api_addr().await.is_none(), "disabled: no server");
    }

    #[tokio::test]
    async fn the_offline_switch_refuses_a_remote_model_and_keeps_what_was_saved() {
        use agenteval_engine::target::ChannelConfig;
        let dir = tempfile::tempdir().expect("temp dir");
        let platform = platform_in(dir.path()).await;
        let store = settings::SettingsStore::open(
            dir.path(),
            &platform.secrets,
            keychain::KeyVault::encrypted_only(),
        )
        .expect("open");
        let resident = Resident::new(PatrolControl::new(None));
        let judge_at = |base_url: &str| role_model(base_url, "judge");
        let remote_target = || TargetSettings {
            channel: ChannelConfig::Http {
                url: "http://10.1.2.3:8080/chat".into(),
                request_template: None,
                response_path: None,
                headers: Vec::new(),
            },
            ..TargetSettings::builtin_demo("remote")
        };

        let mut online = store.get();
        online.role_models.judge = Some(judge_at("http://10.1.2.3:8080/v1"));
        let online = resident
            .save(&platform, &store, online)
            .await
            .expect("online, a judge on another machine is accepted");

        // Switching offline on while that judge is set is refused whole.
        let mut off = online.clone();
        off.offline = true;
        let refused = resident
            .save(&platform, &store, off)
            .await
            .expect_err("offline with a remote judge");
        assert_eq!(refused.body.code, ErrorCode::OfflineRefused);
        assert!(
            refused.body.message.contains("10.1.2.3"),
            "{}",
            refused.body.message
        );
        assert!(!store.get().offline, "nothing was saved");
        assert!(!platform.offline().0, "offline mode did not turn on");
        assert_eq!(
            platform.role_models().judge.expect("judge").base_url,
            "http://10.1.2.3:8080/v1",
            "the judge in force is unchanged"
        );

        // With the judge on this machine the switch takes effect at once
        // and outlives a restart of the settings.
        let mut off = store.get();
        off.offline = true;
        off.role_models.judge = Some(judge_at("http://127.0.0.1:8081/v1"));
        resident
            .save(&platform, &store, off)
            .await
            .expect("offline with a local judge");
        assert!(platform.offline().0, "offline mode is on");
        let reopened = settings::SettingsStore::open(
            dir.path(),
            &platform.secrets,
            keychain::KeyVault::encrypted_only(),
        )
        .expect("reopen");
        assert!(reopened.get().offline, "the switch is saved");
        let target = platform
            .create_target(remote_target())
            .await
            .expect_err("a remote target under offline mode");
        assert_eq!(target.body.code, ErrorCode::OfflineRefused);

        // And off again.
        let mut on = store.get();
        on.offline = false;
        resident.save(&platform, &store, on).await.expect("online");
        assert!(!platform.offline().0);
        platform
            .create_target(remote_target())
            .await
            .expect("a remote target is accepted online");
    }

    /// Status of `GET /api/campaigns` with `key`, over a raw HTTP/1.1
    /// request (the shell has no HTTP client of its own).
    async fn status_of_get(addr: std::net::SocketAddr, key: &str) -> u16 {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let request = format!(
            "GET /api/campaigns HTTP/1.1\r\nHost: {addr}\r\nX-API-Key: {key}\r\nConnection: close\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut response = String::new();
        stream.read_to_string(&mut response).await.expect("read");
        response
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .expect("status line")
    }

    /// Where no keychain answers (no D-Bus session here, or switched off)
    /// detection settles on the encrypted file instead of failing.
    #[test]
    fn without_a_keychain_keys_fall_back_to_the_encrypted_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let no_session_bus =
            cfg!(target_os = "linux") && std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none();
        if no_session_bus {
            assert_eq!(
                keychain::KeyVault::detect(dir.path()).storage(),
                keychain::KeyStorage::EncryptedFile,
                "no session bus: no Secret Service"
            );
        }
        let vault = keychain::KeyVault::encrypted_only();
        let secrets = agenteval_engine::secrets::Secrets::ephemeral();
        let reference = vault.put(&secrets, "role/judge", "sk-x").expect("stored");
        assert!(reference.starts_with("enc:v1:"), "{reference}");
        assert_eq!(vault.get(&secrets, &reference).expect("read"), "sk-x");
    }

    /// The OS keychain path. Needs a Secret Service (see
    /// `scripts/keychain-check.sh`, which starts one); ignored otherwise.
    #[test]
    #[ignore = "needs an OS keychain: run scripts/keychain-check.sh"]
    fn keys_go_to_the_os_keychain_when_there_is_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let vault = keychain::KeyVault::detect(dir.path());
        assert_eq!(
            vault.storage(),
            keychain::KeyStorage::Keychain,
            "a Secret Service answers on the session bus"
        );
        let secrets = agenteval_engine::secrets::Secrets::ephemeral();
        let reference = vault
            .put(&secrets, "role/judge", "sk-in-the-keychain")
            .expect("stored");
        assert!(reference.starts_with("keychain:"), "{reference}");
        assert!(!reference.contains("sk-in-the-keychain"));
        assert_eq!(
            vault.get(&secrets, &reference).expect("read back"),
            "sk-in-the-keychain"
        );
        let platform = tauri::async_runtime::block_on(platform_in(dir.path()));
        let store = settings::SettingsStore::open(
            dir.path(),
            &platform.secrets,
            keychain::KeyVault::detect(dir.path()),
        )
        .expect("open");
        let on_disk = std::fs::read_to_string(dir.path().join("settings.json")).expect("file");
        assert!(
            on_disk.contains("\"api_key_ref\": \"keychain:"),
            "the API key is in the keychain: {on_disk}"
        );
        assert!(!on_disk.contains(&store.get().api.key));
        vault.forget(&reference);
        assert!(vault.get(&secrets, &reference).is_err(), "forgotten");
    }
}
