//! Tests: the blind review queue, blind labels and the judge's calibration
//! against them (kappa per criterion, thresholds), and the judge's second
//! pass (self-agreement), on real SQLite with a scripted judge model.

use crate::patrol_agent::campaign;
use crate::support::{TestPlatform, platform};
use agenteval_engine::ErrorCode;
use agenteval_engine::calibration::{CriterionScores, JudgePolicy, SubmitLabel};
use agenteval_engine::campaign::Budget;
use agenteval_engine::domain::ids::{CampaignId, SessionId};
use agenteval_engine::exploration::{CloseSession, CreateSession, SendMessage, Trigger};
use agenteval_engine::export::ExportFormat;
use agenteval_engine::judge::{JudgeSampling, review_pending};
use agenteval_engine::role_models::FakeChatClient;
use serde_json::json;
use uuid::Uuid;

/// A judge answer with these scores.
fn answer(attitude: u8, professionalism: u8, hallucination: u8) -> String {
    json!({
        "attitude": {"score": attitude, "evidence": "quoted attitude"},
        "professionalism": {"score": professionalism, "evidence": "quoted professionalism"},
        "hallucination": {"score": hallucination, "evidence": "quoted hallucination"},
        "findings": [],
        "simulator": {"in_persona": true, "quit_early": false, "invented_facts": false},
    })
    .to_string()
}

/// A campaign with `n` closed sessions of three rounds each (not yet
/// reviewed), oldest first.
async fn closed_sessions(tp: &TestPlatform, n: usize) -> (CampaignId, Vec<SessionId>) {
    let c = campaign(
        tp,
        1.0,
        Budget {
            max_sessions: Some(40),
            max_turns: Some(12),
            min_interval_minutes: Some(0.0),
        },
    )
    .await;
    let mut ids = Vec::new();
    for i in 0..n {
        let s = tp
            .platform
            .create_session(CreateSession {
                campaign_id: c.id,
                persona: json!({"name": format!("Persona {i}"), "language": "en"}),
                goal: json!({"title": format!("Goal {i}")}),
                seed_ref: None,
                trigger: Some(Trigger::Manual),
                played_by: None,
                user_model: None,
            })
            .await
            .unwrap();
        for q in ["first question", "second question", "third question"] {
            tp.platform
                .send_message(
                    s.id,
                    SendMessage {
                        content: format!("{q} of session {i}"),
                    },
                )
                .await
                .unwrap();
        }
        tp.platform
            .close_session(s.id, CloseSession::default())
            .await
            .unwrap();
        ids.push(s.id);
        tp.clock.advance(chrono::Duration::seconds(1));
    }
    (c.id, ids)
}

fn scores(attitude: u8, professionalism: u8, hallucination: u8) -> CriterionScores {
    CriterionScores {
        attitude,
        professionalism,
        hallucination,
    }
}

#[tokio::test]
async fn the_queue_hides_the_judge_and_a_label_reveals_it() {
    let tp = platform().await;
    let (campaign_id, ids) = closed_sessions(&tp, 3).await;
    let judge = FakeChatClient::new([answer(4, 3, 5), answer(2, 2, 1), answer(5, 5, 5)]);
    review_pending(&tp.platform, Some(&judge), JudgeSampling::default())
        .await
        .unwrap();
    // A session still running has no judge verdict: it is not queued.
    let running = tp
        .platform
        .create_session(CreateSession {
            campaign_id,
            persona: json!({"name": "Late"}),
            goal: json!({"title": "Late goal"}),
            seed_ref: None,
            trigger: Some(Trigger::Manual),
            played_by: None,
            user_model: None,
        })
        .await
        .unwrap();

    let queue = tp.platform.blind_queue(campaign_id, None).await.unwrap();
    assert_eq!(queue.remaining, 3, "the three judged sessions wait");
    assert_eq!(queue.labelled, 0);
    let queued: Vec<SessionId> = queue.items.iter().map(|i| i.session_id).collect();
    assert_eq!(queued, ids, "oldest first, the running session left out");
    assert_eq!(queue.items[0].persona_name, "Persona 0");
    assert_eq!(
        queue.items[0]
            .turns
            .iter()
            .filter(|t| t.role == "user")
            .count(),
        3,
        "the whole conversation is there to read"
    );
    let wire = serde_json::to_string(&queue).unwrap();
    for word in ["score", "evidence", "dimensions", "quoted", "judge"] {
        assert!(
            !wire.contains(word),
            "the queue carries no {word:?}: {wire}"
        );
    }
    let one = tp.platform.blind_queue(campaign_id, Some(1)).await.unwrap();
    assert_eq!(
        (one.items.len(), one.remaining),
        (1, 3),
        "limit cuts items, not the count"
    );

    let revealed = tp
        .platform
        .submit_label(SubmitLabel {
            session_id: ids[0],
            scores: scores(4, 4, 5),
            reviewer: " Ann ".into(),
        })
        .await
        .unwrap();
    assert_eq!(
        revealed.judge.attitude.score, 4,
        "the judge's own scores come back"
    );
    assert_eq!(revealed.judge.professionalism.score, 3);
    assert_eq!(
        revealed.judge.professionalism.evidence.to_string(),
        "quoted professionalism"
    );
    assert_eq!(revealed.label.reviewer, "Ann");
    assert_eq!(revealed.label.campaign_id, campaign_id);

    let queue = tp.platform.blind_queue(campaign_id, None).await.unwrap();
    assert_eq!((queue.remaining, queue.labelled), (2, 1));
    assert!(
        !queue.items.iter().any(|i| i.session_id == ids[0]),
        "a labelled session leaves the queue"
    );

    let again = tp
        .platform
        .submit_label(SubmitLabel {
            session_id: ids[0],
            scores: scores(1, 1, 1),
            reviewer: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        again.code(),
        ErrorCode::Conflict,
        "a second label would not be blind"
    );
    let labels = tp.platform.judge_labels(campaign_id).await.unwrap();
    assert_eq!(labels.len(), 1);
    assert_eq!(labels[0].scores, scores(4, 4, 5), "the first label is kept");

    let bad = tp
        .platform
        .submit_label(SubmitLabel {
            session_id: ids[1],
            scores: scores(3, 6, 3),
            reviewer: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(bad.code(), ErrorCode::InvalidInput);
    assert!(
        bad.body.message.contains("scores.professionalism"),
        "{}",
        bad.body.message
    );
    assert!(!bad.body.suggestion.is_empty());
    let zero = tp
        .platform
        .submit_label(SubmitLabel {
            session_id: ids[1],
            scores: scores(0, 3, 3),
            reviewer: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(zero.code(), ErrorCode::InvalidInput);
    assert_eq!(
        tp.platform
            .blind_queue(campaign_id, None)
            .await
            .unwrap()
            .remaining,
        2,
        "refused labels store nothing"
    );
    let unjudged = tp
        .platform
        .submit_label(SubmitLabel {
            session_id: running.id,
            scores: scores(3, 3, 3),
            reviewer: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        unjudged.code(),
        ErrorCode::Conflict,
        "nothing to compare with"
    );
    let unknown = tp
        .platform
        .submit_label(SubmitLabel {
            session_id: SessionId(Uuid::now_v7()),
            scores: scores(3, 3, 3),
            reviewer: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), ErrorCode::NotFound);
    assert_eq!(
        tp.platform
            .blind_queue(campaign_id, Some(0))
            .await
            .unwrap_err()
            .code(),
        ErrorCode::InvalidInput
    );
    assert_eq!(
        tp.platform
            .blind_queue(agenteval_engine::CampaignId(Uuid::now_v7()), None)
            .await
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );
}

#[tokio::test]
async fn calibration_per_criterion_follows_labels_and_thresholds() {
    let tp = platform().await;
    let (campaign_id, ids) = closed_sessions(&tp, 10).await;
    let ladder = [5u8, 4, 3, 2, 1, 5, 4, 3, 2, 1];
    let hall = [5u8, 5, 5, 5, 5, 1, 1, 1, 1, 1];
    let judge = FakeChatClient::new((0..10).map(|i| answer(ladder[i], ladder[i], hall[i])));
    review_pending(&tp.platform, Some(&judge), JudgeSampling::default())
        .await
        .unwrap();
    let before = tp.platform.campaign_report(campaign_id).await.unwrap();
    let c = before
        .judge_calibration
        .expect("judged sessions bring the calibration block");
    assert_eq!((c.labelled, c.unlabelled), (0, 10));
    assert!(
        c.criteria
            .iter()
            .all(|k| k.items == 0 && k.kappa.is_none() && !k.calibrated)
    );

    // The person agrees on attitude and hallucination, and reads
    // professionalism the other way round.
    for (i, id) in ids.iter().enumerate() {
        tp.platform
            .submit_label(SubmitLabel {
                session_id: *id,
                scores: scores(ladder[i], 6 - ladder[i], hall[i]),
                reviewer: String::new(),
            })
            .await
            .unwrap();
        if i == 3 {
            // Counted from the tally of scored sessions, less the labelled.
            let c = tp.platform.judge_calibration(campaign_id).await.unwrap();
            assert_eq!((c.labelled, c.unlabelled), (4, 6));
        }
    }
    tp.platform
        .set_judge_policy(JudgePolicy {
            min_items: 10,
            ..Default::default()
        })
        .unwrap();
    let c = tp.platform.judge_calibration(campaign_id).await.unwrap();
    assert_eq!(c.kappa_kind, "linear_weighted");
    assert_eq!((c.labelled, c.unlabelled), (10, 0));
    let [att, prof, hal] = [&c.criteria[0], &c.criteria[1], &c.criteria[2]];
    assert_eq!(att.criterion, "attitude");
    assert_eq!(att.items, 10);
    assert_eq!(att.agreement, Some(1.0));
    assert_eq!(att.kappa, Some(1.0), "equal scores throughout");
    assert!(att.calibrated, "kappa 1 over 10 items with min_items 10");
    // Reversed 5..1 ladder: agreement only on the 3s (2 of 10). Linear
    // weights: p_o = (0 + .5 + 1 + .5 + 0) / 5 = .4; both marginals are
    // uniform, so p_e = mean weight over the 25 cells = 15/25 = .6;
    // kappa = (.4 - .6) / (1 - .6) = -0.5.
    assert_eq!(prof.agreement, Some(0.2));
    assert!(
        (prof.kappa.unwrap() + 0.5).abs() < 1e-9,
        "kappa -0.5, got {:?}",
        prof.kappa
    );
    assert!(!prof.calibrated, "disagreement keeps it advisory");
    let (lo, hi) = (prof.kappa_low.unwrap(), prof.kappa_high.unwrap());
    assert!(lo <= -0.5 && -0.5 <= hi, "[{lo}, {hi}] holds the estimate");
    assert!(hal.calibrated && hal.kappa == Some(1.0));
    assert_eq!(
        tp.platform.judge_calibration(campaign_id).await.unwrap(),
        c,
        "the bootstrap is seeded: the same data, the same interval"
    );
    let md = tp
        .platform
        .export_campaign(campaign_id, ExportFormat::Md, agenteval_engine::Lang::En)
        .await
        .unwrap();
    assert!(md.contains("### Judge calibration"), "{md}");
    assert!(md.contains("| attitude | 10 | 100.0% | 1.00 ["), "{md}");
    assert!(
        md.contains("professionalism 3.0/5 (advisory)"),
        "advisory in the judge row: {md}"
    );
    assert!(md.contains("attitude 3.0/5 (calibrated)"), "{md}");

    // One more item required: nothing is calibrated any more.
    tp.platform
        .set_judge_policy(JudgePolicy {
            min_items: 11,
            ..Default::default()
        })
        .unwrap();
    let report = tp.platform.campaign_report(campaign_id).await.unwrap();
    let c = report.judge_calibration.unwrap();
    assert!(
        c.criteria.iter().all(|k| !k.calibrated),
        "10 labels < 11 required"
    );
    assert!(c.advisory("attitude"));
    assert_eq!(
        c.policy.min_items, 11,
        "the report says which thresholds it used"
    );

    let bad = tp
        .platform
        .set_judge_policy(JudgePolicy {
            min_kappa: 1.5,
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(bad.code(), ErrorCode::InvalidInput);
    assert!(bad.body.message.contains("min_kappa"));
    assert_eq!(
        tp.platform.judge_policy().min_items,
        11,
        "a refused policy changes nothing"
    );
}

#[tokio::test]
async fn a_second_pass_with_rounds_reversed_and_rubric_reworded_measures_self_agreement() {
    let tp = platform().await;
    tp.platform
        .set_judge_policy(JudgePolicy {
            second_pass: true,
            ..Default::default()
        })
        .unwrap();
    let (campaign_id, _) = closed_sessions(&tp, 4).await;
    // First and second pass of each session in turn: professionalism
    // changes between passes on two sessions of four.
    let judge = FakeChatClient::new([
        answer(4, 4, 5),
        answer(4, 2, 5),
        answer(3, 3, 4),
        answer(3, 3, 4),
        answer(5, 5, 5),
        answer(5, 3, 5),
        answer(2, 2, 2),
        answer(2, 2, 2),
    ]);
    review_pending(&tp.platform, Some(&judge), JudgeSampling::default())
        .await
        .unwrap();
    let prompts = judge.prompts();
    assert_eq!(prompts.len(), 8, "every session is reviewed twice");
    assert!(
        prompts[0][0].content.contains("strict quality judge")
            && prompts[1][0].content.contains("impartial evaluator"),
        "the second pass words the rubric differently"
    );
    assert!(
        prompts[0][1]
            .content
            .contains("[round 1] USER: first question of session 0"),
        "first pass in order"
    );
    assert!(
        prompts[1][1]
            .content
            .contains("[round 1] USER: third question of session 0"),
        "second pass with the rounds reversed: {}",
        prompts[1][1].content
    );
    let s = tp
        .platform
        .get_session(
            tp.platform
                .blind_queue(campaign_id, Some(1))
                .await
                .unwrap()
                .items[0]
                .session_id,
        )
        .await
        .unwrap();
    assert_eq!(
        s.judge_review.unwrap()["dimensions"]["professionalism"]["score"],
        4,
        "the first pass stays the session's review"
    );

    let c = tp.platform.judge_calibration(campaign_id).await.unwrap();
    let k = c.consistency.expect("sessions were reviewed twice");
    assert_eq!(k[0].criterion, "attitude");
    assert_eq!(
        (k[0].items, k[0].self_agreement, k[0].contradicts),
        (4, Some(1.0), false)
    );
    assert_eq!(k[1].self_agreement, Some(0.5), "2 of 4 equal");
    assert!(k[1].contradicts, "0.5 is below the 0.8 default");
    assert!(!k[2].contradicts);
    let md = tp
        .platform
        .export_campaign(campaign_id, ExportFormat::Md, agenteval_engine::Lang::En)
        .await
        .unwrap();
    assert!(md.contains("### Judge consistency"), "{md}");
    assert!(md.contains("| professionalism | 4 | 50.0% |"), "{md}");
    assert!(md.contains("contradicts itself"), "{md}");
}

#[tokio::test]
async fn without_the_option_there_is_no_second_pass() {
    let tp = platform().await;
    let (campaign_id, _) = closed_sessions(&tp, 2).await;
    let judge = FakeChatClient::new([answer(4, 4, 4), answer(3, 3, 3)]);
    review_pending(&tp.platform, Some(&judge), JudgeSampling::default())
        .await
        .unwrap();
    assert_eq!(
        judge.prompts().len(),
        2,
        "one review per session by default"
    );
    let c = tp.platform.judge_calibration(campaign_id).await.unwrap();
    assert_eq!(c.consistency, None);
    let md = tp
        .platform
        .export_campaign(campaign_id, ExportFormat::Md, agenteval_engine::Lang::En)
        .await
        .unwrap();
    assert!(!md.contains("Judge consistency"));
}

// Fixed runs whose checks include a rubric, in the same queue.

/// The rubric of the scenario below; its words of four letters or more
/// are what the offline heuristic looks for in a reply.
const GREETING_RUBRIC: &str = "A friendly greeting that offers help with an order or a refund.";

/// The target's replies, each with the score the offline heuristic gives
/// it against [`GREETING_RUBRIC`] and the score a person gives it.
/// Heuristic: 40+ characters using 2+ of the rubric's words: 4; a plain
/// reply: 3; under 10 characters or a refusal: 2.
const REPLIES: [(&str, u8, u8); 10] = [
    (
        "Hello and welcome! I can help with your order or your refund today.",
        4,
        4,
    ),
    (
        "Good morning! Happy to help with any order question or a refund.",
        4,
        4,
    ),
    (
        "Hi there, welcome back. I can help with an order or a refund for you.",
        4,
        4,
    ),
    (
        "Welcome! Tell me about your order and I will help with the refund.",
        4,
        5,
    ),
    ("Good day to you, dear customer.", 3, 3),
    ("Nice to meet you.", 3, 3),
    ("Thanks for writing in.", 3, 4),
    ("Hi.", 2, 2),
    ("Hey", 2, 2),
    ("I can't do that right now.", 2, 1),
];

/// A finished campaign of ten fixed runs of one scenario with a rubric
/// check, against a target that gives each reply of [`REPLIES`] once.
async fn rubric_campaign(tp: &TestPlatform) -> (Uuid, crate::fault_server::FaultServer) {
    use crate::fault_server::{Fault, FaultServer, completion};
    use agenteval_engine::campaign::{CreateCampaign, Plan, PlanEntry};
    use agenteval_engine::scenario::{Check, Scenario, ScenarioTurn};
    use agenteval_engine::target::TargetSettings;
    let p = &tp.platform;
    p.scenarios.insert_all([Scenario {
        max_steps: None,
        workspace: None,
        id: "greet".into(),
        title: "Greets and offers help".into(),
        pack: "t".into(),
        tags: vec![],
        group: None,
        system: None,
        facts: vec![],
        key_fields: vec![],
        tools: Default::default(),
        turns: vec![ScenarioTurn {
            max_steps: None,
            user: "Hello".into(),
            checks: vec![
                Check::Rubric {
                    rubric: GREETING_RUBRIC.into(),
                    min_score: Some(3),
                },
                Check::MaxLatencyMs { ms: 60_000 },
            ],
        }],
        source_file: "t.yaml".into(),
        shipped: false,
        source_line: 1,
        content_hash: "h".into(),
        lineage: None,
        from_traces: None,
    }]);
    let server = FaultServer::start(
        REPLIES
            .iter()
            .map(|(reply, _, _)| Fault::Ok(completion(reply)))
            .collect(),
    )
    .await;
    let target = p
        .create_target(TargetSettings {
            max_retries: Some(0),
            ..TargetSettings::openai("Scripted", &server.base_url(), "m")
        })
        .await
        .unwrap()
        .id;
    let c = p
        .create_campaign(CreateCampaign {
            name: "rubric week".into(),
            target_id: target,
            plan: Some(Plan {
                entries: vec![PlanEntry {
                    scenario_id: "greet".into(),
                    rounds: Some(REPLIES.len() as u32),
                    ..Default::default()
                }],
            }),
            duration_hours: Some(1.0),
            time_scale: Some(3600.0),
            ..Default::default()
        })
        .await
        .unwrap();
    tp.clock.advance(chrono::Duration::seconds(5));
    p.tick().await.unwrap();
    assert_eq!(server.attempts(), REPLIES.len(), "every run asked once");
    (c.id.into(), server)
}

/// The reply of a queued run and what the heuristic and the person score it.
fn reply_of(item: &agenteval_engine::calibration::BlindRunItem) -> (u8, u8) {
    let reply = item
        .turns
        .iter()
        .find(|t| t.role == "target")
        .expect("the run's reply is in the item");
    let (_, judge, person) = REPLIES
        .iter()
        .find(|(r, _, _)| *r == reply.content)
        .expect("one of the scripted replies");
    (*judge, *person)
}

fn run_label(
    item: &agenteval_engine::calibration::BlindRunItem,
    score: u8,
) -> agenteval_engine::calibration::SubmitRunLabel {
    agenteval_engine::calibration::SubmitRunLabel {
        run_id: item.run_id,
        scores: item
            .rubrics
            .iter()
            .map(|r| agenteval_engine::calibration::RubricScore {
                check_index: r.check_index,
                score,
            })
            .collect(),
        reviewer: "Bo".into(),
    }
}

#[tokio::test]
async fn a_rubric_run_is_queued_blind_and_a_label_reveals_the_judge() {
    use agenteval_engine::judge::JudgeMethod;
    let tp = platform().await;
    let (campaign_id, _server) = rubric_campaign(&tp).await;

    let queue = tp
        .platform
        .blind_run_queue(agenteval_engine::CampaignId(campaign_id), None)
        .await
        .unwrap();
    assert_eq!(
        (queue.remaining, queue.labelled, queue.items.len()),
        (10, 0, 10),
        "every run with a judged rubric check waits"
    );
    let item = &queue.items[0];
    assert_eq!(item.scenario_title, "Greets and offers help");
    assert_eq!(item.rubrics.len(), 1, "the latency check is no rubric");
    assert_eq!(item.rubrics[0].rubric, GREETING_RUBRIC);
    assert_eq!((item.rubrics[0].check_index, item.rubrics[0].turn), (0, 0));
    assert_eq!(
        item.turns
            .iter()
            .map(|t| t.role.as_str())
            .collect::<Vec<_>>(),
        ["user", "target"],
        "the conversation is there to read"
    );
    let wire = serde_json::to_string(&queue).unwrap();
    for word in [
        "score",
        "scored",
        "detail",
        "judged_by",
        "passed",
        "heuristic",
        "reason",
    ] {
        assert!(
            !wire.contains(word),
            "the queue carries no {word:?}: {wire}"
        );
    }
    let runs = tp
        .platform
        .list_runs(agenteval_engine::CampaignId(campaign_id))
        .await
        .unwrap();
    let stored = runs.iter().find(|r| r.id == item.run_id).unwrap();
    assert!(
        stored.check_results[0].score.is_some(),
        "the run itself keeps the judge's score"
    );

    let (judge, mine) = reply_of(item);
    let revealed = tp
        .platform
        .submit_run_label(run_label(item, mine))
        .await
        .unwrap();
    assert_eq!(revealed.run_id, item.run_id);
    assert_eq!(
        revealed.campaign_id,
        agenteval_engine::CampaignId(campaign_id)
    );
    assert_eq!(revealed.reviewer, "Bo");
    let check = &revealed.checks[0];
    assert_eq!(check.mine, mine, "the person's score comes back");
    assert_eq!(
        check.judge, judge,
        "and the judge's, revealed after the label"
    );
    assert_eq!(check.rubric, GREETING_RUBRIC);
    assert_eq!(
        check.judged_by,
        JudgeMethod::Heuristic,
        "no judge model here"
    );
    assert!(
        check
            .reason
            .to_string()
            .contains(&format!("offline heuristic scored {judge}/5")),
        "{}",
        check.reason
    );
    let labels = tp
        .platform
        .judge_run_labels(agenteval_engine::CampaignId(campaign_id))
        .await
        .unwrap();
    assert_eq!(labels.len(), 1);
    assert_eq!((labels[0].run_id, labels[0].score), (item.run_id, mine));

    let queue = tp
        .platform
        .blind_run_queue(agenteval_engine::CampaignId(campaign_id), Some(3))
        .await
        .unwrap();
    assert_eq!(
        (queue.remaining, queue.labelled, queue.items.len()),
        (9, 1, 3),
        "the labelled run left the queue; limit cuts items, not the count"
    );
    assert!(queue.items.iter().all(|i| i.run_id != item.run_id));

    let again = tp
        .platform
        .submit_run_label(run_label(item, 1))
        .await
        .unwrap_err();
    assert_eq!(
        again.code(),
        ErrorCode::Conflict,
        "a second label would not be blind"
    );
    assert_eq!(
        tp.platform
            .judge_run_labels(agenteval_engine::CampaignId(campaign_id))
            .await
            .unwrap()[0]
            .score,
        mine,
        "the first label is kept"
    );
    let next = &queue.items[0];
    let off_scale = tp
        .platform
        .submit_run_label(run_label(next, 6))
        .await
        .unwrap_err();
    assert_eq!(off_scale.code(), ErrorCode::InvalidInput);
    assert!(!off_scale.body.suggestion.is_empty());
    let mut unnamed = run_label(next, 3);
    unnamed.scores[0].check_index = 1;
    let unnamed = tp.platform.submit_run_label(unnamed).await.unwrap_err();
    assert_eq!(
        unnamed.code(),
        ErrorCode::Conflict,
        "check 1 is the latency check, not a rubric: the scores do not fit this run"
    );
    let mut none = run_label(next, 3);
    none.scores.clear();
    assert_eq!(
        tp.platform.submit_run_label(none).await.unwrap_err().code(),
        ErrorCode::InvalidInput,
        "every rubric check is scored"
    );
    assert_eq!(
        tp.platform
            .blind_run_queue(agenteval_engine::CampaignId(campaign_id), None)
            .await
            .unwrap()
            .remaining,
        9,
        "refused labels store nothing"
    );
    let mut unknown = run_label(next, 3);
    unknown.run_id = agenteval_engine::RunId(Uuid::now_v7());
    assert_eq!(
        tp.platform
            .submit_run_label(unknown)
            .await
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );
    assert_eq!(
        tp.platform
            .blind_run_queue(agenteval_engine::CampaignId(campaign_id), Some(51))
            .await
            .unwrap_err()
            .code(),
        ErrorCode::InvalidInput
    );
    // The session queue of this campaign is empty: runs are queued apart.
    let sessions = tp
        .platform
        .blind_queue(agenteval_engine::CampaignId(campaign_id), None)
        .await
        .unwrap();
    assert_eq!((sessions.remaining, sessions.items.len()), (0, 0));
}

/// Ten labelled rubric checks, (judge, person):
/// (4,4) x3, (4,5) x1, (3,3) x2, (3,4) x1, (2,2) x2, (2,1) x1.
/// Raw agreement: 7 of 10 = 0.7. Linear weights (1 - |i-j|/4): the seven
/// equal pairs weigh 1, the three one apart 0.75: p_o = 9.25 / 10 = 0.925.
/// Marginals, judge: 4 .4, 3 .3, 2 .3; person: 5 .1, 4 .4, 3 .2, 2 .2, 1 .1.
/// Expected weight per judge score: 4: .075 + .4 + .15 + .1 + .025 = .75;
/// 3: .05 + .3 + .2 + .15 + .05 = .75; 2: .025 + .2 + .15 + .2 + .075 = .65;
/// p_e = .4 * .75 + .3 * .75 + .3 * .65 = .72.
/// kappa_w = (.925 - .72) / (1 - .72) = .205 / .28 = 0.732143.
#[tokio::test]
async fn rubric_kappa_matches_the_hand_worked_table_and_is_advisory_until_calibrated() {
    let tp = platform().await;
    let (campaign_id, _server) = rubric_campaign(&tp).await;
    let report = tp
        .platform
        .campaign_report(agenteval_engine::CampaignId(campaign_id))
        .await
        .unwrap();
    let c = report
        .judge_calibration
        .expect("judged rubric checks bring the calibration block");
    assert_eq!(
        c.criteria
            .iter()
            .map(|k| k.criterion.as_str())
            .collect::<Vec<_>>(),
        ["rubric"],
        "a campaign of fixed runs only has the rubric criterion"
    );
    assert_eq!((c.runs_labelled, c.runs_unlabelled), (0, 10));
    assert!(c.advisory("rubric") && c.criteria[0].kappa.is_none());

    let queue = tp
        .platform
        .blind_run_queue(agenteval_engine::CampaignId(campaign_id), Some(50))
        .await
        .unwrap();
    for item in &queue.items {
        let (judge, mine) = reply_of(item);
        let revealed = tp
            .platform
            .submit_run_label(run_label(item, mine))
            .await
            .unwrap();
        assert_eq!(revealed.checks[0].judge, judge, "{:?}", item.turns);
    }
    let c = tp
        .platform
        .judge_calibration(agenteval_engine::CampaignId(campaign_id))
        .await
        .unwrap();
    assert_eq!((c.runs_labelled, c.runs_unlabelled), (10, 0));
    assert_eq!((c.labelled, c.unlabelled), (0, 0), "no session involved");
    let k = &c.criteria[0];
    assert_eq!((k.criterion.as_str(), k.items), ("rubric", 10));
    assert_eq!(k.agreement, Some(0.7));
    let kappa = k.kappa.unwrap();
    assert!(
        (kappa - 0.205 / 0.28).abs() < 1e-9,
        "kappa 0.732143, got {kappa}"
    );
    let (lo, hi) = (k.kappa_low.unwrap(), k.kappa_high.unwrap());
    assert!(
        lo <= kappa && kappa <= hi,
        "[{lo}, {hi}] holds the estimate"
    );
    assert!(
        !k.calibrated,
        "kappa 0.73 >= 0.6, but 10 labelled checks < 30"
    );
    assert!(c.advisory("rubric"));
    assert_eq!(
        tp.platform
            .judge_calibration(agenteval_engine::CampaignId(campaign_id))
            .await
            .unwrap(),
        c,
        "the bootstrap is seeded: the same data, the same interval"
    );
    let md = tp
        .platform
        .export_campaign(
            agenteval_engine::CampaignId(campaign_id),
            ExportFormat::Md,
            agenteval_engine::Lang::En,
        )
        .await
        .unwrap();
    assert!(md.contains("### Rubric checks"), "{md}");
    assert!(
        md.contains(
            "The judge's rubric figures are advisory (needs kappa >= 0.60 over 30 labelled rubric checks)."
        ),
        "{md}"
    );
    assert!(
        md.contains("| rubric | 10 | 70.0% | 0.73 ["),
        "the table: {md}"
    );

    tp.platform
        .set_judge_policy(JudgePolicy {
            min_items: 10,
            ..Default::default()
        })
        .unwrap();
    let c = tp
        .platform
        .judge_calibration(agenteval_engine::CampaignId(campaign_id))
        .await
        .unwrap();
    assert!(
        c.criteria[0].calibrated,
        "kappa 0.73 over 10 with min_items 10"
    );
    assert!(!c.advisory("rubric"));
    let md = tp
        .platform
        .export_campaign(
            agenteval_engine::CampaignId(campaign_id),
            ExportFormat::Md,
            agenteval_engine::Lang::En,
        )
        .await
        .unwrap();
    assert!(
        md.contains("The judge's rubric figures are calibrated."),
        "{md}"
    );
    tp.platform
        .set_judge_policy(JudgePolicy {
            min_items: 10,
            min_kappa: 0.75,
            ..Default::default()
        })
        .unwrap();
    assert!(
        tp.platform
            .judge_calibration(agenteval_engine::CampaignId(campaign_id))
            .await
            .unwrap()
            .advisory("rubric"),
        "kappa 0.73 < 0.75"
    );
}
