//! `bench report`: a large campaign written straight through the real
//! schema (100,000 exploration sessions with 800,000 turns, 100,000 fixed
//! runs with 200,000 turns: 1,000,000 turns in all), then the report
//! aggregation and the Markdown export timed against a bare `count(*)` over
//! the two turn tables in the same run.

use super::{Figure, ms, print_figures};
use crate::user_error;
use agenteval_engine::campaign::SeedSet;
use agenteval_engine::export::ExportFormat;
use agenteval_engine::store::fixtures::{
    BENCH_RUN_TURNS as RUN_TURNS, BENCH_SESSION_TURNS as SESSION_TURNS,
};
use agenteval_engine::target::TargetSettings;
use anyhow::Context;
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

/// A campaign of `o.sessions` sessions and `o.runs` runs written straight
/// through the schema, on a platform opened anew on it (as after an
/// upgrade); the platform, the campaign, its turns and the temporary folder
/// to keep while it is used.
async fn prepare(
    o: &Options,
) -> anyhow::Result<(
    std::sync::Arc<agenteval_engine::Platform>,
    agenteval_engine::campaign::Campaign,
    i64,
    Option<tempfile::TempDir>,
)> {
    let (platform, tmp) = super::bench_platform(o.data_dir.as_deref()).await?;
    let target = platform
        .create_target(TargetSettings::builtin_demo("demo agent (bench)"))
        .await
        .map_err(user_error)?;
    let seeds: SeedSet =
        serde_json::from_str(crate::demo::DEMO_SEEDS).context("the demo seed set")?;
    let campaign = platform
        .create_campaign(super::bench_campaign(
            "report bench",
            target.id.into(),
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
    // Sessions, runs and their turns written straight through the schema
    // with recursive CTEs, in the shapes the engine writes.
    platform
        .fixtures()
        .generate_bench_campaign(campaign.id, o.sessions, o.runs)
        .await
        .map_err(user_error)?;
    // The store adds runs and sessions to the report's tallies as they are
    // written, and groups the issues of experience records as sessions
    // close; for rows written straight into the tables it does all three
    // when it next opens the database, as after an upgrade.
    platform
        .fixtures()
        .queue_backfills(&["run_tallies", "session_tallies", "session_issue_tally"])
        .await
        .map_err(user_error)?;
    platform.fixtures().close().await;
    let data_dir = platform.data_dir.clone();
    drop(platform);
    let platform = agenteval_engine::Platform::builder(&data_dir)
        .open()
        .await
        .map_err(user_error)?;
    let stored = platform.inspect();
    let turns = stored.turn_count().await.map_err(user_error)?;
    println!(
        "  generated {turns} turns in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok((platform, campaign, turns, tmp))
}

pub async fn run(o: Options) -> anyhow::Result<()> {
    let (platform, campaign, turns, _tmp) = prepare(&o).await?;
    let stored = platform.inspect();
    let repeat = o.repeat.max(1);
    let scan = fastest(repeat, || async {
        let n = stored.turn_count().await.map_err(user_error)?;
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
    // The report's parts, each alone.
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
    let calibration = fastest(repeat, || async {
        platform
            .judge_calibration(campaign.id)
            .await
            .map_err(user_error)?;
        Ok(())
    })
    .await?;
    let whole = platform
        .campaign_report(campaign.id)
        .await
        .map_err(user_error)?;
    let evidence = fastest(repeat, || async {
        platform.report_evidence(&whole).await.map_err(user_error)?;
        Ok(())
    })
    .await?;
    let export = fastest(repeat, || async {
        platform
            .export_campaign(campaign.id, ExportFormat::Md, crate::lang())
            .await
            .map_err(user_error)?;
        Ok(())
    })
    .await?;
    let markdown = platform
        .export_campaign(campaign.id, ExportFormat::Md, crate::lang())
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
            Figure::new(
                "report_calibration_ms",
                ms(calibration),
                "ms",
                "  of which the judge's calibration",
            ),
            Figure::new(
                "report_evidence_ms",
                ms(evidence),
                "ms",
                "  of which the names of the evidence cited",
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
