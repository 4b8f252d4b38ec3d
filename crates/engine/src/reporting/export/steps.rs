//! The steps of failed runs in the exports: what an agent that acts did,
//! call by call, where a run failed. The Markdown appendix, the JSON
//! export's `failed_runs`, the CSV columns and the JUnit check line. None
//! of them writes anything when no run has steps, so that the exports of
//! agents that only talk read as before.

use super::markdown::{code, escape_inline};
use super::*;
use crate::domain::evidence::EvidenceNames;
use crate::domain::ids::RunId;
use crate::domain::run::CheckResult;
use crate::domain::steps::{Step, StepAnswer};
use crate::i18n::{Lang, Msg};
use crate::msg;

/// The failed runs whose steps the exports carry, at most: the first in
/// plan order.
pub const MAX_FAILED_RUNS_WITH_STEPS: usize = 100;
/// Characters of a step's arguments the Markdown shows.
const ARGUMENTS_SHOWN: usize = 120;
/// Characters of a step's result the Markdown shows.
const RESULT_SHOWN: usize = 200;

/// The steps of one failed run, turn by turn.
#[derive(Debug, Clone, Serialize)]
pub struct RunSteps {
    pub run_id: RunId,
    pub scenario_id: String,
    pub seq: u32,
    /// The run's failed checks; each names its turn and, when it is about
    /// one, its step.
    pub failed_checks: Vec<CheckResult>,
    /// The turns with steps, in order.
    pub turns: Vec<TurnSteps>,
}

/// The steps the target took before one of its replies.
#[derive(Debug, Clone, Serialize)]
pub struct TurnSteps {
    /// 0-based, as a check's `turn`.
    pub turn: u32,
    pub steps: Vec<Step>,
}

/// The JSON export: the report as the API serves it, and the steps of its
/// failed runs when any run has them (absent otherwise, so that the export
/// of agents without tools is the report's JSON as before).
#[derive(Serialize)]
pub struct JsonExport<'a> {
    #[serde(flatten)]
    pub report: &'a CampaignReport,
    #[serde(skip_serializing_if = "no_runs")]
    pub failed_runs: &'a [RunSteps],
}

fn no_runs(runs: &&[RunSteps]) -> bool {
    runs.is_empty()
}

/// The turns with steps of a run's conversation, numbered as checks number
/// them (the target's replies, from 0).
pub fn turns_with_steps(turns: Vec<crate::domain::run::RunTurn>) -> Vec<TurnSteps> {
    turns
        .into_iter()
        .filter(|t| t.role == "target")
        .enumerate()
        .filter(|(_, t)| !t.steps.is_empty())
        .map(|(i, t)| TurnSteps {
            turn: i as u32,
            steps: t.steps,
        })
        .collect()
}

/// A failed check in one line, as JUnit shows it: the turn, the check and,
/// when it is about one, the step, e.g.
/// `turn 1 recovers_from_error (step 3): …`.
pub fn check_line(c: &CheckResult, lang: Lang) -> String {
    let step = c.step.map(|s| format!(" (step {s})")).unwrap_or_default();
    format!(
        "turn {} {}{step}: {}",
        c.turn + 1,
        c.kind,
        c.detail.render(lang)
    )
}

impl crate::platform::Platform {
    /// The steps of the campaign's failed runs that took any (the first
    /// [`MAX_FAILED_RUNS_WITH_STEPS`] in plan order). Reads nothing when the
    /// report counts no failed run, and no run that took no step.
    pub async fn failed_run_steps(
        &self,
        campaign_id: CampaignId,
        report: &CampaignReport,
    ) -> crate::Result<Vec<RunSteps>> {
        if report.fixed.failed == 0 {
            return Ok(Vec::new());
        }
        let failed = self
            .store
            .failed_runs_with_steps(campaign_id, MAX_FAILED_RUNS_WITH_STEPS as u32)
            .await?;
        let mut out = Vec::new();
        for r in failed {
            let turns = turns_with_steps(self.run_turns(r.id).await?);
            if turns.is_empty() {
                continue;
            }
            out.push(RunSteps {
                run_id: r.id,
                scenario_id: r.scenario_id,
                seq: r.seq,
                failed_checks: r.check_results.into_iter().filter(|c| !c.passed).collect(),
                turns,
            });
        }
        Ok(out)
    }

    /// The names of the runs `steps` shows, by their scenarios' titles.
    pub(super) async fn step_run_names(
        &self,
        campaign_id: CampaignId,
        report: &CampaignReport,
        steps: &[RunSteps],
    ) -> crate::Result<EvidenceNames> {
        if steps.is_empty() {
            return Ok(EvidenceNames::default());
        }
        let ids: Vec<RunId> = steps.iter().map(|r| r.run_id).collect();
        let titles = report
            .fixed
            .per_scenario
            .iter()
            .map(|s| (s.scenario_id.as_str(), s.title.as_str()))
            .collect();
        self.evidence_names(campaign_id, &ids, &[], &titles).await
    }
}

/// The Markdown appendix of the failed runs' steps: under each run its
/// failed checks, then under each turn its steps (tool, arguments, answer).
/// Writes nothing when `runs` is empty.
pub fn steps_appendix(md: &mut String, runs: &[RunSteps], names: &EvidenceNames, lang: Lang) {
    if runs.is_empty() {
        return;
    }
    let tr = |m: Msg| m.render(lang);
    let _ = writeln!(md, "{}", tr(msg!("md-steps")));
    let _ = writeln!(md);
    let _ = writeln!(md, "{}", tr(msg!("md-steps-intro")));
    let _ = writeln!(md);
    for r in runs {
        let name = escape_inline(&names.run_msg(r.run_id).render(lang));
        let _ = writeln!(md, "{}", tr(msg!("md-steps-run", name = name)));
        let _ = writeln!(md);
        let _ = writeln!(
            md,
            "{}",
            tr(msg!("md-steps-run-id", id = r.run_id.to_string()))
        );
        for c in &r.failed_checks {
            let detail = escape_inline(&truncate(&c.detail.render(lang), 300));
            let line = match c.step {
                Some(step) => msg!(
                    "md-steps-check-at",
                    kind = Msg::name("check-kind", &c.kind),
                    turn = c.turn + 1,
                    step = step,
                    detail = detail
                ),
                None => msg!(
                    "md-steps-check",
                    kind = Msg::name("check-kind", &c.kind),
                    turn = c.turn + 1,
                    detail = detail
                ),
            };
            let _ = writeln!(md, "{}", tr(line));
        }
        let _ = writeln!(md);
        for t in &r.turns {
            let _ = writeln!(
                md,
                "{}",
                tr(msg!(
                    "md-steps-turn",
                    turn = t.turn + 1,
                    count = t.steps.len()
                ))
            );
            let _ = writeln!(md);
            for (i, s) in t.steps.iter().enumerate() {
                let _ = writeln!(md, "{}", step_line(i + 1, s, lang));
            }
            let _ = writeln!(md);
        }
    }
}

/// One step as a list item: number, tool, arguments, answer.
pub(super) fn step_line(number: usize, s: &Step, lang: Lang) -> String {
    let tr = |m: Msg| m.render(lang);
    let arguments = truncate(&s.call.arguments.to_string(), ARGUMENTS_SHOWN);
    let answer = match &s.answer {
        StepAnswer::Result(v) => msg!(
            "md-step-result",
            result = code(&truncate(&shown(v), RESULT_SHOWN))
        ),
        StepAnswer::Simulated(v) => msg!(
            "md-step-simulated",
            result = code(&truncate(&shown(v), RESULT_SHOWN))
        ),
        StepAnswer::SimulatedError(e) => msg!(
            "md-step-simulated-error",
            code = code(&e.code),
            message = escape_inline(&truncate(&e.message, RESULT_SHOWN))
        ),
        StepAnswer::Error(e) if e.suggestion.trim().is_empty() => msg!(
            "md-step-error",
            code = code(&e.code),
            message = escape_inline(&truncate(&e.message, RESULT_SHOWN))
        ),
        StepAnswer::Error(e) => msg!(
            "md-step-error-suggestion",
            code = code(&e.code),
            message = escape_inline(&truncate(&e.message, RESULT_SHOWN)),
            suggestion = escape_inline(&truncate(&e.suggestion, RESULT_SHOWN))
        ),
    };
    tr(msg!(
        "md-step",
        number = number,
        tool = code(&s.call.name),
        arguments = code(&arguments),
        answer = answer
    ))
}

/// A result as text: a string as it is, anything else as JSON.
fn shown(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// The tools each run called, in order, for the CSV export: from the
/// steps of every turn of the campaign, in plan order.
pub(super) fn tools_by_run(
    steps: Vec<(RunId, Vec<Step>)>,
) -> std::collections::HashMap<RunId, Vec<String>> {
    let mut out: std::collections::HashMap<RunId, Vec<String>> = Default::default();
    for (run, turn) in steps {
        out.entry(run)
            .or_default()
            .extend(turn.into_iter().map(|s| s.call.name));
    }
    out
}
