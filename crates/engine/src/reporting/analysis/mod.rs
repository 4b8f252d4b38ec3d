//! The campaign analysis: one conclusion over both evidence lines. The
//! analyst model receives a digest of the report within a token budget
//! (`input.rs`: the top failing scenarios, issues, judge findings and
//! coverage gaps, with ids to cite), never whole conversations, and must
//! cite the run, session and turn ids behind each claim. Without a
//! model (or when it fails) a template analysis is built from the figures
//! and labelled as such.

use crate::channel::ChatMessage;
use crate::domain::ids::{CampaignId, RunId};
use crate::domain::run::{Run, RunError};
use crate::error::Result;
use crate::i18n::{Arg, Lang, Msg, Text, percent_or_na};
use crate::msg;
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

/// Why runs of one kind ended in error: how many, and the latest of them
/// (its reason in the reader's words).
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorExample {
    pub count: u32,
    pub run_id: RunId,
    pub error: RunError,
}

/// One example per error kind of the report, from the campaign's latest
/// errored runs (`latest`, the latest first), most frequent kind first.
pub fn error_examples(report: &CampaignReport, latest: &[Run]) -> Vec<ErrorExample> {
    report
        .fixed
        .error_reasons
        .iter()
        .filter_map(|r| {
            let run = latest
                .iter()
                .find(|run| run.error.as_ref().is_some_and(|e| e.kind == r.reason))?;
            Some(ErrorExample {
                count: r.count,
                run_id: run.id,
                error: run.error.clone()?,
            })
        })
        .collect()
}

/// The template analysis: built from the figures, labelled as such; its
/// sentences are messages, read in any language. Runs in error are an
/// outcome of their own: said first, each kind with why, never hidden by
/// a pass rate that leaves them out.
pub fn template_analysis(report: &CampaignReport, errors: &[ErrorExample]) -> (Text, Vec<Claim>) {
    let f = &report.fixed;
    let mut claims = Vec::new();
    let judged = f.passed + f.failed;
    let fixed = if judged == 0 && f.errors > 0 {
        msg!("analysis-fixed-all-errored", errors = f.errors)
    } else {
        msg!(
            "analysis-fixed",
            rate = percent_or_na(f.pass_rate),
            judged = judged,
            passed = f.passed,
            failed = f.failed,
            errors = f.errors
        )
    };
    for e in errors.iter().take(3) {
        claims.push(Claim {
            text: msg!("analysis-errors", count = e.count, error = e.error.text()).into(),
            run_ids: vec![e.run_id.to_string()],
            ..Default::default()
        });
    }
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
        // Two failing checks may have the same example run: cited once.
        let mut run_ids: Vec<String> = Vec::new();
        for c in &s.failing_checks {
            let id = c.example_run_id.to_string();
            if !run_ids.contains(&id) {
                run_ids.push(id);
            }
        }
        let judged = s.tally.passed + s.tally.failed;
        let text = match s.failing_checks.first() {
            Some(c) => msg!(
                "analysis-scenario-fails-because",
                title = s.title.as_str(),
                failed = s.tally.failed,
                judged = judged,
                detail = c.detail.clone(),
                kind = Msg::name("check-kind", &c.kind)
            ),
            None => msg!(
                "analysis-scenario-fails",
                title = s.title.as_str(),
                failed = s.tally.failed,
                judged = judged
            ),
        };
        claims.push(Claim {
            text: text.into(),
            run_ids,
            ..Default::default()
        });
    }
    let mut exploration = Arg::Str(String::new());
    if let Some(e) = &report.exploration {
        exploration = msg!(
            "analysis-exploration",
            sessions = e.sessions_total,
            achieved = e.goal_achievement_rate.map_or_else(
                || Arg::Msg(Msg::new("value-na")),
                |r| { Arg::Str(format!("{:.0}%", r * 100.0)) }
            )
        )
        .into();
        for issue in e.issues.iter().take(5) {
            let what: Arg = match &issue.msg {
                Some(m) => Arg::Msg(m.clone()),
                None => Arg::Str(issue.text.clone()),
            };
            claims.push(Claim {
                text: msg!("analysis-issue", issue = what, count = issue.count).into(),
                session_ids: issue.session_ids.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            });
        }
    }
    let nothing: Arg = if claims.is_empty() && f.errors == 0 {
        msg!("analysis-nothing").into()
    } else {
        Arg::Str(String::new())
    };
    let summary = msg!(
        "analysis-summary",
        fixed = fixed,
        exploration = exploration,
        nothing = nothing
    );
    (summary.into(), claims)
}

/// What the analyst model is told about the language to write in.
fn write_in(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "Write the summary and every claim in English.",
        Lang::Zh => {
            "Write the summary and every claim in Simplified Chinese (简体中文); keep ids, figures and quoted text as they are."
        }
    }
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
/// (prose or code fences around it are tolerated); otherwise what is
/// wrong, in the reader's words.
pub fn parse_analyst_reply(text: &str) -> Result<(String, Vec<Claim>), crate::i18n::Msg> {
    #[derive(Deserialize)]
    struct Reply {
        summary: String,
        claims: Vec<Claim>,
    }
    let value = ANALYSIS_SCHEMA
        .read(text)
        .map_err(|e| e.logged("the analysis"))?;
    let reply: Reply =
        serde_json::from_value(value).map_err(|_| msg!("model-answer-off-schema"))?;
    if reply.summary.trim().is_empty() {
        return Err(msg!("model-answer-empty-summary"));
    }
    Ok((reply.summary, reply.claims))
}

impl Platform {
    /// (Re)generates the analysis with the analyst model in force (see
    /// [`Platform::role_models`]), or the template without one.
    pub async fn generate_configured_analysis(
        &self,
        campaign_id: CampaignId,
        lang: Lang,
    ) -> Result<Analysis> {
        let analyst = self
            .role_clients()
            .analyst
            .map(|c| self.metered(c, campaign_id.into(), crate::provenance::HostRole::Analyst));
        self.generate_analysis(
            campaign_id,
            analyst
                .as_ref()
                .map(|c| c as &dyn crate::role_models::ChatClient),
            lang,
        )
        .await
    }

    /// (Re)generates and stores the analysis of a campaign. With an analyst
    /// model the model writes it; without one, or if the model fails or
    /// answers unusably, the template analysis is stored with the reason.
    /// The model is asked to write in `lang`, and the digest it reads says
    /// so; the template is messages, read in any language.
    pub async fn generate_analysis(
        &self,
        campaign_id: CampaignId,
        analyst: Option<&dyn ChatClient>,
        lang: Lang,
    ) -> Result<Analysis> {
        let report = self.campaign_report(campaign_id).await?;
        let errors = if report.fixed.errors > 0 {
            let latest = self.store.errored_runs(campaign_id, 200).await?;
            error_examples(&report, &latest)
        } else {
            Vec::new()
        };
        let mut fallback_reason = None;
        let mut from_model = None;
        let mut output_mode = None;
        if let Some(client) = analyst {
            let budget = input_budget(
                self.role_models()
                    .get(crate::role_models::Role::Analyst)
                    .and_then(|m| m.input_tokens),
            );
            let mut input = serde_json::to_value(analysis_input(&report, &errors, lang, budget))?;
            input["language"] = json!(lang.as_str());
            let system = format!("{SYSTEM_PROMPT} {}", write_in(lang));
            let messages = [
                ChatMessage::system(system),
                ChatMessage::user(input.to_string()),
            ];
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
                        fallback_reason = Some(msg!("analysis-fallback-malformed", detail = why))
                    }
                },
                Err(e) => {
                    fallback_reason = Some(msg!("analysis-fallback-failed", detail = e.to_string()))
                }
            }
        }
        if let Some(mode) = output_mode {
            self.note_output_mode(campaign_id, crate::role_models::Role::Analyst, mode)
                .await;
        }
        let (model, offline, (summary, claims), written_in) = match from_model {
            Some((model, (summary, claims))) => {
                (model, false, (summary.into(), claims), Some(lang))
            }
            None => (
                "template".to_string(),
                true,
                template_analysis(&report, &errors),
                None,
            ),
        };
        let analysis = Analysis {
            id: self.ids.next_id(),
            campaign_id,
            model,
            offline,
            summary,
            claims,
            fallback_reason: fallback_reason.map(Into::into),
            output_mode,
            lang: written_in,
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
