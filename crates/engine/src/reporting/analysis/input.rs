//! What the analyst model reads: a digest of the report within a budget,
//! never conversations or whole lists. The top of each list (the scenarios
//! that failed most, the most reported issues with two example sessions
//! each, the poor judge findings, the cells never explored or never
//! achieved) is kept, and the lists shrink until the digest fits; what was
//! left out is said in `left_out`, so that the analyst knows it reads the
//! top of longer lists.

use crate::domain::ids::{RunId, SessionId};
use crate::findings::ExplorationFindings;
use crate::i18n::Lang;
use crate::report::{CampaignReport, FixedSummary};
use crate::text::truncate;
use serde::Serialize;
use std::collections::BTreeMap;

pub use crate::role_models::{DEFAULT_INPUT_TOKENS, MIN_INPUT_TOKENS, input_budget};

/// A JSON digest spends about one token per four characters.
const CHARS_PER_TOKEN: usize = 4;
/// Items per list before the budget shrinks them.
const MOST_ITEMS: usize = 20;
/// Longest text kept of a check detail, an issue or a finding.
const TEXT_CHARS: usize = 160;

#[derive(Debug, Clone, Serialize)]
pub struct AnalysisInput {
    pub campaign: String,
    pub target: String,
    pub fixed: FixedDigest,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exploration: Option<ExplorationDigest>,
    /// What the lists leave out, e.g. "scenarios with failures: 12 of 40 listed".
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FixedDigest {
    pub runs_planned: u32,
    pub runs_finished: u32,
    pub passed: u32,
    pub failed: u32,
    pub errors: u32,
    pub pass_rate: Option<f64>,
    pub completion_rate: Option<f64>,
    pub key_field_coverage: Option<f64>,
    pub latency_p50_ms: Option<u64>,
    pub latency_p95_ms: Option<u64>,
    pub error_reasons: Vec<(String, u32)>,
    /// Why runs ended in error: the latest example of each kind, in the
    /// language asked for, with its run id to cite.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub error_examples: Vec<ErrorDigest>,
    /// Scenarios with failed or errored runs, most first.
    pub failing_scenarios: Vec<ScenarioDigest>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ErrorDigest {
    pub count: u32,
    pub run_id: RunId,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ScenarioDigest {
    pub scenario_id: String,
    pub title: String,
    pub runs: u32,
    pub failed: u32,
    pub errors: u32,
    /// Its two most frequent failing checks, each with one run to cite.
    pub failing_checks: Vec<CheckDigest>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckDigest {
    pub detail: String,
    pub count: u32,
    pub example_run_id: RunId,
}

#[derive(Debug, Clone, Serialize)]
pub struct ExplorationDigest {
    pub sessions_total: u32,
    pub records: u32,
    pub goal_achievement_rate: Option<f64>,
    pub simulator_faults: u32,
    pub sessions_by_end_reason: BTreeMap<String, u32>,
    /// Average judge score per dimension, with how many sessions it rests on.
    pub judge_scores: BTreeMap<String, (f64, u32)>,
    /// The most reported issues, two example sessions each.
    pub issues: Vec<IssueDigest>,
    /// Poor judge findings first, each citing its session and round.
    pub judge_findings: Vec<FindingDigest>,
    /// Persona × goal cells never explored, or explored and never achieved.
    pub coverage_gaps: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct IssueDigest {
    pub kind: String,
    pub text: String,
    pub sessions: u32,
    pub example_session_ids: Vec<SessionId>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FindingDigest {
    pub severity: String,
    pub dimension: Option<String>,
    pub text: String,
    pub session_id: SessionId,
    pub turn: Option<u32>,
}

/// The digest of `report` within `budget_tokens`, with why runs ended in
/// error (in `lang`).
pub fn analysis_input(
    report: &CampaignReport,
    errors: &[super::ErrorExample],
    lang: Lang,
    budget_tokens: usize,
) -> AnalysisInput {
    let mut input = digest(
        &report.campaign.name,
        &report.target_name,
        &report.fixed,
        report.exploration.as_ref(),
        budget_tokens,
    );
    input.fixed.error_examples = errors
        .iter()
        .take(3)
        .map(|e| ErrorDigest {
            count: e.count,
            run_id: e.run_id,
            reason: truncate(&e.error.text().render(lang), TEXT_CHARS),
        })
        .collect();
    input
}

/// The digest of the figures, its lists shrunk until its JSON fits
/// `budget_tokens` (at one item each it is as small as it gets).
pub fn digest(
    campaign: &str,
    target: &str,
    fixed: &FixedSummary,
    exploration: Option<&ExplorationFindings>,
    budget_tokens: usize,
) -> AnalysisInput {
    let budget = budget_tokens.saturating_mul(CHARS_PER_TOKEN);
    let mut items = MOST_ITEMS;
    loop {
        let input = build(campaign, target, fixed, exploration, items);
        let size = serde_json::to_string(&input).map(|s| s.len()).unwrap_or(0);
        if size <= budget || items == 1 {
            return input;
        }
        items = (items * 2 / 3).max(1);
    }
}

fn build(
    campaign: &str,
    target: &str,
    fixed: &FixedSummary,
    exploration: Option<&ExplorationFindings>,
    items: usize,
) -> AnalysisInput {
    let mut left_out = Vec::new();
    let mut listed = |what: &str, shown: usize, total: usize| {
        if shown < total {
            left_out.push(format!("{what}: {shown} of {total} listed"));
        }
    };
    let mut failing: Vec<_> = fixed
        .per_scenario
        .iter()
        .filter(|s| s.tally.failed + s.tally.errors > 0)
        .collect();
    failing.sort_by(|a, b| {
        (b.tally.failed + b.tally.errors)
            .cmp(&(a.tally.failed + a.tally.errors))
            .then(a.scenario_id.cmp(&b.scenario_id))
    });
    listed(
        "scenarios with failures",
        failing.len().min(items),
        failing.len(),
    );
    let fixed_digest = FixedDigest {
        runs_planned: fixed.runs_planned,
        runs_finished: fixed.runs_finished,
        passed: fixed.passed,
        failed: fixed.failed,
        errors: fixed.errors,
        pass_rate: fixed.pass_rate,
        completion_rate: fixed.completion_rate,
        key_field_coverage: fixed.key_field_coverage,
        latency_p50_ms: fixed.latency_p50_ms,
        latency_p95_ms: fixed.latency_p95_ms,
        error_reasons: fixed
            .error_reasons
            .iter()
            .take(items.min(5))
            .map(|e| (e.reason.clone(), e.count))
            .collect(),
        error_examples: Vec::new(),
        failing_scenarios: failing
            .iter()
            .take(items)
            .map(|s| ScenarioDigest {
                scenario_id: s.scenario_id.clone(),
                title: truncate(&s.title, TEXT_CHARS),
                runs: s.runs,
                failed: s.tally.failed,
                errors: s.tally.errors,
                failing_checks: s
                    .failing_checks
                    .iter()
                    .take(2)
                    .map(|c| CheckDigest {
                        detail: truncate(
                            &format!("{}: {}", c.kind, c.detail.render(crate::i18n::Lang::En)),
                            TEXT_CHARS,
                        ),
                        count: c.count,
                        example_run_id: c.example_run_id,
                    })
                    .collect(),
            })
            .collect(),
    };
    let exploration = exploration.map(|e| {
        listed("issues", e.issues.len().min(items), e.issues.len());
        let mut findings: Vec<_> = e.findings.iter().collect();
        // Poor first, then fair, then the rest; stable within a grade.
        findings.sort_by_key(|f| match f.severity.as_str() {
            "poor" | "severe" => 0,
            "fair" => 1,
            _ => 2,
        });
        listed("judge findings", findings.len().min(items), findings.len());
        let gaps: Vec<String> = e
            .coverage
            .personas
            .iter()
            .flat_map(|p| e.coverage.goals.iter().map(move |g| (p, g)))
            .filter_map(|(p, g)| {
                let cell = e
                    .coverage
                    .cells
                    .iter()
                    .find(|c| &c.persona_id == p && &c.goal_id == g);
                match cell {
                    None => Some(format!("{p} × {g}: not explored")),
                    Some(c) if c.sessions > 0 && c.achieved == 0 => Some(format!(
                        "{p} × {g}: never achieved in {} sessions",
                        c.sessions
                    )),
                    Some(_) => None,
                }
            })
            .collect();
        listed("coverage gaps", gaps.len().min(items), gaps.len());
        ExplorationDigest {
            sessions_total: e.sessions_total,
            records: e.records,
            goal_achievement_rate: e.goal_achievement_rate,
            simulator_faults: e.simulator_faults,
            sessions_by_end_reason: e.sessions_by_end_reason.clone(),
            judge_scores: e
                .judge
                .dimensions
                .iter()
                .map(|(k, d)| (k.clone(), (d.average, d.count)))
                .collect(),
            issues: e
                .issues
                .iter()
                .take(items)
                .map(|i| IssueDigest {
                    kind: i.kind.as_str().to_string(),
                    text: truncate(&i.text, TEXT_CHARS),
                    sessions: i.count,
                    example_session_ids: i.session_ids.iter().take(2).copied().collect(),
                })
                .collect(),
            judge_findings: findings
                .into_iter()
                .take(items)
                .map(|f| FindingDigest {
                    severity: f.severity.clone(),
                    dimension: f.dimension.clone(),
                    text: truncate(&f.text.render(crate::i18n::Lang::En), TEXT_CHARS),
                    session_id: f.session_id,
                    turn: f.turn,
                })
                .collect(),
            coverage_gaps: gaps.into_iter().take(items).collect(),
        }
    });
    AnalysisInput {
        campaign: truncate(campaign, TEXT_CHARS),
        target: truncate(target, TEXT_CHARS),
        fixed: fixed_digest,
        exploration,
        left_out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::{
        CoverageCell, CoverageGrid, Issue, IssueKind, JudgeFinding, JudgeSummary,
    };
    use crate::report::{FailingCheck, ScenarioStat, Tally};
    use uuid::Uuid;

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    /// A campaign of 100,000 sessions and 2,000 scenarios: every list far
    /// longer than any prompt could hold.
    fn huge() -> (FixedSummary, ExplorationFindings) {
        let per_scenario = (0..2000u32)
            .map(|i| ScenarioStat {
                scenario_id: format!("pack.scenario-{i:04}"),
                title: format!(
                    "Scenario {i} with a long descriptive title {}",
                    "x".repeat(200)
                ),
                pack: "pack".into(),
                group: None,
                runs: 50,
                tally: Tally::of(50 - i % 50, i % 50, 0),
                latency_ms_mean: None,
                failing_checks: (0..5)
                    .map(|c| FailingCheck {
                        kind: "contains".into(),
                        detail: format!("reply lacks {c} {}", "y".repeat(300)).into(),
                        count: 5 - c,
                        example_run_id: RunId(id(u128::from(i) * 10 + u128::from(c))),
                    })
                    .collect(),
            })
            .collect();
        let fixed = FixedSummary {
            runs_planned: 100_000,
            runs_finished: 100_000,
            passed: 60_000,
            failed: 40_000,
            per_scenario,
            ..Default::default()
        };
        let issues = (0..5000u32)
            .map(|i| Issue {
                kind: if i % 2 == 0 {
                    IssueKind::Blocker
                } else {
                    IssueKind::Misled
                },
                key: format!("k{i}"),
                text: format!("issue {i} {}", "z".repeat(400)),
                msg: None,
                texts: vec![format!("issue {i}")],
                count: 10_000 - i,
                session_ids: (0..50)
                    .map(|s| SessionId(id(1_000_000 + u128::from(i) * 100 + s)))
                    .collect(),
            })
            .collect();
        let findings = (0..100_000u32)
            .map(|i| JudgeFinding {
                session_id: SessionId(id(u128::from(i))),
                severity: if i % 3 == 0 {
                    "poor".into()
                } else {
                    "good".into()
                },
                dimension: Some("attitude".into()),
                text: format!("finding {i} {}", "w".repeat(300)).into(),
                evidence: Some("q".repeat(500).into()),
                turn: Some(i % 8 + 1),
                step: None,
            })
            .collect();
        let personas: Vec<String> = (0..40).map(|p| format!("persona-{p}")).collect();
        let goals: Vec<String> = (0..40).map(|g| format!("goal-{g}")).collect();
        let cells = personas
            .iter()
            .enumerate()
            .flat_map(|(pi, p)| goals.iter().map(move |g| (pi, p, g)))
            .filter(|(pi, _, _)| pi % 2 == 0)
            .map(|(_, p, g)| CoverageCell {
                persona_id: p.clone(),
                goal_id: g.clone(),
                sessions: 100,
                achieved: 0,
                issues: 3,
                production: 0,
            })
            .collect();
        let exploration = ExplorationFindings {
            sessions_total: 100_000,
            records: 90_000,
            issues,
            findings,
            judge: JudgeSummary::default(),
            coverage: CoverageGrid {
                personas,
                goals,
                cells,
                ..Default::default()
            },
            ..Default::default()
        };
        (fixed, exploration)
    }

    #[test]
    fn a_100k_session_campaign_fits_the_budget_with_the_top_of_each_list() {
        let (fixed, exploration) = huge();
        for budget in [DEFAULT_INPUT_TOKENS, 1000] {
            let input = digest("Big", "Agent", &fixed, Some(&exploration), budget);
            let json = serde_json::to_string(&input).unwrap();
            assert!(
                json.len() <= budget * CHARS_PER_TOKEN,
                "{} characters for a budget of {budget} tokens",
                json.len()
            );
            let e = input.exploration.as_ref().unwrap();
            assert!(!e.issues.is_empty() && !e.judge_findings.is_empty());
            assert_eq!(
                e.issues[0].sessions, 10_000,
                "the most reported issue first"
            );
            assert_eq!(
                e.issues[0].example_session_ids.len(),
                2,
                "two sessions to cite"
            );
            assert!(
                e.judge_findings.iter().all(|f| f.severity == "poor"),
                "poor findings first"
            );
            assert!(e.coverage_gaps[0].ends_with("never achieved in 100 sessions"));
            assert_eq!(
                input.fixed.failing_scenarios[0].failed, 49,
                "the scenario that failed most first"
            );
            assert!(input.fixed.failing_scenarios[0].failing_checks.len() <= 2);
            for what in [
                "issues: ",
                "judge findings: ",
                "coverage gaps: ",
                "scenarios with failures: ",
            ] {
                assert!(
                    input.left_out.iter().any(|l| l.starts_with(what)),
                    "{what} {:?}",
                    input.left_out
                );
            }
        }
        assert_eq!(
            input_budget(None),
            DEFAULT_INPUT_TOKENS,
            "unset: the default"
        );
        assert_eq!(input_budget(Some(1200)), 1200, "the analyst's setting");
        assert_eq!(
            input_budget(Some(100)),
            DEFAULT_INPUT_TOKENS,
            "too small to analyse: the default"
        );
    }

    #[test]
    fn a_small_campaign_goes_whole() {
        let (mut fixed, mut exploration) = huge();
        fixed.per_scenario.truncate(3);
        exploration.issues.truncate(2);
        exploration.findings.truncate(4);
        exploration.coverage = CoverageGrid::default();
        let input = digest(
            "Small",
            "Agent",
            &fixed,
            Some(&exploration),
            DEFAULT_INPUT_TOKENS,
        );
        assert!(input.left_out.is_empty(), "{:?}", input.left_out);
        assert_eq!(input.exploration.unwrap().judge_findings.len(), 4);
        assert_eq!(
            input.fixed.failing_scenarios.len(),
            2,
            "the scenario without failures is not listed"
        );
    }
}
