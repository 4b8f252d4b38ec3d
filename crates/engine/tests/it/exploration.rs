//! Tests: exploration sessions, guardrails, patrol and the findings
//! aggregation, with a manual clock so that intervals need no sleeping.

use crate::support::{TestPlatform, platform, t0};
use agenteval_engine::ErrorCode;
use agenteval_engine::campaign::{Budget, Campaign, CreateCampaign, Goal, Persona, SeedSet};
use agenteval_engine::domain::session::TurnRole;
use agenteval_engine::exploration::{
    CloseSession, CreateSession, EndReason, ExperienceRecord, SeedRef, SendMessage, SessionStatus,
    Trigger, normalize_emotion,
};
use agenteval_engine::findings::{ExplorationFindings, SessionFacts, aggregate};
use agenteval_engine::target::TargetSettings;
use chrono::Duration;
use serde_json::json;
use uuid::Uuid;

fn seeds() -> SeedSet {
    SeedSet {
        personas: vec![
            Persona {
                id: "p1".into(),
                name: "Novice".into(),
                ..Default::default()
            },
            Persona {
                id: "p2".into(),
                name: "Expert".into(),
                ..Default::default()
            },
        ],
        goals: vec![Goal {
            id: "g1".into(),
            title: "Send an email".into(),
            ..Default::default()
        }],
    }
}

async fn campaign(tp: &TestPlatform, time_scale: f64, hours: f64, budget: Budget) -> Campaign {
    let target = tp
        .platform
        .create_target(TargetSettings::builtin_demo("demo"))
        .await
        .expect("target");
    tp.platform
        .create_campaign(CreateCampaign {
            name: "week".into(),
            target_id: target.id,
            duration_hours: Some(hours),
            time_scale: Some(time_scale),
            seed_set: Some(seeds()),
            budget: Some(budget),
            ..Default::default()
        })
        .await
        .expect("campaign")
}

fn create(c: &Campaign, persona: &str, trigger: Trigger) -> CreateSession {
    CreateSession {
        campaign_id: c.id,
        persona: json!({"name": "Lin"}),
        goal: json!("send an email"),
        seed_ref: Some(SeedRef {
            persona_id: persona.into(),
            goal_id: "g1".into(),
            variant: None,
        }),
        trigger: Some(trigger),
        played_by: None,
        user_model: None,
    }
}

#[tokio::test]
async fn accelerated_interval_is_campaign_time() {
    let tp = platform().await;
    // 30 campaign minutes at time_scale 60 are 30 real seconds.
    let c = campaign(&tp, 60.0, 24.0, Budget::default()).await;
    tp.platform
        .create_session(create(&c, "p1", Trigger::Manual))
        .await
        .expect("first session");
    tp.clock.advance(Duration::seconds(10));
    let err = tp
        .platform
        .create_session(create(&c, "p2", Trigger::Manual))
        .await
        .expect_err("10 s is less than 30 campaign minutes at x60");
    assert_eq!(err.code(), ErrorCode::IntervalNotElapsed);
    assert_eq!(
        err.body.next_allowed_at,
        Some(t0() + Duration::seconds(30)),
        "the interval is divided by time_scale"
    );
    tp.clock.advance(Duration::seconds(20));
    tp.platform
        .create_session(create(&c, "p2", Trigger::Manual))
        .await
        .expect("allowed at next_allowed_at");
}

#[tokio::test]
async fn an_ended_window_stops_exploration_before_finalize() {
    let tp = platform().await;
    let c = campaign(
        &tp,
        1.0,
        1.0,
        Budget {
            min_interval_minutes: Some(0.0),
            ..Default::default()
        },
    )
    .await;
    let s = tp
        .platform
        .create_session(create(&c, "p1", Trigger::Auto))
        .await
        .expect("session");
    tp.clock.advance(Duration::hours(2));
    let err = tp
        .platform
        .create_session(create(&c, "p2", Trigger::Auto))
        .await
        .expect_err("window has ended");
    assert_eq!(err.code(), ErrorCode::CampaignNotRunning);
    let end = (t0() + Duration::hours(1)).to_rfc3339();
    assert_eq!(
        err.body.message,
        format!(
            "campaign {} is not running: its window ended at {end}",
            c.id
        )
    );
    let zh = err.body.clone().in_lang(agenteval_engine::Lang::Zh);
    assert_eq!(
        zh.message,
        format!("活动 {} 未在运行：它的窗口已于 {end} 结束", c.id)
    );
    assert!(zh.suggestion.contains("patrol"), "{}", zh.suggestion);
    let err = tp
        .platform
        .send_message(
            s.id,
            SendMessage {
                content: "hello".into(),
            },
        )
        .await
        .expect_err("the session's window has ended");
    assert_eq!(err.code(), ErrorCode::SessionNotRunning);
    let s = tp.platform.get_session(s.id).await.expect("session");
    assert_eq!(s.status, SessionStatus::Expired, "expired on first contact");
    assert_eq!(s.end_reason, Some(EndReason::Expired));
    let report = tp.platform.patrol().await.expect("patrol");
    assert!(
        report.campaigns.is_empty(),
        "an ended window is not patrolled"
    );
}

#[tokio::test]
async fn fail_session_ends_it_once() {
    let tp = platform().await;
    let c = campaign(&tp, 1.0, 24.0, Budget::default()).await;
    let s = tp
        .platform
        .create_session(create(&c, "p1", Trigger::Auto))
        .await
        .expect("session");
    let failed = tp
        .platform
        .fail_session(s.id, "model returned nothing", EndReason::SimulatorError)
        .await
        .expect("fail");
    assert_eq!(failed.status, SessionStatus::Failed);
    assert_eq!(failed.end_reason, Some(EndReason::SimulatorError));
    assert_eq!(
        failed.failure_reason,
        Some(agenteval_engine::i18n::Text::Plain(
            "model returned nothing".into()
        ))
    );
    let err = tp
        .platform
        .fail_session(s.id, "again", EndReason::SimulatorError)
        .await
        .expect_err("only running sessions fail");
    assert_eq!(err.code(), ErrorCode::SessionNotRunning);
}

#[tokio::test]
async fn messages_and_close_update_the_session_and_the_ledger() {
    let tp = platform().await;
    let c = campaign(
        &tp,
        1.0,
        24.0,
        Budget {
            max_turns: Some(1),
            max_sessions: Some(1),
            min_interval_minutes: Some(0.0),
        },
    )
    .await;
    let s = tp
        .platform
        .create_session(create(&c, "p1", Trigger::Auto))
        .await
        .expect("session");
    let reply = tp
        .platform
        .send_message(
            s.id,
            SendMessage {
                content: "I want to send an email".into(),
            },
        )
        .await
        .expect("reply");
    assert_eq!((reply.turn, reply.turns_remaining), (1, 0));
    let err = tp
        .platform
        .send_message(
            s.id,
            SendMessage {
                content: "more".into(),
            },
        )
        .await
        .expect_err("max_turns 1");
    assert_eq!(err.code(), ErrorCode::TurnLimitReached);
    let err = tp
        .platform
        .create_session(create(&c, "p2", Trigger::Auto))
        .await
        .expect_err("max_sessions 1");
    assert_eq!(err.code(), ErrorCode::SessionBudgetExhausted);
    let closed = tp
        .platform
        .close_session(
            s.id,
            CloseSession {
                goal_achieved: false,
                emotion: Some("沮丧".into()),
                ..Default::default()
            },
        )
        .await
        .expect("close");
    assert_eq!(
        closed.end_reason,
        Some(EndReason::UserGaveUp),
        "default when not achieved"
    );
    assert_eq!(closed.judge_status, "pending");
    let transcript = tp
        .platform
        .session_messages(s.id)
        .await
        .expect("transcript");
    assert_eq!(transcript.messages.len(), 2);

    let ledger = tp.platform.ledger(c.id).await.expect("ledger");
    let summary: Vec<(String, bool, Option<ErrorCode>)> = ledger
        .iter()
        .map(|e| (e.action.as_str().to_string(), e.allowed, e.reason_code))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("create".into(), true, None),
            ("message".into(), true, None),
            ("message".into(), false, Some(ErrorCode::TurnLimitReached)),
            (
                "create".into(),
                false,
                Some(ErrorCode::SessionBudgetExhausted)
            ),
            ("close".into(), true, None),
        ],
        "one row per decision, refusals with their reason"
    );
}

#[tokio::test]
async fn patrol_says_when_the_next_session_is_allowed() {
    let tp = platform().await;
    let c = campaign(&tp, 1.0, 24.0, Budget::default()).await;
    tp.platform
        .create_session(create(&c, "p1", Trigger::Auto))
        .await
        .expect("session");
    tp.clock.advance(Duration::minutes(10));
    let report = tp.platform.patrol().await.expect("patrol");
    let pc = &report.campaigns[0];
    assert_eq!(pc.budget_remaining.sessions_remaining, 7);
    assert_eq!(pc.budget_remaining.running_sessions, 1);
    assert_eq!(
        pc.budget_remaining.next_session_allowed_at,
        Some(t0() + Duration::minutes(30)),
        "30 minutes after the last start"
    );
    assert_eq!(pc.uncovered.len(), 1, "p2 x g1 is not explored yet");
    assert_eq!(pc.uncovered[0].persona_id, "p2");
    let again = tp.platform.get_campaign(c.id).await.expect("campaign");
    assert_eq!(again.last_patrolled_at, Some(report.generated_at));
}

#[tokio::test]
async fn no_findings_without_sessions() {
    let tp = platform().await;
    let c = campaign(&tp, 1.0, 24.0, Budget::default()).await;
    assert_eq!(
        tp.platform
            .exploration_findings(c.id)
            .await
            .expect("findings"),
        None
    );
    let report = tp.platform.campaign_report(c.id).await.expect("report");
    let value = serde_json::to_value(&report).expect("json");
    assert!(value.get("exploration").is_none(), "absent, not null");
}

fn facts(
    persona: &str,
    status: SessionStatus,
    achieved: Option<bool>,
    blockers: &[&str],
    review: Option<serde_json::Value>,
) -> SessionFacts {
    SessionFacts {
        id: agenteval_engine::SessionId(Uuid::now_v7()),
        status,
        end_reason: achieved.map(|a| {
            if a {
                EndReason::UserGoalMet
            } else {
                EndReason::UserGaveUp
            }
        }),
        trigger: Trigger::Auto,
        seed_ref: Some(SeedRef {
            persona_id: persona.into(),
            goal_id: "g1".into(),
            variant: None,
        }),
        experience: achieved.map(|a| ExperienceRecord {
            goal_achieved: a,
            blockers: blockers.iter().map(|b| b.to_string().into()).collect(),
            misled: Vec::new(),
            emotion: if a { "satisfied" } else { "frustrated" }.into(),
            emotion_raw: None,
            notes: Default::default(),
        }),
        judge_status: if review.is_some() { "done" } else { "none" }.into(),
        judge_review: review,
        simulator_faults: Vec::new(),
    }
}

#[test]
fn findings_aggregate_issues_judge_and_coverage() {
    let a = facts(
        "p1",
        SessionStatus::Completed,
        Some(true),
        &["Asked twice for the address"],
        Some(json!({
            "dimensions": {"attitude": {"score": 4, "evidence": "polite"}, "hallucination": 5},
            "findings": [{"severity": "good", "text": "polite throughout"}],
        })),
    );
    let b = facts(
        "p1",
        SessionStatus::Completed,
        Some(false),
        &["asked twice for the address.", "No confirmation"],
        Some(json!({
            "dimensions": {"attitude": {"score": 2}},
            "findings": [{"grade": "poor", "severity": null, "dimension": "hallucination", "text": "invented a date", "turn": 2}],
        })),
    );
    let c = facts("p2", SessionStatus::Expired, None, &[], None);
    let mut pending = facts("p2", SessionStatus::Completed, Some(true), &[], None);
    pending.judge_status = "pending".into();
    let f = aggregate(&seeds(), &[a.clone(), b.clone(), c, pending]).expect("findings");

    assert_eq!(f.sessions_total, 4);
    assert_eq!(f.sessions_by_status["completed"], 3);
    assert_eq!(f.sessions_by_status["expired"], 1);
    assert_eq!(f.sessions_by_status["failed"], 0, "every status is listed");
    assert_eq!((f.records, f.goals_achieved), (3, 2));
    assert_eq!(f.goal_achievement_rate, Some(2.0 / 3.0));
    assert_eq!(f.issues[0].text, "Asked twice for the address");
    assert_eq!(f.issues[0].count, 2, "grouped across case and punctuation");
    assert_eq!(f.issues[0].session_ids, vec![a.id, b.id]);
    assert_eq!(f.issues[1].text, "No confirmation");
    assert_eq!(f.emotions["satisfied"], 2);
    assert_eq!(
        (f.judge.reviewed, f.judge.pending, f.judge.failed),
        (2, 1, 0)
    );
    assert_eq!(f.judge.dimensions["attitude"].average, 3.0);
    assert_eq!(f.judge.dimensions["attitude"].count, 2);
    assert_eq!(f.judge.dimensions["hallucination"].average, 5.0);
    assert_eq!(f.findings.len(), 2, "all findings are kept");
    assert_eq!(f.findings[0].severity, "poor", "poor findings come first");
    assert_eq!(f.findings[0].session_id, b.id);
    assert_eq!(f.findings[0].turn, Some(2), "the finding cites its round");
    assert_eq!(f.coverage.cells.len(), 2, "2 personas x 1 goal");
    let p1 = &f.coverage.cells[0];
    assert_eq!((p1.sessions, p1.achieved, p1.issues), (2, 1, 3));
    let p2 = &f.coverage.cells[1];
    assert_eq!((p2.sessions, p2.achieved), (2, 1));
}

#[test]
fn emotions_map_onto_the_allow_list() {
    for (raw, want) in [
        ("satisfied", "satisfied"),
        (" Frustrated ", "frustrated"),
        ("满意", "satisfied"),
        ("困惑", "confused"),
        ("沮丧", "frustrated"),
        ("生气", "angry"),
        ("焦虑", "anxious"),
        ("happy", "satisfied"),
        ("furious", "angry"),
        ("something odd", "neutral"),
    ] {
        assert_eq!(normalize_emotion(raw).0, want, "{raw:?}");
    }
}

#[tokio::test]
async fn two_platforms_on_one_database_share_the_budget() {
    // Two platforms on the same file stand for two processes: separate
    // pools and separate in-process locks, so only the immediate
    // transaction keeps the budget.
    let tp = platform().await;
    let other = agenteval_engine::Platform::builder(tp.dir.path())
        .database_url(tp.database_url.clone())
        .clock(tp.clock.clone())
        .open()
        .await
        .expect("second platform");
    let c = campaign(
        &tp,
        1.0,
        24.0,
        Budget {
            max_sessions: Some(4),
            min_interval_minutes: Some(0.0),
            ..Default::default()
        },
    )
    .await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..30 {
        let p = if i % 2 == 0 {
            tp.platform.clone()
        } else {
            other.clone()
        };
        let req = create(&c, if i % 3 == 0 { "p1" } else { "p2" }, Trigger::Auto);
        tasks.spawn(async move { p.create_session(req).await.map(|_| ()) });
    }
    let (mut ok, mut refused) = (0, 0);
    while let Some(res) = tasks.join_next().await {
        match res.expect("task") {
            Ok(()) => ok += 1,
            Err(e) => {
                assert_eq!(e.code(), ErrorCode::SessionBudgetExhausted, "{e}");
                refused += 1;
            }
        }
    }
    assert_eq!((ok, refused), (4, 26), "the budget holds across processes");
    let sessions = other.list_sessions(c.id).await.expect("sessions");
    assert_eq!(sessions.len(), 4);
    let ledger = tp.platform.ledger(c.id).await.expect("ledger");
    assert_eq!(ledger.len(), 30, "every decision is in the ledger");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn messages_raced_by_two_platforms_spend_each_sessions_turns_exactly() {
    // A message locks its session, not its campaign: two sessions of one
    // campaign talk at the same time, and the messages racing on one
    // session, from two processes, must still take turns.
    const MAX_TURNS: u32 = 5;
    const SENT: u32 = 12;
    let tp = platform().await;
    let other = tp.another_worker().await;
    let c = campaign(
        &tp,
        1.0,
        24.0,
        Budget {
            max_sessions: Some(2),
            max_turns: Some(MAX_TURNS),
            min_interval_minutes: Some(0.0),
        },
    )
    .await;
    let mut sessions = Vec::new();
    for persona in ["p1", "p2"] {
        let s = tp
            .platform
            .create_session(create(&c, persona, Trigger::Auto))
            .await
            .expect("session");
        sessions.push(s.id);
    }
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..SENT * 2 {
        let p = if i % 2 == 0 {
            tp.platform.clone()
        } else {
            other.clone()
        };
        let session = sessions[(i / 2 % 2) as usize];
        tasks.spawn(async move {
            let sent = SendMessage {
                content: format!("message {i}"),
            };
            (session, p.send_message(session, sent).await.map(|r| r.turn))
        });
    }
    let mut turns: std::collections::HashMap<_, Vec<u32>> = Default::default();
    let mut refused = 0;
    while let Some(res) = tasks.join_next().await {
        match res.expect("task") {
            (session, Ok(turn)) => turns.entry(session).or_default().push(turn),
            (_, Err(e)) => {
                assert_eq!(e.code(), ErrorCode::TurnLimitReached, "{e}");
                refused += 1;
            }
        }
    }
    assert_eq!(refused, 2 * (SENT - MAX_TURNS));
    for id in &sessions {
        let mut got = turns.remove(id).unwrap_or_default();
        got.sort_unstable();
        assert_eq!(got, (1..=MAX_TURNS).collect::<Vec<_>>(), "each turn once");
        let transcript = other.session_messages(*id).await.expect("transcript");
        assert_eq!(transcript.session.turn_count, MAX_TURNS);
        let users = transcript
            .messages
            .iter()
            .filter(|m| m.role == TurnRole::User)
            .count();
        assert_eq!(
            users, MAX_TURNS as usize,
            "one stored user turn per allowed message"
        );
    }
    let ledger = tp.platform.ledger(c.id).await.expect("ledger");
    let messages: Vec<bool> = ledger
        .iter()
        .filter(|e| e.action.as_str() == "message")
        .map(|e| e.allowed)
        .collect();
    assert_eq!(
        messages.len(),
        (SENT * 2) as usize,
        "every decision is in the ledger"
    );
    assert_eq!(
        messages.iter().filter(|allowed| **allowed).count(),
        (MAX_TURNS * 2) as usize
    );
}

/// A clock that moves on by a millisecond each time it is read.
struct TickingClock(std::sync::atomic::AtomicI64);

impl agenteval_engine::clock::Clock for TickingClock {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        let n = self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        t0() + Duration::milliseconds(n)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sessions_created_at_once_with_no_interval_are_all_allowed_and_start_in_decision_order() {
    // Enough creates at once that a stamp taken before queuing would, in
    // practice, fall out of decision order somewhere.
    const BURST: u32 = 400;
    let dir = tempfile::tempdir().expect("temp dir");
    let p = agenteval_engine::Platform::builder(dir.path())
        .clock(std::sync::Arc::new(TickingClock(Default::default())))
        .open()
        .await
        .expect("platform");
    let target = p
        .create_target(TargetSettings::builtin_demo("demo"))
        .await
        .expect("target");
    let c = p
        .create_campaign(CreateCampaign {
            name: "burst".into(),
            target_id: target.id,
            duration_hours: Some(24.0),
            seed_set: Some(seeds()),
            budget: Some(Budget {
                max_sessions: Some(BURST),
                min_interval_minutes: Some(0.0),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("campaign");
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..BURST {
        let (p, req) = (p.clone(), create(&c, "p1", Trigger::Manual));
        tasks.spawn(async move { p.create_session(req).await.map(|s| s.id) });
    }
    while let Some(res) = tasks.join_next().await {
        // A start stamped before the decision could fall before the
        // previous session's start and be refused with
        // INTERVAL_NOT_ELAPSED although no interval is required.
        res.expect("task").expect("every session is allowed");
    }
    let ledger = p.ledger(c.id).await.expect("ledger");
    let sessions = p.list_sessions(c.id).await.expect("sessions");
    assert_eq!(
        (ledger.len(), sessions.len()),
        (BURST as usize, BURST as usize)
    );
    let decided: Vec<_> = ledger.iter().filter_map(|e| e.session_id).collect();
    let started: Vec<_> = sessions.iter().map(|s| s.id).collect();
    assert_eq!(
        decided, started,
        "sessions start in the order they were decided"
    );
}

#[tokio::test]
async fn variants_keep_their_seed() {
    let tp = platform().await;
    let c = campaign(&tp, 1.0, 24.0, Budget::default()).await;
    let mut req = create(&c, "p1", Trigger::Auto);
    req.seed_ref = Some(SeedRef {
        persona_id: "p1".into(),
        goal_id: "g1".into(),
        variant: Some(agenteval_engine::exploration::Variant {
            kind: agenteval_engine::exploration::VariantKind::RephrasedGoal,
            note: "asks in Chinese".into(),
        }),
    });
    let s = tp.platform.create_session(req).await.expect("variant");
    let got = tp.platform.get_session(s.id).await.expect("session");
    let variant = got
        .seed_ref
        .and_then(|r| r.variant)
        .expect("the derivation is kept");
    assert_eq!(variant.note, "asks in Chinese");
}

#[tokio::test]
async fn a_large_campaign_exports_a_bounded_markdown_whose_links_all_resolve() {
    let tp = platform().await;
    let sessions = agenteval_engine::export::ALL_TRANSCRIPTS_UP_TO as usize + 20;
    let c = campaign(
        &tp,
        60.0,
        24.0,
        Budget {
            max_sessions: Some(sessions as u32),
            max_turns: Some(2),
            min_interval_minutes: Some(0.0),
        },
    )
    .await;
    for i in 0..sessions {
        let s = tp
            .platform
            .create_session(create(
                &c,
                if i % 2 == 0 { "p1" } else { "p2" },
                Trigger::Manual,
            ))
            .await
            .expect("session");
        tp.platform
            .send_message(
                s.id,
                SendMessage {
                    content: format!("hello {i}"),
                },
            )
            .await
            .expect("message");
        // Every session reports the same blocker, a few a rarer one.
        let mut blockers = vec!["the reply was too vague".to_string()];
        if i % 40 == 0 {
            blockers.push(format!("rare problem {i}"));
        }
        tp.platform
            .close_session(
                s.id,
                CloseSession {
                    goal_achieved: i % 3 == 0,
                    blockers: Some(blockers),
                    ..Default::default()
                },
            )
            .await
            .expect("close");
    }
    let md = tp
        .platform
        .export_campaign(
            c.id,
            agenteval_engine::export::ExportFormat::Md,
            agenteval_engine::Lang::En,
        )
        .await
        .expect("export");
    let transcripts: Vec<&str> = md
        .lines()
        .filter_map(|l| {
            l.strip_prefix("<a id=\"session-")
                .and_then(|rest| rest.strip_suffix("\"></a>"))
        })
        .collect();
    let linked = agenteval_engine::export::linked_sessions(&md);
    assert!(!linked.is_empty(), "issues link to sessions");
    assert!(
        transcripts.len() < sessions,
        "not every transcript: {} of {sessions}",
        transcripts.len()
    );
    for id in &linked {
        assert!(
            transcripts.contains(&id.to_string().as_str()),
            "the link to session {id} leads to its transcript"
        );
    }
    assert!(
        md.contains(&format!(
            "The {} sessions linked above; the other {} are in the app",
            transcripts.len(),
            sessions - transcripts.len()
        )),
        "the cut is said in the text"
    );
}

/// The report reads a campaign's exploration block from tallies kept as
/// sessions change (migration 0009). Whatever happens to the sessions
/// (closed, failed, a simulator error, reviewed in every review shape,
/// expired by finalize), they must equal the plain aggregation over the
/// sessions, and so must the backfill for sessions stored before them.
#[tokio::test]
async fn the_findings_tallies_equal_the_sessions_on_every_path_and_after_a_backfill() {
    use agenteval_engine::Platform;

    let tp = platform().await;
    let p = &tp.platform;
    let budget = Budget {
        max_sessions: Some(20),
        min_interval_minutes: Some(0.0),
        ..Default::default()
    };
    let c = campaign(&tp, 1.0, 24.0, budget).await;
    let close = |achieved: bool, blockers: &[&str], misled: &[&str], end_reason| CloseSession {
        goal_achieved: achieved,
        blockers: Some(blockers.iter().map(|s| s.to_string()).collect()),
        misled: Some(misled.iter().map(|s| s.to_string()).collect()),
        emotion: Some(if achieved { "satisfied" } else { "困惑" }.into()),
        notes: None,
        notes_said: None,
        end_reason,
    };
    let mut ids = Vec::new();
    let closes = [
        (
            "p1",
            Trigger::Auto,
            close(
                true,
                &["Asked twice for the address", "  "],
                &["Ärger mit der Adresse"],
                None,
            ),
        ),
        (
            "p1",
            Trigger::Manual,
            close(
                false,
                &["asked  twice for the ADDRESS."],
                &["ärger mit der adresse!"],
                None,
            ),
        ),
        (
            "p2",
            Trigger::Auto,
            close(
                false,
                &["not the target's fault"],
                &[],
                Some(EndReason::SimulatorError),
            ),
        ),
        (
            "p2",
            Trigger::Auto,
            close(true, &["\u{3000}", "No confirmation"], &[], None),
        ),
    ];
    for (persona, trigger, req) in closes {
        let s = p
            .create_session(create(&c, persona, trigger))
            .await
            .unwrap();
        tp.clock.advance(Duration::seconds(1));
        p.close_session(s.id, req).await.unwrap();
        ids.push(s.id);
    }
    let mut unseeded = create(&c, "p1", Trigger::Manual);
    unseeded.seed_ref = None;
    let s = p.create_session(unseeded).await.unwrap();
    p.close_session(s.id, close(true, &[], &[], None))
        .await
        .unwrap();
    let failed = p
        .create_session(create(&c, "p2", Trigger::Auto))
        .await
        .unwrap();
    p.fail_session(failed.id, "the model broke", EndReason::SimulatorError)
        .await
        .unwrap();
    let left_running = p
        .create_session(create(&c, "p1", Trigger::Auto))
        .await
        .unwrap();

    // Reviews in every shape the report reads, written as the judge writes
    // them; the third and the unseeded sessions stay pending.
    for (id, status, review) in [
        (
            ids[0],
            "done",
            json!({
                "dimensions": {"attitude": {"score": 4}, "hallucination": 5, "tone": "n/a"},
                "findings": [{"severity": "good", "text": "polite"}],
            }),
        ),
        (
            ids[1],
            "done",
            json!({
                "scores": [{"name": "attitude", "score": 2}, {"dimension": "speed", "score": 3.5},
                           {"name": 7, "dimension": "ignored", "score": 1}],
                "findings": ["a plain finding", "  ", {"grade": "poor", "text": "invented a date", "turn": 2},
                {"severity": null, "grade": "fair", "finding": "slow", "category": "pace", "quote": "wait", "turn": -1},
                {"severity": "poor", "evidence": "no text, not a finding"}],
                "simulator": {"at_fault": true},
            }),
        ),
        (
            ids[3],
            "failed",
            json!({"error": "the judge model is down", "simulator_fault": true}),
        ),
    ] {
        p.fixtures()
            .set_judge_review(id, status, &review)
            .await
            .unwrap();
    }
    p.finalize_campaign(c.id).await.unwrap();

    async fn both(p: &Platform, c: Uuid) -> (ExplorationFindings, ExplorationFindings) {
        let sessions = p
            .list_sessions(agenteval_engine::CampaignId(c))
            .await
            .unwrap();
        let facts: Vec<SessionFacts> = sessions
            .into_iter()
            .map(|s| SessionFacts {
                id: s.id,
                status: s.status,
                end_reason: s.end_reason,
                trigger: s.trigger,
                seed_ref: s.seed_ref,
                experience: s.experience,
                judge_status: s.judge_status,
                judge_review: s.judge_review,
                simulator_faults: s.simulator_faults.unwrap_or_default(),
            })
            .collect();
        let tallied = p
            .exploration_findings(agenteval_engine::CampaignId(c))
            .await
            .unwrap()
            .expect("sessions");
        (tallied, aggregate(&seeds(), &facts).expect("sessions"))
    }
    let (tallied, aggregated) = both(p, c.id.into()).await;
    assert_eq!(tallied, aggregated);
    let f = &tallied;
    assert_eq!(f.sessions_total, 7);
    assert_eq!(f.sessions_by_status["expired"], 1, "{:?}", left_running.id);
    assert_eq!(f.sessions_by_end_reason["simulator_error"], 2);
    assert_eq!(
        f.simulator_faults, 3,
        "two simulator errors, one review blames it"
    );
    assert_eq!((f.records, f.goals_achieved), (4, 3));
    assert_eq!(f.issues[0].text, "Asked twice for the address");
    assert_eq!(
        (f.issues[0].count, &f.issues[0].session_ids),
        (2, &vec![ids[0], ids[1]])
    );
    assert_eq!(
        (f.issues[1].text.as_str(), f.issues[1].count),
        ("Ärger mit der Adresse", 2),
        "grouped across Unicode case"
    );
    assert_eq!(
        f.issues.len(),
        3,
        "blanks and a simulator error's record are left out"
    );
    assert_eq!(f.judge.dimensions["attitude"].average, 3.0);
    assert_eq!(f.judge.dimensions["speed"].count, 1);
    assert!(!f.judge.dimensions.contains_key("ignored"));
    assert_eq!(
        (f.judge.reviewed, f.judge.failed, f.judge.pending),
        (2, 1, 2)
    );
    assert_eq!(
        f.findings.len(),
        4,
        "blank and textless findings are left out"
    );
    assert_eq!(f.coverage.unseeded_sessions, 1);

    // The same data as stored before migration 0009 (0011 adds to its
    // issue tally, so it is undone too). PostgreSQL's schema starts after
    // those migrations: it has nothing to backfill.
    if tp.database_url.is_some() {
        return;
    }
    p.fixtures().undo_session_tally_migrations().await.unwrap();
    let reopened = tp.reopen().await;
    let (backfilled, aggregated) = both(&reopened, c.id.into()).await;
    assert_eq!(backfilled, aggregated);
    assert_eq!(backfilled, tallied);
}
