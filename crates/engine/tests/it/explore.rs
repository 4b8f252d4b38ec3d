//! Tests: exploration started from the app (`Platform::explore`) with the
//! built-in demo target, the persona engine and the heuristic judge; who
//! played the user; the events a session's turns emit.

use crate::support::{TestPlatform, platform};
use agenteval_engine::campaign::{Budget, Campaign, CreateCampaign, Goal, Persona, SeedSet};
use agenteval_engine::exploration::{
    CreateSession, ExploreRequest, PlayedBy, SeedRef, SendMessage, SessionStatus, Trigger,
    patrol::SeedCell,
};
use agenteval_engine::role_models::{FakeChatClient, RoleClients};
use agenteval_engine::target::TargetSettings;
use agenteval_engine::{ErrorCode, Event};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;
use uuid::Uuid;

fn seeds() -> SeedSet {
    let goal = |id: &str, title: &str| Goal {
        id: id.into(),
        title: title.into(),
        success_criteria: vec!["has been sent".into()],
        slots: BTreeMap::from([
            ("to".into(), "boss@example.com".into()),
            ("subject".into(), "Weekly report".into()),
            ("body".into(), "All tasks are on track.".into()),
        ]),
        ..Default::default()
    };
    SeedSet {
        personas: vec![
            Persona {
                id: "novice".into(),
                name: "Lin".into(),
                language: Some("zh".into()),
                patience: Some(2),
                ..Default::default()
            },
            Persona {
                id: "expert".into(),
                name: "Sam".into(),
                language: Some("en".into()),
                patience: Some(4),
                ..Default::default()
            },
        ],
        goals: vec![
            goal("mail", "Send an email to my manager"),
            goal("report", "Send the weekly report"),
        ],
    }
}

async fn campaign(tp: &TestPlatform, time_scale: f64, min_interval_minutes: f64) -> Campaign {
    let target = tp
        .platform
        .create_target(TargetSettings::builtin_demo("demo"))
        .await
        .expect("target");
    tp.platform
        .create_campaign(CreateCampaign {
            name: format!("explore at scale {time_scale}"),
            target_id: target.id,
            duration_hours: Some(24.0 * 7.0),
            time_scale: Some(time_scale),
            seed_set: Some(seeds()),
            budget: Some(Budget {
                max_sessions: Some(8),
                max_turns: Some(4),
                min_interval_minutes: Some(min_interval_minutes),
            }),
            ..Default::default()
        })
        .await
        .expect("campaign")
}

fn cell(persona: &str, goal: &str) -> SeedCell {
    SeedCell {
        persona_id: persona.into(),
        goal_id: goal.into(),
    }
}

/// Waits until the background play and the judge review of `id` are done.
async fn judged(tp: &TestPlatform, id: Uuid) -> agenteval_engine::exploration::SessionTranscript {
    for _ in 0..1000 {
        let t = tp
            .platform
            .session_messages(agenteval_engine::SessionId(id))
            .await
            .expect("session");
        if t.session.status != SessionStatus::Running && t.session.judge_status == "done" {
            return t;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    panic!("session {id} was not played and judged within 10 s");
}

#[tokio::test]
async fn explore_uncovered_cells_creates_sessions_then_plays_and_judges_them() {
    let tp = platform().await;
    let c = campaign(&tp, 60.0, 0.0).await;
    // A person covers one cell by hand first.
    let typed = tp
        .platform
        .create_session(CreateSession {
            campaign_id: c.id,
            persona: json!({"name": "Lin"}),
            goal: json!("send an email"),
            seed_ref: Some(SeedRef {
                persona_id: "novice".into(),
                goal_id: "mail".into(),
                variant: None,
            }),
            trigger: Some(Trigger::Manual),
            played_by: Some(PlayedBy::Person),
            user_model: None,
        })
        .await
        .expect("manual session");
    assert_eq!(typed.played_by, PlayedBy::Person);

    let started = tp
        .platform
        .explore(ExploreRequest {
            campaign_id: c.id,
            cells: None,
            trigger: None,
        })
        .await
        .expect("explore uncovered cells");
    assert!(
        started.refused.is_none(),
        "no interval, budget of 8: {started:?}"
    );
    assert_eq!(started.played_by, PlayedBy::Builtin, "no model configured");
    assert_eq!(started.user_model, None);
    let cells: Vec<(String, String)> = started
        .sessions
        .iter()
        .map(|s| {
            let r = s.seed_ref.as_ref().expect("seeded");
            (r.persona_id.clone(), r.goal_id.clone())
        })
        .collect();
    assert_eq!(
        cells,
        [
            ("novice", "report"),
            ("expert", "mail"),
            ("expert", "report")
        ]
        .map(|(p, g)| (p.to_string(), g.to_string())),
        "the cells without a session, personas then goals in seed-set order"
    );
    for s in &started.sessions {
        assert_eq!(s.status, SessionStatus::Running, "returned as created");
        assert_eq!(
            s.trigger,
            Trigger::Manual,
            "the accelerated line defaults to manual"
        );
        assert_eq!(s.played_by, PlayedBy::Builtin);
    }
    for s in &started.sessions {
        let t = judged(&tp, s.id.into()).await;
        assert!(
            t.messages.len() >= 2,
            "the persona engine talked with the demo target: {:?}",
            t.messages
        );
        assert!(t.session.end_reason.is_some(), "ended with a reason");
        assert_eq!(
            t.session.judge_review.as_ref().expect("review")["method"],
            "heuristic"
        );
        assert_eq!(
            t.session.played_by,
            PlayedBy::Builtin,
            "stored, not only returned"
        );
    }

    let none_left = tp
        .platform
        .explore(ExploreRequest {
            campaign_id: c.id,
            cells: Some(Vec::new()),
            trigger: None,
        })
        .await
        .expect_err("every cell has a session now");
    assert_eq!(none_left.code(), ErrorCode::Conflict);
    assert!(
        none_left.body.message.contains("every persona x goal cell"),
        "{}",
        none_left.body.message
    );

    let auto = tp
        .platform
        .explore(ExploreRequest {
            campaign_id: c.id,
            cells: Some(vec![cell("expert", "mail")]),
            trigger: Some(Trigger::Auto),
        })
        .await
        .expect_err("auto on the accelerated line");
    assert_eq!(auto.code(), ErrorCode::AutoNotAllowedOnAcceleratedLine);

    let unknown = tp
        .platform
        .explore(ExploreRequest {
            campaign_id: c.id,
            cells: Some(vec![cell("expert", "mail"), cell("expert", "nothing")]),
            trigger: None,
        })
        .await
        .expect_err("a cell outside the seed set");
    assert_eq!(
        unknown.code(),
        ErrorCode::NotFound,
        "a seed the campaign does not have is not found"
    );
    assert!(unknown.body.message.contains("cells[1].goal_id"));
    assert_eq!(
        tp.platform.list_sessions(c.id).await.unwrap().len(),
        4,
        "refused requests created nothing, not even their valid cells"
    );
}

#[tokio::test]
async fn explore_stops_at_the_first_refusal_and_reports_it() {
    let tp = platform().await;
    // 30 campaign minutes at time_scale 60: 30 real seconds between starts.
    let c = campaign(&tp, 60.0, 30.0).await;
    let started = tp
        .platform
        .explore(ExploreRequest {
            campaign_id: c.id,
            cells: None,
            trigger: Some(Trigger::Manual),
        })
        .await
        .expect("the first cell starts");
    assert_eq!(started.sessions.len(), 1, "{started:?}");
    let refused = started.refused.expect("the second cell was refused");
    assert_eq!(refused.code, ErrorCode::IntervalNotElapsed);
    assert!(
        refused.next_allowed_at.is_some(),
        "the refusal says when the next session is allowed"
    );
    judged(&tp, started.sessions[0].id.into()).await;

    let first = tp
        .platform
        .explore(ExploreRequest {
            campaign_id: c.id,
            cells: Some(vec![cell("expert", "report")]),
            trigger: None,
        })
        .await
        .expect_err("the very first cell is refused");
    assert_eq!(first.code(), ErrorCode::IntervalNotElapsed);
    assert_eq!(first.body.next_allowed_at, refused.next_allowed_at);
}

#[tokio::test]
async fn explore_on_the_formal_line_is_auto_and_names_the_model() {
    let tp = platform().await;
    let c = campaign(&tp, 1.0, 0.0).await;
    // A virtual-user model that answers nonsense: the session is still
    // recorded as played by that model, and ends as a simulator error.
    tp.platform.roles.set_clients(RoleClients {
        virtual_user: Some(Arc::new(
            FakeChatClient::default().with_fallback("not a turn"),
        )),
        ..RoleClients::default()
    });
    let started = tp
        .platform
        .explore(ExploreRequest {
            campaign_id: c.id,
            cells: Some(vec![cell("expert", "mail")]),
            trigger: None,
        })
        .await
        .expect("explore");
    assert_eq!(started.played_by, PlayedBy::Model);
    assert_eq!(started.user_model.as_deref(), Some("fake"));
    let s = &started.sessions[0];
    assert_eq!(s.trigger, Trigger::Auto, "the formal line defaults to auto");
    let t = judged(&tp, s.id.into()).await;
    assert_eq!(t.session.played_by, PlayedBy::Model);
    assert_eq!(t.session.user_model.as_deref(), Some("fake"));
    assert_eq!(
        t.session.end_reason,
        Some(agenteval_engine::exploration::EndReason::SimulatorError),
        "the model's nonsense is the simulator's fault, not the target's"
    );
}

#[tokio::test]
async fn played_by_defaults_to_assistant_and_user_model_needs_model() {
    let tp = platform().await;
    let c = campaign(&tp, 60.0, 0.0).await;
    let req = |played_by, user_model: Option<&str>| CreateSession {
        campaign_id: c.id,
        persona: json!({"name": "Lin"}),
        goal: json!("send an email"),
        seed_ref: None,
        trigger: Some(Trigger::Manual),
        played_by,
        user_model: user_model.map(String::from),
    };
    let s = tp.platform.create_session(req(None, None)).await.unwrap();
    assert_eq!(s.played_by, PlayedBy::Assistant, "an API client by default");
    let wrong = tp
        .platform
        .create_session(req(Some(PlayedBy::Person), Some("gpt")))
        .await
        .expect_err("a person is not a model");
    assert_eq!(wrong.code(), ErrorCode::InvalidInput);
    let blank = tp
        .platform
        .create_session(req(Some(PlayedBy::Model), Some("  ")))
        .await
        .expect_err("a blank model name is refused, not dropped");
    assert_eq!(blank.code(), ErrorCode::InvalidInput);
    let m = tp
        .platform
        .create_session(req(Some(PlayedBy::Model), Some(" qwen2.5 ")))
        .await
        .unwrap();
    let stored = tp.platform.get_session(m.id).await.unwrap();
    assert_eq!(stored.played_by, PlayedBy::Model);
    assert_eq!(stored.user_model.as_deref(), Some("qwen2.5"));
}

#[tokio::test]
async fn each_stored_turn_emits_a_session_event() {
    let tp = platform().await;
    let c = campaign(&tp, 60.0, 0.0).await;
    let mut events = tp.platform.subscribe();
    let s = tp
        .platform
        .create_session(CreateSession {
            campaign_id: c.id,
            persona: json!({"name": "Lin"}),
            goal: json!("send an email"),
            seed_ref: None,
            trigger: Some(Trigger::Manual),
            played_by: Some(PlayedBy::Person),
            user_model: None,
        })
        .await
        .unwrap();
    tp.platform
        .send_message(
            s.id,
            SendMessage {
                content: "Please send an email to boss@example.com".into(),
            },
        )
        .await
        .unwrap();
    let mut changes = 0;
    while let Ok(event) = events.try_recv() {
        if let Event::SessionChanged {
            campaign_id,
            session_id,
        } = event
        {
            assert_eq!((campaign_id, session_id), (c.id, s.id));
            changes += 1;
        }
    }
    assert_eq!(
        changes, 3,
        "one event for the creation, one for the user's turn, one for the reply"
    );
}

#[tokio::test]
async fn the_patrol_agent_records_the_builtin_player() {
    use agenteval_engine::patrol_agent::PatrolConfig;
    use agenteval_engine::runtime::PatrolAgent;
    let tp = platform().await;
    let c = campaign(&tp, 1.0, 30.0).await;
    let agent = PatrolAgent::new(tp.platform.clone(), &PatrolConfig::default());
    agent.wake_once().await.expect("wake-up");
    let sessions = tp.platform.list_sessions(c.id).await.unwrap();
    assert_eq!(sessions.len(), 1, "one dispatch");
    assert_eq!(sessions[0].trigger, Trigger::Auto);
    assert_eq!(
        sessions[0].played_by,
        PlayedBy::Builtin,
        "no model configured: the persona engine played"
    );
}
