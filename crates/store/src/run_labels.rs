//! The calibration queries of fixed runs: runs whose checks include a
//! rubric that nobody labelled, and people's blind labels of the judge's
//! rubric scores (one row per rubric check).

use super::Store;
use super::sql::{Row, Sql, args};
use agenteval_domain::calibration::RunLabel;
use agenteval_domain::clock::{from_ms, to_ms};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, RunId};
use agenteval_domain::parse_id;
use uuid::Uuid;

// Runs with a rubric check result are picked out cheaply (the stored check
// results are compact JSON written by serde), by the text
// `"kind":"rubric"` in their check results; the engine reads the JSON.
// SQLite finds it with `instr`, PostgreSQL with `strpos`.

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

fn rubric_run(r: &Row<'_>) -> Result<RubricRun> {
    Ok(RubricRun {
        id: parse_id(r.str("id")?)?,
        campaign_id: parse_id(r.str("campaign_id")?)?,
        scenario_id: r.get("scenario_id")?,
        scenario_title: r.get("title")?,
        scenario_definition: r.get("definition")?,
        check_results: r
            .get::<Option<String>>("check_results")?
            .unwrap_or_default(),
    })
}

fn run_label(r: &Row<'_>) -> Result<RunLabel> {
    Ok(RunLabel {
        id: parse_id(r.str("id")?)?,
        campaign_id: parse_id(r.str("campaign_id")?)?,
        run_id: parse_id(r.str("run_id")?)?,
        check_index: r.get::<i64>("check_index")? as u32,
        score: r.get::<i64>("score")? as u8,
        reviewer: r.get("reviewer")?,
        created_at: from_ms(r.get("created_at")?),
    })
}

impl Store {
    /// The finished runs of a campaign with rubric check results that
    /// nobody labelled, in the order they finished.
    pub async fn unlabelled_rubric_runs(&self, campaign_id: CampaignId) -> Result<Vec<RubricRun>> {
        self.read(move |c| {
            c.rows(
                Sql::dialects(
                    "SELECT r.id, r.campaign_id, r.scenario_id, r.check_results, s.title, s.definition
                     FROM runs r LEFT JOIN scenarios s ON s.id = r.scenario_id
                     WHERE r.campaign_id = ? AND r.status = 'done'
                     AND instr(r.check_results, '\"kind\":\"rubric\"') > 0
                     AND NOT EXISTS (SELECT 1 FROM judge_run_labels l WHERE l.run_id = r.id)
                     ORDER BY r.finished_at, r.id",
                    "SELECT r.id, r.campaign_id, r.scenario_id, r.check_results, s.title, s.definition
                     FROM runs r LEFT JOIN scenarios s ON s.id = r.scenario_id
                     WHERE r.campaign_id = ? AND r.status = 'done'
                     AND strpos(r.check_results, '\"kind\":\"rubric\"') > 0
                     AND NOT EXISTS (SELECT 1 FROM judge_run_labels l WHERE l.run_id = r.id)
                     ORDER BY r.finished_at NULLS FIRST, r.id",
                ),
                args![campaign_id.to_string()],
                rubric_run,
            )
        })
        .await
        .with_context(move || {
            format!("store: reading the unlabelled rubric runs of campaign {campaign_id}")
        })
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
        let scenarios = serde_json::to_string(rubric_scenarios)?;
        let n: i64 = self
            .read(move |c| {
                c.value(
                    Sql::dialects(
                        "SELECT coalesce(sum(t.runs), 0) FROM run_verdict_tally t
                         WHERE t.campaign_id = ? AND t.verdict IN ('passed', 'failed')
                           AND (t.scenario_id IN (SELECT value FROM json_each(?))
                                OR t.scenario_id IN (SELECT id FROM scenarios
                                                     WHERE instr(definition, '\"type\":\"rubric\"') > 0))",
                        "SELECT CAST(coalesce(sum(t.runs), 0) AS BIGINT) FROM run_verdict_tally t
                         WHERE t.campaign_id = ? AND t.verdict IN ('passed', 'failed')
                           AND (t.scenario_id IN (SELECT json_array_elements_text(CAST(? AS json)))
                                OR t.scenario_id IN (SELECT id FROM scenarios
                                                     WHERE strpos(definition, '\"type\":\"rubric\"') > 0))",
                    ),
                    args![campaign_id.to_string(), scenarios],
                )
            })
            .await
            .with_context(|| format!("store: counting the rubric runs of campaign {campaign_id}"))?;
        Ok(n as u32)
    }

    /// One finished run with its check results and scenario definition;
    /// `None` when there is no such run or it is not finished.
    pub async fn finished_run_checks(&self, run_id: RunId) -> Result<Option<RubricRun>> {
        self.read(move |c| {
            c.row(
                "SELECT r.id, r.campaign_id, r.scenario_id, r.check_results, s.title, s.definition
                 FROM runs r LEFT JOIN scenarios s ON s.id = r.scenario_id
                 WHERE r.id = ? AND r.status = 'done'",
                args![run_id.to_string()],
                rubric_run,
            )
        })
        .await
        .with_context(move || format!("store: reading the check results of run {run_id}"))
    }

    /// Whether a run exists at all.
    pub async fn run_exists(&self, run_id: RunId) -> Result<bool> {
        let found = self
            .read(move |c| {
                c.row(
                    "SELECT 1 FROM runs WHERE id = ?",
                    args![run_id.to_string()],
                    |_| Ok(()),
                )
            })
            .await
            .with_context(|| format!("store: looking up run {run_id}"))?;
        Ok(found.is_some())
    }

    /// How many runs of a campaign people labelled.
    pub async fn run_label_count(&self, campaign_id: CampaignId) -> Result<u32> {
        let n: i64 = self
            .read(move |c| {
                c.value(
                    "SELECT count(DISTINCT run_id) FROM judge_run_labels WHERE campaign_id = ?",
                    args![campaign_id.to_string()],
                )
            })
            .await
            .with_context(|| {
                format!("store: counting the labelled runs of campaign {campaign_id}")
            })?;
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
        let labels = labels.to_vec();
        let stored = self
            .write(move |c| {
                // A refusal undoes the labels stored before it: the write
                // fails, and nothing of it is kept.
                for label in &labels {
                    let inserted = c.exec(
                        "INSERT INTO judge_run_labels (id, campaign_id, run_id, check_index, score, reviewer, created_at)
                         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id, check_index) DO NOTHING",
                        args![
                            label.id.to_string(),
                            label.campaign_id.to_string(),
                            label.run_id.to_string(),
                            label.check_index,
                            i64::from(label.score),
                            &label.reviewer,
                            to_ms(label.created_at),
                        ],
                    )?;
                    if inserted == 0 {
                        return Err(AlreadyLabelled.into());
                    }
                }
                Ok(())
            })
            .await;
        match stored {
            Ok(()) => Ok(true),
            Err(e) if AlreadyLabelled::is(&e) => Ok(false),
            Err(e) => Err(e).with_context(doing),
        }
    }

    /// The rubric labels of a campaign, oldest first.
    pub async fn run_labels(&self, campaign_id: CampaignId) -> Result<Vec<RunLabel>> {
        self.read(move |c| {
            c.rows(
                "SELECT * FROM judge_run_labels WHERE campaign_id = ?
                 ORDER BY created_at, run_id, check_index",
                args![campaign_id.to_string()],
                run_label,
            )
        })
        .await
        .with_context(move || format!("store: reading the rubric labels of campaign {campaign_id}"))
    }

    /// Each rubric label of a campaign with the check results (JSON) of its
    /// run, oldest first.
    pub async fn run_labels_with_checks(
        &self,
        campaign_id: CampaignId,
    ) -> Result<Vec<(RunLabel, String)>> {
        self.read(move |c| {
            c.rows(
                "SELECT l.*, r.check_results FROM judge_run_labels l JOIN runs r ON r.id = l.run_id
                 WHERE l.campaign_id = ? ORDER BY l.created_at, l.run_id, l.check_index",
                args![campaign_id.to_string()],
                |r| {
                    Ok((
                        run_label(r)?,
                        r.get::<Option<String>>("check_results")?
                            .unwrap_or_default(),
                    ))
                },
            )
        })
        .await
        .with_context(move || {
            format!("store: reading the rubric labels of campaign {campaign_id} with their checks")
        })
    }
}

/// Why [`Store::insert_run_labels`] undid its write: one of the run's
/// checks has a label already.
#[derive(Debug)]
struct AlreadyLabelled;

impl std::fmt::Display for AlreadyLabelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the run has a label already")
    }
}

impl std::error::Error for AlreadyLabelled {}

impl From<AlreadyLabelled> for agenteval_domain::error::Error {
    fn from(e: AlreadyLabelled) -> Self {
        Self::internal(e)
    }
}

impl AlreadyLabelled {
    fn is(e: &agenteval_domain::error::Error) -> bool {
        e.cause
            .as_ref()
            .is_some_and(|c| c.downcast_ref::<AlreadyLabelled>().is_some())
    }
}
