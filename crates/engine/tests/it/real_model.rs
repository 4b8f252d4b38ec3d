//! The virtual user and the judge against a real small model served by a
//! third-party OpenAI-compatible server. Ignored by default: it needs the
//! server that `tests/model/run.sh` installs and starts, which takes
//! minutes. The model is far too small to role-play or judge well; the
//! check is that the whole loop completes against a server nobody here
//! wrote, whatever the model says, and that the server took one of the
//! structured-output forms (its constrained decoding keeps the answers in
//! their schemas).

use crate::patrol_agent::campaign;
use crate::support::platform;
use agenteval_engine::campaign::Budget;
use agenteval_engine::exploration::SessionStatus;
use agenteval_engine::patrol_agent::{PatrolAction, PatrolConfig};
use agenteval_engine::role_models::{ModelConfig, RoleModels};
use agenteval_engine::runtime::PatrolAgent;
use agenteval_engine::structured::OutputMode;

#[tokio::test]
#[ignore = "needs a local model server: run tests/model/run.sh"]
async fn virtual_user_and_judge_complete_against_a_real_small_model() {
    let base_url = std::env::var("AGENTEVAL_REAL_MODEL_BASE_URL")
        .expect("AGENTEVAL_REAL_MODEL_BASE_URL names the model server (see tests/model/run.sh)");
    let model = std::env::var("AGENTEVAL_REAL_MODEL_NAME").unwrap_or_else(|_| "smollm2".into());
    let tp = platform().await;
    let c = campaign(
        &tp,
        1.0,
        Budget {
            max_sessions: Some(1),
            max_turns: Some(3),
            min_interval_minutes: Some(30.0),
        },
    )
    .await;
    let role = ModelConfig {
        base_url,
        model,
        api_key: None,
        api_key_env: None,
        timeout_ms: Some(300_000),
        max_tokens: None,
        concurrency: None,
        input_tokens: None,
    };
    tp.platform.set_role_models(RoleModels {
        virtual_user: Some(role.clone()),
        judge: Some(role),
        analyst: None,
        tool_simulator: None,
    });
    let agent = PatrolAgent::new(tp.platform.clone(), &PatrolConfig::default());
    let out = agent.wake_once().await.expect("the wake-up completes");
    eprintln!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    assert_eq!(
        out.campaigns[0].action,
        PatrolAction::Dispatch,
        "{:?}",
        out.campaigns[0]
    );
    let sessions = tp.platform.list_sessions(c.id).await.unwrap();
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_ne!(s.status, SessionStatus::Running, "the session ended: {s:?}");
    assert!(s.end_reason.is_some(), "with a reason");
    if s.status == SessionStatus::Completed {
        assert!(
            matches!(s.judge_status.as_str(), "done" | "failed"),
            "the judge review ran (a small model may fail it): {}",
            s.judge_status
        );
    }
    let transcript = tp.platform.session_messages(s.id).await.unwrap();
    for m in &transcript.messages {
        eprintln!("{:?}: {}", m.role, m.content);
    }
    eprintln!("judge review: {:?}", s.judge_review);
    let modes = tp.platform.models_used(c.id).await.unwrap().output_modes;
    eprintln!("output modes: {modes:?}");
    assert!(
        matches!(
            modes.virtual_user,
            Some(OutputMode::JsonSchema | OutputMode::JsonObjectSchema)
        ),
        "the server took the virtual user's schema: {modes:?}"
    );
}
