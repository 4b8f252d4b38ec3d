//! Filtered pages of a campaign's runs and sessions: the filters, the
//! order and the page are applied in SQL, with the total of matching rows
//! beside the page.

use super::Store;
use super::runs::run_from_row;
use super::sessions::session_from_row;
use super::sql::{Arg, Conn, Row, Sql};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::{CampaignId, SessionId};
use agenteval_domain::run::{Run, Verdict};
use agenteval_domain::session::{ExplorationSession, SessionStatus};
use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

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
            conditions.add_dialects(
                "scenario_id IN (SELECT value FROM json_each(?))",
                "scenario_id IN (SELECT json_array_elements_text(CAST(? AS json)))",
                serde_json::to_string(&scenarios)?,
            );
        }
        self.read(move |c| {
            conditions.page(c, "runs", campaign_id, "seq", limit, offset, run_from_row)
        })
        .await
        .with_context(doing)
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
        // A seed that is not JSON (none the store writes) matches no seed
        // filter on SQLite; PostgreSQL refuses to read it.
        if let Some(persona) = filter.persona_id {
            conditions.add_dialects(
                "(CASE WHEN json_valid(seed_ref) THEN seed_ref ->> '$.persona_id' END) = ?",
                "(CAST(seed_ref AS json) ->> 'persona_id') = ?",
                persona,
            );
        }
        if let Some(goal) = filter.goal_id {
            conditions.add_dialects(
                "(CASE WHEN json_valid(seed_ref) THEN seed_ref ->> '$.goal_id' END) = ?",
                "(CAST(seed_ref AS json) ->> 'goal_id') = ?",
                goal,
            );
        }
        if let Some(ids) = filter.ids {
            conditions.add_dialects(
                "id IN (SELECT value FROM json_each(?))",
                "id IN (SELECT json_array_elements_text(CAST(? AS json)))",
                serde_json::to_string(&ids)?,
            );
        }
        self.read(move |c| {
            conditions.page(
                c,
                "exploration_sessions",
                campaign_id,
                "started_at, id",
                limit,
                offset,
                session_from_row,
            )
        })
        .await
        .with_context(doing)
    }
}

/// Conditions joined with AND, as each backend spells them, and their
/// bound values, in order.
#[derive(Default)]
struct Conditions {
    sqlite: Vec<&'static str>,
    postgres: Vec<&'static str>,
    values: Vec<String>,
}

impl Conditions {
    fn add(&mut self, condition: &'static str, value: String) {
        self.add_dialects(condition, condition, value);
    }

    fn add_dialects(&mut self, sqlite: &'static str, postgres: &'static str, value: String) {
        self.sqlite.push(sqlite);
        self.postgres.push(postgres);
        self.values.push(value);
    }

    /// `SELECT {what} FROM {table} WHERE campaign_id = ? AND ...{rest}`,
    /// for both backends.
    fn statement(&self, what: &str, table: &str, rest: &str) -> Sql {
        let text = |conditions: &[&str]| {
            let and: String = conditions.iter().map(|c| format!(" AND {c}")).collect();
            interned(format!(
                "SELECT {what} FROM {table} WHERE campaign_id = ?{and}{rest}"
            ))
        };
        Sql::dialects(text(&self.sqlite), text(&self.postgres))
    }

    /// The rows of `table` in `campaign_id` that match, `order`ed (by
    /// columns that hold no NULL), one page of them, and how many match in
    /// all.
    #[allow(clippy::too_many_arguments)]
    fn page<T>(
        &self,
        c: &Conn<'_>,
        table: &str,
        campaign_id: CampaignId,
        order: &str,
        limit: i64,
        offset: i64,
        map: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<(Vec<T>, u64)> {
        let id = campaign_id.to_string();
        let mut args: Vec<Arg<'_>> = std::iter::once(Arg::from(&id))
            .chain(self.values.iter().map(Arg::from))
            .collect();
        let total: i64 = c.value(self.statement("COUNT(*)", table, ""), &args)?;
        args.extend([Arg::from(limit), Arg::from(offset)]);
        let rows = c.rows(
            self.statement("*", table, &format!(" ORDER BY {order} LIMIT ? OFFSET ?")),
            &args,
            map,
        )?;
        Ok((rows, total as u64))
    }
}

/// The text of a statement built from a fixed set of parts, kept for the
/// life of the process (the statements are cached by their text): there are
/// as many as combinations of filters.
fn interned(text: String) -> &'static str {
    static TEXTS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut texts = TEXTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    match texts.get(text.as_str()) {
        Some(kept) => kept,
        None => {
            let kept: &'static str = Box::leak(text.into_boxed_str());
            texts.insert(kept);
            kept
        }
    }
}
