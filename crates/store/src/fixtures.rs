//! Writes that only tests and benchmarks make: states the engine never
//! writes itself but must cope with, set up without SQL outside the store.
//!
//! - What a crash leaves: a run claimed and cut mid-flight, a turn
//!   committed before the cut.
//! - What an older or newer version left: data stored before a migration
//!   (tallies missing, a table in its earlier shape, work waiting for the
//!   engine to fill in when it next opens the database), a migration this
//!   build does not know.
//! - Data in shapes the engine no longer writes (judge reviews as older
//!   judges wrote them).
//! - The report benchmark's large campaign, written straight through the
//!   schema in a few statements, since a million turns through the engine
//!   would take minutes.
//!
//! Reached through `Platform::fixtures`; never used by the engine.

use super::Store;
use super::session_tallies::retally;
use super::sql::{Conn, Sql, args};
use agenteval_domain::error::{Context, Error, Result};
use agenteval_domain::ids::{CampaignId, RunId, SessionId};
use serde_json::Value;

/// Writes for tests and benchmarks (see the [module](self)).
#[derive(Debug, Clone, Copy)]
pub struct Fixtures<'p> {
    store: &'p Store,
}

/// Turns of each session of the report benchmark's campaign.
pub const BENCH_SESSION_TURNS: u64 = 8;
/// Turns of each run of the report benchmark's campaign.
pub const BENCH_RUN_TURNS: u64 = 2;

impl Store {
    /// Writes for tests and benchmarks (see [`Fixtures`]).
    pub fn fixtures(&self) -> Fixtures<'_> {
        Fixtures { store: self }
    }
}

impl Fixtures<'_> {
    /// Closes the platform's pooled connections, as a process that stops
    /// does, so that the data folder can be opened again as after a
    /// restart; the platform's pool serves nothing after this.
    pub async fn close(&self) {
        self.store.close().await;
    }

    /// Marks a run `running`, started at `started_at_ms`, as a claim cut by
    /// a crash leaves it.
    pub async fn mark_run_running(&self, run_id: RunId, started_at_ms: i64) -> Result<()> {
        self.store
            .write(move |c| {
                c.exec(
                    "UPDATE runs SET status = 'running', started_at = ? WHERE id = ?",
                    args![started_at_ms, run_id.to_string()],
                )
            })
            .await
            .with_context(|| format!("store: marking run {run_id} running"))?;
        Ok(())
    }

    /// Stores turn `seq` of a run as committed before a crash.
    pub async fn insert_run_turn(
        &self,
        run_id: RunId,
        seq: u32,
        role: &str,
        content: &str,
        created_at_ms: i64,
    ) -> Result<()> {
        let (role, content) = (role.to_string(), content.to_string());
        self.store
            .write(move |c| {
                c.exec(
                    "INSERT INTO run_turns (run_id, seq, role, content, created_at)
                     VALUES (?, ?, ?, ?, ?)",
                    args![run_id.to_string(), seq, role, content, created_at_ms],
                )
            })
            .await
            .with_context(|| format!("store: inserting turn {seq} of run {run_id}"))?;
        Ok(())
    }

    /// Stores a session's judge review as raw JSON with `status`, in
    /// whatever shape it has (shapes older judges wrote included).
    pub async fn set_judge_review(
        &self,
        session_id: SessionId,
        status: &str,
        review: &Value,
    ) -> Result<()> {
        let (review, status) = (review.to_string(), status.to_string());
        self.store
            .transact(move |tx| {
                retally(&tx.0, &[session_id], || {
                    tx.0.exec(
                        "UPDATE exploration_sessions SET judge_review = ?, judge_status = ?
                         WHERE id = ?",
                        args![review, status, session_id.to_string()],
                    )
                    .with_context(|| {
                        format!("store: setting the judge review of session {session_id}")
                    })
                })
            })
            .await?;
        Ok(())
    }

    /// Records migration `version` as applied, as a newer build that this
    /// one does not know leaves it.
    pub async fn insert_future_migration(&self, version: i64, description: &str) -> Result<()> {
        let description = description.to_string();
        self.store
            .write(move |c| {
                c.exec(
                    Sql::dialects(
                        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
                         VALUES (?, ?, TRUE, x'00', 0)",
                        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
                         VALUES (?, ?, TRUE, decode('00', 'hex'), 0)",
                    ),
                    args![version, description],
                )
            })
            .await
            .with_context(|| format!("store: recording migration {version} as applied"))?;
        Ok(())
    }

    /// Records `version` as the version of AgentEval that last opened the
    /// database.
    pub async fn set_written_by(&self, version: &str) -> Result<()> {
        let owned = version.to_string();
        self.store
            .write(move |c| {
                c.exec(
                    "UPDATE app_meta SET value = ? WHERE key = 'written_by'",
                    args![owned],
                )
            })
            .await
            .with_context(|| format!("store: recording version {version} as the writer"))?;
        Ok(())
    }

    /// Leaves the data named `names` (`run_tallies`, `session_tallies`,
    /// `session_issue_tally`, `simulator_faults`) for the engine to fill
    /// when it next opens the database, as a migration does.
    pub async fn queue_backfills(&self, names: &[&str]) -> Result<()> {
        let owned: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        self.store
            .write(move |c| {
                for name in &owned {
                    c.exec(
                        "INSERT INTO pending_backfills (name) VALUES (?)",
                        args![name],
                    )?;
                }
                Ok(())
            })
            .await
            .with_context(|| format!("store: queueing the backfills {names:?}"))?;
        Ok(())
    }

    /// Empties the report's run tallies, as the runs were stored before
    /// migration 0008.
    pub async fn clear_run_tallies(&self) -> Result<()> {
        self.store
            .write(|c| {
                c.batch(
                    "DELETE FROM run_verdict_tally; DELETE FROM run_timeline_tally;
                     DELETE FROM run_failing_check_tally;
                     DELETE FROM run_error_tally; DELETE FROM run_latency_tally;",
                )
            })
            .await
            .context("store: emptying the run tallies")?;
        Ok(())
    }

    /// Forgets every session's simulator-fault check, as sessions that
    /// ended before migration 0013 are stored.
    pub async fn clear_simulator_faults(&self) -> Result<()> {
        self.store
            .transact(|tx| {
                let doing = "store: forgetting the simulator-fault checks";
                let checked: Vec<SessionId> =
                    tx.0.rows(
                        "SELECT id FROM exploration_sessions WHERE simulator_faults IS NOT NULL",
                        args![],
                        |r| Ok(SessionId(r.uuid(0)?)),
                    )
                    .context(doing)?;
                retally(&tx.0, &checked, || {
                    tx.0.exec(
                        "UPDATE exploration_sessions SET simulator_faults = NULL",
                        args![],
                    )
                    .context(doing)
                })
            })
            .await?;
        Ok(())
    }

    /// Undoes migrations 0009 (the session tallies, with the triggers and
    /// views that kept them then), 0011 (which adds to its issue tally),
    /// 0019 (which moved the tallies into the store), 0027 (a finding's
    /// step) and 0031 (its session's name), leaving the sessions as stored
    /// before them; the engine applies the five again when it next opens
    /// the database, and fills the tallies. SQLite only: PostgreSQL's
    /// schema starts after these migrations.
    pub async fn undo_session_tally_migrations(&self) -> Result<()> {
        self.store
            .write(|c| {
                sqlite_only(c, "undoing SQLite's migrations")?;
                c.batch(
                    "DROP TABLE session_findings; DROP TABLE session_tally;
                     DROP TABLE session_dimension_tally; DROP TABLE session_issue_tally;
                     DELETE FROM _sqlx_migrations WHERE version IN (9, 11, 19, 27, 31);",
                )
            })
            .await
            .context("store: undoing migrations 0009, 0011, 0019, 0027 and 0031")?;
        Ok(())
    }

    /// Puts the issue tally back as it was before migration 0011: without
    /// phrasings, holding only `issues` of `campaign_id` (`(kind, key,
    /// text, sessions)` each, no session ids); the engine applies 0011
    /// again when it next opens the database. SQLite only: PostgreSQL's
    /// schema starts after this migration.
    pub async fn issue_tally_before_0011(
        &self,
        campaign_id: CampaignId,
        issues: &[(&str, &str, &str, u32)],
    ) -> Result<()> {
        let owned: Vec<(String, String, String, u32)> = issues
            .iter()
            .map(|(kind, key, text, sessions)| {
                (
                    kind.to_string(),
                    key.to_string(),
                    text.to_string(),
                    *sessions,
                )
            })
            .collect();
        self.store
            .write(move |c| {
                sqlite_only(c, "undoing SQLite's migration 0011")?;
                c.batch(
                    "DELETE FROM session_issue_tally;
                     ALTER TABLE session_issue_tally DROP COLUMN texts;",
                )?;
                for (kind, key, text, sessions) in &owned {
                    c.exec(
                        "INSERT INTO session_issue_tally (campaign_id, kind, key, text, sessions, session_ids)
                         VALUES (?, ?, ?, ?, ?, '[]')",
                        args![campaign_id.to_string(), kind, key, text, *sessions],
                    )?;
                }
                c.exec("DELETE FROM _sqlx_migrations WHERE version = 11", args![])?;
                Ok(())
            })
            .await
            .with_context(move || {
                format!("store: putting back the issue tally of campaign {campaign_id} before 0011")
            })?;
        Ok(())
    }

    /// Writes the report benchmark's campaign into `campaign_id`: `sessions`
    /// completed exploration sessions of [`BENCH_SESSION_TURNS`] turns and
    /// `runs` finished fixed runs of [`BENCH_RUN_TURNS`] turns, in the
    /// shapes the engine writes (experience records, judge reviews, check
    /// results, metrics) varied by row number, the same text on both
    /// backends. A few statements over a series of row numbers in one
    /// transaction, then `ANALYZE`; the report's tallies are not filled
    /// (queue `run_tallies`, `session_tallies` and `session_issue_tally`,
    /// see [`Fixtures::queue_backfills`]).
    pub async fn generate_bench_campaign(
        &self,
        campaign_id: CampaignId,
        sessions: u64,
        runs: u64,
    ) -> Result<()> {
        let doing = move || format!("store: writing the benchmark's campaign {campaign_id}");
        let campaign = self
            .store
            .campaign(campaign_id)
            .await?
            .ok_or_else(|| Error::not_found("campaign", campaign_id))?;
        let c = campaign_id.to_string();
        let target = campaign.target_id.to_string();
        let start = agenteval_domain::clock::to_ms(campaign.window_start);
        // Bulk loads of a second or more each, by design.
        self.store
            .write(move |conn| {
                conn.exec(
                    Sql::dialects(SESSIONS_SQL, SESSIONS_PG),
                    args![sessions as i64, &c, target, start],
                )?;
                // Session i is of seed cell i % 9 (persona i % 3, goal
                // i / 3 % 3), the (i / 9 + 1)th of it by start.
                conn.exec(
                    Sql::dialects(
                        "INSERT INTO seed_cell_sessions (campaign_id, persona_id, goal_id, sessions)
                         SELECT campaign_id, json_extract(seed_ref, '$.persona_id'),
                                json_extract(seed_ref, '$.goal_id'), count(*)
                         FROM exploration_sessions WHERE campaign_id = ? GROUP BY 1, 2, 3",
                        "INSERT INTO seed_cell_sessions (campaign_id, persona_id, goal_id, sessions)
                         SELECT campaign_id, CAST(seed_ref AS jsonb) ->> 'persona_id',
                                CAST(seed_ref AS jsonb) ->> 'goal_id', count(*)
                         FROM exploration_sessions WHERE campaign_id = ? GROUP BY 1, 2, 3",
                    ),
                    args![&c],
                )?;
                conn.exec(
                    Sql::dialects(SESSION_TURNS_SQL, SESSION_TURNS_PG),
                    args![(sessions * BENCH_SESSION_TURNS) as i64, start],
                )?;
                conn.exec(
                    Sql::dialects(RUNS_SQL, RUNS_PG),
                    args![runs as i64, &c, start],
                )?;
                conn.exec(
                    Sql::dialects(RUN_TURNS_SQL, RUN_TURNS_PG),
                    args![(runs * BENCH_RUN_TURNS) as i64, start],
                )?;
                // As in the engine, a run's verdict comes after its turns.
                conn.exec(
                    "UPDATE runs SET status = 'done' WHERE campaign_id = ? AND status = 'running'",
                    args![&c],
                )?;
                Ok(())
            })
            .await
            .with_context(doing)?;
        self.store
            .write(|conn| conn.batch("ANALYZE"))
            .await
            .context("store: analyzing the database")?;
        Ok(())
    }
}

/// Refuses a fixture that only SQLite's schema history has.
fn sqlite_only(c: &Conn<'_>, what: &str) -> Result<()> {
    if c.is_postgres() {
        return Err(Error::invalid(
            format!("{what} is not possible on PostgreSQL"),
            "Run this fixture on a SQLite store.",
        ));
    }
    Ok(())
}

const SESSIONS_SQL: &str = r#"
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?1),
p(k, persona, pid) AS (VALUES
  (0, '{"id":"busy-manager","name":"Dana","patience":2}', 'busy-manager'),
  (1, '{"id":"careful-accountant","name":"Li","patience":4}', 'careful-accountant'),
  (2, '{"id":"curious-novice","name":"Sam","patience":3}', 'curious-novice')),
g(k, goal, gid) AS (VALUES
  (0, '{"id":"send-weekly-report","title":"Send the weekly report"}', 'send-weekly-report'),
  (1, '{"id":"track-order","title":"Track an order"}', 'track-order'),
  (2, '{"id":"sales-trend","title":"Get the sales trend"}', 'sales-trend'))
INSERT INTO exploration_sessions (id, campaign_id, target_id, persona, goal, seed_ref, status,
  trigger_kind, end_reason, experience, judge_review, judge_status, turn_count, started_at, ended_at,
  created_at, updated_at, seed_ordinal)
SELECT printf('%08x-0000-7000-8000-%012x', i / 65536, i), ?2, ?3, p.persona, g.goal,
  json_object('persona_id', p.pid, 'goal_id', g.gid), 'completed', 'manual',
  CASE i % 4 WHEN 0 THEN 'user_goal_met' WHEN 1 THEN 'user_gave_up' WHEN 2 THEN 'max_turns' ELSE 'user_goal_met' END,
  json_object('goal_achieved', json(CASE WHEN i % 4 IN (0, 3) THEN 'true' ELSE 'false' END),
    'blockers', json_array('asked for the body twice', 'reply ' || (i % 50) || ' did not answer'),
    'misled', json(CASE WHEN i % 7 = 0 THEN '["the growth figure 12.5% was invented"]' ELSE '[]' END),
    'emotion', CASE i % 3 WHEN 0 THEN 'satisfied' WHEN 1 THEN 'frustrated' ELSE 'neutral' END,
    'notes', 'generated session ' || i),
  CASE WHEN i % 10 = 0 THEN json_object('method', 'heuristic',
    'dimensions', json_object(
      'attitude', json_object('score', 3 + i % 3, 'evidence', 'no refusal found'),
      'professionalism', json_object('score', 2 + i % 4, 'evidence', 'asked once'),
      'hallucination', json_object('score', 1 + i % 5, 'evidence', 'a figure')),
    'findings', json_array(json_object('grade', 'poor', 'severity', 'poor', 'dimension', 'professionalism',
      'text', 'the target repeated its previous reply ' || (i % 20), 'turn', 3)),
    'simulator', json_object('in_persona', json('true'), 'quit_early', json('false'),
      'invented_facts', json('false'), 'simulator_fault', json('false')),
    'simulator_fault', json('false')) END,
  CASE WHEN i % 10 = 0 THEN 'done' ELSE 'none' END,
  8, ?4 + i, ?4 + i + 1000, ?4 + i, ?4 + i + 1000, i / 9 + 1
FROM n JOIN p ON p.k = i % 3 JOIN g ON g.k = (i / 3) % 3
"#;

const SESSION_TURNS_SQL: &str = r#"
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?1)
INSERT INTO session_turns (id, session_id, seq, role, content, latency_ms, created_at)
SELECT printf('%08x-0001-7000-8000-%012x', i / 65536, i),
  printf('%08x-0000-7000-8000-%012x', (i / 8) / 65536, i / 8), i % 8,
  CASE WHEN i % 2 = 0 THEN 'user' ELSE 'target' END,
  CASE WHEN i % 2 = 0 THEN 'Where is my order A' || (i % 9000) || '? I placed it last week.'
       ELSE 'Order A' || (i % 9000) || ' left the warehouse yesterday and should arrive in two days.' END,
  CASE WHEN i % 2 = 1 THEN 20 + i % 400 END, ?2 + i
FROM n
"#;

const RUNS_SQL: &str = r#"
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?1)
INSERT INTO runs (id, campaign_id, scenario_id, scenario_hash, seq, offset_ms, scheduled_at, status,
  verdict, check_results, metrics, error_reason, started_at, finished_at, created_at)
SELECT printf('%08x-0002-7000-8000-%012x', i / 65536, i), ?2, 'bench.s' || (i % 35), 'h', i + 1000,
  i * 6000, ?3 + i, 'running',
  CASE WHEN i % 97 = 0 THEN 'error' WHEN i % 10 = 0 THEN 'failed' ELSE 'passed' END,
  json_array(json_object('turn', 0, 'kind', 'contains', 'passed', json(CASE WHEN i % 10 = 0 THEN 'false' ELSE 'true' END),
    'detail', 'the reply contains "order"')),
  json_object('turns', 1, 'completed', json('true'), 'latency_ms_total', 20 + i % 300,
    'latency_ms_max', 20 + i % 300, 'tokens_in', 40, 'tokens_out', 30, 'cost', 0.0,
    'key_field_coverage', 1.0),
  CASE WHEN i % 97 = 0 THEN 'target_error: HTTP 503' END, ?3 + i, ?3 + i + 50, ?3
FROM n
"#;

const RUN_TURNS_SQL: &str = r#"
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?1)
INSERT INTO run_turns (run_id, seq, role, content, latency_ms, created_at)
SELECT printf('%08x-0002-7000-8000-%012x', (i / 2) / 65536, i / 2), i % 2,
  CASE WHEN i % 2 = 0 THEN 'user' ELSE 'target' END,
  CASE WHEN i % 2 = 0 THEN 'Please send the weekly report to boss@example.com.'
       ELSE 'Done: the weekly report was sent to boss@example.com.' END,
  CASE WHEN i % 2 = 1 THEN 20 + i % 300 END, ?2 + i
FROM n
"#;

// The same rows on PostgreSQL: a series of row numbers, ids in hexadecimal,
// and the JSON written as the compact text SQLite's json_object writes.

const SESSIONS_PG: &str = r#"
WITH p(k, persona, pid) AS (VALUES
  (0, '{"id":"busy-manager","name":"Dana","patience":2}', 'busy-manager'),
  (1, '{"id":"careful-accountant","name":"Li","patience":4}', 'careful-accountant'),
  (2, '{"id":"curious-novice","name":"Sam","patience":3}', 'curious-novice')),
g(k, goal, gid) AS (VALUES
  (0, '{"id":"send-weekly-report","title":"Send the weekly report"}', 'send-weekly-report'),
  (1, '{"id":"track-order","title":"Track an order"}', 'track-order'),
  (2, '{"id":"sales-trend","title":"Get the sales trend"}', 'sales-trend'))
INSERT INTO exploration_sessions (id, campaign_id, target_id, persona, goal, seed_ref, status,
  trigger_kind, end_reason, experience, judge_review, judge_status, turn_count, started_at, ended_at,
  created_at, updated_at, seed_ordinal)
SELECT lpad(to_hex(i / 65536), 8, '0') || '-0000-7000-8000-' || lpad(to_hex(i), 12, '0'), $2, $3,
  p.persona, g.goal,
  '{"persona_id":"' || p.pid || '","goal_id":"' || g.gid || '"}', 'completed', 'manual',
  CASE i % 4 WHEN 0 THEN 'user_goal_met' WHEN 1 THEN 'user_gave_up' WHEN 2 THEN 'max_turns' ELSE 'user_goal_met' END,
  '{"goal_achieved":' || CASE WHEN i % 4 IN (0, 3) THEN 'true' ELSE 'false' END
    || ',"blockers":["asked for the body twice","reply ' || (i % 50) || ' did not answer"]'
    || ',"misled":' || CASE WHEN i % 7 = 0 THEN '["the growth figure 12.5% was invented"]' ELSE '[]' END
    || ',"emotion":"' || CASE i % 3 WHEN 0 THEN 'satisfied' WHEN 1 THEN 'frustrated' ELSE 'neutral' END
    || '","notes":"generated session ' || i || '"}',
  CASE WHEN i % 10 = 0 THEN '{"method":"heuristic","dimensions":{'
    || '"attitude":{"score":' || (3 + i % 3) || ',"evidence":"no refusal found"},'
    || '"professionalism":{"score":' || (2 + i % 4) || ',"evidence":"asked once"},'
    || '"hallucination":{"score":' || (1 + i % 5) || ',"evidence":"a figure"}},'
    || '"findings":[{"grade":"poor","severity":"poor","dimension":"professionalism",'
    || '"text":"the target repeated its previous reply ' || (i % 20) || '","turn":3}],'
    || '"simulator":{"in_persona":true,"quit_early":false,"invented_facts":false,"simulator_fault":false},'
    || '"simulator_fault":false}' END,
  CASE WHEN i % 10 = 0 THEN 'done' ELSE 'none' END,
  8, $4 + i, $4 + i + 1000, $4 + i, $4 + i + 1000, i / 9 + 1
FROM generate_series(0, $1 - 1) AS n(i) JOIN p ON p.k = i % 3 JOIN g ON g.k = (i / 3) % 3
"#;

const SESSION_TURNS_PG: &str = r#"
INSERT INTO session_turns (id, session_id, seq, role, content, latency_ms, created_at)
SELECT lpad(to_hex(i / 65536), 8, '0') || '-0001-7000-8000-' || lpad(to_hex(i), 12, '0'),
  lpad(to_hex((i / 8) / 65536), 8, '0') || '-0000-7000-8000-' || lpad(to_hex(i / 8), 12, '0'), i % 8,
  CASE WHEN i % 2 = 0 THEN 'user' ELSE 'target' END,
  CASE WHEN i % 2 = 0 THEN 'Where is my order A' || (i % 9000) || '? I placed it last week.'
       ELSE 'Order A' || (i % 9000) || ' left the warehouse yesterday and should arrive in two days.' END,
  CASE WHEN i % 2 = 1 THEN 20 + i % 400 END, $2 + i
FROM generate_series(0, $1 - 1) AS n(i)
"#;

const RUNS_PG: &str = r#"
INSERT INTO runs (id, campaign_id, scenario_id, scenario_hash, seq, offset_ms, scheduled_at, status,
  verdict, check_results, metrics, error_reason, started_at, finished_at, created_at)
SELECT lpad(to_hex(i / 65536), 8, '0') || '-0002-7000-8000-' || lpad(to_hex(i), 12, '0'), $2,
  'bench.s' || (i % 35), 'h', i + 1000, i * 6000, $3 + i, 'running',
  CASE WHEN i % 97 = 0 THEN 'error' WHEN i % 10 = 0 THEN 'failed' ELSE 'passed' END,
  '[{"turn":0,"kind":"contains","passed":' || CASE WHEN i % 10 = 0 THEN 'false' ELSE 'true' END
    || ',"detail":"the reply contains \"order\""}]',
  '{"turns":1,"completed":true,"latency_ms_total":' || (20 + i % 300)
    || ',"latency_ms_max":' || (20 + i % 300)
    || ',"tokens_in":40,"tokens_out":30,"cost":0.0,"key_field_coverage":1.0}',
  CASE WHEN i % 97 = 0 THEN 'target_error: HTTP 503' END, $3 + i, $3 + i + 50, $3
FROM generate_series(0, $1 - 1) AS n(i)
"#;

const RUN_TURNS_PG: &str = r#"
INSERT INTO run_turns (run_id, seq, role, content, latency_ms, created_at)
SELECT lpad(to_hex((i / 2) / 65536), 8, '0') || '-0002-7000-8000-' || lpad(to_hex(i / 2), 12, '0'), i % 2,
  CASE WHEN i % 2 = 0 THEN 'user' ELSE 'target' END,
  CASE WHEN i % 2 = 0 THEN 'Please send the weekly report to boss@example.com.'
       ELSE 'Done: the weekly report was sent to boss@example.com.' END,
  CASE WHEN i % 2 = 1 THEN 20 + i % 300 END, $2 + i
FROM generate_series(0, $1 - 1) AS n(i)
"#;
