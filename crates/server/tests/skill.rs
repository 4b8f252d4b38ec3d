//! The exploration skill for external assistants declares only operations
//! the API documents.

use agenteval_engine::Platform;
use axum::body::Body;
use axum::http::Request;
use tower::ServiceExt;

#[tokio::test]
async fn every_operation_of_the_skill_manifest_is_in_the_openapi_document() {
    let dir = tempfile::tempdir().expect("temp dir");
    let platform = Platform::builder(dir.path())
        .open()
        .await
        .expect("platform");
    let app = agenteval_server::router(platform, "k".into());
    let response = app
        .oneshot(
            Request::get("/api/openapi.json")
                .header("X-API-Key", "k")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert!(response.status().is_success());
    let bytes = axum::body::to_bytes(response.into_body(), 10 * 1024 * 1024)
        .await
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&bytes).expect("OpenAPI is JSON");

    let manifest_path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../skills/agenteval-explore/skill.json"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(manifest_path).expect("skill.json"))
            .expect("valid JSON");
    let operations = manifest["operations"]
        .as_array()
        .expect("operations listed");
    assert!(
        !operations.is_empty(),
        "the manifest declares its operations"
    );
    for op in operations {
        let method = op["method"].as_str().expect("method").to_lowercase();
        let path = op["path"].as_str().expect("path");
        assert!(
            doc["paths"][path][&method].is_object(),
            "{} {path} is declared by the skill but missing from /api/openapi.json",
            method.to_uppercase()
        );
    }
}
