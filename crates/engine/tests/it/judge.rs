//! Tests: the judge review over stored sessions: sampling bounds on the
//! prompt the judge receives, failures stored without blocking, the
//! heuristic judge offline.

use crate::patrol_agent::campaign;
use crate::support::platform;
use agenteval_engine::campaign::Budget;
use agenteval_engine::channel::{ChannelError, ChannelErrorKind};
use agenteval_engine::channel::{ChatMessage, ChatReply};
use agenteval_engine::exploration::{
    CloseSession, CreateSession, SendMessage, SessionStatus, Trigger,
};
use agenteval_engine::judge::{JudgeSampling, review_pending};
use agenteval_engine::role_models::{ChatClient, FakeChatClient};
use agenteval_engine::structured::OutputMode;
use serde_json::json;
use uuid::Uuid;

const JUDGE_OK: &str = r#"{"attitude": {"score": 4, "evidence": "Sure"}, "professionalism": {"score": 4, "evidence": "ok"},
  "hallucination": {"score": 2, "evidence": "42%"}, "findings": [{"grade": "poor", "dimension": "hallucination", "text": "invented 42%", "turn": 2, "step": 0}],
  "simulator": {"in_persona": true, "quit_early": false, "invented_facts": false}}"#;

/// A manual session with `rounds` long user messages, closed.
async fn closed_session(
    tp: &crate::support::TestPlatform,
    rounds: usize,
) -> (Uuid, Uuid, Vec<String>) {
    let c = campaign(
        tp,
        1.0,
        Budget {
            max_turns: Some(12),
            ..Default::default()
        },
    )
    .await;
    let s = tp
        .platform
        .create_session(CreateSession {
            campaign_id: c.id,
            persona: json!({"name": "Ann", "language": "en"}),
            goal: json!({"title": "Send an email"}),
            seed_ref: None,
            trigger: Some(Trigger::Manual),
            played_by: None,
            user_model: None,
        })
        .await
        .unwrap();
    let mut sent = Vec::new();
    for i in 0..rounds {
        let content = format!("round{i:02} {}", "x".repeat(600));
        tp.platform
            .send_message(
                s.id,
                SendMessage {
                    content: content.clone(),
                },
            )
            .await
            .unwrap();
        sent.push(content);
    }
    tp.platform
        .close_session(
            s.id,
            CloseSession {
                goal_achieved: false,
                emotion: Some("neutral".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    (c.id.into(), s.id.into(), sent)
}

#[tokio::test]
async fn the_judge_sees_at_most_three_rounds_truncated_to_500_characters() {
    let tp = platform().await;
    let (campaign_id, id, sent) = closed_session(&tp, 7).await;
    let judge = FakeChatClient::new([JUDGE_OK]).with_mode(OutputMode::JsonObjectSchema);
    let n = review_pending(&tp.platform, Some(&judge), JudgeSampling::default())
        .await
        .unwrap();
    assert_eq!(n, 1);
    let prompts = judge.prompts();
    assert_eq!(prompts.len(), 1, "a usable answer needs no retry");
    assert_eq!(
        judge.schemas(),
        vec!["judge_review"],
        "the judge is asked with its schema"
    );
    let report = tp
        .platform
        .campaign_report(agenteval_engine::CampaignId(campaign_id))
        .await
        .unwrap();
    assert_eq!(
        report.models.output_modes.judge,
        Some(OutputMode::JsonObjectSchema),
        "the campaign records how the judge was asked"
    );
    assert_eq!(
        report.models.output_modes.virtual_user, None,
        "a person played the user"
    );
    let md = tp
        .platform
        .export_campaign(
            agenteval_engine::CampaignId(campaign_id),
            agenteval_engine::export::ExportFormat::Md,
            agenteval_engine::Lang::En,
        )
        .await
        .unwrap();
    assert!(
        md.contains("(structured output: json_object_schema)"),
        "the export says it too"
    );
    let prompt = &prompts[0][1].content;
    let messages = prompt.matches("[round ").count();
    assert!(
        messages <= 6,
        "at most 3 rounds = 6 messages, got {messages}"
    );
    assert_eq!(
        prompt.matches("USER: ").count(),
        3,
        "three rounds are sampled from seven"
    );
    assert!(
        prompt.contains("[round 1] USER: round00") && prompt.contains("[round 7] USER: round06"),
        "first and last rounds are kept"
    );
    assert!(
        !prompt.contains(&sent[0]),
        "a 607-character message never reaches the judge whole"
    );
    assert!(
        prompt.contains(&format!("{}…", &sent[0][..500])),
        "it is cut at 500 characters"
    );
    let s = tp
        .platform
        .get_session(agenteval_engine::SessionId(id))
        .await
        .unwrap();
    assert_eq!(s.judge_status, "done");
    let review = s.judge_review.unwrap();
    assert_eq!(review["method"], "model");
    assert_eq!(
        review["output_mode"], "json_object_schema",
        "each review keeps its form"
    );
    assert_eq!(review["sample"]["messages"], 6);
    assert_eq!(review["findings"][0]["severity"], "poor");

    let narrow = FakeChatClient::new([JUDGE_OK]);
    let (_, _, _) = closed_session(&tp, 4).await;
    review_pending(
        &tp.platform,
        Some(&narrow),
        JudgeSampling {
            max_rounds: 1,
            max_chars: 20,
        },
    )
    .await
    .unwrap();
    let prompt = &narrow.prompts()[0][1].content;
    assert_eq!(
        prompt.matches("USER: ").count(),
        1,
        "sampling is configurable"
    );
    assert!(!prompt.contains(&"x".repeat(21)), "so is truncation");
}

#[tokio::test]
async fn a_failed_judge_is_stored_and_blocks_nothing() {
    let tp = platform().await;
    let (campaign_id, id, _) = closed_session(&tp, 2).await;
    let judge = FakeChatClient::new(["not json at all", "still {not json"]);
    judge.push_error(ChannelError::new(ChannelErrorKind::Timeout, "unused"));
    assert_eq!(
        review_pending(&tp.platform, Some(&judge), JudgeSampling::default())
            .await
            .unwrap(),
        1
    );
    assert_eq!(judge.prompts().len(), 2, "malformed output is retried once");
    let s = tp
        .platform
        .get_session(agenteval_engine::SessionId(id))
        .await
        .unwrap();
    assert_eq!(
        s.status,
        SessionStatus::Completed,
        "the session stays completed"
    );
    assert_eq!(s.judge_status, "failed");
    let review = s.judge_review.unwrap();
    // Why, in the reader's language: a message, the cause its parameter.
    assert_eq!(review["error"]["key"], "judge-model-malformed", "{review}");
    let error: agenteval_engine::i18n::Text =
        serde_json::from_value(review["error"].clone()).unwrap();
    assert!(
        error
            .render(agenteval_engine::i18n::Lang::Zh)
            .starts_with("评审模型两次给出的输出都无法使用："),
        "{review}"
    );
    let findings = tp
        .platform
        .exploration_findings(agenteval_engine::CampaignId(campaign_id))
        .await
        .unwrap()
        .expect("exploration data");
    assert_eq!(
        findings.judge.failed, 1,
        "the report counts the failed review apart"
    );
    assert_eq!(
        review_pending(&tp.platform, Some(&judge), JudgeSampling::default())
            .await
            .unwrap(),
        0,
        "a failed review is not retried forever"
    );

    let (_, down, _) = closed_session(&tp, 1).await;
    let unreachable = FakeChatClient::default();
    unreachable.push_error(ChannelError::new(
        ChannelErrorKind::Connect,
        "connection refused",
    ));
    review_pending(&tp.platform, Some(&unreachable), JudgeSampling::default())
        .await
        .unwrap();
    let s = tp
        .platform
        .get_session(agenteval_engine::SessionId(down))
        .await
        .unwrap();
    assert_eq!(s.judge_status, "failed");
    let review = s.judge_review.unwrap();
    assert_eq!(review["error"]["key"], "judge-model-failed", "{review}");
    assert!(
        review["error"]["args"]["detail"]
            .as_str()
            .unwrap()
            .contains("connection refused"),
        "{review}"
    );
}

#[tokio::test]
async fn offline_the_heuristic_judge_reviews_every_pending_session() {
    let tp = platform().await;
    let (_, a, _) = closed_session(&tp, 2).await;
    let (_, b, _) = closed_session(&tp, 1).await;
    assert_eq!(
        review_pending(&tp.platform, None, JudgeSampling::default())
            .await
            .unwrap(),
        2
    );
    for id in [a, b] {
        let s = tp
            .platform
            .get_session(agenteval_engine::SessionId(id))
            .await
            .unwrap();
        assert_eq!(s.judge_status, "done");
        let r = s.judge_review.unwrap();
        assert_eq!(r["method"], "heuristic");
        for d in ["attitude", "professionalism", "hallucination"] {
            let score = r["dimensions"][d]["score"].as_u64().unwrap();
            assert!((1..=5).contains(&score), "{d} scored 1-5");
        }
    }
}

#[tokio::test]
async fn the_judge_worker_reviews_sessions_closed_after_it_started() {
    let tp = platform().await;
    let worker = agenteval_engine::runtime::judge_worker::spawn(
        tp.platform.clone(),
        JudgeSampling::default(),
    );
    // Closed through the operations (as an external assistant would through
    // the API), after the worker is already waiting.
    let (_, session, _) = closed_session(&tp, 2).await;
    let mut status = String::new();
    for _ in 0..500 {
        status = tp
            .platform
            .get_session(agenteval_engine::SessionId(session))
            .await
            .unwrap()
            .judge_status;
        if status != "pending" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    worker.abort();
    assert_eq!(
        status, "done",
        "the worker reviewed the session with the heuristic judge"
    );
}

/// A judge that answers only once let go, so that a review stays in
/// flight while another worker looks at the same session.
struct HeldJudge {
    inner: FakeChatClient,
    asked: tokio::sync::Notify,
    go: tokio::sync::Notify,
}

#[async_trait::async_trait]
impl ChatClient for HeldJudge {
    async fn complete(&self, messages: &[ChatMessage]) -> Result<ChatReply, ChannelError> {
        self.asked.notify_one();
        self.go.notified().await;
        self.inner.complete(messages).await
    }
    fn model_name(&self) -> String {
        self.inner.model_name()
    }
}

/// Two workers of a team server on one database: while one reviews a
/// session, the other does not ask its judge about it, and once the review
/// is stored nobody asks again. The judge is asked once per session.
#[tokio::test]
async fn a_session_is_reviewed_by_one_worker_of_the_cluster() {
    let tp = platform().await;
    let (_, id, _) = closed_session(&tp, 1).await;
    let other = tp.another_worker().await;
    let held = std::sync::Arc::new(HeldJudge {
        inner: FakeChatClient::new([JUDGE_OK]),
        asked: tokio::sync::Notify::new(),
        go: tokio::sync::Notify::new(),
    });
    let first = {
        let (platform, held) = (tp.platform.clone(), held.clone());
        tokio::spawn(async move {
            review_pending(&platform, Some(&*held), JudgeSampling::default()).await
        })
    };
    held.asked.notified().await;
    let second = FakeChatClient::new([JUDGE_OK]);
    assert_eq!(
        review_pending(&other, Some(&second), JudgeSampling::default())
            .await
            .unwrap(),
        0,
        "the session under review is left to the worker reviewing it"
    );
    assert!(second.prompts().is_empty(), "the other judge was not asked");
    held.go.notify_one();
    assert_eq!(first.await.unwrap().unwrap(), 1);
    assert_eq!(held.inner.prompts().len(), 1);
    let s = other
        .get_session(agenteval_engine::SessionId(id))
        .await
        .unwrap();
    assert_eq!(s.judge_status, "done");
    assert_eq!(
        review_pending(&other, Some(&second), JudgeSampling::default())
            .await
            .unwrap(),
        0,
        "a stored review is not asked for again"
    );
    assert!(second.prompts().is_empty());
}

#[test]
fn the_offline_judge_says_one_reply_in_the_singular() {
    use agenteval_engine::{Lang, msg};
    let one = msg!("judge-replies-fine", count = 1usize);
    assert_eq!(
        one.render(Lang::En),
        "the one reply was non-empty and timely"
    );
    assert_eq!(one.render(Lang::Zh), "唯一的一条回复不为空且及时");
    let two = msg!("judge-replies-fine", count = 2usize);
    assert_eq!(
        two.render(Lang::En),
        "all 2 replies were non-empty, varied and timely"
    );
    assert_eq!(two.render(Lang::Zh), "全部 2 条回复都不为空、不重复且及时");
}
