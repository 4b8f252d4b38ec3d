//! What period comparison reads: the campaigns' fixed outcomes and the
//! models that played each role.

use crate::Store;
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::CampaignId;
use agenteval_domain::models::OutputMode;
use agenteval_domain::models::Role;
use agenteval_domain::report::{ModelsUsed, Outcomes};
use agenteval_domain::run::Verdict;
use sqlx::Row;

impl Store {
    /// Records how a role model of the campaign was asked for its JSON;
    /// writes only when it changes.
    pub async fn set_output_mode(
        &self,
        campaign_id: CampaignId,
        role: Role,
        mode: OutputMode,
    ) -> Result<()> {
        let path = format!(
            "$.output_modes.{}",
            match role {
                Role::VirtualUser => "virtual_user",
                Role::Judge => "judge",
                Role::Analyst => "analyst",
            }
        );
        // On the hot path: after each role model's reply.
        sqlx::query(
            "UPDATE campaigns SET models = json_set(COALESCE(models, '{}'), ?1, ?2) \
             WHERE id = ?3 AND json_extract(COALESCE(models, '{}'), ?1) IS NOT ?2",
        )
        .bind(&path)
        .bind(mode.as_str())
        .bind(campaign_id.to_string())
        .execute(self.sqlite_pool()?)
        .await
        .context("store: recording a role model's output mode")?;
        Ok(())
    }

    /// Passed/failed outcomes per scenario of a campaign's fixed runs, in
    /// plan order.
    pub async fn run_outcomes(&self, campaign_id: CampaignId) -> Result<Outcomes> {
        let doing = move || format!("store: reading the run outcomes of campaign {campaign_id}");
        let rows = sqlx::query(
            "SELECT scenario_id, verdict FROM runs WHERE campaign_id = ? AND verdict IN ('passed', 'failed') ORDER BY seq",
        )
        .bind(campaign_id.to_string())
        .fetch_all(self.sqlite_pool()?)
        .await
        .with_context(doing)?;
        let outcomes = || -> Result<Outcomes> {
            let mut out = Outcomes::new();
            for r in &rows {
                let v: String = r.try_get("verdict")?;
                out.entry(r.try_get("scenario_id")?)
                    .or_default()
                    .push(Verdict::parse(&v) == Some(Verdict::Passed));
            }
            Ok(out)
        };
        outcomes().with_context(doing)
    }

    /// The models recorded for a campaign; the default when none were (or
    /// they cannot be read).
    pub async fn models_used(&self, campaign_id: CampaignId) -> Result<ModelsUsed> {
        let raw: Option<String> = sqlx::query_scalar("SELECT models FROM campaigns WHERE id = ?")
            .bind(campaign_id.to_string())
            .fetch_optional(self.sqlite_pool()?)
            .await
            .with_context(|| format!("store: reading the models of campaign {campaign_id}"))?
            .flatten();
        Ok(raw
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default())
    }
}
