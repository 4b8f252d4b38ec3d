//! Connection test of targets.

use crate::support;
use agenteval_engine::target::{ChannelConfig, TargetSettings};

#[tokio::test]
async fn builtin_demo_target_answers_the_connection_test() {
    let t = support::platform().await;
    let target = t
        .platform
        .create_target(TargetSettings::builtin_demo("Demo"))
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
    let mut req = TargetSettings::builtin_demo("Nowhere");
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

#[tokio::test]
async fn the_connection_test_is_not_paced_by_the_targets_rate_limit() {
    let t = support::platform().await;
    let target = t
        .platform
        .create_target(TargetSettings {
            // One request per 1,000 s: the second test would wait that long.
            rate_per_second: Some(0.001),
            ..TargetSettings::builtin_demo("Slow to allow")
        })
        .await
        .expect("create target");
    for n in 1..=3 {
        let probe = tokio::time::timeout(
            std::time::Duration::from_secs(60),
            t.platform.test_target(target.id),
        )
        .await
        .unwrap_or_else(|_| panic!("test {n} waited for the rate limit"))
        .expect("probe runs");
        assert!(probe.ok, "test {n} answered: {probe:?}");
    }
}

#[tokio::test]
async fn a_rate_limit_out_of_range_is_refused_with_its_bounds() {
    let t = support::platform().await;
    for rate in [0.0, 1e-9, 1e9, f64::NAN] {
        let e = t
            .platform
            .create_target(TargetSettings {
                rate_per_second: Some(rate),
                ..TargetSettings::builtin_demo("Rated")
            })
            .await
            .expect_err("out of range");
        assert_eq!(e.code(), agenteval_engine::ErrorCode::InvalidInput);
        assert!(
            e.body.message.contains("0.001") && e.body.message.contains("100000"),
            "the refusal names the bounds: {}",
            e.body.message
        );
    }
}
