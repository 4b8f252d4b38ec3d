//! The data folder: what opening it says when it cannot be used.

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
    let err = Platform::builder(tp.dir.path()).open().await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::Conflict);
    assert!(
        err.body.message.contains("newer AgentEval") && err.body.message.contains("9999"),
        "{}",
        err.body.message
    );
    assert!(err.body.suggestion.contains("AGENTEVAL_DATA_DIR"));
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
    let err = Platform::builder(tp.dir.path()).open().await.unwrap_err();
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
