//! `bench throughput`: fixed-scenario turns per second through the whole
//! engine (HTTP channel, checks, every turn persisted) against the demo
//! target, and in the same run the target's ceiling: a plain request loop
//! with the same concurrency.

use super::{DemoTargetProcess, Figure, print_figures};
use crate::{load_scenarios, user_error};
use agenteval_engine::Platform;
use agenteval_engine::campaign::{CreateCampaign, Plan, PlanEntry};
use agenteval_engine::target::TargetSettings;
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
    /// Times each shipped scenario runs in the measured campaign (1,000:
    /// 35,000 runs, long enough for start-up to weigh little).
    #[arg(long, default_value_t = 1000)]
    pub rounds: u32,
    /// Seconds the plain request loop runs, half before and half after
    /// the engine.
    #[arg(long, default_value_t = 5)]
    pub ceiling_seconds: u64,
    /// More scenario packs, besides the shipped ones.
    #[arg(long)]
    pub scenarios: Option<PathBuf>,
    /// Keep the database in this folder instead of a temporary one.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Workers executing the campaign's runs, each a platform with its own
    /// scheduler and its own concurrency limit on the target, sharing the
    /// database of --database-url (as `agenteval serve` processes would).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub workers: u32,
    /// Milliseconds the demo target waits before each answer (a target
    /// with latency, where more workers help).
    #[arg(long, default_value_t = 0)]
    pub target_latency_ms: u64,
}

pub async fn run(o: Options) -> anyhow::Result<()> {
    let target = DemoTargetProcess::start(o.target_latency_ms)?;
    println!(
        "bench throughput: demo target at {} (latency {} ms), concurrency {} per worker, {} worker(s) on {}",
        target.base_url(),
        o.target_latency_ms,
        o.concurrency,
        o.workers,
        if crate::database_url().is_some() {
            "PostgreSQL"
        } else {
            "SQLite"
        },
    );
    let (platforms, _tmp) = super::bench_platforms(o.data_dir.as_deref(), o.workers).await?;
    let sources = crate::scenario_sources(o.scenarios, &platforms[0].data_dir)?;
    for platform in &platforms {
        load_scenarios(platform, &sources).await?;
    }
    let platform = &platforms[0];

    // The target's ceiling is measured in two halves, before and after the
    // engine, so that a change of machine speed during the run weighs on
    // both sides of the ratio alike.
    let bodies = first_turn_requests(platform);
    let half = Duration::from_secs_f64(o.ceiling_seconds.max(1) as f64 / 2.0);
    let before = ceiling(&target, &bodies, o.concurrency, half).await?;
    println!(
        "  ceiling before the engine: {:.0} requests/s (plain loop over the scenarios' first turns)",
        before.rate()
    );

    let cpu = super::cpu_seconds;
    let target1 = cpu(target.pid());
    let engine = engine_run(&platforms, &target.base_url(), o.concurrency, o.rounds).await?;
    let target_engine_us = (cpu(target.pid()) - target1) / engine.turns.max(1) as f64 * 1e6;
    let engine_us = engine.cpu_seconds / engine.turns.max(1) as f64 * 1e6;
    let switches_per_turn = engine.context_switches as f64 / engine.turns.max(1) as f64;
    println!(
        "  engine: {} runs, {} turns in {:.2} s",
        engine.runs,
        engine.turns,
        engine.elapsed.as_secs_f64()
    );
    let after = ceiling(&target, &bodies, o.concurrency, half).await?;
    println!("  ceiling after the engine: {:.0} requests/s", after.rate());
    let all = before.plus(&after);
    let ceiling = all.rate();
    let client_us = all.client_cpu / all.requests as f64 * 1e6;
    let target_us = all.target_cpu / all.requests as f64 * 1e6;

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
                "throughput_context_switches_per_turn",
                switches_per_turn,
                "switches/turn",
                "engine context switches per turn",
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

/// What a plain request loop got from the target.
struct Ceiling {
    requests: u64,
    elapsed: Duration,
    /// CPU seconds of this process and of the target meanwhile.
    client_cpu: f64,
    target_cpu: f64,
}

impl Ceiling {
    fn rate(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    fn plus(&self, other: &Ceiling) -> Ceiling {
        Ceiling {
            requests: self.requests + other.requests,
            elapsed: self.elapsed + other.elapsed,
            client_cpu: self.client_cpu + other.client_cpu,
            target_cpu: self.target_cpu + other.target_cpu,
        }
    }
}

/// A plain loop of `concurrency` workers sending `bodies` in turn to the
/// target for `duration`.
async fn ceiling(
    target: &DemoTargetProcess,
    bodies: &[String],
    concurrency: u32,
    duration: Duration,
) -> anyhow::Result<Ceiling> {
    anyhow::ensure!(!bodies.is_empty(), "no scenario to build requests from");
    let cpu = super::cpu_seconds;
    let (me, target_pid) = (std::process::id(), target.pid());
    let (client0, target0) = (cpu(me), cpu(target_pid));
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency as usize)
        .build()?;
    let url = format!("{}/chat/completions", target.base_url());
    let bodies: Arc<Vec<String>> = Arc::new(bodies.to_vec());
    let done = Arc::new(AtomicU64::new(0));
    let failed = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let end = start + duration;
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
    let elapsed = start.elapsed();
    let failed = failed.load(Ordering::Relaxed);
    anyhow::ensure!(failed == 0, "{failed} requests to the target failed");
    Ok(Ceiling {
        requests: done.load(Ordering::Relaxed),
        elapsed,
        client_cpu: cpu(me) - client0,
        target_cpu: cpu(target_pid) - target0,
    })
}

struct EngineRun {
    runs: u64,
    turns: u64,
    errors: u64,
    elapsed: Duration,
    /// CPU time and context switches of this process while the engine ran.
    cpu_seconds: f64,
    context_switches: u64,
}

/// A campaign running every scenario `rounds` times in a compressed
/// window, stepped by the scheduler until every run is done.
async fn engine_run(
    platforms: &[Arc<Platform>],
    base_url: &str,
    concurrency: u32,
    rounds: u32,
) -> anyhow::Result<EngineRun> {
    let me = std::process::id();
    let platform = &platforms[0];
    let target = platform
        .create_target(TargetSettings {
            concurrency: Some(concurrency),
            max_retries: Some(0),
            ..TargetSettings::openai("demo target (bench)", base_url, "agenteval-demo")
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
            // 36 s of campaign time at the fastest time scale.
            duration_hours: Some(0.01),
            time_scale: Some(agenteval_engine::campaign::MAX_TIME_SCALE),
            ..Default::default()
        })
        .await
        .map_err(user_error)?;
    // The whole window passes in 3.6 ms: every run is due at once.
    tokio::time::sleep(Duration::from_millis(10)).await;
    // Each worker stepped from a task of its own, as the app's scheduler
    // is, until the campaign is finalized (by whichever worker sees its
    // last run done).
    let start = Instant::now();
    let (cpu0, switches0) = (super::cpu_seconds(me), super::context_switches(me));
    let stepping: Vec<_> = platforms
        .iter()
        .map(|worker| {
            let worker = worker.clone();
            tokio::spawn(async move {
                loop {
                    let tick = worker.tick().await?;
                    if tick.finalized_campaigns > 0 {
                        return Ok::<_, agenteval_engine::Error>(());
                    }
                    if tick.runs_executed == 0 {
                        let status = worker.get_campaign(campaign.id).await?.status;
                        if status == agenteval_engine::campaign::CampaignStatus::Finalized {
                            return Ok(());
                        }
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                }
            })
        })
        .collect();
    for worker in stepping {
        worker.await?.map_err(user_error)?;
    }
    let elapsed = start.elapsed();
    let cpu_seconds = super::cpu_seconds(me) - cpu0;
    let context_switches = super::context_switches(me) - switches0;
    // Counted after the clock stopped, from the stored rows.
    let counted = platform
        .inspect()
        .campaign_run_counts(campaign.id)
        .await
        .map_err(user_error)?;
    Ok(EngineRun {
        runs: counted.runs,
        turns: counted.target_turns,
        errors: counted.errors,
        elapsed,
        cpu_seconds,
        context_switches,
    })
}
