//! The campaign operations: create, read, list, finalize, cancel and the
//! next period.

use crate::domain::campaign::plan::RUNS_PER_INSERT;
use crate::domain::campaign::scale;
use crate::domain::campaign::*;
use crate::domain::ids::{CampaignId, TargetId};
use crate::domain::scenario::Scenario;
use crate::error::{Error, ErrorCode, Result};
use crate::msg;
use crate::platform::Platform;
use crate::target::Target;
use chrono::Duration;
use std::sync::Arc;

impl Platform {
    /// Creates a campaign and schedules its runs. It is `running` when its
    /// window has begun, else `scheduled`.
    #[tracing::instrument(skip_all, fields(name = %req.name))]
    pub async fn create_campaign(&self, req: CreateCampaign) -> Result<Campaign> {
        let now = self.clock.now();
        let CheckedCampaign {
            name,
            target_id,
            plan,
            window_start: start,
            window_end: end,
            time_scale,
            seed_set,
            budget,
            previous_campaign_id,
            tool_env,
        } = req.parse(now)?;
        let target = self.campaign_target(target_id).await?;
        self.check_loaded(&plan)?;
        if let Some(id) = &tool_env {
            self.check_tool_env(id)?;
        }
        if let Some(prev) = previous_campaign_id {
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
            target_id,
            status,
            line: Line::of(time_scale),
            window_start: start,
            window_end: end,
            time_scale,
            seed_fingerprint: seed_set.fingerprint(),
            seed_set,
            effective_budget: budget.unwrap_or_default().effective(),
            budget,
            plan,
            last_patrolled_at: None,
            previous_campaign_id,
            tool_env,
            finalized_at: None,
            created_at: now,
            updated_at: now,
        };
        let rows = self.scheduled_runs(&schedule)?;
        // Runs go in by hundreds per statement: a campaign can plan
        // hundreds of thousands of them.
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

    /// That the scenario a campaign names as its sessions' tool
    /// environment is loaded and offers tools the engine plays.
    fn check_tool_env(&self, id: &str) -> Result<()> {
        match self.scenarios.get(id) {
            Some(s) if s.plays_tools() => Ok(()),
            Some(_) => Err(Error::invalid_msg(
                msg!("error-campaign-tool-env-no-tools", id = id),
                msg!("error-campaign-tool-env-suggestion"),
            )),
            None => Err(Error::invalid_msg(
                msg!("error-campaign-tool-env-missing", id = id),
                msg!("error-campaign-tool-env-suggestion"),
            )),
        }
    }

    /// The target a new campaign tests: it exists and is not archived.
    async fn campaign_target(&self, target_id: TargetId) -> Result<Target> {
        let target = self.get_target(target_id).await.map_err(|e| {
            if e.code() == ErrorCode::NotFound {
                Error::msg(
                    ErrorCode::NotFound,
                    msg!("error-campaign-target-missing", id = target_id.to_string()),
                    msg!("error-campaign-target-missing-suggestion"),
                )
            } else {
                e
            }
        })?;
        if target.archived_at.is_some() {
            return Err(Error::msg(
                ErrorCode::Conflict,
                msg!(
                    "error-campaign-target-archived",
                    name = target.name.as_str(),
                    id = target.id.to_string()
                ),
                msg!("error-campaign-target-archived-suggestion"),
            ));
        }
        Ok(target)
    }

    /// Every scenario of `plan` is loaded.
    fn check_loaded(&self, plan: &Plan) -> Result<()> {
        for entry in &plan.entries {
            if self.scenarios.get(&entry.scenario_id).is_none() {
                return Err(Error::msg(
                    ErrorCode::NotFound,
                    msg!("error-scenario-not-loaded", id = entry.scenario_id.as_str()),
                    msg!("error-scenario-not-loaded-suggestion"),
                ));
            }
        }
        Ok(())
    }

    /// Each scheduled run with its sequence number, offset and scenario.
    fn scheduled_runs(
        &self,
        schedule: &[(Duration, String)],
    ) -> Result<Vec<(usize, Duration, Arc<Scenario>)>> {
        let mut rows = Vec::with_capacity(schedule.len());
        for (seq, (offset, scenario_id)) in schedule.iter().enumerate() {
            let scenario = self.scenarios.get(scenario_id).ok_or_else(|| {
                Error::msg(
                    ErrorCode::NotFound,
                    msg!("error-scenario-not-loaded", id = scenario_id.as_str()),
                    msg!("error-scenario-not-loaded-suggestion"),
                )
            })?;
            rows.push((seq, *offset, scenario));
        }
        Ok(rows)
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

    /// What [`Platform::next_period`] would start: its window, its runs and
    /// the regression scenarios it adds.
    pub async fn next_period_plan(&self, campaign_id: CampaignId) -> Result<NextPeriodPlan> {
        let c = self.get_campaign(campaign_id).await?;
        let start = c.window_end.max(self.clock.now());
        let end = start + (c.window_end - c.window_start);
        let plan = self.plan_with_regressions(&c).await?;
        let runs = plan.expand(start, scale(end - start, c.time_scale))?.len() as u32;
        let added = plan.entries[c.plan.entries.len()..]
            .iter()
            .filter_map(|e| self.scenarios.get(&e.scenario_id))
            .map(|s| AddedScenario {
                id: s.id.clone(),
                title: s.title.clone(),
            })
            .collect();
        Ok(NextPeriodPlan {
            window_start: start,
            window_end: end,
            runs,
            added,
        })
    }

    /// Creates the following campaign from this one: same target, plan,
    /// seed set, budget and time scale; the next window of the same length,
    /// starting when this one ends (or now, if that is already past). Its
    /// name is the one asked for, else this one's marked as the next period
    /// in `lang`.
    pub async fn next_period(
        &self,
        campaign_id: CampaignId,
        req: NextPeriod,
        lang: crate::i18n::Lang,
    ) -> Result<Campaign> {
        let c = self.get_campaign(campaign_id).await?;
        let start = c.window_end.max(self.clock.now());
        let name = req.name.unwrap_or_else(|| {
            msg!("campaign-next-period-name", name = c.name.as_str()).render(lang)
        });
        self.create_campaign(CreateCampaign {
            name,
            target_id: c.target_id,
            plan: Some(self.plan_with_regressions(&c).await?),
            window_start: Some(start),
            window_end: Some(start + (c.window_end - c.window_start)),
            time_scale: Some(c.time_scale),
            seed_set: Some(c.seed_set.clone()),
            budget: c.budget,
            previous_campaign_id: Some(c.id.into()),
            tool_env: c.tool_env.clone(),
            ..Default::default()
        })
        .await
    }

    /// A campaign's plan, with every regression scenario drafted from a
    /// finding of a campaign of its target added once (those it already
    /// runs stay as they are): what exploration found is guarded from the
    /// next period on.
    async fn plan_with_regressions(&self, c: &Campaign) -> Result<Plan> {
        let mut plan = c.plan.clone();
        let promoted: Vec<String> = self
            .promoted_scenarios(c.target_id)
            .await?
            .into_iter()
            .map(|s| s.id)
            .filter(|id| !plan.entries.iter().any(|e| &e.scenario_id == id))
            .collect();
        plan.entries
            .extend(promoted.into_iter().map(|scenario_id| PlanEntry {
                scenario_id,
                rounds: None,
                every: None,
                at: None,
            }));
        Ok(plan)
    }

    /// The loaded scenarios drafted from a finding of a campaign of
    /// `target_id` (their lineage names the campaign), by id.
    pub async fn promoted_scenarios(&self, target_id: TargetId) -> Result<Vec<Scenario>> {
        let of_target: std::collections::HashSet<CampaignId> = self
            .list_campaigns()
            .await?
            .into_iter()
            .filter(|o| o.target_id == target_id)
            .map(|o| o.id)
            .collect();
        let mut promoted: Vec<Scenario> = self
            .scenarios
            .all()
            .iter()
            .filter(|s| {
                s.lineage
                    .as_ref()
                    .is_some_and(|l| of_target.contains(&l.campaign_id))
            })
            .map(|s| Scenario::clone(s))
            .collect();
        promoted.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(promoted)
    }
}
