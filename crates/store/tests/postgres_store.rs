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
