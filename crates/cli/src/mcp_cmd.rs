//! `agenteval mcp`: the MCP server over stdin and stdout.

use agenteval_engine::calibration::JudgePolicy;
use agenteval_engine::scenario::PackSource;
use std::path::PathBuf;

/// Opens the data folder, starts the background work (the judge reviews
/// closed sessions, the scheduler runs the fixed scenarios), and serves
/// the MCP tools until the client hangs up. Only MCP goes to stdout;
/// everything else goes to stderr.
pub async fn main(
    data_dir: PathBuf,
    sources: Vec<PackSource>,
    judge_policy: JudgePolicy,
) -> anyhow::Result<()> {
    let platform = crate::open(&data_dir).await?;
    platform
        .set_judge_policy(judge_policy)
        .map_err(crate::user_error)?;
    let n = crate::load_scenarios(&platform, &sources).await?;
    eprintln!(
        "agenteval mcp: {n} scenarios, data {}; serving MCP on stdio",
        data_dir.display()
    );
    let _patrol = agenteval_engine::runtime::start(
        &platform,
        agenteval_engine::runtime::RuntimeConfig {
            audit_retention_days: agenteval_engine::audit::DEFAULT_RETENTION_DAYS,
            patrol_interval: None,
        },
    );
    agenteval_server::mcp::serve_stdio(platform, crate::lang()).await
}
