//! Campaigns: their rows, the runs planned with them, and finalizing a
//! campaign in the writer's transaction.

use super::{Store, Tx};
use agenteval_domain::campaign::{Budget, Campaign, CampaignStatus, Line};
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::judge::SessionForReview;
use agenteval_domain::parse_id;
use agenteval_domain::report::ModelsUsed;
use agenteval_domain::scenario::Scenario;
use agenteval_domain::session::SimulatorFault;
use chrono::{DateTime, Duration, Utc};
use sqlx::Row;
use std::sync::Arc;
use uuid::Uuid;

impl Store {
    /// Stores a new campaign with the models it records and its planned
    /// runs (`(seq, offset, scenario)` each, the run's id from `new_id`),
    /// `runs_per_insert` per statement, in one transaction.
    pub async fn insert_campaign(
        &self,
        campaign: &Campaign,
        models: &ModelsUsed,
        runs: &[(usize, Duration, Arc<Scenario>)],
        runs_per_insert: usize,
        new_id: impl Fn() -> Uuid,
    ) -> Result<()> {
        let id = campaign.id;
        let doing = move || format!("store: inserting campaign {id}");
        let mut tx = self.sqlite_pool()?.begin().await.with_context(doing)?;
        sqlx::query(
            "INSERT INTO campaigns (id, name, target_id, status, window_start, window_end, time_scale, plan,
                previous_campaign_id, created_at, updated_at, seed_set, budget, seed_fingerprint, models)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(campaign.id.to_string())
        .bind(&campaign.name)
        .bind(campaign.target_id.to_string())
        .bind(campaign.status.as_str())
        .bind(to_ms(campaign.window_start))
        .bind(to_ms(campaign.window_end))
        .bind(campaign.time_scale)
        .bind(serde_json::to_string(&campaign.plan)?)
        .bind(campaign.previous_campaign_id.map(|id| id.to_string()))
        .bind(to_ms(campaign.created_at))
        .bind(to_ms(campaign.updated_at))
        .bind(serde_json::to_string(&campaign.seed_set)?)
        .bind(campaign.budget.map(|b| serde_json::to_string(&b)).transpose()?)
        .bind(&campaign.seed_fingerprint)
        .bind(serde_json::to_string(models)?)
        .execute(&mut *tx)
        .await
        .with_context(doing)?;
        let campaign_id = campaign.id.to_string();
        for chunk in runs.chunks(runs_per_insert) {
            let mut insert = sqlx::QueryBuilder::new(
                "INSERT INTO runs (id, campaign_id, scenario_id, scenario_hash, seq, offset_ms, scheduled_at, status, created_at) ",
            );
            insert.push_values(chunk, |mut row, (seq, offset, scenario)| {
                row.push_bind(new_id().to_string())
                    .push_bind(&campaign_id)
                    .push_bind(scenario.id.as_str())
                    .push_bind(scenario.content_hash.as_str())
                    .push_bind(*seq as i64)
                    .push_bind(offset.num_milliseconds())
                    .push_bind(to_ms(campaign.real_time(*offset)))
                    .push("'pending'")
                    .push_bind(to_ms(campaign.created_at));
            });
            insert
                .build()
                .execute(&mut *tx)
                .await
                .with_context(|| format!("store: inserting the planned runs of campaign {id}"))?;
        }
        tx.commit().await.with_context(doing)?;
        Ok(())
    }

    /// Every campaign, newest first.
    pub async fn campaigns(&self) -> Result<Vec<Campaign>> {
        let doing = "store: reading the campaigns";
        let rows = sqlx::query("SELECT * FROM campaigns ORDER BY created_at DESC, id DESC")
            .fetch_all(self.sqlite_pool()?)
            .await
            .context(doing)?;
        rows.iter()
            .map(campaign_from_row)
            .collect::<Result<_>>()
            .context(doing)
    }

    /// The campaign `id`, if there is one.
    pub async fn campaign(&self, id: CampaignId) -> Result<Option<Campaign>> {
        // On the hot path: each session start and scheduler step.
        let doing = "store: reading a campaign";
        sqlx::query("SELECT * FROM campaigns WHERE id = ?")
            .bind(id.to_string())
            .fetch_optional(self.sqlite_pool()?)
            .await
            .context(doing)?
            .map(|row| campaign_from_row(&row))
            .transpose()
            .context(doing)
    }
}

impl Tx<'_> {
    /// Finalizes campaign `id` at `now` unless it is finalized or cancelled:
    /// its pending runs end `skipped` (`window_ended`), its running sessions
    /// expire and the simulator faults left unchecked are checked with
    /// `check`. Whether it was finalized now.
    pub fn finalize_campaign(
        &self,
        id: Uuid,
        now: DateTime<Utc>,
        check: impl Fn(&SessionForReview) -> Vec<SimulatorFault>,
    ) -> Result<bool> {
        let doing = move || format!("store: finalizing campaign {id}");
        let conn = self.sqlite()?;
        let now = to_ms(now);
        let key = id.to_string();
        let changed = conn
            .execute(
                "UPDATE campaigns SET status = 'finalized', finalized_at = ?1, updated_at = ?1
             WHERE id = ?2 AND status NOT IN ('finalized', 'cancelled')",
                rusqlite::params![now, key],
            )
            .with_context(doing)?;
        if changed > 0 {
            crate::tallies::RunTallies::finish_bare(
                &crate::sql::Conn::Sqlite(conn),
                "UPDATE runs SET status = 'done', verdict = 'skipped', error_reason = 'window_ended', finished_at = ?1
                 WHERE campaign_id = ?2 AND status = 'pending'
                 RETURNING id, campaign_id, scenario_id, offset_ms",
                crate::sql::args![now, &key],
                agenteval_domain::run::Verdict::Skipped,
                "window_ended",
            )
            .with_context(doing)?;
            let running: Vec<SessionId> = conn
                .prepare(
                    "SELECT id FROM exploration_sessions WHERE campaign_id = ? AND status = 'running'",
                )
                .and_then(|mut st| {
                    st.query_map([&key], |r| crate::uuid_at(r, 0).map(SessionId))?
                        .collect::<rusqlite::Result<_>>()
                })
                .with_context(doing)?;
            crate::session_tallies::retally(conn, &running, || {
                conn.execute(
                    "UPDATE exploration_sessions SET status = 'expired', end_reason = 'expired', ended_at = ?1, updated_at = ?1
                     WHERE campaign_id = ?2 AND status = 'running'",
                    rusqlite::params![now, key],
                )
                .with_context(doing)
            })?;
            self.check_unchecked_sessions(Some(CampaignId(id)), check)
                .with_context(doing)?;
        }
        Ok(changed > 0)
    }
}

pub fn campaign_from_row(row: &sqlx::sqlite::SqliteRow) -> Result<Campaign> {
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
