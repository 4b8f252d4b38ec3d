//! Tests: targets edited, deleted or archived, and connection failures
//! told in plain words.

use crate::support::{TestPlatform, platform};
use agenteval_engine::ErrorCode;
use agenteval_engine::campaign::{CreateCampaign, SeedSet};
use agenteval_engine::target::{ChannelConfig, RemovalOutcome, TargetSettings};
use serde_json::json;

/// A port with nothing listening on it.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

fn http_target(name: &str, port: u16) -> TargetSettings {
    TargetSettings {
        channel: ChannelConfig::Http {
            url: format!("http://127.0.0.1:{port}/chat"),
            request_template: None,
            response_path: None,
            headers: Vec::new(),
        },
        max_retries: Some(0),
        timeout_ms: Some(2_000),
        ..TargetSettings::builtin_demo(name)
    }
}

async fn use_in_campaign(tp: &TestPlatform, target_id: uuid::Uuid) {
    let seeds: SeedSet = serde_json::from_value(json!({
        "personas": [{"id": "p", "name": "P"}], "goals": [{"id": "g", "title": "G"}]
    }))
    .expect("seeds");
    tp.platform
        .create_campaign(CreateCampaign {
            name: "uses it".into(),
            target_id: agenteval_engine::TargetId(target_id),
            duration_hours: Some(1.0),
            seed_set: Some(seeds),
            ..Default::default()
        })
        .await
        .expect("campaign");
}

#[tokio::test]
async fn a_failed_connection_is_told_in_plain_words() {
    let tp = platform().await;
    let port = closed_port();
    let target = tp
        .platform
        .create_target(http_target("nowhere", port))
        .await
        .expect("target");
    let probe = tp.platform.test_target(target.id).await.expect("probe");
    assert!(!probe.ok);
    assert_eq!(
        probe.message.as_deref(),
        Some(format!("nothing is listening at 127.0.0.1:{port}").as_str()),
        "{probe:?}"
    );
    assert_eq!(probe.error, probe.message, "error says the same, in words");
    assert_eq!(
        probe.suggestion.as_deref(),
        Some("Start the agent, or fix the URL's host and port.")
    );
    for text in [&probe.message, &probe.error, &probe.suggestion] {
        let text = text.as_deref().unwrap_or_default();
        assert!(
            !text.contains("os error") && !text.contains("tcp connect"),
            "no raw socket error in what the user reads: {text}"
        );
    }
    assert!(
        probe.detail.as_deref().is_some_and(|d| !d.is_empty()),
        "the technical cause is kept apart"
    );
}

#[tokio::test]
async fn a_target_is_edited_and_the_next_request_uses_the_new_settings() {
    let tp = platform().await;
    let target = tp
        .platform
        .create_target(http_target("flaky", closed_port()))
        .await
        .expect("target");
    assert!(!tp.platform.test_target(target.id).await.expect("probe").ok);

    let mut edit = TargetSettings::builtin_demo("  Demo after all ");
    edit.concurrency = Some(2);
    edit.timeout_ms = Some(5_000);
    let updated = tp
        .platform
        .update_target(target.id, edit.clone())
        .await
        .expect("update");
    assert_eq!(updated.name, "Demo after all");
    assert_eq!((updated.concurrency, updated.timeout_ms), (2, 5_000));
    assert_eq!(updated.created_at, target.created_at);
    assert_eq!(
        tp.platform.get_target(target.id).await.expect("get").name,
        "Demo after all",
        "stored"
    );
    assert!(
        tp.platform.test_target(target.id).await.expect("probe").ok,
        "the channel built for the old URL is not reused"
    );

    for (spoil, expected) in [
        (
            TargetSettings {
                timeout_ms: Some(50),
                ..edit.clone()
            },
            "timeout_ms must be from 100 to 600000, got 50",
        ),
        (
            TargetSettings {
                max_retries: Some(11),
                ..edit.clone()
            },
            "max_retries must be from 0 to 10, got 11",
        ),
        (
            TargetSettings {
                price_in_per_mtok: Some(-1.0),
                ..edit.clone()
            },
            "price_in_per_mtok must be a number of 0 or more",
        ),
        (
            TargetSettings {
                concurrency: Some(0),
                ..edit.clone()
            },
            "concurrency must be from 1 to 1024, got 0",
        ),
    ] {
        let err = tp
            .platform
            .update_target(target.id, spoil)
            .await
            .expect_err("out of range is refused, not corrected");
        assert_eq!(err.code(), ErrorCode::InvalidInput);
        assert!(err.body.message.contains(expected), "{}", err.body.message);
    }
    let err = tp
        .platform
        .update_target(agenteval_engine::TargetId(uuid::Uuid::now_v7()), edit)
        .await
        .expect_err("unknown");
    assert_eq!(err.code(), ErrorCode::NotFound);
}

#[tokio::test]
async fn an_api_key_stays_on_edit_and_cannot_point_at_another_targets_key() {
    let tp = platform().await;
    let with_key = |name: &str, key: Option<&str>| TargetSettings {
        channel: ChannelConfig::Openai {
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
            api_key: key.map(str::to_string),
            api_key_env: None,
            api_key_ref: None,
            headers: Vec::new(),
        },
        ..TargetSettings::builtin_demo(name)
    };
    let a = tp
        .platform
        .create_target(with_key("a", Some("secret-a")))
        .await
        .expect("a");
    let b = tp
        .platform
        .create_target(with_key("b", Some("secret-b")))
        .await
        .expect("b");
    let key_ref = |t: &agenteval_engine::target::Target| match &t.channel {
        ChannelConfig::Openai { api_key_ref, .. } => api_key_ref.clone(),
        _ => None,
    };
    // Left out: the key stays.
    let renamed = tp
        .platform
        .update_target(a.id, with_key("a2", None))
        .await
        .expect("rename");
    assert_eq!(key_ref(&renamed), key_ref(&a), "the key stays");
    // Sent back as received: the same.
    let mut same = with_key("a3", None);
    if let ChannelConfig::Openai { api_key_ref, .. } = &mut same.channel {
        *api_key_ref = key_ref(&a);
    }
    tp.platform
        .update_target(a.id, same)
        .await
        .expect("its own key reference is accepted");
    // Another target's reference: refused.
    let mut steal = with_key("a4", None);
    if let ChannelConfig::Openai { api_key_ref, .. } = &mut steal.channel {
        *api_key_ref = key_ref(&b);
    }
    let err = tp
        .platform
        .update_target(a.id, steal)
        .await
        .expect_err("another target's key is not reachable by reference");
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    // A new key replaces it.
    let rekeyed = tp
        .platform
        .update_target(a.id, with_key("a5", Some("secret-new")))
        .await
        .expect("new key");
    assert_ne!(key_ref(&rekeyed), key_ref(&a));
    assert_eq!(
        tp.platform
            .secrets
            .get(&key_ref(&rekeyed).expect("ref"))
            .expect("secret"),
        "secret-new"
    );
}

#[tokio::test]
async fn a_target_in_use_is_archived_and_an_unused_one_deleted() {
    let tp = platform().await;
    let unused = tp
        .platform
        .create_target(TargetSettings::builtin_demo("unused"))
        .await
        .expect("target");
    let used = tp
        .platform
        .create_target(TargetSettings::builtin_demo("used"))
        .await
        .expect("target");
    use_in_campaign(&tp, used.id.into()).await;

    let removed = tp.platform.delete_target(unused.id).await.expect("delete");
    assert_eq!(removed.outcome, RemovalOutcome::Deleted);
    assert_eq!(
        tp.platform
            .get_target(unused.id)
            .await
            .expect_err("gone")
            .code(),
        ErrorCode::NotFound
    );

    let removed = tp.platform.delete_target(used.id).await.expect("archive");
    assert_eq!(removed.outcome, RemovalOutcome::Archived);
    let archived = tp.platform.get_target(used.id).await.expect("kept");
    assert!(archived.archived_at.is_some());
    assert!(
        tp.platform.list_targets().await.expect("list").is_empty(),
        "archived targets are left out of the list"
    );
    let all = tp.platform.list_targets_with(true).await.expect("all");
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].id, used.id);
    let again = tp.platform.delete_target(used.id).await.expect("again");
    assert_eq!(
        again.outcome,
        RemovalOutcome::Archived,
        "removing an archived target is idempotent"
    );
    assert_eq!(
        tp.platform
            .get_target(used.id)
            .await
            .expect("kept")
            .archived_at,
        archived.archived_at
    );

    let seeds: SeedSet = serde_json::from_value(json!({
        "personas": [{"id": "p", "name": "P"}], "goals": [{"id": "g", "title": "G"}]
    }))
    .expect("seeds");
    let err = tp
        .platform
        .create_campaign(CreateCampaign {
            name: "on an archived target".into(),
            target_id: used.id,
            duration_hours: Some(1.0),
            seed_set: Some(seeds),
            ..Default::default()
        })
        .await
        .expect_err("an archived target takes no new campaign");
    assert_eq!(
        err.code(),
        ErrorCode::Conflict,
        "a state refusal, not a bad field"
    );
    assert!(err.body.message.contains("is archived"));
    assert_eq!(
        tp.platform.list_campaigns().await.expect("campaigns").len(),
        1,
        "the campaign that used it is still there"
    );
}
