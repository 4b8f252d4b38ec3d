//! AgentEval Desktop: the Tauri shell over the engine. It opens the
//! platform in the app-data folder, loads the scenario packs, runs the
//! scheduler, forwards the platform's events to the webview and exposes the
//! engine's operations as commands (see [`commands`]).

pub mod commands;
pub mod settings;

use agenteval_engine::target::CreateTarget;
use agenteval_engine::{Event, Platform};
use serde::Serialize;
use std::path::{Path, PathBuf};
use tauri::Manager;
use tauri_specta::Event as _;

/// Something changed in the platform; the UI refreshes what shows it.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct PlatformEvent(pub Event);

/// What start-up found, shown on the settings page.
#[derive(Debug)]
pub struct Startup {
    pub data_dir: PathBuf,
    pub log_dir: PathBuf,
    pub scenario_errors: Vec<String>,
}

/// The one place commands and events are registered, for the app and for
/// the bindings export.
pub fn specta_builder() -> tauri_specta::Builder<tauri::Wry> {
    tauri_specta::Builder::<tauri::Wry>::new()
        .commands(tauri_specta::collect_commands![
            commands::list_targets,
            commands::create_target,
            commands::test_target,
            commands::list_scenarios,
            commands::list_campaigns,
            commands::get_campaign,
            commands::create_campaign,
            commands::finalize_campaign,
            commands::campaign_report,
            commands::list_runs,
            commands::run_turns,
            commands::add_review,
            commands::generate_analysis,
            commands::next_period,
            commands::list_sessions,
            commands::session_messages,
            commands::create_session,
            commands::send_message,
            commands::close_session,
            commands::export_campaign,
            commands::save_export,
            commands::get_settings,
            commands::update_settings,
            commands::app_info,
        ])
        .events(tauri_specta::collect_events![PlatformEvent])
        .dangerously_cast_bigints_to_number()
        .disable_serde_phases()
}

/// Where the scenario packs are: `AGENTEVAL_SCENARIOS`, the bundled
/// resources, or a `scenarios/` folder beside (or above) the working folder.
fn scenario_dirs(resource_dir: Option<PathBuf>) -> Vec<PathBuf> {
    if let Some(dir) = std::env::var_os("AGENTEVAL_SCENARIOS") {
        return vec![PathBuf::from(dir)];
    }
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(r) = resource_dir {
        candidates.push(r.join("scenarios"));
    }
    candidates.push(PathBuf::from("scenarios"));
    candidates.push(PathBuf::from("../scenarios"));
    candidates.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios"));
    candidates
        .into_iter()
        .find(|p| p.is_dir())
        .into_iter()
        .collect()
}

/// Loads the scenario packs into the platform's catalog; invalid files are
/// reported (file:line) and left out.
async fn load_scenarios(platform: &Platform, dirs: &[PathBuf]) -> Vec<String> {
    if dirs.is_empty() {
        tracing::warn!("no scenarios folder found; set AGENTEVAL_SCENARIOS to load packs");
        return Vec::new();
    }
    // Through the platform, so that reports and exports know the titles.
    let report = match platform.load_scenarios(dirs).await {
        Ok(r) => r,
        Err(e) => return vec![e.body.message],
    };
    tracing::info!(
        loaded = report.scenarios.len(),
        errors = report.errors.len(),
        ?dirs,
        "scenarios loaded"
    );
    report.errors.iter().map(|e| e.to_string()).collect()
}

/// A newcomer starts with a target that needs no configuration.
async fn ensure_demo_target(platform: &Platform) -> agenteval_engine::Result<()> {
    if platform.list_targets().await?.is_empty() {
        platform
            .create_target(CreateTarget::builtin_demo("Demo agent"))
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
    let scenario_errors = tauri::async_runtime::block_on(load_scenarios(
        &platform,
        &scenario_dirs(app.path().resource_dir().ok()),
    ));
    if let Err(e) = tauri::async_runtime::block_on(ensure_demo_target(&platform)) {
        tracing::warn!(error = %e, "could not create the demo target");
    }
    let settings = settings::SettingsStore::open(&data_dir)?;
    let current = settings.get();

    let handle = app.handle().clone();
    let events = platform.subscribe();
    tauri::async_runtime::spawn(forward_events(handle, events));
    let p = platform.clone();
    let patrol_interval =
        std::time::Duration::from_secs(u64::from(current.patrol_interval_minutes.max(1)) * 60);
    tauri::async_runtime::spawn(async move {
        let _scheduler = agenteval_engine::fixed::spawn_scheduler(p.clone());
        let retention = agenteval_engine::audit::retention_days_from_env().unwrap_or_else(|e| {
            tracing::warn!(error = %e.body.message, "using the default audit retention");
            agenteval_engine::audit::DEFAULT_RETENTION_DAYS
        });
        let _audit = agenteval_engine::audit::spawn_retention(p.clone(), retention);
        // Exploration runs beside the fixed plans: the judge reviews closed
        // sessions, the resident patrol agent explores running formal
        // campaigns. Role models come from the environment for now.
        let models = agenteval_engine::role_models::RoleModels::from_env();
        let sampling = agenteval_engine::judge::JudgeSampling::default();
        let judge = models.clients(&p.http).judge;
        let _judge = agenteval_engine::judge::spawn_worker(p.clone(), judge, sampling);
        let handle = agenteval_engine::patrol_agent::PatrolAgent::spawn(
            p,
            agenteval_engine::patrol_agent::PatrolConfig {
                interval: patrol_interval,
                models,
                sampling,
                ..Default::default()
            },
        );
        // The agent lives as long as the app: hold its handle forever.
        let _patrol = handle;
        std::future::pending::<()>().await;
    });
    if current.api.enabled {
        let p = platform.clone();
        let config = agenteval_server::ServeConfig {
            bind: std::net::SocketAddr::from(([127, 0, 0, 1], current.api.port)),
            api_key: current.api.key.clone(),
            ui_dir: None,
        };
        tauri::async_runtime::spawn(async move {
            if let Err(e) = agenteval_server::serve(p, config).await {
                tracing::error!(error = %e, "the embedded HTTP API stopped");
            }
        });
    }

    app.manage(platform);
    app.manage(settings);
    app.manage(Startup {
        data_dir,
        log_dir,
        scenario_errors,
    });
    Ok(())
}

async fn forward_events(
    handle: tauri::AppHandle,
    mut events: tokio::sync::broadcast::Receiver<Event>,
) {
    use tokio::sync::broadcast::error::RecvError;
    loop {
        match events.recv().await {
            Ok(event) => {
                if let Err(e) = PlatformEvent(event).emit(&handle) {
                    tracing::debug!(error = %e, "could not emit event");
                }
            }
            // Views refresh on the next event; a missed one only delays it.
            Err(RecvError::Lagged(_)) => continue,
            Err(RecvError::Closed) => break,
        }
    }
}

/// Runs the desktop app.
pub fn run() {
    let builder = specta_builder();
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .invoke_handler(builder.invoke_handler())
        .setup(move |app| {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn settings_round_trip_and_validation() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = settings::SettingsStore::open(dir.path()).expect("open settings");
        let fresh = store.get();
        assert!(!fresh.api.enabled, "the embedded API is off until enabled");
        assert_eq!(fresh.api.key.len(), 32, "a fresh install gets a random key");
        let reopened = settings::SettingsStore::open(dir.path()).expect("reopen");
        assert_eq!(
            reopened.get(),
            fresh,
            "settings persist across restarts (same key, same values)"
        );
        let platform =
            tauri::async_runtime::block_on(Platform::in_memory().open()).expect("platform");
        let mut bad = fresh.clone();
        bad.patrol_interval_minutes = 0;
        let err = store
            .update(&platform, bad)
            .expect_err("zero cadence is refused");
        assert_eq!(
            err.code(),
            agenteval_engine::ErrorCode::InvalidInput,
            "{err}"
        );
        let mut with_key = fresh;
        with_key.role_models.judge = Some(settings::RoleModel {
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "judge-model".into(),
            api_key: Some("sk-secret-value".into()),
            api_key_env: None,
            api_key_ref: None,
        });
        let saved = store.update(&platform, with_key).expect("valid settings");
        let judge = saved.role_models.judge.expect("judge kept");
        assert!(
            judge.api_key.is_none(),
            "the clear key is never kept in settings"
        );
        assert!(
            judge.api_key_ref.is_some(),
            "the key is referenced in the secret store"
        );
        let on_disk = std::fs::read_to_string(dir.path().join("settings.json")).expect("file");
        assert!(
            !on_disk.contains("sk-secret-value"),
            "no clear-text key on disk"
        );
    }
}
