//! What period comparison reads: the campaigns' fixed outcomes and the
//! models that played each role.

use crate::Store;
use crate::sql::{Sql, args};
use agenteval_domain::error::{Context, Result};
use agenteval_domain::ids::CampaignId;
use agenteval_domain::models::OutputMode;
use agenteval_domain::models::Role;
use agenteval_domain::report::{ModelsUsed, Outcomes};
use agenteval_domain::run::Verdict;

/// Sets `models.output_modes.<role>` (parameters: role, mode, campaign)
/// unless it holds that mode already. PostgreSQL edits the document as
/// `jsonb`, creating `output_modes` when the document has none.
const SET_OUTPUT_MODE: Sql = Sql::dialects(
    "UPDATE campaigns SET models = json_set(COALESCE(models, '{}'), '$.output_modes.' || ?1, ?2)
     WHERE id = ?3 AND json_extract(COALESCE(models, '{}'), '$.output_modes.' || ?1) IS NOT ?2",
    "UPDATE campaigns SET models = CAST(
         CAST(COALESCE(models, '{}') AS jsonb)
         || jsonb_build_object('output_modes',
              COALESCE(CAST(COALESCE(models, '{}') AS jsonb) -> 'output_modes', '{}')
              || jsonb_build_object(CAST($1 AS TEXT), CAST($2 AS TEXT)))
       AS TEXT)
     WHERE id = $3
       AND (CAST(COALESCE(models, '{}') AS jsonb) -> 'output_modes' ->> CAST($1 AS TEXT))
           IS DISTINCT FROM CAST($2 AS TEXT)",
);

impl Store {
    /// Records how a role model of the campaign was asked for its JSON;
    /// writes only when it changes.
    pub async fn set_output_mode(
        &self,
        campaign_id: CampaignId,
        role: Role,
        mode: OutputMode,
    ) -> Result<()> {
        let role = match role {
            Role::VirtualUser => "virtual_user",
            Role::Judge => "judge",
            Role::Analyst => "analyst",
            Role::ToolSimulator => "tool_simulator",
        };
        // On the hot path: after each role model's reply.
        self.write(move |c| {
            c.exec(
                SET_OUTPUT_MODE,
                args![role, mode.as_str(), campaign_id.to_string()],
            )
        })
        .await
        .context("store: recording a role model's output mode")?;
        Ok(())
    }

    /// Passed/failed outcomes per scenario of a campaign's fixed runs, in
    /// plan order.
    pub async fn run_outcomes(&self, campaign_id: CampaignId) -> Result<Outcomes> {
        self.read(move |c| {
            let mut out = Outcomes::new();
            c.each(
                "SELECT scenario_id, verdict FROM runs WHERE campaign_id = ? AND verdict IN ('passed', 'failed') ORDER BY seq",
                args![campaign_id.to_string()],
                |r| {
                    let passed = Verdict::parse(r.str("verdict")?) == Some(Verdict::Passed);
                    out.entry(r.get("scenario_id")?).or_default().push(passed);
                    Ok(())
                },
            )?;
            Ok(out)
        })
        .await
        .with_context(move || format!("store: reading the run outcomes of campaign {campaign_id}"))
    }

    /// The models recorded for a campaign; the default when none were (or
    /// they cannot be read).
    pub async fn models_used(&self, campaign_id: CampaignId) -> Result<ModelsUsed> {
        let models = self
            .read(move |c| {
                c.row(
                    "SELECT models FROM campaigns WHERE id = ?",
                    args![campaign_id.to_string()],
                    |r| Ok(r.text(0)?.and_then(|s| serde_json::from_str(s).ok())),
                )
            })
            .await
            .with_context(|| format!("store: reading the models of campaign {campaign_id}"))?;
        Ok(models.flatten().unwrap_or_default())
    }
}
