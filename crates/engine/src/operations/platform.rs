//! The platform: the one place every operation hangs off. The desktop
//! shell, the HTTP server and the CLI are thin adapters over its methods.

use crate::channel::Channel;
use crate::clock::{Clock, IdSource, SystemClock, UuidV7};
use crate::domain::ids::{CampaignId, RunId, SessionId, TargetId};
use crate::error::{Context, Error, Result};
use crate::role_models::{LiveRoles, RoleClients, RoleModels};
use crate::scenario::Catalog;
use crate::secrets::Secrets;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;
use uuid::Uuid;

/// Something that changed, for live views (desktop events, UI polling).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    CampaignChanged {
        campaign_id: CampaignId,
    },
    RunFinished {
        campaign_id: CampaignId,
        run_id: RunId,
    },
    SessionChanged {
        campaign_id: CampaignId,
        session_id: SessionId,
    },
}

pub struct Platform {
    /// Every read and write of the database.
    pub(crate) store: crate::store::Store,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdSource>,
    pub secrets: Secrets,
    pub scenarios: Catalog,
    pub http: reqwest::Client,
    /// The models playing virtual user, judge, analyst and tool simulator, replaceable
    /// while the platform runs.
    pub roles: LiveRoles,
    /// Where the data lives.
    pub data_dir: PathBuf,
    events: broadcast::Sender<Event>,
    /// One channel per target, so that its concurrency and rate limits are
    /// shared by everything that talks to it.
    channels: Mutex<HashMap<TargetId, Arc<dyn Channel>>>,
    /// Calibration and consistency thresholds (see [`crate::calibration`]).
    pub(crate) judge_policy: std::sync::RwLock<crate::calibration::JudgePolicy>,
    /// Hosts contacted, counted until the writer's next batch stores them.
    pub(crate) contacts: Arc<crate::provenance::Contacts>,
    /// Offline mode as the platform was opened (flag or environment):
    /// stays on whatever the settings say.
    offline_forced: crate::provenance::Offline,
    /// Offline mode as the settings say (see [`Platform::apply_offline`]).
    offline_switch: std::sync::atomic::AtomicBool,
    /// When this process last recorded each named key's use.
    pub(crate) key_uses: crate::keys::KeyUses,
    /// The tool environments of exploration sessions, and their copies of
    /// its workspace.
    pub(crate) session_tools: crate::exploration::session::SessionTools,
    /// The fixed runs this process plays now, whose leases it renews.
    pub(crate) playing_runs: std::sync::Mutex<std::collections::HashSet<uuid::Uuid>>,
    /// Campaigns as sessions were started on them (see
    /// `Platform::campaign_for_start`).
    pub(crate) start_campaigns: crate::exploration::session::StartCampaigns,
}

impl std::fmt::Debug for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Platform")
            .field("data_dir", &self.data_dir)
            .finish_non_exhaustive()
    }
}

/// The environment variable naming the database (see
/// [`PlatformBuilder::database_url`]).
pub const DATABASE_URL_ENV: &str = "AGENTEVAL_DATABASE_URL";

/// How to build a [`Platform`].
pub struct PlatformBuilder {
    data_dir: PathBuf,
    database_url: Option<String>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    role_models: Option<RoleModels>,
    judge_policy: crate::calibration::JudgePolicy,
    offline: crate::provenance::Offline,
}

impl PlatformBuilder {
    /// The database to use instead of the embedded SQLite file in the data
    /// folder: `postgres://user:password@host:port/database`, a server that
    /// several processes share (the command line reads it from
    /// [`DATABASE_URL_ENV`]; default: none). The
    /// data folder still holds what stays on this machine (the secret key
    /// unless `AGENTEVAL_SECRET_KEY` is set, scenario packs).
    pub fn database_url(mut self, url: Option<String>) -> Self {
        self.database_url = url.filter(|u| !u.is_empty());
        self
    }

    /// Offline mode (default: `AGENTEVAL_OFFLINE`); `true` here turns it on
    /// whatever the environment says.
    pub fn offline(mut self, offline: bool) -> Self {
        self.offline = crate::provenance::Offline(self.offline.0 || offline);
        self
    }

    /// The role models to start with (default: from the environment, see
    /// [`RoleModels::from_env`]).
    pub fn role_models(mut self, models: RoleModels) -> Self {
        self.role_models = Some(models);
        self
    }

    /// The judge's calibration thresholds (default
    /// [`crate::calibration::JudgePolicy::default`]).
    pub fn judge_policy(mut self, policy: crate::calibration::JudgePolicy) -> Self {
        self.judge_policy = policy;
        self
    }

    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    pub fn ids(mut self, ids: Arc<dyn IdSource>) -> Self {
        self.ids = ids;
        self
    }

    pub async fn open(self) -> Result<Arc<Platform>> {
        self.judge_policy.validate()?;
        // The store first: it creates the data folder, and refuses one
        // that a newer version migrated before anything else is read.
        let contacts = Arc::new(crate::provenance::Contacts::default());
        let store = match &self.database_url {
            Some(url) => {
                std::fs::create_dir_all(&self.data_dir)
                    .map_err(Error::internal)
                    .with_context(|| {
                        format!("creating the data folder {}", self.data_dir.display())
                    })?;
                crate::store::Store::open_database(url, contacts.clone())
                    .await
                    .with_context(|| {
                        format!(
                            "opening the database {}",
                            crate::store::postgres::shown_url(url)
                        )
                    })?
            }
            None => crate::store::Store::open(&self.data_dir, contacts.clone()).await?,
        };
        let secrets = Secrets::open(&self.data_dir)?;
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(256)
            .build()
            .map_err(Error::internal)
            .context("building the HTTP client")?;
        let (events, _) = broadcast::channel(1024);
        let models = self.role_models.unwrap_or_else(RoleModels::from_env);
        check_role_models(self.offline, &models)?;
        let roles = LiveRoles::new(models, &http);
        let platform = Arc::new(Platform {
            store,
            contacts,
            offline_forced: self.offline,
            offline_switch: Default::default(),
            roles,
            judge_policy: std::sync::RwLock::new(self.judge_policy),
            clock: self.clock,
            ids: self.ids,
            secrets,
            scenarios: Catalog::default(),
            http,
            data_dir: self.data_dir,
            events,
            channels: Mutex::new(HashMap::new()),
            key_uses: Default::default(),
            session_tools: Default::default(),
            playing_runs: Default::default(),
            start_campaigns: Default::default(),
        });
        // Data that migrations leave for the engine to fill; a read-only
        // database was refused unless it is migrated, and has nothing to
        // fill that can be written.
        if platform.read_only() {
            return Ok(platform);
        }
        platform
            .store
            .run_backfills(crate::store::Backfills {
                simulator_faults: crate::exploration::simulator_faults::check,
                issues: crate::exploration::issues::reported_issues,
            })
            .await
            .context("filling the data that migrations left for the engine")?;
        Ok(platform)
    }
}

impl Platform {
    /// A platform on the database in `data_dir` (created if missing).
    pub fn builder(data_dir: &Path) -> PlatformBuilder {
        PlatformBuilder {
            data_dir: data_dir.to_path_buf(),
            database_url: None,
            clock: Arc::new(SystemClock),
            ids: Arc::new(UuidV7),
            role_models: None,
            judge_policy: Default::default(),
            offline: crate::provenance::Offline::from_env(),
        }
    }

    /// The role models in force now.
    pub fn role_models(&self) -> RoleModels {
        self.roles.models()
    }

    /// Which model plays each role now, or the fallback that does; never
    /// a key.
    pub fn role_models_view(&self) -> crate::role_models::RoleModelsView {
        self.roles.view()
    }

    /// The clients of the role models in force now.
    pub fn role_clients(&self) -> RoleClients {
        self.roles.clients()
    }

    /// Replaces the role models; the judge worker, the patrol agent and the
    /// analysis use the new ones from their next piece of work.
    pub fn set_role_models(&self, models: RoleModels) {
        self.roles.set(models, &self.http);
    }

    /// [`Platform::set_role_models`], refused (and nothing changed) under
    /// offline mode when a role model is not on this machine.
    pub fn try_set_role_models(&self, models: RoleModels) -> Result<()> {
        check_role_models(self.offline(), &models)?;
        self.set_role_models(models);
        Ok(())
    }

    /// Offline mode now: only endpoints on this machine may be used.
    pub fn offline(&self) -> crate::provenance::Offline {
        crate::provenance::Offline(
            self.offline_forced.0
                || self
                    .offline_switch
                    .load(std::sync::atomic::Ordering::Relaxed),
        )
    }

    /// Whether turning offline mode to `offline` (a settings switch) with
    /// `models` would be refused, changing nothing.
    pub fn check_offline(&self, offline: bool, models: &RoleModels) -> Result<()> {
        check_role_models(
            crate::provenance::Offline(self.offline_forced.0 || offline),
            models,
        )
    }

    /// Turns the settings' offline mode to `offline` and puts `models` in
    /// force, or refuses both (see [`Platform::check_offline`]). Offline
    /// mode given when the platform was opened stays on.
    pub fn apply_offline(&self, offline: bool, models: RoleModels) -> Result<()> {
        self.check_offline(offline, &models)?;
        self.offline_switch
            .store(offline, std::sync::atomic::Ordering::Relaxed);
        self.set_role_models(models);
        Ok(())
    }

    /// Reads of what this platform has stored, for tests, benches and
    /// operators' checks (see [`crate::store::inspect::Inspect`]).
    pub fn inspect(&self) -> crate::store::inspect::Inspect {
        self.store.inspect()
    }

    /// Writes that only tests and benches make (see
    /// [`crate::store::fixtures::Fixtures`]).
    pub fn fixtures(&self) -> crate::store::fixtures::Fixtures<'_> {
        self.store.fixtures()
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    pub(crate) fn notify(&self, event: Event) {
        // No subscriber is fine: events are for live views only.
        let _ = self.events.send(event);
    }

    /// Drops a target's channel, so that the next request builds it from
    /// the target's current settings (after an edit or a removal).
    pub(crate) fn forget_channel(&self, target_id: TargetId) {
        self.channels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&target_id);
    }

    /// The channel to a target, built once and shared.
    pub async fn channel_for(&self, target_id: TargetId) -> Result<Arc<dyn Channel>> {
        if let Some(c) = self
            .channels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&target_id)
        {
            return Ok(c.clone());
        }
        let target = self.get_target(target_id).await?;
        // The last wall: a target saved before offline mode was on.
        if let Some(url) = crate::target::channel_url(&target.channel) {
            self.offline().check("the target", url)?;
        }
        let channel = crate::channel::build(&target, &self.secrets, &self.http).map_err(|e| {
            Error::msg(
                crate::error::ErrorCode::TargetUnavailable,
                crate::msg!(
                    "target-cannot-build",
                    name = target.name.as_str(),
                    detail = e.to_string()
                ),
                crate::msg!("target-cannot-build-suggestion"),
            )
        })?;
        let mut map = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        Ok(map.entry(target_id).or_insert(channel).clone())
    }

    /// Records an audit row of an operation, naming the caller it acts for
    /// ([`crate::audit::acting_for`]), else the platform.
    /// Whether the database answers now (`/api/health`): `Err` with
    /// `DATABASE_UNAVAILABLE` when it cannot be reached.
    pub async fn check_database(&self) -> Result<()> {
        self.store.ping().await
    }

    /// Whether the database was opened for reading only (a read-only data
    /// folder): reads answer, every write is refused with
    /// `DATABASE_UNAVAILABLE`, and no background work runs.
    pub fn read_only(&self) -> bool {
        self.store.read_only()
    }

    pub async fn audit_operation(&self, action: &str, subject: Option<Uuid>, outcome: &str) {
        let actor = crate::audit::current_actor();
        self.audit(&actor, action, subject, outcome).await;
    }

    /// Records an audit event (group-committed with other writes; returns
    /// once it is stored). Failure to audit is logged, never fatal to the
    /// operation it describes.
    pub async fn audit(&self, actor: &str, action: &str, subject: Option<Uuid>, outcome: &str) {
        if self.read_only() {
            return;
        }
        let row = crate::store::writer::AuditRow {
            id: self.ids.next_id().to_string(),
            at: crate::clock::to_ms(self.clock.now()),
            actor: actor.to_string(),
            action: action.to_string(),
            subject: subject.map(|s| s.to_string()),
            outcome: outcome.to_string(),
        };
        let res = self
            .store
            .enqueue(crate::store::writer::Write::Audit(row))
            .committed()
            .await;
        if let Err(e) = res {
            tracing::warn!(error = %e, action, "could not record audit event");
        }
    }
}

/// Under offline mode, every configured role model must be on this machine.
fn check_role_models(offline: crate::provenance::Offline, models: &RoleModels) -> Result<()> {
    let roles = [
        ("the virtual-user model", &models.virtual_user),
        ("the judge model", &models.judge),
        ("the analyst model", &models.analyst),
        ("the tool-simulator model", &models.tool_simulator),
    ];
    for (what, config) in roles {
        if let Some(config) = config {
            offline.check(what, &config.base_url)?;
        }
    }
    Ok(())
}
