//! What the report's tallies count, for both evidence lines; the store keeps
//! them in Rust, in the transaction of each write.
//!
//! The fixed-scenario tallies (migration 0008) are kept up to date by the
//! writer as runs finish: what the runs of a batch add is summed in memory
//! and written once per tally row it touches, in the batch's own
//! transaction. Every way a run finishes goes through here (a verdict,
//! restart recovery, finalize's skips), and nothing else writes the
//! tallies, so that they stay equal to what the runs add up to.
//!
//! The exploration tallies count what each session adds, one pure function
//! of its stored values ([`SessionTally::of`]), which the store applies as a
//! difference on every write that changes them.

mod session;
pub use session::*;

use crate::ids::CampaignId;
use crate::run::{CheckResult, RunMetrics};
use std::sync::Arc;

/// Slices of the campaign window in the report's timeline.
pub const TIMELINE_SLICES: i64 = 12;

/// The timeline slice of a run `offset_ms` into a window of `duration_ms`
/// campaign time.
pub fn slice(offset_ms: i64, duration_ms: i64) -> i64 {
    (offset_ms * TIMELINE_SLICES / duration_ms.max(1)).clamp(0, TIMELINE_SLICES - 1)
}

pub use crate::run::reason_kind;

/// Sums over finished runs of one scenario and verdict.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSums {
    pub runs: u32,
    pub with_metrics: u32,
    pub completed: u32,
    pub latency_runs: u32,
    pub latency_mean_sum: f64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: f64,
    pub coverage_runs: u32,
    pub coverage_sum: f64,
    /// Runs that completed their task ([`RunMetrics::task_completed`]).
    pub task_completed: u32,
    /// Runs with metrics, and the sum of their whole time.
    pub task_runs: u32,
    pub latency_total_sum: f64,
    /// Runs whose steps were counted, and the sum of their steps.
    pub steps_runs: u32,
    pub steps_sum: u64,
}

impl RunSums {
    /// One run with these metrics.
    pub fn of_run(metrics: Option<&RunMetrics>) -> Self {
        let mut sums = RunSums {
            runs: 1,
            ..Default::default()
        };
        if let Some(m) = metrics {
            sums.with_metrics = 1;
            sums.completed = u32::from(m.completed);
            if m.turns > 0 {
                sums.latency_runs = 1;
                sums.latency_mean_sum = m.latency_ms_total as f64 / f64::from(m.turns);
            }
            sums.tokens_in = m.tokens_in;
            sums.tokens_out = m.tokens_out;
            sums.cost = m.cost;
            if let Some(c) = m.key_field_coverage {
                sums.coverage_runs = 1;
                sums.coverage_sum = c;
            }
            sums.task_completed = u32::from(m.task_completed());
            sums.task_runs = 1;
            sums.latency_total_sum = m.latency_ms_total as f64;
            if let Some(steps) = m.steps {
                sums.steps_runs = 1;
                sums.steps_sum = u64::from(steps);
            }
        }
        sums
    }

    pub fn add(&mut self, other: &RunSums) {
        self.runs += other.runs;
        self.with_metrics += other.with_metrics;
        self.completed += other.completed;
        self.latency_runs += other.latency_runs;
        self.latency_mean_sum += other.latency_mean_sum;
        self.tokens_in += other.tokens_in;
        self.tokens_out += other.tokens_out;
        self.cost += other.cost;
        self.coverage_runs += other.coverage_runs;
        self.coverage_sum += other.coverage_sum;
        self.task_completed += other.task_completed;
        self.task_runs += other.task_runs;
        self.latency_total_sum += other.latency_total_sum;
        self.steps_runs += other.steps_runs;
        self.steps_sum += other.steps_sum;
    }
}

/// What a finished run adds besides its verdict, known when it finishes.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub campaign_id: CampaignId,
    pub scenario_id: Arc<str>,
    pub offset_ms: i64,
    pub sums: RunSums,
    /// (check kind, detail) of each failed check, the detail as
    /// [`crate::i18n::Text::to_key`].
    pub failing: Vec<(String, String)>,
    /// The latencies of the target's replies, when the caller knows them
    /// all; otherwise they are read from the stored turns.
    pub latencies: Option<Vec<i64>>,
}

impl RunOutcome {
    pub fn new(
        campaign_id: CampaignId,
        scenario_id: Arc<str>,
        offset_ms: i64,
        metrics: Option<&RunMetrics>,
        checks: Vec<CheckResult>,
        latencies: Option<Vec<i64>>,
    ) -> Self {
        RunOutcome {
            campaign_id,
            scenario_id,
            offset_ms,
            sums: RunSums::of_run(metrics),
            failing: checks
                .into_iter()
                .filter(|c| !c.passed)
                .map(|c| (c.kind, c.detail.to_key()))
                .collect(),
            latencies,
        }
    }

    /// A run that ends without metrics or checks (interrupted, skipped).
    pub fn bare(campaign_id: CampaignId, scenario_id: Arc<str>, offset_ms: i64) -> Self {
        Self::new(campaign_id, scenario_id, offset_ms, None, Vec::new(), None)
    }
}

/// A stored run's metrics and check results, from their JSON columns; what
/// cannot be read counts as absent.
pub fn stored_results(
    metrics: Option<&str>,
    check_results: Option<&str>,
) -> (Option<RunMetrics>, Vec<CheckResult>) {
    (
        metrics.and_then(|s| serde_json::from_str(s).ok()),
        check_results
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default(),
    )
}
