//! `bench throughput`: fixed-scenario turns per second through the whole
//! engine (HTTP channel, checks, every turn persisted) against the demo
//! target, and in the same run the target's ceiling: a plain request loop
//! with the same concurrency.

use super::{DemoTargetProcess, Figure, print_figures};
use crate::{load_scenarios, user_error};
use agenteval_engine::Platform;
use agenteval_engine::campaign::{CreateCampaign, Plan, PlanEntry};
use agenteval_engine::fixed::Verdict;
use agenteval_engine::target::CreateTarget;
use anyhow::Context;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Options {
    /// Simultaneous requests, for the engine (the target's concurrency
    /// limit) and for the plain loop alike.
    #[arg(long, default_value_t = 64)]
    pub concurrency: u32,
    /// Times each shipped scenario runs in the measured campaign.
    #[arg(long, default_value_t = 300)]
    pub rounds: u32,
    /// Seconds the plain request loop runs.
    #[arg(long, default_value_t = 5)]
    pub ceiling_seconds: u64,
    /// Scenario packs (default: ./scenarios).
    #[arg(long)]
    pub scenarios: Option<PathBuf>,
    /// Keep the database in this folder instead of a temporary one.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
}

pub async fn run(o: Options) -> anyhow::Result<()> {
    let target = DemoTargetProcess::start(0)?;
    println!(
        "bench throughput: demo target at {}, concurrency {}",
        target.base_url(),
        o.concurrency
    );
    let (dir, _tmp) = super::data_dir(o.data_dir.as_deref())?;
    let platform = Platform::builder(&dir).open().await.map_err(user_error)?;
    let scenarios = crate::scenarios_dir(o.scenarios)?
        .context("no scenarios folder: run from the repository root or pass --scenarios DIR")?;
    load_scenarios(&platform, &scenarios).await?;

    let me = std::process::id();
    let cpu = super::cpu_seconds;
    let (client0, target0) = (cpu(me), cpu(target.pid()));
    let bodies = first_turn_requests(&platform);
    let (ceiling, requests) = ceiling(
        &target.base_url(),
        &bodies,
        o.concurrency,
        o.ceiling_seconds,
    )
    .await?;
    let client_us = (cpu(me) - client0) / requests as f64 * 1e6;
    let target_us = (cpu(target.pid()) - target0) / requests as f64 * 1e6;
    println!(
        "  ceiling: {ceiling:.0} requests/s (plain loop over the scenarios' first turns, {} s)",
        o.ceiling_seconds
    );

    let (engine0, target1) = (cpu(me), cpu(target.pid()));
    let engine = engine_run(&platform, &target.base_url(), o.concurrency, o.rounds).await?;
    let engine_us = (cpu(me) - engine0) / engine.turns.max(1) as f64 * 1e6;
    let target_engine_us = (cpu(target.pid()) - target1) / engine.turns.max(1) as f64 * 1e6;
    println!(
        "  engine: {} runs, {} turns in {:.2} s",
        engine.runs,
        engine.turns,
        engine.elapsed.as_secs_f64()
    );

    let turns_per_s = engine.turns as f64 / engine.elapsed.as_secs_f64();
    let runs_per_s = engine.runs as f64 / engine.elapsed.as_secs_f64();
    print_figures(
        "throughput",
        &[
            Figure::new(
                "throughput_ceiling_rps",
                ceiling,
                "req/s",
                "target ceiling (plain loop)",
            ),
            Figure::new(
                "throughput_turns_per_s",
                turns_per_s,
                "turns/s",
                "engine turns per second",
            ),
            Figure::new(
                "throughput_runs_per_s",
                runs_per_s,
                "runs/s",
                "engine runs per second",
            ),
            Figure::new(
                "throughput_errors",
                engine.errors as f64,
                "runs",
                "runs ending in error",
            ),
            Figure::new(
                "throughput_cpu_target_us",
                target_us,
                "us/request",
                "target CPU per request (plain loop)",
            ),
            Figure::new(
                "throughput_cpu_loop_us",
                client_us,
                "us/request",
                "plain loop CPU per request",
            ),
            Figure::new(
                "throughput_cpu_engine_us",
                engine_us,
                "us/turn",
                "engine CPU per turn (all included)",
            ),
            Figure::new(
                "throughput_cpu_target_engine_us",
                target_engine_us,
                "us/turn",
                "target CPU per engine turn",
            ),
            Figure::new(
                "throughput_ratio_to_ceiling",
                turns_per_s / ceiling,
                "x",
                "engine / ceiling",
            ),
        ],
    );
    Ok(())
}

/// The request each scenario's first turn sends (system prompt, first user
/// message, tools), as the OpenAI wire format: the plain loop sends what
/// the engine sends, so both meet the same target workload.
fn first_turn_requests(platform: &Platform) -> Vec<String> {
    platform
        .scenarios
        .all()
        .iter()
        .filter_map(|s| {
            let first = s.turns.first()?;
            let mut messages = Vec::new();
            if let Some(system) = &s.system {
                messages.push(serde_json::json!({"role": "system", "content": system}));
            }
            messages.push(serde_json::json!({"role": "user", "content": first.user}));
            let mut body = serde_json::json!({"model": "agenteval-demo", "messages": messages});
            if !s.tools.is_empty() {
                body["tools"] = s
                    .tools
                    .iter()
                    .map(|t| {
                        serde_json::json!({"type": "function", "function": {
                            "name": t.name, "description": t.description, "parameters": t.parameters}})
                    })
                    .collect();
            }
            Some(body.to_string())
        })
        .collect()
}

/// Requests per second (and how many) a plain loop of `concurrency`
/// workers gets from the target, cycling through `bodies`.
async fn ceiling(
    base_url: &str,
    bodies: &[String],
    concurrency: u32,
    seconds: u64,
) -> anyhow::Result<(f64, u64)> {
    anyhow::ensure!(!bodies.is_empty(), "no scenario to build requests from");
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency as usize)
        .build()?;
    let url = format!("{base_url}/chat/completions");
    let bodies: Arc<Vec<String>> = Arc::new(bodies.to_vec());
    let done = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds.max(1));
    let workers: Vec<_> = (0..concurrency.max(1))
        .map(|worker| {
            let (client, url, bodies) = (client.clone(), url.clone(), bodies.clone());
            let (done, failed) = (done.clone(), failed.clone());
            tokio::spawn(async move {
                let mut next = worker as usize;
                while Instant::now() < end {
                    let body = bodies[next % bodies.len()].clone();
                    next += 1;
                    let ok = match client
                        .post(&url)
                        .header("content-type", "application/json")
                        .body(body)
                        .send()
                        .await
                    {
                        Ok(r) if r.status().is_success() => r.bytes().await.is_ok(),
                        _ => false,
                    };
                    if ok { &done } else { &failed }.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for w in workers {
        w.await?;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let failed = failed.load(Ordering::Relaxed);
    anyhow::ensure!(failed == 0, "{failed} requests to the target failed");
    let done = done.load(Ordering::Relaxed);
    Ok((done as f64 / elapsed, done))
}

struct EngineRun {
    runs: u64,
    turns: u64,
    errors: u64,
    elapsed: Duration,
}

/// A campaign running every scenario `rounds` times in a compressed
/// window, stepped by the scheduler until every run is done.
async fn engine_run(
    platform: &Arc<Platform>,
    base_url: &str,
    concurrency: u32,
    rounds: u32,
) -> anyhow::Result<EngineRun> {
    let target = platform
        .create_target(CreateTarget {
            concurrency: Some(concurrency),
            max_retries: Some(0),
            ..CreateTarget::openai("demo target (bench)", base_url, "agenteval-demo")
        })
        .await
        .map_err(user_error)?;
    let entries = platform
        .scenarios
        .all()
        .iter()
        .map(|s| PlanEntry {
            scenario_id: s.id.clone(),
            rounds: Some(rounds),
            ..Default::default()
        })
        .collect();
    let campaign = platform
        .create_campaign(CreateCampaign {
            name: "throughput bench".into(),
            target_id: target.id,
            plan: Some(Plan { entries }),
            duration_hours: Some(1.0),
            time_scale: Some(1_000_000.0),
            ..Default::default()
        })
        .await
        .map_err(user_error)?;
    // The whole window passes in 3.6 ms: every run is due at once.
    tokio::time::sleep(Duration::from_millis(10)).await;
    let start = Instant::now();
    loop {
        let tick = platform.tick().await.map_err(user_error)?;
        if tick.finalized_campaigns > 0 {
            break;
        }
        if tick.runs_executed == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    let elapsed = start.elapsed();
    let runs = platform.list_runs(campaign.id).await.map_err(user_error)?;
    Ok(EngineRun {
        runs: runs.len() as u64,
        turns: runs
            .iter()
            .filter_map(|r| r.metrics.as_ref())
            .map(|m| u64::from(m.turns))
            .sum(),
        errors: runs
            .iter()
            .filter(|r| r.verdict == Some(Verdict::Error))
            .count() as u64,
        elapsed,
    })
}
