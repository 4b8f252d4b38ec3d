//! Patrol: what a stateless agent needs, at each wake-up, to decide per
//! campaign whether to keep observing or to dispatch a session.
//!
//! Only running formal-line campaigns with a seed set take part; the
//! accelerated line is for manual debugging and a campaign without seeds
//! takes no part in exploration.

use super::session::{ExplorationSession, SessionStatus, campaign_running, min_interval};
use crate::campaign::{Campaign, EffectiveBudget, Line};
use crate::domain::ids::CampaignId;
use crate::domain::report::FixedSummary;
use crate::error::Result;
use crate::platform::Platform;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use uuid::Uuid;

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PatrolReport {
    pub generated_at: DateTime<Utc>,
    pub campaigns: Vec<PatrolCampaign>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PatrolTarget {
    pub id: Uuid,
    pub name: String,
}

/// One running formal campaign as the patrol sees it.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PatrolCampaign {
    pub id: CampaignId,
    pub name: String,
    pub target: PatrolTarget,
    pub window_start: DateTime<Utc>,
    pub window_end: DateTime<Utc>,
    /// The previous patrol (what "new" is relative to); `None` at the first.
    pub last_patrolled_at: Option<DateTime<Utc>>,
    /// Fixed-scenario results finished since the previous patrol, with the
    /// report's aggregation.
    pub new_results: FixedSummary,
    /// Exploration sessions started or changed since the previous patrol.
    pub new_sessions: Vec<PatrolSession>,
    pub budget_remaining: BudgetRemaining,
    pub seeds: PatrolSeeds,
    /// Persona x goal cells and what exploring them gave so far.
    pub coverage: Vec<CoverageState>,
    /// Seed cells with no session yet: the first candidates.
    pub uncovered: Vec<SeedCell>,
    /// Goals that some session did not achieve (failed, expired or closed
    /// with goal_achieved false): worth another try.
    pub failed_goals: Vec<FailedGoal>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PatrolSession {
    pub id: Uuid,
    pub status: SessionStatus,
    pub persona_id: Option<String>,
    pub goal_id: Option<String>,
    pub goal_achieved: Option<bool>,
    pub end_reason: Option<super::EndReason>,
    pub turn_count: u32,
    pub started_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct BudgetRemaining {
    pub max_sessions: u32,
    pub sessions_used: u32,
    pub sessions_remaining: u32,
    pub max_turns: u32,
    pub min_interval_minutes: f64,
    /// When the next session may start (now when it may start now);
    /// `None` when the session budget is used up.
    pub next_session_allowed_at: Option<DateTime<Utc>>,
    pub running_sessions: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct PatrolSeeds {
    pub personas: Vec<SeedSummary>,
    pub goals: Vec<SeedSummary>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SeedSummary {
    pub id: String,
    /// The persona's name or the goal's title.
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SeedCell {
    pub persona_id: String,
    pub goal_id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct CoverageState {
    pub persona_id: String,
    pub goal_id: String,
    pub sessions: u32,
    pub achieved: u32,
    pub not_achieved: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct FailedGoal {
    pub goal_id: String,
    pub attempts: u32,
    pub failures: u32,
}

/// Whether a campaign takes part in patrol now.
pub(crate) fn patrolled(c: &Campaign, now: DateTime<Utc>) -> bool {
    c.line == Line::Formal && campaign_running(c, now) && !c.seed_set.is_empty()
}

fn did_not_achieve(s: &ExplorationSession) -> bool {
    match s.status {
        SessionStatus::Running => false,
        SessionStatus::Completed => s.experience.as_ref().is_some_and(|e| !e.goal_achieved),
        SessionStatus::Failed | SessionStatus::Expired => true,
    }
}

fn budget_remaining(
    c: &Campaign,
    sessions: &[ExplorationSession],
    now: DateTime<Utc>,
) -> BudgetRemaining {
    let EffectiveBudget {
        max_sessions,
        max_turns,
        min_interval_minutes,
    } = c.effective_budget;
    let used = sessions.len() as u32;
    let remaining = max_sessions.saturating_sub(used);
    let next = (remaining > 0).then(|| {
        sessions
            .iter()
            .map(|s| s.started_at)
            .max()
            .map(|last| (last + min_interval(c)).max(now))
            .unwrap_or(now)
    });
    BudgetRemaining {
        max_sessions,
        sessions_used: used,
        sessions_remaining: remaining,
        max_turns,
        min_interval_minutes,
        next_session_allowed_at: next,
        running_sessions: sessions
            .iter()
            .filter(|s| s.status == SessionStatus::Running)
            .count() as u32,
    }
}

/// The lease under which one worker of a cluster wakes the patrol agent.
pub const PATROL_LEASE: &str = "patrol-agent";

impl Platform {
    /// Takes the cluster-wide patrol lease for one wake-up of the resident
    /// patrol agent, until almost `cadence` from now; `false` when another
    /// worker sharing the database holds it, so that the agent wakes once
    /// per cadence across the cluster, not once per worker. A worker that
    /// holds it keeps it at its next wake-up; another takes it once the
    /// holder missed one (stopped, or paused).
    pub async fn take_patrol_lease(&self, cadence: std::time::Duration) -> Result<bool> {
        let now = self.clock.now();
        // A second short of the cadence, so that the holder's next wake-up,
        // on time, finds its own lease and not yet a free one.
        let held =
            chrono::Duration::from_std(cadence.saturating_sub(std::time::Duration::from_secs(1)))
                .unwrap_or(chrono::Duration::MAX);
        self.store.take_lease(PATROL_LEASE, now, now + held).await
    }

    /// Running formal campaigns with what changed since the previous patrol;
    /// then records this patrol's time on each of them.
    #[tracing::instrument(skip(self))]
    pub async fn patrol(&self) -> Result<PatrolReport> {
        let now = self.clock.now();
        let mut campaigns = Vec::new();
        for (campaign, target_name) in self.store.formal_campaigns_open().await? {
            if !patrolled(&campaign, now) {
                continue;
            }
            let since = campaign.last_patrolled_at;
            let sessions = self.store.campaign_sessions(campaign.id).await?;
            let new_sessions = sessions
                .iter()
                .filter(|s| since.is_none_or(|t| s.updated_at > t))
                .map(|s| PatrolSession {
                    id: s.id.into(),
                    status: s.status,
                    persona_id: s.seed_ref.as_ref().map(|r| r.persona_id.clone()),
                    goal_id: s.seed_ref.as_ref().map(|r| r.goal_id.clone()),
                    goal_achieved: s.experience.as_ref().map(|e| e.goal_achieved),
                    end_reason: s.end_reason,
                    turn_count: s.turn_count,
                    started_at: s.started_at,
                })
                .collect();
            let mut coverage = Vec::new();
            let mut uncovered = Vec::new();
            for p in &campaign.seed_set.personas {
                for g in &campaign.seed_set.goals {
                    let cell: Vec<&ExplorationSession> = sessions
                        .iter()
                        .filter(|s| {
                            s.seed_ref
                                .as_ref()
                                .is_some_and(|r| r.persona_id == p.id && r.goal_id == g.id)
                        })
                        .collect();
                    if cell.is_empty() {
                        uncovered.push(SeedCell {
                            persona_id: p.id.clone(),
                            goal_id: g.id.clone(),
                        });
                    }
                    coverage.push(CoverageState {
                        persona_id: p.id.clone(),
                        goal_id: g.id.clone(),
                        sessions: cell.len() as u32,
                        achieved: cell
                            .iter()
                            .filter(|s| s.experience.as_ref().is_some_and(|e| e.goal_achieved))
                            .count() as u32,
                        not_achieved: cell.iter().filter(|s| did_not_achieve(s)).count() as u32,
                    });
                }
            }
            let mut by_goal: BTreeMap<String, (u32, u32)> = BTreeMap::new();
            for s in &sessions {
                if let Some(r) = &s.seed_ref
                    && s.status != SessionStatus::Running
                {
                    let e = by_goal.entry(r.goal_id.clone()).or_default();
                    e.0 += 1;
                    if did_not_achieve(s) {
                        e.1 += 1;
                    }
                }
            }
            let failed_goals = by_goal
                .into_iter()
                .filter(|(_, (_, failures))| *failures > 0)
                .map(|(goal_id, (attempts, failures))| FailedGoal {
                    goal_id,
                    attempts,
                    failures,
                })
                .collect();
            campaigns.push(PatrolCampaign {
                id: campaign.id,
                name: campaign.name.clone(),
                target: PatrolTarget {
                    id: campaign.target_id.into(),
                    name: target_name,
                },
                window_start: campaign.window_start,
                window_end: campaign.window_end,
                last_patrolled_at: since,
                new_results: self.fixed_summary(&campaign, since).await?,
                new_sessions,
                budget_remaining: budget_remaining(&campaign, &sessions, now),
                seeds: PatrolSeeds {
                    personas: campaign
                        .seed_set
                        .personas
                        .iter()
                        .map(|p| SeedSummary {
                            id: p.id.clone(),
                            title: p.name.clone(),
                        })
                        .collect(),
                    goals: campaign
                        .seed_set
                        .goals
                        .iter()
                        .map(|g| SeedSummary {
                            id: g.id.clone(),
                            title: g.title.clone(),
                        })
                        .collect(),
                },
                coverage,
                uncovered,
                failed_goals,
            });
        }
        let ids: Vec<CampaignId> = campaigns.iter().map(|c| c.id).collect();
        self.store.mark_patrolled(&ids, now).await?;
        self.audit_operation("exploration.patrol", None, "ok").await;
        Ok(PatrolReport {
            generated_at: now,
            campaigns,
        })
    }
}
