//! The campaign operations: create, read, list, finalize, cancel and the
//! next period.

use super::plan::RUNS_PER_INSERT;
use super::*;

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
                Error::invalid(
                    format!("target_id {} names no target", req.target_id),
                    "Create the target first (POST /api/targets) or pick one from GET /api/targets.",
                )
            } else {
                e
            }
        })?;
        if target.archived_at.is_some() {
            return Err(Error::invalid(
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
                return Err(Error::invalid(
                    format!("scenario {:?} is not loaded", entry.scenario_id),
                    "List the loaded scenarios with GET /api/scenarios and use their ids.",
                ));
            }
        }
        let now = self.clock.now();
        let start = req.window_start.unwrap_or(now);
        let end = match (req.window_end, req.duration_hours) {
            (Some(end), None) => end,
            (None, Some(h)) if h.is_finite() && h > 0.0 && h <= MAX_DURATION_HOURS => {
                start
                    + scale(
                        Duration::milliseconds((h * 3_600_000.0) as i64),
                        1.0 / time_scale,
                    )
            }
            (None, Some(h)) => {
                return Err(Error::invalid(
                    format!(
                        "duration_hours must be more than 0 and at most {MAX_DURATION_HOURS} (a year), got {h}"
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
            self.get_campaign(prev).await?;
        }
        let status = if start <= now {
            CampaignStatus::Running
        } else {
            CampaignStatus::Scheduled
        };
        let duration = scale(end - start, time_scale);
        let schedule = plan.expand(start, duration)?;
        let campaign = Campaign {
            id: self.ids.next_id(),
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
        let mut tx = self.store.pool.begin().await?;
        sqlx::query(
            "INSERT INTO campaigns (id, name, target_id, status, window_start, window_end, time_scale, plan,
                previous_campaign_id, created_at, updated_at, seed_set, budget, seed_fingerprint, models)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(campaign.id.to_string())
        .bind(&campaign.name)
        .bind(campaign.target_id.to_string())
        .bind(campaign.status.as_str())
        .bind(to_ms(start))
        .bind(to_ms(end))
        .bind(time_scale)
        .bind(serde_json::to_string(&campaign.plan)?)
        .bind(campaign.previous_campaign_id.map(|id| id.to_string()))
        .bind(to_ms(now))
        .bind(to_ms(now))
        .bind(serde_json::to_string(&campaign.seed_set)?)
        .bind(campaign.budget.map(|b| serde_json::to_string(&b)).transpose()?)
        .bind(&campaign.seed_fingerprint)
        .bind(serde_json::to_string(&self.models_for(&target))?)
        .execute(&mut *tx)
        .await?;
        // Runs go in by hundreds per statement: a campaign can plan
        // hundreds of thousands of them.
        let campaign_id = campaign.id.to_string();
        let mut rows = Vec::with_capacity(schedule.len());
        for (seq, (offset, scenario_id)) in schedule.iter().enumerate() {
            let scenario = self.scenarios.get(scenario_id).ok_or_else(|| {
                Error::invalid(
                    format!("scenario {scenario_id:?} is not loaded"),
                    "Reload the scenarios.",
                )
            })?;
            rows.push((seq, *offset, scenario));
        }
        for chunk in rows.chunks(RUNS_PER_INSERT) {
            let mut insert = sqlx::QueryBuilder::new(
                "INSERT INTO runs (id, campaign_id, scenario_id, scenario_hash, seq, offset_ms, scheduled_at, status, created_at) ",
            );
            insert.push_values(chunk, |mut row, (seq, offset, scenario)| {
                row.push_bind(self.ids.next_id().to_string())
                    .push_bind(&campaign_id)
                    .push_bind(scenario.id.as_str())
                    .push_bind(scenario.content_hash.as_str())
                    .push_bind(*seq as i64)
                    .push_bind(offset.num_milliseconds())
                    .push_bind(to_ms(campaign.real_time(*offset)))
                    .push("'pending'")
                    .push_bind(to_ms(now));
            });
            insert.build().execute(&mut *tx).await?;
        }
        tx.commit().await?;
        self.audit("platform", "campaign.create", Some(campaign.id), "ok")
            .await;
        self.notify(crate::platform::Event::CampaignChanged {
            campaign_id: campaign.id,
        });
        Ok(campaign)
    }

    pub async fn list_campaigns(&self) -> Result<Vec<Campaign>> {
        let rows = sqlx::query("SELECT * FROM campaigns ORDER BY created_at DESC, id DESC")
            .fetch_all(&self.store.pool)
            .await?;
        rows.iter().map(campaign_from_row).collect()
    }

    pub async fn get_campaign(&self, id: Uuid) -> Result<Campaign> {
        let row = sqlx::query("SELECT * FROM campaigns WHERE id = ?")
            .bind(id.to_string())
            .fetch_optional(&self.store.pool)
            .await?
            .ok_or_else(|| Error::not_found("campaign", id))?;
        campaign_from_row(&row)
    }

    /// Ends the campaign's window now: the plan stops (runs not started are
    /// marked `skipped`), running exploration sessions expire. Idempotent:
    /// finalizing a finalized campaign returns it unchanged.
    #[tracing::instrument(skip(self))]
    pub async fn finalize_campaign(&self, id: Uuid) -> Result<Campaign> {
        let campaign = self.get_campaign(id).await?;
        if matches!(
            campaign.status,
            CampaignStatus::Finalized | CampaignStatus::Cancelled
        ) {
            return Ok(campaign);
        }
        let now = to_ms(self.clock.now());
        let finalize = move |conn: &rusqlite::Connection| {
            let id = id.to_string();
            let changed = conn.execute(
                "UPDATE campaigns SET status = 'finalized', finalized_at = ?1, updated_at = ?1
                 WHERE id = ?2 AND status NOT IN ('finalized', 'cancelled')",
                rusqlite::params![now, id],
            )?;
            if changed > 0 {
                crate::tally::RunTallies::finish_bare(
                    conn,
                    "UPDATE runs SET status = 'done', verdict = 'skipped', error_reason = 'window_ended', finished_at = ?1
                     WHERE campaign_id = ?2 AND status = 'pending'
                     RETURNING id, campaign_id, scenario_id, offset_ms",
                    rusqlite::params![now, id],
                    crate::fixed::Verdict::Skipped,
                    "window_ended",
                )?;
                conn.execute(
                    "UPDATE exploration_sessions SET status = 'expired', end_reason = 'expired', ended_at = ?1, updated_at = ?1
                     WHERE campaign_id = ?2 AND status = 'running'",
                    rusqlite::params![now, id],
                )?;
                crate::exploration::simulator_faults::check_unchecked(conn, Some(id.as_str()))?;
            }
            Ok(changed)
        };
        let changed = self.store.writer.transact(finalize).await?;
        if changed > 0 {
            self.audit("platform", "campaign.finalize", Some(id), "ok")
                .await;
            self.notify(crate::platform::Event::CampaignChanged { campaign_id: id });
        }
        self.get_campaign(id).await
    }
}

pub(crate) fn campaign_from_row(row: &sqlx::sqlite::SqliteRow) -> Result<Campaign> {
    let time_scale: f64 = row.try_get("time_scale")?;
    let budget: Option<Budget> = row
        .try_get::<Option<String>, _>("budget")?
        .map(|s| serde_json::from_str(&s))
        .transpose()?;
    Ok(Campaign {
        id: parse_id(row.try_get("id")?)?,
        name: row.try_get("name")?,
        target_id: parse_id(row.try_get("target_id")?)?,
        status: CampaignStatus::parse(row.try_get("status")?)?,
        line: Line::of(time_scale),
        window_start: from_ms(row.try_get("window_start")?),
        window_end: from_ms(row.try_get("window_end")?),
        time_scale,
        plan: serde_json::from_str(row.try_get("plan")?)?,
        seed_set: serde_json::from_str(row.try_get("seed_set")?)?,
        effective_budget: budget.unwrap_or_default().effective(),
        budget,
        seed_fingerprint: row.try_get("seed_fingerprint")?,
        last_patrolled_at: row
            .try_get::<Option<i64>, _>("last_patrolled_at")?
            .map(from_ms),
        previous_campaign_id: row
            .try_get::<Option<String>, _>("previous_campaign_id")?
            .map(|s| parse_id(&s))
            .transpose()?,
        finalized_at: row.try_get::<Option<i64>, _>("finalized_at")?.map(from_ms),
        created_at: from_ms(row.try_get("created_at")?),
        updated_at: from_ms(row.try_get("updated_at")?),
    })
}
