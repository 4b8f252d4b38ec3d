//! Tests: what left this machine (hosts contacted per role, counted and
//! stored with the campaign) and offline mode, which refuses endpoints
//! that are not on this machine.

use crate::fault_server::{Fault, FaultServer};
use crate::support::{platform, t0};
use agenteval_engine::ErrorCode;
use agenteval_engine::Platform;
use agenteval_engine::campaign::{CreateCampaign, SeedSet};
use agenteval_engine::clock::ManualClock;
use agenteval_engine::exploration::{CloseSession, CreateSession, SendMessage, Trigger};
use agenteval_engine::provenance::HostRole;
use agenteval_engine::role_models::{ModelConfig, RoleModels};
use agenteval_engine::target::{ChannelConfig, TargetSettings};
use serde_json::json;
use std::sync::Arc;

fn seeds() -> SeedSet {
    serde_json::from_value(json!({
        "personas": [{"id": "p", "name": "P", "language": "en"}],
        "goals": [{"id": "g", "title": "Track my order"}]
    }))
    .expect("seeds")
}

/// A manual session of `messages` user turns, closed.
async fn talk(p: &Platform, campaign_id: uuid::Uuid, messages: usize) {
    let s = p
        .create_session(CreateSession {
            campaign_id: agenteval_engine::CampaignId(campaign_id),
            persona: json!({"name": "P", "language": "en"}),
            goal: json!({"title": "Track my order"}),
            seed_ref: None,
            trigger: Some(Trigger::Manual),
            played_by: None,
            user_model: None,
        })
        .await
        .expect("session");
    for i in 0..messages {
        p.send_message(
            s.id,
            SendMessage {
                content: format!("Where is my order, please? ({i})"),
            },
        )
        .await
        .expect("reply");
    }
    p.close_session(
        s.id,
        CloseSession {
            goal_achieved: true,
            ..Default::default()
        },
    )
    .await
    .expect("close");
}

#[tokio::test]
async fn a_campaign_against_the_demo_target_sends_nothing_off_this_machine() {
    let tp = platform().await;
    let p = &tp.platform;
    let target = p
        .create_target(TargetSettings::builtin_demo("demo"))
        .await
        .unwrap();
    let c = p
        .create_campaign(CreateCampaign {
            name: "demo".into(),
            target_id: target.id,
            duration_hours: Some(24.0),
            seed_set: Some(seeds()),
            ..Default::default()
        })
        .await
        .unwrap();
    talk(p, c.id.into(), 3).await;
    let report = p.campaign_report(c.id).await.unwrap();
    assert!(
        report.provenance.hosts.is_empty(),
        "the built-in demo target runs in-process: {:?}",
        report.provenance.hosts
    );
    assert!(report.provenance.nothing_left_machine);
    let md = agenteval_engine::export::markdown(&report, agenteval_engine::Lang::En);
    assert!(
        md.contains("## What left this machine")
            && md.contains("Nothing left this machine: no host was contacted"),
        "the export says so:\n{md}"
    );
}

#[tokio::test]
async fn a_local_http_target_is_recorded_with_its_request_count() {
    let server =
        FaultServer::start(vec![Fault::Ok(json!({"reply": "Your order has shipped."}))]).await;
    let tp = platform().await;
    let p = &tp.platform;
    let target = p
        .create_target(TargetSettings {
            channel: ChannelConfig::Http {
                url: server.url("/chat"),
                request_template: None,
                response_path: None,
                headers: Vec::new(),
            },
            max_retries: Some(0),
            ..TargetSettings::builtin_demo("local")
        })
        .await
        .unwrap();
    let c = p
        .create_campaign(CreateCampaign {
            name: "local".into(),
            target_id: target.id,
            duration_hours: Some(24.0),
            seed_set: Some(seeds()),
            ..Default::default()
        })
        .await
        .unwrap();
    talk(p, c.id.into(), 2).await;
    tp.clock.advance(chrono::Duration::hours(1));
    talk(p, c.id.into(), 3).await;
    let provenance = p.campaign_provenance(c.id).await.unwrap();
    let host = server.url("");
    assert_eq!(provenance.hosts.len(), 1, "{:?}", provenance.hosts);
    let h = &provenance.hosts[0];
    assert_eq!((h.role, h.host.as_str()), (HostRole::Target, host.as_str()));
    assert_eq!(
        h.requests as usize,
        server.attempts(),
        "every request the server received is counted"
    );
    assert_eq!(h.requests, 5, "five user turns, five requests");
    assert!(h.loopback && provenance.nothing_left_machine);
    let md = agenteval_engine::export::markdown(
        &p.campaign_report(c.id).await.unwrap(),
        agenteval_engine::Lang::En,
    );
    assert!(md.contains(&format!("| target | {host} | 5 |")), "{md}");
    assert!(md.contains("every host contacted is on this machine"));
}

fn far_judge() -> RoleModels {
    RoleModels {
        judge: Some(ModelConfig::new("http://10.1.2.3:8080/v1", "far-judge")),
        ..RoleModels::default()
    }
}

#[tokio::test]
async fn offline_mode_refuses_a_judge_that_is_not_on_this_machine() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(t0()));
    let refused = Platform::builder(dir.path())
        .clock(clock.clone())
        .offline(true)
        .role_models(far_judge())
        .open()
        .await
        .expect_err("offline mode refuses a judge at 10.1.2.3");
    assert_eq!(refused.body.code, ErrorCode::OfflineRefused);
    assert!(
        refused.body.message.contains("the judge model")
            && refused.body.message.contains("http://10.1.2.3:8080"),
        "the message names the role and the host: {}",
        refused.body.message
    );
    assert!(!refused.body.suggestion.is_empty());

    let offline = Platform::builder(dir.path())
        .clock(clock.clone())
        .offline(true)
        .role_models(RoleModels::default())
        .open()
        .await
        .expect("offline without models opens");
    let e = offline.try_set_role_models(far_judge()).unwrap_err();
    assert_eq!(e.body.code, ErrorCode::OfflineRefused);
    assert!(
        offline.role_models().judge.is_none(),
        "a refused setting changes nothing"
    );
    let e = offline
        .create_target(TargetSettings {
            channel: ChannelConfig::Http {
                url: "http://10.1.2.3:8080/chat".into(),
                request_template: None,
                response_path: None,
                headers: Vec::new(),
            },
            ..TargetSettings::builtin_demo("far")
        })
        .await
        .unwrap_err();
    assert_eq!(e.body.code, ErrorCode::OfflineRefused);
    offline.fixtures().close().await;

    // Without offline mode the same judge is accepted (and never contacted
    // here: nothing is reviewed).
    let online = Platform::builder(dir.path())
        .clock(clock)
        .role_models(far_judge())
        .open()
        .await
        .expect("accepted without offline mode");
    assert_eq!(
        online.role_models().judge.map(|j| j.base_url).as_deref(),
        Some("http://10.1.2.3:8080/v1")
    );
}
