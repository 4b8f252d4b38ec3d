//! Filtered pages of a campaign's runs and sessions, for tables that must
//! stay smooth with 100,000 rows: the filters, the order and the page are
//! applied in SQL, with the total of matching rows beside the page.

use crate::error::{Error, Result};
use crate::exploration::session::{ExplorationSession, SessionStatus, session_from_row};
use crate::fixed::{Run, Verdict, run_from_row};
use crate::platform::Platform;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Rows per page when none is asked for.
pub const DEFAULT_PAGE: u32 = 100;
/// Most rows per page.
pub const MAX_PAGE: u32 = 500;
/// Most session ids one query may name.
pub const MAX_IDS: usize = 500;

/// Which runs, and which page of them (plan order).
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RunQuery {
    /// `passed`, `failed`, `error`, `skipped` (finished runs with that
    /// verdict) or `pending` (not finished yet).
    #[serde(default)]
    pub verdict: Option<String>,
    #[serde(default)]
    pub scenario_id: Option<String>,
    /// Runs of the loaded scenarios that carry this tag.
    #[serde(default)]
    pub tag: Option<String>,
    /// Rows to skip (default 0).
    #[serde(default)]
    pub offset: Option<u32>,
    /// Rows per page: 1 to 500 (default 100).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RunPage {
    pub runs: Vec<Run>,
    /// Runs matching the filters, on every page.
    pub total: u64,
}

/// Which sessions, and which page of them (start order).
#[derive(Debug, Clone, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SessionQuery {
    #[serde(default)]
    pub status: Option<SessionStatus>,
    /// Sessions seeded from this persona.
    #[serde(default)]
    pub persona_id: Option<String>,
    /// Sessions seeded from this goal.
    #[serde(default)]
    pub goal_id: Option<String>,
    /// Only these sessions (e.g. the sessions behind one issue); at most 500.
    #[serde(default)]
    pub ids: Option<Vec<Uuid>>,
    /// Rows to skip (default 0).
    #[serde(default)]
    pub offset: Option<u32>,
    /// Rows per page: 1 to 500 (default 100).
    #[serde(default)]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SessionPage {
    pub sessions: Vec<ExplorationSession>,
    /// Sessions matching the filters, on every page.
    pub total: u64,
}

/// The page size asked for, refused (never clamped) when out of range.
fn page_limit(limit: Option<u32>) -> Result<i64> {
    match limit {
        None => Ok(i64::from(DEFAULT_PAGE)),
        Some(n @ 1..=MAX_PAGE) => Ok(i64::from(n)),
        Some(n) => Err(Error::invalid(
            format!("limit {n} is out of range: 1 to {MAX_PAGE} rows per page"),
            format!("Ask for at most {MAX_PAGE} rows and page on with offset."),
        )),
    }
}

/// A filter value: absent or blank means no filter.
fn given(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

/// Conditions joined with AND and their bound values, in order.
#[derive(Default)]
struct Filter {
    conditions: Vec<&'static str>,
    values: Vec<String>,
}

impl Filter {
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
        campaign_id: Uuid,
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

impl Platform {
    /// A page of a campaign's runs in plan order, filtered by verdict,
    /// scenario and tag, with the number of runs that match.
    #[tracing::instrument(skip(self))]
    pub async fn search_runs(&self, campaign_id: Uuid, query: RunQuery) -> Result<RunPage> {
        let limit = page_limit(query.limit)?;
        let offset = i64::from(query.offset.unwrap_or(0));
        let mut filter = Filter::default();
        if let Some(verdict) = given(query.verdict) {
            match verdict.as_str() {
                "pending" => filter.add("status != ?", "done".into()),
                v if Verdict::parse(v).is_some() => {
                    filter.add("status = 'done' AND verdict = ?", verdict)
                }
                _ => {
                    return Err(Error::invalid(
                        format!(
                            "verdict {verdict:?} is not one of passed, failed, error, skipped, pending"
                        ),
                        "Filter by passed, failed, error, skipped or pending, or leave verdict out.",
                    ));
                }
            }
        }
        if let Some(scenario) = given(query.scenario_id) {
            filter.add("scenario_id = ?", scenario);
        }
        if let Some(tag) = given(query.tag) {
            let tagged: Vec<String> = self
                .scenarios
                .all()
                .iter()
                .filter(|s| s.tags.contains(&tag))
                .map(|s| s.id.clone())
                .collect();
            filter.add(
                "scenario_id IN (SELECT value FROM json_each(?))",
                serde_json::to_string(&tagged)?,
            );
        }
        self.get_campaign(campaign_id).await?;
        let (rows, total) = filter
            .page(&self.store.pool, "runs", campaign_id, "seq", limit, offset)
            .await?;
        Ok(RunPage {
            runs: rows.iter().map(run_from_row).collect::<Result<_>>()?,
            total,
        })
    }

    /// A page of a campaign's sessions in start order, filtered by status,
    /// seed persona and goal, or ids, with the number of sessions that
    /// match.
    #[tracing::instrument(skip(self))]
    pub async fn search_sessions(
        &self,
        campaign_id: Uuid,
        query: SessionQuery,
    ) -> Result<SessionPage> {
        let limit = page_limit(query.limit)?;
        let offset = i64::from(query.offset.unwrap_or(0));
        let mut filter = Filter::default();
        if let Some(status) = query.status {
            filter.add("status = ?", status.as_str().into());
        }
        if let Some(persona) = given(query.persona_id) {
            filter.add(
                "(CASE WHEN json_valid(seed_ref) THEN seed_ref ->> '$.persona_id' END) = ?",
                persona,
            );
        }
        if let Some(goal) = given(query.goal_id) {
            filter.add(
                "(CASE WHEN json_valid(seed_ref) THEN seed_ref ->> '$.goal_id' END) = ?",
                goal,
            );
        }
        if let Some(ids) = query.ids.filter(|ids| !ids.is_empty()) {
            if ids.len() > MAX_IDS {
                return Err(Error::invalid(
                    format!("{} session ids given; at most {MAX_IDS}", ids.len()),
                    "Ask for fewer sessions at a time.",
                ));
            }
            filter.add(
                "id IN (SELECT value FROM json_each(?))",
                serde_json::to_string(&ids)?,
            );
        }
        self.get_campaign(campaign_id).await?;
        let (rows, total) = filter
            .page(
                &self.store.pool,
                "exploration_sessions",
                campaign_id,
                "started_at, id",
                limit,
                offset,
            )
            .await?;
        Ok(SessionPage {
            sessions: rows.iter().map(session_from_row).collect::<Result<_>>()?,
            total,
        })
    }
}
