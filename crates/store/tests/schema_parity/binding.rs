//! The types of the PostgreSQL schema were chosen so that the store binds
//! and reads the same Rust values on both backends: ids as text, times and
//! counts as i64, flags as bool, JSON as text, REAL as f64. The same
//! statements run on both here, and what comes back must be the same,
//! refusals included.

use crate::{postgres_migrated, sqlite_migrated};
use sqlx::Row;

/// `?` placeholders as PostgreSQL numbers them (`$1`, `$2`, …).
fn numbered(sql: &str) -> String {
    let mut out = String::new();
    let mut n = 0;
    for c in sql.chars() {
        if c == '?' {
            n += 1;
            out.push_str(&format!("${n}"));
        } else {
            out.push(c);
        }
    }
    out
}

fn as_is(sql: &str) -> String {
    sql.to_string()
}

const TARGET: &str = "0190b5a2-7c1e-7d3a-8f00-000000000001";
const CAMPAIGN: &str = "0190b5a2-7c1e-7d3a-8f00-000000000002";
const RUN: &str = "0190b5a2-7c1e-7d3a-8f00-000000000003";
/// Key order and a NUL escape that jsonb would not keep.
const CHANNEL: &str = r#"{"kind":"builtin","agent":"demo","note":"a\u0000b"}"#;

/// Runs the same statements on a pool of either backend and returns what
/// was seen, one line per observation.
macro_rules! exercise {
    ($pool:expr, $sql:expr) => {{
        let pool = $pool;
        let sql: fn(&str) -> String = $sql;
        let mut seen: Vec<String> = Vec::new();
        let now: i64 = 1_767_225_600_000;

        for (id, name) in [(TARGET, "b"), ("t2", "B"), ("t3", "é"), ("t4", "a"), ("t5", "Z")] {
            sqlx::query(&sql(
                "INSERT INTO targets (id, name, channel, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
            ))
            .bind(id.to_string())
            .bind(name)
            .bind(CHANNEL.to_string())
            .bind(now)
            .bind(now)
            .execute(&pool)
            .await
            .expect("a target");
        }
        let row = sqlx::query(&sql(
            "SELECT channel, concurrency, timeout_ms, price_in_per_mtok, rate_per_second, archived_at
             FROM targets WHERE id = ?",
        ))
        .bind(TARGET.to_string())
        .fetch_one(&pool)
        .await
        .expect("the target back");
        seen.push(format!(
            "target: {} {} {} {} {:?} {:?}",
            row.try_get::<String, _>("channel").unwrap(),
            row.try_get::<i64, _>("concurrency").unwrap(),
            row.try_get::<i64, _>("timeout_ms").unwrap(),
            row.try_get::<f64, _>("price_in_per_mtok").unwrap(),
            row.try_get::<Option<f64>, _>("rate_per_second").unwrap(),
            row.try_get::<Option<i64>, _>("archived_at").unwrap(),
        ));
        let names: Vec<String> = sqlx::query(&sql("SELECT name FROM targets ORDER BY name"))
            .fetch_all(&pool)
            .await
            .unwrap()
            .iter()
            .map(|r| r.get("name"))
            .collect();
        seen.push(format!("names in order: {names:?}"));

        sqlx::query(&sql(
            "INSERT INTO campaigns (id, name, target_id, status, window_start, window_end, plan,
                                    created_at, updated_at)
             VALUES (?, 'c', ?, 'running', ?, ?, '{}', ?, ?)",
        ))
        .bind(CAMPAIGN.to_string())
        .bind(TARGET.to_string())
        .bind(now)
        .bind(now + 3_600_000)
        .bind(now)
        .bind(now)
        .execute(&pool)
        .await
        .expect("a campaign");
        let row = sqlx::query(&sql(
            "SELECT seed_set, seed_fingerprint, time_scale, budget, window_end - window_start AS span
             FROM campaigns WHERE id = ?",
        ))
        .bind(CAMPAIGN.to_string())
        .fetch_one(&pool)
        .await
        .unwrap();
        seen.push(format!(
            "campaign: {} {:?} {} {:?} {}",
            row.try_get::<String, _>("seed_set").unwrap(),
            row.try_get::<String, _>("seed_fingerprint").unwrap(),
            row.try_get::<f64, _>("time_scale").unwrap(),
            row.try_get::<Option<String>, _>("budget").unwrap(),
            row.try_get::<i64, _>("span").unwrap(),
        ));

        // Same millisecond, ids out of insertion order: the ledger is read
        // in insertion order all the same.
        for (id, allowed) in [("l3", true), ("l1", false), ("l2", true)] {
            sqlx::query(&sql(
                "INSERT INTO ledger_entries (id, campaign_id, session_id, action, allowed, reason_code, at)
                 VALUES (?, ?, NULL, 'create', ?, NULL, ?)",
            ))
            .bind(id.to_string())
            .bind(CAMPAIGN.to_string())
            .bind(allowed)
            .bind(now)
            .execute(&pool)
            .await
            .expect("a ledger entry");
        }
        let ledger: Vec<(String, bool)> = sqlx::query(&sql(
            "SELECT id, allowed FROM ledger_entries WHERE campaign_id = ? ORDER BY at, rowid",
        ))
        .bind(CAMPAIGN.to_string())
        .fetch_all(&pool)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get("id"), r.get("allowed")))
        .collect();
        seen.push(format!("ledger: {ledger:?}"));
        let allowed: i64 = sqlx::query_scalar(&sql(
            "SELECT count(*) FROM ledger_entries WHERE campaign_id = ? AND allowed = TRUE",
        ))
        .bind(CAMPAIGN.to_string())
        .fetch_one(&pool)
        .await
        .unwrap();
        seen.push(format!("allowed: {allowed}"));

        sqlx::query(&sql(
            "INSERT INTO analyses (id, campaign_id, model, offline, content, created_at)
             VALUES ('a1', ?, 'template', ?, '{}', ?)",
        ))
        .bind(CAMPAIGN.to_string())
        .bind(true)
        .bind(now)
        .execute(&pool)
        .await
        .expect("an analysis");
        let offline: bool = sqlx::query_scalar(&sql("SELECT offline FROM analyses WHERE id = 'a1'"))
            .fetch_one(&pool)
            .await
            .unwrap();
        seen.push(format!("offline: {offline}"));

        let insert_run = sql(
            "INSERT INTO runs (id, campaign_id, scenario_id, scenario_hash, seq, offset_ms,
                               scheduled_at, status, created_at)
             VALUES (?, ?, 's', 'h', ?, 0, ?, ?, ?)",
        );
        let run = |id: &'static str, seq: i64, status: &'static str| {
            sqlx::query(&insert_run)
            .bind(id.to_string())
            .bind(CAMPAIGN.to_string())
            .bind(seq)
            .bind(now)
            .bind(status)
            .bind(now)
        };
        let outcome = |r: Result<_, sqlx::Error>| if r.is_ok() { "accepted" } else { "refused" };
        seen.push(format!("pending run: {}", outcome(run(RUN, 1, "pending").execute(&pool).await)));
        seen.push(format!("run inserted done: {}", outcome(run("r2", 2, "done").execute(&pool).await)));
        seen.push(format!("run at a taken seq: {}", outcome(run("r3", 1, "pending").execute(&pool).await)));
        for score in [5_i64, 6] {
            let r = sqlx::query(&sql(
                "INSERT INTO judge_run_labels (id, campaign_id, run_id, check_index, score, created_at)
                 VALUES (?, ?, ?, ?, ?, ?)",
            ))
            .bind(format!("label{score}"))
            .bind(CAMPAIGN.to_string())
            .bind(RUN.to_string())
            .bind(score)
            .bind(score)
            .bind(now)
            .execute(&pool)
            .await;
            seen.push(format!("run label scored {score}: {}", outcome(r)));
        }
        let r = sqlx::query(&sql(
            "INSERT INTO campaigns (id, name, target_id, status, window_start, window_end, plan,
                                    created_at, updated_at)
             VALUES ('c2', 'c', 'no such target', 'running', 0, 0, '{}', 0, 0)",
        ))
        .execute(&pool)
        .await;
        seen.push(format!("campaign of an unknown target: {}", outcome(r)));

        let insert_key = sql(
            "INSERT INTO api_keys (id, name, role, key_hash, prefix, created_at)
             VALUES (?, ?, ?, ?, 'aek_0000', ?)",
        );
        let key = |id: &'static str, name: &'static str, role: &'static str, hash: &'static str| {
            sqlx::query(&insert_key)
                .bind(id.to_string())
                .bind(name)
                .bind(role)
                .bind(hash)
                .bind(now)
        };
        seen.push(format!("viewer key: {}", outcome(key("k1", "alice", "viewer", "h1").execute(&pool).await)));
        seen.push(format!("key of an unknown role: {}", outcome(key("k2", "bob", "owner", "h2").execute(&pool).await)));
        seen.push(format!("key of a taken name: {}", outcome(key("k3", "alice", "admin", "h3").execute(&pool).await)));
        seen.push(format!("key of a taken hash: {}", outcome(key("k4", "carol", "admin", "h1").execute(&pool).await)));
        // The store's insert and revocation, as written.
        let skipped = sqlx::query(&sql(
            "INSERT INTO api_keys (id, name, role, key_hash, prefix, created_at)
             VALUES ('k5', 'alice', 'admin', 'h5', 'aek_0000', ?)
             ON CONFLICT (name) DO NOTHING",
        ))
        .bind(now)
        .execute(&pool)
        .await
        .expect("a taken name is skipped, not an error")
        .rows_affected();
        seen.push(format!("key of a taken name, skipped: {skipped} stored"));
        for at in [now + 1, now + 2] {
            let revoked: Option<i64> = sqlx::query_scalar(&sql(
                "UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE name = ?
                 RETURNING revoked_at",
            ))
            .bind(at)
            .bind("alice")
            .fetch_one(&pool)
            .await
            .expect("the key revoked");
            seen.push(format!("revoked after: {:?}", revoked.map(|t| t - now)));
        }
        seen
    }};
}

#[tokio::test]
async fn the_same_rust_values_bind_and_read_back_alike_on_both_backends() {
    let sqlite = sqlite_migrated(&["PRAGMA foreign_keys = ON"]).await;
    let on_sqlite = exercise!(sqlite, as_is);
    let postgres = postgres_migrated(&[]).await;
    let on_postgres = exercise!(postgres, numbered);
    assert_eq!(on_sqlite, on_postgres, "SQLite first, PostgreSQL second");
    // And what both saw is what the schemas promise.
    let expected = [
        format!("target: {CHANNEL} 4 15000 0 None None"),
        r#"names in order: ["B", "Z", "a", "b", "é"]"#.to_string(),
        r#"campaign: {"personas":[],"goals":[]} "" 1 None 3600000"#.to_string(),
        r#"ledger: [("l3", true), ("l1", false), ("l2", true)]"#.to_string(),
        "allowed: 2".to_string(),
        "offline: true".to_string(),
        "pending run: accepted".to_string(),
        "run inserted done: refused".to_string(),
        "run at a taken seq: refused".to_string(),
        "run label scored 5: accepted".to_string(),
        "run label scored 6: refused".to_string(),
        "campaign of an unknown target: refused".to_string(),
        "viewer key: accepted".to_string(),
        "key of an unknown role: refused".to_string(),
        "key of a taken name: refused".to_string(),
        "key of a taken hash: refused".to_string(),
        "key of a taken name, skipped: 0 stored".to_string(),
        "revoked after: Some(1)".to_string(),
        "revoked after: Some(1)".to_string(),
    ];
    assert_eq!(on_postgres, expected);
}
