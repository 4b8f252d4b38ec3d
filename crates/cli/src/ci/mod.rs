//! What `agenteval run` and `agenteval compare` share: the config file,
//! per-scenario results, the two sides of a comparison (a campaign in the
//! data folder or a JSON export), the gate and the JUnit output. The
//! statistics (flips, pass^k) are the period comparison's, from the
//! engine; the pass rate's interval is Wilson's.

pub mod config;
pub mod junit;

use agenteval_engine::Platform;
use agenteval_engine::campaign::Campaign;
use agenteval_engine::comparison::{self, ModelsUsed, Outcomes, PeriodComparison, PeriodDelta};
use agenteval_engine::export::pct;
use agenteval_engine::i18n::{Arg, Lang, Msg};
use agenteval_engine::msg;
use agenteval_engine::report::FixedSummary;
use std::path::Path;

/// Exit codes of `run` and `compare`.
pub mod exit {
    /// The gate passed (compare: no regression outside the noise).
    pub const PASSED: u8 = 0;
    /// The gate failed (compare: a regression outside the noise).
    pub const FAILED: u8 = 1;
    /// Bad config or usage: nothing was judged.
    pub const USAGE: u8 = 2;
    /// The target or a required model could not be reached: no verdict.
    pub const UNREACHABLE: u8 = 3;
}

/// How a scenario's repeats came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every judged run passed.
    Passed,
    /// Every judged run failed.
    Failed,
    /// Some runs passed and some failed: the repeats disagree.
    Flaky,
    /// No run got a verdict (every run ended in error).
    Error,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Passed => "PASS",
            Outcome::Failed => "FAIL",
            Outcome::Flaky => "FLAKY",
            Outcome::Error => "ERROR",
        }
    }
}

/// One scenario's results in a campaign.
#[derive(Debug, Clone)]
pub struct ScenarioResult {
    pub id: String,
    pub title: String,
    pub pack: String,
    pub passed: u32,
    pub failed: u32,
    pub errors: u32,
    pub outcome: Outcome,
    /// The most frequent failing check, in plain words.
    pub first_failure: Option<String>,
}

/// Each scenario's outcome; its first failing check's detail in `lang`.
pub fn scenario_results(fixed: &FixedSummary, lang: Lang) -> Vec<ScenarioResult> {
    fixed
        .per_scenario
        .iter()
        .map(|s| {
            let (p, f) = (s.tally.passed, s.tally.failed);
            let outcome = match (p, f) {
                (0, 0) => Outcome::Error,
                (_, 0) => Outcome::Passed,
                (0, _) => Outcome::Failed,
                _ => Outcome::Flaky,
            };
            ScenarioResult {
                id: s.scenario_id.clone(),
                title: s.title.clone(),
                pack: s.pack.clone(),
                passed: p,
                failed: f,
                errors: s.tally.errors,
                outcome,
                first_failure: s
                    .failing_checks
                    .first()
                    .map(|c| format!("{}: {}", c.kind, c.detail.render(lang))),
            }
        })
        .collect()
}

/// Passed/failed outcomes per scenario from a summary's tallies (errors
/// excluded, as from the pass rate). The order of runs plays no part in
/// the comparison, so the tallies carry all it needs.
pub fn outcomes(fixed: &FixedSummary) -> Outcomes {
    fixed
        .per_scenario
        .iter()
        .filter(|s| s.tally.passed + s.tally.failed > 0)
        .map(|s| {
            let mut v = vec![true; s.tally.passed as usize];
            v.extend(std::iter::repeat_n(false, s.tally.failed as usize));
            (s.scenario_id.clone(), v)
        })
        .collect()
}

/// 95% Wilson score interval of a pass rate over the judged runs. Unlike a
/// bootstrap of the runs, it stays honest at the edges: 0 passed out of 5
/// reads "0.0% to 43.4%", not "0.0% to 0.0%".
pub fn pass_rate_interval(o: &Outcomes) -> Option<(f64, f64)> {
    let n = o.values().map(Vec::len).sum::<usize>();
    let passed = o.values().flatten().filter(|p| **p).count();
    agenteval_engine::domain::stats::wilson(passed as u32, n as u32).map(|i| (i.low, i.high))
}

/// The pass rate with its interval and the number of judged runs.
pub fn rate_with_interval(o: &Outcomes, lang: Lang) -> String {
    let n = o.values().map(Vec::len).sum::<usize>();
    let passed = o.values().flatten().filter(|p| **p).count();
    let rate = (n > 0).then(|| passed as f64 / n as f64);
    match pass_rate_interval(o) {
        Some((lo, hi)) => msg!(
            "rate-interval",
            rate = pct(rate),
            low = pct(Some(lo)),
            high = pct(Some(hi)),
            runs = n
        ),
        None => msg!("rate-no-judged", rate = pct(rate)),
    }
    .render(lang)
}

/// One side of a comparison: a campaign's fixed results and identity.
#[derive(Debug, Clone)]
pub struct Side {
    /// Where it came from, for messages.
    pub label: String,
    pub campaign: Campaign,
    pub fixed: FixedSummary,
    /// Which models played each role (from an export that does not record
    /// them: the target's identity only).
    pub models: ModelsUsed,
    /// Whether `models` names the user and judge models too.
    pub models_complete: bool,
}

/// Reads a side from a JSON export file.
pub fn side_from_file(path: &Path) -> Result<Side, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    let not_export = |what: &str, e: serde_json::Error| {
        format!(
            "{} is not a JSON export of a campaign ({what}: {e}); write one with `agenteval run` or `agenteval export --format json`",
            path.display()
        )
    };
    let campaign: Campaign = serde_json::from_value(v.get("campaign").cloned().unwrap_or_default())
        .map_err(|e| not_export("campaign", e))?;
    let fixed: FixedSummary = serde_json::from_value(v.get("fixed").cloned().unwrap_or_default())
        .map_err(|e| not_export("fixed", e))?;
    let recorded: Option<ModelsUsed> = v
        .get("models")
        .and_then(|m| serde_json::from_value(m.clone()).ok());
    let models_complete = recorded.is_some();
    let models = recorded.unwrap_or_else(|| ModelsUsed {
        target: v
            .get("target_model")
            .and_then(|t| t.as_str())
            .unwrap_or_default()
            .to_string(),
        virtual_user: None,
        judge: None,
        output_modes: Default::default(),
    });
    Ok(Side {
        label: path.display().to_string(),
        campaign,
        fixed,
        models,
        models_complete,
    })
}

/// Reads a side from a campaign in the data folder.
pub async fn side_from_campaign(platform: &Platform, id: uuid::Uuid) -> Result<Side, String> {
    let report = platform
        .campaign_report(agenteval_engine::CampaignId(id))
        .await
        .map_err(|e| format!("{} ({})", e.body.message, e.body.suggestion))?;
    Ok(Side {
        label: format!("campaign {id}"),
        campaign: report.campaign,
        fixed: report.fixed,
        models: report.models,
        models_complete: true,
    })
}

/// `current` against `baseline` with the engine's period comparison; notes
/// say what the baseline did not record.
pub fn compare_sides(baseline: &Side, current: &Side) -> (PeriodComparison, Vec<Msg>) {
    let mut notes = Vec::new();
    let mut current_models = current.models.clone();
    let mut baseline_models = baseline.models.clone();
    // What one side does not record is not compared (never reported as a
    // difference it cannot show).
    for (side, other, models) in [
        (current, &baseline.models, &mut current_models),
        (baseline, &current.models, &mut baseline_models),
    ] {
        if !side.models_complete {
            notes.push(msg!("gate-models-unrecorded", side = side.label.as_str()));
            models.virtual_user = other.virtual_user.clone();
            models.judge = other.judge.clone();
        }
    }
    let cmp = comparison::compare(
        (
            &current.campaign,
            &outcomes(&current.fixed),
            &current_models,
        ),
        &[(
            baseline.campaign.clone(),
            outcomes(&baseline.fixed),
            baseline_models,
        )],
    );
    (cmp, notes)
}

/// Scenarios that passed every run of the baseline and failed every run
/// now.
pub fn regressions(baseline: &FixedSummary, current: &FixedSummary) -> Vec<String> {
    let before: std::collections::HashMap<&str, &agenteval_engine::report::Tally> = baseline
        .per_scenario
        .iter()
        .map(|s| (s.scenario_id.as_str(), &s.tally))
        .collect();
    current
        .per_scenario
        .iter()
        .filter(|s| s.tally.passed == 0 && s.tally.failed > 0)
        .filter(|s| {
            before
                .get(s.scenario_id.as_str())
                .is_some_and(|t| t.passed > 0 && t.failed == 0)
        })
        .map(|s| s.scenario_id.clone())
        .collect()
}

/// Whether a comparison shows a drop beyond the noise floor.
pub fn dropped_beyond_noise(p: &PeriodDelta) -> bool {
    !p.within_noise && p.delta.is_some_and(|d| d < 0.0)
}

/// The gate's verdict: why it failed (empty when it passed) and what else
/// it has to say.
#[derive(Debug, Clone, Default)]
pub struct GateVerdict {
    pub failures: Vec<Msg>,
    pub notes: Vec<Msg>,
}

impl GateVerdict {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }

    /// The verdict in one sentence.
    pub fn sentence(&self, lang: Lang) -> String {
        let join = |items: &[Msg]| {
            items
                .iter()
                .map(|m| m.render(lang))
                .collect::<Vec<_>>()
                .join(&msg!("md-clause-separator").render(lang))
        };
        if !self.passed() {
            msg!("gate-failed", why = join(&self.failures))
        } else if self.notes.is_empty() {
            msg!("gate-passed")
        } else {
            msg!("gate-passed-notes", notes = join(&self.notes))
        }
        .render(lang)
    }
}

/// What the gate looks at.
pub struct GateInput<'a> {
    pub pass_rate: Option<f64>,
    pub min_pass_rate: Option<f64>,
    /// The comparison with the baseline, when there is one.
    pub baseline: Option<&'a PeriodDelta>,
    pub regressions: &'a [String],
    pub flaky: &'a [String],
    pub fail_on_flaky: bool,
}

pub fn gate(input: &GateInput<'_>) -> GateVerdict {
    let mut v = GateVerdict::default();
    match (input.min_pass_rate, input.pass_rate) {
        (Some(min), Some(rate)) if rate < min => v.failures.push(msg!(
            "gate-below-minimum",
            rate = pct(Some(rate)),
            min = pct(Some(min))
        )),
        (Some(min), Some(rate)) => v.notes.push(msg!(
            "gate-meets-minimum",
            rate = pct(Some(rate)),
            min = pct(Some(min))
        )),
        _ => {}
    }
    if let Some(p) = input.baseline {
        let change = p.delta.map(|d| format!("{:+.1}", d * 100.0));
        let interval: Arg = match p.ci_low.zip(p.ci_high) {
            Some((l, h)) => msg!(
                "gate-interval",
                low = format!("{:+.1}", l * 100.0),
                high = format!("{:+.1}", h * 100.0)
            )
            .into(),
            None => Arg::Str(String::new()),
        };
        match change {
            Some(change) if dropped_beyond_noise(p) => v.failures.push(msg!(
                "gate-dropped",
                drop = format!("{:.1}", p.delta.unwrap_or_default().abs() * 100.0),
                change = change,
                interval = interval
            )),
            Some(change) => v.notes.push(msg!(
                "gate-within-noise",
                change = change,
                interval = interval
            )),
            None => v.notes.push(msg!("gate-too-few")),
        }
    }
    if !input.regressions.is_empty() {
        v.failures.push(msg!(
            "gate-regressed",
            count = input.regressions.len(),
            scenarios = input.regressions.join(", ")
        ));
    }
    if !input.flaky.is_empty() {
        let list = input.flaky.join(", ");
        if input.fail_on_flaky {
            v.failures
                .push(msg!("gate-flaky-failing", scenarios = list));
        } else {
            v.notes.push(msg!("gate-flaky", scenarios = list));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use agenteval_engine::report::{ScenarioStat, Tally};

    fn summary(spec: &[(&str, u32, u32)]) -> FixedSummary {
        FixedSummary {
            per_scenario: spec
                .iter()
                .map(|(id, p, f)| ScenarioStat {
                    scenario_id: (*id).into(),
                    title: (*id).into(),
                    pack: "p".into(),
                    group: None,
                    runs: p + f,
                    tally: Tally::of(*p, *f, 0),
                    latency_ms_mean: None,
                    failing_checks: Vec::new(),
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn outcomes_and_regressions_follow_the_tallies() {
        let base = summary(&[("a", 3, 0), ("b", 3, 0), ("c", 1, 2)]);
        let now = summary(&[("a", 0, 3), ("b", 2, 1), ("c", 0, 3)]);
        assert_eq!(regressions(&base, &now), vec!["a".to_string()]);
        let o = outcomes(&now);
        assert_eq!(o["b"], vec![true, true, false]);
        let kinds: Vec<Outcome> = scenario_results(&now, Lang::En)
            .iter()
            .map(|r| r.outcome)
            .collect();
        assert_eq!(
            kinds,
            vec![Outcome::Failed, Outcome::Flaky, Outcome::Failed]
        );
    }

    #[test]
    fn the_pass_rate_interval_is_wilsons_and_honest_at_the_edges() {
        let o: Outcomes = [("a".to_string(), vec![true, true, true, false])].into();
        let (lo, hi) = pass_rate_interval(&o).expect("interval");
        // Worked by hand: 3 of 4, z = 1.96.
        assert!(
            (lo - 0.3006).abs() < 1e-3 && (hi - 0.9544).abs() < 1e-3,
            "{lo}..{hi}"
        );
        let none_passed: Outcomes = [("a".to_string(), vec![false; 5])].into();
        let (lo, hi) = pass_rate_interval(&none_passed).expect("interval");
        assert_eq!(lo, 0.0);
        assert!(
            (hi - 0.4345).abs() < 1e-3,
            "0 of 5 could still be 43%: {hi}"
        );
        assert_eq!(
            rate_with_interval(&none_passed, Lang::En),
            "0.0% (95% interval 0.0% to 43.4%, 5 judged runs)"
        );
        let all_passed: Outcomes = [("a".to_string(), vec![true; 5])].into();
        assert!(pass_rate_interval(&all_passed).expect("interval").0 > 0.56);
        assert_eq!(pass_rate_interval(&Outcomes::new()), None);
    }

    #[test]
    fn the_gate_fails_on_threshold_regression_or_flaky_only_when_told() {
        let flaky = vec!["x".to_string()];
        let none: Vec<String> = Vec::new();
        let input = |min, fail_on_flaky, regressions: &'static [String]| GateInput {
            pass_rate: Some(0.8),
            min_pass_rate: min,
            baseline: None,
            regressions,
            flaky: &[],
            fail_on_flaky,
        };
        assert!(gate(&input(Some(0.7), false, &[])).passed());
        let v = gate(&input(Some(0.9), false, &[]));
        assert!(
            !v.passed() && v.sentence(Lang::En).contains("below the minimum 90.0%"),
            "{}",
            v.sentence(Lang::En)
        );
        let mut i = input(None, false, &[]);
        i.flaky = &flaky;
        assert!(gate(&i).passed(), "flaky alone does not fail");
        i.fail_on_flaky = true;
        assert!(!gate(&i).passed(), "unless told");
        i.flaky = &none;
        assert!(gate(&i).passed());
    }
}
