//! The exploration skill for external assistants matches the API: its
//! manifest is in seed 001's shape and declares only documented
//! operations, and every route and field its SKILL.md names exists in the
//! OpenAPI document (or, for the manifest's own sections, in skill.json).

use agenteval_engine::Platform;
use axum::body::Body;
use axum::http::Request;
use serde_json::Value;
use std::collections::BTreeSet;
use tower::ServiceExt;

const SKILL_DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../skills/agenteval-explore"
);

/// What the API on a fresh data folder answers to `req` (with the key), as JSON.
async fn ask(req: axum::http::request::Builder, body: Body) -> Value {
    let dir = tempfile::tempdir().expect("temp dir");
    let platform = Platform::builder(dir.path())
        .open()
        .await
        .expect("platform");
    let app = agenteval_server::router(platform, "k".into());
    let response = app
        .oneshot(
            req.header("Host", "127.0.0.1")
                .header("X-API-Key", "k")
                .body(body)
                .unwrap(),
        )
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    let bytes = axum::body::to_bytes(response.into_body(), 10 * 1024 * 1024)
        .await
        .unwrap();
    serde_json::from_slice(&bytes).expect("a JSON answer")
}

async fn openapi() -> Value {
    ask(Request::get("/api/openapi.json"), Body::empty()).await
}

/// The names of the tools the MCP server at `/mcp` lists.
async fn mcp_tools() -> BTreeSet<String> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let list = ask(
        Request::post("/mcp")
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2025-11-25"),
        Body::from(body.to_string()),
    )
    .await;
    list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect()
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(format!("{SKILL_DIR}/skill.json")).expect("skill.json");
    serde_json::from_str(&text).expect("skill.json is valid JSON")
}

fn skill_md() -> String {
    std::fs::read_to_string(format!("{SKILL_DIR}/SKILL.md")).expect("SKILL.md")
}

fn has_operation(doc: &Value, method: &str, path: &str) -> bool {
    doc["paths"][path][method.to_lowercase()].is_object()
}

#[tokio::test]
async fn the_manifest_is_in_seed_001_shape_and_declares_documented_operations() {
    let manifest = manifest();
    // Seed 001 keeps identity at the top level, as examples/send_email.skill.json does.
    for field in ["name", "version", "category", "owner"] {
        assert!(
            manifest[field].as_str().is_some_and(|s| !s.is_empty()),
            "skill.json names its `{field}` at the top level (seed 001's shape)"
        );
    }
    assert!(
        manifest.get("identity").is_none(),
        "identity fields are not nested under `identity`"
    );
    assert!(manifest["tags"].as_array().is_some_and(|t| !t.is_empty()));
    assert!(
        manifest["description"]["trigger_examples"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "trigger examples are listed"
    );
    for section in ["parameters", "preconditions", "authorization", "audit"] {
        assert!(
            !manifest[section].is_null(),
            "seed 001's `{section}` section is present"
        );
    }
    assert!(manifest["preconditions"]["retry_policy"]["max_retries"].is_u64());
    // The product's own reader of seed-001 manifests takes it.
    let parsed = agenteval_engine::scenario::from_skill::parse_manifest(
        &std::fs::read_to_string(format!("{SKILL_DIR}/skill.json")).unwrap(),
    )
    .expect("the manifest parses as a seed-001 skill manifest");
    assert_eq!(parsed.name, "agenteval_explore");

    let doc = openapi().await;
    let operations = manifest["operations"]
        .as_array()
        .expect("operations listed");
    assert!(
        !operations.is_empty(),
        "the manifest declares its operations"
    );
    for op in operations {
        let method = op["method"].as_str().expect("method");
        let path = op["path"].as_str().expect("path");
        assert!(
            has_operation(&doc, method, path),
            "{method} {path} is declared by the skill but missing from /api/openapi.json"
        );
    }
}

/// Inline code spans of a Markdown text, fenced blocks left out.
fn code_spans(md: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in md.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    prose
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// `METHOD /api/...` mentions anywhere in the text (fenced examples too).
fn routes(md: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for method in ["GET", "POST", "PUT", "DELETE"] {
        for (i, _) in md.match_indices(&format!("{method} /api/")) {
            let rest = &md[i + method.len() + 1..];
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '`' || c == ',' || c == ')')
                .unwrap_or(rest.len());
            out.push((method.to_string(), rest[..end].to_string()));
        }
    }
    out
}

/// A field reference: lower-case words joined by dots, e.g.
/// `budget_remaining.sessions_remaining`.
fn is_field_reference(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|seg| {
            seg.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && seg
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
}

/// Resolves `$ref`s and combinators to the object schemas a value may have.
fn object_schemas<'a>(doc: &'a Value, schema: &'a Value, out: &mut Vec<&'a Value>) {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.rsplit('/').next().unwrap_or_default();
        object_schemas(doc, &doc["components"]["schemas"][name], out);
        return;
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        if let Some(list) = schema[key].as_array() {
            for s in list {
                object_schemas(doc, s, out);
            }
        }
    }
    if schema["items"].is_object() {
        object_schemas(doc, &schema["items"], out);
    }
    if schema["properties"].is_object() {
        out.push(schema);
    }
}

/// Every property name and enum value of every schema in the document.
fn names(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                out.extend(props.keys().cloned());
            }
            if let Some(Value::Array(values)) = map.get("enum") {
                out.extend(values.iter().filter_map(|e| e.as_str().map(String::from)));
            }
            for child in map.values() {
                names(child, out);
            }
        }
        Value::Array(list) => list.iter().for_each(|c| names(c, out)),
        _ => {}
    }
}

/// Whether a dotted path walks through the documented schemas.
fn resolves(doc: &Value, path: &str) -> bool {
    let segments: Vec<&str> = path.split('.').collect();
    let Some(schemas) = doc["components"]["schemas"].as_object() else {
        return false;
    };
    schemas.values().any(|root| {
        let mut current = Vec::new();
        object_schemas(doc, root, &mut current);
        for seg in &segments {
            let mut next = Vec::new();
            for s in &current {
                if let Some(p) = s["properties"].get(*seg) {
                    next.push(p);
                }
            }
            if next.is_empty() {
                return false;
            }
            current = Vec::new();
            for p in next {
                object_schemas(doc, p, &mut current);
                if p["properties"].is_null() {
                    // A leaf: only the last segment may stop here.
                    current.push(p);
                }
            }
        }
        true
    })
}

#[tokio::test]
async fn every_route_field_and_tool_that_skill_md_names_exists() {
    let doc = openapi().await;
    let md = skill_md();
    let manifest = manifest();

    let routes = routes(&md);
    assert!(
        routes.len() >= 5,
        "SKILL.md names the routes it uses ({routes:?})"
    );
    for (method, path) in &routes {
        assert!(
            has_operation(&doc, method, path),
            "SKILL.md tells assistants to call {method} {path}, which /api/openapi.json does not document"
        );
    }

    // Fields of the API, and the MCP tools the skill offers as the other route.
    let mut known = mcp_tools().await;
    names(&doc, &mut known);
    let parameters: BTreeSet<String> = manifest["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["name"].as_str().map(String::from))
        .collect();
    let fields: Vec<String> = code_spans(&md)
        .into_iter()
        .filter(|s| is_field_reference(s))
        .collect();
    assert!(
        fields.iter().any(|f| f.contains('.')),
        "SKILL.md names nested response fields, which this test must check"
    );
    let mut unknown = Vec::new();
    for field in &fields {
        let in_manifest = field
            .split('.')
            .try_fold(&manifest, |v, seg| v.get(seg))
            .is_some();
        let ok = if in_manifest {
            true
        } else if field.ends_with(".json") || field.ends_with(".md") {
            std::path::Path::new(SKILL_DIR).join(field).is_file()
        } else if field.contains('.') {
            resolves(&doc, field)
        } else {
            known.contains(field) || parameters.contains(field)
        };
        if !ok {
            unknown.push(field.clone());
        }
    }
    assert!(
        unknown.is_empty(),
        "SKILL.md names fields that the API does not have: {unknown:?}"
    );
}

#[test]
fn the_field_check_rejects_a_field_the_api_lacks() {
    // The check itself must be able to fail: the old wording named a
    // `budget` object that the patrol response never had.
    let doc = serde_json::json!({
        "components": {"schemas": {
            "Patrol": {"type": "object", "properties": {
                "budget_remaining": {"$ref": "#/components/schemas/Budget"}}},
            "Budget": {"type": "object", "properties": {
                "sessions_remaining": {"type": "integer"},
                "next_session_allowed_at": {"type": ["string", "null"]}}}
        }}
    });
    assert!(resolves(&doc, "budget_remaining.sessions_remaining"));
    assert!(resolves(&doc, "budget_remaining.next_session_allowed_at"));
    assert!(!resolves(&doc, "budget.sessions_remaining"));
    assert!(!resolves(&doc, "budget_remaining.sessions_left"));
}
