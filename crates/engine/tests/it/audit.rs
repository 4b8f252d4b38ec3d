//! Audit retention: old events go, recent ones stay, the pruning is audited.

use crate::support::{platform, t0};
use agenteval_engine::audit::{DEFAULT_RETENTION_DAYS, parse_retention_days};
use chrono::Duration;

async fn actions(p: &agenteval_engine::Platform) -> Vec<(String, i64)> {
    p.inspect()
        .audit_events()
        .await
        .expect("read audit events")
        .into_iter()
        .map(|e| (e.action, e.at_ms))
        .collect()
}

#[tokio::test]
async fn prune_deletes_events_older_than_the_retention_and_audits_itself() {
    let tp = platform().await;
    let p = &tp.platform;
    // Events at 200, 91, 89 and 1 day(s) before t0, plus one at t0.
    for (days, action) in [
        (200, "old.a"),
        (91, "old.b"),
        (89, "recent.a"),
        (1, "recent.b"),
        (0, "recent.c"),
    ] {
        tp.clock.set(t0() - Duration::days(days));
        p.audit("api-key", action, None, "ok").await;
    }
    // Exactly at the cutoff: kept (only strictly older events go).
    tp.clock.set(t0() - Duration::days(90));
    p.audit("api-key", "edge.kept", None, "ok").await;
    tp.clock.set(t0());

    let pruned = p
        .prune_audit_events(DEFAULT_RETENTION_DAYS)
        .await
        .expect("prune");
    assert_eq!(
        pruned.deleted, 2,
        "the events 200 and 91 days old are past 90 days"
    );
    assert_eq!(
        pruned.cutoff_ms,
        (t0() - Duration::days(90)).timestamp_millis()
    );

    let left: Vec<String> = actions(p).await.into_iter().map(|(a, _)| a).collect();
    assert!(
        !left.iter().any(|a| a.starts_with("old.")),
        "old events remain: {left:?}"
    );
    for kept in ["recent.a", "recent.b", "recent.c", "edge.kept"] {
        assert!(
            left.iter().any(|a| a == kept),
            "{kept} is within 90 days and must stay: {left:?}"
        );
    }

    let row = p
        .inspect()
        .audit_events()
        .await
        .expect("read audit events")
        .into_iter()
        .find(|e| e.action == "audit.prune")
        .expect("the pruning itself is an audit event");
    assert_eq!(row.actor, "engine");
    assert_eq!(row.outcome, "ok");
    assert_eq!(
        row.at_ms,
        t0().timestamp_millis(),
        "stamped with the injected clock"
    );
    let detail: serde_json::Value =
        serde_json::from_str(row.detail.as_deref().expect("detail")).expect("detail is JSON");
    assert_eq!(detail["deleted"], 2);
    assert_eq!(detail["retention_days"], 90);

    // A second pass a day later removes nothing new but is audited too; a
    // shorter retention then takes the older recent events.
    tp.clock.advance(Duration::days(1));
    assert_eq!(
        p.prune_audit_events(90).await.expect("prune").deleted,
        1,
        "edge.kept is now 91 days old"
    );
    let pruned = p.prune_audit_events(30).await.expect("prune");
    assert_eq!(
        pruned.deleted, 1,
        "recent.a (90 days old now) goes with a 30-day retention"
    );
    let prunes = actions(p)
        .await
        .iter()
        .filter(|(a, _)| a == "audit.prune")
        .count();
    assert_eq!(
        prunes, 3,
        "every pass is audited, and audit rows of the passes are recent"
    );
}

#[tokio::test]
async fn the_retention_job_prunes_at_start() {
    let tp = platform().await;
    let p = tp.platform.clone();
    tp.clock.set(t0() - Duration::days(365));
    p.audit("api-key", "ancient", None, "ok").await;
    tp.clock.set(t0());
    let job = agenteval_engine::runtime::retention::spawn(p.clone(), 90);
    // Wait for the first pass (it runs at once); no time is asserted.
    let mut seen = false;
    for _ in 0..2000 {
        let prunes = p
            .inspect()
            .audit_events()
            .await
            .expect("count")
            .iter()
            .filter(|e| e.action == "audit.prune")
            .count();
        if prunes > 0 {
            seen = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    job.abort();
    assert!(seen, "the job's first pass runs at start");
    let left: Vec<String> = actions(&p).await.into_iter().map(|(a, _)| a).collect();
    assert_eq!(
        left,
        vec!["audit.prune".to_string()],
        "the year-old event is gone"
    );
}

#[test]
fn retention_days_must_be_a_positive_whole_number() {
    assert_eq!(parse_retention_days("90").expect("valid"), 90);
    assert_eq!(parse_retention_days(" 7 ").expect("valid"), 7);
    for bad in ["0", "-1", "ninety", "", "1.5"] {
        let err = parse_retention_days(bad).expect_err("refused");
        assert_eq!(
            err.code(),
            agenteval_engine::ErrorCode::InvalidInput,
            "{bad:?}"
        );
    }
    let zh = parse_retention_days("ninety")
        .expect_err("refused")
        .body
        .in_lang(agenteval_engine::Lang::Zh);
    assert_eq!(
        zh.message,
        "审计日志保留天数必须是不小于 1 的整数，实际为 \"ninety\""
    );
    assert!(
        zh.suggestion.contains("AGENTEVAL_AUDIT_RETENTION_DAYS"),
        "{}",
        zh.suggestion
    );
}
