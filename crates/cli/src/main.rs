//! `agenteval`: the command line of AgentEval.
//!
//! `main` parses arguments and calls one function per command; the work is
//! done by the engine and the server crates.

mod args;
mod bench;
mod ci;
mod compare;
mod demo;
mod import_cmd;
mod init;
mod judge_flags;
mod keys_cmd;
mod mcp_cmd;
mod run;
mod scenarios_cmd;

use agenteval_engine::Platform;
use agenteval_engine::scenario::PackSource;
use anyhow::Context;
use args::{Cli, Command, ExportFormat, ScenariosCommand};
use clap::Parser;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Hundreds of runs allocate small buffers on every thread at once; the
/// system allocator's arena locks showed up in profiles of the engine.
/// Built with `no_thp`: huge pages made every touched arena region 2 MB
/// resident (`agenteval run` held 33 MB more for 1,000 cases).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `--lang`, else the environment's language: what reports, exports and
/// summaries are written in.
static LANG: std::sync::OnceLock<agenteval_engine::Lang> = std::sync::OnceLock::new();

/// The language the command writes in for people.
pub fn lang() -> agenteval_engine::Lang {
    *LANG.get_or_init(agenteval_engine::Lang::from_env)
}

/// `--offline`, set once from the command line, passed to every platform
/// the command opens.
static OFFLINE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `--database-url`, set once from the command line, used by every
/// platform the command opens.
static DATABASE_URL: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

fn main() -> ExitCode {
    let cli = Cli::parse();
    OFFLINE.store(cli.offline, std::sync::atomic::Ordering::Relaxed);
    let _ = DATABASE_URL.set(cli.database_url.clone());
    let _ = LANG.set(cli.lang.unwrap_or_else(agenteval_engine::Lang::from_env));
    init_logging(matches!(
        cli.command,
        Command::Serve { .. } | Command::DemoTarget { .. }
    ));
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn init_logging(verbose_default: bool) {
    let default = if verbose_default { "info" } else { "warn" };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Demo {
            data_dir,
            out,
            scenarios,
            seconds,
            judge,
        } => {
            let data_dir = data_dir_or_default(data_dir)?;
            runtime()?.block_on(demo::run(demo::DemoOptions {
                scenarios: scenario_sources(scenarios, &data_dir)?,
                out: out.unwrap_or_else(|| data_dir.join("demo-report.md")),
                data_dir,
                seconds,
                judge_policy: judge.policy(),
            }))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve {
            data_dir,
            bind,
            api_key,
            scenarios,
            ui_dir,
            patrol_minutes,
            no_patrol,
            audit_retention_days,
            judge,
        } => {
            let data_dir = data_dir_or_default(data_dir)?;
            let patrol =
                (!no_patrol).then(|| std::time::Duration::from_secs(patrol_minutes.max(1) * 60));
            runtime()?.block_on(serve(ServeOptions {
                data_dir,
                bind,
                api_key,
                scenarios,
                ui_dir,
                patrol,
                audit_retention_days,
                judge_policy: judge.policy(),
            }))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Mcp {
            data_dir,
            scenarios,
            judge,
        } => {
            let data_dir = data_dir_or_default(data_dir)?;
            let sources = scenario_sources(scenarios, &data_dir)?;
            runtime()?.block_on(mcp_cmd::main(data_dir, sources, judge.policy()))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::DemoTarget {
            bind,
            latency_ms,
            flaws,
            flaky,
            fixes,
        } => demo_target(bind, latency_ms, &flaws, flaky.as_deref(), &fixes),
        Command::Init { dir, force } => Ok(init::main(&dir, force)),
        Command::Run {
            config,
            repeat,
            min_pass_rate,
            baseline,
            out_dir,
            data_dir,
            fail_on_flaky,
            wait_seconds,
            judge,
        } => Ok(run::main(run::RunOptions {
            config,
            repeat,
            min_pass_rate,
            baseline,
            out_dir,
            data_dir,
            fail_on_flaky,
            wait_seconds,
            judge_policy: judge.policy(),
        })),
        Command::Compare { a, b, data_dir } => Ok(compare::main(&a, &b, data_dir)),
        Command::Import { command } => {
            import_cmd::run(command)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Keys { command } => {
            keys_cmd::run(command)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Scenarios { command } => scenarios(command),
        Command::Bench { suite } => {
            bench::run(suite)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Export {
            data_dir,
            campaign,
            format,
            out,
        } => export(data_dir, campaign, format, out),
    }
}

/// `agenteval demo-target`: the built-in demo agent, with the flaws,
/// flaky behaviour and fixes asked for, until stopped.
fn demo_target(
    bind: SocketAddr,
    latency_ms: u64,
    flaws: &[String],
    flaky: Option<&str>,
    fixes: &[String],
) -> anyhow::Result<ExitCode> {
    use agenteval_engine::demo_agent::{DemoAgent, Fix, Flaky, Flaw};
    let options = agenteval_server::demo_target::DemoTargetOptions {
        latency: std::time::Duration::from_millis(latency_ms),
    };
    let flaws: Vec<Flaw> = flaws.iter().filter_map(|f| Flaw::parse(f)).collect();
    let flaky = flaky.and_then(Flaky::parse);
    let fixes: Vec<Fix> = fixes.iter().filter_map(|f| Fix::parse(f)).collect();
    let agent = DemoAgent::with_flaws(&flaws, flaky).fixing(&fixes);
    runtime()?.block_on(agenteval_server::demo_target::serve_agent(
        bind, options, agent,
    ))?;
    Ok(ExitCode::SUCCESS)
}

/// `agenteval scenarios ...`.
fn scenarios(command: ScenariosCommand) -> anyhow::Result<ExitCode> {
    // 0 when it went through, 1 (failure) otherwise.
    let success = |ok: bool| ExitCode::from(u8::from(!ok));
    match command {
        ScenariosCommand::Check { dir } => Ok(success(scenarios_cmd::check(&dir)?)),
        ScenariosCommand::List {
            data_dir,
            scenarios,
        } => {
            let data_dir = data_dir_or_default(data_dir)?;
            let sources = scenario_sources(scenarios, &data_dir)?;
            Ok(success(scenarios_cmd::list(&sources)))
        }
        ScenariosCommand::FromSession {
            session,
            turn,
            pack,
            out,
            data_dir,
        } => {
            let data_dir = data_dir_or_default(data_dir)?;
            let out = out.unwrap_or_else(|| agenteval_engine::scenario::user_packs_dir(&data_dir));
            runtime()?.block_on(async {
                let platform = open(&data_dir).await?;
                let draft = platform
                    .draft_regression(
                        agenteval_engine::SessionId(session),
                        turn,
                        Some(pack),
                        crate::lang(),
                    )
                    .await
                    .map_err(user_error)?;
                scenarios_cmd::write_draft(&draft, &out)
            })?;
            Ok(ExitCode::SUCCESS)
        }
        ScenariosCommand::FromSkill { manifest, out } => {
            scenarios_cmd::from_skill(&manifest, out.as_deref())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `agenteval export`: an export of a stored campaign, to a file or stdout.
fn export(
    data_dir: Option<PathBuf>,
    campaign: uuid::Uuid,
    format: ExportFormat,
    out: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let data_dir = data_dir_or_default(data_dir)?;
    let text = runtime()?.block_on(async {
        let platform = open(&data_dir).await?;
        platform
            .export_campaign(
                agenteval_engine::CampaignId(campaign),
                format.into(),
                crate::lang(),
            )
            .await
            .map_err(user_error)
    })?;
    match out {
        Some(path) => {
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// The app-data folder the desktop app uses too.
pub fn data_dir_or_default(dir: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match dir {
        Some(d) => Ok(d),
        None => dirs::data_dir()
            .map(|d| d.join("dev.agenteval.desktop"))
            .context("no data folder on this system: pass --data-dir"),
    }
}

/// Where the scenario packs come from: `--scenarios DIR` (which must
/// exist), the user's packs in the data folder, then the packs shipped in
/// the binary (a folder's pack replaces the shipped pack of the same name).
pub fn scenario_sources(dir: Option<PathBuf>, data_dir: &Path) -> anyhow::Result<Vec<PackSource>> {
    if let Some(d) = dir.as_ref().filter(|d| !d.is_dir()) {
        anyhow::bail!("scenario folder {} does not exist", d.display());
    }
    Ok(agenteval_engine::scenario::pack_sources(dir, data_dir))
}

/// `--database-url` (or `AGENTEVAL_DATABASE_URL`), if given.
pub fn database_url() -> Option<String> {
    DATABASE_URL.get().cloned().flatten()
}

pub async fn open(data_dir: &Path) -> anyhow::Result<Arc<Platform>> {
    let database_url = database_url();
    let opening = match &database_url {
        Some(url) => format!(
            "opening the database {}",
            agenteval_engine::store::postgres::shown_url(url)
        ),
        None => format!("opening the data folder {}", data_dir.display()),
    };
    Platform::builder(data_dir)
        .offline(OFFLINE.load(std::sync::atomic::Ordering::Relaxed))
        .database_url(database_url)
        .open()
        .await
        .map_err(user_error)
        .context(opening)
}

/// An engine error as a readable message with its suggestion.
pub fn user_error(e: agenteval_engine::Error) -> anyhow::Error {
    if let Some(cause) = &e.cause {
        tracing::error!(error = ?cause, "internal error");
    }
    anyhow::anyhow!(
        "{} ({}). {}",
        e.body.message,
        e.body.code,
        e.body.suggestion
    )
}

/// Loads the scenario packs of `sources`, reporting invalid files; returns
/// how many scenarios were loaded.
/// `./more and the shipped packs`, for what start-up prints.
pub fn describe_sources(sources: &[PackSource]) -> String {
    let lang = lang();
    sources
        .iter()
        .map(|s| match s {
            PackSource::Dir(d) => d.display().to_string(),
            PackSource::Shipped => agenteval_engine::msg!("sources-shipped").render(lang),
        })
        .collect::<Vec<_>>()
        .join(&agenteval_engine::msg!("sources-and").render(lang))
}

pub async fn load_scenarios(platform: &Platform, sources: &[PackSource]) -> anyhow::Result<usize> {
    let loaded = platform
        .load_scenario_sources(sources)
        .await
        .map_err(user_error)?;
    for e in &loaded.errors {
        eprintln!("  scenario error: {e}");
    }
    Ok(loaded.scenarios.len())
}

struct ServeOptions {
    data_dir: PathBuf,
    bind: SocketAddr,
    api_key: Option<String>,
    scenarios: Option<PathBuf>,
    ui_dir: Option<PathBuf>,
    patrol: Option<std::time::Duration>,
    audit_retention_days: u32,
    judge_policy: agenteval_engine::calibration::JudgePolicy,
}

async fn serve(options: ServeOptions) -> anyhow::Result<()> {
    let ServeOptions {
        data_dir,
        bind,
        api_key,
        scenarios,
        ui_dir,
        patrol,
        audit_retention_days,
        judge_policy,
    } = options;
    let platform = open(&data_dir).await?;
    platform
        .set_judge_policy(judge_policy)
        .map_err(user_error)?;
    let sources = scenario_sources(scenarios, &data_dir)?;
    let n = load_scenarios(&platform, &sources).await?;
    eprintln!("loaded {n} scenarios ({})", describe_sources(&sources));
    let api_key = match api_key.filter(|k| !k.is_empty()) {
        Some(k) => k,
        None => {
            let mut bytes = [0u8; 24];
            rand::Rng::fill(&mut rand::rng(), &mut bytes);
            let k = hex::encode(bytes);
            println!("API key (shown once): {k}");
            k
        }
    };
    let ui_dir = ui_dir
        .or_else(|| Some(PathBuf::from("ui/dist")).filter(|d| d.join("index.html").is_file()));
    // Role models come from the environment (the platform reads them);
    // none configured = offline (persona engine and heuristic judge).
    if let Some(interval) = patrol {
        eprintln!("patrol agent: every {} min", interval.as_secs() / 60);
    }
    let patrol = agenteval_engine::runtime::start(
        &platform,
        agenteval_engine::runtime::RuntimeConfig {
            audit_retention_days,
            patrol_interval: patrol,
        },
    );
    println!(
        "AgentEval API on http://{bind} (data: {})",
        data_dir.display()
    );
    agenteval_server::serve(
        platform,
        agenteval_server::ServeConfig {
            bind,
            api_key,
            ui_dir,
            patrol,
        },
    )
    .await
}
