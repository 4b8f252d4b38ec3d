//! Tests: filtered pages of runs and sessions; every page and total is
//! checked against the full list filtered here.

use crate::support::platform;
use agenteval_engine::ErrorCode;
use agenteval_engine::campaign::{CreateCampaign, Goal, Persona, Plan, PlanEntry, SeedSet};
use agenteval_engine::domain::ids::{RunId, SessionId};
use agenteval_engine::exploration::{
    CloseSession, CreateSession, ExplorationSession, SeedRef, SessionStatus, Trigger,
};
use agenteval_engine::fixed::{Run, Verdict};
use agenteval_engine::paging::{RunQuery, SessionQuery};
use agenteval_engine::scenario::{Check, Scenario, ScenarioTurn};
use agenteval_engine::target::TargetSettings;
use chrono::Duration;
use serde_json::json;
use uuid::Uuid;

fn scenario(id: &str, tag: &str, checks: Vec<Check>) -> Scenario {
    Scenario {
        max_steps: None,
        workspace: None,
        id: id.into(),
        title: format!("Scenario {id}"),
        pack: "test".into(),
        tags: vec![tag.into()],
        group: None,
        system: None,
        facts: vec![],
        key_fields: vec![],
        tools: Default::default(),
        turns: vec![ScenarioTurn {
            max_steps: None,
            user: "hello".into(),
            checks,
        }],
        source_file: "test.yaml".into(),
        shipped: false,
        source_line: 1,
        content_hash: format!("hash-{id}"),
        lineage: None,
        from_traces: None,
    }
}

fn rounds(id: &str, n: u32) -> PlanEntry {
    PlanEntry {
        scenario_id: id.into(),
        rounds: Some(n),
        ..Default::default()
    }
}

#[tokio::test]
async fn runs_filter_by_verdict_scenario_and_tag_with_totals_and_pages() {
    let tp = platform().await;
    let p = &tp.platform;
    p.scenarios.insert_all([
        scenario("ok", "smoke", vec![]),
        scenario(
            "bad",
            "hard",
            vec![Check::Contains {
                value: Some("a phrase the demo agent never says".into()),
                any: vec![],
                case_sensitive: false,
            }],
        ),
    ]);
    let target = p
        .create_target(TargetSettings::builtin_demo("demo"))
        .await
        .unwrap();
    // One week at scale 168: one real hour; half of it elapses.
    let c = p
        .create_campaign(CreateCampaign {
            name: "paging".into(),
            target_id: target.id,
            plan: Some(Plan {
                entries: vec![rounds("ok", 12), rounds("bad", 8)],
            }),
            duration_hours: Some(168.0),
            time_scale: Some(168.0),
            ..Default::default()
        })
        .await
        .unwrap();
    p.tick().await.unwrap();
    tp.clock.advance(Duration::minutes(31));
    p.tick().await.unwrap();

    let all = p.list_runs(c.id).await.unwrap();
    assert_eq!(all.len(), 20);
    let with = |pred: &dyn Fn(&Run) -> bool| -> Vec<RunId> {
        all.iter().filter(|r| pred(r)).map(|r| r.id).collect()
    };
    let passed = with(&|r| r.verdict == Some(Verdict::Passed));
    let failed = with(&|r| r.verdict == Some(Verdict::Failed));
    let pending = with(&|r| r.status != "done");
    assert!(
        !passed.is_empty() && !failed.is_empty() && !pending.is_empty(),
        "half the window: some runs passed, some failed, some wait ({} / {} / {})",
        passed.len(),
        failed.len(),
        pending.len()
    );
    let ids = |runs: &[Run]| runs.iter().map(|r| r.id).collect::<Vec<_>>();
    let search = |q: RunQuery| async move { p.search_runs(c.id, q).await.unwrap() };

    let page = search(RunQuery::default()).await;
    assert_eq!(page.total, 20);
    assert_eq!(
        ids(&page.runs),
        ids(&all),
        "no filter: every run in plan order"
    );
    for (verdict, expected) in [
        ("passed", &passed),
        ("failed", &failed),
        ("pending", &pending),
    ] {
        let page = search(RunQuery {
            verdict: Some(verdict.into()),
            ..Default::default()
        })
        .await;
        assert_eq!(page.total, expected.len() as u64, "total of {verdict}");
        assert_eq!(&ids(&page.runs), expected, "runs {verdict}");
    }
    let error = search(RunQuery {
        verdict: Some("error".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(error.total, 0, "the demo target answered every run");
    let blank = search(RunQuery {
        verdict: Some(String::new()),
        scenario_id: Some(" ".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(blank.total, 20, "blank filters filter nothing");

    let bad = with(&|r| r.scenario_id == "bad");
    let by_scenario = search(RunQuery {
        scenario_id: Some("bad".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(
        (by_scenario.total, ids(&by_scenario.runs)),
        (8, bad.clone())
    );
    let by_tag = search(RunQuery {
        tag: Some("hard".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(ids(&by_tag.runs), bad, "the tag names the scenario's runs");
    let ok_passed = with(&|r| r.scenario_id == "ok" && r.verdict == Some(Verdict::Passed));
    let combined = search(RunQuery {
        verdict: Some("passed".into()),
        tag: Some("smoke".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(ids(&combined.runs), ok_passed, "filters combine");
    let nothing = search(RunQuery {
        tag: Some("no-such-tag".into()),
        ..Default::default()
    })
    .await;
    assert_eq!((nothing.total, nothing.runs.len()), (0, 0));

    // Pages of 3 put together give the whole list; the total is the same
    // on every page.
    let mut paged = Vec::new();
    for offset in (0..24).step_by(3) {
        let page = search(RunQuery {
            offset: Some(offset),
            limit: Some(3),
            ..Default::default()
        })
        .await;
        assert_eq!(page.total, 20, "total at offset {offset}");
        assert!(page.runs.len() <= 3);
        paged.extend(ids(&page.runs));
    }
    assert_eq!(paged, ids(&all));

    for (query, what) in [
        (
            RunQuery {
                verdict: Some("green".into()),
                ..Default::default()
            },
            "an unknown verdict",
        ),
        (
            RunQuery {
                limit: Some(0),
                ..Default::default()
            },
            "an empty page",
        ),
        (
            RunQuery {
                limit: Some(501),
                ..Default::default()
            },
            "more than 500 rows",
        ),
    ] {
        let e = p.search_runs(c.id, query).await.expect_err(what);
        assert_eq!(e.code(), ErrorCode::InvalidInput, "{what}");
    }
    let e = p
        .search_runs(
            agenteval_engine::CampaignId(Uuid::now_v7()),
            RunQuery::default(),
        )
        .await
        .expect_err("unknown campaign");
    assert_eq!(e.code(), ErrorCode::NotFound);
}

#[tokio::test]
async fn sessions_filter_by_status_seed_and_ids_with_totals_and_pages() {
    let tp = platform().await;
    let p = &tp.platform;
    let target = p
        .create_target(TargetSettings::builtin_demo("demo"))
        .await
        .unwrap();
    let seeds = SeedSet {
        personas: vec![
            Persona {
                id: "novice".into(),
                name: "Lin".into(),
                ..Default::default()
            },
            Persona {
                id: "expert".into(),
                name: "Sam".into(),
                ..Default::default()
            },
        ],
        goals: vec![
            Goal {
                id: "mail".into(),
                title: "Send an email".into(),
                ..Default::default()
            },
            Goal {
                id: "refund".into(),
                title: "Get a refund".into(),
                ..Default::default()
            },
        ],
    };
    let c = p
        .create_campaign(CreateCampaign {
            name: "sessions".into(),
            target_id: target.id,
            duration_hours: Some(168.0),
            time_scale: Some(60.0),
            seed_set: Some(seeds),
            budget: Some(agenteval_engine::campaign::Budget {
                max_sessions: Some(20),
                max_turns: Some(4),
                min_interval_minutes: Some(0.0),
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    let mut made: Vec<ExplorationSession> = Vec::new();
    for i in 0..9 {
        let (persona, goal) = [("novice", "mail"), ("expert", "mail"), ("expert", "refund")][i % 3];
        let s = p
            .create_session(CreateSession {
                campaign_id: c.id,
                persona: json!({"name": persona}),
                goal: json!(goal),
                seed_ref: Some(SeedRef {
                    persona_id: persona.into(),
                    goal_id: goal.into(),
                    variant: None,
                }),
                trigger: Some(Trigger::Manual),
                played_by: None,
                user_model: None,
            })
            .await
            .unwrap();
        if i % 2 == 0 {
            p.close_session(
                s.id,
                CloseSession {
                    goal_achieved: true,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        }
        made.push(s);
        tp.clock.advance(Duration::seconds(1));
    }
    // One session without a seed.
    let unseeded = p
        .create_session(CreateSession {
            campaign_id: c.id,
            persona: json!("someone"),
            goal: json!("something"),
            seed_ref: None,
            trigger: Some(Trigger::Manual),
            played_by: None,
            user_model: None,
        })
        .await
        .unwrap();
    let all = p.list_sessions(c.id).await.unwrap();
    assert_eq!(all.len(), 10);
    let ids = |s: &[ExplorationSession]| s.iter().map(|s| s.id).collect::<Vec<_>>();
    let expected = |pred: &dyn Fn(&ExplorationSession) -> bool| -> Vec<SessionId> {
        all.iter().filter(|s| pred(s)).map(|s| s.id).collect()
    };
    let search = |q: SessionQuery| async move { p.search_sessions(c.id, q).await.unwrap() };

    let page = search(SessionQuery::default()).await;
    assert_eq!((page.total, ids(&page.sessions)), (10, ids(&all)));
    let completed = search(SessionQuery {
        status: Some(SessionStatus::Completed),
        ..Default::default()
    })
    .await;
    assert_eq!(
        ids(&completed.sessions),
        expected(&|s| s.status == SessionStatus::Completed)
    );
    assert_eq!(completed.total, 5, "sessions 0, 2, 4, 6, 8 were closed");
    let seed = |s: &ExplorationSession| {
        s.seed_ref
            .as_ref()
            .map(|r| (r.persona_id.clone(), r.goal_id.clone()))
    };
    let expert = search(SessionQuery {
        persona_id: Some("expert".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(
        ids(&expert.sessions),
        expected(&|s| seed(s).is_some_and(|(p, _)| p == "expert"))
    );
    assert_eq!(expert.total, 6);
    let running_mail = search(SessionQuery {
        status: Some(SessionStatus::Running),
        goal_id: Some("mail".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(
        ids(&running_mail.sessions),
        expected(&|s| {
            s.status == SessionStatus::Running && seed(s).is_some_and(|(_, g)| g == "mail")
        }),
        "filters combine"
    );
    let chosen = vec![
        made[7].id,
        unseeded.id,
        made[1].id,
        agenteval_engine::SessionId(Uuid::now_v7()),
    ];
    let by_ids = search(SessionQuery {
        ids: Some(chosen),
        ..Default::default()
    })
    .await;
    assert_eq!(
        ids(&by_ids.sessions),
        vec![made[1].id, made[7].id, unseeded.id],
        "the named sessions that exist, in start order"
    );
    assert_eq!(by_ids.total, 3);

    let mut paged = Vec::new();
    for offset in [0, 4, 8, 12] {
        let page = search(SessionQuery {
            offset: Some(offset),
            limit: Some(4),
            ..Default::default()
        })
        .await;
        assert_eq!(page.total, 10);
        paged.extend(ids(&page.sessions));
    }
    assert_eq!(
        paged,
        ids(&all),
        "pages of 4 put together give every session"
    );

    let e = p
        .search_sessions(
            c.id,
            SessionQuery {
                limit: Some(1000),
                ..Default::default()
            },
        )
        .await
        .expect_err("too large a page is refused, not clamped");
    assert_eq!(e.code(), ErrorCode::InvalidInput);
    assert!(e.body.message.contains("1 to 500"), "{}", e.body.message);
    let e = p
        .search_sessions(
            c.id,
            SessionQuery {
                ids: Some(vec![SessionId(Uuid::now_v7()); 501]),
                ..Default::default()
            },
        )
        .await
        .expect_err("too many ids");
    assert_eq!(e.code(), ErrorCode::InvalidInput);

    // The sessions CSV, written a page of sessions at a time, is the text
    // of every session rendered at once, whatever the page.
    use futures::TryStreamExt;
    let lang = agenteval_engine::Lang::Zh;
    let whole = agenteval_engine::export::sessions_csv(&all, lang);
    assert_eq!(whole.lines().count(), 11, "a header and ten sessions");
    for page in [1, 3, 1000] {
        let chunks: Vec<String> = p
            .export_paged(
                c.id,
                agenteval_engine::export::ExportFormat::SessionsCsv,
                lang,
                page,
            )
            .await
            .expect("export")
            .try_collect()
            .await
            .expect("every chunk");
        assert_eq!(chunks.len(), 10usize.div_ceil(page as usize) + 2);
        assert_eq!(chunks.concat(), whole, "in pages of {page}");
    }
}
