//! Tests: the check of the virtual user on scripted transcripts (each fault
//! kind, with a transcript that has it and one that does not), and how a
//! faulty session is counted: under its fault kind, never against the
//! target.

use crate::support::platform;
use agenteval_engine::campaign::{CreateCampaign, Goal, Persona, SeedSet};
use agenteval_engine::exploration::simulator_faults::check;
use agenteval_engine::exploration::{
    CloseSession, CreateSession, PlayedBy, SeedRef, SendMessage, SimulatorFaultKind, Trigger,
};
use agenteval_engine::judge::{SessionForReview, SessionMessage, heuristic_review};
use agenteval_engine::target::TargetSettings;
use serde_json::{Value, json};

fn transcript(
    persona: Value,
    goal: Value,
    end: &str,
    achieved: bool,
    turns: &[(&str, &str)],
) -> SessionForReview {
    SessionForReview {
        persona,
        goal,
        experience: Some(
            json!({"goal_achieved": achieved, "blockers": [], "misled": [],
                                "emotion": "neutral", "notes": ""}),
        ),
        end_reason: Some(end.into()),
        played_by: PlayedBy::Builtin,
        messages: turns
            .iter()
            .map(|(role, content)| SessionMessage {
                role: (*role).into(),
                content: (*content).into(),
                latency_ms: Some(5),
                steps: Vec::new(),
            })
            .collect(),
        tools: Vec::new(),
        max_steps: None,
    }
}

fn kinds(s: &SessionForReview) -> Vec<SimulatorFaultKind> {
    check(s).into_iter().map(|f| f.kind).collect()
}

fn en() -> Value {
    json!({"name": "Ann", "language": "en", "patience": 2})
}

fn order_goal() -> Value {
    json!({"title": "Find out where my order is", "success_criteria": ["shipped"],
           "slots": {"order_id": "A1024", "email": "ann@example.com"}})
}

#[test]
fn invented_fact_is_a_figure_or_email_nobody_gave() {
    let faulty = transcript(
        en(),
        order_goal(),
        "max_turns",
        false,
        &[
            ("user", "Where is my order A1024?"),
            ("target", "Which email did you order with?"),
            ("user", "ann.smith@example.org, and the invoice was 5531."),
            ("target", "Let me look."),
        ],
    );
    let faults = check(&faulty);
    let invented: Vec<_> = faults
        .iter()
        .filter(|f| f.kind == SimulatorFaultKind::InventedFact)
        .collect();
    assert_eq!(invented.len(), 1, "one turn invents: {faults:?}");
    assert_eq!(invented[0].turn, Some(2), "the second user turn invents");
    let detail = invented[0].detail.as_deref().unwrap_or_default();
    assert!(
        detail.contains("5531") && detail.contains("ann.smith@example.org"),
        "both the figure and the email are named: {detail}"
    );

    let clean = transcript(
        en(),
        order_goal(),
        "max_turns",
        false,
        &[
            ("user", "Where is my order A1024?"),
            (
                "target",
                "Your ticket is 88123. Which email did you order with?",
            ),
            ("user", "ann@example.com - and please quote ticket 88123."),
            ("target", "Let me look."),
        ],
    );
    assert!(
        !kinds(&clean).contains(&SimulatorFaultKind::InventedFact),
        "facts of the slots and of the target's replies are not invented: {:?}",
        check(&clean)
    );

    // A seed with no fact at all leaves the user to supply them.
    let bare = transcript(
        json!({"name": "tester"}),
        json!({"title": "send an email"}),
        "user_goal_met",
        true,
        &[
            ("user", "Send an email to boss@example.com"),
            ("target", "Sent."),
        ],
    );
    assert!(
        !kinds(&bare).contains(&SimulatorFaultKind::InventedFact),
        "nothing to check a fact against: {:?}",
        check(&bare)
    );
}

#[test]
fn a_persona_that_changes_its_mind_may_correct_once() {
    let persona = json!({"name": "Wang", "language": "en", "patience": 2, "change_mind": 0.8});
    let turns = [
        ("user", "Where is my order A1024?"),
        ("target", "Checking."),
        ("user", "Sorry, the order is A1025."),
        ("target", "Checking."),
    ];
    let once = transcript(persona.clone(), order_goal(), "max_turns", false, &turns);
    assert!(!kinds(&once).contains(&SimulatorFaultKind::InventedFact));
    let mut twice = turns.to_vec();
    twice.push(("user", "And my phone is 5550199."));
    let twice = transcript(persona, order_goal(), "max_turns", false, &twice);
    assert!(
        kinds(&twice).contains(&SimulatorFaultKind::InventedFact),
        "a second new value is an invention"
    );
}

#[test]
fn left_language_is_a_turn_in_the_other_language() {
    let zh = json!({"name": "王会计", "language": "zh", "patience": 2});
    let goal = json!({"title": "Send the weekly report", "slots": {"to": "boss@example.com"}});
    let faulty = transcript(
        zh.clone(),
        goal.clone(),
        "max_turns",
        false,
        &[
            (
                "user",
                "你好，我想请你帮忙办这件事：「Send the weekly report」。",
            ),
            ("target", "Who should receive it?"),
            ("user", "Please send it to my boss."),
            ("target", "OK."),
        ],
    );
    let faults = check(&faulty);
    let left: Vec<_> = faults
        .iter()
        .filter(|f| f.kind == SimulatorFaultKind::LeftLanguage)
        .collect();
    assert_eq!(left.len(), 1, "{faults:?}");
    assert_eq!(left[0].turn, Some(2));
    assert_eq!(left[0].detail.as_deref(), Some("English"));

    // Quoting the goal or giving a slot value as is keeps the language.
    let clean = transcript(
        zh,
        goal,
        "max_turns",
        false,
        &[
            (
                "user",
                "你好，我想请你帮忙办这件事：「Send the weekly report」。",
            ),
            ("target", "Who should receive it?"),
            ("user", "boss@example.com"),
            ("target", "OK."),
        ],
    );
    assert!(!kinds(&clean).contains(&SimulatorFaultKind::LeftLanguage));
    let english = transcript(
        en(),
        json!({"title": "查询订单"}),
        "max_turns",
        false,
        &[
            ("user", "Hi, I need help with this: “查询订单”."),
            ("target", "Sure."),
        ],
    );
    assert!(
        !kinds(&english).contains(&SimulatorFaultKind::LeftLanguage),
        "an English persona quoting a Chinese goal speaks English"
    );
    let mixed = transcript(
        en(),
        json!({"title": "Track my order"}),
        "max_turns",
        false,
        &[("user", "我的订单在哪里？"), ("target", "Sure.")],
    );
    assert!(kinds(&mixed).contains(&SimulatorFaultKind::LeftLanguage));
}

#[test]
fn quit_early_is_giving_up_before_patience_allows() {
    let patient = json!({"name": "Ann", "language": "en", "patience": 4});
    let turns = [
        ("user", "Where is my order A1024?"),
        ("target", "I cannot help with that."),
        ("user", "Please check order A1024."),
        ("target", "I cannot help with that."),
    ];
    let faulty = transcript(patient.clone(), order_goal(), "user_gave_up", false, &turns);
    let faults = check(&faulty);
    let quit: Vec<_> = faults
        .iter()
        .filter(|f| f.kind == SimulatorFaultKind::QuitEarly)
        .collect();
    assert_eq!(quit.len(), 1, "2 replies < patience 4: {faults:?}");
    assert_eq!(quit[0].detail.as_deref(), Some("2"));
    let impatient = json!({"name": "Ann", "language": "en", "patience": 2});
    let clean = transcript(impatient, order_goal(), "user_gave_up", false, &turns);
    assert!(
        !kinds(&clean).contains(&SimulatorFaultKind::QuitEarly),
        "2 replies reach patience 2"
    );
    let ran_out = transcript(patient, order_goal(), "max_turns", false, &turns);
    assert!(
        !kinds(&ran_out).contains(&SimulatorFaultKind::QuitEarly),
        "running out of turns is not giving up"
    );
}

#[test]
fn went_on_after_goal_is_speaking_after_the_criteria_were_met() {
    let turns = [
        ("user", "Where is my order A1024?"),
        ("target", "Order A1024 has shipped and arrives Friday."),
        ("user", "Great, and can you also tell me a joke?"),
        ("target", "Sure."),
    ];
    let faulty = transcript(en(), order_goal(), "user_goal_met", true, &turns);
    let faults = check(&faulty);
    let went: Vec<_> = faults
        .iter()
        .filter(|f| f.kind == SimulatorFaultKind::WentOnAfterGoal)
        .collect();
    assert_eq!(went.len(), 1, "{faults:?}");
    assert_eq!(went[0].turn, Some(2));
    let stopped = transcript(en(), order_goal(), "user_goal_met", true, &turns[..2]);
    assert!(!kinds(&stopped).contains(&SimulatorFaultKind::WentOnAfterGoal));
    let not_met = transcript(en(), order_goal(), "max_turns", false, &turns);
    assert!(
        !kinds(&not_met).contains(&SimulatorFaultKind::WentOnAfterGoal),
        "a goal the record does not call met was not met"
    );
}

#[test]
fn drifted_is_no_later_turn_about_the_goal() {
    let faulty = transcript(
        en(),
        order_goal(),
        "max_turns",
        false,
        &[
            ("user", "Where is my order A1024?"),
            ("target", "Let me check."),
            ("user", "By the way, what is the weather like?"),
            ("target", "Sunny."),
            ("user", "Nice. Any good films on?"),
            ("target", "Several."),
            ("user", "Tell me about the best one."),
            ("target", "OK."),
        ],
    );
    let faults = check(&faulty);
    assert!(
        faults
            .iter()
            .any(|f| f.kind == SimulatorFaultKind::Drifted && f.detail.as_deref() == Some("3")),
        "{faults:?}"
    );
    let on_goal = transcript(
        en(),
        order_goal(),
        "max_turns",
        false,
        &[
            ("user", "Where is my order A1024?"),
            ("target", "Let me check."),
            ("user", "OK, I'll wait."),
            ("target", "Still checking."),
            ("user", "Any news?"),
            ("target", "Not yet."),
            ("user", "Please look up the order again."),
            ("target", "OK."),
        ],
    );
    assert!(
        !kinds(&on_goal).contains(&SimulatorFaultKind::Drifted),
        "one later turn about the order is enough: {:?}",
        check(&on_goal)
    );
}

#[test]
fn the_heuristic_judge_reports_what_the_check_found() {
    let s = transcript(
        en(),
        order_goal(),
        "max_turns",
        false,
        &[
            ("user", "Where is my order A1024? Invoice 5531."),
            ("target", "Checking."),
        ],
    );
    let review = heuristic_review(&s);
    let sim = review
        .simulator
        .expect("the heuristic judge reviews the user");
    assert!(sim.invented_facts && sim.simulator_fault && review.simulator_fault);
    assert!(
        review
            .findings
            .iter()
            .any(|f| f.dimension == "simulator" && f.text.to_string().contains("5531")),
        "the finding says what was invented: {:?}",
        review.findings
    );
}

#[tokio::test]
async fn a_faulty_session_counts_under_its_fault_and_not_against_the_target() {
    let tp = platform().await;
    let p = &tp.platform;
    let target = p
        .create_target(TargetSettings::builtin_demo("demo"))
        .await
        .unwrap();
    let seeds = SeedSet {
        personas: vec![Persona {
            id: "p1".into(),
            name: "Ann".into(),
            ..Default::default()
        }],
        goals: vec![Goal {
            id: "g1".into(),
            title: "Track an order".into(),
            ..Default::default()
        }],
    };
    let c = p
        .create_campaign(CreateCampaign {
            name: "faults".into(),
            target_id: target.id,
            duration_hours: Some(24.0),
            seed_set: Some(seeds),
            ..Default::default()
        })
        .await
        .unwrap();
    let persona = json!({"name": "Ann", "language": "en", "patience": 1});
    let goal = json!({"title": "Track an order", "slots": {"order_id": "A1024"}});
    let mut ids = Vec::new();
    for (say, blocker) in [
        (
            "Where is order A1024? The invoice was 987654.",
            "asked for the invoice twice",
        ),
        ("Where is order A1024?", "never said where the order is"),
    ] {
        tp.clock.advance(chrono::Duration::hours(1));
        let s = p
            .create_session(CreateSession {
                campaign_id: c.id,
                persona: persona.clone(),
                goal: goal.clone(),
                seed_ref: Some(SeedRef {
                    persona_id: "p1".into(),
                    goal_id: "g1".into(),
                    variant: None,
                }),
                trigger: Some(Trigger::Manual),
                played_by: None,
                user_model: None,
            })
            .await
            .unwrap();
        p.send_message(
            s.id,
            SendMessage {
                content: say.into(),
            },
        )
        .await
        .unwrap();
        let closed = p
            .close_session(
                s.id,
                CloseSession {
                    goal_achieved: false,
                    blockers: Some(vec![blocker.into()]),
                    emotion: Some("frustrated".into()),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        ids.push(closed);
    }
    let faulty = ids[0].simulator_faults.clone().expect("checked at close");
    assert_eq!(
        faulty.iter().map(|f| f.kind).collect::<Vec<_>>(),
        vec![SimulatorFaultKind::InventedFact],
        "the first session invents the invoice number: {faulty:?}"
    );
    assert_eq!(
        ids[1].simulator_faults.as_deref(),
        Some(&[][..]),
        "the second session is checked and clean"
    );
    agenteval_engine::judge::review_pending(p, None, Default::default())
        .await
        .unwrap();

    let report = p.campaign_report(c.id).await.unwrap();
    let e = report.exploration.expect("sessions");
    assert_eq!(e.simulator_fault_kinds["invented_fact"].sessions, 1);
    assert_eq!(e.simulator_fault_kinds["invented_fact"].faults, 1);
    assert_eq!(e.simulator_fault_kinds["drifted"].sessions, 0);
    assert_eq!(
        e.simulator_faults, 1,
        "one session is the simulator's fault"
    );
    let issues: Vec<&str> = e.issues.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(
        issues,
        vec!["never said where the order is"],
        "only the clean session's blocker is the target's"
    );
    assert_eq!(e.records, 1, "the faulty record is not the target's");
    assert_eq!(e.emotions.values().sum::<u32>(), 1);
    assert!(
        e.judge.dimensions.values().all(|d| d.count == 1),
        "only the clean session's scores count: {:?}",
        e.judge.dimensions
    );
    assert_eq!(e.judge.reviewed, 2, "both sessions were reviewed");

    // Sessions that ended before the check existed are checked when the
    // database is opened again, and their issues leave the tally.
    p.fixtures().clear_simulator_faults().await.unwrap();
    p.fixtures()
        .queue_backfills(&["simulator_faults", "session_issue_tally"])
        .await
        .unwrap();
    let reopened = tp.reopen().await;
    let again = reopened
        .campaign_report(c.id)
        .await
        .unwrap()
        .exploration
        .unwrap();
    assert_eq!(again.simulator_fault_kinds, e.simulator_fault_kinds);
    assert_eq!(again.issues.len(), 1);
    let s = reopened.get_session(ids[0].id).await.unwrap();
    assert_eq!(s.simulator_faults.map(|f| f.len()), Some(1));
}
