//! `agenteval run`: the campaign of `agenteval.yaml` in the foreground, as
//! fast as the target's limits allow (accelerated line), for CI. Progress
//! goes to stderr, the summary to stdout, the Markdown, JSON and JUnit
//! exports to the output folder; the exit code is the gate's verdict.

use crate::ci::config::{self, Config, PlayedBy};
use crate::ci::{self, Outcome, Side, exit};
use agenteval_engine::Platform;
use agenteval_engine::campaign::{
    Budget, CreateCampaign, MAX_DURATION_HOURS, MAX_ROUNDS, MAX_TIME_SCALE, Plan, PlanEntry,
};
use agenteval_engine::channel::ChatMessage;
use agenteval_engine::comparison::ModelsUsed;
use agenteval_engine::exploration::Trigger;
use agenteval_engine::export::{ExportFormat, pct};
use agenteval_engine::judge::JudgeSampling;
use agenteval_engine::msg;
use agenteval_engine::patrol_agent::{ExploreSeed, play_seed, start_seed};
use agenteval_engine::role_models::{ModelConfig, Role, RoleClients};
use agenteval_engine::scenario::Scenario;
use agenteval_engine::target::Target;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod progress;
mod steps;

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
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let cfg = config::load(&opts.config, &env)
        .map_err(|errors| Stop::Usage(errors.iter().map(ToString::to_string).collect()))?;
    let repeat = opts.repeat.unwrap_or(cfg.repeat);
    let min_pass_rate = opts.min_pass_rate.or(cfg.min_pass_rate);
    let fail_on_flaky = opts.fail_on_flaky || cfg.fail_on_flaky;
    let out_dir = opts
        .out_dir
        .clone()
        .or_else(|| cfg.out_dir.clone())
        .unwrap_or_else(|| PathBuf::from(DEFAULT_OUT_DIR));
    let data_dir = crate::data_dir_or_default(opts.data_dir.clone())
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

    // The campaign: every selected scenario `repeat` times (or its own
    // rounds), on the accelerated line.
    let plan = Plan {
        entries: scenarios
            .iter()
            .map(|s| PlanEntry {
                scenario_id: s.id.clone(),
                rounds: Some(cfg.rounds.get(&s.id).copied().unwrap_or(repeat)),
                ..Default::default()
            })
            .collect(),
    };
    let hours = (WINDOW_SECONDS * MAX_TIME_SCALE / 3600.0).min(MAX_DURATION_HOURS);
    let exploration = cfg.exploration;
    let name = cfg.name.clone().unwrap_or_else(|| "CI run".into());
    let campaign = platform
        .create_campaign(CreateCampaign {
            name: format!(
                "{name} {}",
                platform.clock.now().format("%Y-%m-%d %H:%M:%S")
            ),
            target_id: target.id,
            plan: Some(plan),
            duration_hours: Some(hours),
            time_scale: Some(MAX_TIME_SCALE),
            seed_set: cfg.seeds.clone(),
            budget: exploration.map(|e| Budget {
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
    let planned = platform.list_runs(campaign.id).await.map_err(internal)?;
    let sessions = exploration.map_or(0, |e| e.sessions);
    eprintln!(
        "agenteval: campaign {} ({}): {} scenarios, {} runs{}",
        campaign.name,
        campaign.id,
        scenarios.len(),
        planned.len(),
        if sessions > 0 {
            format!(", {sessions} exploration sessions")
        } else {
            String::new()
        }
    );

    let progress = Progress::new(planned.len() as u64, u64::from(sessions));
    let fixed = execute_runs(
        &platform,
        planned.iter().map(|r| r.id).collect(),
        target.concurrency,
        &progress,
    );
    let explore = async {
        match exploration {
            Some(e) => {
                explore(
                    &platform,
                    &cfg,
                    campaign.id.into(),
                    e.sessions,
                    &clients,
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

    platform
        .finalize_campaign(campaign.id)
        .await
        .map_err(internal)?;
    platform
        .generate_configured_analysis(campaign.id, crate::lang())
        .await
        .map_err(internal)?;
    let report = platform
        .campaign_report(campaign.id)
        .await
        .map_err(internal)?;
    let runs = platform.list_runs(campaign.id).await.map_err(internal)?;
    let results = ci::scenario_results(&report.fixed, crate::lang());
    let current = Side {
        label: format!("campaign {}", campaign.id),
        campaign: report.campaign.clone(),
        fixed: report.fixed.clone(),
        models: report.models.clone(),
        models_complete: true,
    };

    // The exports, written whatever the verdict.
    let markdown = platform
        .export_campaign(campaign.id, ExportFormat::Md, crate::lang())
        .await
        .map_err(internal)?;
    let json = platform
        .export_campaign(campaign.id, ExportFormat::Json, crate::lang())
        .await
        .map_err(internal)?;

    let f = &report.fixed;
    let judged = f.passed + f.failed;
    let outcomes = ci::outcomes(f);
    let flaky: Vec<String> = results
        .iter()
        .filter(|r| r.outcome == Outcome::Flaky)
        .map(|r| r.id.clone())
        .collect();
    let comparison = baseline.as_ref().map(|b| ci::compare_sides(b, &current));
    let regressions = baseline
        .as_ref()
        .map(|b| ci::regressions(&b.fixed, f))
        .unwrap_or_default();
    let verdict = ci::gate(&ci::GateInput {
        pass_rate: f.pass_rate,
        min_pass_rate,
        baseline: comparison.as_ref().and_then(|(c, _)| c.periods.first()),
        regressions: &regressions,
        flaky: &flaky,
        fail_on_flaky,
    });
    let gate_word = if judged == 0 {
        "no verdict"
    } else if verdict.passed() {
        "passed"
    } else {
        "failed"
    };
    let junit = ci::junit::render(
        &ci::junit::Suite {
            name: &report.campaign.name,
            timestamp: report.campaign.window_start.to_rfc3339(),
            pass_rate: f.pass_rate,
            gate: gate_word,
        },
        &results,
        &runs,
    );
    let written = write_exports(&out_dir, &markdown, &json, &junit)?;

    // The summary.
    let lang = crate::lang();
    let say = |m: agenteval_engine::Msg| println!("{}", m.render(lang));
    say(msg!("run-title", name = report.campaign.name.as_str()));
    say(msg!(
        "run-campaign",
        id = campaign.id.to_string(),
        data = data_dir.display().to_string()
    ));
    say(msg!(
        "run-target",
        name = report.target_name.as_str(),
        model = report.target_model.as_str()
    ));
    say(msg!(
        "run-pass-rate",
        rate = ci::rate_with_interval(&outcomes, lang),
        passed = f.passed,
        failed = f.failed,
        errors = f.errors
    ));
    let count = |o: Outcome| results.iter().filter(|r| r.outcome == o).count();
    say(msg!(
        "run-scenarios",
        count = results.len(),
        passed = count(Outcome::Passed),
        failed = count(Outcome::Failed),
        flaky = count(Outcome::Flaky),
        errors = count(Outcome::Error)
    ));
    let width = results.iter().map(|r| r.id.len()).max().unwrap_or(0);
    for r in &results {
        let detail = match (r.outcome, &r.first_failure) {
            (Outcome::Passed, _) | (_, None) => String::new(),
            (_, Some(d)) => format!("  {}", agenteval_engine::text::truncate(d, 140)),
        };
        let errors = if r.errors > 0 {
            msg!("run-in-error", count = r.errors).render(lang)
        } else {
            String::new()
        };
        let tally = msg!(
            "run-passed-of",
            passed = r.passed,
            judged = r.passed + r.failed
        )
        .render(lang);
        println!(
            "    {:<5}  {:<width$}  {tally}{errors}{detail}",
            r.outcome.label(),
            r.id,
        );
    }
    if let Some(c) = &report.judge_calibration
        && let Some(k) = c
            .criteria
            .iter()
            .find(|k| k.criterion == agenteval_engine::calibration::RUBRIC)
    {
        let kappa = k.kappa.map_or_else(|| "n/a".into(), |v| format!("{v:.2}"));
        println!(
            "  rubric judge: kappa {kappa} over {} labels, {}",
            k.items,
            k.status(&c.policy).render(crate::lang())
        );
    }
    if flaky.is_empty() {
        say(msg!("run-flaky-none"));
    } else {
        let list: Vec<String> = results
            .iter()
            .filter(|r| r.outcome == Outcome::Flaky)
            .map(|r| {
                format!(
                    "{} ({} of {} runs passed)",
                    r.id,
                    r.passed,
                    r.passed + r.failed
                )
            })
            .collect();
        say(msg!("run-flaky", list = list.join(", ")));
    }
    if !f.error_reasons.is_empty() {
        let reasons: Vec<String> = f
            .error_reasons
            .iter()
            .map(|e| format!("{} × {}", e.reason, e.count))
            .collect();
        say(msg!("run-errors", list = reasons.join(", ")));
    }
    if let Some(e) = &report.exploration {
        say(msg!(
            "run-exploration",
            sessions = explored,
            rate = pct(e.goal_achievement_rate),
            issues = e.issues.len(),
            reviews = e.judge.reviewed
        ));
        if let Some(c) = &report.judge_calibration {
            let sessions = c
                .criteria
                .iter()
                .filter(|k| k.criterion != agenteval_engine::calibration::RUBRIC);
            for k in sessions {
                let score = e
                    .judge
                    .dimensions
                    .get(&k.criterion)
                    .map_or_else(|| "n/a".to_string(), |d| format!("{:.1}/5", d.average));
                let kappa = k.kappa.map_or_else(|| "n/a".into(), |v| format!("{v:.2}"));
                let status = k.status(&c.policy).render(crate::lang());
                println!(
                    "    judge {}: {score}, kappa {kappa} over {} labels, {status}",
                    k.criterion, k.items
                );
            }
        }
        if let Some(k) = report
            .judge_calibration
            .as_ref()
            .and_then(|c| c.consistency.as_ref())
        {
            let parts: Vec<String> = k
                .iter()
                .map(|k| {
                    format!(
                        "{} {}{}",
                        k.criterion,
                        pct(k.self_agreement),
                        if k.contradicts {
                            " (contradicts itself)"
                        } else {
                            ""
                        }
                    )
                })
                .collect();
            println!(
                "    judge self-agreement (second pass): {}",
                parts.join(", ")
            );
        }
        for issue in e.issues.iter().take(5) {
            let text = issue
                .msg
                .as_ref()
                .map_or_else(|| issue.text.clone(), |m| m.render(lang));
            say(msg!(
                "run-issue",
                issue = agenteval_engine::text::truncate(&text, 140),
                count = issue.count
            ));
        }
    }
    if let (Some(b), Some((cmp, notes))) = (&baseline, &comparison) {
        print_comparison(b, cmp, notes, &regressions);
    }
    say(msg!(
        "run-exports",
        files = written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    if judged == 0 {
        let reasons: Vec<String> = f.error_reasons.iter().map(|e| e.reason.clone()).collect();
        return Err(Stop::Unreachable(format!(
            "no run got a verdict: all {} runs ended in error ({}); check that the target answers",
            f.errors,
            reasons.join(", ")
        )));
    }
    println!("{}", verdict.sentence(lang));
    Ok(if verdict.passed() {
        exit::PASSED
    } else {
        exit::FAILED
    })
}

fn print_comparison(
    b: &Side,
    cmp: &agenteval_engine::comparison::PeriodComparison,
    notes: &[agenteval_engine::Msg],
    regressions: &[String],
) {
    let lang = crate::lang();
    let say = |m: agenteval_engine::Msg| println!("{}", m.render(lang));
    let Some(p) = cmp.periods.first() else {
        return;
    };
    say(msg!(
        "run-baseline",
        label = b.label.as_str(),
        name = b.campaign.name.as_str(),
        then = pct(p.pass_rate),
        now = pct(cmp.pass_rate),
        verdict = p.verdict.clone()
    ));
    if !p.flipped_scenarios.is_empty() {
        say(msg!("run-flipped", list = p.flipped_scenarios.join(", ")));
    }
    if !regressions.is_empty() {
        say(msg!("run-regressed", list = regressions.join(", ")));
    }
    for w in &p.warnings {
        say(msg!("run-warning", warning = w.clone()));
    }
    for n in notes {
        say(msg!("run-note", note = n.clone()));
    }
}

fn internal(e: agenteval_engine::Error) -> Stop {
    internal_any(&crate::user_error(e))
}

fn internal_any(e: &anyhow::Error) -> Stop {
    Stop::usage(format!("error: {e:#}"))
}
