//! A real PostgreSQL server for a test binary, from `scripts/postgres.sh`:
//! the first test that asks for a database starts it (installing Debian's
//! `postgresql` package if initdb and pg_ctl are missing), every test gets
//! a fresh database of its own, and the script's watcher stops the server
//! and removes its folder once the test binary has exited, however it ends.
//!
//! A test that needs PostgreSQL fails when the server cannot be started:
//! it never skips.

use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::{Connection, Executor, PgConnection};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::FromStr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The script that installs, starts and stops test servers.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/postgres.sh")
}

/// A folder for a server of this test binary, unique to this run.
pub fn server_dir(label: &str) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::env::temp_dir().join(format!(
        "agenteval-postgres-{label}-{}-{nanos}",
        std::process::id()
    ))
}

/// Runs `postgres.sh start DIR --stop-after OWNER` and returns the URL it
/// prints, or why it failed.
pub fn start_server(dir: &Path, owner: u32) -> Result<String, String> {
    let script = script();
    let shown = format!(
        "bash {} start {} --stop-after {owner}",
        script.display(),
        dir.display()
    );
    let out = Command::new("bash")
        .arg(&script)
        .arg("start")
        .arg(dir)
        .arg("--stop-after")
        .arg(owner.to_string())
        .output()
        .map_err(|e| format!("`{shown}` could not be run: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let url = stdout.lines().last().unwrap_or_default().trim();
    if !out.status.success() || !url.starts_with("postgres://") {
        return Err(format!(
            "`{shown}` failed ({}):\n{stderr}{stdout}",
            out.status
        ));
    }
    Ok(url.to_string())
}

/// The server of this test binary: the URL of its `postgres` database, or
/// why it could not be started.
fn server() -> &'static str {
    static SERVER: OnceLock<Result<String, String>> = OnceLock::new();
    let started = SERVER.get_or_init(|| start_server(&server_dir("tests"), std::process::id()));
    match started {
        Ok(url) => url,
        Err(why) => panic!(
            "PostgreSQL could not be started, and this test needs a real server \
             (it fails rather than skips): {why}"
        ),
    }
}

/// A fresh, empty database on the test binary's server.
pub struct Database {
    pub name: String,
    pub options: PgConnectOptions,
    /// `postgres://user:password@127.0.0.1:port/name`.
    pub url: String,
}

impl Database {
    /// A pool over this database.
    pub async fn pool(&self) -> PgPool {
        PgPoolOptions::new()
            .max_connections(4)
            .connect_with(self.options.clone())
            .await
            .unwrap_or_else(|e| panic!("connecting to the test database {}: {e}", self.name))
    }
}

/// Creates a database no other test uses, on the server of this test
/// binary (started on first use).
pub async fn fresh_database() -> Database {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let url = server();
    let name = format!("test_{}", NEXT.fetch_add(1, Ordering::Relaxed));
    let mut admin = PgConnection::connect(url)
        .await
        .unwrap_or_else(|e| panic!("connecting to the test server: {e}"));
    admin
        .execute(format!("CREATE DATABASE {name}").as_str())
        .await
        .unwrap_or_else(|e| panic!("creating the test database {name}: {e}"));
    admin.close().await.ok();
    let options = PgConnectOptions::from_str(url)
        .unwrap_or_else(|e| panic!("the server's URL: {e}"))
        .database(&name);
    let url = database_url(url, &name);
    Database { name, options, url }
}

/// The URL of database `name` on the server at `server_url`.
fn database_url(server_url: &str, name: &str) -> String {
    match server_url.rfind('/') {
        Some(slash) => format!("{}/{name}", &server_url[..slash]),
        None => panic!("the server's URL has no database: {server_url}"),
    }
}

/// The database the suite runs on: with `AGENTEVAL_TEST_BACKEND=postgres`,
/// a fresh database of its own on a PostgreSQL server that the test binary
/// starts (`scripts/postgres.sh`); otherwise (`sqlite`, the default) none,
/// and the platform keeps SQLite in its data folder.
pub async fn test_database_url() -> Option<String> {
    match std::env::var("AGENTEVAL_TEST_BACKEND").as_deref() {
        Ok("postgres") => Some(fresh_database().await.url),
        Ok("sqlite") | Err(_) => None,
        Ok(other) => panic!("AGENTEVAL_TEST_BACKEND={other}: use sqlite or postgres"),
    }
}

/// `pg_ctl` run as the cluster's owner (`postgres` when root), on the
/// cluster of `dir` (made by `scripts/postgres.sh`).
pub fn pg_ctl(dir: &std::path::Path, args: &[&str]) {
    let bin = std::fs::read_dir("/usr/lib/postgresql")
        .ok()
        .and_then(|versions| {
            versions
                .flatten()
                .map(|v| v.path().join("bin/pg_ctl"))
                .filter(|p| p.exists())
                .max()
        })
        .unwrap_or_else(|| "pg_ctl".into());
    let data = dir.join("data");
    let mut command = std::process::Command::new("runuser");
    command
        .args(["-u", "postgres", "--"])
        .arg(bin)
        .arg("-D")
        .arg(&data);
    let status = command.args(args).status().expect("run pg_ctl");
    assert!(status.success(), "pg_ctl {args:?} failed");
}

/// Makes the server of `dir` wait for each commit's WAL to be written
/// before acknowledging it, as PostgreSQL does by default. The test
/// servers of `scripts/postgres.sh` do not (`synchronous_commit = off`):
/// there a crash loses the commits of its last moments, acknowledged or
/// not, which a test that crashes the server must not meet.
pub fn durable_commits(dir: &std::path::Path) {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("data/postgresql.conf"))
        .and_then(|mut conf| conf.write_all(b"\nsynchronous_commit = on\n"))
        .expect("edit postgresql.conf");
    pg_ctl(dir, &["reload"]);
}
