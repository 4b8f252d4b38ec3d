//! The campaign operations: create, read, list, finalize, cancel and the
//! next period.

use crate::domain::campaign::plan::RUNS_PER_INSERT;
use crate::domain::campaign::scale;
use crate::domain::campaign::*;
use crate::domain::ids::CampaignId;
use crate::error::{Error, ErrorCode, Result};
use crate::platform::Platform;
use chrono::Duration;

impl Platform {
    /// Creates a campaign and schedules its runs. It is `running` when its
    /// window has begun, else `scheduled`.
    #[tracing::instrument(skip_all, fields(name = %req.name))]
    pub async fn create_campaign(&self, req: CreateCampaign) -> Result<Campaign> {
        let name = req.name.trim().to_string();
        if name.is_empty() || name.chars().count() > 200 {
            return Err(Error::invalid(
                "campaign name must be 1-200 characters",
                "Name the campaign after what it evaluates and when, e.g. \"support bot, week 48\".",
            ));
        }
        let target = self.get_target(req.target_id).await.map_err(|e| {
            if e.code() == ErrorCode::NotFound {
                Error::new(
                    ErrorCode::NotFound,
                    format!("target_id {} names no target", req.target_id),
                    "Create the target first (POST /api/targets) or pick one from GET /api/targets.",
                )
            } else {
                e
            }
        })?;
        if target.archived_at.is_some() {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!("target {} ({}) is archived", target.name, target.id),
                "Pick a target in use (GET /api/targets) or create a new one.",
            ));
        }
        let time_scale = req.time_scale.unwrap_or(1.0);
        if !(time_scale.is_finite() && (1.0..=MAX_TIME_SCALE).contains(&time_scale)) {
            return Err(Error::invalid(
                format!("time_scale must be from 1 to {MAX_TIME_SCALE}, got {time_scale}"),
                "Use 1 for the formal line, or e.g. 168 to run a week in an hour.",
            ));
        }
        let plan = match (req.plan, req.scenario_ids) {
            (Some(_), Some(_)) => {
                return Err(Error::invalid(
                    "give either scenario_ids or plan, not both",
                    "Use scenario_ids to run each scenario once, or a plan for rounds and periods.",
                ));
            }
            (Some(p), None) => p,
            (None, Some(ids)) => Plan::from_scenario_ids(&ids),
            (None, None) => Plan::default(),
        };
        plan.validate()?;
        for entry in &plan.entries {
            if self.scenarios.get(&entry.scenario_id).is_none() {
                return Err(Error::new(
                    ErrorCode::NotFound,
                    format!("scenario {:?} is not loaded", entry.scenario_id),
                    "List the loaded scenarios with GET /api/scenarios and use their ids.",
                ));
            }
        }
        let now = self.clock.now();
        let start = req.window_start.unwrap_or(now);
        let end = match (req.window_end, req.duration_hours) {
            (Some(end), None) => end,
            (None, Some(h))
                if h.is_finite() && (MIN_DURATION_HOURS..=MAX_DURATION_HOURS).contains(&h) =>
            {
                start
                    + scale(
                        Duration::milliseconds((h * 3_600_000.0) as i64),
                        1.0 / time_scale,
                    )
            }
            (None, Some(h)) => {
                return Err(Error::invalid(
                    format!(
                        "duration_hours must be from {MIN_DURATION_HOURS} (36 seconds) to {MAX_DURATION_HOURS} (a year), got {h}"
                    ),
                    "E.g. 168 for a one-week window.",
                ));
            }
            (Some(_), Some(_)) => {
                return Err(Error::invalid(
                    "give either window_end or duration_hours, not both",
                    "duration_hours is campaign time; window_end is the real end.",
                ));
            }
            (None, None) => {
                return Err(Error::invalid(
                    "the campaign needs a window: window_end or duration_hours",
                    "E.g. duration_hours: 168 for a one-week window.",
                ));
            }
        };
        if end <= start {
            return Err(Error::invalid(
                "window_end must be after window_start",
                "Check the dates, or use duration_hours.",
            ));
        }
        let seed_set = req.seed_set.unwrap_or_default();
        seed_set.validate()?;
        if let Some(b) = &req.budget {
            b.validate()?;
        }
        if plan.entries.is_empty() && seed_set.is_empty() {
            return Err(Error::invalid(
                "the campaign has nothing to evaluate: no scenario, and no persona and goal to explore",
                "Add at least one scenario, or a persona and a goal.",
            ));
        }
        if let Some(prev) = req.previous_campaign_id {
            self.get_campaign(CampaignId(prev)).await?;
        }
        let status = if start <= now {
            CampaignStatus::Running
        } else {
            CampaignStatus::Scheduled
        };
        let duration = scale(end - start, time_scale);
        let schedule = plan.expand(start, duration)?;
        let campaign = Campaign {
            id: CampaignId(self.ids.next_id()),
            name,
            target_id: req.target_id,
            status,
            line: Line::of(time_scale),
            window_start: start,
            window_end: end,
            time_scale,
            seed_fingerprint: seed_set.fingerprint(),
            seed_set,
            effective_budget: req.budget.unwrap_or_default().effective(),
            budget: req.budget,
            plan,
            last_patrolled_at: None,
            previous_campaign_id: req.previous_campaign_id,
            finalized_at: None,
            created_at: now,
            updated_at: now,
        };
        // Runs go in by hundreds per statement: a campaign can plan
        // hundreds of thousands of them.
        let mut rows = Vec::with_capacity(schedule.len());
        for (seq, (offset, scenario_id)) in schedule.iter().enumerate() {
            let scenario = self.scenarios.get(scenario_id).ok_or_else(|| {
                Error::new(
                    ErrorCode::NotFound,
                    format!("scenario {scenario_id:?} is not loaded"),
                    "Reload the scenarios.",
                )
            })?;
            rows.push((seq, *offset, scenario));
        }
        self.store
            .insert_campaign(
                &campaign,
                &self.models_for(&target),
                &rows,
                RUNS_PER_INSERT,
                || self.ids.next_id(),
            )
            .await?;
        self.audit_operation("campaign.create", Some(campaign.id.into()), "ok")
            .await;
        self.notify(crate::platform::Event::CampaignChanged {
            campaign_id: campaign.id,
        });
        Ok(campaign)
    }

    pub async fn list_campaigns(&self) -> Result<Vec<Campaign>> {
        self.store.campaigns().await
    }

    pub async fn get_campaign(&self, id: CampaignId) -> Result<Campaign> {
        self.store
            .campaign(id)
            .await?
            .ok_or_else(|| Error::not_found("campaign", id))
    }

    /// Ends the campaign's window now: the plan stops (runs not started are
    /// marked `skipped`), running exploration sessions expire. Idempotent:
    /// finalizing a finalized campaign returns it unchanged.
    #[tracing::instrument(skip(self))]
    pub async fn finalize_campaign(&self, id: CampaignId) -> Result<Campaign> {
        let campaign = self.get_campaign(id).await?;
        if matches!(
            campaign.status,
            CampaignStatus::Finalized | CampaignStatus::Cancelled
        ) {
            return Ok(campaign);
        }
        let now = self.clock.now();
        let changed = self
            .store
            .transact(move |tx| {
                tx.finalize_campaign(id.into(), now, crate::exploration::simulator_faults::check)
            })
            .await?;
        if changed {
            self.audit_operation("campaign.finalize", Some(id.into()), "ok")
                .await;
            self.notify(crate::platform::Event::CampaignChanged { campaign_id: id });
        }
        self.get_campaign(id).await
    }
}
