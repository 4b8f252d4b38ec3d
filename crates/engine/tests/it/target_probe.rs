//! Connection test of targets.

use crate::support;
use agenteval_engine::target::{ChannelConfig, CreateTarget};

#[tokio::test]
async fn builtin_demo_target_answers_the_connection_test() {
    let t = support::platform().await;
    let target = t
        .platform
        .create_target(CreateTarget::builtin_demo("Demo"))
        .await
        .expect("create demo target");
    let probe = t.platform.test_target(target.id).await.expect("probe runs");
    assert!(probe.ok, "the built-in agent always answers: {probe:?}");
    assert!(
        probe.reply_excerpt.is_some_and(|r| !r.is_empty()),
        "an answering target yields the start of its reply"
    );
    assert!(probe.error.is_none(), "no error when the target answered");
}

#[tokio::test]
async fn unreachable_target_is_reported_not_raised() {
    let t = support::platform().await;
    // Bind then drop a listener so that the port is closed.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let mut req = CreateTarget::builtin_demo("Nowhere");
    req.channel = ChannelConfig::Http {
        url: format!("http://127.0.0.1:{port}/chat"),
        request_template: None,
        response_path: None,
        headers: Vec::new(),
    };
    req.max_retries = Some(0);
    req.timeout_ms = Some(2_000);
    let target = t.platform.create_target(req).await.expect("create target");
    let probe = t
        .platform
        .test_target(target.id)
        .await
        .expect("an unreachable target is a probe result, not an error");
    assert!(!probe.ok, "nothing listens on the port: {probe:?}");
    assert!(probe.error.is_some(), "the probe says why it failed");
}

#[tokio::test]
async fn probing_an_unknown_target_is_not_found() {
    let t = support::platform().await;
    let err = t
        .platform
        .test_target(agenteval_engine::TargetId(uuid::Uuid::now_v7()))
        .await
        .expect_err("unknown id");
    assert_eq!(
        err.code(),
        agenteval_engine::ErrorCode::NotFound,
        "an id that names no target is a 404-class error"
    );
}
