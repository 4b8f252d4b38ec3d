//! `agenteval run`: the campaign of `agenteval.yaml` in the foreground, as
//! fast as the target's limits allow (accelerated line), for CI. Progress
//! goes to stderr, the summary to stdout, the Markdown, JSON and JUnit
//! exports to the output folder; the exit code is the gate's verdict.

use crate::ci::config::{self, Config, PlayedBy};
use crate::ci::{self, GateVerdict, Outcome, ScenarioResult, Side, exit};
use agenteval_engine::campaign::{
    Budget, Campaign, CreateCampaign, MAX_DURATION_HOURS, MAX_ROUNDS, MAX_TIME_SCALE, Plan,
    PlanEntry,
};
use agenteval_engine::channel::ChatMessage;
use agenteval_engine::comparison::{ModelsUsed, PeriodComparison};
use agenteval_engine::domain::ids::RunId;
use agenteval_engine::exploration::Trigger;
use agenteval_engine::export::{ExportFormat, pct};
use agenteval_engine::judge::JudgeSampling;
use agenteval_engine::msg;
use agenteval_engine::patrol_agent::{ExploreSeed, play_seed, start_seed};
use agenteval_engine::report::CampaignReport;
use agenteval_engine::role_models::{ModelConfig, Role, RoleClients};
use agenteval_engine::scenario::Scenario;
use agenteval_engine::target::Target;
use agenteval_engine::{CampaignId, Platform};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod progress;
mod steps;
mod summary;

pub use progress::*;
pub use steps::*;

pub struct RunOptions {
    pub config: PathBuf,
    pub repeat: Option<u32>,
    pub min_pass_rate: Option<f64>,
    pub baseline: Option<String>,
    pub out_dir: Option<PathBuf>,
    pub data_dir: Option<PathBuf>,
    pub fail_on_flaky: bool,
    /// How long to wait for the target to answer before giving up.
    pub wait_seconds: u64,
    /// The judge's calibration thresholds and second pass.
    pub judge_policy: agenteval_engine::calibration::JudgePolicy,
}

/// Where the exports go when neither the config nor `--out-dir` says.
pub const DEFAULT_OUT_DIR: &str = "agenteval-out";
/// Names of the exports in the output folder.
pub const REPORT_MD: &str = "report.md";
pub const REPORT_JSON: &str = "report.json";
pub const JUNIT_XML: &str = "junit.xml";
/// Real seconds the campaign's window stays open (exploration sessions
/// start inside it; fixed runs do not wait for it).
const WINDOW_SECONDS: f64 = 300.0;

/// Why a run ends without a verdict.
enum Stop {
    /// Bad config or usage (exit 2); each line is printed as is.
    Usage(Vec<String>),
    /// The target or a required model could not be reached (exit 3).
    Unreachable(String),
}

impl Stop {
    fn usage(line: impl Into<String>) -> Self {
        Stop::Usage(vec![line.into()])
    }
}

pub fn main(opts: RunOptions) -> ExitCode {
    let outcome = crate::runtime()
        .map_err(|e| Stop::usage(format!("error: {e:#}")))
        .and_then(|rt| rt.block_on(run(opts)));
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(Stop::Usage(lines)) => {
            for l in lines {
                eprintln!("{l}");
            }
            ExitCode::from(exit::USAGE)
        }
        Err(Stop::Unreachable(message)) => {
            eprintln!("error: {message}");
            eprintln!("No verdict: nothing was judged.");
            ExitCode::from(exit::UNREACHABLE)
        }
    }
}

async fn run(opts: RunOptions) -> Result<u8, Stop> {
    check_flags(&opts)?;
    let setup = prepare(opts).await?;
    let (campaign, planned) = start_campaign(&setup).await?;
    let explored = play(&setup, campaign.id, planned).await;
    let done = conclude(&setup, campaign.id).await?;
    let written = write_exports(&setup, campaign.id, &done).await?;
    summary::print(&setup, &done, explored, &written);
    let f = &done.report.fixed;
    if f.passed + f.failed == 0 {
        let reasons: Vec<String> = f.error_reasons.iter().map(|e| e.reason.clone()).collect();
        return Err(Stop::Unreachable(format!(
            "no run got a verdict: all {} runs ended in error ({}); check that the target answers",
            f.errors,
            reasons.join(", ")
        )));
    }
    println!("{}", done.verdict.sentence(crate::lang()));
    Ok(if done.verdict.passed() {
        exit::PASSED
    } else {
        exit::FAILED
    })
}

/// What a run works with once its config is read and its target answers.
struct Setup {
    platform: Arc<Platform>,
    cfg: Config,
    data_dir: PathBuf,
    out_dir: PathBuf,
    repeat: u32,
    min_pass_rate: Option<f64>,
    fail_on_flaky: bool,
    scenarios: Vec<Scenario>,
    baseline: Option<Side>,
    clients: RoleClients,
    target: Target,
}

/// Flags out of range stop the run before anything is opened.
fn check_flags(opts: &RunOptions) -> Result<(), Stop> {
    if let Some(k) = opts.repeat
        && !(1..=MAX_ROUNDS).contains(&k)
    {
        return Err(Stop::usage(format!(
            "error: --repeat must be from 1 to {MAX_ROUNDS}, got {k}"
        )));
    }
    if let Some(r) = opts.min_pass_rate
        && !(0.0..=1.0).contains(&r)
    {
        return Err(Stop::usage(format!(
            "error: --min-pass-rate must be from 0 to 1 (0.9 = 90%), got {r}"
        )));
    }
    Ok(())
}

/// Reads the config, opens the data folder, selects the scenarios, loads
/// the baseline, finds the target and waits for it, checks the role models.
async fn prepare(opts: RunOptions) -> Result<Setup, Stop> {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let cfg = config::load(&opts.config, &env)
        .map_err(|errors| Stop::Usage(errors.iter().map(ToString::to_string).collect()))?;
    let out_dir = opts
        .out_dir
        .or_else(|| cfg.out_dir.clone())
        .unwrap_or_else(|| PathBuf::from(DEFAULT_OUT_DIR));
    let data_dir = crate::data_dir_or_default(opts.data_dir)
        .map_err(|e| Stop::usage(format!("error: {e:#}")))?;
    let platform = crate::open(&data_dir)
        .await
        .map_err(|e| Stop::usage(format!("error: {e:#}")))?;
    platform
        .set_judge_policy(opts.judge_policy)
        .map_err(|e| Stop::usage(format!("error: {}. {}", e.body.message, e.body.suggestion)))?;

    let mut scenarios = select_scenarios(&platform, &cfg).await?;
    let baseline = match opts.baseline.as_deref().or(cfg.baseline.as_deref()) {
        None => None,
        Some(b) => Some(
            load_side(&platform, b)
                .await
                .map_err(|m| Stop::usage(format!("error: the baseline cannot be used: {m}")))?,
        ),
    };
    let target = find_or_create_target(&platform, &cfg).await?;
    add_promoted(&platform, &data_dir, target.id, &mut scenarios).await?;
    eprintln!(
        "agenteval: target {} ({})",
        target.name,
        target.channel.model_label()
    );
    wait_for_target(&platform, &target, opts.wait_seconds).await?;
    let clients = check_role_models(&platform, &cfg).await?;
    Ok(Setup {
        repeat: opts.repeat.unwrap_or(cfg.repeat),
        min_pass_rate: opts.min_pass_rate.or(cfg.min_pass_rate),
        fail_on_flaky: opts.fail_on_flaky || cfg.fail_on_flaky,
        platform,
        cfg,
        data_dir,
        out_dir,
        scenarios,
        baseline,
        clients,
        target,
    })
}

/// The campaign: every selected scenario `repeat` times (or its own
/// rounds), on the accelerated line; returns it with its planned runs.
async fn start_campaign(s: &Setup) -> Result<(Campaign, Vec<RunId>), Stop> {
    let (platform, cfg) = (&s.platform, &s.cfg);
    let plan = Plan {
        entries: s
            .scenarios
            .iter()
            .map(|sc| PlanEntry {
                scenario_id: sc.id.clone(),
                rounds: Some(cfg.rounds.get(&sc.id).copied().unwrap_or(s.repeat)),
                ..Default::default()
            })
            .collect(),
    };
    let hours = (WINDOW_SECONDS * MAX_TIME_SCALE / 3600.0).min(MAX_DURATION_HOURS);
    let name = cfg.name.clone().unwrap_or_else(|| "CI run".into());
    let campaign = platform
        .create_campaign(CreateCampaign {
            name: format!(
                "{name} {}",
                platform.clock.now().format("%Y-%m-%d %H:%M:%S")
            ),
            target_id: s.target.id,
            plan: Some(plan),
            duration_hours: Some(hours),
            time_scale: Some(MAX_TIME_SCALE),
            seed_set: cfg.seeds.clone(),
            budget: cfg.exploration.map(|e| Budget {
                max_sessions: Some(e.sessions),
                max_turns: Some(e.max_turns),
                min_interval_minutes: Some(0.0),
            }),
            ..Default::default()
        })
        .await
        .map_err(|e| {
            Stop::usage(
                cfg.error_at(
                    &["plan"],
                    format!("{} ({})", e.body.message, e.body.suggestion),
                )
                .to_string(),
            )
        })?;
    let planned: Vec<RunId> = platform
        .list_runs(campaign.id)
        .await
        .map_err(internal)?
        .into_iter()
        .map(|r| r.id)
        .collect();
    let sessions = cfg.exploration.map_or(0, |e| e.sessions);
    eprintln!(
        "agenteval: campaign {} ({}): {} scenarios, {} runs{}",
        campaign.name,
        campaign.id,
        s.scenarios.len(),
        planned.len(),
        if sessions > 0 {
            format!(", {sessions} exploration sessions")
        } else {
            String::new()
        }
    );
    Ok((campaign, planned))
}

/// Plays the fixed runs and the exploration sessions side by side, with
/// progress on stderr; returns how many sessions were played.
async fn play(s: &Setup, campaign_id: CampaignId, planned: Vec<RunId>) -> usize {
    let exploration = s.cfg.exploration;
    let sessions = exploration.map_or(0, |e| e.sessions);
    let progress = Progress::new(planned.len() as u64, u64::from(sessions));
    let fixed = execute_runs(&s.platform, planned, s.target.concurrency, &progress);
    let explore = async {
        match exploration {
            Some(e) => {
                explore(
                    &s.platform,
                    &s.cfg,
                    campaign_id.into(),
                    e.sessions,
                    &s.clients,
                    &progress,
                )
                .await
            }
            None => (0, Vec::new()),
        }
    };
    let ((), (explored, refusals)) = tokio::join!(fixed, explore);
    progress.finish();
    for r in &refusals {
        eprintln!("agenteval: exploration: {r}");
    }
    explored
}

/// What the run found: the report, each scenario's result, the baseline's
/// comparison and the gate's verdict.
struct Concluded {
    report: CampaignReport,
    results: Vec<ScenarioResult>,
    flaky: Vec<String>,
    comparison: Option<(PeriodComparison, Vec<agenteval_engine::Msg>)>,
    regressions: Vec<String>,
    verdict: GateVerdict,
}

/// Finalizes the campaign, reports it and applies the gate.
async fn conclude(s: &Setup, campaign_id: CampaignId) -> Result<Concluded, Stop> {
    let platform = &s.platform;
    platform
        .finalize_campaign(campaign_id)
        .await
        .map_err(internal)?;
    platform
        .generate_configured_analysis(campaign_id, crate::lang())
        .await
        .map_err(internal)?;
    let report = platform
        .campaign_report(campaign_id)
        .await
        .map_err(internal)?;
    let results = ci::scenario_results(&report.fixed, crate::lang());
    let f = &report.fixed;
    let flaky: Vec<String> = results
        .iter()
        .filter(|r| r.outcome == Outcome::Flaky)
        .map(|r| r.id.clone())
        .collect();
    // Only a baseline needs the run as a side of a comparison.
    let comparison = s.baseline.as_ref().map(|b| {
        let current = Side {
            label: format!("campaign {campaign_id}"),
            campaign: report.campaign.clone(),
            fixed: report.fixed.clone(),
            models: report.models.clone(),
            models_complete: true,
        };
        ci::compare_sides(b, &current)
    });
    let regressions = s
        .baseline
        .as_ref()
        .map(|b| ci::regressions(&b.fixed, f))
        .unwrap_or_default();
    let verdict = ci::gate(&ci::GateInput {
        pass_rate: f.pass_rate,
        min_pass_rate: s.min_pass_rate,
        baseline: comparison.as_ref().and_then(|(c, _)| c.periods.first()),
        regressions: &regressions,
        flaky: &flaky,
        fail_on_flaky: s.fail_on_flaky,
    });
    Ok(Concluded {
        report,
        results,
        flaky,
        comparison,
        regressions,
        verdict,
    })
}

fn internal(e: agenteval_engine::Error) -> Stop {
    internal_any(&crate::user_error(e))
}

fn internal_any(e: &anyhow::Error) -> Stop {
    Stop::usage(format!("error: {e:#}"))
}
