//! Tauri commands: thin adapters over the engine's operations. Every error
//! crosses to the UI as the engine's `{code, message, suggestion}` body.

use crate::Resident;
use crate::keychain::KeyStorage;
use crate::remote::{RemoteAnswer, RemoteBody, ServerConnection, TeamServer};
use crate::settings::{Settings, SettingsStore};
use agenteval_engine::analysis::Analysis;
use agenteval_engine::calibration::{
    BlindQueue, BlindRunQueue, JudgeCalibration, LabelRevealed, RunLabelRevealed, SubmitLabel,
    SubmitRunLabel,
};
use agenteval_engine::campaign::{Campaign, CreateCampaign, NextPeriod, NextPeriodPlan};
use agenteval_engine::domain::ids::{CampaignId, RunId, SessionId, TargetId};
use agenteval_engine::domain::traces::{ImportedConversation, SeedProposal};
use agenteval_engine::exploration::{
    CloseSession, CreateSession, ExplorationSession, ExploreRequest, ExploreStarted, MessageReply,
    SendMessage, SessionTranscript,
};
use agenteval_engine::export::ExportFormat;
use agenteval_engine::fixed::{Run, RunTurn};
use agenteval_engine::keys::{Caller, Identity};
use agenteval_engine::paging::{RunPage, RunQuery, SessionPage, SessionQuery};
use agenteval_engine::report::CampaignReport;
use agenteval_engine::review::{CreateReview, HumanReview};
use agenteval_engine::role_models::RoleModelsView;
use agenteval_engine::runtime::{PatrolControl, PatrolStatus};
use agenteval_engine::scenario::ScenarioSummary;
use agenteval_engine::scenario::regression::{RegressionDraft, SaveScenarioFile};
use agenteval_engine::side_by_side::SideBySide;
use agenteval_engine::target::{Target, TargetRemoval, TargetSettings};
use agenteval_engine::target_probe::TargetProbe;
use agenteval_engine::traces::{
    Encoding, ImportRequest, ImportSummary, ImportedPage, ImportedQuery, TraceDraft,
};
use agenteval_engine::{Error, ErrorBody, Lang, Platform};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use tauri::State;
use uuid::Uuid;

type Shared<'a> = State<'a, Arc<Platform>>;
type Reply<T> = Result<T, ErrorBody>;

/// The body the UI sees; internal causes go to the log only.
pub fn body(e: Error) -> ErrorBody {
    if let Some(cause) = &e.cause {
        tracing::error!(error = format!("{cause:#}"), code = %e.body.code, "operation failed");
    }
    e.body
}

#[tauri::command]
#[specta::specta]
/// The targets in use; archived ones too with `include_archived`.
pub async fn list_targets(
    platform: Shared<'_>,
    include_archived: Option<bool>,
) -> Reply<Vec<Target>> {
    platform
        .list_targets_with(include_archived.unwrap_or(false))
        .await
        .map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn create_target(platform: Shared<'_>, req: TargetSettings) -> Reply<Target> {
    platform.create_target(req).await.map_err(body)
}

/// One target by its id.
#[tauri::command]
#[specta::specta]
pub async fn get_target(platform: Shared<'_>, id: TargetId) -> Reply<Target> {
    platform.get_target(id).await.map_err(body)
}

/// Replaces a target's settings (the API key stays unless a new one is
/// given).
#[tauri::command]
#[specta::specta]
pub async fn update_target(
    platform: Shared<'_>,
    id: TargetId,
    req: TargetSettings,
) -> Reply<Target> {
    platform.update_target(id, req).await.map_err(body)
}

/// Deletes a target, or archives it when campaigns use it.
#[tauri::command]
#[specta::specta]
pub async fn delete_target(platform: Shared<'_>, id: TargetId) -> Reply<TargetRemoval> {
    platform.delete_target(id).await.map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn test_target(platform: Shared<'_>, id: TargetId) -> Reply<TargetProbe> {
    platform.test_target(id).await.map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn list_scenarios(platform: Shared<'_>) -> Reply<Vec<ScenarioSummary>> {
    Ok(platform.list_scenarios())
}

#[tauri::command]
#[specta::specta]
pub async fn list_campaigns(platform: Shared<'_>) -> Reply<Vec<Campaign>> {
    platform.list_campaigns().await.map_err(body)
}

/// Every campaign's headline figures for the campaign list, from the
/// tallies.
#[tauri::command]
#[specta::specta]
pub async fn campaign_summaries(
    platform: Shared<'_>,
) -> Reply<Vec<agenteval_engine::summary::CampaignSummary>> {
    platform.campaign_summaries().await.map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn get_campaign(platform: Shared<'_>, id: CampaignId) -> Reply<Campaign> {
    platform.get_campaign(id).await.map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn create_campaign(platform: Shared<'_>, req: CreateCampaign) -> Reply<Campaign> {
    platform.create_campaign(req).await.map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn finalize_campaign(platform: Shared<'_>, id: CampaignId) -> Reply<Campaign> {
    platform.finalize_campaign(id).await.map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn campaign_report(platform: Shared<'_>, id: CampaignId) -> Reply<CampaignReport> {
    platform.campaign_report(id).await.map_err(body)
}

/// Drafts a regression scenario from the session's judge finding (at
/// `turn`, else its poorest), titled in `lang`; nothing is written.
#[tauri::command]
#[specta::specta]
pub async fn draft_regression(
    platform: Shared<'_>,
    session_id: SessionId,
    turn: Option<u32>,
    pack: Option<String>,
    lang: Lang,
) -> Reply<RegressionDraft> {
    platform
        .draft_regression(session_id, turn, pack, lang)
        .await
        .map_err(body)
}

/// Saves a pack file among the user's packs once it loads, and loads it.
#[tauri::command]
#[specta::specta]
pub async fn save_scenario_file(
    platform: Shared<'_>,
    req: SaveScenarioFile,
) -> Reply<Vec<ScenarioSummary>> {
    platform.save_scenario_file(req).await.map_err(body)
}

/// Imports OTLP/JSON `text` (a collector's file, read by the UI) as the
/// production of `target_id`, redacted unless `redact` is false, listed
/// under `source` (the file's name): what was kept, redacted and skipped.
/// Empty text is refused.
#[tauri::command]
#[specta::specta]
pub async fn import_traces(
    platform: Shared<'_>,
    text: String,
    target_id: Option<TargetId>,
    redact: Option<bool>,
    source: Option<String>,
) -> Reply<ImportSummary> {
    let req = ImportRequest::new(
        source.as_deref(),
        "upload",
        Encoding::Json,
        target_id,
        redact,
    );
    platform
        .import_traces(text.as_bytes(), req)
        .await
        .map_err(body)
}

/// A page of the imported conversations, newest first, with a preview each.
#[tauri::command]
#[specta::specta]
pub async fn list_conversations(platform: Shared<'_>, query: ImportedQuery) -> Reply<ImportedPage> {
    platform.imported_conversations(query).await.map_err(body)
}

/// One imported conversation, whole: messages, tool calls, traces.
#[tauri::command]
#[specta::specta]
pub async fn get_conversation(platform: Shared<'_>, id: Uuid) -> Reply<ImportedConversation> {
    platform.imported_conversation(id).await.map_err(body)
}

/// A fixed scenario drafted from an imported conversation, in `lang`, for
/// pack `pack` (default `production`); nothing is written.
#[tauri::command]
#[specta::specta]
pub async fn draft_from_conversation(
    platform: Shared<'_>,
    id: Uuid,
    pack: Option<String>,
    lang: Lang,
) -> Reply<TraceDraft> {
    platform
        .draft_from_conversation(id, pack, lang)
        .await
        .map_err(body)
}

/// Personas and goals proposed from imported conversations `ids` (by the
/// analyst model when one is configured, else by rules), written in
/// `lang`, each with its conversations and traces as lineage.
#[tauri::command]
#[specta::specta]
pub async fn propose_seeds(
    platform: Shared<'_>,
    ids: Vec<Uuid>,
    lang: Lang,
) -> Reply<SeedProposal> {
    platform
        .seeds_from_conversations(&ids, lang)
        .await
        .map_err(body)
}

/// Campaign `id` beside `baseline`, another campaign of the same target.
#[tauri::command]
#[specta::specta]
pub async fn compare_campaigns(
    platform: Shared<'_>,
    id: CampaignId,
    baseline: CampaignId,
) -> Reply<SideBySide> {
    platform.compare_campaigns(id, baseline).await.map_err(body)
}

/// Fixed-scenario runs of a campaign, in plan order.
#[tauri::command]
#[specta::specta]
pub async fn list_runs(platform: Shared<'_>, campaign_id: CampaignId) -> Reply<Vec<Run>> {
    platform.list_runs(campaign_id).await.map_err(body)
}

/// A page of a campaign's runs, filtered by verdict, scenario and tag.
#[tauri::command]
#[specta::specta]
pub async fn search_runs(
    platform: Shared<'_>,
    campaign_id: CampaignId,
    query: RunQuery,
) -> Reply<RunPage> {
    platform.search_runs(campaign_id, query).await.map_err(body)
}

/// A page of a campaign's sessions, filtered by status, seed or ids.
#[tauri::command]
#[specta::specta]
pub async fn search_sessions(
    platform: Shared<'_>,
    campaign_id: CampaignId,
    query: SessionQuery,
) -> Reply<SessionPage> {
    platform
        .search_sessions(campaign_id, query)
        .await
        .map_err(body)
}

/// One run with its turns and its checks' results.
#[tauri::command]
#[specta::specta]
pub async fn get_run(
    platform: Shared<'_>,
    run_id: RunId,
) -> Reply<agenteval_engine::fixed::RunWithTurns> {
    platform.get_run(run_id).await.map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn run_turns(platform: Shared<'_>, run_id: RunId) -> Reply<Vec<RunTurn>> {
    platform.run_turns(run_id).await.map_err(body)
}

/// A reviewer's 1-5 rating of a run or a session.
#[tauri::command]
#[specta::specta]
pub async fn add_review(platform: Shared<'_>, req: CreateReview) -> Reply<HumanReview> {
    platform.add_review(req).await.map_err(body)
}

/// The next judged sessions nobody labelled, without the judge's scores.
#[tauri::command]
#[specta::specta]
pub async fn blind_queue(
    platform: Shared<'_>,
    campaign_id: CampaignId,
    limit: Option<u32>,
) -> Reply<BlindQueue> {
    platform.blind_queue(campaign_id, limit).await.map_err(body)
}

/// A person's blind label of a judged session; reveals the judge's scores.
#[tauri::command]
#[specta::specta]
pub async fn submit_label(platform: Shared<'_>, req: SubmitLabel) -> Reply<LabelRevealed> {
    platform.submit_label(req).await.map_err(body)
}

/// The next fixed runs whose rubric checks nobody labelled, without the
/// judge's scores.
#[tauri::command]
#[specta::specta]
pub async fn blind_run_queue(
    platform: Shared<'_>,
    campaign_id: CampaignId,
    limit: Option<u32>,
) -> Reply<BlindRunQueue> {
    platform
        .blind_run_queue(campaign_id, limit)
        .await
        .map_err(body)
}

/// A person's blind label of a run's rubric checks; reveals the judge's
/// scores.
#[tauri::command]
#[specta::specta]
pub async fn submit_run_label(
    platform: Shared<'_>,
    req: SubmitRunLabel,
) -> Reply<RunLabelRevealed> {
    platform.submit_run_label(req).await.map_err(body)
}

/// Judge-human agreement per criterion of a campaign.
#[tauri::command]
#[specta::specta]
pub async fn judge_calibration(
    platform: Shared<'_>,
    campaign_id: CampaignId,
) -> Reply<JudgeCalibration> {
    platform.judge_calibration(campaign_id).await.map_err(body)
}

/// The ratings of one run or session, newest first.
#[tauri::command]
#[specta::specta]
pub async fn list_reviews(platform: Shared<'_>, subject_id: Uuid) -> Reply<Vec<HumanReview>> {
    platform.reviews(subject_id).await.map_err(body)
}

/// (Re)generates the analysis; the template analysis when no analyst model
/// is configured. The analyst model writes in `lang`, the UI's language.
#[tauri::command]
#[specta::specta]
pub async fn generate_analysis(
    platform: Shared<'_>,
    campaign_id: CampaignId,
    lang: Lang,
) -> Reply<Analysis> {
    platform
        .generate_configured_analysis(campaign_id, lang)
        .await
        .map_err(body)
}

/// What the following campaign would run: its window, runs and the
/// regression scenarios it adds.
#[tauri::command]
#[specta::specta]
pub async fn next_period_plan(
    platform: Shared<'_>,
    campaign_id: CampaignId,
) -> Reply<NextPeriodPlan> {
    platform.next_period_plan(campaign_id).await.map_err(body)
}

/// The following campaign: same target, plan, seeds and budget; without a
/// name it is named after this one in `lang`, the UI's language.
#[tauri::command]
#[specta::specta]
pub async fn next_period(
    platform: Shared<'_>,
    campaign_id: CampaignId,
    req: NextPeriod,
    lang: Lang,
) -> Reply<Campaign> {
    platform
        .next_period(campaign_id, req, lang)
        .await
        .map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn list_sessions(
    platform: Shared<'_>,
    campaign_id: CampaignId,
) -> Reply<Vec<ExplorationSession>> {
    platform.list_sessions(campaign_id).await.map_err(body)
}

/// One session with its whole conversation.
#[tauri::command]
#[specta::specta]
pub async fn session_messages(platform: Shared<'_>, id: SessionId) -> Reply<SessionTranscript> {
    platform.session_messages(id).await.map_err(body)
}

/// Starts a manual (or seeded) exploration session, checked against the
/// campaign's budget.
#[tauri::command]
#[specta::specta]
pub async fn create_session(platform: Shared<'_>, req: CreateSession) -> Reply<ExplorationSession> {
    platform.create_session(req).await.map_err(body)
}

/// Lets the virtual user explore persona x goal cells (or every cell
/// without a session); the sessions play in the background.
#[tauri::command]
#[specta::specta]
pub async fn explore(platform: Shared<'_>, req: ExploreRequest) -> Reply<ExploreStarted> {
    platform.explore(req).await.map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn send_message(
    platform: Shared<'_>,
    id: SessionId,
    req: SendMessage,
) -> Reply<MessageReply> {
    platform.send_message(id, req).await.map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn close_session(
    platform: Shared<'_>,
    id: SessionId,
    req: CloseSession,
) -> Reply<ExplorationSession> {
    platform.close_session(id, req).await.map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn discard_session(platform: Shared<'_>, id: SessionId) -> Reply<ExplorationSession> {
    platform.discard_session(id).await.map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn export_campaign(
    platform: Shared<'_>,
    id: CampaignId,
    format: ExportFormat,
    lang: Lang,
) -> Reply<String> {
    platform
        .export_campaign(id, format, lang)
        .await
        .map_err(body)
}

/// Writes the export to a file the user chose in the save dialog.
#[tauri::command]
#[specta::specta]
pub async fn save_export(
    platform: Shared<'_>,
    id: CampaignId,
    format: ExportFormat,
    path: PathBuf,
    lang: Lang,
) -> Reply<()> {
    let text = platform
        .export_campaign(id, format, lang)
        .await
        .map_err(body)?;
    tokio::fs::write(&path, text).await.map_err(|e| {
        body(Error::invalid_msg(
            agenteval_engine::msg!(
                "error-write-file",
                path = path.display().to_string(),
                detail = e.to_string()
            ),
            agenteval_engine::msg!("error-write-file-suggestion"),
        ))
    })
}

#[tauri::command]
#[specta::specta]
pub async fn get_settings(store: State<'_, SettingsStore>) -> Reply<Settings> {
    Ok(store.get())
}

/// Saves the settings and puts them into effect at once (role models,
/// patrol cadence, the embedded API).
#[tauri::command]
#[specta::specta]
pub async fn update_settings(
    platform: Shared<'_>,
    store: State<'_, SettingsStore>,
    resident: State<'_, Resident>,
    settings: Settings,
) -> Reply<Settings> {
    resident
        .save(&platform, &store, settings)
        .await
        .map_err(body)
}

/// Which model plays each role now, or the offline fallback; never a key.
#[tauri::command]
#[specta::specta]
pub async fn role_models_view(platform: Shared<'_>) -> Reply<RoleModelsView> {
    Ok(platform.role_models_view())
}

/// The resident patrol agent: paused or not, last and next wake-up.
#[tauri::command]
#[specta::specta]
pub async fn patrol_status(patrol: State<'_, PatrolControl>) -> Reply<PatrolStatus> {
    Ok(patrol.status())
}

#[tauri::command]
#[specta::specta]
pub async fn pause_patrol(patrol: State<'_, PatrolControl>) -> Reply<PatrolStatus> {
    patrol.pause().map_err(body)
}

#[tauri::command]
#[specta::specta]
pub async fn resume_patrol(patrol: State<'_, PatrolControl>) -> Reply<PatrolStatus> {
    patrol.resume().map_err(body)
}

/// Where things are, for the settings page and support.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct AppInfo {
    pub version: String,
    /// The git revision the app was built from (`unknown` outside git).
    pub revision: String,
    /// The day it was built (UTC), `YYYY-MM-DD`.
    pub built: String,
    pub data_dir: String,
    /// Where the user's own scenario packs go (listed apart from the
    /// shipped ones).
    pub user_packs_dir: String,
    pub log_dir: String,
    pub scenarios_loaded: u32,
    pub scenario_errors: Vec<String>,
    /// Where role-model and API keys are kept.
    pub key_storage: KeyStorage,
    /// The data folder is read-only: saved data is read, every change is
    /// refused (`DATABASE_UNAVAILABLE`).
    pub database_read_only: bool,
}

#[tauri::command]
#[specta::specta]
pub async fn app_info(
    platform: Shared<'_>,
    info: State<'_, crate::Startup>,
    store: State<'_, SettingsStore>,
) -> Reply<AppInfo> {
    Ok(AppInfo {
        version: agenteval_build_info::VERSION.into(),
        revision: agenteval_build_info::REVISION.into(),
        built: agenteval_build_info::BUILT.into(),
        data_dir: info.data_dir.display().to_string(),
        user_packs_dir: agenteval_engine::scenario::user_packs_dir(&info.data_dir)
            .display()
            .to_string(),
        log_dir: info.log_dir.display().to_string(),
        scenarios_loaded: platform.scenarios.len() as u32,
        scenario_errors: info.scenario_errors.clone(),
        key_storage: store.key_storage(),
        database_read_only: platform.read_only(),
    })
}

/// Who the user is. On the app's own database: its owner, an admin. (On a
/// team server the UI asks the server's `GET /api/whoami` instead.)
#[tauri::command]
#[specta::specta]
pub async fn whoami() -> Reply<Identity> {
    Ok(Caller::desktop_user().identity())
}

/// The team server the app works on, or `null` on its own database.
#[tauri::command]
#[specta::specta]
pub async fn connection(team: State<'_, TeamServer>) -> Reply<Option<ServerConnection>> {
    Ok(team.connection())
}

/// Connects to a team server: saved, with the key in the keychain, only
/// when the server knows the key. The window reloads to use it.
#[tauri::command]
#[specta::specta]
pub async fn connect_server(
    platform: Shared<'_>,
    team: State<'_, TeamServer>,
    url: String,
    api_key: String,
) -> Reply<ServerConnection> {
    team.connect(&platform.secrets, &url, &api_key)
        .await
        .map_err(body)
}

/// Back to the app's own database; the saved connection and key are removed.
#[tauri::command]
#[specta::specta]
pub async fn disconnect_server(team: State<'_, TeamServer>) -> Reply<()> {
    team.disconnect().map_err(body)
}

/// One call of the team server's API, the key added here; the answer as
/// the server gave it. `text`, when given, is the body as it is (an OTLP
/// file to import) instead of `body`'s JSON.
#[tauri::command]
#[specta::specta]
pub async fn remote_call(
    team: State<'_, TeamServer>,
    method: String,
    path: String,
    body: Option<serde_json::Value>,
    text: Option<String>,
) -> Reply<RemoteAnswer> {
    let sent = match text {
        Some(text) => Some(RemoteBody::Text(text)),
        None => body.map(RemoteBody::Json),
    };
    team.call(&method, &path, sent).await.map_err(self::body)
}

/// Saves the team server's answer to a GET (an export) where the user chose.
#[tauri::command]
#[specta::specta]
pub async fn remote_save(
    team: State<'_, TeamServer>,
    path: String,
    destination: String,
) -> Reply<()> {
    team.save(&path, std::path::Path::new(&destination))
        .await
        .map_err(body)
}
