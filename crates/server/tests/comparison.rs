//! Two periods side by side, over HTTP on 127.0.0.1 with a real database
//! and a manual clock: the next period is named in the reader's language
//! (or as asked), and a campaign compares with any other of its target,
//! each side with its interval, pass^k and exploration figures, each
//! scenario fixed, broken or the same; campaigns of two targets refuse.

use axum::Json;
use chrono::Duration;
use reqwest::StatusCode;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

mod support;

use support::{App, app};

/// A target on 127.0.0.1 that says "OK" until `broken` is set.
async fn switchable_target(broken: Arc<AtomicBool>) -> String {
    let app = axum::Router::new().route(
        "/chat",
        axum::routing::post(move || {
            let broken = broken.clone();
            async move {
                let reply = if broken.load(Ordering::SeqCst) {
                    "Sorry, hi."
                } else {
                    "OK, hi."
                };
                Json(json!({ "reply": reply }))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind target");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/chat")
}

async fn load_pack(app: &App) {
    let dir = app.dir.path().join("packs/compare");
    std::fs::create_dir_all(&dir).expect("pack dir");
    std::fs::write(
        dir.join("compare.yaml"),
        r#"scenarios:
  - id: cmp.ok
    title: Says OK
    turns:
      - user: Say OK
        checks:
          - type: contains
            value: OK
  - id: cmp.hi
    title: Says hi
    turns:
      - user: Say hi
        checks:
          - type: contains
            value: hi
"#,
    )
    .expect("write pack");
    app.platform
        .load_scenarios(&[app.dir.path().join("packs")])
        .await
        .expect("load the pack");
}

async fn target(app: &App, name: &str, url: &str) -> String {
    let (s, t) = app
        .post(
            "/api/targets",
            json!({"name": name, "channel": {"kind": "http", "url": url}}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    t["id"].as_str().expect("id").to_string()
}

/// Lets the campaign's window pass and its runs finish.
async fn run_out(app: &App, id: &str) -> Value {
    app.clock.advance(Duration::hours(169));
    for _ in 0..200 {
        app.platform.tick().await.expect("tick");
        let (_, report) = app.get(&format!("/api/campaigns/{id}/report")).await;
        if report["fixed"]["runs_pending"] == 0 && report["fixed"]["runs_finished"] == 4 {
            return report;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("the runs of {id} did not finish");
}

#[tokio::test]
async fn two_periods_side_by_side_and_the_next_named_in_the_readers_language() {
    let app = app().await;
    load_pack(&app).await;
    let broken = Arc::new(AtomicBool::new(false));
    let url = switchable_target(broken.clone()).await;
    let t = target(&app, "switchable", &url).await;
    let plan = json!({"entries": [
        {"scenario_id": "cmp.ok", "rounds": 2}, {"scenario_id": "cmp.hi", "rounds": 2},
    ]});
    let (s, first) = app
        .post(
            "/api/campaigns",
            json!({"name": "第一周", "target_id": t, "plan": plan, "duration_hours": 168}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{first}");
    let a = first["id"].as_str().unwrap().to_string();
    run_out(&app, &a).await;

    // The next period, named in the reader's language unless named.
    let (s, zh) = app
        .send(app.http.post(format!(
            "{}/api/campaigns/{a}/next-period?lang=zh",
            app.base
        )))
        .await;
    assert_eq!(s, StatusCode::OK, "{zh}");
    assert_eq!(zh["name"], "第一周（下一周期）");
    let (s, null) = app
        .post(
            &format!("/api/campaigns/{a}/next-period?lang=en"),
            json!(null),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::OK,
        "a null body asks for the defaults: {null}"
    );
    assert_eq!(null["name"], "第一周 (next period)");
    let (s, named) = app
        .post(
            &format!("/api/campaigns/{a}/next-period"),
            json!({"name": "第二周"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{named}");
    assert_eq!(named["name"], "第二周");
    assert_eq!(named["previous_campaign_id"], a.as_str());
    let (s, refused) = app
        .post(
            &format!("/api/campaigns/{a}/next-period"),
            json!({"name": "  "}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "an empty name: {refused}");

    // The second period: the target now fails "Says OK".
    broken.store(true, Ordering::SeqCst);
    let b = named["id"].as_str().unwrap().to_string();
    run_out(&app, &b).await;

    let (s, cmp) = app
        .get(&format!("/api/campaigns/{b}/compare?with={a}&lang=zh"))
        .await;
    assert_eq!(s, StatusCode::OK, "{cmp}");
    assert_eq!(cmp["baseline"]["campaign_id"], a.as_str());
    assert_eq!(cmp["current"]["campaign_id"], b.as_str());
    assert_eq!(cmp["baseline"]["pass_rate"], 1.0);
    assert_eq!(cmp["current"]["pass_rate"], 0.5);
    for side in ["baseline", "current"] {
        let i = &cmp[side]["pass_rate_interval"];
        assert!(
            i["high"].as_f64().unwrap() > i["low"].as_f64().unwrap(),
            "each side has its interval: {i}"
        );
        let ks: Vec<u64> = cmp[side]["pass_at_k"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["k"].as_u64().unwrap())
            .collect();
        assert_eq!(ks, [1, 2], "pass^k for k up to the repeats: {}", cmp[side]);
    }
    assert_eq!(
        cmp["current"]["pass_at_k"][1]["value"], 0.5,
        "one of two scenarios passes twice"
    );
    assert_eq!(cmp["change"]["delta"], -0.5);
    // Four runs a side: -50 points is still within the noise, and said so.
    assert_eq!(cmp["change"]["within_noise"], true, "{}", cmp["change"]);
    assert_eq!(
        cmp["change"]["verdict"]["key"], "comparison-within-noise",
        "{}",
        cmp["change"]
    );
    assert!(
        cmp["change"]["verdict"]["text"]
            .as_str()
            .unwrap()
            .contains("噪声"),
        "in the reader's language: {}",
        cmp["change"]
    );
    let scenarios = cmp["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 2, "{scenarios:?}");
    assert_eq!(
        scenarios[0]["scenario_id"], "cmp.ok",
        "what broke comes first"
    );
    assert_eq!(scenarios[0]["change"], "broke");
    assert_eq!(scenarios[0]["title"], "Says OK");
    assert_eq!(scenarios[0]["baseline"], json!({"passed": 2, "judged": 2}));
    assert_eq!(scenarios[0]["current"], json!({"passed": 0, "judged": 2}));
    assert_eq!(scenarios[1]["change"], "same");

    // Either way round: the earlier one against the later one.
    let (_, back) = app
        .get(&format!("/api/campaigns/{a}/compare?with={b}"))
        .await;
    assert_eq!(back["scenarios"][0]["change"], "fixed");

    // Refusals: itself, another target, no baseline, an unknown one.
    let (s, e) = app
        .get(&format!("/api/campaigns/{a}/compare?with={a}"))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let other = target(&app, "other", &url).await;
    let (_, c) = app
        .post(
            "/api/campaigns",
            json!({"name": "elsewhere", "target_id": other, "scenario_ids": ["cmp.hi"], "duration_hours": 1}),
        )
        .await;
    let (s, e) = app
        .get(&format!(
            "/api/campaigns/{a}/compare?with={}&lang=zh",
            c["id"].as_str().unwrap()
        ))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert_eq!(e["code"], "INVALID_INPUT");
    assert!(
        e["message"].as_str().unwrap().contains("elsewhere")
            && e["message"].as_str().unwrap().contains("不同"),
        "names both, in the reader's language: {e}"
    );
    let (s, e) = app.get(&format!("/api/campaigns/{a}/compare")).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let (s, e) = app
        .get(&format!(
            "/api/campaigns/{a}/compare?with={}",
            uuid::Uuid::now_v7()
        ))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
}
