//! `bench run`: `agenteval run` as a CI job runs it, a process of its own
//! from start to exit, over a generated pack of single-turn scenarios
//! against the demo target. Figures: the wall time from spawning the
//! process to its exit, and its peak resident set size.

use super::{DemoTargetProcess, Figure, print_figures};
use anyhow::Context;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Options {
    /// Single-turn scenarios in the generated pack, each run once.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub cases: u32,
    /// The target's concurrency in the generated `agenteval.yaml`.
    #[arg(long, default_value_t = 16)]
    pub concurrency: u32,
    /// The `agenteval` binary to measure (default: this one), to compare
    /// two builds on the same minute of the machine.
    #[arg(long)]
    pub binary: Option<PathBuf>,
    /// Keep the project folder (config, pack, data, exports) here instead
    /// of a temporary one.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
}

/// What the measured process did.
struct Measured {
    code: Option<i32>,
    wall: Duration,
    peak_rss_mb: f64,
    stdout: String,
    stderr: String,
}

pub async fn run(o: Options) -> anyhow::Result<()> {
    let target = DemoTargetProcess::start(0)?;
    let (dir, _tmp) = super::data_dir(o.data_dir.as_deref())?;
    write_project(&dir, o.cases, o.concurrency, &target.base_url())?;
    let binary = match o.binary {
        Some(b) => b,
        None => std::env::current_exe().context("locating the agenteval binary")?,
    };
    println!(
        "bench run: `agenteval run` on {} single-turn cases against the demo target at {} (concurrency {})",
        o.cases,
        target.base_url(),
        o.concurrency
    );
    let m = tokio::task::spawn_blocking(move || measure(&binary, &dir)).await??;
    anyhow::ensure!(
        m.code.is_some_and(|c| c == 0 || c == 1),
        "agenteval run ended without a verdict ({:?}):\n{}\n{}",
        m.code,
        m.stdout,
        m.stderr
    );
    let (done, planned) = runs_done(&m.stderr).context("no progress line in the run's stderr")?;
    let scenarios = m
        .stdout
        .lines()
        .filter(|l| {
            let word = l.split_whitespace().next().unwrap_or("");
            ["PASS", "FAIL", "FLAKY", "ERROR"].contains(&word)
        })
        .count();
    println!(
        "  runs {done}/{planned}, {scenarios} scenario lines, exit {}",
        m.code.unwrap_or(-1)
    );
    let wall = m.wall.as_secs_f64();
    print_figures(
        "run",
        &[
            Figure::new("run_cases", f64::from(o.cases), "cases", "cases"),
            Figure::new("run_runs_done", done as f64, "runs", "runs finished"),
            Figure::new("run_wall_s", wall, "s", "wall time, spawn to exit"),
            Figure::new(
                "run_ms_per_case",
                wall * 1000.0 / f64::from(o.cases),
                "ms",
                "wall time per case",
            ),
            Figure::new(
                "run_peak_rss_mb",
                m.peak_rss_mb,
                "MB",
                "peak RSS of agenteval run",
            ),
        ],
    );
    Ok(())
}

/// `agenteval.yaml` and a pack of `cases` single-turn scenarios in `dir`.
fn write_project(dir: &Path, cases: u32, concurrency: u32, base_url: &str) -> anyhow::Result<()> {
    let config = format!(
        "name: run bench\n\
         target:\n  kind: openai\n  base_url: {base_url}\n  model: agenteval-demo\n  \
         concurrency: {concurrency}\n  timeout_ms: 15000\n\
         scenarios:\n  paths: [scenarios]\n\
         plan:\n  repeat: 1\n\
         gate:\n  min_pass_rate: 0.5\n\
         out_dir: out\n"
    );
    std::fs::write(dir.join("agenteval.yaml"), config)?;
    let mut pack = String::from(
        "defaults:\n  tags: [bench]\n  system: >-\n    You are the customer-service agent of an online shop. \
         Customer service is open Monday to Friday, 9:00-18:00.\n  \
         facts:\n    - Opening hours are Monday to Friday, 9:00-18:00.\n\nscenarios:\n",
    );
    for i in 0..cases {
        pack.push_str(&format!(
            "  - id: bench.case_{i:05}\n    title: Opening hours {i}\n    turns:\n      \
             - user: What are your opening hours?\n        checks:\n          \
             - type: contains\n            value: 9:00-18:00\n"
        ));
    }
    let packs = dir.join("scenarios/bench");
    std::fs::create_dir_all(&packs)?;
    std::fs::write(packs.join("cases.yaml"), pack)?;
    Ok(())
}

/// Runs `agenteval run` in `dir` and samples its peak RSS (`VmHWM`, which
/// only grows) every 2 ms until it exits.
fn measure(binary: &Path, dir: &Path) -> anyhow::Result<Measured> {
    let mut cmd = Command::new(binary);
    // Offline role models: a judge from the environment would be measured
    // instead of the run.
    for role in ["USER", "JUDGE", "ANALYST", "TOOLS"] {
        for field in ["BASE_URL", "MODEL", "API_KEY"] {
            cmd.env_remove(format!("AGENTEVAL_{role}_{field}"));
        }
    }
    let start = Instant::now();
    let mut child = cmd
        .args(["--lang", "en", "run", "--data-dir", "data"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", binary.display()))?;
    let pid = child.id();
    let peak_kb = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak_kb, done) = (peak_kb.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                if let Some(kb) = vm_hwm_kb(pid) {
                    peak_kb.fetch_max(kb, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let read = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out = read(Box::new(child.stdout.take().context("stdout")?));
    let err = read(Box::new(child.stderr.take().context("stderr")?));
    let status = child.wait()?;
    let wall = start.elapsed();
    done.store(true, Ordering::Relaxed);
    let _ = sampler.join();
    Ok(Measured {
        code: status.code(),
        wall,
        peak_rss_mb: peak_kb.load(Ordering::Relaxed) as f64 / 1024.0,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// `VmHWM` of a process in kB, while it runs (Linux).
fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The last `runs D/P` progress line of the run's stderr.
fn runs_done(stderr: &str) -> Option<(u64, u64)> {
    let line = stderr.lines().rev().find_map(|l| {
        l.split("runs ")
            .nth(1)
            .and_then(|r| r.split([',', ' ']).next())
            .filter(|r| r.contains('/'))
    })?;
    let (d, p) = line.split_once('/')?;
    Some((d.parse().ok()?, p.parse().ok()?))
}
