//! `bench report`: a large campaign written straight through the real
//! schema (100,000 exploration sessions with 800,000 turns, 100,000 fixed
//! runs with 200,000 turns: 1,000,000 turns in all), then the report
//! aggregation and the Markdown export timed against a bare `count(*)` over
//! the two turn tables in the same run.

use super::{Figure, ms, print_figures};
use crate::user_error;
use agenteval_engine::Platform;
use agenteval_engine::campaign::SeedSet;
use agenteval_engine::export::ExportFormat;
use agenteval_engine::target::CreateTarget;
use anyhow::Context;
use sqlx::{ConnectOptions, Connection};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Options {
    /// Exploration sessions (each with 8 turns).
    #[arg(long, default_value_t = 100_000)]
    pub sessions: u64,
    /// Fixed runs (each with 2 turns).
    #[arg(long, default_value_t = 100_000)]
    pub runs: u64,
    /// Timed repetitions of each measure; the fastest is reported (each
    /// takes tens of milliseconds, so a few more cost little and steady the
    /// figures).
    #[arg(long, default_value_t = 10)]
    pub repeat: u32,
    /// Keep the database in this folder instead of a temporary one.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
}

const SESSION_TURNS: u64 = 8;
const RUN_TURNS: u64 = 2;

pub async fn run(o: Options) -> anyhow::Result<()> {
    let (platform, _tmp) = super::bench_platform(o.data_dir.as_deref()).await?;
    let target = platform
        .create_target(CreateTarget::builtin_demo("demo agent (bench)"))
        .await
        .map_err(user_error)?;
    let seeds: SeedSet =
        serde_json::from_str(crate::demo::DEMO_SEEDS).context("the demo seed set")?;
    let campaign = platform
        .create_campaign(super::bench_campaign(
            "report bench",
            target.id,
            168.0,
            None,
            Some(seeds),
        ))
        .await
        .map_err(user_error)?;

    println!(
        "bench report: generating {} sessions x {SESSION_TURNS} turns and {} runs x {RUN_TURNS} turns...",
        o.sessions, o.runs
    );
    let started = Instant::now();
    generate(&platform, campaign.id, o.sessions, o.runs).await?;
    // The engine adds runs to the report's tallies as they finish, and
    // groups the issues of experience records as sessions close; for rows
    // written straight into the tables it does both when it next opens the
    // database, as after an upgrade.
    sqlx::raw_sql(
        "INSERT INTO pending_backfills (name) VALUES ('run_tallies'), ('session_issue_tally')",
    )
    .execute(&platform.db)
    .await?;
    platform.db.close().await;
    let data_dir = platform.data_dir.clone();
    drop(platform);
    let platform = agenteval_engine::Platform::builder(&data_dir)
        .open()
        .await
        .map_err(user_error)?;
    let turns: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM session_turns) + (SELECT count(*) FROM run_turns)",
    )
    .fetch_one(&platform.db)
    .await?;
    println!(
        "  generated {turns} turns in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let repeat = o.repeat.max(1);
    let scan = fastest(repeat, || async {
        let n: i64 = sqlx::query_scalar(
            "SELECT (SELECT count(*) FROM session_turns) + (SELECT count(*) FROM run_turns)",
        )
        .fetch_one(&platform.db)
        .await?;
        anyhow::ensure!(n == turns, "the scan counted {n} turns, expected {turns}");
        Ok(())
    })
    .await?;
    let report = fastest(repeat, || async {
        let r = platform
            .campaign_report(campaign.id)
            .await
            .map_err(user_error)?;
        let sessions = r.exploration.as_ref().map_or(0, |e| e.sessions_total);
        anyhow::ensure!(
            u64::from(sessions) == o.sessions,
            "the report counted {sessions} sessions, expected {}",
            o.sessions
        );
        Ok(())
    })
    .await?;
    // The report's two large parts, each alone.
    let fixed = fastest(repeat, || async {
        platform
            .fixed_summary(&campaign, None)
            .await
            .map_err(user_error)?;
        Ok(())
    })
    .await?;
    let exploration = fastest(repeat, || async {
        platform
            .exploration_findings(campaign.id)
            .await
            .map_err(user_error)?;
        Ok(())
    })
    .await?;
    let export = fastest(repeat, || async {
        platform
            .export_campaign(campaign.id, ExportFormat::Md)
            .await
            .map_err(user_error)?;
        Ok(())
    })
    .await?;
    let markdown = platform
        .export_campaign(campaign.id, ExportFormat::Md)
        .await
        .map_err(user_error)?;
    println!("  Markdown export: {} KB", markdown.len() / 1024);

    print_figures(
        "report",
        &[
            Figure::new(
                "report_turns",
                turns as f64,
                "turns",
                "turns in the campaign",
            ),
            Figure::new("report_scan_ms", ms(scan), "ms", "count(*) over the turns"),
            Figure::new(
                "report_aggregation_ms",
                ms(report),
                "ms",
                "report aggregation",
            ),
            Figure::new(
                "report_fixed_ms",
                ms(fixed),
                "ms",
                "  of which fixed-scenario figures",
            ),
            Figure::new(
                "report_exploration_ms",
                ms(exploration),
                "ms",
                "  of which exploration findings",
            ),
            Figure::new("report_export_md_ms", ms(export), "ms", "Markdown export"),
            Figure::new(
                "report_ratio_to_scan",
                report.as_secs_f64() / scan.as_secs_f64(),
                "x",
                "report / scan",
            ),
            Figure::new(
                "report_export_ratio_to_scan",
                export.as_secs_f64() / scan.as_secs_f64(),
                "x",
                "export / scan",
            ),
        ],
    );
    Ok(())
}

/// The fastest of `n` timed runs of `f`.
async fn fastest<F, Fut>(n: u32, mut f: F) -> anyhow::Result<Duration>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    let mut best = Duration::MAX;
    for _ in 0..n {
        let t = Instant::now();
        f().await?;
        best = best.min(t.elapsed());
    }
    Ok(best)
}

/// Writes sessions, runs and their turns with recursive CTEs: the rows
/// have the shapes the engine writes (experience records, judge reviews,
/// check results, metrics), varied by row number.
async fn generate(
    platform: &Platform,
    campaign: uuid::Uuid,
    sessions: u64,
    runs: u64,
) -> anyhow::Result<()> {
    let c = campaign.to_string();
    let target: String = sqlx::query_scalar("SELECT target_id FROM campaigns WHERE id = ?")
        .bind(&c)
        .fetch_one(&platform.db)
        .await?;
    let start: i64 = sqlx::query_scalar("SELECT window_start FROM campaigns WHERE id = ?")
        .bind(&c)
        .fetch_one(&platform.db)
        .await?;
    // Bulk loads of a second or more each, by design: on a connection of
    // their own that does not warn about slow statements.
    let mut conn = (*platform.db.connect_options())
        .clone()
        .disable_statement_logging()
        .connect()
        .await?;
    let mut tx = conn.begin().await?;
    sqlx::query(SESSIONS_SQL)
        .bind(sessions as i64)
        .bind(&c)
        .bind(&target)
        .bind(start)
        .execute(&mut *tx)
        .await?;
    sqlx::query(SESSION_TURNS_SQL)
        .bind((sessions * SESSION_TURNS) as i64)
        .bind(start)
        .execute(&mut *tx)
        .await?;
    sqlx::query(RUNS_SQL)
        .bind(runs as i64)
        .bind(&c)
        .bind(start)
        .execute(&mut *tx)
        .await?;
    sqlx::query(RUN_TURNS_SQL)
        .bind((runs * RUN_TURNS) as i64)
        .bind(start)
        .execute(&mut *tx)
        .await?;
    // As in the engine, a run's verdict comes after its turns.
    sqlx::query("UPDATE runs SET status = 'done' WHERE campaign_id = ? AND status = 'running'")
        .bind(&c)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    sqlx::query("ANALYZE").execute(&platform.db).await?;
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
  created_at, updated_at)
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
  8, ?4 + i, ?4 + i + 1000, ?4 + i, ?4 + i + 1000
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
