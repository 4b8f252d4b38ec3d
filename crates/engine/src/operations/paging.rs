//! Filtered pages of a campaign's runs and sessions, for tables that must
//! stay smooth with 100,000 rows: the filters, the order and the page are
//! applied in SQL, with the total of matching rows beside the page.

use crate::domain::ids::{CampaignId, SessionId};
use crate::error::{Error, Result};
use crate::exploration::session::{ExplorationSession, SessionStatus};
use crate::fixed::{Run, Verdict};
use crate::msg;
use crate::platform::Platform;
use crate::store::paging::{RunFilter, RunVerdict, SessionFilter};
use serde::{Deserialize, Serialize};

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
    pub ids: Option<Vec<SessionId>>,
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
pub(crate) fn page_limit(limit: Option<u32>) -> Result<i64> {
    match limit {
        None => Ok(i64::from(DEFAULT_PAGE)),
        Some(n @ 1..=MAX_PAGE) => Ok(i64::from(n)),
        Some(n) => Err(Error::invalid_msg(
            msg!("error-page-limit", got = n, max = MAX_PAGE),
            msg!("error-page-limit-suggestion", max = MAX_PAGE),
        )),
    }
}

/// A filter value: absent or blank means no filter.
fn given(value: Option<String>) -> Option<String> {
    value.filter(|v| !v.trim().is_empty())
}

impl Platform {
    /// A page of a campaign's runs in plan order, filtered by verdict,
    /// scenario and tag, with the number of runs that match.
    #[tracing::instrument(skip(self))]
    pub async fn search_runs(&self, campaign_id: CampaignId, query: RunQuery) -> Result<RunPage> {
        let limit = page_limit(query.limit)?;
        let offset = i64::from(query.offset.unwrap_or(0));
        let mut filter = RunFilter::default();
        if let Some(verdict) = given(query.verdict) {
            filter.verdict = Some(match verdict.as_str() {
                "pending" => RunVerdict::Pending,
                v => match Verdict::parse(v) {
                    Some(v) => RunVerdict::Finished(v),
                    None => {
                        return Err(Error::invalid_msg(
                            msg!("error-verdict-filter", got = verdict.as_str()),
                            msg!("error-verdict-filter-suggestion"),
                        ));
                    }
                },
            });
        }
        filter.scenario_id = given(query.scenario_id);
        if let Some(tag) = given(query.tag) {
            let tagged: Vec<String> = self
                .scenarios
                .all()
                .iter()
                .filter(|s| s.tags.contains(&tag))
                .map(|s| s.id.clone())
                .collect();
            filter.scenario_ids = Some(tagged);
        }
        self.get_campaign(campaign_id).await?;
        let (runs, total) = self
            .store
            .run_page(campaign_id, filter, limit, offset)
            .await?;
        Ok(RunPage { runs, total })
    }

    /// A page of a campaign's sessions in start order, filtered by status,
    /// seed persona and goal, or ids, with the number of sessions that
    /// match.
    #[tracing::instrument(skip(self))]
    pub async fn search_sessions(
        &self,
        campaign_id: CampaignId,
        query: SessionQuery,
    ) -> Result<SessionPage> {
        let limit = page_limit(query.limit)?;
        let offset = i64::from(query.offset.unwrap_or(0));
        let mut filter = SessionFilter {
            status: query.status,
            persona_id: given(query.persona_id),
            goal_id: given(query.goal_id),
            ids: None,
        };
        if let Some(ids) = query.ids.filter(|ids| !ids.is_empty()) {
            if ids.len() > MAX_IDS {
                return Err(Error::invalid_msg(
                    msg!("error-too-many-ids", count = ids.len(), max = MAX_IDS),
                    msg!("error-too-many-ids-suggestion"),
                ));
            }
            filter.ids = Some(ids);
        }
        self.get_campaign(campaign_id).await?;
        let (sessions, total) = self
            .store
            .session_page(campaign_id, filter, limit, offset)
            .await?;
        Ok(SessionPage { sessions, total })
    }
}
