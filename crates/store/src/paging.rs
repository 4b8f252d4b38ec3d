//! Filtered pages of a campaign's runs and sessions: the filters, the
//! order and the page are applied in SQL, with the total of matching rows
//! beside the page.

use super::Store;
use super::sessions::session_from_row;
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::run::{Run, Verdict};
use agenteval_domain::session::{ExplorationSession, SessionStatus};

/// Which of a campaign's runs by their verdict.
#[derive(Debug, Clone, Copy)]
pub enum RunVerdict {
    /// Not finished yet.
    Pending,
    /// Finished with this verdict.
    Finished(Verdict),
}

/// Which of a campaign's runs; each filter given narrows the runs.
#[derive(Debug, Default)]
pub struct RunFilter {
    pub verdict: Option<RunVerdict>,
    pub scenario_id: Option<String>,
    /// Runs of one of these scenarios.
    pub scenario_ids: Option<Vec<String>>,
}

/// Which of a campaign's sessions; each filter given narrows the sessions.
#[derive(Debug, Default)]
pub struct SessionFilter {
    pub status: Option<SessionStatus>,
    /// Sessions seeded from this persona.
    pub persona_id: Option<String>,
    /// Sessions seeded from this goal.
    pub goal_id: Option<String>,
    /// Only these sessions.
    pub ids: Option<Vec<SessionId>>,
}

impl Store {
    /// One page of a campaign's runs that match `filter`, in plan order
    /// (`limit` from `offset`), and how many match in all.
    pub async fn run_page(
        &self,
        campaign_id: CampaignId,
        filter: RunFilter,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<Run>, u64)> {
        let doing = move || format!("store: reading a page of the runs of campaign {campaign_id}");
        let mut conditions = Conditions::default();
        match filter.verdict {
            Some(RunVerdict::Pending) => conditions.add("status != ?", "done".into()),
            Some(RunVerdict::Finished(verdict)) => {
                conditions.add("status = 'done' AND verdict = ?", verdict.as_str().into())
            }
            None => {}
        }
        if let Some(scenario) = filter.scenario_id {
            conditions.add("scenario_id = ?", scenario);
        }
        if let Some(scenarios) = filter.scenario_ids {
            conditions.add(
                "scenario_id IN (SELECT value FROM json_each(?))",
                serde_json::to_string(&scenarios)?,
            );
        }
        let (rows, total) = conditions
            .page(
                self.sqlite_pool()?,
                "runs",
                campaign_id,
                "seq",
                limit,
                offset,
            )
            .await
            .with_context(doing)?;
        let runs = rows
            .iter()
            .map(run_from_row)
            .collect::<Result<_>>()
            .with_context(doing)?;
        Ok((runs, total))
    }

    /// One page of a campaign's sessions that match `filter`, in start
    /// order (`limit` from `offset`), and how many match in all.
    pub async fn session_page(
        &self,
        campaign_id: CampaignId,
        filter: SessionFilter,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<ExplorationSession>, u64)> {
        let doing =
            move || format!("store: reading a page of the sessions of campaign {campaign_id}");
        let mut conditions = Conditions::default();
        if let Some(status) = filter.status {
            conditions.add("status = ?", status.as_str().into());
        }
        if let Some(persona) = filter.persona_id {
            conditions.add(
                "(CASE WHEN json_valid(seed_ref) THEN seed_ref ->> '$.persona_id' END) = ?",
                persona,
            );
        }
        if let Some(goal) = filter.goal_id {
            conditions.add(
                "(CASE WHEN json_valid(seed_ref) THEN seed_ref ->> '$.goal_id' END) = ?",
                goal,
            );
        }
        if let Some(ids) = filter.ids {
            conditions.add(
                "id IN (SELECT value FROM json_each(?))",
                serde_json::to_string(&ids)?,
            );
        }
        let (rows, total) = conditions
            .page(
                self.sqlite_pool()?,
                "exploration_sessions",
                campaign_id,
                "started_at, id",
                limit,
                offset,
            )
            .await
            .with_context(doing)?;
        let sessions = rows
            .iter()
            .map(session_from_row)
            .collect::<Result<_>>()
            .with_context(doing)?;
        Ok((sessions, total))
    }
}

/// Conditions joined with AND and their bound values, in order.
#[derive(Default)]
struct Conditions {
    conditions: Vec<&'static str>,
    values: Vec<String>,
}

impl Conditions {
    fn add(&mut self, condition: &'static str, value: String) {
        self.conditions.push(condition);
        self.values.push(value);
    }

    fn sql(&self) -> String {
        self.conditions
            .iter()
            .map(|c| format!(" AND {c}"))
            .collect()
    }

    fn bind<'q>(
        &'q self,
        mut query: sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments<'q>>,
    ) -> sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments<'q>> {
        for v in &self.values {
            query = query.bind(v.as_str());
        }
        query
    }

    /// The rows of `table` in `campaign_id` that match, `order`ed, one page
    /// of them, and how many match in all.
    async fn page(
        &self,
        db: &sqlx::SqlitePool,
        table: &str,
        campaign_id: CampaignId,
        order: &str,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<sqlx::sqlite::SqliteRow>, u64)> {
        let id = campaign_id.to_string();
        let where_ = format!("WHERE campaign_id = ?{}", self.sql());
        let count_sql = format!("SELECT COUNT(*) FROM {table} {where_}");
        let total: i64 = sqlx::Row::try_get(
            &self
                .bind(sqlx::query(&count_sql).bind(&id))
                .fetch_one(db)
                .await?,
            0,
        )?;
        let sql = format!("SELECT * FROM {table} {where_} ORDER BY {order} LIMIT ? OFFSET ?");
        let rows = self
            .bind(sqlx::query(&sql).bind(&id))
            .bind(limit)
            .bind(offset)
            .fetch_all(db)
            .await?;
        Ok((rows, total as u64))
    }
}

/// A run from a `SELECT * FROM runs` row.
pub(crate) fn run_from_row(row: &sqlx::sqlite::SqliteRow) -> Result<Run> {
    use agenteval_domain::{clock::from_ms, parse_id};
    use sqlx::Row;
    Ok(Run {
        id: parse_id(row.try_get("id")?)?,
        campaign_id: parse_id(row.try_get("campaign_id")?)?,
        scenario_id: row.try_get("scenario_id")?,
        seq: row.try_get::<i64, _>("seq")? as u32,
        offset_ms: row.try_get("offset_ms")?,
        scheduled_at: from_ms(row.try_get("scheduled_at")?),
        status: row.try_get("status")?,
        verdict: row
            .try_get::<Option<String>, _>("verdict")?
            .as_deref()
            .and_then(Verdict::parse),
        check_results: row
            .try_get::<Option<String>, _>("check_results")?
            .map(|s| serde_json::from_str(&s))
            .transpose()?
            .unwrap_or_default(),
        metrics: row
            .try_get::<Option<String>, _>("metrics")?
            .map(|s| serde_json::from_str(&s))
            .transpose()?,
        error_reason: row.try_get("error_reason")?,
        started_at: row.try_get::<Option<i64>, _>("started_at")?.map(from_ms),
        finished_at: row.try_get::<Option<i64>, _>("finished_at")?.map(from_ms),
    })
}
