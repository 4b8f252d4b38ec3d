//! `bench ledger`: session creates and messages from many HTTP clients at
//! once against campaigns with small budgets. Prints latency percentiles
//! and the count of budget overruns found in the database afterwards
//! (sessions beyond a campaign's budget, turns beyond a session's limit).

use super::{Figure, ms, percentile, print_figures};
use crate::user_error;
use agenteval_engine::CampaignId;
use agenteval_engine::campaign::Budget;
use agenteval_engine::target::TargetSettings;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

#[derive(clap::Args, Debug)]
pub struct Options {
    /// Requests in all.
    #[arg(long, default_value_t = 10_000)]
    pub requests: u64,
    /// HTTP clients sending at once.
    #[arg(long, default_value_t = 64)]
    pub clients: u32,
    /// Campaigns sharing the load, each with its own budget.
    #[arg(long, default_value_t = 4)]
    pub campaigns: u32,
    /// Sessions each campaign's budget allows.
    #[arg(long, default_value_t = 200)]
    pub max_sessions: u32,
    /// User turns each session allows.
    #[arg(long, default_value_t = 8)]
    pub max_turns: u32,
    /// Keep the database in this folder instead of a temporary one.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Requests sent first, to campaigns of their own, and not counted:
    /// each connection of the servers' pools has then run each statement
    /// once, as on a server that has been running (their p99 is printed
    /// apart).
    #[arg(long, default_value_t = 1_000)]
    pub warmup: u64,
    /// API servers sharing the database of --database-url (as `agenteval
    /// serve` processes would), the clients spread over them.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub workers: u32,
}

const KEY: &str = "bench-ledger-key";

#[derive(Default)]
struct Outcome {
    latencies: Vec<Duration>,
    /// Of session starts (allowed or refused) alone.
    start_latencies: Vec<Duration>,
    created: u64,
    messages: u64,
    refused: u64,
    server_errors: u64,
    other: u64,
}

impl Outcome {
    /// Adds one client's outcome.
    fn add(&mut self, mine: Outcome) {
        self.latencies.extend(mine.latencies);
        self.start_latencies.extend(mine.start_latencies);
        self.created += mine.created;
        self.messages += mine.messages;
        self.refused += mine.refused;
        self.server_errors += mine.server_errors;
        self.other += mine.other;
    }
}

pub async fn run(o: Options) -> anyhow::Result<()> {
    // One tiny scenario: the campaigns' fixed plans are not what is measured.
    let (platforms, _tmp) = super::bench_platforms(o.data_dir.as_deref(), o.workers).await?;
    for platform in &platforms {
        platform.scenarios.insert_all([super::bench_scenario()?]);
    }
    let platform = &platforms[0];
    let campaigns = budgeted_campaigns(platform, &o).await?;
    let (bases, _servers) = serve_all(&platforms).await?;
    println!(
        "bench ledger: {} requests (after {} to warm up) from {} clients over {} campaigns (budget {} sessions x {} turns), {} server(s) on {}",
        o.requests,
        o.warmup,
        o.clients,
        campaigns.len(),
        o.max_sessions,
        o.max_turns,
        bases.len(),
        if crate::database_url().is_some() {
            "PostgreSQL"
        } else {
            "SQLite"
        },
    );

    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(o.clients as usize)
        .build()?;
    let warmup_campaigns = budgeted_campaigns(platform, &o).await?;
    let (mut warmup, _) =
        send_all(&http, &bases, warmup_campaigns.clone(), o.clients, o.warmup).await?;
    warmup.latencies.sort_unstable();
    let (mut outcome, elapsed) =
        send_all(&http, &bases, campaigns.clone(), o.clients, o.requests).await?;
    outcome.latencies.sort_unstable();
    outcome.start_latencies.sort_unstable();
    // The warm-up's campaigns keep their budgets too.
    let overruns = overruns(platform, &[campaigns, warmup_campaigns].concat(), &o).await?;
    print_ledger_figures(&outcome, elapsed, overruns, &warmup);
    Ok(())
}

/// Sends `total` requests from `clients` clients spread over the servers
/// of `bases`, against `campaigns`; what they got, and how long it took.
async fn send_all(
    http: &reqwest::Client,
    bases: &[String],
    campaigns: Vec<CampaignId>,
    clients: u32,
    total: u64,
) -> anyhow::Result<(Outcome, Duration)> {
    let issued = Arc::new(AtomicU64::new(0));
    let outcome = Arc::new(Mutex::new(Outcome::default()));
    let campaigns = Arc::new(campaigns);
    let start = Instant::now();
    let workers: Vec<_> = (0..clients.max(1))
        .map(|worker| {
            let client = Client {
                http: http.clone(),
                base: bases[worker as usize % bases.len()].clone(),
                worker,
                campaigns: campaigns.clone(),
            };
            let (issued, outcome) = (issued.clone(), outcome.clone());
            tokio::spawn(async move {
                let mine = client.send_until(&issued, total).await;
                outcome.lock().await.add(mine);
            })
        })
        .collect();
    for w in workers {
        w.await?;
    }
    let elapsed = start.elapsed();
    let outcome = std::mem::take(&mut *outcome.lock().await);
    Ok((outcome, elapsed))
}

/// The demo target and `o.campaigns` campaigns on it, each with the
/// budget of the options.
async fn budgeted_campaigns(
    platform: &agenteval_engine::Platform,
    o: &Options,
) -> anyhow::Result<Vec<CampaignId>> {
    let target = platform
        .create_target(TargetSettings::builtin_demo("demo agent (bench)"))
        .await
        .map_err(user_error)?;
    let mut campaigns = Vec::new();
    for i in 0..o.campaigns.max(1) {
        let budget = Budget {
            max_sessions: Some(o.max_sessions),
            max_turns: Some(o.max_turns),
            min_interval_minutes: Some(0.0),
        };
        let c = platform
            .create_campaign(super::bench_campaign(
                &format!("ledger bench {i}"),
                target.id.into(),
                24.0,
                Some(budget),
                None,
            ))
            .await
            .map_err(user_error)?;
        campaigns.push(c.id);
    }
    Ok(campaigns)
}

/// An API server on each platform: the base of its exploration routes, and
/// the servers (kept running while they are held).
async fn serve_all(
    platforms: &[Arc<agenteval_engine::Platform>],
) -> anyhow::Result<(Vec<String>, Vec<JoinHandle<()>>)> {
    let mut bases = Vec::new();
    let mut servers = Vec::new();
    for platform in platforms {
        let (addr, server) = agenteval_server::spawn(
            platform.clone(),
            agenteval_server::ServeConfig {
                bind: "127.0.0.1:0".parse()?,
                api_key: KEY.into(),
                ui_dir: None,
                patrol: agenteval_engine::runtime::PatrolControl::none(),
            },
        )
        .await?;
        bases.push(format!("http://{addr}/api/exploration"));
        servers.push(server);
    }
    Ok((bases, servers))
}

/// One HTTP client of the bench and the server it talks to.
struct Client {
    http: reqwest::Client,
    /// The server's exploration routes.
    base: String,
    worker: u32,
    campaigns: Arc<Vec<CampaignId>>,
}

impl Client {
    /// Sends requests until `total` are issued among all clients: mostly
    /// messages on its open session, sometimes a new session.
    async fn send_until(&self, issued: &AtomicU64, total: u64) -> Outcome {
        let mut mine = Outcome::default();
        let mut session: Option<String> = None;
        let mut n = u64::from(self.worker);
        while issued.fetch_add(1, Ordering::Relaxed) < total {
            n += 1;
            let began = Instant::now();
            let response = self.send(session.as_deref(), n).await;
            let creating = session.is_none() || n.is_multiple_of(6);
            match response {
                Ok(r) => {
                    let status = r.status();
                    let body: serde_json::Value = r.json().await.unwrap_or_default();
                    mine.latencies.push(began.elapsed());
                    if creating {
                        mine.start_latencies.push(began.elapsed());
                    }
                    if status.is_success() {
                        if creating {
                            mine.created += 1;
                            session = body["id"].as_str().map(str::to_string);
                        } else {
                            mine.messages += 1;
                        }
                    } else if status.as_u16() == 409 {
                        mine.refused += 1;
                        if !creating {
                            session = None; // turn limit reached: start another
                        }
                    } else if status.is_server_error() {
                        mine.server_errors += 1;
                    } else {
                        mine.other += 1;
                    }
                }
                Err(_) => mine.other += 1,
            }
        }
        mine
    }

    /// The `n`th request: a message on the open session, or every sixth
    /// (and without one) a new session.
    async fn send(&self, session: Option<&str>, n: u64) -> reqwest::Result<reqwest::Response> {
        let base = &self.base;
        match session {
            // Mostly messages on the open session, sometimes a new one.
            Some(id) if !n.is_multiple_of(6) => {
                self.http
                    .post(format!("{base}/sessions/{id}/messages"))
                    .header("x-api-key", KEY)
                    .json(&serde_json::json!({"content": format!("Where is my order A{n}?")}))
                    .send()
                    .await
            }
            _ => {
                let campaign = self.campaigns[(n as usize) % self.campaigns.len()];
                self.http
                    .post(format!("{base}/sessions"))
                    .header("x-api-key", KEY)
                    .json(&serde_json::json!({
                        "campaign_id": campaign,
                        "persona": {"name": format!("client {}", self.worker)},
                        "goal": "track an order",
                        "trigger": "manual",
                    }))
                    .send()
                    .await
            }
        }
    }
}

/// Budget overruns, from what the database holds: sessions beyond each
/// campaign's budget, turns beyond each session's limit.
async fn overruns(
    platform: &agenteval_engine::Platform,
    campaigns: &[CampaignId],
    o: &Options,
) -> anyhow::Result<u64> {
    let mut overruns = 0u64;
    for id in campaigns {
        let sessions = platform.list_sessions(*id).await.map_err(user_error)?;
        overruns += (sessions.len() as u64).saturating_sub(u64::from(o.max_sessions));
        overruns += sessions
            .iter()
            .map(|s| u64::from(s.turn_count.saturating_sub(o.max_turns)))
            .sum::<u64>();
    }
    Ok(overruns)
}

/// The bench's figures: requests, throughput, outcomes, latency,
/// overruns.
fn print_ledger_figures(outcome: &Outcome, elapsed: Duration, overruns: u64, warmup: &Outcome) {
    let l = &outcome.latencies;
    print_figures(
        "ledger",
        &[
            Figure::new(
                "ledger_requests",
                l.len() as f64,
                "requests",
                "requests answered",
            ),
            Figure::new(
                "ledger_rps",
                l.len() as f64 / elapsed.as_secs_f64(),
                "req/s",
                "requests per second",
            ),
            Figure::new(
                "ledger_sessions_created",
                outcome.created as f64,
                "sessions",
                "sessions created",
            ),
            Figure::new(
                "ledger_messages",
                outcome.messages as f64,
                "messages",
                "messages accepted",
            ),
            Figure::new(
                "ledger_refused_409",
                outcome.refused as f64,
                "requests",
                "refused by a guardrail (409)",
            ),
            Figure::new(
                "ledger_5xx",
                outcome.server_errors as f64,
                "requests",
                "server errors (5xx)",
            ),
            Figure::new(
                "ledger_other_failures",
                outcome.other as f64,
                "requests",
                "other failures",
            ),
            Figure::new(
                "ledger_p50_ms",
                ms(percentile(l, 50.0)),
                "ms",
                "latency p50",
            ),
            Figure::new(
                "ledger_p99_ms",
                ms(percentile(l, 99.0)),
                "ms",
                "latency p99",
            ),
            Figure::new(
                "ledger_start_p99_ms",
                ms(percentile(&outcome.start_latencies, 99.0)),
                "ms",
                "latency p99 of session starts",
            ),
            Figure::new(
                "ledger_warmup_requests",
                warmup.latencies.len() as f64,
                "requests",
                "warm-up requests (not counted above)",
            ),
            Figure::new(
                "ledger_warmup_p99_ms",
                ms(percentile(&warmup.latencies, 99.0)),
                "ms",
                "latency p99 of the warm-up",
            ),
            Figure::new(
                "ledger_overruns",
                overruns as f64,
                "overruns",
                "budget overruns",
            ),
        ],
    );
}
