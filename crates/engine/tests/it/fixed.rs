//! The fixed-plan engine: schedule in campaign time, execution, persistence
//! of every turn, finalize, and restart safety.

use crate::support::{platform, t0};
use agenteval_engine::campaign::{CampaignStatus, CreateCampaign, Plan, PlanEntry};
use agenteval_engine::domain::ids::{CampaignId, RunId, TargetId};
use agenteval_engine::fixed::Verdict;
use agenteval_engine::scenario::{Scenario, ScenarioTurn};
use agenteval_engine::target::TargetSettings;
use agenteval_engine::{ErrorCode, Platform};
use chrono::Duration;
use uuid::Uuid;

/// A scenario without checks: it passes exactly when every turn got a
/// reply, so these tests depend only on the engine, not on check logic.
fn scenario(id: &str, turns: usize) -> Scenario {
    Scenario {
        max_steps: None,
        workspace: None,
        id: id.into(),
        title: format!("Scenario {id}"),
        pack: "test".into(),
        tags: vec!["smoke".into()],
        group: Some("basic".into()),
        system: None,
        facts: vec![],
        key_fields: vec![],
        tools: Default::default(),
        turns: (0..turns)
            .map(|i| ScenarioTurn {
                max_steps: None,
                user: format!("hello {i}"),
                checks: vec![],
            })
            .collect(),
        source_file: "test.yaml".into(),
        shipped: false,
        source_line: 1,
        content_hash: format!("hash-{id}"),
        lineage: None,
        from_traces: None,
    }
}

/// A campaign of `entries` over a window of `hours` against `target`.
fn planned(target: Uuid, entries: Vec<PlanEntry>, hours: f64) -> CreateCampaign {
    CreateCampaign {
        name: "plan".into(),
        target_id: agenteval_engine::TargetId(target),
        plan: Some(Plan { entries }),
        duration_hours: Some(hours),
        ..Default::default()
    }
}

async fn demo_target(p: &Platform) -> Uuid {
    p.create_target(TargetSettings::builtin_demo("Demo"))
        .await
        .expect("create target")
        .id
        .into()
}

/// A target nothing listens on: every request fails to connect.
async fn dead_target(p: &Platform) -> Uuid {
    let req = TargetSettings {
        max_retries: Some(0),
        timeout_ms: Some(500),
        ..TargetSettings::openai("Dead", "http://127.0.0.1:9/v1", "none")
    };
    p.create_target(req).await.expect("create target").id.into()
}

fn rounds(id: &str, n: u32) -> PlanEntry {
    PlanEntry {
        scenario_id: id.into(),
        rounds: Some(n),
        ..Default::default()
    }
}

#[tokio::test]
async fn runs_execute_when_due_in_campaign_time_and_the_window_finalizes() {
    let tp = platform().await;
    let p = &tp.platform;
    p.scenarios.insert_all([scenario("a", 2)]);
    let target = demo_target(p).await;
    // One week of campaign time at time scale 168 lasts one real hour; four
    // rounds are due at 0, 15, 30 and 45 real minutes.
    let c = p
        .create_campaign(CreateCampaign {
            name: "week".into(),
            target_id: agenteval_engine::TargetId(target),
            plan: Some(Plan {
                entries: vec![rounds("a", 4)],
            }),
            duration_hours: Some(168.0),
            time_scale: Some(168.0),
            ..Default::default()
        })
        .await
        .expect("create campaign");
    assert_eq!(
        c.status,
        CampaignStatus::Running,
        "a window starting now is running"
    );
    assert_eq!(
        c.window_end - c.window_start,
        Duration::hours(1),
        "168 h at scale 168 is one real hour"
    );

    let t = p.tick().await.unwrap();
    assert_eq!(
        t.runs_executed, 1,
        "only the first round is due at the window start"
    );
    tp.clock.advance(Duration::minutes(20));
    assert_eq!(
        p.tick().await.unwrap().runs_executed,
        1,
        "the 15-minute round is due at 20 minutes"
    );
    tp.clock.advance(Duration::minutes(50));
    let t = p.tick().await.unwrap();
    assert_eq!(
        t.runs_executed, 2,
        "the remaining rounds are due after the window"
    );
    assert_eq!(
        t.finalized_campaigns, 1,
        "the campaign finalizes once its window ended and runs are done"
    );

    let runs = p.list_runs(c.id).await.unwrap();
    assert_eq!(runs.len(), 4);
    assert!(
        runs.iter().all(|r| r.verdict == Some(Verdict::Passed)),
        "check-less runs with replies pass"
    );
    let turns = p.run_turns(runs[0].id).await.unwrap();
    assert_eq!(
        turns.len(),
        4,
        "two user turns and two target replies are stored"
    );
    assert_eq!(turns[0].role, "user");
    assert_eq!(turns[1].role, "target");
    assert!(!turns[1].content.is_empty(), "the demo agent answered");

    let report = p.campaign_report(c.id).await.unwrap();
    assert_eq!(report.fixed.passed, 4);
    assert_eq!(report.fixed.pass_rate, Some(1.0));
    assert_eq!(report.campaign.status, CampaignStatus::Finalized);
    assert!(
        report.exploration.is_none(),
        "no exploration data, no exploration block"
    );
}

#[tokio::test]
async fn target_errors_are_counted_apart_from_the_pass_rate() {
    let tp = platform().await;
    let p = &tp.platform;
    p.scenarios.insert_all([scenario("a", 1)]);
    let good = demo_target(p).await;
    let dead = dead_target(p).await;
    let ok = p
        .create_campaign(CreateCampaign {
            name: "ok".into(),
            target_id: agenteval_engine::TargetId(good),
            scenario_ids: Some(vec!["a".into()]),
            duration_hours: Some(1.0),
            ..Default::default()
        })
        .await
        .unwrap();
    let bad = p
        .create_campaign(CreateCampaign {
            name: "bad".into(),
            target_id: agenteval_engine::TargetId(dead),
            scenario_ids: Some(vec!["a".into()]),
            duration_hours: Some(1.0),
            ..Default::default()
        })
        .await
        .unwrap();
    p.tick().await.unwrap();
    let bad_report = p.campaign_report(bad.id).await.unwrap();
    assert_eq!(
        bad_report.fixed.errors, 1,
        "an unreachable target makes the run an error"
    );
    assert_eq!(
        bad_report.fixed.pass_rate, None,
        "errors never enter the pass rate"
    );
    assert_eq!(bad_report.fixed.error_reasons.len(), 1);
    let runs = p.list_runs(bad.id).await.unwrap();
    assert!(
        runs[0]
            .error_reason
            .as_deref()
            .unwrap_or_default()
            .contains("target_error"),
        "the reason says the target failed: {:?}",
        runs[0].error_reason
    );
    let said = runs[0]
        .error
        .as_ref()
        .expect("the reason for people")
        .text();
    assert_eq!(
        said.render(agenteval_engine::Lang::Zh),
        "评测对象出错：127.0.0.1:9 上没有服务在监听",
        "in the reader's words, as the connection test says it"
    );
    assert_eq!(
        said.render(agenteval_engine::Lang::En),
        "target error: nothing is listening at 127.0.0.1:9"
    );
    // The analysis says every run errored, and why, citing the run; it
    // never claims there is nothing to report.
    let analysis = p
        .generate_analysis(bad.id, None, agenteval_engine::Lang::Zh)
        .await
        .unwrap();
    let summary = analysis.summary.render(agenteval_engine::Lang::Zh);
    assert!(
        summary.contains("1 次运行全部出错") && !summary.contains("没有未通过的场景"),
        "{summary}"
    );
    let claim = &analysis.claims[0];
    assert_eq!(
        claim.text.render(agenteval_engine::Lang::Zh),
        "1 次运行出错：评测对象出错：127.0.0.1:9 上没有服务在监听。"
    );
    assert_eq!(
        claim.text.render(agenteval_engine::Lang::En),
        "1 run ended in error: target error: nothing is listening at 127.0.0.1:9."
    );
    assert_eq!(claim.run_ids, vec![runs[0].id.to_string()]);
    let ok_report = p.campaign_report(ok.id).await.unwrap();
    assert_eq!(
        ok_report.fixed.pass_rate,
        Some(1.0),
        "the other campaign is unaffected"
    );
}

#[tokio::test]
async fn runs_are_claimed_ahead_only_in_proportion_to_the_targets_concurrency() {
    use crate::fault_server::{Fault, FaultServer, completion};
    let tp = platform().await;
    let p = &tp.platform;
    p.scenarios.insert_all([scenario("a", 1)]);
    // Every request waits until the gate opens: the runs pile up.
    let server =
        FaultServer::start(vec![Fault::Gated(Box::new(Fault::Ok(completion("ok"))))]).await;
    let req = TargetSettings {
        concurrency: Some(2),
        max_retries: Some(0),
        ..TargetSettings::openai("Gated", &server.base_url(), "m")
    };
    let target = p.create_target(req).await.unwrap().id;
    let c = p
        .create_campaign(planned(target.into(), vec![rounds("a", 100)], 1.0))
        .await
        .unwrap();
    tp.clock.advance(Duration::hours(2));

    let stepping = p.clone();
    let tick = tokio::spawn(async move { stepping.tick().await });
    while server.in_flight() < 2 {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let running: i64 = p.inspect().run_count_with_status("running").await.unwrap();
    assert_eq!(
        running as usize,
        2 * agenteval_engine::fixed::RUNS_PER_SLOT,
        "two request slots: that many runs claimed, the rest still pending"
    );
    assert_eq!(server.max_in_flight(), 2, "the target's limit holds");

    server.open_gate();
    assert_eq!(tick.await.unwrap().unwrap().runs_executed, 100);
    let report = p.campaign_report(c.id).await.unwrap();
    assert_eq!(report.fixed.passed, 100, "every run ran once and passed");
}

#[tokio::test]
async fn a_large_plan_stores_every_run_once_in_plan_order() {
    let tp = platform().await;
    let p = &tp.platform;
    p.scenarios.insert_all([scenario("a", 1), scenario("b", 1)]);
    let target = demo_target(p).await;
    // Runs are inserted by hundreds per statement: 1,201 crosses several
    // statements and ends with a partial one.
    let c = p
        .create_campaign(planned(
            target,
            vec![rounds("a", 600), rounds("b", 601)],
            1.0,
        ))
        .await
        .unwrap();
    let runs = p.list_runs(c.id).await.unwrap();
    assert_eq!(runs.len(), 1201);
    assert!(runs.iter().enumerate().all(|(i, r)| r.seq as usize == i));
    let ids: std::collections::HashSet<RunId> = runs.iter().map(|r| r.id).collect();
    assert_eq!(ids.len(), 1201, "every run has its own id");
    let per = |id: &str| runs.iter().filter(|r| r.scenario_id == id).count();
    assert_eq!((per("a"), per("b")), (600, 601));
    assert!(
        runs.iter()
            .all(|r| r.status == "pending" && r.campaign_id == c.id)
    );
    assert!(
        runs.windows(2).all(|w| w[0].offset_ms <= w[1].offset_ms),
        "plan order is time order"
    );
}

#[tokio::test]
async fn explicit_finalize_skips_unstarted_runs_and_is_idempotent() {
    let tp = platform().await;
    let p = &tp.platform;
    p.scenarios.insert_all([scenario("a", 1)]);
    let target = demo_target(p).await;
    let c = p
        .create_campaign(planned(target, vec![rounds("a", 3)], 3.0))
        .await
        .unwrap();
    p.tick().await.unwrap();
    let first = p.finalize_campaign(c.id).await.unwrap();
    assert_eq!(first.status, CampaignStatus::Finalized);
    let again = p.finalize_campaign(c.id).await.unwrap();
    assert_eq!(
        again.finalized_at, first.finalized_at,
        "a second finalize changes nothing"
    );
    let report = p.campaign_report(c.id).await.unwrap();
    assert_eq!(report.fixed.passed, 1, "the run that was due ran");
    assert_eq!(
        report.fixed.runs_skipped, 2,
        "runs not yet due are skipped, not lost"
    );
    tp.clock.advance(Duration::hours(5));
    assert_eq!(
        p.tick().await.unwrap().runs_executed,
        0,
        "a finalized campaign runs nothing more"
    );
}

#[tokio::test]
async fn a_restart_marks_cut_runs_interrupted_and_never_runs_them_twice() {
    let tp = platform().await;
    let p = &tp.platform;
    p.scenarios.insert_all([scenario("a", 2)]);
    let target = demo_target(p).await;
    let c = p
        .create_campaign(planned(target, vec![rounds("a", 2)], 2.0))
        .await
        .unwrap();
    // Simulate a crash in the middle of the first run: claimed, one turn
    // committed, never finished.
    let runs = p.list_runs(c.id).await.unwrap();
    let cut = runs[0].id;
    p.fixtures().mark_run_running(cut, 0).await.unwrap();
    p.fixtures()
        .insert_run_turn(cut, 0, "user", "hello 0", 0)
        .await
        .unwrap();
    let dir = tp.dir.path().to_path_buf();
    p.fixtures().close().await;

    // Restart on the same data folder, later in the window.
    tp.clock.advance(Duration::hours(3));
    let restarted = Platform::builder(&dir)
        .database_url(tp.database_url.clone())
        .clock(tp.clock.clone())
        .open()
        .await
        .unwrap();
    restarted.scenarios.insert_all([scenario("a", 2)]);
    assert_eq!(restarted.recover_interrupted_runs().await.unwrap(), 1);
    let t = restarted.tick().await.unwrap();
    assert_eq!(
        t.runs_executed, 1,
        "only the run that never started executes"
    );
    let runs = restarted.list_runs(c.id).await.unwrap();
    assert_eq!(runs[0].verdict, Some(Verdict::Error));
    assert_eq!(runs[0].error_reason.as_deref(), Some("interrupted"));
    assert_eq!(
        restarted.run_turns(cut).await.unwrap().len(),
        1,
        "the committed turn is kept"
    );
    assert_eq!(runs[1].verdict, Some(Verdict::Passed));
    let report = restarted.campaign_report(c.id).await.unwrap();
    assert_eq!(
        (
            report.fixed.passed,
            report.fixed.errors,
            report.fixed.runs_finished
        ),
        (1, 1, 2),
        "each run is counted exactly once"
    );
    assert_eq!(report.campaign.status, CampaignStatus::Finalized);
}

#[tokio::test]
async fn campaign_input_is_validated_with_clear_errors() {
    let tp = platform().await;
    let p = &tp.platform;
    p.scenarios.insert_all([scenario("a", 1)]);
    let target = demo_target(p).await;
    let base = CreateCampaign {
        name: "c".into(),
        target_id: agenteval_engine::TargetId(target),
        scenario_ids: Some(vec!["a".into()]),
        duration_hours: Some(1.0),
        ..Default::default()
    };
    // A field the request gets wrong is INVALID_INPUT; an id that names
    // nothing is NOT_FOUND, as it is in a path.
    let cases = [
        (
            CreateCampaign {
                scenario_ids: Some(vec!["nope".into()]),
                ..base.clone()
            },
            ErrorCode::NotFound,
        ),
        (
            CreateCampaign {
                target_id: TargetId(Uuid::now_v7()),
                ..base.clone()
            },
            ErrorCode::NotFound,
        ),
        (
            CreateCampaign {
                duration_hours: None,
                ..base.clone()
            },
            ErrorCode::InvalidInput,
        ),
        (
            CreateCampaign {
                time_scale: Some(0.5),
                ..base.clone()
            },
            ErrorCode::InvalidInput,
        ),
        (
            CreateCampaign {
                name: "  ".into(),
                ..base.clone()
            },
            ErrorCode::InvalidInput,
        ),
    ];
    for (case, code) in cases {
        let err = p
            .create_campaign(case)
            .await
            .expect_err("invalid input is refused");
        assert_eq!(err.code(), code, "{}", err.body.message);
        assert!(
            !err.body.suggestion.is_empty(),
            "every error suggests what to do"
        );
    }
    assert!(
        p.list_campaigns().await.unwrap().is_empty(),
        "nothing half-created"
    );
    let future = p
        .create_campaign(CreateCampaign {
            window_start: Some(t0() + Duration::hours(1)),
            ..base.clone()
        })
        .await
        .unwrap();
    assert_eq!(future.status, CampaignStatus::Scheduled);
    tp.clock.advance(Duration::minutes(61));
    assert_eq!(
        p.tick().await.unwrap().started_campaigns,
        1,
        "it starts when its window begins"
    );
}

/// The report reads a campaign's fixed-scenario figures from tallies kept
/// as runs finish (migration 0008). Every way a run finishes (a verdict, a
/// target error, restart recovery, finalize's skips) must leave them equal
/// to what the runs themselves add up to, and so must the backfill that
/// fills them for runs stored before the tallies existed.
#[tokio::test]
async fn the_report_tallies_equal_the_runs_on_every_path_and_after_a_backfill() {
    use agenteval_engine::report::FixedSummary;
    use agenteval_engine::scenario::Check;

    let tp = platform().await;
    let p = &tp.platform;
    let mut failing = scenario("b", 1);
    failing.turns[0].checks = vec![Check::Contains {
        value: Some("no such phrase".into()),
        any: vec![],
        case_sensitive: false,
    }];
    p.scenarios.insert_all([scenario("a", 2), failing.clone()]);
    let good = demo_target(p).await;
    let dead = dead_target(p).await;
    let week = |target| CreateCampaign {
        time_scale: Some(168.0),
        ..planned(target, vec![rounds("a", 6), rounds("b", 6)], 168.0)
    };
    let mixed = p.create_campaign(week(good)).await.unwrap();
    let errors = p.create_campaign(week(dead)).await.unwrap();
    // Half the window runs; a run is cut mid-way and recovered as
    // interrupted; finalize skips the rest.
    tp.clock.advance(Duration::minutes(20));
    p.tick().await.unwrap();
    let cut = p.list_runs(mixed.id).await.unwrap().last().unwrap().id;
    p.fixtures().mark_run_running(cut, 0).await.unwrap();
    assert_eq!(p.recover_interrupted_runs().await.unwrap(), 1);
    tp.clock.advance(Duration::minutes(10));
    p.tick().await.unwrap();
    p.finalize_campaign(mixed.id).await.unwrap();
    p.finalize_campaign(errors.id).await.unwrap();

    /// Example runs may differ between the two ways of adding up; each
    /// must be a run of the campaign that failed that check.
    fn without_examples(mut s: FixedSummary, runs: &[RunId]) -> FixedSummary {
        for check in s
            .per_scenario
            .iter_mut()
            .flat_map(|x| &mut x.failing_checks)
        {
            assert!(runs.contains(&check.example_run_id));
            check.example_run_id = RunId::default();
        }
        s
    }
    async fn run_ids(p: &Platform, c: CampaignId) -> Vec<RunId> {
        p.list_runs(c).await.unwrap().iter().map(|r| r.id).collect()
    }
    let mut before = Vec::new();
    for c in [&mixed, &errors] {
        let runs = run_ids(p, c.id).await;
        let tallied = p.fixed_summary(c, None).await.unwrap();
        let scanned = p
            .fixed_summary(c, Some(t0() - Duration::days(1)))
            .await
            .unwrap();
        assert_eq!(tallied.runs_planned, 12);
        assert_eq!(tallied.runs_pending, 0, "finalize left nothing pending");
        assert_eq!(
            without_examples(tallied.clone(), &runs),
            FixedSummary {
                runs_planned: 12,
                ..without_examples(scanned, &runs)
            }
        );
        before.push(without_examples(tallied, &runs));
    }
    let m = &before[0];
    assert!(
        m.passed > 0 && m.failed > 0 && m.errors == 1 && m.runs_skipped > 0,
        "every verdict occurs: {m:?}"
    );
    assert_eq!(m.error_reasons[0].reason, "interrupted");
    assert_eq!(m.per_scenario[1].failing_checks[0].count, m.failed);
    assert!(
        m.latency_p95_ms.is_some() && m.completion_rate < Some(1.0),
        "{m:?}"
    );
    assert!(before[1].errors > 0 && before[1].error_reasons[0].reason == "target_error");

    // The same runs as stored before migration 0008: the engine fills the
    // tallies when it next opens the database.
    p.fixtures().clear_run_tallies().await.unwrap();
    p.fixtures()
        .queue_backfills(&["run_tallies"])
        .await
        .unwrap();
    let reopened = tp.reopen().await;
    for (c, before) in [&mixed, &errors].into_iter().zip(&before) {
        let runs = run_ids(&reopened, c.id).await;
        let backfilled = reopened.fixed_summary(c, None).await.unwrap();
        assert_eq!(&without_examples(backfilled, &runs), before);
    }
}
