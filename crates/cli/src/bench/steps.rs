//! `bench steps`: fixed-scenario turns per second and peak memory when the
//! engine plays the tools, beside the same figures for a turn of one step.
//! Against the demo target at 0 ms latency, two campaigns of `--runs` runs
//! each, one after the other on one platform: a one-step scenario (one
//! request, the agent answers in words) and a three-step one (the agent
//! calls `FILE_LIST`, then `DATA_QUERY` on the file listed, each answered
//! by the engine from the responses the scenario declares, then answers in
//! words: three requests and two stored steps per turn).

use super::{DemoTargetProcess, Figure, print_figures};
use crate::user_error;
use agenteval_engine::Platform;
use agenteval_engine::campaign::{CampaignStatus, CreateCampaign, MAX_TIME_SCALE, Plan, PlanEntry};
use agenteval_engine::fixed::Verdict;
use agenteval_engine::scenario::Scenario;
use agenteval_engine::target::TargetSettings;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub struct Options {
    /// Runs of each scenario (one turn each).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// The target's concurrency limit.
    #[arg(long, default_value_t = 64)]
    pub concurrency: u32,
    /// Keep the database in this folder instead of a temporary one.
    #[arg(long)]
    pub data_dir: Option<std::path::PathBuf>,
}

const ONE_STEP: &str = "bench.one_step";
const THREE_STEPS: &str = "bench.three_steps";

/// What one campaign did and cost.
struct Measured {
    runs: u64,
    turns: u64,
    errors: u64,
    passed: usize,
    steps: usize,
    elapsed: Duration,
    peak_rss_mb: f64,
}

impl Measured {
    fn turns_per_s(&self) -> f64 {
        self.turns as f64 / self.elapsed.as_secs_f64()
    }
}

pub async fn run(o: Options) -> anyhow::Result<()> {
    let target = DemoTargetProcess::start(0)?;
    println!(
        "bench steps: {} runs of a one-step and of a three-step scenario against the demo target at {} (latency 0 ms, concurrency {})",
        o.runs,
        target.base_url(),
        o.concurrency
    );
    let (platforms, _tmp) = super::bench_platforms(o.data_dir.as_deref(), 1).await?;
    let platform = &platforms[0];
    platform.scenarios.insert_all(scenarios()?);
    let target_id = platform
        .create_target(TargetSettings {
            concurrency: Some(o.concurrency),
            max_retries: Some(0),
            ..TargetSettings::openai("demo target (bench)", &target.base_url(), "agenteval-demo")
        })
        .await
        .map_err(user_error)?
        .id;
    let one = measure(platform, target_id, ONE_STEP, o.runs).await?;
    report_line("one step", &one);
    let three = measure(platform, target_id, THREE_STEPS, o.runs).await?;
    report_line("three steps", &three);
    print_figures(
        "steps",
        &[
            Figure::new(
                "steps_one_turns_per_s",
                one.turns_per_s(),
                "turns/s",
                "one step: turns per second",
            ),
            Figure::new(
                "steps_one_peak_rss_mb",
                one.peak_rss_mb,
                "MB",
                "one step: peak RSS",
            ),
            Figure::new(
                "steps_three_turns_per_s",
                three.turns_per_s(),
                "turns/s",
                "three steps: turns per second",
            ),
            Figure::new(
                "steps_three_requests_per_s",
                three.turns_per_s() * 3.0,
                "req/s",
                "three steps: target requests per second",
            ),
            Figure::new(
                "steps_three_peak_rss_mb",
                three.peak_rss_mb,
                "MB",
                "three steps: peak RSS",
            ),
            Figure::new(
                "steps_three_steps_per_run",
                three.steps as f64 / three.runs.max(1) as f64,
                "steps",
                "three steps: stored steps per run",
            ),
            Figure::new(
                "steps_ratio",
                three.turns_per_s() / one.turns_per_s(),
                "x",
                "three-step turns/s / one-step turns/s",
            ),
        ],
    );
    Ok(())
}

fn report_line(what: &str, m: &Measured) {
    println!(
        "  {what}: {} runs ({} passed, {} in error), {} turns, {} stored steps in {:.2} s; peak RSS {:.1} MB",
        m.runs,
        m.passed,
        m.errors,
        m.turns,
        m.steps,
        m.elapsed.as_secs_f64(),
        m.peak_rss_mb
    );
}

/// The two scenarios: one turn each, the second with the office tools the
/// engine plays and checks that the agent took both steps in order.
fn scenarios() -> anyhow::Result<Vec<Scenario>> {
    let scenario = |id: &str, turn: serde_json::Value, tools: serde_json::Value| {
        serde_json::from_value::<Scenario>(json!({
            "id": id,
            "title": id,
            "pack": "bench",
            "system": "你是办公智能体，先用 FILE_LIST 查找文件，再用 DATA_QUERY 查询数据。",
            "tools": tools,
            "turns": [turn],
            "source_file": "(bench)",
            "source_line": 1,
            "content_hash": id,
        }))
    };
    let tools = json!([
        {
            "name": "FILE_LIST",
            "description": "列出目录下的文件。",
            "parameters": {"type": "object", "properties": {"directory": {"type": "string"}}},
            "responses": [{"result": {"directory": ".", "files": ["2025Q4_sales.xlsx", "会议纪要.md"]}}],
        },
        {
            "name": "DATA_QUERY",
            "description": "对指定的 Excel/CSV 文件执行查询。",
            "parameters": {
                "type": "object",
                "required": ["file_path"],
                "properties": {"file_path": {"type": "string"}},
            },
            "responses": [
                {
                    "when": {"file_path": "2025Q4_sales.xlsx"},
                    "result": {
                        "columns": ["区域", "销售额"],
                        "sample_data": [{"区域": "华东", "销售额": 1280}, {"区域": "华北", "销售额": 960}],
                        "totals": {"销售额": 2240},
                    },
                },
                {"error": {"code": "FILE_NOT_FOUND", "message": "文件不存在", "suggestion": "先调用 FILE_LIST"}},
            ],
        },
    ]);
    let checks = json!([
        {"type": "tool_sequence", "order": "exact", "calls": [{"name": "FILE_LIST"}, {"name": "DATA_QUERY"}]},
        {"type": "recovers_from_error"},
    ]);
    Ok(vec![
        scenario(ONE_STEP, json!({"user": "你们几点营业？"}), json!([]))?,
        scenario(
            THREE_STEPS,
            json!({"user": "帮我查一下销售数据的合计", "checks": checks}),
            tools,
        )?,
    ])
}

/// Runs `scenario` `runs` times in a campaign of its own, stepped by the
/// scheduler until finalized; the peak RSS is that of this campaign (the
/// process's high-water mark is reset before it, where Linux allows).
async fn measure(
    platform: &Arc<Platform>,
    target_id: agenteval_engine::TargetId,
    scenario: &str,
    runs: u32,
) -> anyhow::Result<Measured> {
    let campaign = platform
        .create_campaign(CreateCampaign {
            name: format!("steps bench: {scenario}"),
            target_id,
            plan: Some(Plan {
                entries: vec![PlanEntry {
                    scenario_id: scenario.into(),
                    rounds: Some(runs),
                    ..Default::default()
                }],
            }),
            duration_hours: Some(0.01),
            time_scale: Some(MAX_TIME_SCALE),
            ..Default::default()
        })
        .await
        .map_err(user_error)?;
    // The whole window passes in 3.6 ms: every run is due at once.
    tokio::time::sleep(Duration::from_millis(10)).await;
    // Resets VmHWM to the current RSS (Linux 4.0+); elsewhere the peak is
    // the process's so far.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let start = Instant::now();
    loop {
        let tick = platform.tick().await.map_err(user_error)?;
        if tick.finalized_campaigns > 0 {
            break;
        }
        if tick.runs_executed == 0 {
            let status = platform
                .get_campaign(campaign.id)
                .await
                .map_err(user_error)?
                .status;
            if status == CampaignStatus::Finalized {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    let elapsed = start.elapsed();
    let peak_rss_mb = super::peak_rss_mb().unwrap_or(0.0);
    // Counted after the clock stopped, from the stored rows.
    let counted = platform
        .inspect()
        .campaign_run_counts(campaign.id)
        .await
        .map_err(user_error)?;
    let stored = platform.list_runs(campaign.id).await.map_err(user_error)?;
    let passed = stored
        .iter()
        .filter(|r| r.verdict == Some(Verdict::Passed))
        .count();
    let mut steps = 0;
    for r in &stored {
        let turns = platform.run_turns(r.id).await.map_err(user_error)?;
        steps += turns.iter().map(|t| t.steps.len()).sum::<usize>();
    }
    Ok(Measured {
        runs: counted.runs,
        turns: counted.target_turns,
        errors: counted.errors,
        passed,
        steps,
        elapsed,
        peak_rss_mb,
    })
}
