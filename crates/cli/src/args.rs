//! The command line as clap reads it: every command, its arguments and
//! their help text.

use crate::{bench, import_cmd, judge_flags, keys_cmd};
use clap::{Parser, Subcommand, ValueEnum};
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "agenteval",
    version = agenteval_build_info::DESCRIPTION,
    about = "Evaluate conversational AI agents: fixed scenarios and exploration"
)]
pub struct Cli {
    /// Offline mode: refuse every target and role model that is not on this machine (localhost, 127.0.0.0/8, ::1); also AGENTEVAL_OFFLINE=1.
    #[arg(long, global = true)]
    pub offline: bool,
    /// The shared database, postgres://user:password@host:port/database (also AGENTEVAL_DATABASE_URL), for a team server whose workers share campaigns and budgets; default: the embedded SQLite database in the data folder.
    #[arg(long, global = true, env = agenteval_engine::DATABASE_URL_ENV, hide_env_values = true)]
    pub database_url: Option<String>,
    /// The language of what the command writes for people (reports, exports, summaries): zh or en; default: the environment's (LC_ALL, LC_MESSAGES, LANG), else en.
    #[arg(long, global = true)]
    pub lang: Option<agenteval_engine::Lang>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Runs the offline demo: demo target, shipped scenarios, an accelerated campaign, a Markdown report.
    Demo {
        /// Data folder (default: the app's data folder, shared with the desktop app).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Where to write the Markdown report (default: <data-dir>/demo-report.md).
        #[arg(long)]
        out: Option<PathBuf>,
        /// More scenario packs (also AGENTEVAL_SCENARIOS), besides your packs in <data-dir>/scenarios and the shipped ones; a pack here replaces the shipped pack of its name.
        #[arg(long, env = "AGENTEVAL_SCENARIOS")]
        scenarios: Option<PathBuf>,
        /// Real seconds the demo campaign's one-week window takes.
        #[arg(long, default_value_t = 20)]
        seconds: u64,
        #[command(flatten)]
        judge: judge_flags::JudgeFlags,
    },
    /// Serves the HTTP API (and the built UI) with the scheduler and the patrol agent.
    Serve {
        /// Data folder (default: the app's data folder, shared with the desktop app).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Address to bind; loopback unless told otherwise.
        #[arg(long, default_value = "127.0.0.1:8787")]
        bind: SocketAddr,
        /// API key clients must send as X-API-Key (or AGENTEVAL_API_KEY), an admin key named server-key; generated and printed when absent. Named keys with roles come from `agenteval keys`.
        #[arg(long, env = "AGENTEVAL_API_KEY", hide_env_values = true)]
        api_key: Option<String>,
        /// More scenario packs (also AGENTEVAL_SCENARIOS), besides your packs in <data-dir>/scenarios and the shipped ones; a pack here replaces the shipped pack of its name.
        #[arg(long, env = "AGENTEVAL_SCENARIOS")]
        scenarios: Option<PathBuf>,
        /// The built UI to serve at / (default: ./ui/dist when present).
        #[arg(long)]
        ui_dir: Option<PathBuf>,
        /// Minutes between the patrol agent's wake-ups.
        #[arg(long, default_value_t = 60)]
        patrol_minutes: u64,
        /// Do not run the resident patrol agent (exploration then comes only from API clients).
        #[arg(long)]
        no_patrol: bool,
        /// Days audit events are kept; older ones are deleted at start and then daily.
        #[arg(long, env = agenteval_engine::audit::RETENTION_ENV,
              default_value_t = agenteval_engine::audit::DEFAULT_RETENTION_DAYS,
              value_parser = clap::value_parser!(u32).range(1..))]
        audit_retention_days: u32,
        #[command(flatten)]
        judge: judge_flags::JudgeFlags,
    },
    /// Serves the exploration loop as MCP tools over stdin and stdout, for Claude Desktop, Cursor or any agent runtime; `agenteval serve` serves the same tools at /mcp behind its keys.
    Mcp {
        /// Data folder (default: the app's data folder, shared with the desktop app).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// More scenario packs (also AGENTEVAL_SCENARIOS), besides your packs in <data-dir>/scenarios and the shipped ones.
        #[arg(long, env = "AGENTEVAL_SCENARIOS")]
        scenarios: Option<PathBuf>,
        #[command(flatten)]
        judge: judge_flags::JudgeFlags,
    },
    /// Serves the built-in demo agent as an OpenAI-compatible /v1/chat/completions endpoint.
    DemoTarget {
        /// Address to bind; loopback unless told otherwise.
        #[arg(long, default_value = "127.0.0.1:8788")]
        bind: SocketAddr,
        /// Milliseconds to wait before every answer, to simulate a slow model.
        #[arg(long, default_value_t = 0)]
        latency_ms: u64,
        /// Turns on a bug that shipped scenarios catch (repeatable): refund-days
        /// (refunds promised in 14 business days), order-guess (answers about a
        /// guessed order instead of asking for its number).
        #[arg(long = "flaw", value_name = "NAME",
              value_parser = clap::builder::PossibleValuesParser::new(
                  agenteval_engine::demo_agent::Flaw::ALL.map(agenteval_engine::demo_agent::Flaw::name)))]
        flaws: Vec<String>,
        /// Makes one behaviour flaky: opening-hours (the hours are left out every
        /// second time the same conversation asks for them).
        #[arg(long, value_name = "BEHAVIOUR",
              value_parser = clap::builder::PossibleValuesParser::new(
                  agenteval_engine::demo_agent::Flaky::ALL.map(agenteval_engine::demo_agent::Flaky::name)))]
        flaky: Option<String>,
        /// Fixes a built-in flaw (repeatable): invented-figure (a trend answer
        /// states only the figures it was given), as a release that fixed what
        /// exploration found.
        #[arg(long = "fix", value_name = "NAME",
              value_parser = clap::builder::PossibleValuesParser::new(
                  agenteval_engine::demo_agent::Fix::ALL.map(agenteval_engine::demo_agent::Fix::name)))]
        fixes: Vec<String>,
    },
    /// Writes a commented starter agenteval.yaml and a starter scenario pack.
    Init {
        /// Folder to write into.
        #[arg(long, default_value = ".")]
        dir: PathBuf,
        /// Overwrite files that already exist.
        #[arg(long)]
        force: bool,
    },
    /// Runs the campaign of agenteval.yaml in the foreground and applies the gate (for CI).
    #[command(after_help = "Exit codes:\n  \
        0  the gate passed\n  \
        1  the gate failed: pass rate below the minimum, a drop against the baseline beyond the\n     \
           noise floor, a scenario that always passed now always failing, or flaky scenarios\n     \
           with --fail-on-flaky\n  \
        2  bad config or usage (errors name file:line); nothing was judged\n  \
        3  the target or a required model could not be reached; no verdict")]
    Run {
        /// The config file.
        #[arg(long, default_value = "agenteval.yaml")]
        config: PathBuf,
        /// Runs of every scenario (overrides plan.repeat).
        #[arg(long)]
        repeat: Option<u32>,
        /// Minimum pass rate from 0 to 1 (overrides gate.min_pass_rate).
        #[arg(long)]
        min_pass_rate: Option<f64>,
        /// A JSON export (report.json of an earlier run) or a campaign id in the data folder (overrides gate.baseline).
        #[arg(long, value_name = "FILE|CAMPAIGN_ID")]
        baseline: Option<String>,
        /// Where to write report.md, report.json and junit.xml (overrides out_dir; default ./agenteval-out).
        #[arg(long)]
        out_dir: Option<PathBuf>,
        /// Data folder (default: the app's data folder, shared with the desktop app).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Flaky scenarios fail the gate too (otherwise they are reported only).
        #[arg(long)]
        fail_on_flaky: bool,
        /// Seconds to wait for the target to answer before exiting with 3.
        #[arg(long, default_value_t = 10)]
        wait_seconds: u64,
        #[command(flatten)]
        judge: judge_flags::JudgeFlags,
    },
    /// Compares campaign B with campaign A (the baseline); each a campaign id or a JSON export.
    #[command(
        after_help = "Exit codes: 0 no regression outside the noise; 1 a regression outside the noise; 2 bad input."
    )]
    Compare {
        /// The baseline: a campaign id or a JSON export file.
        a: String,
        /// The campaign compared with it: a campaign id or a JSON export file.
        b: String,
        /// Data folder holding campaigns given by id.
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Named API keys with roles (viewer, editor, admin) for a shared `agenteval serve`: create, list, revoke.
    Keys {
        #[command(subcommand)]
        command: keys_cmd::KeysCommand,
    },
    /// Production conversations from OpenTelemetry traces (GenAI conventions): import OTLP/JSON, list them, draft a scenario from one, propose seeds.
    Import {
        #[command(subcommand)]
        command: import_cmd::ImportCommand,
    },
    /// Scenario packs: validate, or derive from a skill manifest.
    Scenarios {
        #[command(subcommand)]
        command: ScenariosCommand,
    },
    /// Performance benchmarks; each suite ends with `RESULT <name> <value> <unit>` lines.
    Bench {
        #[command(subcommand)]
        suite: bench::Suite,
    },
    /// Regenerates an export of a campaign from stored data.
    Export {
        /// Data folder (default: the app's data folder, shared with the desktop app).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// The campaign to export (its id, as `agenteval demo` or the API prints it).
        #[arg(long)]
        campaign: uuid::Uuid,
        /// What to write: md (the Markdown report), json, csv (runs), sessions-csv or junit.
        #[arg(long, value_enum, default_value_t = ExportFormat::Md)]
        format: ExportFormat,
        /// Output file (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
pub enum ScenariosCommand {
    /// Lists the packs `demo`, `serve` and `run` load: your own (from the folders) apart from the shipped ones.
    List {
        /// Data folder (default: the app's data folder, shared with the desktop app).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// One more folder of packs (also AGENTEVAL_SCENARIOS).
        #[arg(long, env = "AGENTEVAL_SCENARIOS")]
        scenarios: Option<PathBuf>,
    },
    /// Validates scenario packs; errors name file and line; exits non-zero on any error.
    Check { dir: PathBuf },
    /// Drafts a regression scenario from an exploration session's judge finding (at --turn, else its poorest): the user's turns up to it as the script, a check that the fault does not happen again, the lineage; writes it as a pack file that `scenarios check` accepts.
    FromSession {
        /// The session's id.
        session: uuid::Uuid,
        /// The user turn (1-based) to guard: the judge's finding there, else the turn as you flag it (its reply must not recur); default: the session's poorest finding.
        #[arg(long)]
        turn: Option<u32>,
        /// The pack to write it into.
        #[arg(long, default_value = agenteval_engine::scenario::regression::DEFAULT_PACK)]
        pack: String,
        /// The folder of packs to write into (default: your packs in <data-dir>/scenarios, which demo, serve and run load).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Data folder (default: the app's data folder, shared with the desktop app).
        #[arg(long)]
        data_dir: Option<PathBuf>,
    },
    /// Derives a scenario pack from a skill manifest (seed 001's shape).
    FromSkill {
        manifest: PathBuf,
        /// Folder to write the pack into (default: print it).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ExportFormat {
    /// Markdown report with its appendices and session transcripts.
    Md,
    /// The report as served by the API.
    Json,
    /// Fixed runs, one row each.
    Csv,
    /// Exploration sessions, one row each.
    SessionsCsv,
    /// Fixed runs as JUnit XML test cases.
    Junit,
}

impl From<ExportFormat> for agenteval_engine::export::ExportFormat {
    fn from(f: ExportFormat) -> Self {
        match f {
            ExportFormat::Md => Self::Md,
            ExportFormat::Json => Self::Json,
            ExportFormat::Csv => Self::Csv,
            ExportFormat::SessionsCsv => Self::SessionsCsv,
            ExportFormat::Junit => Self::Junit,
        }
    }
}
