//! The test server itself (`scripts/postgres.sh` through
//! `tests/support/postgres.rs`): loopback only, a test server's settings,
//! a fresh database per test, started again without harm, and gone once
//! the process that owns it has exited.

use crate::support::postgres::{fresh_database, server_dir, start_server};
use sqlx::{Connection, PgConnection, Row};
use std::process::Command;
use std::time::{Duration, Instant};

#[tokio::test]
async fn each_test_gets_a_fresh_database_on_a_loopback_only_server() {
    let first = fresh_database().await;
    let second = fresh_database().await;
    assert_ne!(first.name, second.name, "a database of its own per test");
    let pool = first.pool().await;
    sqlx::query("CREATE TABLE mine (x bigint)")
        .execute(&pool)
        .await
        .unwrap();
    let other = second.pool().await;
    let tables: i64 =
        sqlx::query_scalar("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()")
            .fetch_one(&other)
            .await
            .unwrap();
    assert_eq!(tables, 0, "another test's table is not in a fresh database");

    let row = sqlx::query(
        "SELECT inet_server_addr()::text AS addr, current_setting('listen_addresses') AS listen,
                current_setting('unix_socket_directories') AS sockets,
                current_setting('fsync') AS fsync, current_setting('server_encoding') AS encoding",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let setting = |name: &str| row.get::<String, _>(name);
    assert_eq!(setting("addr"), "127.0.0.1/32");
    assert_eq!(setting("listen"), "127.0.0.1", "no address but loopback");
    assert_eq!(setting("sockets"), "", "no Unix socket either");
    assert_eq!(
        setting("fsync"),
        "off",
        "a test server trades durability for speed"
    );
    assert_eq!(setting("encoding"), "UTF8");
}

#[tokio::test]
async fn a_server_is_stopped_and_removed_once_its_owner_exits() {
    let mut owner = Command::new("sleep")
        .arg("3")
        .spawn()
        .expect("a short-lived owner");
    let dir = server_dir("owned");
    let url = start_server(&dir, owner.id()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        start_server(&dir, owner.id()).unwrap_or_else(|e| panic!("{e}")),
        url,
        "starting a running server again gives the same server"
    );
    let conn = PgConnection::connect(&url).await.expect("the server is up");
    conn.close().await.ok();

    owner.wait().expect("the owner exits");
    let deadline = Instant::now() + Duration::from_secs(60);
    while dir.exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        !dir.exists(),
        "the server's folder is removed once its owner exits"
    );
    assert!(
        PgConnection::connect(&url).await.is_err(),
        "the server is stopped once its owner exits"
    );
}
