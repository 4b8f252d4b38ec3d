//! Tests: structured outputs of role models against a local
//! OpenAI-compatible server. Each form the endpoint refuses (400 or 422)
//! falls back to the next; the form that worked is remembered per endpoint
//! and model; the virtual user, the judge and the analysis ask with their
//! schemas, and the campaign records the form each role took.

use crate::fault_server::{Fault, FaultServer, completion};
use agenteval_engine::channel::ChatMessage;
use agenteval_engine::role_models::{ChatClient, ModelConfig, Role};
use agenteval_engine::structured::{OutputMode, OutputSchema};
use serde_json::{Value, json};
use std::sync::Arc;

fn client(server: &FaultServer, model: &str, role: Role) -> Arc<dyn ChatClient> {
    ModelConfig {
        base_url: server.base_url(),
        model: model.into(),
        api_key: None,
        api_key_env: None,
        timeout_ms: Some(5_000),
        max_tokens: None,
        concurrency: None,
        input_tokens: None,
    }
    .client(role, &reqwest::Client::new())
    .expect("a client for a local endpoint")
}

fn schema() -> OutputSchema {
    OutputSchema::new(
        "answer",
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": false}),
    )
}

/// The `response_format` of each request the server received.
fn formats(server: &FaultServer) -> Vec<Value> {
    server
        .requests()
        .iter()
        .map(|r| {
            r.json()
                .get("response_format")
                .cloned()
                .unwrap_or(Value::Null)
        })
        .collect()
}

fn ask() -> Vec<ChatMessage> {
    vec![ChatMessage::user("Answer with {\"ok\": true}.")]
}

#[tokio::test]
async fn an_endpoint_that_refuses_json_schema_gets_a_json_object_with_the_schema_and_it_is_remembered()
 {
    let refused = Fault::status(
        400,
        r#"{"error": {"message": "response_format.json_schema is not supported"}}"#,
    );
    let server = FaultServer::start(vec![refused, Fault::Ok(completion(r#"{"ok": true}"#))]).await;
    let schema = schema();

    let answer = client(&server, "m-object", Role::Judge)
        .complete_structured(&ask(), &schema)
        .await
        .expect("the second form is taken");
    assert_eq!(answer.mode, OutputMode::JsonObjectSchema);
    assert_eq!(
        schema.read(&answer.reply.content).unwrap(),
        json!({"ok": true})
    );
    let sent = formats(&server);
    assert_eq!(sent.len(), 2, "one refusal, one answer");
    assert_eq!(
        sent[0]["type"], "json_schema",
        "the strongest form is tried first"
    );
    assert_eq!(sent[0]["json_schema"]["name"], "answer");
    assert_eq!(sent[0]["json_schema"]["strict"], true);
    assert_eq!(
        sent[0]["json_schema"]["schema"], schema.schema,
        "the schema itself is sent"
    );
    assert_eq!(
        sent[1],
        json!({"type": "json_object", "schema": schema.schema})
    );

    // A new client for the same endpoint and model (e.g. after the settings
    // were saved again) goes straight to the form that worked.
    let again = client(&server, "m-object", Role::Judge)
        .complete_structured(&ask(), &schema)
        .await
        .expect("answered");
    assert_eq!(again.mode, OutputMode::JsonObjectSchema);
    let sent = formats(&server);
    assert_eq!(
        sent.len(),
        3,
        "no second refusal: the choice was remembered"
    );
    assert_eq!(sent[2]["type"], "json_object");

    // Another model on the same server learns on its own.
    let other = client(&server, "m-other", Role::Judge)
        .complete_structured(&ask(), &schema)
        .await
        .expect("answered");
    assert_eq!(
        other.mode,
        OutputMode::JsonSchema,
        "request 4 is answered (the script's last step repeats), so the first form works for this model"
    );
}

#[tokio::test]
async fn an_endpoint_that_refuses_every_json_form_gets_the_prompt_alone() {
    let refused = || {
        Fault::status(
            422,
            r#"{"detail": [{"msg": "extra fields not permitted"}]}"#,
        )
    };
    let server = FaultServer::start(vec![
        refused(),
        refused(),
        refused(),
        Fault::Ok(completion("Sure! ```json\n{\"ok\": false}\n```")),
    ])
    .await;
    let schema = schema();
    let answer = client(&server, "m-plain", Role::VirtualUser)
        .complete_structured(&ask(), &schema)
        .await
        .expect("the prompt alone is the last form");
    assert_eq!(answer.mode, OutputMode::PromptOnly);
    assert_eq!(
        schema.read(&answer.reply.content).unwrap(),
        json!({"ok": false}),
        "the lenient extraction still reads JSON wrapped in prose"
    );
    let sent = formats(&server);
    assert_eq!(
        sent.iter()
            .map(|f| f["type"].as_str().unwrap_or("none"))
            .collect::<Vec<_>>(),
        vec!["json_schema", "json_object", "json_object", "none"],
        "each form once, then none"
    );
    assert!(sent[1].get("schema").is_some() && sent[2].get("schema").is_none());

    let again = client(&server, "m-plain", Role::VirtualUser)
        .complete_structured(&ask(), &schema)
        .await
        .expect("answered");
    assert_eq!(again.mode, OutputMode::PromptOnly, "remembered");
    assert_eq!(formats(&server).len(), 5, "asked once, without a format");
}

#[tokio::test]
async fn a_validation_error_reported_as_500_is_a_refused_form_too() {
    // What llama-cpp-python 0.3's server answers to `json_schema`.
    let refused = Fault::status(
        500,
        r#"{"error": {"message": "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}"}}"#,
    );
    let server = FaultServer::start(vec![refused, Fault::Ok(completion(r#"{"ok": true}"#))]).await;
    let answer = client(&server, "m-llama-cpp-python", Role::VirtualUser)
        .complete_structured(&ask(), &schema())
        .await
        .expect("the next form is taken");
    assert_eq!(answer.mode, OutputMode::JsonObjectSchema);
}

#[tokio::test]
async fn a_server_fault_is_not_taken_for_a_refused_form() {
    let server = FaultServer::start(vec![
        Fault::status(500, "boom"),
        Fault::Ok(completion(r#"{"ok": true}"#)),
    ])
    .await;
    let err = client(&server, "m-fault", Role::Judge)
        .complete_structured(&ask(), &schema())
        .await
        .expect_err("a 500 is the endpoint's fault, not a refusal of the form");
    assert_eq!(err.status, Some(500));
    assert_eq!(server.attempts(), 1, "no other form was tried");
    let answer = client(&server, "m-fault", Role::Judge)
        .complete_structured(&ask(), &schema())
        .await
        .expect("answered");
    assert_eq!(
        answer.mode,
        OutputMode::JsonSchema,
        "nothing weaker was remembered"
    );
}
