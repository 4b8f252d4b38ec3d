//! Tests: the virtual user (persona engine and model mode) driving a
//! conversation against scripted targets through the session loop.

use agenteval_engine::channel::{Channel, ChannelError, ChatMessage, ChatReply, ChatRequest, Role};
use agenteval_engine::domain::ids::SessionId;
use agenteval_engine::error::{Error, ErrorCode};
use agenteval_engine::i18n::Lang;
use agenteval_engine::role_models::FakeChatClient;
use agenteval_engine::virtual_user::{
    Decision, EndReason, ExperienceRecord, PersonaEngine, SessionPort, Utterance, VirtualUser,
    for_session, has_cjk, run_session,
};
use regex::Regex;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use uuid::Uuid;

type Reply = Box<dyn Fn(&[ChatMessage]) -> String + Send + Sync>;

/// A target whose reply is a function of the conversation.
pub struct ScriptedTarget(pub Reply);

#[async_trait::async_trait]
impl Channel for ScriptedTarget {
    async fn send(&self, request: &ChatRequest) -> Result<ChatReply, ChannelError> {
        Ok(ChatReply {
            content: (self.0)(&request.messages),
            tool_calls: Vec::new(),
            usage: None,
            latency_ms: 1,
            model: Some("scripted".into()),
        })
    }
}

/// A session port over a channel: keeps the history like the platform
/// does and records how the session ended.
pub struct ChannelPort {
    channel: Arc<dyn Channel>,
    history: Mutex<Vec<ChatMessage>>,
    pub closed: Mutex<Option<(ExperienceRecord, EndReason)>>,
    pub failed: Mutex<Option<(String, EndReason)>>,
    /// Refuse messages after this many with TURN_LIMIT_REACHED.
    pub turn_limit: Option<usize>,
}

impl ChannelPort {
    pub fn new(channel: Arc<dyn Channel>) -> Self {
        Self {
            channel,
            history: Mutex::new(Vec::new()),
            closed: Mutex::new(None),
            failed: Mutex::new(None),
            turn_limit: None,
        }
    }

    pub fn transcript(&self) -> Vec<ChatMessage> {
        self.history.lock().unwrap().clone()
    }

    pub fn user_messages(&self) -> Vec<String> {
        self.transcript()
            .into_iter()
            .filter(|m| m.role == Role::User)
            .map(|m| m.content)
            .collect()
    }
}

#[async_trait::async_trait]
impl SessionPort for ChannelPort {
    async fn send(
        &self,
        _session_id: SessionId,
        content: &str,
    ) -> agenteval_engine::Result<Utterance> {
        let request = {
            let mut h = self.history.lock().unwrap();
            let sent = h.iter().filter(|m| m.role == Role::User).count();
            if self.turn_limit.is_some_and(|l| sent >= l) {
                return Err(Error::new(
                    ErrorCode::TurnLimitReached,
                    "turn limit reached",
                    "Close the session.",
                ));
            }
            h.push(ChatMessage::user(content));
            ChatRequest {
                messages: h.clone(),
                tools: Default::default(),
            }
        };
        let reply = self.channel.send(&request).await.map_err(|e| {
            Error::new(ErrorCode::TargetUnavailable, e.message, "Check the target.")
        })?;
        self.history
            .lock()
            .unwrap()
            .push(ChatMessage::assistant(reply.content.clone()));
        Ok(Utterance::target(reply.content))
    }

    async fn close(
        &self,
        _session_id: SessionId,
        record: &ExperienceRecord,
        end: EndReason,
    ) -> agenteval_engine::Result<()> {
        *self.closed.lock().unwrap() = Some((record.clone(), end));
        Ok(())
    }

    async fn fail(
        &self,
        _session_id: SessionId,
        reason: agenteval_engine::i18n::Msg,
        end: EndReason,
    ) -> agenteval_engine::Result<()> {
        *self.failed.lock().unwrap() = Some((reason.render(agenteval_engine::i18n::Lang::En), end));
        Ok(())
    }
}

/// An email assistant that asks for what is missing, then confirms.
pub fn email_target() -> Arc<dyn Channel> {
    let email = Regex::new(r"[\w.-]+@[\w.-]+\.\w+").unwrap();
    let subject_en = Regex::new(r"(?i)subject(?: is|=|:)\s*([^.,)]+)").unwrap();
    let subject_zh = Regex::new(r"主题(?:是|：|=)([^。，)]+)").unwrap();
    Arc::new(ScriptedTarget(Box::new(move |messages| {
        let zh = messages.iter().any(|m| has_cjk(&m.content));
        let (mut to, mut subject, mut asked_subject) = (None, None, false);
        for m in messages {
            match m.role {
                Role::Assistant => {
                    asked_subject = m.content.contains("subject") || m.content.contains("主题")
                }
                _ => {
                    if let Some(e) = email.find(&m.content) {
                        to = Some(e.as_str().to_string());
                    }
                    if let Some(c) = subject_en
                        .captures(&m.content)
                        .or_else(|| subject_zh.captures(&m.content))
                    {
                        subject = Some(c[1].trim().to_string());
                    } else if asked_subject && email.find(&m.content).is_none() {
                        subject = Some(m.content.trim().to_string());
                    }
                }
            }
        }
        match (to, subject, zh) {
            (None, _, false) => {
                "Who should receive it? Please give me the recipient's email address.".into()
            }
            (None, _, true) => "请问收件人的邮箱是什么？".into(),
            (_, None, false) => "What subject should the email have?".into(),
            (_, None, true) => "邮件主题是什么？".into(),
            (Some(to), Some(s), false) => {
                format!("Done. The email to {to} with subject \"{s}\" has been sent.")
            }
            (Some(to), Some(s), true) => format!("好的，主题为「{s}」的邮件已发送给{to}。"),
        }
    })))
}

fn reply_script(replies: &'static [&'static str]) -> Arc<dyn Channel> {
    Arc::new(ScriptedTarget(Box::new(move |messages| {
        let n = messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .count();
        replies[n.min(replies.len() - 1)].to_string()
    })))
}

fn en_persona(patience: u8) -> Value {
    json!({"id": "p-ann", "name": "Ann", "language": "en", "patience": patience, "style": "polite", "technical_level": 2})
}

fn en_goal() -> Value {
    json!({
        "id": "g-report", "title": "Send the weekly report to my manager",
        "slots": {"to": "boss@example.com", "subject": "Weekly report"},
        "success_criteria": ["has been sent"]
    })
}

fn zh_persona() -> Value {
    json!({"id": "p-wang", "name": "王女士", "language": "zh", "patience": 3, "style": "简洁"})
}

fn zh_goal() -> Value {
    json!({
        "id": "g-mail", "title": "给经理发周报邮件",
        "slots": {"to": "manager@example.cn", "subject": "本周周报"},
        "success_criteria": ["已发送"]
    })
}

async fn drive(
    target: Arc<dyn Channel>,
    persona: &Value,
    goal: &Value,
    seed: u64,
    max_turns: u32,
) -> (agenteval_engine::virtual_user::SessionOutcome, ChannelPort) {
    let port = ChannelPort::new(target);
    let mut user = PersonaEngine::from_json(persona, goal, seed);
    let outcome = run_session(
        &port,
        agenteval_engine::SessionId(Uuid::now_v7()),
        &mut user,
        max_turns,
    )
    .await
    .expect("the session loop runs");
    (outcome, port)
}

#[tokio::test]
async fn persona_engine_reaches_an_english_goal_and_reports_it() {
    for seed in 0..8 {
        let (outcome, port) = drive(email_target(), &en_persona(3), &en_goal(), seed, 12).await;
        assert_eq!(
            outcome.end_reason,
            EndReason::UserGoalMet,
            "seed {seed}: the helpful target sends the email: {:?}",
            port.transcript()
        );
        assert_eq!(outcome.decisions.last(), Some(&Decision::Done));
        let (record, end) = port
            .closed
            .lock()
            .unwrap()
            .clone()
            .expect("the session is closed");
        assert_eq!(end, EndReason::UserGoalMet);
        assert!(
            record.goal_achieved,
            "success criterion phrase was in the reply"
        );
        assert!(
            record.blockers.is_empty(),
            "seed {seed}: nothing blocked: {:?}",
            record.blockers
        );
        assert!(
            record.misled.is_empty(),
            "seed {seed}: no figure was invented: {:?}",
            record.misled
        );
        assert_eq!(record.emotion, "satisfied");
        assert!(
            port.user_messages().iter().all(|m| !has_cjk(m)),
            "an English persona speaks English"
        );
        assert!(
            port.user_messages()
                .iter()
                .any(|m| m.contains("boss@example.com")),
            "the recipient slot was given"
        );
    }
}

#[tokio::test]
async fn persona_engine_speaks_chinese_and_answers_questions_from_slots() {
    let (outcome, port) = drive(email_target(), &zh_persona(), &zh_goal(), 42, 12).await;
    assert_eq!(
        outcome.end_reason,
        EndReason::UserGoalMet,
        "{:?}",
        port.transcript()
    );
    let users = port.user_messages();
    assert!(
        users
            .iter()
            .all(|m| has_cjk(m) || m.contains('@') || m.len() < 40),
        "a Chinese persona speaks Chinese: {users:?}"
    );
    assert!(has_cjk(&users[0]), "the opening is in Chinese");
    assert!(users.iter().any(|m| m.contains("manager@example.cn")));
    assert!(users.iter().any(|m| m.contains("本周周报")));
    let (record, _) = port.closed.lock().unwrap().clone().unwrap();
    assert!(record.goal_achieved);
    assert!(
        record.notes.msg().is_some(),
        "the built-in user's notes are a message, read in the reader's language"
    );
    assert!(has_cjk(&record.notes.render(Lang::Zh)));
}

#[tokio::test]
async fn a_goal_in_the_other_language_is_quoted_never_spliced() {
    // A Chinese persona given the English goal of the demo seed set, and
    // the other way round: the goal's title is quoted as given.
    let en_title = "Understand the quarterly sales trend";
    let en_goal = json!({"id": "g-sales", "title": en_title, "slots": {"q1": "820", "q2": "905"}, "success_criteria": ["trend"]});
    let zh_title = "给经理发周报邮件";
    for seed in 0..6 {
        let (_, port) = drive(email_target(), &zh_persona(), &en_goal, seed, 4).await;
        let users = port.user_messages();
        assert!(
            users[0].contains(&format!("“{en_title}”")) && has_cjk(&users[0]),
            "seed {seed}: a Chinese opening quoting the English goal: {:?}",
            users[0]
        );
        for m in &users {
            assert!(
                !m.contains(&format!("我想{en_title}")) && !m.contains(&format!("帮我{en_title}")),
                "seed {seed}: never spliced: {m:?}"
            );
        }
        let (_, port) = drive(email_target(), &en_persona(3), &zh_goal(), seed, 4).await;
        let opening = &port.user_messages()[0];
        assert!(
            opening.contains(&format!("\u{201c}{zh_title}\u{201d}")),
            "seed {seed}: an English opening quoting the Chinese goal: {opening:?}"
        );
    }
}

#[tokio::test]
async fn persona_engine_gives_up_when_patience_runs_out() {
    let target = reply_script(&["Sorry, I cannot help with that."]);
    let (outcome, port) = drive(target.clone(), &en_persona(2), &en_goal(), 1, 12).await;
    assert_eq!(outcome.end_reason, EndReason::UserGaveUp);
    assert_eq!(
        outcome.decisions,
        vec![Decision::FollowUp, Decision::FollowUp, Decision::GiveUp],
        "patience 2: the opening, one push after the first refusal, then give up at the second"
    );
    let (record, _) = port.closed.lock().unwrap().clone().unwrap();
    assert!(!record.goal_achieved);
    assert!(
        record.blockers.iter().any(|b| b.contains("refused")),
        "{:?}",
        record.blockers
    );
    assert!(
        record
            .blockers
            .iter()
            .any(|b| b.contains("gave up after 2")),
        "{:?}",
        record.blockers
    );
    assert_eq!(record.emotion, "frustrated");

    let (patient, _) = drive(target, &en_persona(5), &en_goal(), 1, 12).await;
    assert_eq!(patient.end_reason, EndReason::UserGaveUp);
    assert_eq!(patient.user_turns, 5, "a more patient persona tries longer");
}

#[tokio::test]
async fn persona_engine_notes_repeated_questions_and_unverified_figures() {
    let target = reply_script(&[
        "What subject should the email have?",
        "Sorry, what is the subject again?",
        "The email has been sent; 250 readers will get it.",
    ]);
    let (outcome, port) = drive(target, &en_persona(3), &en_goal(), 3, 12).await;
    assert_eq!(
        outcome.end_reason,
        EndReason::UserGoalMet,
        "{:?}",
        port.transcript()
    );
    let (record, _) = port.closed.lock().unwrap().clone().unwrap();
    assert!(
        record
            .blockers
            .iter()
            .any(|b| b == "asked for the subject twice"),
        "{:?}",
        record.blockers
    );
    assert!(
        record.misled.iter().any(|m| m.contains("250")),
        "250 was never given: {:?}",
        record.misled
    );
    assert_eq!(
        record.emotion, "neutral",
        "achieved with blockers is not satisfied"
    );
}

#[tokio::test]
async fn persona_engine_changes_its_mind_once_and_notices_an_ignored_correction() {
    let email = Regex::new(r"[\w.-]+@[\w.-]+\.\w+").unwrap();
    let stubborn: Arc<dyn Channel> = Arc::new(ScriptedTarget(Box::new(move |messages| {
        let first = messages
            .iter()
            .filter(|m| m.role == Role::User)
            .find_map(|m| email.find(&m.content).map(|e| e.as_str().to_string()));
        let answered = messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .count();
        match first {
            None => "Who should receive it?".into(),
            Some(to) if answered < 4 => format!("Noted, I will mail {to}."),
            Some(to) => format!("The email has been sent to {to}."),
        }
    })));
    let persona = json!({"name": "Bo", "language": "en", "patience": 5, "change_mind": 1.0});
    let goal = json!({"title": "Email the invoice", "slots": {"to": "bo@example.com"}, "success_criteria": ["has been sent"]});
    let (outcome, port) = drive(stubborn, &persona, &goal, 9, 12).await;
    assert_eq!(
        outcome
            .decisions
            .iter()
            .filter(|d| **d == Decision::ChangeMind)
            .count(),
        1,
        "change_mind 1.0 changes its mind exactly once: {:?}",
        outcome.decisions
    );
    assert!(
        port.user_messages()
            .iter()
            .any(|m| m.contains("bo.work@example.com")),
        "the correction names the new value"
    );
    let (record, _) = port.closed.lock().unwrap().clone().unwrap();
    assert!(
        record
            .blockers
            .iter()
            .any(|b| b.contains("ignored my correction of the recipient")),
        "the target kept the old address: {:?}",
        record.blockers
    );
    let notes = record.notes.msg().expect("a message");
    assert!(
        notes
            .render(Lang::En)
            .contains("Changed my mind about the recipient"),
        "{notes:?}"
    );
    assert!(
        notes.render(Lang::Zh).contains("中途把收件人从"),
        "{notes:?}"
    );
}

#[tokio::test]
async fn persona_engine_is_reproducible_per_session_and_varies_across_sessions() {
    let id = Uuid::now_v7();
    let run = |id: Uuid| async move {
        let port = ChannelPort::new(email_target());
        let mut user = for_session(
            agenteval_engine::SessionId(id),
            &en_persona(3),
            &en_goal(),
            None,
            0,
        );
        run_session(&port, agenteval_engine::SessionId(id), user.as_mut(), 12)
            .await
            .unwrap();
        port.user_messages()
    };
    assert_eq!(
        run(id).await,
        run(id).await,
        "the same session id replays the same conversation"
    );
    let mut openings = std::collections::BTreeSet::new();
    for seed in 0..12 {
        let mut user = PersonaEngine::from_json(&en_persona(3), &en_goal(), seed);
        openings.insert(user.next_turn(&[]).await.unwrap().message.unwrap());
    }
    assert!(openings.len() >= 3, "seeds vary the wording: {openings:?}");
}

#[tokio::test]
async fn max_turns_and_turn_limit_refusals_end_the_session_with_max_turns() {
    let echo = reply_script(&["Could you tell me more about the weather?"]);
    let (outcome, port) = drive(echo.clone(), &en_persona(5), &en_goal(), 2, 3).await;
    assert_eq!(outcome.end_reason, EndReason::MaxTurns);
    assert_eq!(
        outcome.user_turns, 3,
        "never more user turns than the limit"
    );
    let (record, end) = port.closed.lock().unwrap().clone().unwrap();
    assert_eq!(
        end,
        EndReason::MaxTurns,
        "a max-turns session is still closed (and judged)"
    );
    assert!(
        record
            .blockers
            .iter()
            .any(|b| b.contains("ran out of turns"))
    );

    let mut limited = ChannelPort::new(echo);
    limited.turn_limit = Some(2);
    let mut user = PersonaEngine::from_json(&en_persona(5), &en_goal(), 2);
    let outcome = run_session(
        &limited,
        agenteval_engine::SessionId(Uuid::now_v7()),
        &mut user,
        12,
    )
    .await
    .unwrap();
    assert_eq!(
        outcome.end_reason,
        EndReason::MaxTurns,
        "the platform's TURN_LIMIT_REACHED is feedback, not an error"
    );
    assert_eq!(outcome.user_turns, 2);
}

#[tokio::test]
async fn an_unreachable_target_fails_the_session() {
    struct Down;
    #[async_trait::async_trait]
    impl Channel for Down {
        async fn send(&self, _: &ChatRequest) -> Result<ChatReply, ChannelError> {
            Err(ChannelError::new(
                agenteval_engine::channel::ChannelErrorKind::Connect,
                "connection refused",
            ))
        }
    }
    let (outcome, port) = drive(Arc::new(Down), &en_persona(3), &en_goal(), 0, 12).await;
    assert_eq!(outcome.end_reason, EndReason::TargetError);
    assert_eq!(outcome.status, "failed");
    assert!(
        port.closed.lock().unwrap().is_none(),
        "a failed session is not closed with a record"
    );
    let (reason, end) = port.failed.lock().unwrap().clone().unwrap();
    assert_eq!(end, EndReason::TargetError);
    assert!(reason.contains("connection refused"));
}

const RECORD: &str = r#"{"goal_achieved": true, "blockers": [], "misled": [], "emotion": "satisfied", "notes": "quick"}"#;

#[tokio::test]
async fn model_user_decides_in_json_and_files_its_record() {
    let fake = Arc::new(FakeChatClient::new([
        r#"{"decision": "follow_up", "message": "Please email boss@example.com, subject is Weekly report."}"#,
        "Sure:\n```json\n{\"decision\": \"done\", \"message\": \"Thanks!\"}\n```",
        RECORD,
    ]));
    let port = ChannelPort::new(email_target());
    let mut user = for_session(
        agenteval_engine::SessionId(Uuid::now_v7()),
        &en_persona(3),
        &en_goal(),
        Some(fake.clone()),
        0,
    );
    assert_eq!(user.kind(), "model:fake");
    let outcome = run_session(
        &port,
        agenteval_engine::SessionId(Uuid::now_v7()),
        user.as_mut(),
        12,
    )
    .await
    .unwrap();
    assert_eq!(outcome.end_reason, EndReason::UserGoalMet);
    assert_eq!(outcome.decisions, vec![Decision::FollowUp, Decision::Done]);
    let (record, _) = port.closed.lock().unwrap().clone().unwrap();
    assert_eq!(
        record.notes,
        "quick".into(),
        "the model's own record is filed"
    );
    let prompts = fake.prompts();
    assert_eq!(prompts.len(), 3, "two turns and the record");
    assert_eq!(
        fake.schemas(),
        vec![
            "virtual_user_turn",
            "virtual_user_turn",
            "experience_record"
        ],
        "every request carries the schema of its answer"
    );
    let system = &prompts[0][0];
    assert_eq!(system.role, Role::System);
    assert!(
        system.content.contains("Ann")
            && system.content.contains("has been sent")
            && system.content.contains("boss@example.com"),
        "the prompt keeps the model in persona, goal and success criteria"
    );
    let second = &prompts[1];
    let last = second.last().unwrap();
    assert_eq!(
        last.role,
        Role::User,
        "the target's reply reaches the model as the other party"
    );
    assert!(last.content.contains("has been sent"));
}

#[tokio::test]
async fn model_user_malformed_output_is_retried_once_then_ends_with_simulator_error() {
    let fake = Arc::new(FakeChatClient::new([
        "I am not JSON",
        r#"{"decision": "follow_up", "message": "Hi, I need to send the weekly report."}"#,
        r#"{"decision": "launch rockets"}"#,
        "still not json",
    ]));
    let port = ChannelPort::new(email_target());
    let mut user = for_session(
        agenteval_engine::SessionId(Uuid::now_v7()),
        &en_persona(3),
        &en_goal(),
        Some(fake.clone()),
        0,
    );
    let outcome = run_session(
        &port,
        agenteval_engine::SessionId(Uuid::now_v7()),
        user.as_mut(),
        12,
    )
    .await
    .unwrap();
    assert_eq!(outcome.end_reason, EndReason::SimulatorError);
    assert_eq!(
        outcome.user_turns, 1,
        "the retried first turn was sent, the twice-malformed second was not"
    );
    let prompts = fake.prompts();
    assert_eq!(
        prompts.len(),
        4,
        "each malformed answer is retried exactly once"
    );
    assert!(
        prompts[1].last().unwrap().content.contains("not usable"),
        "the retry says what was wrong"
    );
    assert!(
        prompts[3].last().unwrap().content.contains("schema"),
        "JSON that parses but breaks the schema is malformed too, never half-used: {}",
        prompts[3].last().unwrap().content
    );
    let (record, end) = port
        .closed
        .lock()
        .unwrap()
        .clone()
        .expect("closed with simulator_error");
    assert_eq!(end, EndReason::SimulatorError);
    assert!(
        !record.goal_achieved && record.blockers.is_empty(),
        "nothing is claimed about the target"
    );
    // Why, in the reader's language; the model's problem is its parameter.
    let notes = record.notes.render(Lang::Zh);
    assert!(
        notes.starts_with("虚拟用户无法继续：虚拟用户模型两次给出的输出都无法使用："),
        "{notes}"
    );
}

#[tokio::test]
async fn the_virtual_users_see_the_steps_and_name_the_one_that_failed_at_what_the_agent_said_it_did()
 {
    let step = |id: &str, name: &str, answer: Value| -> agenteval_engine::domain::steps::Step {
        serde_json::from_value(json!({
            "round": 1, "call": {"id": id, "name": name, "arguments": {}},
            "answer": answer, "latency_ms": 3,
        }))
        .expect("a step")
    };
    let steps = vec![
        step(
            "c1",
            "LOOKUP_CONTACT",
            json!({"kind": "result", "value": {"email": "z@example.com", "count": 42}}),
        ),
        step(
            "c2",
            "SEND_MAIL",
            json!({"kind": "error", "value": {"code": "MAIL_SERVER_DOWN", "message": "down", "suggestion": ""}}),
        ),
    ];
    let mut user = PersonaEngine::from_json(
        &json!({"name": "王芳", "language": "zh"}),
        &json!({"title": "把周报发给张经理"}),
        1,
    );
    let transcript = vec![
        Utterance::user("请把周报发给张经理"),
        Utterance::target_with("报告已发送给张经理，共 42 人收到。", steps),
    ];
    user.next_turn(&transcript).await.expect("a turn");
    let record = user.record(&transcript, EndReason::UserGaveUp);
    let misled: Vec<String> = record.misled.iter().map(|m| m.to_string()).collect();
    assert!(
        misled
            .iter()
            .any(|m| m.contains("第 1 轮第 2 步的 SEND_MAIL 失败了（MAIL_SERVER_DOWN）")),
        "{misled:?}"
    );
    assert!(
        !misled.iter().any(|m| m.contains("42")),
        "a figure a tool answered is no invention: {misled:?}"
    );

    // A model playing the user is shown the same steps when it writes its
    // record.
    let fake = Arc::new(FakeChatClient::new([RECORD]));
    let mut model = for_session(
        agenteval_engine::SessionId(Uuid::now_v7()),
        &en_persona(3),
        &en_goal(),
        Some(fake.clone()),
        0,
    );
    model
        .experience(&transcript, EndReason::UserGaveUp)
        .await
        .expect("a record");
    let prompt = &fake.prompts()[0];
    let asked = &prompt.last().expect("the request").content;
    assert!(
        asked.contains(
            "(turn 1, step 2: the assistant called SEND_MAIL -> failed: MAIL_SERVER_DOWN)"
        ),
        "{asked}"
    );
}
