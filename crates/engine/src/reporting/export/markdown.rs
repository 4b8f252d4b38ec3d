//! The offline Markdown report: every section and the appendices (human
//! review, analysis, comparison); the exploration appendix and the
//! transcripts are in `exploration.rs`.

use super::exploration::exploration_appendix;
use super::*;

/// Escapes text that came from agents, users or files so that it cannot
/// break the document's structure: no headings, lists, tables, code fences
/// or raw HTML can be injected, and it stays on one line.
pub fn escape_inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for ch in text.chars() {
        match ch {
            '\r' => {}
            '\n' | '\t' => out.push(' '),
            '|' => out.push_str("\\|"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '~' => {
                out.push('\\');
                out.push(ch);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Text for a code span: backticks cannot close it, pipes cannot split a
/// table cell, and it stays on one line.
pub fn code(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| {
            if c == '`' {
                '\''
            } else if c.is_control() {
                ' '
            } else {
                c
            }
        })
        .collect();
    format!("`{}`", clean.replace('|', "\\|"))
}

pub fn pct(rate: Option<f64>) -> String {
    rate.map_or_else(|| "n/a".to_string(), |r| format!("{:.1}%", r * 100.0))
}

pub(super) fn tally_cells(t: &Tally) -> String {
    format!(
        "{} | {} | {} | {}",
        t.passed,
        t.failed,
        t.errors,
        pct(t.pass_rate)
    )
}

/// The campaign report as Markdown.
pub fn markdown(report: &CampaignReport) -> String {
    let mut md = String::new();
    let c = &report.campaign;
    let f = &report.fixed;
    // Writing to a String cannot fail.
    let _ = writeln!(md, "# Campaign report: {}", escape_inline(&c.name));
    let _ = writeln!(md);
    let _ = writeln!(md, "| | |");
    let _ = writeln!(md, "|---|---|");
    let _ = writeln!(md, "| Campaign id | `{}` |", c.id);
    let _ = writeln!(
        md,
        "| Target | {} ({}) |",
        escape_inline(&report.target_name),
        escape_inline(&report.target_model)
    );
    let _ = writeln!(md, "| Status | {} |", c.status.as_str());
    let line = match c.line {
        crate::campaign::Line::Formal => "formal (real time)".to_string(),
        crate::campaign::Line::Accelerated => format!("accelerated (time scale {})", c.time_scale),
    };
    let _ = writeln!(md, "| Line | {line} |");
    let _ = writeln!(
        md,
        "| Window | {} → {} |",
        c.window_start.format("%Y-%m-%d %H:%M:%S UTC"),
        c.window_end.format("%Y-%m-%d %H:%M:%S UTC")
    );
    let _ = writeln!(
        md,
        "| Generated | {} |",
        report.generated_at.format("%Y-%m-%d %H:%M:%S UTC")
    );
    let _ = writeln!(md);
    provenance(&mut md, &report.provenance);

    let _ = writeln!(md, "## Fixed scenarios");
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "**Pass rate: {}** ({} passed, {} failed; pass rate = passed / (passed + failed)). \
         Runs in error: {}. Skipped: {}. Still pending: {}. Exploration data never enters this figure.",
        pct(f.pass_rate),
        f.passed,
        f.failed,
        f.errors,
        f.runs_skipped,
        f.runs_pending
    );
    let _ = writeln!(md);
    let _ = writeln!(md, "| Metric | Value |");
    let _ = writeln!(md, "|---|---|");
    let _ = writeln!(
        md,
        "| Runs finished / planned | {} / {} |",
        f.runs_finished, f.runs_planned
    );
    let _ = writeln!(md, "| Completion rate | {} |", pct(f.completion_rate));
    let _ = writeln!(md, "| Key-field coverage | {} |", pct(f.key_field_coverage));
    let ms = |v: Option<u64>| v.map_or_else(|| "n/a".to_string(), |v| format!("{v} ms"));
    let _ = writeln!(
        md,
        "| Latency p50 / p95 | {} / {} |",
        ms(f.latency_p50_ms),
        ms(f.latency_p95_ms)
    );
    let _ = writeln!(
        md,
        "| Tokens in / out | {} / {} |",
        f.tokens_in, f.tokens_out
    );
    let _ = writeln!(md, "| Estimated cost | {:.4} |", f.cost);
    let _ = writeln!(md);

    if !f.per_scenario.is_empty() {
        let _ = writeln!(md, "### Per scenario");
        let _ = writeln!(md);
        let _ = writeln!(
            md,
            "| Scenario | Pack | Runs | Passed | Failed | Errors | Pass rate |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|");
        for s in &f.per_scenario {
            let _ = writeln!(
                md,
                "| {} ({}) | {} | {} | {} |",
                escape_inline(&s.title),
                code(&s.scenario_id),
                escape_inline(&s.pack),
                s.runs,
                tally_cells(&s.tally)
            );
        }
        let _ = writeln!(md);
    }
    for (title, groups) in [
        ("Per difficulty group", &f.per_group),
        ("Per tag", &f.per_tag),
    ] {
        if groups.is_empty() {
            continue;
        }
        let _ = writeln!(md, "### {title}");
        let _ = writeln!(md);
        let _ = writeln!(md, "| Name | Runs | Passed | Failed | Errors | Pass rate |");
        let _ = writeln!(md, "|---|---|---|---|---|---|");
        for g in groups {
            let _ = writeln!(
                md,
                "| {} | {} | {} |",
                escape_inline(&g.name),
                g.runs,
                tally_cells(&g.tally)
            );
        }
        let _ = writeln!(md);
    }
    let failing: Vec<_> = f
        .per_scenario
        .iter()
        .flat_map(|s| s.failing_checks.iter().map(move |c| (s, c)))
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(md, "### Failed checks");
        let _ = writeln!(md);
        for (s, c) in failing {
            let _ = writeln!(
                md,
                "- **{}** · {} × {}: {} (e.g. run `{}`)",
                escape_inline(&s.title),
                code(&c.kind),
                c.count,
                escape_inline(&truncate(&c.detail.render(crate::i18n::Lang::En), 300)),
                c.example_run_id
            );
        }
        let _ = writeln!(md);
    }
    if let Some(k) = &report.judge_calibration {
        super::calibration::rubric_note(&mut md, k, report.exploration.is_none());
    }
    if !f.error_reasons.is_empty() {
        let _ = writeln!(md, "### Runs in error");
        let _ = writeln!(md);
        for r in &f.error_reasons {
            let _ = writeln!(md, "- {} × {}", escape_inline(&r.reason), r.count);
        }
        let _ = writeln!(md);
    }
    if let Some(h) = &report.human_review {
        human_review_section(&mut md, h);
    }
    // Appendices, in this order when present: analysis, period comparison,
    // exploration findings.
    if let Some(a) = &report.analysis {
        analysis_appendix(&mut md, a);
    }
    if let Some(c) = &report.comparison {
        comparison_appendix(&mut md, c);
    }
    if let Some(e) = &report.exploration {
        exploration_appendix(
            &mut md,
            e,
            &report.models,
            report.judge_calibration.as_ref(),
        );
    }
    md
}

pub(super) fn human_review_section(md: &mut String, h: &crate::review::HumanReviewSummary) {
    let mean = |v: Option<f64>| v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.2} / 5"));
    let _ = writeln!(md, "### Human review");
    let _ = writeln!(md);
    let _ = writeln!(md, "| | |");
    let _ = writeln!(md, "|---|---|");
    let _ = writeln!(
        md,
        "| Runs rated | {} (mean {}) |",
        h.runs_rated,
        mean(h.run_rating_mean)
    );
    let _ = writeln!(
        md,
        "| Sessions rated | {} (mean {}) |",
        h.sessions_rated,
        mean(h.session_rating_mean)
    );
    let _ = writeln!(md, "| Judge overrides | {} |", h.overrides);
    let _ = writeln!(
        md,
        "| Judge-human agreement | {} over {} compared |",
        pct(h.agreement),
        h.compared
    );
    let _ = writeln!(md);
}

pub(super) fn analysis_appendix(md: &mut String, a: &crate::analysis::Analysis) {
    let _ = writeln!(md, "## Appendix: Analysis");
    let _ = writeln!(md);
    let label = if a.offline && a.fallback_reason.is_some() {
        "Template analysis built from the figures (the analyst model was unavailable)".to_string()
    } else if a.offline {
        "Template analysis built from the figures (no analyst model)".to_string()
    } else {
        format!("Written by the analyst model {}", escape_inline(&a.model))
    };
    let _ = writeln!(
        md,
        "*{label}, {}.*",
        a.created_at.format("%Y-%m-%d %H:%M UTC")
    );
    if let Some(r) = &a.fallback_reason {
        let _ = writeln!(md);
        let _ = writeln!(
            md,
            "> Note: {}",
            escape_inline(&r.render(crate::i18n::Lang::En))
        );
    }
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "{}",
        escape_inline(&a.summary.render(crate::i18n::Lang::En))
    );
    let _ = writeln!(md);
    for c in &a.claims {
        let mut cites: Vec<String> = Vec::new();
        cites.extend(
            c.run_ids
                .iter()
                .map(|id| format!("run `{}`", id.replace('`', ""))),
        );
        cites.extend(c.session_ids.iter().map(|id| {
            format!(
                "[session `{0}`](#session-{0})",
                id.replace(['`', '(', ')', ']', '['], "")
            )
        }));
        cites.extend(
            c.turn_ids
                .iter()
                .map(|id| format!("turn `{}`", id.replace('`', ""))),
        );
        let cites = if cites.is_empty() {
            String::new()
        } else {
            format!(" ({})", cites.join(", "))
        };
        let _ = writeln!(
            md,
            "- {}{cites}",
            escape_inline(&c.text.render(crate::i18n::Lang::En))
        );
    }
    if !a.claims.is_empty() {
        let _ = writeln!(md);
    }
}

pub(super) fn comparison_appendix(md: &mut String, c: &crate::comparison::PeriodComparison) {
    let _ = writeln!(md, "## Appendix: Period comparison");
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "This period: pass rate {} over {} judged runs. Exploration data takes no part in the comparison.",
        pct(c.pass_rate),
        c.judged_runs
    );
    let _ = writeln!(md);
    if let Some(f) = c.within_period_flip_rate {
        let _ = writeln!(
            md,
            "Within this period, {} of repeated scenarios had both passing and failing runs (the noise floor).",
            pct(Some(f))
        );
        let _ = writeln!(md);
    }
    if c.pass_at_k.len() > 1 {
        let ks: Vec<String> = c
            .pass_at_k
            .iter()
            .map(|p| format!("pass^{} = {}", p.k, pct(Some(p.value))))
            .collect();
        let _ = writeln!(md, "Consistency where scenarios repeat: {}.", ks.join(", "));
        let _ = writeln!(md);
    }
    let _ = writeln!(
        md,
        "| Earlier period | Pass rate | Change | 95% interval | Flip rate | Reading |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|");
    for p in &c.periods {
        let change = p
            .delta
            .map_or_else(|| "n/a".into(), |d| format!("{:+.1} pts", d * 100.0));
        let ci = p.ci_low.zip(p.ci_high).map_or_else(
            || "n/a".into(),
            |(l, h)| format!("{:+.1} to {:+.1}", l * 100.0, h * 100.0),
        );
        let _ = writeln!(
            md,
            "| {} ({}) | {} | {} | {} | {} | {} |",
            escape_inline(&p.campaign_name),
            p.window_start.format("%Y-%m-%d"),
            pct(p.pass_rate),
            change,
            ci,
            pct(p.flip_rate),
            escape_inline(&p.verdict.render(crate::i18n::Lang::En))
        );
    }
    let _ = writeln!(md);
    for p in &c.periods {
        for w in &p.warnings {
            let _ = writeln!(
                md,
                "> Warning ({}): {}",
                escape_inline(&p.campaign_name),
                escape_inline(&w.render(crate::i18n::Lang::En))
            );
        }
        if !p.flipped_scenarios.is_empty() {
            let names: Vec<String> = p
                .flipped_scenarios
                .iter()
                .map(|s| escape_inline(s))
                .collect();
            let _ = writeln!(
                md,
                "- Flipped since {}: {}",
                escape_inline(&p.campaign_name),
                names.join(", ")
            );
        }
    }
    let _ = writeln!(md);
}

/// Every host the campaign contacted, per role, and whether anything left
/// this machine.
fn provenance(md: &mut String, p: &crate::provenance::Provenance) {
    let _ = writeln!(md, "## What left this machine");
    let _ = writeln!(md);
    let outside = p.hosts.iter().filter(|h| !h.loopback).count();
    if outside == 0 {
        let _ = writeln!(
            md,
            "Nothing left this machine: {}.",
            if p.hosts.is_empty() {
                "no host was contacted (built-in agents run in-process)"
            } else {
                "every host contacted is on this machine (loopback)"
            }
        );
    } else {
        let _ = writeln!(
            md,
            "Requests left this machine: {outside} host(s) outside it were contacted."
        );
    }
    if !p.hosts.is_empty() {
        let _ = writeln!(md);
        let _ = writeln!(
            md,
            "| Role | Host | Requests | Tokens in | Tokens out | On this machine |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|");
        for h in &p.hosts {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                h.role.as_str(),
                escape_inline(&h.host),
                h.requests,
                h.tokens_in,
                h.tokens_out,
                if h.loopback { "yes" } else { "no" }
            );
        }
    }
    let _ = writeln!(md);
}

/// Says what is missing when a role model failed: judge reviews that
/// failed and sessions the virtual user could not carry. Absent when
/// nothing failed, so that healthy reports read as before.
pub(super) fn degraded_note(md: &mut String, e: &crate::findings::ExplorationFindings) {
    let simulator_errors = e
        .sessions_by_end_reason
        .get("simulator_error")
        .copied()
        .unwrap_or(0);
    let mut missing = Vec::new();
    if e.judge.failed > 0 {
        missing.push(format!(
            "{} judge review(s) failed (the judge model was unavailable); those sessions have no quality scores",
            e.judge.failed
        ));
    }
    if simulator_errors > 0 {
        missing.push(format!(
            "{simulator_errors} session(s) ended with simulator\\_error (the virtual user model failed); they are not counted against the target"
        ));
    }
    if !missing.is_empty() {
        let _ = writeln!(md, "> Degraded: {}.", missing.join("; "));
        let _ = writeln!(md);
    }
}

pub(super) fn counts(map: &std::collections::BTreeMap<String, u32>) -> String {
    let parts: Vec<String> = map
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| format!("{} {n}", escape_inline(k)))
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}
