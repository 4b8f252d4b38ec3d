//! Report rendering and exports as pure functions (data in, text out),
//! with golden files; comparison, analysis and review on real data.

use crate::support::{SeqIds, assert_golden, platform, t0};
use agenteval_engine::Platform;
use agenteval_engine::analysis::{Analysis, Claim};
use agenteval_engine::campaign::{
    Budget, Campaign, CampaignStatus, CreateCampaign, Line, Plan, PlanEntry, SeedSet,
};
use agenteval_engine::checks::CheckResult;
use agenteval_engine::comparison::{PassAtK, PeriodComparison, PeriodDelta};
use agenteval_engine::export::{junit, markdown, runs_csv};
use agenteval_engine::fixed::{Run, RunMetrics, Verdict};
use agenteval_engine::report::{
    CampaignReport, FailingCheck, FixedSummary, GroupStat, ScenarioStat, Tally,
};
use agenteval_engine::review::{CreateReview, SubjectKind};
use agenteval_engine::scenario::{Scenario, ScenarioTurn};
use agenteval_engine::target::TargetSettings;
use chrono::Duration;
use std::sync::Arc;
use uuid::Uuid;

fn id(n: u128) -> Uuid {
    Uuid::from_u128(0x0190_0000_0000_7000_8000_0000_0000_0000 | n)
}

fn tally(p: u32, f: u32, e: u32) -> Tally {
    Tally::of(p, f, e)
}

fn fixture(name: &str) -> CampaignReport {
    let campaign = Campaign {
        id: agenteval_engine::CampaignId(id(1)),
        name: name.into(),
        target_id: agenteval_engine::TargetId(id(2)),
        status: CampaignStatus::Finalized,
        line: Line::Accelerated,
        window_start: t0(),
        window_end: t0() + Duration::hours(1),
        time_scale: 168.0,
        plan: Plan {
            entries: vec![PlanEntry {
                scenario_id: "email.happy".into(),
                rounds: Some(2),
                ..Default::default()
            }],
        },
        seed_set: SeedSet::default(),
        budget: None,
        effective_budget: Budget::default().effective(),
        seed_fingerprint: "f".into(),
        last_patrolled_at: None,
        previous_campaign_id: None,
        tool_env: None,
        finalized_at: Some(t0() + Duration::hours(1)),
        created_at: t0(),
        updated_at: t0(),
    };
    CampaignReport {
        campaign,
        target_name: "Demo agent".into(),
        target_model: "builtin:demo".into(),
        generated_at: t0() + Duration::hours(2),
        fixed: FixedSummary {
            runs_planned: 4,
            runs_finished: 4,
            runs_pending: 0,
            runs_skipped: 0,
            passed: 2,
            failed: 1,
            errors: 1,
            pass_rate: Some(2.0 / 3.0),
            pass_rate_interval: agenteval_engine::domain::stats::wilson(2, 3),
            completion_rate: Some(0.75),
            key_field_coverage: Some(0.5),
            latency_p50_ms: Some(12),
            latency_p95_ms: Some(40),
            tokens_in: 120,
            tokens_out: 80,
            cost: 0.0012,
            per_scenario: vec![ScenarioStat {
                scenario_id: "email.happy".into(),
                title: "Send an email".into(),
                pack: "send_email".into(),
                group: Some("basic".into()),
                runs: 4,
                tally: tally(2, 1, 1),
                latency_ms_mean: Some(15.0),
                failing_checks: vec![FailingCheck {
                    kind: "contains".into(),
                    detail: "reply lacks \"sent\"".into(),
                    count: 1,
                    example_run_id: agenteval_engine::RunId(id(10)),
                }],
            }],
            per_tag: vec![GroupStat {
                name: "email".into(),
                runs: 4,
                tally: tally(2, 1, 1),
            }],
            per_group: vec![],
            per_group_tasks: vec![group_tasks("basic", 3, Some(2.0 / 3.0), 2.5, 1250.0)],
            error_reasons: vec![],
            timeline: vec![],
        },
        exploration: None,
        analysis: None,
        comparison: None,
        human_review: None,
        models: Default::default(),
        judge_calibration: None,
        provenance: Default::default(),
        evidence: agenteval_engine::domain::evidence::EvidenceNames {
            runs: vec![agenteval_engine::domain::evidence::RunName {
                id: agenteval_engine::RunId(id(10)),
                scenario: "Send an email".into(),
                number: 3,
            }],
            sessions: vec![],
        },
        guarded: vec![],
    }
}

fn analysis() -> Analysis {
    Analysis {
        id: id(20),
        campaign_id: agenteval_engine::CampaignId(id(1)),
        model: "template".into(),
        offline: true,
        summary: "Template analysis (no analyst model). Pass rate 66.7%.".into(),
        claims: vec![Claim {
            text: "Scenario \"Send an email\" fails 1 of 3 judged runs.".into(),
            run_ids: vec![id(10).to_string()],
            ..Default::default()
        }],
        fallback_reason: None,
        output_mode: None,
        lang: None,
        created_at: t0() + Duration::hours(2),
    }
}

fn comparison() -> PeriodComparison {
    PeriodComparison {
        campaign_id: agenteval_engine::CampaignId(id(1)),
        pass_rate: Some(2.0 / 3.0),
        judged_runs: 3,
        pass_at_k: vec![
            PassAtK {
                k: 1,
                value: 2.0 / 3.0,
                scenarios: 1,
            },
            PassAtK {
                k: 2,
                value: 1.0 / 3.0,
                scenarios: 1,
            },
        ],
        within_period_flip_rate: Some(1.0),
        periods: vec![PeriodDelta {
            campaign_id: agenteval_engine::CampaignId(id(30)),
            campaign_name: "Week 47".into(),
            window_start: t0() - Duration::days(7),
            pass_rate: Some(0.5),
            judged_runs: 4,
            delta: Some(1.0 / 6.0),
            ci_low: Some(-0.5),
            ci_high: Some(0.75),
            within_noise: true,
            flip_rate: Some(0.0),
            flipped_scenarios: vec![],
            warnings: vec!["the judge model differs between the periods".into()],
            verdict: "Pass rate changed by +16.7 points, within noise.".into(),
            tasks: vec![group_tasks("basic", 2, Some(0.5), 3.0, 900.0)],
        }],
        tasks: vec![group_tasks("basic", 3, Some(2.0 / 3.0), 2.5, 1250.0)],
    }
}

/// A row of seed 002's table.
fn group_tasks(
    group: &str,
    runs: u32,
    completion_rate: Option<f64>,
    steps_mean: f64,
    latency_ms_mean: f64,
) -> agenteval_engine::domain::report::GroupTasks {
    agenteval_engine::domain::report::GroupTasks {
        group: group.into(),
        runs,
        completion_rate,
        key_field_coverage: Some(0.75),
        steps_mean: Some(steps_mean),
        tokens_mean: Some(640.0),
        latency_ms_mean: Some(latency_ms_mean),
    }
}

#[test]
fn markdown_without_exploration_matches_golden() {
    assert_golden(
        "report_fixed_only.md",
        &markdown(&fixture("Week 48"), agenteval_engine::Lang::En),
    );
}

#[test]
fn markdown_appendices_come_in_order_analysis_then_comparison() {
    let mut r = fixture("Week 48");
    r.analysis = Some(analysis());
    r.comparison = Some(comparison());
    let md = markdown(&r, agenteval_engine::Lang::En);
    assert_golden("report_with_analysis_and_comparison.md", &md);
    let a = md.find("## Appendix: Analysis").expect("analysis appendix");
    let c = md
        .find("## Appendix: Period comparison")
        .expect("comparison appendix");
    assert!(a < c, "analysis comes before period comparison");
    assert!(
        md.starts_with(&markdown(&fixture("Week 48"), agenteval_engine::Lang::En)),
        "appendices only add to the report; the body is unchanged"
    );
}

#[test]
fn the_template_analysis_cites_a_run_once_when_two_of_its_checks_fail() {
    let mut r = fixture("Week 48");
    let first = r.fixed.per_scenario[0].failing_checks[0].clone();
    r.fixed.per_scenario[0].failing_checks.push(FailingCheck {
        kind: "tool_called".into(),
        detail: "the agent called send_email".into(),
        ..first.clone()
    });
    let (_, claims) = agenteval_engine::analysis::template_analysis(&r, &[]);
    let cited: Vec<&Vec<String>> = claims
        .iter()
        .map(|c| &c.run_ids)
        .filter(|ids| !ids.is_empty())
        .collect();
    assert_eq!(
        cited,
        vec![&vec![first.example_run_id.to_string()]],
        "the scenario's claim names its example run once"
    );
}

#[test]
fn agent_text_cannot_break_the_document() {
    let corpus = [
        "| col | col |",
        "# Heading injected",
        "```\ncode fence\n```",
        "<script>alert('x')</script><img src=x onerror=alert(1)>",
        &"very long line ".repeat(400),
        "中文名称 | 管道 # 标题",
        "line one\nline two\r\n- list item",
    ];
    for (i, nasty) in corpus.iter().enumerate() {
        let mut r = fixture(nasty);
        r.target_name = nasty.to_string();
        r.fixed.per_scenario[0].title = nasty.to_string();
        r.fixed.per_scenario[0].failing_checks[0].detail = nasty.to_string().into();
        let mut a = analysis();
        a.summary = nasty.to_string().into();
        a.claims[0].text = nasty.to_string().into();
        r.analysis = Some(a);
        let md = markdown(&r, agenteval_engine::Lang::En);
        let headings: Vec<&str> = md.lines().filter(|l| l.starts_with('#')).collect();
        assert_eq!(
            headings.len(),
            markdown(
                &{
                    let mut clean = fixture("clean");
                    clean.analysis = Some(analysis());
                    clean
                },
                agenteval_engine::Lang::En
            )
            .lines()
            .filter(|l| l.starts_with('#'))
            .count(),
            "case {i}: no heading is added or removed"
        );
        assert!(!md.contains("```"), "case {i}: no code fence opens");
        assert!(!md.contains("<script"), "case {i}: no raw HTML");
        for line in md.lines().filter(|l| l.starts_with('|')) {
            let unescaped = line.replace("\\|", "");
            let cells = unescaped.matches('|').count();
            assert!(
                cells == 3 || cells == 8 || cells == 7 || cells == 5,
                "case {i}: table row keeps its cells: {line}"
            );
        }
    }
}

fn run(seq: u32, verdict: Verdict, checks: Vec<CheckResult>, reason: Option<&str>) -> Run {
    Run {
        id: agenteval_engine::RunId(id(100 + u128::from(seq))),
        campaign_id: agenteval_engine::CampaignId(id(1)),
        scenario_id: "email.happy".into(),
        seq,
        offset_ms: 0,
        scheduled_at: t0(),
        status: "done".into(),
        verdict: Some(verdict),
        check_results: checks,
        metrics: Some(RunMetrics {
            turns: 1,
            completed: verdict != Verdict::Error,
            latency_ms_total: 1500,
            ..Default::default()
        }),
        error_reason: reason.map(str::to_string),
        error: reason.map(agenteval_engine::domain::run::RunError::of),
        started_at: Some(t0()),
        finished_at: Some(t0()),
        attempts: 1,
    }
}

#[test]
fn junit_and_csv_are_well_formed() {
    let failed_check = CheckResult {
        step: None,
        turn: 0,
        kind: "contains".into(),
        passed: false,
        detail: "reply lacks \"sent\" & <ok>".into(),
        score: None,
        judged_by: None,
    };
    let runs = vec![
        run(0, Verdict::Passed, vec![], None),
        run(1, Verdict::Failed, vec![failed_check], None),
        run(2, Verdict::Error, vec![], Some("target_error: timeout")),
        run(3, Verdict::Skipped, vec![], Some("window_ended")),
    ];
    let xml = junit(
        &fixture("Week <48> & co"),
        &runs,
        agenteval_engine::Lang::En,
    );
    // Parse it back: the structure must be valid XML with the right counts.
    let mut reader = quick_xml::Reader::from_str(&xml);
    let (mut cases, mut failures, mut errors, mut skipped) = (0, 0, 0, 0);
    loop {
        match reader.read_event().expect("valid XML") {
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => {
                match e.name().as_ref() {
                    b"testcase" => cases += 1,
                    b"failure" => failures += 1,
                    b"error" => errors += 1,
                    b"skipped" => skipped += 1,
                    _ => {}
                }
            }
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!((cases, failures, errors, skipped), (4, 1, 1, 1));

    let csv_text = runs_csv(&runs, agenteval_engine::Lang::En);
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("valid CSV")).collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(&rows[1][5], "failed");
    assert!(
        rows[1][14].contains("reply lacks"),
        "failed checks are listed"
    );
    assert_eq!(
        &rows[2][6], "target error: timeout",
        "the reason for people: its kind named, a stored sentence as it is"
    );
}

fn scenario(id: &str) -> Scenario {
    Scenario {
        max_steps: None,
        workspace: None,
        id: id.into(),
        title: id.into(),
        pack: "t".into(),
        tags: vec![],
        group: None,
        system: None,
        facts: vec![],
        key_fields: vec![],
        tools: Default::default(),
        turns: vec![ScenarioTurn {
            max_steps: None,
            user: "hello".into(),
            checks: vec![],
        }],
        source_file: "t.yaml".into(),
        shipped: false,
        source_line: 1,
        content_hash: "h".into(),
        lineage: None,
        from_traces: None,
    }
}

async fn finished_campaign(p: &Arc<Platform>, target: Uuid, name: &str) -> Uuid {
    let c = p
        .create_campaign(CreateCampaign {
            name: name.into(),
            target_id: agenteval_engine::TargetId(target),
            plan: Some(Plan {
                entries: vec![PlanEntry {
                    scenario_id: "s".into(),
                    rounds: Some(3),
                    ..Default::default()
                }],
            }),
            duration_hours: Some(1.0),
            time_scale: Some(3600.0),
            ..Default::default()
        })
        .await
        .unwrap();
    c.id.into()
}

#[tokio::test]
async fn comparison_next_period_analysis_and_reviews_on_real_data() {
    let tp = platform().await;
    let p = &tp.platform;
    p.scenarios.insert_all([scenario("s")]);
    let target = p
        .create_target(TargetSettings::builtin_demo("Demo"))
        .await
        .unwrap()
        .id;
    let first = finished_campaign(p, target.into(), "first").await;
    tp.clock.advance(Duration::seconds(5));
    p.tick().await.unwrap();
    assert!(
        p.campaign_report(agenteval_engine::CampaignId(first))
            .await
            .unwrap()
            .comparison
            .is_none(),
        "no earlier period"
    );

    let second = p
        .next_period(
            agenteval_engine::CampaignId(first),
            Default::default(),
            agenteval_engine::Lang::En,
        )
        .await
        .unwrap();
    assert_eq!(second.previous_campaign_id, Some(first));
    assert_eq!(
        second.plan,
        p.get_campaign(agenteval_engine::CampaignId(first))
            .await
            .unwrap()
            .plan,
        "same plan"
    );
    tp.clock.advance(Duration::seconds(5));
    p.tick().await.unwrap();
    let report = p.campaign_report(second.id).await.unwrap();
    let cmp = report.comparison.expect("compared with the first period");
    assert_eq!(cmp.periods.len(), 1);
    assert_eq!(
        cmp.periods[0].delta,
        Some(0.0),
        "same agent, same scenarios"
    );
    assert!(cmp.periods[0].within_noise, "no change is within noise");
    assert!(
        cmp.periods[0].warnings.is_empty(),
        "same models: no warning"
    );

    let a = p
        .generate_analysis(second.id, None, agenteval_engine::Lang::En)
        .await
        .unwrap();
    assert!(
        a.offline && a.model == "template",
        "offline analysis is labelled"
    );
    assert_eq!(
        p.latest_analysis(second.id).await.unwrap().map(|x| x.id),
        Some(a.id)
    );

    let runs = p.list_runs(second.id).await.unwrap();
    p.add_review(CreateReview {
        subject_kind: SubjectKind::Run,
        subject_id: runs[0].id.into(),
        rating: 5,
        comment: "good".into(),
        judge_override: None,
    })
    .await
    .unwrap();
    p.add_review(CreateReview {
        subject_kind: SubjectKind::Run,
        subject_id: runs[1].id.into(),
        rating: 1,
        comment: "".into(),
        judge_override: None,
    })
    .await
    .unwrap();
    let err = p
        .add_review(CreateReview {
            subject_kind: SubjectKind::Run,
            subject_id: runs[1].id.into(),
            rating: 6,
            comment: "".into(),
            judge_override: None,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), agenteval_engine::ErrorCode::InvalidInput);
    let h = p
        .campaign_report(second.id)
        .await
        .unwrap()
        .human_review
        .expect("ratings shown");
    assert_eq!(h.runs_rated, 2);
    assert_eq!(h.agreement, Some(0.5), "the passed run rated 1 disagrees");
    let md = markdown(
        &p.campaign_report(second.id).await.unwrap(),
        agenteval_engine::Lang::En,
    );
    let a_at = md.find("## Appendix: Analysis").unwrap();
    let c_at = md.find("## Appendix: Period comparison").unwrap();
    assert!(a_at < c_at);
}

#[tokio::test]
async fn seq_ids_make_reports_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let p = Platform::builder(dir.path())
        .ids(Arc::new(SeqIds::default()))
        .open()
        .await
        .unwrap();
    let t = p
        .create_target(TargetSettings::builtin_demo("Demo"))
        .await
        .unwrap();
    assert_eq!(
        t.id,
        agenteval_engine::TargetId(id(1)),
        "ids come from the injected source"
    );
}

#[tokio::test]
async fn the_analyst_model_gets_figures_never_conversations_and_must_answer_usably() {
    use agenteval_engine::campaign::{Goal, Persona};
    use agenteval_engine::exploration::{CloseSession, CreateSession, SendMessage, Trigger};
    use agenteval_engine::role_models::FakeChatClient;
    let tp = platform().await;
    let p = &tp.platform;
    p.scenarios.insert_all([scenario("s")]);
    let target = p
        .create_target(TargetSettings::builtin_demo("Demo"))
        .await
        .unwrap()
        .id;
    let c = p
        .create_campaign(CreateCampaign {
            name: "with exploration".into(),
            target_id: target,
            scenario_ids: Some(vec!["s".into()]),
            duration_hours: Some(24.0),
            seed_set: Some(SeedSet {
                personas: vec![Persona {
                    id: "p".into(),
                    name: "P".into(),
                    ..Default::default()
                }],
                goals: vec![Goal {
                    id: "g".into(),
                    title: "G".into(),
                    ..Default::default()
                }],
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    p.tick().await.unwrap();
    let before = p.campaign_report(c.id).await.unwrap();
    assert!(
        before.exploration.is_none(),
        "no exploration key before any session"
    );
    let s = p
        .create_session(CreateSession {
            campaign_id: c.id,
            persona: serde_json::json!({"name": "P"}),
            goal: serde_json::json!("G"),
            seed_ref: None,
            trigger: Some(Trigger::Manual),
            played_by: None,
            user_model: None,
        })
        .await
        .unwrap();
    let secret_line = "a very particular sentence only the conversation contains";
    p.send_message(
        s.id,
        SendMessage {
            content: secret_line.into(),
        },
    )
    .await
    .unwrap();
    p.close_session(
        s.id,
        CloseSession {
            goal_achieved: false,
            blockers: Some(vec!["could not finish".into()]),
            ..Default::default()
        },
    )
    .await
    .unwrap();

    let after = p.campaign_report(c.id).await.unwrap();
    assert!(
        after.exploration.is_some(),
        "the exploration block appears with the first session"
    );
    assert_eq!(
        after.fixed, before.fixed,
        "exploration never changes any fixed-scenario figure"
    );

    let answer = format!(
        r#"Here you go: {{"summary": "Fixed line fine; exploration found a blocker.", "claims": [{{"text": "blocked", "run_ids": [], "session_ids": ["{}"], "turn_ids": []}}]}}"#,
        s.id
    );
    let fake = FakeChatClient::new([answer]);
    let a = p
        .generate_analysis(c.id, Some(&fake), agenteval_engine::Lang::En)
        .await
        .unwrap();
    assert!(!a.offline, "the model wrote it");
    assert_eq!(a.model, "fake", "the model's identity is stored");
    assert_eq!(
        a.claims[0].session_ids,
        vec![s.id.to_string()],
        "claims cite their sessions"
    );
    let prompt: String = fake.prompts()[0]
        .iter()
        .map(|m| m.content.clone())
        .collect();
    assert!(
        prompt.contains("could not finish"),
        "the issue list is in the input"
    );
    assert!(
        !prompt.contains(secret_line),
        "whole conversations never are"
    );

    let unusable = FakeChatClient::new(["I think it went well."]);
    let b = p
        .generate_analysis(c.id, Some(&unusable), agenteval_engine::Lang::En)
        .await
        .unwrap();
    assert!(b.offline, "an unusable answer falls back to the template");
    assert!(b.fallback_reason.is_some(), "and says why");
    assert_eq!(
        p.latest_analysis(c.id).await.unwrap().map(|x| x.id),
        Some(b.id),
        "regenerable: the latest counts"
    );
}

/// A failed run of an agent that acts: a failing call repeated, then the
/// right one; agent text that tries to break the document.
fn failed_run_steps() -> Vec<agenteval_engine::export::RunSteps> {
    use agenteval_engine::domain::chat::ToolCall;
    use agenteval_engine::domain::steps::{Step, StepAnswer, ToolError};
    let step = |round: u32, path: &str, answer: StepAnswer| Step {
        round,
        call: ToolCall {
            id: format!("call_{round}"),
            name: "DATA_QUERY".into(),
            arguments: serde_json::json!({ "file_path": path }),
        },
        answer,
        latency_ms: 12,
        tokens_in: None,
        tokens_out: None,
        document: None,
    };
    let missing = StepAnswer::Error(ToolError {
        code: "FILE_NOT_FOUND".into(),
        message: "文件不存在 | # <b>x</b>\n- injected".into(),
        suggestion: "先调用 FILE_LIST".into(),
    });
    let found = StepAnswer::Result(
        serde_json::json!({ "totals": { "销售额": 4300 }, "wide_note": "x".repeat(300) }),
    );
    let check = |kind: &str, step: Option<u32>| CheckResult {
        step,
        turn: 0,
        kind: kind.into(),
        passed: false,
        detail: "重复了失败的调用".into(),
        score: None,
        judged_by: None,
    };
    vec![agenteval_engine::export::RunSteps {
        run_id: agenteval_engine::RunId(id(101)),
        scenario_id: "email.happy".into(),
        seq: 1,
        failed_checks: vec![
            check("recovers_from_error", Some(2)),
            check("contains", None),
        ],
        turns: vec![agenteval_engine::export::TurnSteps {
            turn: 0,
            steps: vec![
                step(1, "2024Q4.xlsx", missing.clone()),
                step(2, "2024Q4.xlsx", missing),
                step(3, "2025Q4_sales.xlsx", found),
            ],
        }],
    }]
}

#[test]
fn the_exports_show_the_steps_of_failed_runs_and_nothing_without_them() {
    use agenteval_engine::export::{JsonExport, check_line, runs_csv_with_tools, steps_appendix};
    let mut report = fixture("Week 48");
    report
        .evidence
        .runs
        .push(agenteval_engine::domain::evidence::RunName {
            id: agenteval_engine::RunId(id(101)),
            scenario: "查询季度销售".into(),
            number: 2,
        });
    // JSON: without steps, the report's own JSON byte for byte.
    let plain = serde_json::to_string_pretty(&report).expect("json");
    let none = JsonExport {
        report: &report,
        failed_runs: &[],
    };
    assert_eq!(serde_json::to_string_pretty(&none).expect("json"), plain);
    let steps = failed_run_steps();
    let with = serde_json::to_value(JsonExport {
        report: &report,
        failed_runs: &steps,
    })
    .expect("json");
    assert_eq!(with["campaign"]["name"], "Week 48", "still the report");
    let s = &with["failed_runs"][0]["turns"][0]["steps"];
    assert_eq!(s[0]["answer"]["kind"], "error");
    assert_eq!(s[0]["answer"]["value"]["code"], "FILE_NOT_FOUND");
    assert_eq!(s[2]["answer"]["value"]["totals"]["销售额"], 4300);
    assert_eq!(with["failed_runs"][0]["failed_checks"][0]["step"], 2);

    // Markdown: the appendix, in Chinese, from a golden file; nothing
    // without steps; agent text escaped.
    let mut md = String::new();
    steps_appendix(&mut md, &[], &report.evidence, agenteval_engine::Lang::Zh);
    assert_eq!(md, "", "no failed run with steps, no appendix");
    steps_appendix(
        &mut md,
        &steps,
        &report.evidence,
        agenteval_engine::Lang::Zh,
    );
    assert_golden("steps_appendix_zh.md", &md);
    assert!(!md.contains("<b>") && !md.contains("\n- injected"), "{md}");
    assert!(md.contains(&format!("{}…", "x".repeat(150))) && !md.contains(&"x".repeat(300)));
    let mut en = String::new();
    steps_appendix(
        &mut en,
        &steps,
        &report.evidence,
        agenteval_engine::Lang::En,
    );
    assert!(
        en.starts_with("## Appendix: Steps of failed runs\n"),
        "{en}"
    );
    assert!(en.contains("**Turn 1** (3 steps)"), "{en}");

    // CSV: the same bytes without steps; with them, two columns at the end.
    let runs = vec![
        run(0, Verdict::Passed, vec![], None),
        run(1, Verdict::Failed, steps[0].failed_checks.clone(), None),
    ];
    let lang = agenteval_engine::Lang::En;
    assert_eq!(
        runs_csv_with_tools(&runs, &Default::default(), lang),
        runs_csv(&runs, lang)
    );
    let tools = [(
        runs[1].id,
        vec![
            "DATA_QUERY".to_string(),
            "DATA_QUERY".into(),
            "FILE_LIST".into(),
        ],
    )]
    .into_iter()
    .collect();
    let csv_text = runs_csv_with_tools(&runs, &tools, lang);
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header = reader.headers().expect("header").clone();
    assert_eq!(header.len(), 17);
    assert_eq!(
        (&header[14], &header[15], &header[16]),
        ("failed_checks", "steps", "tools")
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
    assert_eq!((&rows[0][15], &rows[0][16]), ("0", ""));
    assert_eq!(
        (&rows[1][15], &rows[1][16]),
        ("3", "DATA_QUERY > DATA_QUERY > FILE_LIST")
    );

    // JUnit: the check and, when it is about one, the step.
    assert_eq!(
        check_line(&steps[0].failed_checks[0], lang),
        "turn 1 recovers_from_error (step 2): 重复了失败的调用"
    );
    assert_eq!(
        check_line(&steps[0].failed_checks[1], lang),
        "turn 1 contains: 重复了失败的调用"
    );
    let xml = junit(&fixture("Week 48"), &runs, lang);
    assert!(
        xml.contains("message=\"turn 1 recovers_from_error (step 2): "),
        "{xml}"
    );
}

#[tokio::test]
async fn the_next_period_says_what_it_will_run_regressions_included() {
    use agenteval_engine::campaign::AddedScenario;
    use agenteval_engine::domain::ids::{CampaignId, SessionId};
    use agenteval_engine::scenario::Lineage;
    let tp = platform().await;
    let p = &tp.platform;
    p.scenarios.insert_all([scenario("s")]);
    let target = p
        .create_target(TargetSettings::builtin_demo("Demo"))
        .await
        .unwrap()
        .id;
    let first = CampaignId(finished_campaign(p, target.into(), "first").await);
    // A regression scenario drafted from a finding of this campaign.
    let mut guard = scenario("guard");
    guard.title = "Guards the finding".into();
    guard.lineage = Some(Lineage {
        campaign_id: first,
        session_id: SessionId(Uuid::nil()),
        turn: 1,
        finding: "repeated itself".into(),
    });
    p.scenarios.insert_all([guard]);

    let plan = p.next_period_plan(first).await.unwrap();
    assert_eq!(
        plan.runs, 4,
        "three rounds of the plan, and the regression once"
    );
    assert_eq!(
        plan.added,
        vec![AddedScenario {
            id: "guard".into(),
            title: "Guards the finding".into()
        }]
    );
    let next = p
        .next_period(first, Default::default(), agenteval_engine::Lang::En)
        .await
        .unwrap();
    assert_eq!(
        (next.window_start, next.window_end),
        (plan.window_start, plan.window_end)
    );
    let report = p.campaign_report(next.id).await.unwrap();
    assert_eq!(
        report.fixed.runs_planned, plan.runs,
        "what was said is what runs"
    );
}
