//! `agenteval demo`: the main job, offline. Creates the built-in demo
//! target, loads the shipped scenarios, runs a one-week campaign on the
//! accelerated line in a few seconds, and writes the Markdown report.

use crate::{load_scenarios, open, user_error};
use agenteval_engine::campaign::{CreateCampaign, Plan, PlanEntry};
use agenteval_engine::target::{ChannelConfig, CreateTarget};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Duration;

pub struct DemoOptions {
    pub data_dir: PathBuf,
    pub out: PathBuf,
    pub scenarios: Option<PathBuf>,
    /// Real seconds for the campaign's one-week window.
    pub seconds: u64,
}

/// Campaign time of the demo window: one week.
const DEMO_WEEK_HOURS: f64 = 168.0;
/// Each scenario runs this many times across the week.
const ROUNDS: u32 = 2;

pub async fn run(opts: DemoOptions) -> anyhow::Result<()> {
    let platform = open(&opts.data_dir).await?;
    println!("AgentEval demo (offline: built-in demo agent, no API key)");
    println!("  data folder: {}", opts.data_dir.display());

    let dir = opts
        .scenarios
        .context("no scenarios folder: run from the repository root or pass --scenarios DIR")?;
    load_scenarios(&platform, &dir).await?;
    let scenario_ids: Vec<String> = platform
        .scenarios
        .all()
        .iter()
        .map(|s| s.id.clone())
        .collect();
    anyhow::ensure!(
        !scenario_ids.is_empty(),
        "no valid scenario found in {}",
        dir.display()
    );
    println!(
        "  scenarios: {} loaded from {}",
        scenario_ids.len(),
        dir.display()
    );

    let target = match platform
        .list_targets()
        .await
        .map_err(user_error)?
        .into_iter()
        .find(|t| matches!(t.channel, ChannelConfig::Builtin { .. }))
    {
        Some(t) => t,
        None => platform
            .create_target(CreateTarget::builtin_demo("Demo agent"))
            .await
            .map_err(user_error)?,
    };

    let seconds = opts.seconds.max(1) as f64;
    let campaign = platform
        .create_campaign(CreateCampaign {
            name: format!(
                "Demo campaign {}",
                platform.clock.now().format("%Y-%m-%d %H:%M")
            ),
            target_id: target.id,
            plan: Some(Plan {
                entries: scenario_ids
                    .iter()
                    .map(|id| PlanEntry {
                        scenario_id: id.clone(),
                        rounds: Some(ROUNDS),
                        ..Default::default()
                    })
                    .collect(),
            }),
            duration_hours: Some(DEMO_WEEK_HOURS),
            time_scale: Some(DEMO_WEEK_HOURS * 3600.0 / seconds),
            ..Default::default()
        })
        .await
        .map_err(user_error)?;
    println!(
        "  campaign: {} ({}), accelerated line: one week in {} s",
        campaign.name, campaign.id, opts.seconds
    );

    let planned = platform
        .campaign_report(campaign.id)
        .await
        .map_err(user_error)?
        .fixed
        .runs_planned;
    let bar = ProgressBar::new(u64::from(planned));
    bar.set_style(
        ProgressStyle::with_template("  fixed runs [{bar:40}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let mut finished = 0u64;
    platform
        .run_until_finalized(&[campaign.id], Duration::from_millis(100), |t| {
            finished += u64::from(t.runs_executed);
            bar.set_position(finished);
        })
        .await
        .map_err(user_error)?;
    bar.finish_with_message("done");

    let report = platform
        .campaign_report(campaign.id)
        .await
        .map_err(user_error)?;
    let markdown = agenteval_engine::export::markdown(&report);
    if let Some(parent) = opts.out.parent() {
        std::fs::create_dir_all(parent).ok();
    }
    std::fs::write(&opts.out, markdown)
        .with_context(|| format!("writing {}", opts.out.display()))?;

    let f = &report.fixed;
    println!();
    println!(
        "  pass rate: {} ({} passed, {} failed, {} errors)",
        agenteval_engine::export::pct(f.pass_rate),
        f.passed,
        f.failed,
        f.errors
    );
    println!(
        "  database:  {}",
        opts.data_dir
            .join(agenteval_engine::store::DB_FILE)
            .display()
    );
    println!("  report:    {}", opts.out.display());
    Ok(())
}
