//! Campaigns: their rows, the runs planned with them, and finalizing a
//! campaign in the writer's transaction.

use super::sql::{Row, Sql, args};
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
use std::sync::Arc;
use uuid::Uuid;

/// Inserts a chunk of planned runs, given as one JSON array of
/// `[id, scenario_id, scenario_hash, seq, offset_ms, scheduled_at]`, with
/// the campaign's id and creation time: one statement and one parameter
/// per chunk, whatever its size.
const INSERT_RUNS: Sql = Sql::dialects(
    "INSERT INTO runs (id, campaign_id, scenario_id, scenario_hash, seq, offset_ms, scheduled_at, status, created_at)
     SELECT value ->> 0, ?, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, 'pending', ?
     FROM json_each(?)",
    "INSERT INTO runs (id, campaign_id, scenario_id, scenario_hash, seq, offset_ms, scheduled_at, status, created_at)
     SELECT r ->> 0, CAST(? AS TEXT), r ->> 1, r ->> 2, CAST(r ->> 3 AS BIGINT), CAST(r ->> 4 AS BIGINT),
            CAST(r ->> 5 AS BIGINT), 'pending', CAST(? AS BIGINT)
     FROM jsonb_array_elements(CAST(? AS jsonb)) AS r",
);

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
        let (name, target_id, status) = (
            campaign.name.clone(),
            campaign.target_id.to_string(),
            campaign.status.as_str(),
        );
        let (window_start, window_end, time_scale) = (
            to_ms(campaign.window_start),
            to_ms(campaign.window_end),
            campaign.time_scale,
        );
        let plan = serde_json::to_string(&campaign.plan).with_context(doing)?;
        let previous = campaign.previous_campaign_id.map(|id| id.to_string());
        let (created_at, updated_at) = (to_ms(campaign.created_at), to_ms(campaign.updated_at));
        let seed_set = serde_json::to_string(&campaign.seed_set).with_context(doing)?;
        let budget = campaign
            .budget
            .map(|b| serde_json::to_string(&b))
            .transpose()
            .with_context(doing)?;
        let fingerprint = campaign.seed_fingerprint.clone();
        let tool_env = campaign.tool_env.clone();
        let models = serde_json::to_string(models).with_context(doing)?;
        // The chunks of planned runs, each one JSON array of rows.
        let chunks = runs
            .chunks(runs_per_insert.max(1))
            .map(|chunk| {
                serde_json::to_string(
                    &chunk
                        .iter()
                        .map(|(seq, offset, scenario)| {
                            serde_json::json!([
                                new_id().to_string(),
                                scenario.id,
                                scenario.content_hash,
                                *seq as i64,
                                offset.num_milliseconds(),
                                to_ms(campaign.real_time(*offset)),
                            ])
                        })
                        .collect::<Vec<_>>(),
                )
            })
            .collect::<serde_json::Result<Vec<String>>>()
            .with_context(doing)?;
        self.write(move |c| {
            let campaign_id = id.to_string();
            c.exec(
                "INSERT INTO campaigns (id, name, target_id, status, window_start, window_end, time_scale, plan,
                    previous_campaign_id, created_at, updated_at, seed_set, budget, seed_fingerprint, models,
                    tool_env)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                args![
                    &campaign_id,
                    name,
                    target_id,
                    status,
                    window_start,
                    window_end,
                    time_scale,
                    plan,
                    previous,
                    created_at,
                    updated_at,
                    seed_set,
                    budget,
                    fingerprint,
                    models,
                    tool_env,
                ],
            )
            .with_context(doing)?;
            for chunk in &chunks {
                c.exec(INSERT_RUNS, args![&campaign_id, created_at, chunk])
                    .with_context(|| format!("store: inserting the planned runs of campaign {id}"))?;
            }
            Ok(())
        })
        .await
    }

    /// Every campaign, newest first.
    pub async fn campaigns(&self) -> Result<Vec<Campaign>> {
        self.read(|c| {
            c.rows(
                "SELECT * FROM campaigns ORDER BY created_at DESC, id DESC",
                args![],
                campaign_from_row,
            )
        })
        .await
        .context("store: reading the campaigns")
    }

    /// The campaign `id`, if there is one.
    pub async fn campaign(&self, id: CampaignId) -> Result<Option<Campaign>> {
        // On the hot path: each session start and scheduler step.
        self.read_one(move |c| {
            c.row(
                "SELECT * FROM campaigns WHERE id = ?",
                args![id.to_string()],
                campaign_from_row,
            )
        })
        .await
        .context("store: reading a campaign")
    }

    /// The scenario a campaign's exploration sessions take their tools
    /// from, if it names one; `None` for no such campaign too.
    pub async fn campaign_tool_env(&self, id: CampaignId) -> Result<Option<String>> {
        self.read(move |c| {
            c.row(
                "SELECT tool_env FROM campaigns WHERE id = ?",
                args![id.to_string()],
                |r| Ok(r.text(0)?.map(str::to_string)),
            )
        })
        .await
        .map(Option::flatten)
        .context("store: reading a campaign's tool environment")
    }
}

impl Tx<'_> {
    /// Locks campaign `id` until the end of the transaction, so that the
    /// budget decisions on one campaign take turns, and returns its status
    /// now (`None` for no such campaign): taken first, before the decision
    /// reads anything else. On PostgreSQL the campaign's row is locked
    /// (`SELECT ... FOR NO KEY UPDATE`), and a decision on the same
    /// campaign in another transaction, of this process or another, waits
    /// until this one commits or rolls back. The mode is the one that does
    /// not conflict with the key-share locks that foreign keys take: a
    /// transaction inserting rows of the campaign (a tally, a turn, a host)
    /// neither waits for a decision nor makes it wait, so that the two can
    /// never wait on each other in a circle (`FOR UPDATE` did: a decision
    /// queued behind a judge review's tally insert deadlocked with it).
    /// On SQLite nothing is locked: the writer thread runs one transaction
    /// at a time, which serialises the decisions already.
    pub fn lock_campaign(&self, id: CampaignId) -> Result<Option<CampaignStatus>> {
        let doing = "store: locking a campaign for a decision";
        let sql = Sql::dialects(
            "SELECT status FROM campaigns WHERE id = ?",
            "SELECT status FROM campaigns WHERE id = ? FOR NO KEY UPDATE",
        );
        let status: Option<String> = self
            .0
            .row(sql, args![id.to_string()], |r| r.get(0))
            .context(doing)?;
        status
            .map(|s| CampaignStatus::parse(&s))
            .transpose()
            .context(doing)
    }

    /// [`Tx::lock_campaign`] on the campaign of session `id` (a session
    /// never changes campaign): how a decision on a session's close takes
    /// its turn.
    pub fn lock_campaign_of_session(&self, id: SessionId) -> Result<()> {
        if self.0.is_postgres() {
            self.0
                .row(
                    "SELECT c.id FROM campaigns c JOIN exploration_sessions s ON s.campaign_id = c.id
                     WHERE s.id = ? FOR NO KEY UPDATE OF c",
                    args![id.to_string()],
                    |_| Ok(()),
                )
                .context("store: locking a session's campaign for a decision")?;
        }
        Ok(())
    }

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
        let c = &self.0;
        let now = to_ms(now);
        let key = id.to_string();
        let changed = c
            .exec(
                "UPDATE campaigns SET status = 'finalized', finalized_at = ?, updated_at = ?
                 WHERE id = ? AND status NOT IN ('finalized', 'cancelled')",
                args![now, now, &key],
            )
            .with_context(doing)?;
        if changed > 0 {
            crate::tallies::RunTallies::finish_bare(
                c,
                "UPDATE runs SET status = 'done', verdict = 'skipped', error_reason = 'window_ended', finished_at = ?
                 WHERE campaign_id = ? AND status = 'pending'
                 RETURNING id, campaign_id, scenario_id, offset_ms",
                args![now, key.as_str()],
                agenteval_domain::run::Verdict::Skipped,
                "window_ended",
            )
            .with_context(doing)?;
            let running: Vec<SessionId> = c
                .rows(
                    "SELECT id FROM exploration_sessions WHERE campaign_id = ? AND status = 'running'",
                    args![&key],
                    |r| Ok(SessionId(r.uuid(0)?)),
                )
                .with_context(doing)?;
            crate::session_tallies::retally(c, &running, || {
                c.exec(
                    "UPDATE exploration_sessions SET status = 'expired', end_reason = 'expired', ended_at = ?, updated_at = ?
                     WHERE campaign_id = ? AND status = 'running'",
                    args![now, now, &key],
                )
                .with_context(doing)
            })?;
            self.check_unchecked_sessions(Some(CampaignId(id)), check)
                .with_context(doing)?;
        }
        Ok(changed > 0)
    }
}

/// A campaign from its row (`SELECT *` of `campaigns`).
pub fn campaign_from_row(row: &Row<'_>) -> Result<Campaign> {
    let time_scale: f64 = row.get("time_scale")?;
    let budget: Option<Budget> = row.text("budget")?.map(serde_json::from_str).transpose()?;
    Ok(Campaign {
        id: parse_id(row.str("id")?)?,
        name: row.get("name")?,
        target_id: parse_id(row.str("target_id")?)?,
        status: CampaignStatus::parse(row.str("status")?)?,
        line: Line::of(time_scale),
        window_start: from_ms(row.get("window_start")?),
        window_end: from_ms(row.get("window_end")?),
        time_scale,
        plan: serde_json::from_str(row.str("plan")?)?,
        seed_set: serde_json::from_str(row.str("seed_set")?)?,
        effective_budget: budget.unwrap_or_default().effective(),
        budget,
        seed_fingerprint: row.get("seed_fingerprint")?,
        last_patrolled_at: row.get::<Option<i64>>("last_patrolled_at")?.map(from_ms),
        previous_campaign_id: row
            .text("previous_campaign_id")?
            .map(parse_id)
            .transpose()?,
        tool_env: row.text("tool_env")?.map(str::to_string),
        finalized_at: row.get::<Option<i64>>("finalized_at")?.map(from_ms),
        created_at: from_ms(row.get("created_at")?),
        updated_at: from_ms(row.get("updated_at")?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agenteval_domain::campaign::Plan;
    use agenteval_domain::ids::TargetId;
    use agenteval_domain::models::{OutputMode, Role};
    use agenteval_domain::provenance::{Contacts, HostRole};
    use agenteval_domain::target::Target;

    fn target() -> Target {
        Target {
            id: TargetId(Uuid::now_v7()),
            name: "demo".into(),
            channel: serde_json::from_value(serde_json::json!({
                "kind": "openai", "base_url": "http://127.0.0.1:1", "model": "m",
            }))
            .unwrap(),
            concurrency: 4,
            rate_per_second: None,
            timeout_ms: 1000,
            max_retries: 2,
            price_in_per_mtok: 0.0,
            price_out_per_mtok: 0.0,
            created_at: from_ms(0),
            updated_at: from_ms(0),
            archived_at: None,
        }
    }

    fn campaign(target: TargetId) -> Campaign {
        Campaign {
            id: CampaignId(Uuid::now_v7()),
            name: "c".into(),
            target_id: target,
            status: CampaignStatus::Running,
            line: Line::of(1.0),
            window_start: from_ms(0),
            window_end: from_ms(3_600_000),
            time_scale: 1.0,
            plan: Plan::default(),
            seed_set: Default::default(),
            budget: None,
            effective_budget: Budget::default().effective(),
            seed_fingerprint: "f".into(),
            last_patrolled_at: None,
            previous_campaign_id: None,
            tool_env: None,
            finalized_at: None,
            created_at: from_ms(5),
            updated_at: from_ms(5),
        }
    }

    fn scenario() -> Arc<Scenario> {
        Arc::new(
            serde_json::from_value(serde_json::json!({
                "id": "s \"quoted\"", "title": "t", "pack": "p", "turns": [],
                "source_file": "p/s.yaml", "source_line": 1, "content_hash": "h",
            }))
            .unwrap(),
        )
    }

    #[tokio::test]
    async fn a_campaign_is_stored_with_its_runs_in_chunks_and_finalized_once() {
        let dir = tempfile::tempdir().unwrap();
        let contacts = Arc::new(Contacts::default());
        let store = Store::open(dir.path(), contacts.clone()).await.unwrap();
        let target = target();
        store.insert_target(&target).await.unwrap();
        let campaign = campaign(target.id);
        let runs: Vec<_> = (0..5)
            .map(|seq| (seq, Duration::minutes(seq as i64), scenario()))
            .collect();
        store
            .insert_campaign(&campaign, &ModelsUsed::default(), &runs, 2, Uuid::now_v7)
            .await
            .unwrap();
        let stored = store.campaign(campaign.id).await.unwrap().unwrap();
        assert_eq!(stored.seed_fingerprint, "f");
        assert_eq!(store.campaigns().await.unwrap().len(), 1);
        assert_eq!(store.formal_campaigns_open().await.unwrap().len(), 1);

        store
            .set_output_mode(campaign.id, Role::Judge, OutputMode::JsonObject)
            .await
            .unwrap();
        let models = store.models_used(campaign.id).await.unwrap();
        assert_eq!(models.output_modes.judge, Some(OutputMode::JsonObject));

        store
            .mark_patrolled(&[campaign.id], from_ms(77))
            .await
            .unwrap();
        let stored = store.campaign(campaign.id).await.unwrap().unwrap();
        assert_eq!(stored.last_patrolled_at, Some(from_ms(77)));

        contacts.note(campaign.id.0, HostRole::Target, "http://h:1", None);
        store.transact(|_| Ok(())).await.unwrap();
        contacts.note(campaign.id.0, HostRole::Target, "http://h:1", None);
        let id = campaign.id;
        let finalized = store
            .transact(move |tx| {
                Ok((
                    tx.finalize_campaign(id.0, from_ms(10), |_| Vec::new())?,
                    tx.finalize_campaign(id.0, from_ms(11), |_| Vec::new())?,
                ))
            })
            .await
            .unwrap();
        assert_eq!(finalized, (true, false), "finalized once");
        let provenance = store
            .snapshot(move |read| read.provenance(id))
            .await
            .unwrap();
        assert_eq!(provenance.hosts.len(), 1);
        assert_eq!(provenance.hosts[0].requests, 2, "counts add up");
        let skipped: (i64, String, i64) = store
            .read(|c| {
                Ok(c.row(
                    "SELECT count(*), min(scenario_id), max(seq) FROM runs
                     WHERE verdict = 'skipped' AND error_reason = 'window_ended'",
                    crate::sql::args![],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )?
                .unwrap())
            })
            .await
            .unwrap();
        assert_eq!(
            skipped,
            (5, "s \"quoted\"".to_string(), 4),
            "every run ends skipped"
        );
        let outcomes = store.run_outcomes(campaign.id).await.unwrap();
        assert!(outcomes.is_empty(), "skipped runs are no outcomes");
        assert!(!store.delete_unused_target(target.id).await.unwrap());
        store
            .transact(move |tx| tx.lock_campaign(id))
            .await
            .unwrap();
    }
}
