//! Tests: seed personas and goals as free JSON, and the campaign's input
//! refused (never corrected) when out of range.

use crate::support::{TestPlatform, platform};
use agenteval_engine::ErrorCode;
use agenteval_engine::campaign::{
    Budget, CreateCampaign, Goal, Persona, Plan, PlanEntry, SeedSet, Traits,
};
use agenteval_engine::exploration::{CreateSession, SeedRef, Trigger};
use agenteval_engine::target::TargetSettings;
use agenteval_engine::virtual_user::{
    FollowUpStrategy, PersonaProfile, Verbosity, parse_goal, parse_persona,
};
use serde_json::json;

fn free_seed_set() -> SeedSet {
    serde_json::from_value(json!({
        "personas": [{
            "id": "p-lin", "name": "Lin", "patience": 2, "language": "en",
            "traits": {"impatient": true, "tone": "terse", "polite": false},
            "occupation": "nurse", "quirks": ["types fast"]
        }],
        "goals": [{
            "id": "g-mail", "title": "Send an email", "slots": {"to": "boss@example.com"},
            "deadline": "today", "priority": 1
        }]
    }))
    .expect("traits as an object and unknown fields read as a seed set")
}

async fn target(tp: &TestPlatform) -> uuid::Uuid {
    tp.platform
        .create_target(TargetSettings::builtin_demo("demo"))
        .await
        .expect("target")
        .id
        .into()
}

fn request(target_id: uuid::Uuid) -> CreateCampaign {
    CreateCampaign {
        name: "seeds".into(),
        target_id: agenteval_engine::TargetId(target_id),
        duration_hours: Some(24.0),
        seed_set: Some(free_seed_set()),
        budget: Some(Budget {
            min_interval_minutes: Some(0.0),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_free_json_persona_round_trips_through_campaign_and_session() {
    let tp = platform().await;
    let c = tp
        .platform
        .create_campaign(request(target(&tp).await))
        .await
        .expect("a persona with traits as an object is a valid seed");
    let stored = tp.platform.get_campaign(c.id).await.expect("campaign");
    let persona = &stored.seed_set.personas[0];
    assert_eq!(
        persona.extra["occupation"],
        json!("nurse"),
        "unknown fields are kept"
    );
    assert_eq!(persona.extra["quirks"], json!(["types fast"]));
    assert_eq!(stored.seed_set.goals[0].extra["deadline"], json!("today"));
    let as_json = serde_json::to_value(persona).expect("json");
    assert_eq!(
        as_json["traits"],
        json!({"impatient": true, "tone": "terse", "polite": false}),
        "traits come back as given"
    );
    assert_eq!(
        as_json["occupation"], "nurse",
        "unknown fields are returned at the top level, where they were given"
    );

    // The virtual user reads the traits of the object: "tone terse" makes
    // it terse, "impatient" makes it press, "polite": false is left out.
    assert_eq!(
        persona.traits.words(),
        vec!["impatient".to_string(), "tone terse".to_string()]
    );
    let session = tp
        .platform
        .create_session(CreateSession {
            campaign_id: c.id,
            persona: as_json.clone(),
            goal: serde_json::to_value(&stored.seed_set.goals[0]).expect("json"),
            seed_ref: Some(SeedRef {
                persona_id: "p-lin".into(),
                goal_id: "g-mail".into(),
                variant: None,
            }),
            trigger: Some(Trigger::Auto),
            played_by: None,
            user_model: None,
        })
        .await
        .expect("session");
    assert_eq!(
        session.persona["traits"]["tone"], "terse",
        "the session keeps the persona as given"
    );
    let read = parse_persona(&session.persona);
    assert_eq!(read.extra["occupation"], json!("nurse"));
    let profile = PersonaProfile::of(&read, &parse_goal(&session.goal), &session.persona);
    assert_eq!(profile.patience, 2);
    assert_eq!(
        profile.verbosity,
        Verbosity::Terse,
        "a trait object's text values count"
    );
    assert_eq!(profile.strategy, FollowUpStrategy::Escalate);
}

#[tokio::test]
async fn out_of_range_persona_fields_are_refused_naming_field_and_range() {
    let tp = platform().await;
    let target_id = target(&tp).await;
    type Spoil = fn(&mut Persona);
    let cases: [(Spoil, &str); 5] = [
        (
            |p| p.patience = Some(9),
            "patience must be from 1 to 5, got 9",
        ),
        (
            |p| p.patience = Some(0),
            "patience must be from 1 to 5, got 0",
        ),
        (
            |p| p.technical_level = Some(-1),
            "technical_level must be from 1 to 5, got -1",
        ),
        (
            |p| p.change_mind = Some(1.5),
            "change_mind must be from 0 to 1, got 1.5",
        ),
        (
            |p| p.language = Some("fr".into()),
            "language must be zh or en, got \"fr\"",
        ),
    ];
    for (spoil, expected) in cases {
        let mut req = request(target_id);
        let seeds = req.seed_set.as_mut().expect("seeds");
        spoil(&mut seeds.personas[0]);
        let err = tp
            .platform
            .create_campaign(req)
            .await
            .expect_err("an out-of-range field is refused, not clamped");
        assert_eq!(err.code(), ErrorCode::InvalidInput);
        assert!(
            err.body.message.contains(expected),
            "the message names the field and its range: {}",
            err.body.message
        );
        assert!(!err.body.suggestion.is_empty());
    }
    assert!(
        tp.platform.list_campaigns().await.expect("list").is_empty(),
        "nothing was stored"
    );
}

#[test]
fn traits_read_as_a_list_or_an_object() {
    let list: Traits = serde_json::from_value(json!(["shy"])).expect("list");
    assert_eq!(list.words(), vec!["shy"]);
    let named: Traits =
        serde_json::from_value(json!({"shy": 1, "hobbies": ["chess", "go"], "x": 0}))
            .expect("object");
    assert_eq!(named.words(), vec!["hobbies chess go", "shy"]);
    let goal: Goal =
        serde_json::from_value(json!({"id": "g", "title": "t", "extra_field": {"a": 1}}))
            .expect("goal");
    assert_eq!(
        serde_json::to_value(&goal).expect("json"),
        json!({"id": "g", "title": "t", "extra_field": {"a": 1}}),
        "a goal's unknown fields round-trip"
    );
}

/// Each refusal of `create_campaign`, and that the message names the field
/// and the range.
#[tokio::test]
async fn campaign_numbers_out_of_range_are_refused_never_corrected() {
    let tp = platform().await;
    let target_id = target(&tp).await;
    // The plan is checked before its scenarios are looked up.
    let plan = |entry: PlanEntry| Plan {
        entries: vec![PlanEntry {
            scenario_id: "any".into(),
            ..entry
        }],
    };
    let budget = |b: Budget| Some(b);
    let cases: Vec<(CreateCampaign, &str)> = vec![
        (
            CreateCampaign {
                duration_hours: Some(-5.0),
                ..request(target_id)
            },
            "duration_hours must be from 0.01 (36 seconds) to 8760",
        ),
        (
            CreateCampaign {
                duration_hours: Some(0.0),
                ..request(target_id)
            },
            "duration_hours must be from 0.01",
        ),
        (
            CreateCampaign {
                // A window of no real time, even at the largest scale.
                duration_hours: Some(0.005),
                ..request(target_id)
            },
            "duration_hours must be from 0.01",
        ),
        (
            CreateCampaign {
                duration_hours: Some(9000.0),
                ..request(target_id)
            },
            "to 8760 (a year)",
        ),
        (
            CreateCampaign {
                time_scale: Some(0.0),
                ..request(target_id)
            },
            "time_scale must be from 1 to 10000, got 0",
        ),
        (
            CreateCampaign {
                time_scale: Some(20_000.0),
                ..request(target_id)
            },
            "time_scale must be from 1 to 10000",
        ),
        (
            CreateCampaign {
                budget: budget(Budget {
                    max_sessions: Some(0),
                    ..Default::default()
                }),
                ..request(target_id)
            },
            "budget.max_sessions must be from 1 to 1000, got 0",
        ),
        (
            CreateCampaign {
                budget: budget(Budget {
                    max_sessions: Some(1001),
                    ..Default::default()
                }),
                ..request(target_id)
            },
            "budget.max_sessions must be from 1 to 1000",
        ),
        (
            CreateCampaign {
                budget: budget(Budget {
                    max_turns: Some(101),
                    ..Default::default()
                }),
                ..request(target_id)
            },
            "budget.max_turns must be from 1 to 100, got 101",
        ),
        (
            CreateCampaign {
                budget: budget(Budget {
                    max_turns: Some(0),
                    ..Default::default()
                }),
                ..request(target_id)
            },
            "budget.max_turns must be from 1 to 100",
        ),
        (
            CreateCampaign {
                budget: budget(Budget {
                    min_interval_minutes: Some(-1.0),
                    ..Default::default()
                }),
                ..request(target_id)
            },
            "budget.min_interval_minutes must be from 0 to 10080",
        ),
        (
            CreateCampaign {
                budget: budget(Budget {
                    min_interval_minutes: Some(20_000.0),
                    ..Default::default()
                }),
                ..request(target_id)
            },
            "budget.min_interval_minutes must be from 0 to 10080",
        ),
        (
            CreateCampaign {
                seed_set: None,
                ..request(target_id)
            },
            "the campaign has nothing to evaluate",
        ),
    ];
    let mut cases = cases;
    {
        cases.extend([
            (
                CreateCampaign {
                    plan: Some(plan(PlanEntry {
                        rounds: Some(0),
                        ..Default::default()
                    })),
                    ..request(target_id)
                },
                "rounds must be from 1 to 1000, got 0",
            ),
            (
                CreateCampaign {
                    plan: Some(plan(PlanEntry {
                        rounds: Some(1001),
                        ..Default::default()
                    })),
                    ..request(target_id)
                },
                "rounds must be from 1 to 1000",
            ),
            (
                CreateCampaign {
                    plan: Some(plan(PlanEntry {
                        every: Some("often".into()),
                        ..Default::default()
                    })),
                    ..request(target_id)
                },
                "is not of the form <number><m|h|d>",
            ),
            (
                CreateCampaign {
                    plan: Some(plan(PlanEntry {
                        every: Some("1d".into()),
                        at: Some("25:00".into()),
                        ..Default::default()
                    })),
                    ..request(target_id)
                },
                "is not a time of day HH:MM",
            ),
            (
                CreateCampaign {
                    plan: Some(plan(PlanEntry {
                        at: Some("09:00".into()),
                        ..Default::default()
                    })),
                    ..request(target_id)
                },
                "needs every",
            ),
        ]);
    }
    for (req, expected) in cases {
        let err = tp
            .platform
            .create_campaign(req)
            .await
            .expect_err("out-of-range input is refused");
        assert_eq!(err.code(), ErrorCode::InvalidInput, "{}", err.body.message);
        assert!(
            err.body.message.contains(expected),
            "expected {expected:?} in {:?}",
            err.body.message
        );
    }
    let err = tp
        .platform
        .create_campaign(CreateCampaign {
            seed_set: None,
            ..request(target_id)
        })
        .await
        .expect_err("empty");
    assert_eq!(
        err.body.suggestion, "Add at least one scenario, or a persona and a goal.",
        "the refusal says what to add"
    );
    assert!(
        tp.platform.list_campaigns().await.expect("list").is_empty(),
        "no refused campaign was stored"
    );
    // The edges of each range are accepted.
    tp.platform
        .create_campaign(CreateCampaign {
            duration_hours: Some(8760.0),
            time_scale: Some(10_000.0),
            budget: Some(Budget {
                max_sessions: Some(1000),
                max_turns: Some(100),
                min_interval_minutes: Some(10_080.0),
            }),
            ..request(target_id)
        })
        .await
        .expect("the edges of each range are valid");
}
