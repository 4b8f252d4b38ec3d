//! Tests: the resident patrol agent on a manual clock, with the built-in
//! demo target, the offline persona engine and the heuristic judge, and
//! once with role models behind a real OpenAI-compatible HTTP server.

use crate::fault_server::{Fault, FaultServer, completion};
use crate::support::{TestPlatform, platform, t0};
use agenteval_engine::ErrorCode;
use agenteval_engine::campaign::{Budget, Campaign, CreateCampaign, Goal, Persona, SeedSet};
use agenteval_engine::exploration::{SessionStatus, Trigger, VariantKind};
use agenteval_engine::patrol_agent::{PatrolAction, PatrolConfig, choose_cell};
use agenteval_engine::role_models::{ModelConfig, RoleModels};
use agenteval_engine::runtime::PatrolAgent;
use agenteval_engine::structured::OutputMode;
use agenteval_engine::target::TargetSettings;
use chrono::Duration;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;

pub fn seeds() -> SeedSet {
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
                technical_level: Some(5),
                ..Default::default()
            },
        ],
        goals: vec![Goal {
            id: "mail".into(),
            title: "Send an email to my manager".into(),
            success_criteria: vec!["has been sent".into()],
            slots: BTreeMap::from([
                ("to".into(), "boss@example.com".into()),
                ("subject".into(), "Weekly report".into()),
                ("body".into(), "All tasks are on track.".into()),
            ]),
            ..Default::default()
        }],
    }
}

pub async fn campaign(tp: &TestPlatform, time_scale: f64, budget: Budget) -> Campaign {
    let target = tp
        .platform
        .create_target(TargetSettings::builtin_demo("demo"))
        .await
        .expect("target");
    tp.platform
        .create_campaign(CreateCampaign {
            name: format!("scale {time_scale}"),
            target_id: target.id,
            duration_hours: Some(24.0 * 7.0),
            time_scale: Some(time_scale),
            seed_set: Some(seeds()),
            budget: Some(budget),
            ..Default::default()
        })
        .await
        .expect("campaign")
}

fn budget(max_sessions: u32) -> Budget {
    Budget {
        max_sessions: Some(max_sessions),
        max_turns: Some(4),
        min_interval_minutes: Some(30.0),
    }
}

#[tokio::test]
async fn dispatches_within_budget_and_respects_the_interval() {
    let tp = platform().await;
    let c = campaign(&tp, 1.0, budget(3)).await;
    let agent = PatrolAgent::new(tp.platform.clone(), &PatrolConfig::default());

    let first = agent.wake_once().await.expect("wake-up");
    assert_eq!(first.campaigns.len(), 1, "the formal campaign is patrolled");
    let d = &first.campaigns[0];
    assert_eq!(d.action, PatrolAction::Dispatch, "{d:?}");
    assert_eq!(
        d.sessions.len(),
        1,
        "one session per campaign per wake-up by default"
    );
    assert_eq!(
        first.reviewed, 1,
        "the heuristic judge reviewed the new session"
    );
    let sessions = tp.platform.list_sessions(c.id).await.unwrap();
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(s.trigger, Trigger::Auto);
    assert_eq!(
        s.status,
        SessionStatus::Completed,
        "the virtual user closed it: {s:?}"
    );
    assert!(s.end_reason.is_some(), "every session ends with a reason");
    let seed = s.seed_ref.as_ref().expect("auto sessions carry a seed_ref");
    assert_eq!(
        (seed.persona_id.as_str(), seed.goal_id.as_str()),
        ("novice", "mail"),
        "first uncovered cell"
    );
    assert!(
        seed.variant.is_none(),
        "an uncovered cell is explored as seeded"
    );
    assert_eq!(s.judge_status, "done");
    let review = s.judge_review.as_ref().expect("stored review");
    assert_eq!(
        review["method"], "heuristic",
        "offline reviews are labelled as heuristic"
    );
    assert!(review["dimensions"]["hallucination"]["score"].is_u64());

    // Same time again: the interval has not elapsed; the agent observes
    // without asking (no refused ledger entry).
    let again = agent.wake_once().await.unwrap();
    let d = &again.campaigns[0];
    assert_eq!(d.action, PatrolAction::Observe, "{d:?}");
    assert_eq!(d.next_allowed_at, Some(t0() + Duration::minutes(30)));
    let refused = tp
        .platform
        .ledger(c.id)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| !e.allowed)
        .count();
    assert_eq!(
        refused, 0,
        "the agent does not try before next_session_allowed_at"
    );

    tp.clock.advance(Duration::minutes(30));
    let third = agent.wake_once().await.unwrap();
    assert_eq!(third.campaigns[0].action, PatrolAction::Dispatch);
    let sessions = tp.platform.list_sessions(c.id).await.unwrap();
    let seed = sessions[1].seed_ref.as_ref().unwrap();
    assert_eq!(
        seed.persona_id, "expert",
        "the other uncovered cell comes next"
    );

    tp.clock.advance(Duration::minutes(30));
    agent.wake_once().await.unwrap();
    let sessions = tp.platform.list_sessions(c.id).await.unwrap();
    assert_eq!(sessions.len(), 3);
    let variant = sessions[2]
        .seed_ref
        .as_ref()
        .unwrap()
        .variant
        .as_ref()
        .expect("covered cells are explored as variants");
    assert!(matches!(
        variant.kind,
        VariantKind::RephrasedGoal | VariantKind::OtherFollowUpStrategy
    ));
    assert!(
        !variant.note.is_empty(),
        "the variant says how it was derived"
    );

    tp.clock.advance(Duration::minutes(30));
    let spent = agent.wake_once().await.unwrap();
    assert_eq!(spent.campaigns[0].action, PatrolAction::Observe);
    assert!(
        spent.campaigns[0].reason.contains("budget"),
        "{:?}",
        spent.campaigns[0]
    );
    assert_eq!(
        tp.platform.list_sessions(c.id).await.unwrap().len(),
        3,
        "never beyond max_sessions"
    );
}

#[tokio::test]
async fn a_refusal_stops_dispatching_on_that_campaign() {
    let tp = platform().await;
    let c = campaign(&tp, 1.0, budget(5)).await;
    let config = PatrolConfig {
        max_dispatch_per_campaign: 3,
        ..Default::default()
    };
    let agent = PatrolAgent::new(tp.platform.clone(), &config);
    let out = agent.wake_once().await.unwrap();
    let d = &out.campaigns[0];
    assert_eq!(
        d.sessions.len(),
        1,
        "the second start is refused by the interval guardrail"
    );
    assert_eq!(d.action, PatrolAction::Dispatch);
    assert_eq!(d.refusal, Some(ErrorCode::IntervalNotElapsed));
    assert_eq!(
        d.next_allowed_at,
        Some(t0() + Duration::minutes(30)),
        "the refusal's next_allowed_at is recorded"
    );
    let refused: Vec<_> = tp
        .platform
        .ledger(c.id)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| !e.allowed)
        .collect();
    assert_eq!(
        refused.len(),
        1,
        "one refusal, no retry in the same wake-up"
    );
    assert_eq!(refused[0].reason_code, Some(ErrorCode::IntervalNotElapsed));
}

#[tokio::test]
async fn never_dispatches_on_the_accelerated_line_and_pauses() {
    let tp = platform().await;
    let fast = campaign(&tp, 60.0, budget(5)).await;
    let agent = PatrolAgent::new(
        tp.platform.clone(),
        &PatrolConfig {
            paused: true,
            ..Default::default()
        },
    );
    let paused = agent.wake_once().await.unwrap();
    assert!(
        paused.paused && paused.campaigns.is_empty(),
        "a paused agent does nothing"
    );
    agent.resume();
    for _ in 0..3 {
        let out = agent.wake_once().await.unwrap();
        assert!(
            out.campaigns.iter().all(|d| d.campaign_id != fast.id),
            "the accelerated line is not patrolled"
        );
        tp.clock.advance(Duration::hours(1));
    }
    assert!(
        tp.platform.list_sessions(fast.id).await.unwrap().is_empty(),
        "no automatic session on the accelerated line"
    );
}

#[tokio::test]
async fn prefers_goals_that_failed_before() {
    use agenteval_engine::exploration::patrol::{CoverageState, FailedGoal};
    let tp = platform().await;
    campaign(&tp, 1.0, budget(5)).await;
    let mut view = tp.platform.patrol().await.unwrap().campaigns.remove(0);
    view.uncovered.clear();
    view.coverage = vec![
        CoverageState {
            persona_id: "novice".into(),
            goal_id: "mail".into(),
            sessions: 2,
            achieved: 2,
            not_achieved: 0,
        },
        CoverageState {
            persona_id: "expert".into(),
            goal_id: "report".into(),
            sessions: 3,
            achieved: 1,
            not_achieved: 2,
        },
        CoverageState {
            persona_id: "novice".into(),
            goal_id: "report".into(),
            sessions: 1,
            achieved: 1,
            not_achieved: 0,
        },
    ];
    view.failed_goals = vec![FailedGoal {
        goal_id: "report".into(),
        attempts: 4,
        failures: 2,
    }];
    let pick = choose_cell(&view).expect("something to explore");
    assert_eq!(
        pick.goal_id, "report",
        "a goal that failed before is retried first"
    );
    assert_eq!(
        pick.persona_id, "novice",
        "by the persona that tried it least"
    );
    assert_eq!(pick.variant, Some(VariantKind::OtherFollowUpStrategy));
    view.failed_goals.clear();
    let pick = choose_cell(&view).unwrap();
    assert_eq!(
        (pick.persona_id.as_str(), pick.variant),
        ("novice", Some(VariantKind::RephrasedGoal)),
        "else the least explored cell, re-phrased"
    );
}

#[tokio::test]
async fn role_models_over_a_real_openai_compatible_endpoint() {
    let user_server = FaultServer::start(vec![
        Fault::Ok(completion(r#"{"decision": "follow_up", "message": "Email boss@example.com: Weekly report."}"#)),
        Fault::Ok(completion(r#"{"decision": "done", "message": "Thanks, that is all."}"#)),
        Fault::Ok(completion(r#"{"goal_achieved": true, "blockers": [], "misled": [], "emotion": "satisfied", "notes": "ok"}"#)),
    ])
    .await;
    let judge_server = FaultServer::start(vec![Fault::Ok(completion(
        r#"{"attitude": {"score": 4, "evidence": "Sure"}, "professionalism": {"score": 3, "evidence": "x"},
            "hallucination": {"score": 5, "evidence": "none"}, "findings": [{"grade": "good", "dimension": "attitude", "text": "polite", "turn": 1, "step": 0}],
            "simulator": {"in_persona": true, "quit_early": false, "invented_facts": false}}"#,
    ))])
    .await;
    let tp = platform().await;
    let c = campaign(&tp, 1.0, budget(2)).await;
    let model = |url: String| ModelConfig {
        base_url: url,
        model: "tiny-model".into(),
        api_key: Some("sk-role-secret".into()),
        api_key_env: None,
        timeout_ms: Some(10_000),
        max_tokens: None,
        concurrency: None,
        input_tokens: None,
    };
    tp.platform.set_role_models(RoleModels {
        virtual_user: Some(model(user_server.base_url())),
        judge: Some(model(judge_server.base_url())),
        analyst: None,
        tool_simulator: None,
    });
    let agent = PatrolAgent::new(tp.platform.clone(), &PatrolConfig::default());
    let out = agent.wake_once().await.expect("wake-up");
    assert_eq!(
        out.campaigns[0].action,
        PatrolAction::Dispatch,
        "{:?}",
        out.campaigns[0]
    );
    let s = &tp.platform.list_sessions(c.id).await.unwrap()[0];
    assert_eq!(s.status, SessionStatus::Completed);
    assert_eq!(s.turn_count, 1, "one model-written user message, then done");
    let record = s.experience.as_ref().unwrap();
    assert_eq!(
        (record.emotion.as_str(), &record.notes),
        ("satisfied", &"ok".into()),
        "the model's own record"
    );
    assert_eq!(s.judge_status, "done");
    let review = s.judge_review.as_ref().unwrap();
    assert_eq!(review["method"], "model");
    assert_eq!(review["dimensions"]["attitude"]["score"], 4);

    let requests = user_server.requests();
    assert_eq!(requests.len(), 3, "two turns and the record");
    assert!(requests[0].path.ends_with("/chat/completions"));
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer sk-role-secret")
    );
    let body = requests[0].json();
    assert_eq!(body["model"], "tiny-model");
    assert_eq!(
        body["max_tokens"], 300,
        "the virtual user's answers are capped by its role default"
    );
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("Send an email to my manager"),
        "the persona prompt carries the goal"
    );
    let schema_names: Vec<Value> = requests
        .iter()
        .map(|r| r.json()["response_format"]["json_schema"]["name"].clone())
        .collect();
    assert_eq!(
        schema_names,
        vec![
            json!("virtual_user_turn"),
            json!("virtual_user_turn"),
            json!("experience_record")
        ],
        "every virtual-user request carries the schema of its answer"
    );
    assert_eq!(
        judge_server.requests()[0].json()["response_format"]["json_schema"]["name"],
        "judge_review"
    );
    let models = tp.platform.models_used(c.id).await.unwrap();
    assert_eq!(
        (models.output_modes.virtual_user, models.output_modes.judge),
        (Some(OutputMode::JsonSchema), Some(OutputMode::JsonSchema)),
        "the campaign records the form each role took"
    );
    let judged = judge_server.requests()[0].json();
    assert_eq!(judged["max_tokens"], 800, "the judge's role default");
    let prompt = judged["messages"][1]["content"].as_str().unwrap();
    assert!(
        prompt.contains("[round 1] USER: Email boss@example.com"),
        "the judge sees the sampled conversation"
    );
    let _ = Arc::clone(&tp.platform);
}

#[tokio::test]
async fn explore_seed_runs_manual_sessions_on_the_accelerated_line() {
    use agenteval_engine::judge::JudgeSampling;
    use agenteval_engine::patrol_agent::{ExploreSeed, explore_seed};
    use agenteval_engine::role_models::RoleClients;
    let tp = platform().await;
    let fast = campaign(&tp, 60.0, budget(5)).await;
    let mut seed = ExploreSeed {
        campaign_id: fast.id,
        persona_id: "expert".into(),
        goal_id: "mail".into(),
        variant: None,
        trigger: Trigger::Auto,
    };
    let refused = explore_seed(
        &tp.platform,
        &seed,
        &RoleClients::default(),
        JudgeSampling::default(),
    )
    .await
    .expect_err("auto is refused on the accelerated line");
    assert_eq!(refused.code(), ErrorCode::AutoNotAllowedOnAcceleratedLine);
    seed.trigger = Trigger::Manual;
    let outcome = explore_seed(
        &tp.platform,
        &seed,
        &RoleClients::default(),
        JudgeSampling::default(),
    )
    .await
    .expect("manual exploration for debugging");
    assert_eq!(outcome.status, "completed");
    assert_eq!(
        outcome.judge_status.as_deref(),
        Some("done"),
        "the heuristic judge ran"
    );
    let s = tp.platform.get_session(outcome.session_id).await.unwrap();
    assert_eq!(s.trigger, Trigger::Manual);
    assert_eq!(s.end_reason, Some(outcome.end_reason));
    seed.persona_id = "nobody".into();
    tp.clock.advance(Duration::hours(1));
    let unknown = explore_seed(
        &tp.platform,
        &seed,
        &RoleClients::default(),
        JudgeSampling::default(),
    )
    .await
    .expect_err("unknown seed");
    assert_eq!(unknown.code(), ErrorCode::InvalidInput);
}

#[tokio::test]
async fn the_heartbeat_wakes_at_once_and_can_be_paused() {
    let tp = platform().await;
    let c = campaign(&tp, 1.0, budget(3)).await;
    let handle = PatrolAgent::spawn(tp.platform.clone(), PatrolConfig::default());
    // The first wake-up happens at start, not after the first hour.
    let mut sessions = Vec::new();
    for _ in 0..500 {
        sessions = tp.platform.list_sessions(c.id).await.unwrap();
        if sessions.iter().any(|s| s.judge_status == "done") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(sessions.len(), 1, "one session dispatched at start-up");
    assert_eq!(sessions[0].judge_status, "done");
    handle.pause();
    assert!(handle.is_paused());
    let agent = handle.agent().clone();
    tp.clock.advance(Duration::hours(1));
    assert!(
        agent.wake_once().await.unwrap().paused,
        "a paused agent dispatches nothing"
    );
    handle.stop();
    assert_eq!(tp.platform.list_sessions(c.id).await.unwrap().len(), 1);
}

#[tokio::test]
async fn replaced_role_models_take_effect_without_a_new_agent() {
    let judge_server = FaultServer::start(vec![Fault::Ok(completion(
        r#"{"attitude": {"score": 2, "evidence": "curt"}, "professionalism": {"score": 3, "evidence": "x"},
            "hallucination": {"score": 5, "evidence": "none"}, "findings": [],
            "simulator": {"in_persona": true, "quit_early": false, "invented_facts": false}}"#,
    ))])
    .await;
    let analyst_server = FaultServer::start(vec![Fault::Ok(completion(
        r#"{"summary": "Fine overall.", "claims": []}"#,
    ))])
    .await;
    let tp = platform().await;
    let c = campaign(&tp, 1.0, budget(3)).await;
    let agent = PatrolAgent::new(tp.platform.clone(), &PatrolConfig::default());
    agent.wake_once().await.expect("first wake-up");
    let first = &tp.platform.list_sessions(c.id).await.unwrap()[0];
    assert_eq!(
        first.judge_review.as_ref().unwrap()["method"],
        "heuristic",
        "offline at first"
    );

    // What the desktop app does when settings are saved.
    tp.platform.set_role_models(RoleModels {
        judge: Some(ModelConfig {
            base_url: judge_server.base_url(),
            model: "judge-now".into(),
            api_key: None,
            api_key_env: None,
            timeout_ms: Some(10_000),
            max_tokens: Some(123),
            concurrency: None,
            input_tokens: None,
        }),
        analyst: Some(ModelConfig {
            timeout_ms: Some(10_000),
            ..ModelConfig::new(analyst_server.base_url(), "analyst-now")
        }),
        tool_simulator: None,
        virtual_user: None,
    });
    tp.clock.advance(Duration::minutes(31));
    agent.wake_once().await.expect("second wake-up");
    let sessions = tp.platform.list_sessions(c.id).await.unwrap();
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    let second = sessions
        .iter()
        .find(|s| s.id != first.id)
        .expect("a second session");
    assert_eq!(
        second.judge_review.as_ref().unwrap()["method"],
        "model",
        "the same agent judges with the model configured since"
    );
    let judged = judge_server.requests();
    assert_eq!(judged.len(), 1);
    assert_eq!(judged[0].json()["model"], "judge-now");
    assert_eq!(
        judged[0].json()["max_tokens"],
        123,
        "a configured cap replaces the role default"
    );

    let analysis = tp
        .platform
        .generate_configured_analysis(c.id, agenteval_engine::Lang::En)
        .await
        .expect("analysis");
    assert_eq!(analysis.model, "analyst-now", "{analysis:?}");
    assert!(!analysis.offline);
    assert_eq!(
        analyst_server.requests()[0].json()["max_tokens"],
        1500,
        "the analyst's role default"
    );
    let target = tp.platform.get_target(c.target_id).await.unwrap();
    let used = tp.platform.models_for(&target);
    assert_eq!(
        used.judge.as_deref(),
        Some(format!("judge-now @ {}", judge_server.base_url()).as_str()),
        "new campaigns record the models in force"
    );
}

#[tokio::test]
async fn a_new_cadence_replans_the_next_wake_up() {
    let tp = platform().await;
    let handle = PatrolAgent::spawn(tp.platform.clone(), PatrolConfig::default());
    let mut status = handle.status();
    for _ in 0..500 {
        status = handle.status();
        if status.next_wake_at.is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(status.last_wake_at, Some(t0()), "woke at start");
    assert_eq!(status.next_wake_at, Some(t0() + Duration::hours(1)));
    assert_eq!(status.interval_minutes, 60);

    tp.clock.advance(Duration::minutes(5));
    handle.set_interval(std::time::Duration::from_secs(120));
    for _ in 0..500 {
        status = handle.status();
        if status.interval_minutes == 2 && status.next_wake_at != Some(t0() + Duration::hours(1)) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(
        status.next_wake_at,
        Some(t0() + Duration::minutes(2)),
        "re-planned from the last wake-up, without waking now"
    );
    assert_eq!(status.last_wake_at, Some(t0()), "no extra wake-up");

    handle.pause();
    let paused = handle.status();
    assert!(paused.paused && paused.next_wake_at.is_none());
    handle.stop();
}

#[tokio::test]
async fn one_worker_of_a_cluster_holds_the_patrol_lease_per_cadence() {
    let t = platform().await;
    let other = t.another_worker().await;
    let cadence = std::time::Duration::from_secs(3600);
    assert!(
        t.platform.take_patrol_lease(cadence).await.unwrap(),
        "the first worker to wake takes the lease"
    );
    assert!(
        !other.take_patrol_lease(cadence).await.unwrap(),
        "another worker waking within the same cadence leaves the wake-up to it"
    );
    // One cadence later the holder wakes on time and keeps it.
    t.clock.advance(Duration::hours(1));
    assert!(t.platform.take_patrol_lease(cadence).await.unwrap());
    t.clock.advance(Duration::minutes(30));
    assert!(
        !other.take_patrol_lease(cadence).await.unwrap(),
        "still held: the other worker does not wake"
    );
    // The holder stops: once its lease ran out, the other worker takes it.
    t.clock.advance(Duration::minutes(31));
    assert!(
        other.take_patrol_lease(cadence).await.unwrap(),
        "a lease its holder did not renew passes to another worker"
    );
    assert!(
        !t.platform.take_patrol_lease(cadence).await.unwrap(),
        "and the old holder, back, finds it taken"
    );
}
