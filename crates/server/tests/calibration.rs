//! The blind review queue of fixed runs with rubric checks over HTTP: a
//! real router on 127.0.0.1, a real SQLite in a temp dir, a small scenario
//! pack on disk and the builtin demo target, driven with reqwest.

use chrono::Duration;
use reqwest::StatusCode;
use serde_json::{Value, json};

mod support;

use support::{App, app};

const PACK: &str = r#"scenarios:
  - id: t.greeting
    title: Greets and says what it can do
    tags: [en]
    turns:
      - user: Hello
        checks:
          - type: contains
            value: zzz-never
          - type: rubric
            rubric: A friendly greeting that says what the agent can help with.
"#;

impl App {
    /// A finished campaign of two runs of the pack's rubric scenario
    /// against the builtin demo agent.
    async fn rubric_campaign(&self) -> String {
        let pack = self.dir.path().join("packs/t");
        std::fs::create_dir_all(&pack).expect("pack folder");
        std::fs::write(pack.join("greeting.yaml"), PACK).expect("pack file");
        self.platform
            .load_scenarios(&[self.dir.path().join("packs")])
            .await
            .expect("the pack loads");
        let (s, target) = self
            .post(
                "/api/targets",
                json!({"name": "demo", "channel": {"kind": "builtin", "agent": "demo"}}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{target}");
        let (s, c) = self
            .post(
                "/api/campaigns",
                json!({"name": "rubric week", "target_id": target["id"],
                       "plan": {"entries": [{"scenario_id": "t.greeting", "rounds": 2}]},
                       "duration_hours": 1, "time_scale": 3600}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{c}");
        self.clock.advance(Duration::seconds(5));
        self.platform.tick().await.expect("the runs execute");
        c["id"].as_str().expect("campaign id").to_string()
    }
}

fn assert_error_shape(body: &Value, code: &str) {
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
    assert!(body["suggestion"].is_string(), "{body}");
}

#[tokio::test]
async fn rubric_runs_are_labelled_blind_over_http_and_calibrate_the_rubric_criterion() {
    let app = app().await;
    let cid = app.rubric_campaign().await;

    let (s, queue) = app
        .get(&format!("/api/campaigns/{cid}/blind-run-queue"))
        .await;
    assert_eq!(s, StatusCode::OK, "{queue}");
    assert_eq!(
        (&queue["remaining"], &queue["labelled"]),
        (&json!(2), &json!(0))
    );
    let item = &queue["items"][0];
    let run_id = item["run_id"].as_str().expect("run id").to_string();
    assert_eq!(
        item["rubrics"],
        json!([{"check_index": 1, "turn": 0,
                "rubric": "A friendly greeting that says what the agent can help with."}]),
        "the rubric to rate, named by its place among the run's checks"
    );
    assert!(
        item["turns"].as_array().is_some_and(|t| t.len() == 2),
        "the conversation is there: {queue}"
    );
    let text = queue.to_string();
    for word in ["score", "detail", "judged_by", "passed", "heuristic"] {
        assert!(
            !text.contains(word),
            "the queue carries no {word:?}: {text}"
        );
    }

    let label =
        |score: Value| json!({"run_id": run_id, "scores": [{"check_index": 1, "score": score}]});
    let (s, bad) = app.post("/api/judge-run-labels", label(json!(7))).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}");
    assert_error_shape(&bad, "INVALID_INPUT");
    let (s, bad) = app
        .post("/api/judge-run-labels", label(json!("good")))
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    assert_error_shape(&bad, "UNPROCESSABLE");
    let (s, bad) = app
        .post(
            "/api/judge-run-labels",
            json!({"run_id": run_id, "scores": [{"check_index": 0, "score": 3}]}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::CONFLICT,
        "check 0 is no rubric of this run: {bad}"
    );
    assert_error_shape(&bad, "CONFLICT");
    let (s, bad) = app
        .post(
            "/api/judge-run-labels",
            json!({"run_id": run_id, "scores": []}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "no score at all: {bad}");
    assert_error_shape(&bad, "INVALID_INPUT");
    let (s, bad) = app
        .post(
            "/api/judge-run-labels",
            json!({"run_id": "0190d5a4-0000-7000-8000-000000000000",
                   "scores": [{"check_index": 1, "score": 3}]}),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{bad}");
    assert_error_shape(&bad, "NOT_FOUND");

    let (s, revealed) = app.post("/api/judge-run-labels", label(json!(4))).await;
    assert_eq!(s, StatusCode::OK, "{revealed}");
    let check = &revealed["checks"][0];
    assert_eq!(check["mine"], 4);
    assert!(
        (1..=5).contains(&check["judge"].as_u64().expect("a judge score")),
        "the judge's score is revealed after the label: {revealed}"
    );
    assert_eq!(check["judged_by"], "heuristic");
    assert!(
        check["reason"]["text"]
            .as_str()
            .is_some_and(|r| r.contains("offline heuristic scored")),
        "{revealed}"
    );
    let (s, again) = app.post("/api/judge-run-labels", label(json!(2))).await;
    assert_eq!(s, StatusCode::CONFLICT, "{again}");
    assert_error_shape(&again, "CONFLICT");

    let (s, queue) = app
        .get(&format!("/api/campaigns/{cid}/blind-run-queue?limit=5"))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        (&queue["remaining"], &queue["labelled"]),
        (&json!(1), &json!(1))
    );
    for limit in ["0", "abc"] {
        let (s, bad) = app
            .get(&format!(
                "/api/campaigns/{cid}/blind-run-queue?limit={limit}"
            ))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "limit={limit}: {bad}");
        assert_error_shape(&bad, "INVALID_INPUT");
    }
    let (s, missing) = app
        .get("/api/campaigns/0190d5a4-0000-7000-8000-000000000000/blind-run-queue")
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{missing}");

    let (s, calibration) = app
        .get(&format!("/api/campaigns/{cid}/judge-calibration"))
        .await;
    assert_eq!(s, StatusCode::OK, "{calibration}");
    assert_eq!(
        (
            &calibration["runs_labelled"],
            &calibration["runs_unlabelled"]
        ),
        (&json!(1), &json!(1))
    );
    let rubric = &calibration["criteria"][0];
    assert_eq!(rubric["criterion"], "rubric");
    assert_eq!(rubric["items"], 1);
    assert_eq!(rubric["calibrated"], false, "1 label < 30: advisory");
    let (_, report) = app.get(&format!("/api/campaigns/{cid}/report")).await;
    assert_eq!(
        report["judge_calibration"]["criteria"][0]["criterion"], "rubric",
        "the report of a campaign of fixed runs carries it"
    );
    let (s, md) = app
        .get(&format!("/api/campaigns/{cid}/export?format=md"))
        .await;
    assert_eq!(s, StatusCode::OK);
    let md = md.as_str().expect("markdown").to_string();
    assert!(
        md.contains("The judge's rubric figures are advisory"),
        "{md}"
    );
    let (_, doc) = app.get("/api/openapi.json").await;
    for path in [
        "/api/campaigns/{id}/blind-run-queue",
        "/api/judge-run-labels",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} is documented");
    }
}
