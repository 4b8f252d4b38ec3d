//! Exploration started from the app: the virtual user (the configured
//! model, else the built-in persona engine) explores chosen persona x goal
//! cells, or every cell without a session yet. The sessions are created at
//! once, in order, against the ledger; each is then played and judged in
//! the background, as the patrol agent does it (see
//! [`crate::patrol_agent::explore_seed`]).

use super::patrol::SeedCell;
use super::session::{ExplorationSession, PlayedBy, Trigger};
use crate::campaign::{Campaign, Line};
use crate::domain::ids::CampaignId;
use crate::error::{Error, ErrorBody, ErrorCode, Result};
use crate::judge::JudgeSampling;
use crate::msg;
use crate::patrol_agent::{ExploreSeed, play_seed, player, start_seed};
use crate::platform::Platform;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Most cells one request may name (a campaign's budget allows at most
/// 1,000 sessions anyway).
pub const MAX_EXPLORE_CELLS: usize = 1000;

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ExploreRequest {
    pub campaign_id: CampaignId,
    /// The cells to explore, in order; absent or empty: every persona x
    /// goal cell that has no session yet. At most 1,000.
    #[serde(default)]
    #[schema(max_items = 1000)]
    pub cells: Option<Vec<SeedCell>>,
    /// Default `auto` on the formal line, `manual` on the accelerated line
    /// (where `auto` is refused).
    #[serde(default)]
    pub trigger: Option<Trigger>,
}

#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct ExploreStarted {
    /// The sessions created, in the order of the cells; each is played in
    /// the background (follow them through events or the session routes).
    pub sessions: Vec<ExplorationSession>,
    /// Who plays them: `model` or `builtin`.
    pub played_by: PlayedBy,
    /// The model's name when `played_by` is `model`.
    pub user_model: Option<String>,
    /// Why the remaining cells were not started (the ledger's refusal,
    /// e.g. `INTERVAL_NOT_ELAPSED` with `next_allowed_at`).
    pub refused: Option<ErrorBody>,
}

impl Platform {
    /// Explores seed cells with the virtual user: creates one session per
    /// cell in order, stopping at the first refusal (returned as the error
    /// when it refuses the very first cell, else as `refused`), then plays
    /// each session and runs its judge review in the background,
    /// concurrently.
    #[tracing::instrument(skip_all, fields(campaign_id = %req.campaign_id))]
    pub async fn explore(self: &Arc<Self>, req: ExploreRequest) -> Result<ExploreStarted> {
        let campaign = self.get_campaign(req.campaign_id).await?;
        let trigger = req.trigger.unwrap_or(match campaign.line {
            Line::Formal => Trigger::Auto,
            Line::Accelerated => Trigger::Manual,
        });
        let cells = match req.cells.filter(|c| !c.is_empty()) {
            Some(cells) => checked_cells(&campaign, cells)?,
            None => self.uncovered_cells(&campaign).await?,
        };
        // One set of models for the whole request.
        let clients = self.role_clients();
        let (played_by, user_model) = player(&clients);
        let mut started = Vec::new();
        let mut refused = None;
        for cell in cells {
            let seed = ExploreSeed {
                campaign_id: campaign.id,
                persona_id: cell.persona_id,
                goal_id: cell.goal_id,
                variant: None,
                trigger,
            };
            match start_seed(self, &seed, &clients).await {
                Ok(s) => started.push(s),
                Err(e) if started.is_empty() => return Err(e),
                Err(e) => {
                    tracing::info!(code = %e.code(), "exploration stopped at a refusal");
                    refused = Some(e.body);
                    break;
                }
            }
        }
        let sessions = started.iter().map(|s| s.session.clone()).collect();
        for s in started {
            let platform = self.clone();
            let clients = clients.clone();
            tokio::spawn(async move {
                let id = s.session.id;
                let outcome = play_seed(&platform, s, &clients, JudgeSampling::default()).await;
                tracing::info!(session = %id, end = outcome.end_reason.as_str(), "explored");
            });
        }
        Ok(ExploreStarted {
            sessions,
            played_by,
            user_model,
            refused,
        })
    }

    /// The campaign's persona x goal cells with no session yet, personas
    /// then goals in seed-set order.
    async fn uncovered_cells(&self, campaign: &Campaign) -> Result<Vec<SeedCell>> {
        if campaign.seed_set.personas.is_empty() || campaign.seed_set.goals.is_empty() {
            return Err(Error::msg(
                ErrorCode::Conflict,
                msg!("error-explore-no-seeds", id = campaign.id.to_string()),
                msg!("error-explore-no-seeds-suggestion"),
            ));
        }
        let covered = self.store.explored_cells(campaign.id).await?;
        let cells: Vec<SeedCell> = campaign
            .seed_set
            .personas
            .iter()
            .flat_map(|p| {
                campaign.seed_set.goals.iter().map(|g| SeedCell {
                    persona_id: p.id.clone(),
                    goal_id: g.id.clone(),
                })
            })
            .filter(|c| !covered.contains(&(c.persona_id.clone(), c.goal_id.clone())))
            .collect();
        if cells.is_empty() {
            return Err(Error::msg(
                ErrorCode::Conflict,
                msg!("error-explore-all-covered", id = campaign.id.to_string()),
                msg!("error-explore-all-covered-suggestion"),
            ));
        }
        Ok(cells)
    }
}

/// The cells asked for, each checked against the seed set before any
/// session is created.
fn checked_cells(campaign: &Campaign, cells: Vec<SeedCell>) -> Result<Vec<SeedCell>> {
    if cells.len() > MAX_EXPLORE_CELLS {
        return Err(Error::invalid_msg(
            msg!(
                "error-explore-too-many-cells",
                count = cells.len(),
                max = MAX_EXPLORE_CELLS
            ),
            msg!("error-explore-too-many-cells-suggestion"),
        ));
    }
    for (i, cell) in cells.iter().enumerate() {
        let persona = campaign
            .seed_set
            .personas
            .iter()
            .any(|p| p.id == cell.persona_id);
        let goal = campaign.seed_set.goals.iter().any(|g| g.id == cell.goal_id);
        if !persona || !goal {
            let (field, id) = if persona {
                ("goal_id", &cell.goal_id)
            } else {
                ("persona_id", &cell.persona_id)
            };
            return Err(Error::msg(
                ErrorCode::NotFound,
                msg!(
                    "error-explore-cell-unknown",
                    field = format!("cells[{i}].{field}"),
                    id = id.as_str(),
                    campaign = campaign.id.to_string()
                ),
                msg!("error-explore-cell-unknown-suggestion"),
            ));
        }
    }
    Ok(cells)
}
