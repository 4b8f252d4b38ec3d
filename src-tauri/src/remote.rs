//! The desktop app as a client of a team server (`agenteval serve`, on
//! PostgreSQL or SQLite), chosen in Settings and shown in the header.
//!
//! `server.json` in the data folder keeps the server's URL, who the key is
//! there and a reference to the key; the key itself is in the OS keychain,
//! or encrypted beside the data without one ([`KeyVault`]). While the app
//! is connected, the UI's calls go through [`TeamServer::call`], which adds
//! the key: it never enters the webview. The server's live events
//! (`GET /api/events`) are forwarded as the app's own events.

use crate::keychain::KeyVault;
use crate::settings::write_private;
use agenteval_engine::keys::Identity;
use agenteval_engine::secrets::Secrets;
use agenteval_engine::{Error, ErrorBody, ErrorCode, Event, Result, msg};
use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use url::Url;

/// The file beside the settings that names the team server.
pub const FILE: &str = "server.json";
/// The name the key is filed under in the vault.
const KEY_NAME: &str = "server/api-key";
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Long enough for an analysis written by a slow model.
const CALL_TIMEOUT: Duration = Duration::from_secs(600);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The team server the app works on, as the header and Settings show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ServerConnection {
    /// Its base URL, e.g. `https://agenteval.example.com`.
    pub url: String,
    /// Who the key is there and what its role may do, as the server said
    /// when the app connected.
    pub identity: Identity,
}

/// An answer of the team server, handed to the UI as it came: the UI reads
/// its status and body as it reads the server's in a browser.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct RemoteAnswer {
    pub status: u16,
    pub body: String,
}

/// What a call to the team server sends: JSON, or text as it is (an
/// OTLP file to import).
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteBody {
    Json(serde_json::Value),
    Text(String),
}

impl From<serde_json::Value> for RemoteBody {
    fn from(v: serde_json::Value) -> Self {
        Self::Json(v)
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct OnDisk {
    #[serde(flatten)]
    connection: ServerConnection,
    api_key_ref: String,
}

#[derive(Debug)]
struct Live {
    connection: ServerConnection,
    base: Url,
    key: String,
    api_key_ref: String,
}

/// What the app does with each live event of the server.
/// Hands the server's events to the UI; `None`: some may have been missed
/// (the stream reconnected, or the server dropped events for this reader),
/// so the UI refreshes everything.
pub type Emit = Arc<dyn Fn(Option<Event>) + Send + Sync>;

/// The connection to a team server, if the app has one.
pub struct TeamServer {
    path: PathBuf,
    vault: KeyVault,
    http: reqwest::Client,
    live: RwLock<Option<Arc<Live>>>,
    emit: Emit,
    follower: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl std::fmt::Debug for TeamServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeamServer")
            .field("connection", &self.connection())
            .finish_non_exhaustive()
    }
}

impl TeamServer {
    /// Reads `server.json` from `dir`, if there is one. A file or a key that
    /// cannot be read leaves the app on its own database, with a warning:
    /// the user connects again in Settings.
    pub fn open(dir: &Path, secrets: &Secrets, vault: KeyVault, emit: Emit) -> Result<Self> {
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .build()
            .map_err(Error::internal)?;
        let server = Self {
            path: dir.join(FILE),
            vault,
            http,
            live: RwLock::new(None),
            emit,
            follower: Mutex::new(None),
        };
        if let Ok(text) = std::fs::read_to_string(&server.path) {
            match server.restore(secrets, &text) {
                Ok(live) => *server.live.write().unwrap_or_else(|p| p.into_inner()) = Some(live),
                Err(e) => {
                    tracing::warn!(error = %e, "the saved team server cannot be used; the app works on its own database")
                }
            }
        }
        Ok(server)
    }

    fn restore(&self, secrets: &Secrets, text: &str) -> Result<Arc<Live>> {
        let disk: OnDisk = serde_json::from_str(text).map_err(|e| {
            Error::msg(
                ErrorCode::Unprocessable,
                msg!("error-remote-file", file = FILE, detail = e.to_string()),
                msg!("error-remote-file-suggestion"),
            )
        })?;
        let base = parse_base(&disk.connection.url)?;
        let key = self.vault.get(secrets, &disk.api_key_ref)?;
        Ok(Arc::new(Live {
            connection: disk.connection,
            base,
            key,
            api_key_ref: disk.api_key_ref,
        }))
    }

    /// The team server in use, or `None` when the app works on its own
    /// database.
    pub fn connection(&self) -> Option<ServerConnection> {
        self.current().map(|l| l.connection.clone())
    }

    fn current(&self) -> Option<Arc<Live>> {
        self.live.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Asks the server at `url` who `key` is; only when it answers is the
    /// connection saved (the key in the vault) and put into use. Anything
    /// else changes nothing and says why.
    pub async fn connect(
        &self,
        secrets: &Secrets,
        url: &str,
        key: &str,
    ) -> Result<ServerConnection> {
        let base = parse_base(url)?;
        let key = key.trim();
        if key.is_empty() {
            return Err(Error::invalid_msg(
                msg!("error-remote-key-empty"),
                msg!("error-remote-key-empty-suggestion"),
            ));
        }
        let identity = self.whoami(&base, key).await?;
        let api_key_ref = self.vault.put(secrets, KEY_NAME, key)?;
        let connection = ServerConnection {
            url: base_text(&base),
            identity,
        };
        let disk = OnDisk {
            connection: connection.clone(),
            api_key_ref: api_key_ref.clone(),
        };
        write_private(&self.path, &serde_json::to_string_pretty(&disk)?)?;
        let old = self
            .live
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .replace(Arc::new(Live {
                connection: connection.clone(),
                base,
                key: key.to_string(),
                api_key_ref: api_key_ref.clone(),
            }));
        if let Some(old) = old
            && old.api_key_ref != api_key_ref
        {
            self.vault.forget(&old.api_key_ref);
        }
        self.follow_events();
        tracing::info!(url = %connection.url, key = %connection.identity.name, "connected to a team server");
        Ok(connection)
    }

    /// Back to the app's own database: the saved connection and its key are
    /// removed.
    pub fn disconnect(&self) -> Result<()> {
        let old = self.live.write().unwrap_or_else(|p| p.into_inner()).take();
        self.stop_following();
        match std::fs::remove_file(&self.path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::internal(e)),
        }
        if let Some(old) = old {
            self.vault.forget(&old.api_key_ref);
            tracing::info!(url = %old.connection.url, "disconnected from the team server");
        }
        Ok(())
    }

    /// Sends one API call to the team server with the key. `path` is an API
    /// path with its query (`/api/campaigns?…`); the answer comes back as
    /// the server gave it, error statuses included.
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        body: Option<RemoteBody>,
    ) -> Result<RemoteAnswer> {
        let live = self.current().ok_or_else(not_connected)?;
        let method = match method {
            "GET" => reqwest::Method::GET,
            "POST" => reqwest::Method::POST,
            "PUT" => reqwest::Method::PUT,
            "DELETE" => reqwest::Method::DELETE,
            other => {
                return Err(Error::invalid(
                    format!("{other} is not a method of the API"),
                    "Use GET, POST, PUT or DELETE.",
                ));
            }
        };
        let url = endpoint(&live.base, path)?;
        let mut req = self
            .http
            .request(method, url)
            .timeout(CALL_TIMEOUT)
            .header("X-API-Key", &live.key);
        req = match body {
            Some(RemoteBody::Json(body)) => req.json(&body),
            Some(RemoteBody::Text(text)) => req
                .header(reqwest::header::CONTENT_TYPE, "text/plain; charset=utf-8")
                .body(text),
            None => req,
        };
        let res = req
            .send()
            .await
            .map_err(|e| unreachable_server(&live.connection.url, &e))?;
        let status = res.status().as_u16();
        let body = res
            .text()
            .await
            .map_err(|e| unreachable_server(&live.connection.url, &e))?;
        Ok(RemoteAnswer { status, body })
    }

    /// Sends a GET and writes a successful answer's body to `destination`
    /// (an export the user saves); an error answer is returned as the
    /// server's error and nothing is written.
    pub async fn save(&self, path: &str, destination: &Path) -> Result<()> {
        let answer = self.call("GET", path, None).await?;
        if !(200..300).contains(&answer.status) {
            return Err(server_error(&answer));
        }
        std::fs::write(destination, answer.body).map_err(|e| {
            Error::invalid_msg(
                msg!(
                    "error-write-file",
                    path = destination.display().to_string(),
                    detail = e.to_string()
                ),
                msg!("error-write-file-suggestion"),
            )
        })
    }

    async fn whoami(&self, base: &Url, key: &str) -> Result<Identity> {
        let url = base_text(base);
        let res = self
            .http
            .get(endpoint(base, "/api/whoami")?)
            .timeout(CONNECT_TIMEOUT)
            .header("X-API-Key", key)
            .send()
            .await
            .map_err(|e| unreachable_server(&url, &e))?;
        let status = res.status();
        let text = res.text().await.unwrap_or_default();
        if status == reqwest::StatusCode::UNAUTHORIZED {
            return Err(Error::msg(
                ErrorCode::Unauthorized,
                msg!("error-remote-key-unknown", url = url.to_string()),
                msg!("error-remote-key-unknown-suggestion"),
            ));
        }
        if !status.is_success() {
            return Err(Error::invalid_msg(
                msg!(
                    "error-remote-not-agenteval",
                    url = url.to_string(),
                    status = status.as_u16()
                ),
                msg!("error-remote-not-agenteval-suggestion"),
            ));
        }
        serde_json::from_str(&text).map_err(|_| {
            Error::invalid_msg(
                msg!("error-remote-answer", url = url.to_string()),
                msg!("error-remote-answer-suggestion"),
            )
        })
    }

    /// (Re)starts forwarding the server's live events; call from within the
    /// async runtime. Stops with [`Self::disconnect`] or the next connect.
    pub fn follow_events(&self) {
        self.stop_following();
        let Some(live) = self.current() else { return };
        let Ok(url) = endpoint(&live.base, "/api/events") else {
            return;
        };
        let task = tokio::spawn(follow(
            self.http.clone(),
            url,
            live.key.clone(),
            self.emit.clone(),
        ));
        *self.follower.lock().unwrap_or_else(|p| p.into_inner()) = Some(task);
    }

    fn stop_following(&self) {
        if let Some(task) = self
            .follower
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            task.abort();
        }
    }
}

impl Drop for TeamServer {
    fn drop(&mut self) {
        self.stop_following();
    }
}

/// Reads the server's event stream at `url` until aborted, reconnecting
/// with backoff after a drop.
async fn follow(http: reqwest::Client, url: Url, key: String, emit: Emit) {
    let mut backoff = Duration::from_secs(1);
    let mut connected_before = false;
    loop {
        let res = http
            .get(url.clone())
            .header("X-API-Key", &key)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .send()
            .await;
        match res {
            Ok(res) if res.status().is_success() => {
                backoff = Duration::from_secs(1);
                if connected_before {
                    // Events may have been missed while disconnected.
                    emit(None);
                }
                connected_before = true;
                let mut stream = res.bytes_stream().eventsource();
                while let Some(Ok(message)) = stream.next().await {
                    if message.event == "lagged" {
                        emit(None);
                    } else if let Ok(event) = serde_json::from_str::<Event>(&message.data) {
                        emit(Some(event));
                    }
                }
                tracing::debug!("the team server's event stream ended; reconnecting");
            }
            Ok(res) => {
                tracing::warn!(status = %res.status(), "the team server refused its event stream")
            }
            Err(e) => tracing::debug!(error = %e, "the team server's event stream is unreachable"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// A server's base URL: http or https with a host, perhaps a path prefix
/// (behind a reverse proxy), no query, no credentials.
fn parse_base(raw: &str) -> Result<Url> {
    let fix = || msg!("error-remote-url-suggestion");
    let url = Url::parse(raw.trim()).map_err(|e| {
        Error::invalid_msg(
            msg!("error-remote-url", url = raw, detail = e.to_string()),
            fix(),
        )
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(Error::invalid_msg(
            msg!("error-remote-url-scheme", url = raw),
            fix(),
        ));
    }
    if url.query().is_some()
        || url.fragment().is_some()
        || !url.username().is_empty()
        || url.password().is_some()
    {
        return Err(Error::invalid_msg(
            msg!("error-remote-url-extra", url = raw),
            msg!("error-remote-url-extra-suggestion"),
        ));
    }
    Ok(url)
}

/// The base URL as shown and saved: without its trailing slash.
fn base_text(base: &Url) -> String {
    base.as_str().trim_end_matches('/').to_string()
}

/// `path` (an API path, perhaps with a query) under the server's base.
fn endpoint(base: &Url, path: &str) -> Result<Url> {
    if !path.starts_with("/api/") || path.contains("..") || path.contains('#') {
        return Err(Error::invalid(
            format!("{path:?} is not a path of the API"),
            "Call a path that begins with /api/.",
        ));
    }
    Url::parse(&format!("{}{path}", base_text(base))).map_err(|e| {
        Error::invalid(
            format!("{path:?} is not a valid path: {e}"),
            "Call a path of the API.",
        )
    })
}

fn not_connected() -> Error {
    Error::msg(
        ErrorCode::Conflict,
        msg!("error-remote-not-connected"),
        msg!("error-remote-not-connected-suggestion"),
    )
}

fn unreachable_server(url: &str, e: &reqwest::Error) -> Error {
    Error::invalid_msg(
        msg!(
            "error-remote-unreachable",
            url = url.to_string(),
            detail = e.to_string()
        ),
        msg!("error-remote-unreachable-suggestion"),
    )
}

/// The server's own error body, or one that says what came back.
fn server_error(answer: &RemoteAnswer) -> Error {
    match serde_json::from_str::<ErrorBody>(&answer.body) {
        Ok(body) => Error { body, cause: None },
        Err(_) => Error::invalid_msg(
            msg!("error-remote-status", status = answer.status),
            msg!("error-remote-status-suggestion"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agenteval_engine::Platform;
    use agenteval_engine::keys::{ApiKeyRole, CreateApiKey};
    use agenteval_engine::role_models::RoleModels;
    use agenteval_engine::runtime::PatrolControl;
    use tokio::sync::mpsc;

    const SERVER_KEY: &str = "team-server-admin-key";

    /// A team server on 127.0.0.1 over its own SQLite: its platform and URL.
    async fn team_server(dir: &Path) -> (Arc<Platform>, String) {
        let platform = Platform::builder(dir)
            .role_models(RoleModels::default())
            .open()
            .await
            .expect("platform");
        let config = agenteval_server::ServeConfig {
            bind: "127.0.0.1:0".parse().expect("address"),
            api_key: SERVER_KEY.into(),
            ui_dir: None,
            patrol: PatrolControl::none(),
        };
        let (addr, _task) = agenteval_server::spawn(platform.clone(), config)
            .await
            .expect("server");
        (platform, format!("http://{addr}"))
    }

    async fn key(platform: &Platform, name: &str, role: &str) -> String {
        let req = CreateApiKey {
            name: name.into(),
            role: role.into(),
        };
        platform.create_api_key(req, "test").await.expect("key").key
    }

    /// A team server with a key `name` of `role`, and the app's own data
    /// folder and secrets.
    struct Setup {
        _server_dir: tempfile::TempDir,
        server: Arc<Platform>,
        url: String,
        key: String,
        app_dir: tempfile::TempDir,
        secrets: Secrets,
    }

    async fn setup(name: &str, role: &str) -> Setup {
        let server_dir = tempfile::tempdir().expect("temp dir");
        let (server, url) = team_server(server_dir.path()).await;
        let key = key(&server, name, role).await;
        let app_dir = tempfile::tempdir().expect("temp dir");
        let secrets = Secrets::open(app_dir.path()).expect("secrets");
        Setup {
            _server_dir: server_dir,
            server,
            url,
            key,
            app_dir,
            secrets,
        }
    }

    /// The app's side: a data folder without a keychain, events into a channel.
    fn client(
        dir: &Path,
        secrets: &Secrets,
    ) -> (TeamServer, mpsc::UnboundedReceiver<Option<Event>>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let emit: Emit = Arc::new(move |e| {
            let _ = tx.send(e);
        });
        let team = TeamServer::open(dir, secrets, KeyVault::encrypted_only(), emit).expect("open");
        (team, rx)
    }

    #[tokio::test]
    async fn connects_with_a_known_key_only_and_works_through_it() {
        let Setup {
            _server_dir,
            server,
            url,
            key: viewer,
            app_dir,
            secrets,
        } = setup("manager", "viewer").await;
        let (team, _events) = client(app_dir.path(), &secrets);
        assert_eq!(
            team.connection(),
            None,
            "a fresh app works on its own database"
        );

        // Refusals change nothing.
        let refusals = [
            (
                "ftp://example.com",
                viewer.as_str(),
                ErrorCode::InvalidInput,
            ),
            (
                &format!("{url}/?x=1"),
                viewer.as_str(),
                ErrorCode::InvalidInput,
            ),
            (&url, "  ", ErrorCode::InvalidInput),
            (&url, "not-a-key", ErrorCode::Unauthorized),
            (
                "http://127.0.0.1:9",
                viewer.as_str(),
                ErrorCode::InvalidInput,
            ),
        ];
        for (u, k, code) in refusals {
            let e = team.connect(&secrets, u, k).await.expect_err("refused");
            assert_eq!(e.body.code, code, "{u} {k:?}: {}", e.body.message);
            assert!(!e.body.suggestion.is_empty());
            assert!(
                !app_dir.path().join(FILE).exists(),
                "nothing saved after {u}"
            );
            assert_eq!(team.connection(), None);
        }
        let e = team
            .call("GET", "/api/campaigns", None)
            .await
            .expect_err("not connected");
        assert_eq!(e.body.code, ErrorCode::Conflict);

        let connection = team
            .connect(&secrets, &format!("{url}/"), &viewer)
            .await
            .expect("connected");
        assert_eq!(connection.url, url, "saved without its trailing slash");
        assert_eq!(connection.identity.name, "manager");
        assert_eq!(connection.identity.role, ApiKeyRole::Viewer);
        assert!(!connection.identity.may_change);
        let saved = std::fs::read_to_string(app_dir.path().join(FILE)).expect("saved");
        assert!(!saved.contains(&viewer), "the key is not in clear: {saved}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(app_dir.path().join(FILE))
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "owner-only");
        }

        // Calls carry the key; the server's answers come back as given.
        let answer = team
            .call("GET", "/api/campaigns", None)
            .await
            .expect("call");
        assert_eq!((answer.status, answer.body.as_str()), (200, "[]"));
        let answer = team
            .call("POST", "/api/targets", Some(serde_json::json!({"name": "x", "channel": {"kind": "builtin", "agent": "demo"}}).into()))
            .await
            .expect("call");
        assert_eq!(
            answer.status, 403,
            "a viewer is refused by the server: {}",
            answer.body
        );
        assert!(server.list_targets().await.expect("targets").is_empty());
        for bad in ["/health", "/api/../secret", "http://elsewhere/api/x"] {
            let e = team
                .call("GET", bad, None)
                .await
                .expect_err("not an API path");
            assert_eq!(e.body.code, ErrorCode::InvalidInput, "{bad}");
        }
        let e = team
            .call("PATCH", "/api/campaigns", None)
            .await
            .expect_err("method");
        assert_eq!(e.body.code, ErrorCode::InvalidInput);

        // The connection survives a restart of the app.
        drop(team);
        let (team, _events) = client(app_dir.path(), &secrets);
        assert_eq!(team.connection(), Some(connection));
        let answer = team.call("GET", "/api/whoami", None).await.expect("call");
        assert!(answer.body.contains("\"viewer\""), "{}", answer.body);

        // An export saved to a file; a refused one writes nothing.
        let out = app_dir.path().join("export.md");
        let e = team
            .save(
                &format!("/api/campaigns/{}/export?format=md", uuid::Uuid::nil()),
                &out,
            )
            .await
            .expect_err("no such campaign");
        assert_eq!(
            e.body.code,
            ErrorCode::NotFound,
            "the server's own error: {}",
            e.body.message
        );
        assert!(!out.exists());

        team.disconnect().expect("disconnect");
        assert_eq!(team.connection(), None);
        assert!(!app_dir.path().join(FILE).exists());
        let (team, _events) = client(app_dir.path(), &secrets);
        assert_eq!(
            team.connection(),
            None,
            "back on the app's own database after a restart"
        );
    }

    #[tokio::test]
    async fn the_servers_live_events_are_forwarded_until_disconnected() {
        let Setup {
            _server_dir,
            server,
            url,
            key: editor,
            app_dir,
            secrets,
        } = setup("ci", "editor").await;
        let (team, mut events) = client(app_dir.path(), &secrets);
        team.connect(&secrets, &url, &editor)
            .await
            .expect("connected");
        let target = team
            .call("POST", "/api/targets", Some(serde_json::json!({"name": "demo", "channel": {"kind": "builtin", "agent": "demo"}}).into()))
            .await
            .expect("target");
        assert_eq!(target.status, 200, "{}", target.body);
        let target: serde_json::Value = serde_json::from_str(&target.body).expect("json");
        let scenario = serde_json::from_value(serde_json::json!({
            "id": "test.hello", "title": "hello", "pack": "test", "turns": [{"user": "hello"}],
            "source_file": "(test)", "source_line": 1, "content_hash": "test",
        }))
        .expect("a scenario");
        server.scenarios.insert_all([scenario]);
        let campaign = |name: &str| {
            serde_json::json!({
                "name": name, "target_id": target["id"], "duration_hours": 1,
                "scenario_ids": ["test.hello"],
                "seed_set": {"personas": [{"id": "p1", "name": "Lin"}], "goals": [{"id": "g1", "title": "Ask"}]},
            })
        };
        // The stream is subscribed asynchronously: create campaigns until an
        // event arrives (each publishes one).
        let mut received = None;
        for _ in 0..50 {
            let created = team
                .call("POST", "/api/campaigns", Some(campaign("week").into()))
                .await
                .expect("campaign");
            assert_eq!(created.status, 200, "{}", created.body);
            if let Ok(Some(e)) =
                tokio::time::timeout(Duration::from_millis(200), events.recv()).await
            {
                received = Some(e);
                break;
            }
        }
        assert!(
            matches!(received, Some(Some(Event::CampaignChanged { .. }))),
            "the server's event reached the app: {received:?}"
        );
        // A text body goes as it is: an OTLP file imported through the app.
        let sample = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/otlp/sample.jsonl"),
        )
        .expect("the sample OTLP file");
        let path = format!(
            "/api/traces/import?target_id={}",
            target["id"].as_str().expect("id")
        );
        let imported = team
            .call("POST", &path, Some(RemoteBody::Text(sample)))
            .await
            .expect("import");
        assert_eq!(imported.status, 200, "{}", imported.body);
        let summary: serde_json::Value = serde_json::from_str(&imported.body).expect("json");
        assert_eq!(
            (
                summary["conversations"].as_u64(),
                summary["problems"][0]["line"].as_u64()
            ),
            (Some(4), Some(3)),
            "the file's four conversations kept and its broken line 3 named: {summary}"
        );
        team.disconnect().expect("disconnect");
        while events.try_recv().is_ok() {}
        let created = reqwest::Client::new()
            .post(format!("{url}/api/campaigns"))
            .header("X-API-Key", SERVER_KEY)
            .json(&campaign("another"))
            .send()
            .await
            .expect("campaign");
        assert!(created.status().is_success());
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            events.try_recv().is_err(),
            "nothing is forwarded after disconnecting"
        );
    }

    /// A stream that drops and comes back, or that says events were
    /// dropped for this reader, makes the UI refresh everything (`None`).
    #[tokio::test]
    async fn a_reconnection_or_a_lagging_stream_asks_for_a_full_refresh() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = Url::parse(&format!(
            "http://{}/api/events",
            listener.local_addr().expect("addr")
        ))
        .expect("url");
        let event = Event::CampaignChanged {
            campaign_id: agenteval_engine::CampaignId(uuid::Uuid::nil()),
        };
        let first = format!("data: {}\n\n", serde_json::to_string(&event).expect("json"));
        // Each connection gets its messages; the first is then closed, the
        // second stays open.
        let server = tokio::spawn(async move {
            let mut open = Vec::new();
            for body in [
                first.as_str(),
                "event: lagged\ndata: {\"kind\":\"lagged\",\"missed\":3}\n\n",
            ] {
                let (mut socket, _) = listener.accept().await.expect("accept");
                let mut request = [0u8; 4096];
                let n = socket.read(&mut request).await.expect("request");
                assert!(
                    String::from_utf8_lossy(&request[..n]).contains("x-api-key: k"),
                    "the key is sent"
                );
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n";
                socket.write_all(head.as_bytes()).await.expect("head");
                socket.write_all(body.as_bytes()).await.expect("body");
                open.push(socket);
                if open.len() == 1 {
                    open.clear();
                }
            }
            open
        });
        let (tx, mut rx) = mpsc::unbounded_channel();
        let emit: Emit = Arc::new(move |e| {
            let _ = tx.send(e);
        });
        let follower = tokio::spawn(follow(reqwest::Client::new(), url, "k".into(), emit));
        let mut next = async || {
            tokio::time::timeout(Duration::from_secs(10), rx.recv())
                .await
                .expect("in time")
                .expect("an event")
        };
        assert_eq!(next().await, Some(event), "the event itself");
        assert_eq!(next().await, None, "reconnected: refresh everything");
        assert_eq!(
            next().await,
            None,
            "the server dropped events: refresh everything"
        );
        follower.abort();
        let _still_open = server.await.expect("server");
    }
}
