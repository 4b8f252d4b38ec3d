//! Named API keys with roles over the real router on 127.0.0.1 and a real
//! SQLite in a temp dir: what each role may call, the key routes, revoked
//! keys, what is stored of a key and how the audit trail names it.

use agenteval_engine::domain::api_key::hash_key;
use agenteval_engine::keys::CreateApiKey;
use chrono::Duration;
use reqwest::StatusCode;
use serde_json::{Value, json};

mod support;

use support::{App, KEY, app, files_under, hello_scenario, t0};

impl App {
    /// Sends `req` with `key` as X-API-Key; the status and the body (JSON,
    /// or the text as a JSON string).
    async fn send_with(&self, key: &str, req: reqwest::RequestBuilder) -> (StatusCode, Value) {
        let res = req.header("X-API-Key", key).send().await.expect("request");
        let status = res.status();
        let text = res.text().await.expect("body");
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body)
    }

    async fn get_with(&self, key: &str, path: &str) -> (StatusCode, Value) {
        self.send_with(key, self.http.get(format!("{}{path}", self.base)))
            .await
    }

    async fn post_with(&self, key: &str, path: &str, body: Value) -> (StatusCode, Value) {
        self.send_with(
            key,
            self.http.post(format!("{}{path}", self.base)).json(&body),
        )
        .await
    }

    /// A key made directly on the platform; the key itself.
    async fn key(&self, name: &str, role: &str) -> String {
        let req = CreateApiKey {
            name: name.into(),
            role: role.into(),
        };
        self.platform
            .create_api_key(req, "test")
            .await
            .expect("a valid key")
            .key
    }

    /// A builtin target and a running campaign over it with seeds and one
    /// scenario: (target id, campaign id).
    async fn campaign(&self) -> (String, String) {
        let (s, t) = self
            .post(
                "/api/targets",
                json!({"name": "demo", "channel": {"kind": "builtin", "agent": "demo"}}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "a builtin target is valid: {t}");
        let (s, c) = self
            .post(
                "/api/campaigns",
                campaign_body(&t["id"], hello_scenario(self)),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "the campaign is valid: {c}");
        (
            t["id"].as_str().expect("id").into(),
            c["id"].as_str().expect("id").into(),
        )
    }
}

fn campaign_body(target_id: &Value, scenario: &str) -> Value {
    json!({
        "name": "week", "target_id": target_id, "duration_hours": 168,
        "scenario_ids": [scenario],
        "seed_set": {"personas": [{"id": "p1", "name": "Lin"}], "goals": [{"id": "g1", "title": "Send an email"}]},
        "budget": {"min_interval_minutes": 0},
    })
}

fn assert_forbidden(status: StatusCode, body: &Value, what: &str) {
    assert_eq!(status, StatusCode::FORBIDDEN, "{what}: {body}");
    assert_eq!(body["code"], "FORBIDDEN", "{what}: {body}");
    for field in ["message", "suggestion"] {
        assert!(
            body[field].as_str().is_some_and(|m| !m.is_empty()),
            "{what}: the refusal has a {field}: {body}"
        );
    }
}

/// Everything a refused call could have changed, read with the server's
/// key: targets, campaigns, sessions and their turns, ledgers, reviews,
/// labels, the keys, the patrol agent.
async fn everything(app: &App, campaign: &str, session: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    for path in [
        "/api/targets?include_archived=true".to_string(),
        "/api/campaigns".into(),
        format!("/api/campaigns/{campaign}/runs"),
        format!("/api/campaigns/{campaign}/judge-calibration"),
        format!("/api/exploration/campaigns/{campaign}/sessions"),
        format!("/api/exploration/campaigns/{campaign}/ledger"),
        format!("/api/exploration/sessions/{session}/messages"),
        format!("/api/reviews?subject_id={session}"),
        "/api/keys".into(),
        "/api/patrol-agent".into(),
    ] {
        let (s, body) = app.get(&path).await;
        assert_eq!(s, StatusCode::OK, "{path}: {body}");
        seen.push(json!({ "path": path, "body": body }));
    }
    let inspect = app.platform.inspect();
    seen.push(json!({"turns": inspect.turn_count().await.expect("turns")}));
    seen
}

/// Every non-GET operation the served OpenAPI document lists: a route
/// added later is covered without a change here.
async fn changing_operations(app: &App) -> Vec<(String, String)> {
    let (s, doc) = app.get("/api/openapi.json").await;
    assert_eq!(s, StatusCode::OK);
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("path item").keys() {
            if method != "get" {
                out.push((method.clone(), path.clone()));
            }
        }
    }
    out
}

#[tokio::test]
async fn a_viewer_is_refused_on_every_route_that_changes_something_and_nothing_changes() {
    let app = app().await;
    let (target, campaign) = app.campaign().await;
    let (s, session) = app
        .post(
            "/api/exploration/sessions",
            json!({"campaign_id": campaign, "persona": {"name": "Lin"}, "goal": "send an email",
                   "trigger": "manual"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{session}");
    let session = session["id"].as_str().expect("session id").to_string();
    let viewer = app.key("reader", "viewer").await;
    app.key("bob", "editor").await;
    // Its first use is recorded (then not again within the minute).
    let (s, _) = app.get_with(&viewer, "/api/campaigns").await;
    assert_eq!(s, StatusCode::OK, "a viewer reads");
    let before = everything(&app, &campaign, &session).await;

    // Bodies that would be accepted, so that a missing check shows as a
    // change and not only as a different refusal; others get `{}`.
    let target_body = json!({"name": "other", "channel": {"kind": "builtin", "agent": "demo"}});
    let bodies = [
        ("/api/targets", target_body.clone()),
        ("/api/targets/{id}", target_body),
        (
            "/api/campaigns",
            campaign_body(&json!(target), "test.hello"),
        ),
        (
            "/api/exploration/sessions",
            json!({"campaign_id": campaign, "persona": {"name": "Ann"}, "goal": "g", "trigger": "manual"}),
        ),
        (
            "/api/exploration/sessions/{id}/messages",
            json!({"content": "hello"}),
        ),
        (
            "/api/exploration/sessions/{id}/close",
            json!({"goal_achieved": true, "blockers": [], "misled": [], "emotion": "satisfied", "notes": ""}),
        ),
        (
            "/api/reviews",
            json!({"subject_kind": "session", "subject_id": session, "rating": 4}),
        ),
        ("/api/exploration/explore", json!({"campaign_id": campaign})),
        ("/api/keys", json!({"name": "carol", "role": "admin"})),
    ];
    let operations = changing_operations(&app).await;
    assert!(
        operations.len() >= 20,
        "the document lists the changing routes: {operations:?}"
    );
    for (method, path) in &operations {
        let id = if path.starts_with("/api/targets/") {
            &target
        } else if path.starts_with("/api/exploration/sessions/") {
            &session
        } else {
            &campaign
        };
        let url = format!(
            "{}{}",
            app.base,
            path.replace("{id}", id).replace("{name}", "bob")
        );
        let body = bodies
            .iter()
            .find(|(p, _)| p == path)
            .map_or(json!({}), |(_, b)| b.clone());
        let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
        let (s, refusal) = app
            .send_with(&viewer, app.http.request(method.clone(), url).json(&body))
            .await;
        assert_forbidden(s, &refusal, &format!("a viewer's {method} {path}"));
        assert!(
            refusal["message"]
                .as_str()
                .is_some_and(|m| m.contains("reader") && m.contains("viewer")),
            "the refusal names the key and its role: {refusal}"
        );
    }
    assert_eq!(
        everything(&app, &campaign, &session).await,
        before,
        "the refused calls changed nothing"
    );

    let events = app.platform.inspect().audit_events().await.expect("audit");
    let refused = events
        .iter()
        .filter(|e| e.actor == "key:reader" && e.outcome == "FORBIDDEN")
        .count();
    assert_eq!(
        refused,
        operations.len(),
        "each refusal is audited, naming the key"
    );
}

#[tokio::test]
async fn a_viewer_reads_a_report_an_export_and_the_live_events_but_not_the_keys() {
    let app = app().await;
    let (_, campaign) = app.campaign().await;
    let viewer = app.key("reader", "viewer").await;

    let (s, report) = app
        .get_with(&viewer, &format!("/api/campaigns/{campaign}/report"))
        .await;
    assert_eq!(s, StatusCode::OK, "a viewer reads a report: {report}");
    assert_eq!(report["campaign"]["id"], campaign.as_str(), "{report}");
    let (s, export) = app
        .get_with(
            &viewer,
            &format!("/api/campaigns/{campaign}/export?format=md"),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "a viewer reads an export: {export}");
    assert!(
        export.as_str().is_some_and(|md| md.contains("week")),
        "the Markdown export names the campaign: {export}"
    );
    let events = app
        .http
        .get(format!("{}/api/events", app.base))
        .header("X-API-Key", &viewer)
        .send()
        .await
        .expect("events");
    assert_eq!(
        events.status(),
        StatusCode::OK,
        "a viewer follows the events"
    );
    assert!(
        events.headers()[reqwest::header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    drop(events);

    let (s, body) = app.get_with(&viewer, "/api/keys").await;
    assert_forbidden(s, &body, "a viewer listing the keys");
}

#[tokio::test]
async fn an_editor_creates_a_campaign_but_cannot_manage_keys() {
    let app = app().await;
    let (target, _) = app.campaign().await;
    let editor = app.key("ed", "editor").await;
    let (s, c) = app
        .post_with(
            &editor,
            "/api/campaigns",
            campaign_body(&json!(target), "test.hello"),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "an editor creates a campaign: {c}");
    let events = app.platform.inspect().audit_events().await.expect("audit");
    let created = events
        .iter()
        .find(|e| e.action == "campaign.create" && e.subject.as_deref() == c["id"].as_str())
        .unwrap_or_else(|| panic!("creating the campaign is audited: {events:?}"));
    assert_eq!(
        created.actor, "key:ed",
        "the row the operation records itself names the key that called it"
    );
    let setup = events
        .iter()
        .find(|e| e.action == "target.create" && e.subject.as_deref() == Some(target.as_str()))
        .expect("the target's creation is audited");
    assert_eq!(
        setup.actor, "key:server-key",
        "each row names its own caller"
    );

    let (s, body) = app
        .post_with(
            &editor,
            "/api/keys",
            json!({"name": "mine", "role": "admin"}),
        )
        .await;
    assert_forbidden(s, &body, "an editor creating a key");
    let (s, body) = app.get_with(&editor, "/api/keys").await;
    assert_forbidden(s, &body, "an editor listing the keys");
    let (s, body) = app
        .send_with(
            &editor,
            app.http.delete(format!("{}/api/keys/ed", app.base)),
        )
        .await;
    assert_forbidden(s, &body, "an editor revoking a key");
    let keys = app.platform.list_api_keys().await.expect("keys");
    assert_eq!(
        keys.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(),
        ["ed"],
        "no key was made or revoked"
    );
    assert!(keys[0].revoked_at.is_none());
}

#[tokio::test]
async fn an_admin_key_creates_lists_and_revokes_a_key_which_is_then_refused() {
    let app = app().await;
    let admin = app.key("root", "admin").await;

    let (s, created) = app
        .post_with(
            &admin,
            "/api/keys",
            json!({"name": "alice", "role": "viewer"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{created}");
    assert_eq!(created["name"], "alice");
    assert_eq!(created["role"], "viewer");
    let secret = created["key"].as_str().expect("the key, once").to_string();
    assert!(
        secret.starts_with("aek_") && secret.len() == 68,
        "a 256-bit key: {secret}"
    );
    assert!(secret.starts_with(created["prefix"].as_str().unwrap()));

    for (body, status, code) in [
        (
            json!({"name": "alice", "role": "editor"}),
            StatusCode::CONFLICT,
            "CONFLICT",
        ),
        (
            json!({"name": "al ice", "role": "viewer"}),
            StatusCode::BAD_REQUEST,
            "INVALID_INPUT",
        ),
        (
            json!({"name": "dave", "role": "owner"}),
            StatusCode::BAD_REQUEST,
            "INVALID_INPUT",
        ),
        (
            json!({"name": "server-key", "role": "admin"}),
            StatusCode::BAD_REQUEST,
            "INVALID_INPUT",
        ),
    ] {
        let (s, refusal) = app.post_with(&admin, "/api/keys", body.clone()).await;
        assert_eq!(s, status, "{body}: {refusal}");
        assert_eq!(refusal["code"], code, "{body}: {refusal}");
    }

    let (s, list) = app.get_with(&admin, "/api/keys").await;
    assert_eq!(s, StatusCode::OK, "{list}");
    let names: Vec<&str> = list
        .as_array()
        .expect("a list")
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["root", "alice"],
        "oldest first, refused ones absent"
    );
    let text = list.to_string();
    assert!(
        !text.contains(&secret[4..]) && !text.contains(&hash_key(&secret)),
        "the list holds neither a key nor its hash: {text}"
    );
    assert_eq!(list[1]["prefix"], created["prefix"]);
    assert!(list[1].get("key").is_none() && list[1].get("key_hash").is_none());

    let row = app
        .platform
        .inspect()
        .api_key_row("alice")
        .await
        .expect("read")
        .expect("the row");
    assert_eq!(
        row["key_hash"].as_deref(),
        Some(hash_key(&secret).as_str()),
        "the stored row holds the key's SHA-256"
    );
    for (column, value) in &row {
        assert!(
            !value.as_deref().unwrap_or("").contains(&secret[4..]),
            "column {column} holds no key: {row:?}"
        );
    }

    let (s, _) = app.get_with(&secret, "/api/campaigns").await;
    assert_eq!(s, StatusCode::OK, "the new key works");
    // Nor is it anywhere in the data folder's files (the database, its
    // WAL), not even its last characters.
    let files = files_under(app.dir.path());
    assert!(
        app.database_url.is_some() || files.iter().any(|f| f.to_string_lossy().ends_with("-wal")),
        "the WAL is searched while the database is open: {files:?}"
    );
    for file in files {
        let bytes = std::fs::read(&file).expect("a data file");
        for form in [&secret[..], &secret[secret.len() - 12..]] {
            assert!(
                !bytes.windows(form.len()).any(|w| w == form.as_bytes()),
                "{form} is in {}",
                file.display()
            );
        }
    }

    let revoke = |name: &str| app.http.delete(format!("{}/api/keys/{name}", app.base));
    let (s, revoked) = app.send_with(&admin, revoke("alice")).await;
    assert_eq!(s, StatusCode::OK, "{revoked}");
    assert_eq!(revoked["name"], "alice");
    assert!(revoked["revoked_at"].is_string(), "{revoked}");
    let (s, body) = app.get_with(&secret, "/api/campaigns").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "a revoked key: {body}");
    assert_eq!(body["code"], "UNAUTHORIZED");

    app.clock.advance(Duration::minutes(5));
    let (s, again) = app.send_with(&admin, revoke("alice")).await;
    assert_eq!(s, StatusCode::OK, "revoking again is no error: {again}");
    assert_eq!(
        again["revoked_at"], revoked["revoked_at"],
        "the first revocation stays"
    );
    let (s, missing) = app.send_with(&admin, revoke("nobody")).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{missing}");
    assert_eq!(missing["code"], "NOT_FOUND");

    let events = app.platform.inspect().audit_events().await.expect("audit");
    let by = |actor: &str, action: &str| {
        events
            .iter()
            .filter(|e| e.actor == actor && e.action == action)
            .count()
    };
    assert_eq!(
        by("key:root", "POST /api/keys"),
        5,
        "each call names the key that made it"
    );
    assert_eq!(by("key:root", "key.create"), 1, "one key was created");
    assert_eq!(by("key:root", "DELETE /api/keys/{name}"), 3);
    assert_eq!(by("key:root", "key.revoke"), 2);
    assert_eq!(by("key:alice", "GET /api/campaigns"), 1);
    assert!(
        events.iter().all(|e| !e.actor.contains(&secret[4..])),
        "no audit row holds a key"
    );
    assert!(
        events.iter().any(|e| e.actor == "anonymous"
            && e.action == "GET /api/campaigns"
            && e.outcome == "UNAUTHORIZED"),
        "the revoked key's call is audited as refused"
    );
}

#[tokio::test]
async fn the_server_key_is_an_admin_named_server_key() {
    let app = app().await;
    let (s, created) = app
        .post("/api/keys", json!({"name": "ci", "role": "editor"}))
        .await;
    assert_eq!(
        s,
        StatusCode::OK,
        "the server's key manages keys: {created}"
    );
    let (s, list) = app.get("/api/keys").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    let events = app.platform.inspect().audit_events().await.expect("audit");
    assert!(
        events.iter().any(|e| e.actor == "key:server-key"
            && e.action == "POST /api/keys"
            && e.outcome == "ok"),
        "the server's key is named in the audit trail: {events:?}"
    );
    assert!(
        events.iter().all(|e| e.actor != "api-key"),
        "no call is left unnamed"
    );
    let (s, _) = app.get_with(&format!("{KEY}x"), "/api/keys").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "near the server key is no key");
}

#[tokio::test]
async fn whoami_names_each_key_and_what_its_role_may_do() {
    let app = app().await;
    let viewer = app.key("manager", "viewer").await;
    let editor = app.key("ci", "editor").await;
    let expected = [
        (
            KEY.to_string(),
            json!({"name": "server-key", "role": "admin", "may_change": true, "may_manage_keys": true}),
        ),
        (
            viewer,
            json!({"name": "manager", "role": "viewer", "may_change": false, "may_manage_keys": false}),
        ),
        (
            editor.clone(),
            json!({"name": "ci", "role": "editor", "may_change": true, "may_manage_keys": false}),
        ),
    ];
    for (key, identity) in expected {
        let (s, body) = app.get_with(&key, "/api/whoami").await;
        assert_eq!(s, StatusCode::OK, "{body}");
        assert_eq!(body, identity);
    }
    let (s, body) = app.get_with("not-a-key", "/api/whoami").await;
    assert_eq!(
        s,
        StatusCode::UNAUTHORIZED,
        "an unknown key is nobody: {body}"
    );
    assert_eq!(body["code"], "UNAUTHORIZED");
    app.platform
        .revoke_api_key("ci", "test")
        .await
        .expect("revoke");
    let (s, _) = app.get_with(&editor, "/api/whoami").await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "a revoked key is nobody");
}

#[tokio::test]
async fn a_keys_use_is_recorded_at_most_once_a_minute() {
    let app = app().await;
    let key = app.key("watcher", "viewer").await;
    let last_used = || async { app.platform.list_api_keys().await.expect("keys")[0].last_used_at };
    assert_eq!(last_used().await, None, "not used yet");
    app.get_with(&key, "/api/campaigns").await;
    assert_eq!(last_used().await, Some(t0()), "the first use is recorded");
    app.clock.advance(Duration::seconds(30));
    app.get_with(&key, "/api/campaigns").await;
    assert_eq!(
        last_used().await,
        Some(t0()),
        "a use within the minute writes nothing"
    );
    app.clock.advance(Duration::seconds(31));
    app.get_with(&key, "/api/campaigns").await;
    assert_eq!(
        last_used().await,
        Some(t0() + Duration::seconds(61)),
        "a use after the minute is recorded"
    );
}

#[tokio::test]
async fn the_openapi_document_declares_403_where_a_role_can_be_refused() {
    let app = app().await;
    let (_, doc) = app.get("/api/openapi.json").await;
    for (method, path) in changing_operations(&app).await {
        let op = &doc["paths"][&path][&method];
        assert_eq!(
            op["responses"]["403"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/ErrorBody",
            "{method} {path} declares the viewer's 403"
        );
    }
    for (method, path) in [
        ("get", "/api/keys"),
        ("post", "/api/keys"),
        ("delete", "/api/keys/{name}"),
    ] {
        let op = &doc["paths"][path][method];
        assert!(
            op["responses"]["403"]["description"]
                .as_str()
                .is_some_and(|d| d.contains("admin")),
            "{method} {path} says only an admin may: {op}"
        );
    }
    assert!(
        doc["paths"]["/api/campaigns"]["get"]["responses"]
            .get("403")
            .is_none(),
        "a read is never refused for the role"
    );
}
