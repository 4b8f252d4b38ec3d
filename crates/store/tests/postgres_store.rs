//! Opening the store on PostgreSQL: the migrations, a database a newer
//! version wrote, URLs that are not PostgreSQL's, a server that is not
//! there.

mod support;

use agenteval_store::Store;
use sqlx::Executor;

#[tokio::test]
async fn a_database_is_migrated_once_and_opened_again_as_it_is() {
    let db = support::postgres::fresh_database().await;
    let store = Store::open_database(&db.url, Default::default())
        .await
        .expect("first open");
    assert_eq!(store.backend_name(), "postgres");
    store.close().await;
    let again = Store::open_database(&db.url, Default::default())
        .await
        .expect("second open");
    again.close().await;

    let pool = db.pool().await;
    let migrations: i64 = sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations")
        .fetch_one(&pool)
        .await
        .unwrap();
    let on_disk = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations/postgres"))
        .unwrap()
        .count() as i64;
    assert_eq!(migrations, on_disk, "each migration ran once");
    let written_by: String =
        sqlx::query_scalar("SELECT value FROM app_meta WHERE key = 'written_by'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(written_by, env!("CARGO_PKG_VERSION"));
}

#[tokio::test]
async fn a_database_a_newer_version_migrated_is_refused() {
    let db = support::postgres::fresh_database().await;
    Store::open_database(&db.url, Default::default())
        .await
        .unwrap()
        .close()
        .await;
    let pool = db.pool().await;
    pool.execute(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
         VALUES (9999, 'from the future', TRUE, '\\x00', 0);
         UPDATE app_meta SET value = '99.0.0' WHERE key = 'written_by'",
    )
    .await
    .unwrap();
    let err = Store::open_database(&db.url, Default::default())
        .await
        .unwrap_err();
    assert_eq!(err.code(), agenteval_domain::error::ErrorCode::Conflict);
    assert!(
        err.body.message.contains("99.0.0") && err.body.message.contains("9999"),
        "{}",
        err.body.message
    );
}

#[tokio::test]
async fn a_url_that_is_not_postgres_is_refused_with_what_to_use() {
    let err = Store::open_database("mysql://root:hunter2@localhost/db", Default::default())
        .await
        .unwrap_err();
    assert_eq!(err.code(), agenteval_domain::error::ErrorCode::InvalidInput);
    assert!(
        !err.body.message.contains("hunter2"),
        "{}",
        err.body.message
    );
    assert!(err.body.suggestion.contains("postgres://"));
}

#[tokio::test]
async fn a_server_that_does_not_answer_is_named_without_its_password() {
    // A port nothing listens on: the connection is refused at once.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let url = format!("postgres://agenteval:s3cret@127.0.0.1:{port}/agenteval");
    let err = Store::open_database(&url, Default::default())
        .await
        .unwrap_err();
    assert_eq!(err.code(), agenteval_domain::error::ErrorCode::InvalidInput);
    assert!(
        err.body.message.contains(&format!(
            "postgres://agenteval:***@127.0.0.1:{port}/agenteval"
        )),
        "{}",
        err.body.message
    );
    assert!(!err.body.message.contains("s3cret"));
}

#[tokio::test]
async fn a_database_that_restarts_is_unavailable_meanwhile_and_used_again_after() {
    let dir = support::postgres::server_dir("restart");
    let url = support::postgres::start_server(&dir, std::process::id()).expect("a server");
    support::postgres::durable_commits(&dir);
    let port = url
        .rsplit_once(':')
        .and_then(|(_, rest)| rest.split('/').next())
        .expect("a port")
        .to_string();
    let store = Store::open_database(&url, Default::default())
        .await
        .expect("open");
    store.ping().await.expect("the database answers");

    // A crash: the server stops at once, without a checkpoint.
    support::postgres::pg_ctl(&dir, &["stop", "-m", "immediate", "-w"]);
    let asked = std::time::Instant::now();
    let err = store.ping().await.unwrap_err();
    let waited = asked.elapsed();
    assert_eq!(
        err.code(),
        agenteval_domain::error::ErrorCode::DatabaseUnavailable,
        "{err}"
    );
    // Meanwhile the next one is refused at once, without waiting for the
    // server again.
    let asked = std::time::Instant::now();
    let again = store.ping().await.unwrap_err();
    assert_eq!(
        again.code(),
        agenteval_domain::error::ErrorCode::DatabaseUnavailable
    );
    eprintln!(
        "a query while the database is down answered in {waited:?}, the next in {:?}",
        asked.elapsed()
    );

    // Back on the same port: the pool's broken connections are replaced.
    support::postgres::pg_ctl(
        &dir,
        &[
            "start",
            "-w",
            "-l",
            &dir.join("server.log").to_string_lossy(),
            "-o",
            &format!("-p {port}"),
        ],
    );
    // As a client told `Retry-After` does: the store reconnects by itself.
    let mut tries = 0;
    while let Err(e) = store.ping().await {
        tries += 1;
        assert!(
            tries < 20,
            "the database answers again after its restart: {e}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    }
    store.close().await;
}
