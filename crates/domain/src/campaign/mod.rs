//! Campaigns: one evaluation window of one target, with a static plan of
//! fixed scenarios, a seed set for exploration and an exploration budget.

use crate::error::{Error, Result};
use crate::ids::{CampaignId, TargetId};
use chrono::{DateTime, Duration, NaiveTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashSet};

pub mod plan;
mod request;
mod seeds;

pub use plan::{MAX_PLANNED_RUNS, Plan, PlanEntry, parse_period};
pub use request::CheckedCampaign;
pub use seeds::{Goal, Persona, SeedSet, Traits, fact_text};
use uuid::Uuid;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CampaignStatus {
    Draft,
    Scheduled,
    Running,
    Finalized,
    Cancelled,
}

impl CampaignStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Scheduled => "scheduled",
            Self::Running => "running",
            Self::Finalized => "finalized",
            Self::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "draft" => Self::Draft,
            "scheduled" => Self::Scheduled,
            "running" => Self::Running,
            "finalized" => Self::Finalized,
            "cancelled" => Self::Cancelled,
            other => {
                return Err(Error::internal(anyhow::anyhow!(
                    "unknown campaign status {other}"
                )));
            }
        })
    }
}

/// Formal line (`time_scale == 1`, real time, patrolled) or accelerated
/// line (`time_scale > 1`, compressed time, manual exploration only).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Line {
    Formal,
    Accelerated,
}

impl Line {
    pub fn of(time_scale: f64) -> Self {
        if time_scale > 1.0 {
            Self::Accelerated
        } else {
            Self::Formal
        }
    }
}

/// Exploration budget as configured; missing fields take the platform
/// defaults.
#[derive(
    Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct Budget {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sessions: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_interval_minutes: Option<f64>,
}

/// The most sessions a campaign's budget may allow.
pub const MAX_SESSIONS: u32 = 1000;
/// The most user turns a session's budget may allow.
pub const MAX_TURNS: u32 = 100;
/// The longest interval between session starts a budget may ask (a week).
pub const MAX_INTERVAL_MINUTES: f64 = 10_080.0;
/// The longest window, in hours of campaign time (a year).
pub const MAX_DURATION_HOURS: f64 = 8760.0;
/// The shortest window, in hours of campaign time (36 seconds): even at
/// the largest time scale it lasts a few real milliseconds.
pub const MIN_DURATION_HOURS: f64 = 0.01;
/// The largest time scale of the accelerated line.
pub const MAX_TIME_SCALE: f64 = 10_000.0;
/// The most rounds a plan entry may ask.
pub const MAX_ROUNDS: u32 = 1000;

/// The budget in force: defaults filled in.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct EffectiveBudget {
    pub max_sessions: u32,
    pub max_turns: u32,
    pub min_interval_minutes: f64,
}

impl EffectiveBudget {
    pub const DEFAULT: Self = Self {
        max_sessions: 8,
        max_turns: 12,
        min_interval_minutes: 30.0,
    };
}

impl Budget {
    pub fn effective(&self) -> EffectiveBudget {
        let d = EffectiveBudget::DEFAULT;
        EffectiveBudget {
            max_sessions: self.max_sessions.unwrap_or(d.max_sessions),
            max_turns: self.max_turns.unwrap_or(d.max_turns),
            min_interval_minutes: self.min_interval_minutes.unwrap_or(d.min_interval_minutes),
        }
    }

    pub fn validate(&self) -> Result<()> {
        if let Some(n) = self.max_sessions
            && !(1..=MAX_SESSIONS).contains(&n)
        {
            return Err(Error::out_of_range(
                "budget.max_sessions",
                1,
                MAX_SESSIONS,
                n,
                crate::msg!("error-budget-max-sessions-suggestion"),
            ));
        }
        if let Some(n) = self.max_turns
            && !(1..=MAX_TURNS).contains(&n)
        {
            return Err(Error::out_of_range(
                "budget.max_turns",
                1,
                MAX_TURNS,
                n,
                crate::msg!("error-budget-max-turns-suggestion"),
            ));
        }
        if let Some(m) = self.min_interval_minutes
            && !(m.is_finite() && (0.0..=MAX_INTERVAL_MINUTES).contains(&m))
        {
            return Err(Error::out_of_range(
                "budget.min_interval_minutes",
                0,
                MAX_INTERVAL_MINUTES,
                m,
                crate::msg!("error-budget-interval-suggestion"),
            ));
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Campaign {
    pub id: CampaignId,
    pub name: String,
    pub target_id: TargetId,
    pub status: CampaignStatus,
    pub line: Line,
    pub window_start: DateTime<Utc>,
    pub window_end: DateTime<Utc>,
    pub time_scale: f64,
    pub plan: Plan,
    pub seed_set: SeedSet,
    /// As configured; `None` = platform defaults.
    pub budget: Option<Budget>,
    /// The budget in force.
    pub effective_budget: EffectiveBudget,
    pub seed_fingerprint: String,
    pub last_patrolled_at: Option<DateTime<Utc>>,
    pub previous_campaign_id: Option<Uuid>,
    /// The scenario whose tools (declared responses, a workspace) the
    /// campaign's exploration sessions are offered; none: sessions offer
    /// no tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_env: Option<String>,
    pub finalized_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Campaign {
    /// Real time of a campaign-time offset.
    pub fn real_time(&self, offset: Duration) -> DateTime<Utc> {
        real_time(self.window_start, self.time_scale, offset)
    }

    /// Window length in campaign time.
    pub fn campaign_duration(&self) -> Duration {
        scale(self.window_end - self.window_start, self.time_scale)
    }
}

/// `ms` of real time scaled by `factor`, in milliseconds.
pub fn scaled_ms(ms: i64, factor: f64) -> i64 {
    scale(Duration::milliseconds(ms), factor).num_milliseconds()
}

pub fn scale(d: Duration, factor: f64) -> Duration {
    Duration::milliseconds((d.num_milliseconds() as f64 * factor).round() as i64)
}

pub fn real_time(start: DateTime<Utc>, time_scale: f64, offset: Duration) -> DateTime<Utc> {
    start + scale(offset, 1.0 / time_scale)
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CreateCampaign {
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    pub name: String,
    pub target_id: TargetId,
    /// Shorthand for a plan that runs each scenario once, spread evenly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Plan>,
    /// Defaults to now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_start: Option<DateTime<Utc>>,
    /// Real end of the window; or give `duration_hours`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_end: Option<DateTime<Utc>>,
    /// Window length in campaign time: from 0.01 (36 seconds) to 8760 (a
    /// year).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0.01, maximum = 8760.0)]
    pub duration_hours: Option<f64>,
    /// 1 = formal line (real time); > 1 = accelerated line (at most 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1.0, maximum = 10000.0)]
    pub time_scale: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_set: Option<SeedSet>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Budget>,
    /// The campaign this one follows, for period comparison.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = Uuid,
             pattern = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")]
    pub previous_campaign_id: Option<Uuid>,
    /// The scenario whose tools (declared responses, a workspace) the
    /// exploration sessions are offered: an agent that acts is explored
    /// with its tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_env: Option<String>,
}

/// The following period of a campaign: same target, plan, seeds, budget
/// and time scale, the next window of the same length.
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct NextPeriod {
    /// Its name; by default the campaign's, marked as the next period in
    /// the reader's language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 200, pattern = r"\S")]
    pub name: Option<String>,
}

/// What the next period of a campaign will run, said before it starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct NextPeriodPlan {
    pub window_start: DateTime<Utc>,
    pub window_end: DateTime<Utc>,
    /// Fixed-scenario runs it will make, the regressions it adds included.
    pub runs: u32,
    /// Regression scenarios drafted from findings on this target that it
    /// adds to the plan.
    pub added: Vec<AddedScenario>,
}

/// A scenario a next period adds to its plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct AddedScenario {
    pub id: String,
    pub title: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t0() -> DateTime<Utc> {
        "2026-11-02T08:00:00Z".parse().unwrap()
    }

    #[test]
    fn scenario_list_spreads_runs_evenly() {
        let plan = Plan::from_scenario_ids(&["a".into(), "b".into(), "c".into(), "d".into()]);
        let runs = plan.expand(t0(), Duration::hours(8)).unwrap();
        let offsets: Vec<i64> = runs.iter().map(|(d, _)| d.num_hours()).collect();
        assert_eq!(offsets, vec![0, 2, 4, 6]);
    }

    #[test]
    fn every_day_at_a_time_uses_campaign_time_of_day() {
        let plan = Plan {
            entries: vec![PlanEntry {
                scenario_id: "a".into(),
                every: Some("1d".into()),
                at: Some("09:00".into()),
                ..Default::default()
            }],
        };
        let runs = plan.expand(t0(), Duration::days(7)).unwrap();
        assert_eq!(
            runs.len(),
            7,
            "a week has seven 09:00s after an 08:00 start"
        );
        assert_eq!(runs[0].0, Duration::hours(1));
        assert_eq!(runs[1].0, Duration::hours(25));
    }

    #[test]
    fn bad_plans_are_refused() {
        let both = Plan {
            entries: vec![PlanEntry {
                scenario_id: "a".into(),
                every: Some("1h".into()),
                rounds: Some(2),
                ..Default::default()
            }],
        };
        assert!(both.expand(t0(), Duration::days(1)).is_err());
        assert!(parse_period("5x").is_err());
        assert!(parse_period("0h").is_err());
        // A unit of several bytes is refused, not cut in the middle.
        assert!(parse_period("5ó").is_err());
        assert!(parse_period("ô\u{ff5eb}ó").is_err());
        assert!(parse_period("h").is_err());
        assert_eq!(parse_period(" 2d ").ok(), Some(Duration::days(2)));
        let huge = Plan {
            entries: vec![PlanEntry {
                scenario_id: "a".into(),
                every: Some("1m".into()),
                ..Default::default()
            }],
        };
        assert!(
            huge.expand(t0(), Duration::days(365)).is_err(),
            "runaway plans are refused"
        );
    }

    #[test]
    fn real_time_divides_by_time_scale() {
        assert_eq!(
            real_time(t0(), 168.0, Duration::days(7)),
            t0() + Duration::hours(1)
        );
        assert_eq!(
            real_time(t0(), 1.0, Duration::days(7)),
            t0() + Duration::days(7)
        );
    }

    #[test]
    fn fingerprint_is_canonical_and_budget_defaults_apply() {
        let a = SeedSet {
            personas: vec![Persona {
                id: "p".into(),
                name: "P".into(),
                ..Default::default()
            }],
            goals: vec![],
        };
        assert_eq!(a.fingerprint(), a.clone().fingerprint());
        assert_ne!(a.fingerprint(), SeedSet::default().fingerprint());
        let b = Budget {
            max_turns: Some(3),
            ..Default::default()
        }
        .effective();
        assert_eq!(
            (b.max_sessions, b.max_turns, b.min_interval_minutes),
            (8, 3, 30.0)
        );
    }
}
