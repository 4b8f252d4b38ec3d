//! The data folder, or the database: what opening it says when it cannot
//! be used.

use crate::support::platform;
use agenteval_engine::{ErrorCode, Platform};

#[tokio::test]
async fn a_data_folder_from_a_newer_version_is_refused_with_a_clear_error() {
    let tp = platform().await;
    // A migration this build does not know, as a newer build leaves it.
    tp.platform
        .fixtures()
        .insert_future_migration(9999, "from the future")
        .await
        .unwrap();
    tp.platform.fixtures().close().await;
    let err = Platform::builder(tp.dir.path())
        .database_url(tp.database_url.clone())
        .open()
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert!(
        err.body.message.contains("newer AgentEval") && err.body.message.contains("9999"),
        "{}",
        err.body.message
    );
    let what = if tp.database_url.is_some() {
        "other workers"
    } else {
        "AGENTEVAL_DATA_DIR"
    };
    assert!(
        err.body.suggestion.contains(what),
        "{}",
        err.body.suggestion
    );
}

#[tokio::test]
async fn a_refused_data_folder_names_the_version_that_wrote_it() {
    let tp = platform().await;
    let this = env!("CARGO_PKG_VERSION");
    let written: String = tp
        .platform
        .inspect()
        .written_by()
        .await
        .unwrap()
        .expect("a version is recorded");
    assert_eq!(
        written, this,
        "opening a folder records the version that opened it"
    );
    // What a newer build leaves: its version and a migration unknown here.
    tp.platform
        .fixtures()
        .set_written_by("9.4.0")
        .await
        .unwrap();
    tp.platform
        .fixtures()
        .insert_future_migration(9999, "from the future")
        .await
        .unwrap();
    tp.platform.fixtures().close().await;
    let err = Platform::builder(tp.dir.path())
        .database_url(tp.database_url.clone())
        .open()
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert!(
        err.body.message.contains(&format!(
            "written by AgentEval 9.4.0, newer than this one ({this})"
        )),
        "{}",
        err.body.message
    );
    assert!(
        err.body.suggestion.contains("AgentEval 9.4.0 or later"),
        "{}",
        err.body.suggestion
    );
}

#[tokio::test]
async fn a_failed_database_call_names_what_the_store_was_doing_in_the_log_only() {
    let tp = platform().await;
    // A pool that serves nothing any more: every store call after it fails
    // inside the database layer.
    tp.platform.fixtures().close().await;
    let run_id = uuid::Uuid::from_u128(0x0190_0000_0000_7000_8000_0000_0000_0042);

    let err = tp
        .platform
        .run_turns(agenteval_engine::RunId(run_id))
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Internal, "{err}");
    assert_eq!(
        err.body.message, "an internal error occurred",
        "the user sees a generic message, never the database's"
    );
    let chain = format!(
        "{:#}",
        err.cause.expect("an internal error keeps its cause")
    );
    assert!(
        chain.starts_with(&format!("store: looking up run {run_id}: ")),
        "the log names what the store was doing, with the id: {chain}"
    );
    assert!(
        chain.contains("closed pool"),
        "and the database's own error below it: {chain}"
    );

    // On the hot path the context is static, without the id.
    let campaign_id = uuid::Uuid::from_u128(0x0190_0000_0000_7000_8000_0000_0000_0043);
    let err = tp
        .platform
        .get_campaign(agenteval_engine::CampaignId(campaign_id))
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Internal, "{err}");
    assert!(!err.body.message.contains("store"), "{}", err.body.message);
    let chain = format!(
        "{:#}",
        err.cause.expect("an internal error keeps its cause")
    );
    assert!(
        chain.starts_with("store: reading a campaign: "),
        "the log names what the store was doing: {chain}"
    );
}

#[tokio::test]
async fn a_failed_session_read_names_the_session_the_store_was_reading() {
    let tp = platform().await;
    tp.platform.fixtures().close().await;
    let session_id = uuid::Uuid::from_u128(0x0190_0000_0000_7000_8000_0000_0000_0044);

    let err = tp
        .platform
        .get_session(agenteval_engine::SessionId(session_id))
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::Internal, "{err}");
    assert_eq!(
        err.body.message, "an internal error occurred",
        "the user sees a generic message, never the database's"
    );
    let chain = format!(
        "{:#}",
        err.cause.expect("an internal error keeps its cause")
    );
    assert!(
        chain.starts_with(&format!("store: reading session {session_id}: ")),
        "the log names what the store was doing, with the id: {chain}"
    );
    assert!(
        chain.contains("closed pool"),
        "and the database's own error below it: {chain}"
    );
}
