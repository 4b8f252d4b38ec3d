//! The summary `agenteval run` prints on stdout: the campaign, the pass
//! rate, each scenario, the judge, flaky scenarios and errors, exploration,
//! the baseline and the exports.

use super::*;
use agenteval_engine::calibration::{JudgeCalibration, RUBRIC};
use agenteval_engine::findings::ExplorationFindings;
use std::io::Write;

pub(super) fn print(s: &Setup, done: &Concluded, explored: usize, written: &[PathBuf]) {
    let lang = crate::lang();
    let say = |m: agenteval_engine::Msg| println!("{}", m.render(lang));
    let report = &done.report;
    let f = &report.fixed;
    let results = &done.results;
    say(msg!("run-title", name = report.campaign.name.as_str()));
    say(msg!(
        "run-campaign",
        id = report.campaign.id.to_string(),
        data = s.data_dir.display().to_string()
    ));
    say(msg!(
        "run-target",
        name = report.target_name.as_str(),
        model = report.target_model.as_str()
    ));
    say(msg!(
        "run-pass-rate",
        rate = ci::rate_with_interval(&ci::outcomes(f), lang),
        passed = f.passed,
        failed = f.failed,
        errors = f.errors
    ));
    let count = |o: Outcome| results.iter().filter(|r| r.outcome == o).count();
    say(msg!(
        "run-scenarios",
        count = results.len(),
        passed = count(Outcome::Passed),
        failed = count(Outcome::Failed),
        flaky = count(Outcome::Flaky),
        errors = count(Outcome::Error)
    ));
    print_scenarios(results);
    let tasks = agenteval_engine::export::tasks_table(&f.per_group_tasks, lang);
    if !tasks.is_empty() {
        // The Markdown table reads as it is in a terminal; its heading is
        // a line of its own.
        print!("{}", tasks.replacen("### ", "", 1));
    }
    if let Some(c) = &report.judge_calibration
        && let Some(k) = c.criteria.iter().find(|k| k.criterion == RUBRIC)
    {
        let kappa = k.kappa.map_or_else(|| "—".into(), |v| format!("{v:.2}"));
        say(msg!(
            "run-rubric-judge",
            kappa = kappa,
            labels = k.items,
            status = k.status(&c.policy).render(lang)
        ));
    }
    if done.flaky.is_empty() {
        say(msg!("run-flaky-none"));
    } else {
        let list: Vec<String> = results
            .iter()
            .filter(|r| r.outcome == Outcome::Flaky)
            .map(|r| {
                msg!(
                    "run-flaky-item",
                    id = r.id.as_str(),
                    passed = r.passed,
                    runs = r.passed + r.failed
                )
                .render(lang)
            })
            .collect();
        say(msg!("run-flaky", list = list.join(", ")));
    }
    if !f.error_reasons.is_empty() {
        let reasons: Vec<String> = f
            .error_reasons
            .iter()
            .map(|e| format!("{} × {}", e.reason, e.count))
            .collect();
        say(msg!("run-errors", list = reasons.join(", ")));
    }
    if let Some(e) = &report.exploration {
        print_exploration(e, report.judge_calibration.as_ref(), explored);
    }
    if let (Some(b), Some((cmp, notes))) = (&s.baseline, &done.comparison) {
        print_comparison(b, cmp, notes, &done.regressions);
    }
    say(msg!(
        "run-exports",
        files = written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ));
}

/// One line per scenario, written in one go.
fn print_scenarios(results: &[ScenarioResult]) {
    let lang = crate::lang();
    let width = results.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for r in results {
        let detail = match (r.outcome, &r.first_failure) {
            (Outcome::Passed, _) | (_, None) => String::new(),
            (_, Some(d)) => format!("  {}", agenteval_engine::text::truncate(d, 140)),
        };
        let errors = if r.errors > 0 {
            msg!("run-in-error", count = r.errors).render(lang)
        } else {
            String::new()
        };
        let tally = msg!(
            "run-passed-of",
            passed = r.passed,
            judged = r.passed + r.failed
        )
        .render(lang);
        let _ = writeln!(
            out,
            "    {:<5}  {:<width$}  {tally}{errors}{detail}",
            r.outcome.label(),
            r.id,
        );
    }
    let _ = out.flush();
}

/// Exploration's sessions, the judge's scores and agreement, the first
/// issues.
fn print_exploration(
    e: &ExplorationFindings,
    calibration: Option<&JudgeCalibration>,
    explored: usize,
) {
    let lang = crate::lang();
    let say = |m: agenteval_engine::Msg| println!("{}", m.render(lang));
    say(msg!(
        "run-exploration",
        sessions = explored,
        rate = pct(e.goal_achievement_rate),
        issues = e.issues.len(),
        reviews = e.judge.reviewed
    ));
    if let Some(c) = calibration {
        let sessions = c.criteria.iter().filter(|k| k.criterion != RUBRIC);
        for k in sessions {
            let score = e
                .judge
                .dimensions
                .get(&k.criterion)
                .map_or_else(|| "n/a".to_string(), |d| format!("{:.1}/5", d.average));
            let kappa = k.kappa.map_or_else(|| "n/a".into(), |v| format!("{v:.2}"));
            let status = k.status(&c.policy).render(lang);
            println!(
                "    judge {}: {score}, kappa {kappa} over {} labels, {status}",
                k.criterion, k.items
            );
        }
    }
    if let Some(k) = calibration.and_then(|c| c.consistency.as_ref()) {
        let parts: Vec<String> = k
            .iter()
            .map(|k| {
                format!(
                    "{} {}{}",
                    k.criterion,
                    pct(k.self_agreement),
                    if k.contradicts {
                        " (contradicts itself)"
                    } else {
                        ""
                    }
                )
            })
            .collect();
        println!(
            "    judge self-agreement (second pass): {}",
            parts.join(", ")
        );
    }
    for issue in e.issues.iter().take(5) {
        let text = issue
            .msg
            .as_ref()
            .map_or_else(|| issue.text.clone(), |m| m.render(lang));
        say(msg!(
            "run-issue",
            issue = agenteval_engine::text::truncate(&text, 140),
            count = issue.count
        ));
    }
}

fn print_comparison(
    b: &Side,
    cmp: &agenteval_engine::comparison::PeriodComparison,
    notes: &[agenteval_engine::Msg],
    regressions: &[String],
) {
    let lang = crate::lang();
    let say = |m: agenteval_engine::Msg| println!("{}", m.render(lang));
    let Some(p) = cmp.periods.first() else {
        return;
    };
    say(msg!(
        "run-baseline",
        label = b.label.as_str(),
        name = b.campaign.name.as_str(),
        then = pct(p.pass_rate),
        now = pct(cmp.pass_rate),
        verdict = p.verdict.clone()
    ));
    if !p.flipped_scenarios.is_empty() {
        say(msg!("run-flipped", list = p.flipped_scenarios.join(", ")));
    }
    if !regressions.is_empty() {
        say(msg!("run-regressed", list = regressions.join(", ")));
    }
    for w in &p.warnings {
        say(msg!("run-warning", warning = w.clone()));
    }
    for n in notes {
        say(msg!("run-note", note = n.clone()));
    }
}
