//! `agenteval bench <suite>`: performance figures, never assertions.
//!
//! Every suite prints a readable table, then one machine-readable line per
//! figure: `RESULT <name> <value> <unit>`. Suites work in a temporary data
//! folder and start what they measure against (the demo target as a child
//! process, the HTTP API in-process) on 127.0.0.1.

mod concurrency;
mod ledger;
mod office_query;
mod report;
mod run;
mod steps;
mod throughput;

use anyhow::Context;
use clap::Subcommand;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Subcommand, Debug)]
pub enum Suite {
    /// Fixed-scenario turns per second through the whole engine, against
    /// the demo target's own ceiling measured in the same run.
    Throughput(throughput::Options),
    /// Simultaneous exploration sessions against a slow target.
    Concurrency(concurrency::Options),
    /// Concurrent session creates and messages over HTTP against budgets.
    Ledger(ledger::Options),
    /// Report aggregation and Markdown export over a campaign of 1M turns,
    /// against a bare scan of the turns.
    Report(report::Options),
    /// `agenteval run` as a process of its own over N single-turn cases
    /// against the demo target: wall time and peak RSS.
    Run(run::Options),
    /// Turns per second and peak memory of a three-step turn (the engine
    /// plays the tools) beside a one-step turn, against the demo target.
    Steps(steps::Options),
    /// `DATA_QUERY` over a 100,000-row .xlsx through the office workspace:
    /// the first query (parsing the sheet), then queries per second and
    /// peak RSS.
    OfficeQuery(office_query::Options),
}

pub fn run(suite: Suite) -> anyhow::Result<()> {
    if let Suite::OfficeQuery(o) = suite {
        // Plain file work: no runtime to start.
        return office_query::run(o);
    }
    let runtime = crate::runtime()?;
    match suite {
        Suite::OfficeQuery(_) => Ok(()),
        Suite::Throughput(o) => runtime.block_on(throughput::run(o)),
        Suite::Concurrency(o) => runtime.block_on(concurrency::run(o)),
        Suite::Ledger(o) => runtime.block_on(ledger::run(o)),
        Suite::Report(o) => runtime.block_on(report::run(o)),
        Suite::Run(o) => runtime.block_on(run::run(o)),
        Suite::Steps(o) => runtime.block_on(steps::run(o)),
    }
}

/// One figure: printed in the table and as a `RESULT` line.
pub struct Figure {
    pub name: &'static str,
    pub value: f64,
    pub unit: &'static str,
    pub label: String,
}

impl Figure {
    pub fn new(name: &'static str, value: f64, unit: &'static str, label: &str) -> Self {
        Self {
            name,
            value,
            unit,
            label: label.to_string(),
        }
    }
}

/// Prints the table, then the `RESULT` lines.
pub fn print_figures(title: &str, figures: &[Figure]) {
    println!("\n{title}");
    let width = figures.iter().map(|f| f.label.len()).max().unwrap_or(0);
    for f in figures {
        println!(
            "  {:<width$}  {:>12} {}",
            f.label,
            format_value(f.value),
            f.unit
        );
    }
    println!();
    for f in figures {
        println!("RESULT {} {} {}", f.name, format_value(f.value), f.unit);
    }
}

fn format_value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// The `p`-th percentile (0-100) of sorted samples.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Peak resident set size of this process in MB (Linux), if known.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// CPU seconds (user + system) a process has used so far (Linux), or 0.
pub fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // Fields after the command name, which is in parentheses.
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
        return 0.0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 here.
    (ticks(11) + ticks(12)) / 100.0
}

/// Context switches (voluntary and not) of every thread of a process so far
/// (Linux), or 0. Threads that already ended are not counted.
pub fn context_switches(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("status")).ok())
        .flat_map(|status| {
            status
                .lines()
                .filter(|l| l.contains("ctxt_switches:"))
                .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                .collect::<Vec<_>>()
        })
        .sum()
}

/// `agenteval demo-target` as a child process on a free loopback port;
/// stopped when dropped.
pub struct DemoTargetProcess {
    child: Child,
    pub addr: SocketAddr,
}

impl DemoTargetProcess {
    pub fn start(latency_ms: u64) -> anyhow::Result<Self> {
        let addr = free_port()?;
        let exe = std::env::current_exe().context("locating the agenteval binary")?;
        let child = Command::new(exe)
            .args(["demo-target", "--bind", &addr.to_string()])
            .args(["--latency-ms", &latency_ms.to_string()])
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting the demo target")?;
        let mut process = Self { child, addr };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(addr).is_err() {
            if let Some(status) = process.child.try_wait()? {
                anyhow::bail!("the demo target exited at start ({status})");
            }
            anyhow::ensure!(
                Instant::now() < deadline,
                "the demo target did not listen on {addr} within 10 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(process)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }
}

impl Drop for DemoTargetProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> anyhow::Result<SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0").context("finding a free port")?;
    Ok(listener.local_addr()?)
}

/// A fresh data folder, removed at the end unless `keep` is set.
pub fn data_dir(
    keep: Option<&std::path::Path>,
) -> anyhow::Result<(std::path::PathBuf, Option<tempfile::TempDir>)> {
    match keep {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            Ok((dir.to_path_buf(), None))
        }
        None => {
            let tmp = tempfile::Builder::new()
                .prefix("agenteval-bench-")
                .tempdir()?;
            Ok((tmp.path().to_path_buf(), Some(tmp)))
        }
    }
}

/// A platform on a fresh data folder (or `keep`) with [`bench_scenario`]
/// loaded; the folder is removed when the returned guard is dropped.
pub async fn bench_platform(
    keep: Option<&std::path::Path>,
) -> anyhow::Result<(
    std::sync::Arc<agenteval_engine::Platform>,
    Option<tempfile::TempDir>,
)> {
    let (mut platforms, guard) = bench_platforms(keep, 1).await?;
    let platform = platforms.remove(0);
    platform.scenarios.insert_all([bench_scenario()?]);
    Ok((platform, guard))
}

/// `workers` platforms on one database: the database of `--database-url` (a scratch database: the bench
/// leaves its campaigns there), else SQLite in a fresh data folder (or
/// `keep`), removed when the returned guard is dropped. Several workers
/// need `--database-url`: they stand for `agenteval serve` processes
/// sharing a PostgreSQL database, here in one process.
pub async fn bench_platforms(
    keep: Option<&std::path::Path>,
    workers: u32,
) -> anyhow::Result<(
    Vec<std::sync::Arc<agenteval_engine::Platform>>,
    Option<tempfile::TempDir>,
)> {
    let database_url = crate::database_url();
    anyhow::ensure!(
        workers == 1 || database_url.is_some(),
        "--workers {workers} needs a database the workers share: pass --database-url postgres://..."
    );
    let (dir, guard) = data_dir(keep)?;
    let mut platforms = Vec::new();
    for _ in 0..workers.max(1) {
        let platform = agenteval_engine::Platform::builder(&dir)
            .database_url(database_url.clone())
            .open()
            .await
            .map_err(crate::user_error)?;
        platforms.push(platform);
    }
    Ok((platforms, guard))
}

/// A campaign of `hours` running [`bench_scenario`] once, on the
/// accelerated line (time scale 2): sessions are manual and nothing waits
/// for the patrol agent.
pub fn bench_campaign(
    name: &str,
    target_id: uuid::Uuid,
    hours: f64,
    budget: Option<agenteval_engine::campaign::Budget>,
    seed_set: Option<agenteval_engine::campaign::SeedSet>,
) -> agenteval_engine::campaign::CreateCampaign {
    use agenteval_engine::campaign::{CreateCampaign, Plan, PlanEntry};
    CreateCampaign {
        name: name.into(),
        target_id: agenteval_engine::TargetId(target_id),
        plan: Some(Plan {
            entries: vec![PlanEntry {
                scenario_id: BENCH_SCENARIO.into(),
                ..Default::default()
            }],
        }),
        duration_hours: Some(hours),
        time_scale: Some(2.0),
        budget,
        seed_set,
        ..Default::default()
    }
}

/// The id of [`bench_scenario`].
pub const BENCH_SCENARIO: &str = "bench.hello";

/// A one-turn scenario for suites whose fixed plan is not what they measure.
pub fn bench_scenario() -> anyhow::Result<agenteval_engine::scenario::Scenario> {
    Ok(serde_json::from_value(serde_json::json!({
        "id": BENCH_SCENARIO,
        "title": "hello",
        "pack": "bench",
        "turns": [{"user": "hello"}],
        "source_file": "(bench)",
        "source_line": 1,
        "content_hash": "bench",
    }))?)
}
