//! The calibration queries of fixed runs: runs whose checks include a
//! rubric that nobody labelled, and people's blind labels of the judge's
//! rubric scores (one row per rubric check).

use super::Store;
use agenteval_domain::calibration::RunLabel;
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, RunId};
use agenteval_domain::parse_id;
use sqlx::Row;
use sqlx::sqlite::SqliteRow;
use uuid::Uuid;

/// Picks out runs with a rubric check result cheaply (the stored check
/// results are compact JSON written by serde); the engine reads the JSON.
const HAS_RUBRIC: &str = "instr(r.check_results, '\"kind\":\"rubric\"') > 0";

/// A finished run with rubric check results, and the stored definition of
/// its scenario (for the rubric texts).
pub struct RubricRun {
    pub id: Uuid,
    pub campaign_id: CampaignId,
    pub scenario_id: String,
    /// `None` when the scenario is no longer stored.
    pub scenario_title: Option<String>,
    /// The scenario's stored definition (JSON).
    pub scenario_definition: Option<String>,
    /// The run's check results (JSON).
    pub check_results: String,
}

fn rubric_run(r: &SqliteRow) -> Result<RubricRun> {
    Ok(RubricRun {
        id: parse_id(r.try_get("id")?)?,
        campaign_id: parse_id(r.try_get("campaign_id")?)?,
        scenario_id: r.try_get("scenario_id")?,
        scenario_title: r.try_get("title")?,
        scenario_definition: r.try_get("definition")?,
        check_results: r
            .try_get::<Option<String>, _>("check_results")?
            .unwrap_or_default(),
    })
}

fn run_label(r: &SqliteRow) -> Result<RunLabel> {
    Ok(RunLabel {
        id: parse_id(r.try_get("id")?)?,
        campaign_id: parse_id(r.try_get("campaign_id")?)?,
        run_id: parse_id(r.try_get("run_id")?)?,
        check_index: r.try_get::<i64, _>("check_index")? as u32,
        score: r.try_get::<i64, _>("score")? as u8,
        reviewer: r.try_get("reviewer")?,
        created_at: from_ms(r.try_get("created_at")?),
    })
}

impl Store {
    /// The finished runs of a campaign with rubric check results that
    /// nobody labelled, in the order they finished.
    pub async fn unlabelled_rubric_runs(&self, campaign_id: CampaignId) -> Result<Vec<RubricRun>> {
        let doing =
            move || format!("store: reading the unlabelled rubric runs of campaign {campaign_id}");
        let rows = sqlx::query(&format!(
            "SELECT r.id, r.campaign_id, r.scenario_id, r.check_results, s.title, s.definition
             FROM runs r LEFT JOIN scenarios s ON s.id = r.scenario_id
             WHERE r.campaign_id = ? AND r.status = 'done' AND {HAS_RUBRIC}
             AND NOT EXISTS (SELECT 1 FROM judge_run_labels l WHERE l.run_id = r.id)
             ORDER BY r.finished_at, r.id"
        ))
        .bind(campaign_id.to_string())
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(rubric_run)
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// How many runs of a campaign finished with a verdict (passed or
    /// failed) in a scenario with rubric checks, one of `rubric_scenarios`
    /// (the loaded ones) or a stored one: read from the run tallies, without
    /// a scan of the runs, so that the report can ask it at any size.
    pub async fn rubric_run_count(
        &self,
        campaign_id: CampaignId,
        rubric_scenarios: &[&str],
    ) -> Result<u32> {
        let n: i64 = sqlx::query_scalar(
            "SELECT coalesce(sum(t.runs), 0) FROM run_verdict_tally t
             WHERE t.campaign_id = ? AND t.verdict IN ('passed', 'failed')
               AND (t.scenario_id IN (SELECT value FROM json_each(?))
                    OR t.scenario_id IN (SELECT id FROM scenarios
                                         WHERE instr(definition, '\"type\":\"rubric\"') > 0))",
        )
        .bind(campaign_id.to_string())
        .bind(serde_json::to_string(rubric_scenarios)?)
        .fetch_one(self.sqlite_pool()?)
        .await
        .with_context(|| format!("store: counting the rubric runs of campaign {campaign_id}"))?;
        Ok(n as u32)
    }

    /// One finished run with its check results and scenario definition;
    /// `None` when there is no such run or it is not finished.
    pub async fn finished_run_checks(&self, run_id: RunId) -> Result<Option<RubricRun>> {
        let doing = move || format!("store: reading the check results of run {run_id}");
        let row = sqlx::query(
            "SELECT r.id, r.campaign_id, r.scenario_id, r.check_results, s.title, s.definition
             FROM runs r LEFT JOIN scenarios s ON s.id = r.scenario_id
             WHERE r.id = ? AND r.status = 'done'",
        )
        .bind(run_id.to_string())
        .fetch_optional(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        row.as_ref().map(rubric_run).transpose().with_context(doing)
    }

    /// Whether a run exists at all.
    pub async fn run_exists(&self, run_id: RunId) -> Result<bool> {
        let found: Option<i64> = sqlx::query_scalar("SELECT 1 FROM runs WHERE id = ?")
            .bind(run_id.to_string())
            .fetch_optional(self.sqlite_pool()?)
            .await
            .with_context(|| format!("store: looking up run {run_id}"))?;
        Ok(found.is_some())
    }

    /// How many runs of a campaign people labelled.
    pub async fn run_label_count(&self, campaign_id: CampaignId) -> Result<u32> {
        let n: i64 = sqlx::query_scalar(
            "SELECT count(DISTINCT run_id) FROM judge_run_labels WHERE campaign_id = ?",
        )
        .bind(campaign_id.to_string())
        .fetch_one(self.sqlite_pool()?)
        .await
        .with_context(|| format!("store: counting the labelled runs of campaign {campaign_id}"))?;
        Ok(n as u32)
    }

    /// Stores the labels of one run's rubric checks together, unless the
    /// run has a label already; whether they were stored.
    pub async fn insert_run_labels(&self, labels: &[RunLabel]) -> Result<bool> {
        let doing = || {
            let run = labels.first().map(|l| l.run_id.to_string());
            format!(
                "store: storing the labels of run {}",
                run.unwrap_or_default()
            )
        };
        let mut tx = self.sqlite_pool()?.begin().await.with_context(doing)?;
        for label in labels {
            let inserted = sqlx::query(
                "INSERT INTO judge_run_labels (id, campaign_id, run_id, check_index, score, reviewer, created_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id, check_index) DO NOTHING",
            )
            .bind(label.id.to_string())
            .bind(label.campaign_id.to_string())
            .bind(label.run_id.to_string())
            .bind(i64::from(label.check_index))
            .bind(i64::from(label.score))
            .bind(&label.reviewer)
            .bind(to_ms(label.created_at))
            .execute(&mut *tx)
            .await
            .with_context(doing)?
            .rows_affected();
            if inserted == 0 {
                tx.rollback().await.with_context(doing)?;
                return Ok(false);
            }
        }
        tx.commit().await.with_context(doing)?;
        Ok(true)
    }

    /// The rubric labels of a campaign, oldest first.
    pub async fn run_labels(&self, campaign_id: CampaignId) -> Result<Vec<RunLabel>> {
        let doing = move || format!("store: reading the rubric labels of campaign {campaign_id}");
        let rows = sqlx::query(
            "SELECT * FROM judge_run_labels WHERE campaign_id = ? ORDER BY created_at, run_id, check_index",
        )
        .bind(campaign_id.to_string())
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(run_label)
            .collect::<Result<_>>()
            .with_context(doing)
    }

    /// Each rubric label of a campaign with the check results (JSON) of its
    /// run, oldest first.
    pub async fn run_labels_with_checks(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<(RunLabel, String)>> {
        let doing = move || {
            format!("store: reading the rubric labels of campaign {campaign_id} with their checks")
        };
        let rows = sqlx::query(
            "SELECT l.*, r.check_results FROM judge_run_labels l JOIN runs r ON r.id = l.run_id
             WHERE l.campaign_id = ? ORDER BY l.created_at, l.run_id, l.check_index",
        )
        .bind(campaign_id.to_string())
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        rows.iter()
            .map(|r| {
                Ok((
                    run_label(r)?,
                    r.try_get::<Option<String>, _>("check_results")?
                        .unwrap_or_default(),
                ))
            })
            .collect::<Result<_>>()
            .with_context(doing)
    }
}
