//! The campaign analysis: one conclusion over both evidence lines. The
//! analyst model receives a digest of the report within a token budget
//! (`input.rs`: the top failing scenarios, issues, judge findings and
//! coverage gaps, with ids to cite), never whole conversations, and must
//! cite the run, session and turn ids behind each claim. Without a
//! model (or when it fails) a template analysis is built from the figures
//! and labelled as such.

use crate::channel::ChatMessage;
use crate::domain::ids::CampaignId;
use crate::error::Result;
use crate::export::pct;
use crate::platform::Platform;
use crate::report::CampaignReport;
use crate::role_models::ChatClient;
use crate::structured::OutputSchema;
use serde::Deserialize;
use serde_json::json;
use std::sync::LazyLock;

pub use crate::domain::report::{Analysis, Claim};

mod input;

pub use input::{
    AnalysisInput, DEFAULT_INPUT_TOKENS, MIN_INPUT_TOKENS, analysis_input, digest, input_budget,
};

const SYSTEM_PROMPT: &str = "You are the analyst of an AI-agent evaluation platform. You receive one campaign's \
figures: fixed-scenario results (the official pass rate) and, when present, exploration findings from virtual users \
(goal achievement, issues, judge reviews); its lists hold the top of longer ones (`left_out` says what is not \
listed). Write ONE conclusion over both evidence lines. Never mix exploration into \
the pass rate. Every claim must cite the run ids, session ids or turn ids it rests on, taken from the input. Answer \
with JSON only: {\"summary\": \"3-6 sentences\", \"claims\": [{\"text\": \"...\", \"run_ids\": [], \
\"session_ids\": [], \"turn_ids\": []}]}";

/// The template analysis: built from the figures, labelled as such.
pub fn template_analysis(report: &CampaignReport) -> (String, Vec<Claim>) {
    let f = &report.fixed;
    let mut claims = Vec::new();
    let mut summary = format!(
        "Fixed scenarios: pass rate {} over {} judged runs ({} passed, {} failed), {} runs in error counted apart.",
        pct(f.pass_rate),
        f.passed + f.failed,
        f.passed,
        f.failed,
        f.errors
    );
    let mut weakest: Vec<_> = f
        .per_scenario
        .iter()
        .filter(|s| s.tally.failed > 0)
        .collect();
    weakest.sort_by(|a, b| {
        a.tally
            .pass_rate
            .unwrap_or(1.0)
            .total_cmp(&b.tally.pass_rate.unwrap_or(1.0))
            .then_with(|| a.scenario_id.cmp(&b.scenario_id))
    });
    for s in weakest.iter().take(5) {
        let run_ids: Vec<String> = s
            .failing_checks
            .iter()
            .map(|c| c.example_run_id.to_string())
            .collect();
        let why = s
            .failing_checks
            .first()
            .map(|c| format!(": {} ({})", c.detail.render(crate::i18n::Lang::En), c.kind))
            .unwrap_or_default();
        claims.push(Claim {
            text: format!(
                "Scenario \"{}\" fails {} of {} judged runs{}.",
                s.title,
                s.tally.failed,
                s.tally.passed + s.tally.failed,
                why
            )
            .into(),
            run_ids,
            ..Default::default()
        });
    }
    if let Some(e) = &report.exploration {
        let v = serde_json::to_value(e).unwrap_or_default();
        let sessions = v
            .get("sessions_total")
            .and_then(|x| x.as_u64())
            .unwrap_or(0);
        let achieved = v
            .get("goal_achievement_rate")
            .and_then(|x| x.as_f64())
            .map(|r| format!("{:.0}%", r * 100.0))
            .unwrap_or_else(|| "n/a".into());
        summary.push_str(&format!(
            " Exploration (a separate evidence line): {sessions} virtual-user sessions, goal achievement {achieved}."
        ));
        if let Some(issues) = v.get("issues").and_then(|x| x.as_array()) {
            for issue in issues.iter().take(5) {
                let text = issue
                    .get("text")
                    .and_then(|x| x.as_str())
                    .unwrap_or_default();
                let count = issue.get("count").and_then(|x| x.as_u64()).unwrap_or(0);
                let session_ids: Vec<String> = issue
                    .get("session_ids")
                    .and_then(|x| x.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|s| s.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default();
                claims.push(Claim {
                    text: format!("Virtual users ran into \"{text}\" in {count} session(s).")
                        .into(),
                    session_ids,
                    ..Default::default()
                });
            }
        }
    }
    if claims.is_empty() {
        summary.push_str(" No failing scenario and no exploration issue to report.");
    }
    (summary, claims)
}

/// The analyst's answer: the conclusion and the claims with their ids.
pub static ANALYSIS_SCHEMA: LazyLock<OutputSchema> = LazyLock::new(|| {
    let ids = json!({"type": "array", "maxItems": 10, "items": {"type": "string"}});
    OutputSchema::new(
        "analysis",
        json!({
            "type": "object",
            "properties": {
                "summary": {"type": "string", "minLength": 1, "maxLength": 2000},
                "claims": {
                    "type": "array",
                    "maxItems": 10,
                    "items": {
                        "type": "object",
                        "properties": {
                            "text": {"type": "string", "maxLength": 500},
                            "run_ids": ids,
                            "session_ids": ids,
                            "turn_ids": ids,
                        },
                        "required": ["text", "run_ids", "session_ids", "turn_ids"],
                        "additionalProperties": false,
                    },
                },
            },
            "required": ["summary", "claims"],
            "additionalProperties": false,
        }),
    )
});

/// Parses the analyst's answer, which must follow [`ANALYSIS_SCHEMA`]
/// (prose or code fences around it are tolerated).
pub fn parse_analyst_reply(text: &str) -> Result<(String, Vec<Claim>), String> {
    #[derive(Deserialize)]
    struct Reply {
        summary: String,
        claims: Vec<Claim>,
    }
    let value = ANALYSIS_SCHEMA.read(text)?;
    let reply: Reply = serde_json::from_value(value).map_err(|e| e.to_string())?;
    if reply.summary.trim().is_empty() {
        return Err("the summary is empty".into());
    }
    Ok((reply.summary, reply.claims))
}

impl Platform {
    /// (Re)generates the analysis with the analyst model in force (see
    /// [`Platform::role_models`]), or the template without one.
    pub async fn generate_configured_analysis(&self, campaign_id: CampaignId) -> Result<Analysis> {
        let analyst = self
            .role_clients()
            .analyst
            .map(|c| self.metered(c, campaign_id.into(), crate::provenance::HostRole::Analyst));
        self.generate_analysis(
            campaign_id,
            analyst
                .as_ref()
                .map(|c| c as &dyn crate::role_models::ChatClient),
        )
        .await
    }

    /// (Re)generates and stores the analysis of a campaign. With an analyst
    /// model the model writes it; without one, or if the model fails or
    /// answers unusably, the template analysis is stored with the reason.
    pub async fn generate_analysis(
        &self,
        campaign_id: CampaignId,
        analyst: Option<&dyn ChatClient>,
    ) -> Result<Analysis> {
        let report = self.campaign_report(campaign_id).await?;
        let mut fallback_reason = None;
        let mut from_model = None;
        let mut output_mode = None;
        if let Some(client) = analyst {
            let budget = input_budget(
                self.role_models()
                    .get(crate::role_models::Role::Analyst)
                    .and_then(|m| m.input_tokens),
            );
            let input = serde_json::to_string(&analysis_input(&report, budget))?;
            let messages = [ChatMessage::system(SYSTEM_PROMPT), ChatMessage::user(input)];
            match client
                .complete_structured(&messages, &ANALYSIS_SCHEMA)
                .await
            {
                Ok(answer) => match parse_analyst_reply(&answer.reply.content) {
                    Ok(parsed) => {
                        from_model = Some((client.model_name(), parsed));
                        output_mode = Some(answer.mode);
                    }
                    Err(why) => {
                        fallback_reason = Some(format!(
                            "the analyst model's answer was not the requested JSON: {why}"
                        ))
                    }
                },
                Err(e) => fallback_reason = Some(format!("the analyst model failed: {e}")),
            }
        }
        if let Some(mode) = output_mode {
            self.note_output_mode(campaign_id, crate::role_models::Role::Analyst, mode)
                .await;
        }
        let (model, offline, (summary, claims)) = match from_model {
            Some((model, parsed)) => (model, false, parsed),
            None => ("template".to_string(), true, template_analysis(&report)),
        };
        let analysis = Analysis {
            id: self.ids.next_id(),
            campaign_id,
            model,
            offline,
            summary: summary.into(),
            claims,
            fallback_reason: fallback_reason.map(Into::into),
            output_mode,
            created_at: self.clock.now(),
        };
        self.store.insert_analysis(&analysis).await?;
        self.audit_operation("analysis.generate", Some(campaign_id.into()), "ok")
            .await;
        Ok(analysis)
    }

    /// The most recent analysis of a campaign, if any.
    pub async fn latest_analysis(&self, campaign_id: CampaignId) -> Result<Option<Analysis>> {
        self.store.latest_analysis(campaign_id).await
    }
}
