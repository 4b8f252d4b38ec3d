//! `agenteval demo`: the main job, offline. Creates the built-in demo
//! target, loads the shipped scenarios, runs a one-week campaign on the
//! accelerated line in a few seconds, and writes the Markdown report.

use crate::{describe_sources, load_scenarios, open, user_error};
use agenteval_engine::TargetId;
use agenteval_engine::campaign::{
    Budget, CreateCampaign, MAX_TIME_SCALE, Plan, PlanEntry, SeedSet,
};
use agenteval_engine::exploration::Trigger;
use agenteval_engine::judge::JudgeSampling;
use agenteval_engine::msg;
use agenteval_engine::patrol_agent::{ExploreSeed, play_seed, start_seed};
use agenteval_engine::report::CampaignReport;
use agenteval_engine::scenario::PackSource;
use agenteval_engine::target::{ChannelConfig, Target, TargetSettings};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

pub struct DemoOptions {
    pub data_dir: PathBuf,
    pub out: PathBuf,
    pub scenarios: Vec<PackSource>,
    /// Real seconds for the campaign's window: one week of campaign time,
    /// or what the fastest time scale fits in (about 2.8 hours a second).
    pub seconds: u64,
    /// The judge's calibration thresholds and second pass.
    pub judge_policy: agenteval_engine::calibration::JudgePolicy,
}

/// Campaign time of the demo window: one week.
const DEMO_WEEK_HOURS: f64 = 168.0;
/// Each scenario runs this many times across the week.
const ROUNDS: u32 = 2;
/// The demo's seed personas and goals (also a ready-made example of the
/// seed-set format).
pub(crate) const DEMO_SEEDS: &str = include_str!("../../../examples/demo_seed_set.json");

pub async fn run(opts: DemoOptions) -> anyhow::Result<()> {
    let platform = open(&opts.data_dir).await?;
    platform
        .set_judge_policy(opts.judge_policy)
        .map_err(crate::user_error)?;
    let lang = crate::lang();
    let say = |m: agenteval_engine::Msg| println!("{}", m.render(lang));
    say(msg!("demo-title"));
    say(msg!(
        "demo-data-folder",
        path = opts.data_dir.display().to_string()
    ));

    let scenario_ids = demo_scenario_ids(&platform, &opts.scenarios).await?;
    say(msg!(
        "demo-scenarios",
        count = scenario_ids.len(),
        sources = describe_sources(&opts.scenarios)
    ));
    let target = demo_target(&platform).await?;
    let seeds: SeedSet = serde_json::from_str(DEMO_SEEDS).context("the demo seed set")?;
    let seconds = opts.seconds.max(1) as f64;
    // A week of campaign time, or as much of it as the fastest time scale
    // fits into the seconds given.
    let hours = DEMO_WEEK_HOURS.min((seconds * MAX_TIME_SCALE / 3600.0).floor());
    let campaign = platform
        .create_campaign(demo_campaign(
            &platform,
            target.id,
            &scenario_ids,
            &seeds,
            hours,
            seconds,
        ))
        .await
        .map_err(user_error)?;
    say(msg!(
        "demo-campaign",
        name = campaign.name.as_str(),
        id = campaign.id.to_string(),
        span = if hours == DEMO_WEEK_HOURS {
            msg!("demo-one-week")
        } else {
            msg!("demo-hours", hours = hours.to_string())
        },
        seconds = opts.seconds.to_string()
    ));

    let explored = run_both_lines(&platform, campaign.id, &seeds).await?;
    let report = write_report(&platform, campaign.id, &opts.out).await?;
    print_summary(&report, explored, lang);
    let database = opts.data_dir.join(agenteval_engine::store::DB_FILE);
    for line in [
        msg!("demo-where-campaign", id = campaign.id.to_string()),
        msg!("demo-where-database", path = database.display().to_string()),
        msg!("demo-where-report", path = opts.out.display().to_string()),
    ] {
        println!("{}", line.render(lang));
    }
    Ok(())
}

/// Loads the demo's scenarios: the ids of all those loaded (at least one).
async fn demo_scenario_ids(
    platform: &agenteval_engine::Platform,
    sources: &[PackSource],
) -> anyhow::Result<Vec<String>> {
    load_scenarios(platform, sources).await?;
    let scenario_ids: Vec<String> = platform
        .scenarios
        .all()
        .iter()
        .map(|s| s.id.clone())
        .collect();
    anyhow::ensure!(
        !scenario_ids.is_empty(),
        "no valid scenario found in {}",
        describe_sources(sources)
    );
    Ok(scenario_ids)
}

/// The built-in demo target: the one there is, or a new one.
async fn demo_target(platform: &agenteval_engine::Platform) -> anyhow::Result<Target> {
    Ok(
        match platform
            .list_targets()
            .await
            .map_err(user_error)?
            .into_iter()
            .find(|t| matches!(t.channel, ChannelConfig::Builtin { .. }))
        {
            Some(t) => t,
            None => platform
                .create_target(TargetSettings::builtin_demo(
                    &agenteval_engine::msg!("demo-target-name").render(crate::lang()),
                ))
                .await
                .map_err(user_error)?,
        },
    )
}

/// The demo campaign: every scenario [`ROUNDS`] times over `hours` of
/// campaign time played in `seconds`, and one session per persona and
/// goal of the seeds.
fn demo_campaign(
    platform: &agenteval_engine::Platform,
    target_id: TargetId,
    scenario_ids: &[String],
    seeds: &SeedSet,
    hours: f64,
    seconds: f64,
) -> CreateCampaign {
    CreateCampaign {
        name: agenteval_engine::msg!(
            "demo-campaign-name",
            at = platform.clock.now().format("%Y-%m-%d %H:%M").to_string()
        )
        .render(crate::lang()),
        target_id,
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
        duration_hours: Some(hours),
        time_scale: Some(hours * 3600.0 / seconds),
        seed_set: Some(seeds.clone()),
        budget: Some(Budget {
            max_sessions: Some((seeds.personas.len() * seeds.goals.len()) as u32),
            max_turns: Some(8),
            min_interval_minutes: Some(0.0),
        }),
        ..Default::default()
    }
}

/// Runs the campaign's fixed runs to the end, with a progress bar, while
/// the virtual user explores every persona x goal cell; returns how many
/// sessions ran.
async fn run_both_lines(
    platform: &Arc<agenteval_engine::Platform>,
    campaign_id: agenteval_engine::CampaignId,
    seeds: &SeedSet,
) -> anyhow::Result<usize> {
    let planned = platform
        .campaign_report(campaign_id)
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
    // Fixed runs follow the plan while the virtual user explores every
    // persona x goal cell (manual sessions: the accelerated line is never
    // patrolled). The two evidence lines run side by side and never mix.
    let ids = [campaign_id];
    let fixed = platform.run_until_finalized(&ids, Duration::from_millis(100), |t| {
        finished += u64::from(t.runs_executed);
        bar.set_position(finished);
    });
    let exploration = explore_all(platform, campaign_id.into(), seeds);
    let (fixed, explored) = tokio::join!(fixed, exploration);
    fixed.map_err(user_error)?;
    bar.finish_with_message("done");
    Ok(explored)
}

/// Analyses the campaign and writes its Markdown report to `out`; returns
/// the report.
async fn write_report(
    platform: &Arc<agenteval_engine::Platform>,
    campaign_id: agenteval_engine::CampaignId,
    out: &Path,
) -> anyhow::Result<CampaignReport> {
    platform
        .generate_configured_analysis(campaign_id, crate::lang())
        .await
        .map_err(user_error)?;
    let markdown = platform
        .export_campaign(
            campaign_id,
            agenteval_engine::export::ExportFormat::Md,
            crate::lang(),
        )
        .await
        .map_err(user_error)?;
    let report = platform
        .campaign_report(campaign_id)
        .await
        .map_err(user_error)?;
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).ok();
    }
    std::fs::write(out, markdown).with_context(|| format!("writing {}", out.display()))?;
    Ok(report)
}

/// The pass rate, and the exploration's figures with its first issues.
fn print_summary(report: &CampaignReport, explored: usize, lang: agenteval_engine::Lang) {
    let say = |m: agenteval_engine::Msg| println!("{}", m.render(lang));
    let f = &report.fixed;
    println!();
    say(msg!(
        "demo-pass-rate",
        rate = agenteval_engine::export::pct(f.pass_rate),
        passed = f.passed,
        failed = f.failed,
        errors = f.errors
    ));
    if let Some(e) = &report.exploration {
        say(msg!(
            "demo-exploration",
            sessions = explored,
            rate = agenteval_engine::export::pct(e.goal_achievement_rate),
            issues = e.issues.len(),
            reviews = e.judge.reviewed
        ));
        for issue in e.issues.iter().take(3) {
            let text = issue
                .msg
                .as_ref()
                .map_or_else(|| issue.text.clone(), |m| m.render(lang));
            say(msg!("run-issue", issue = text, count = issue.count));
        }
    }
}

/// Explores every persona x goal cell once with the built-in virtual user
/// (or the configured model) and judges each session; returns how many
/// sessions ran. A refused or failed cell is reported and skipped. The
/// ledger decides the sessions in turn; they then play at once, as many
/// as the virtual user's concurrency allows.
async fn explore_all(
    platform: &agenteval_engine::Platform,
    campaign_id: uuid::Uuid,
    seeds: &SeedSet,
) -> usize {
    let clients = platform.role_clients();
    let mut started = Vec::new();
    for persona in &seeds.personas {
        for goal in &seeds.goals {
            let seed = ExploreSeed {
                campaign_id: agenteval_engine::CampaignId(campaign_id),
                persona_id: persona.id.clone(),
                goal_id: goal.id.clone(),
                variant: None,
                trigger: Trigger::Manual,
            };
            match start_seed(platform, &seed, &clients).await {
                Ok(s) => started.push(s),
                Err(e) => eprintln!(
                    "  exploration of {} x {} refused: {}",
                    persona.id, goal.id, e.body.message
                ),
            }
        }
    }
    let played = futures::future::join_all(
        started
            .into_iter()
            .map(|s| play_seed(platform, s, &clients, JudgeSampling::default())),
    )
    .await;
    played.len()
}
