//! `bench concurrency`: many exploration sessions at once against a target
//! that takes a fixed time to answer. Every session sends the same number
//! of messages, so the ideal is `turns x latency` for the whole batch; the
//! figure is how close the platform gets, and the memory it takes.

use super::{DemoTargetProcess, Figure, print_figures};
use crate::user_error;
use agenteval_engine::Platform;
use agenteval_engine::campaign::Budget;
use agenteval_engine::exploration::Trigger;
use agenteval_engine::exploration::session::{CloseSession, CreateSession, SendMessage};
use agenteval_engine::target::TargetSettings;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Options {
    /// Sessions running at once.
    #[arg(long, default_value_t = 1000)]
    pub sessions: u32,
    /// Messages each session sends.
    #[arg(long, default_value_t = 5)]
    pub turns: u32,
    /// The target's delay before every answer, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub latency_ms: u64,
    /// Keep the database in this folder instead of a temporary one.
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
}

pub async fn run(o: Options) -> anyhow::Result<()> {
    let target = DemoTargetProcess::start(o.latency_ms)?;
    let (platform, _tmp) = super::bench_platform(o.data_dir.as_deref()).await?;
    let t = platform
        .create_target(TargetSettings {
            // The target's own limit must not be what is measured.
            concurrency: Some(o.sessions.clamp(1, 1024)),
            timeout_ms: Some(o.latency_ms * 4 + 10_000),
            ..TargetSettings::openai(
                "slow demo target (bench)",
                &target.base_url(),
                "agenteval-demo",
            )
        })
        .await
        .map_err(user_error)?;
    let budget = Budget {
        max_sessions: Some(o.sessions),
        max_turns: Some(o.turns),
        min_interval_minutes: Some(0.0),
    };
    let campaign = platform
        .create_campaign(super::bench_campaign(
            "concurrency bench",
            t.id.into(),
            24.0,
            Some(budget),
            None,
        ))
        .await
        .map_err(user_error)?;
    println!(
        "bench concurrency: {} sessions x {} messages against a target answering in {} ms",
        o.sessions, o.turns, o.latency_ms
    );

    let start = Instant::now();
    let tasks: Vec<_> = (0..o.sessions)
        .map(|i| {
            let platform = platform.clone();
            let turns = o.turns;
            tokio::spawn(async move { one_session(&platform, campaign.id.into(), i, turns).await })
        })
        .collect();
    let (mut turns, mut failed) = (0u64, 0u64);
    for t in tasks {
        match t.await? {
            Ok(n) => turns += n,
            Err(e) => {
                failed += 1;
                if failed <= 3 {
                    eprintln!("  session failed: {e:#}");
                }
            }
        }
    }
    let elapsed = start.elapsed();
    let ideal = Duration::from_millis(o.latency_ms * u64::from(o.turns));
    let ideal_rate = f64::from(o.sessions) * f64::from(o.turns) / ideal.as_secs_f64();
    let rate = turns as f64 / elapsed.as_secs_f64();
    print_figures(
        "concurrency",
        &[
            Figure::new(
                "concurrency_sessions",
                f64::from(o.sessions),
                "sessions",
                "sessions at once",
            ),
            Figure::new(
                "concurrency_failed_sessions",
                failed as f64,
                "sessions",
                "sessions that failed",
            ),
            Figure::new("concurrency_turns", turns as f64, "turns", "turns answered"),
            Figure::new(
                "concurrency_elapsed_s",
                elapsed.as_secs_f64(),
                "s",
                "elapsed",
            ),
            Figure::new(
                "concurrency_turns_per_s",
                rate,
                "turns/s",
                "achieved turns per second",
            ),
            Figure::new(
                "concurrency_ideal_turns_per_s",
                ideal_rate,
                "turns/s",
                "ideal turns per second",
            ),
            Figure::new(
                "concurrency_ratio_to_ideal",
                rate / ideal_rate,
                "x",
                "achieved / ideal",
            ),
            Figure::new(
                "concurrency_peak_rss_mb",
                super::peak_rss_mb().unwrap_or(f64::NAN),
                "MB",
                "peak resident memory",
            ),
        ],
    );
    Ok(())
}

/// Creates a session, sends `turns` messages and closes it with a record;
/// returns the turns answered.
async fn one_session(
    platform: &Arc<Platform>,
    campaign_id: uuid::Uuid,
    i: u32,
    turns: u32,
) -> anyhow::Result<u64> {
    let session = platform
        .create_session(CreateSession {
            campaign_id: agenteval_engine::CampaignId(campaign_id),
            persona: serde_json::json!({"name": format!("user {i}")}),
            goal: serde_json::json!("track an order"),
            seed_ref: None,
            trigger: Some(Trigger::Manual),
            played_by: None,
            user_model: None,
        })
        .await
        .map_err(user_error)?;
    for n in 0..turns {
        platform
            .send_message(
                session.id,
                SendMessage {
                    content: format!("Where is my order A{}? (message {n})", 1000 + i),
                },
            )
            .await
            .map_err(user_error)?;
    }
    platform
        .close_session(
            session.id,
            CloseSession {
                goal_achieved: true,
                ..Default::default()
            },
        )
        .await
        .map_err(user_error)?;
    Ok(u64::from(turns))
}
