//! The offline Markdown report: every section and the appendices (human
//! review, analysis, comparison); the exploration appendix and the
//! transcripts are in `exploration.rs`.

use super::exploration::exploration_appendix;
use super::*;
use crate::domain::evidence::{EvidenceNames, parse_turn_citation};
use crate::i18n::{Lang, Msg};
use crate::msg;
use crate::report::FixedSummary;

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

/// A share in the reader's language: "n/a" is a word.
pub(super) fn pct_in(rate: Option<f64>, lang: Lang) -> String {
    rate.map_or_else(|| na(lang), |r| format!("{:.1}%", r * 100.0))
}

/// "n/a" in the reader's language.
pub(super) fn na(lang: Lang) -> String {
    msg!("value-na").render(lang)
}

pub(super) fn tally_cells(t: &Tally, lang: Lang) -> String {
    format!(
        "{} | {} | {} | {}",
        t.passed,
        t.failed,
        t.errors,
        pct_in(t.pass_rate, lang)
    )
}

/// The campaign report as Markdown, in `lang`: every heading, label and
/// sentence of the report's own; the data (names, quoted text, ids) as it
/// was written.
pub fn markdown(report: &CampaignReport, lang: Lang) -> String {
    let mut md = String::new();
    let f = &report.fixed;
    campaign_header(&mut md, report, lang);
    provenance(&mut md, &report.provenance, lang);
    fixed_summary(&mut md, f, lang);
    breakdown_tables(&mut md, f, lang);
    failed_checks(&mut md, report, lang);
    guarded_section(&mut md, &report.guarded, lang);
    if let Some(k) = &report.judge_calibration {
        super::calibration::rubric_note(&mut md, k, report.exploration.is_none(), lang);
    }
    error_reasons(&mut md, f, lang);
    if let Some(h) = &report.human_review {
        human_review_section(&mut md, h, lang);
    }
    // Appendices, in this order when present: analysis, period comparison,
    // exploration findings.
    if let Some(a) = &report.analysis {
        analysis_appendix(&mut md, a, &report.evidence, lang);
    }
    if let Some(c) = &report.comparison {
        comparison_appendix(&mut md, c, lang);
    }
    if let Some(e) = &report.exploration {
        exploration_appendix(
            &mut md,
            e,
            &report.evidence,
            &report.models,
            report.judge_calibration.as_ref(),
            lang,
        );
    }
    md
}

/// The title and the table of the campaign: id, target, status, line,
/// window, when the report was made.
fn campaign_header(md: &mut String, report: &CampaignReport, lang: Lang) {
    let c = &report.campaign;
    let tr = |m: crate::i18n::Msg| m.render(lang);
    // Writing to a String cannot fail.
    let _ = writeln!(
        md,
        "{}",
        tr(msg!("md-title", name = escape_inline(&c.name)))
    );
    let _ = writeln!(md);
    let _ = writeln!(md, "| | |");
    let _ = writeln!(md, "|---|---|");
    let _ = writeln!(md, "{}", tr(msg!("md-campaign-id", id = c.id.to_string())));
    // The built-in demo agent by its name in the reader's language.
    let model = if report.target_model == "builtin:demo" {
        tr(msg!("md-builtin-demo"))
    } else {
        escape_inline(&report.target_model)
    };
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-target",
            name = escape_inline(&report.target_name),
            model = model
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-status",
            status = Msg::name("campaign-status", c.status.as_str())
        ))
    );
    let line = match c.line {
        crate::campaign::Line::Formal => msg!("md-line-formal"),
        crate::campaign::Line::Accelerated => {
            msg!("md-line-accelerated", scale = c.time_scale.to_string())
        }
    };
    let _ = writeln!(md, "{}", tr(line));
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-window",
            start = c.window_start.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
            end = c.window_end.format("%Y-%m-%d %H:%M:%S UTC").to_string()
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-generated",
            at = report
                .generated_at
                .format("%Y-%m-%d %H:%M:%S UTC")
                .to_string()
        ))
    );
    let _ = writeln!(md);
}

/// The fixed line's heading, pass rate and table of metrics.
fn fixed_summary(md: &mut String, f: &FixedSummary, lang: Lang) {
    let tr = |m: crate::i18n::Msg| m.render(lang);
    let _ = writeln!(md, "{}", tr(msg!("md-fixed")));
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-pass-rate",
            rate = pct_in(f.pass_rate, lang),
            passed = f.passed,
            failed = f.failed,
            errors = f.errors,
            skipped = f.runs_skipped,
            pending = f.runs_pending
        ))
    );
    let _ = writeln!(md);
    let _ = writeln!(md, "{}", tr(msg!("md-metric-header")));
    let _ = writeln!(md, "|---|---|");
    if let Some(i) = f.pass_rate_interval {
        let interval = msg!(
            "md-interval",
            low = pct_in(Some(i.low), lang),
            high = pct_in(Some(i.high), lang)
        );
        let _ = writeln!(
            md,
            "{}",
            tr(msg!("md-pass-rate-interval", interval = interval))
        );
    }
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-runs-finished",
            finished = f.runs_finished,
            planned = f.runs_planned
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-completion",
            rate = pct_in(f.completion_rate, lang)
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-coverage",
            rate = pct_in(f.key_field_coverage, lang)
        ))
    );
    let ms = |v: Option<u64>| v.map_or_else(|| na(lang), |v| format!("{v} ms"));
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-latency",
            p50 = ms(f.latency_p50_ms),
            p95 = ms(f.latency_p95_ms)
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-tokens",
            tokens_in = f.tokens_in,
            tokens_out = f.tokens_out
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!("md-cost", cost = format!("{:.4}", f.cost)))
    );
    let _ = writeln!(md);
}

/// The fixed line's tallies per scenario, per group and per tag.
fn breakdown_tables(md: &mut String, f: &FixedSummary, lang: Lang) {
    let tr = |m: crate::i18n::Msg| m.render(lang);
    if !f.per_scenario.is_empty() {
        let _ = writeln!(md, "{}", tr(msg!("md-per-scenario")));
        let _ = writeln!(md);
        let _ = writeln!(md, "{}", tr(msg!("md-per-scenario-header")));
        let _ = writeln!(md, "|---|---|---|---|---|---|---|");
        for s in &f.per_scenario {
            let _ = writeln!(
                md,
                "| {} ({}) | {} | {} | {} |",
                escape_inline(&s.title),
                code(&s.scenario_id),
                escape_inline(&s.pack),
                s.runs,
                tally_cells(&s.tally, lang)
            );
        }
        let _ = writeln!(md);
    }
    // The seed's difficulty groups are named in the reader's language; a
    // pack's own groups and tags as they are.
    for (title, groups, family) in [
        (msg!("md-per-group"), &f.per_group, Some("group")),
        (msg!("md-per-tag"), &f.per_tag, None),
    ] {
        if groups.is_empty() {
            continue;
        }
        let _ = writeln!(md, "{}", tr(title));
        let _ = writeln!(md);
        let _ = writeln!(md, "{}", tr(msg!("md-group-header")));
        let _ = writeln!(md, "|---|---|---|---|---|---|");
        for g in groups {
            let _ = writeln!(
                md,
                "| {} | {} | {} |",
                escape_inline(
                    &family.map_or_else(|| g.name.clone(), |f| tr(Msg::name(f, &g.name)))
                ),
                g.runs,
                tally_cells(&g.tally, lang)
            );
        }
        let _ = writeln!(md);
    }
    super::tasks::task_table(md, &f.per_group_tasks, lang);
}

/// Each failing check of each scenario, with an example run.
fn failed_checks(md: &mut String, report: &CampaignReport, lang: Lang) {
    let f = &report.fixed;
    let tr = |m: crate::i18n::Msg| m.render(lang);
    let failing: Vec<_> = f
        .per_scenario
        .iter()
        .flat_map(|s| s.failing_checks.iter().map(move |c| (s, c)))
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(md, "{}", tr(msg!("md-failed-checks")));
        let _ = writeln!(md);
        for (s, c) in failing {
            let _ = writeln!(
                md,
                "{}",
                tr(msg!(
                    "md-failed-check",
                    title = escape_inline(&s.title),
                    kind = Msg::name("check-kind", &c.kind),
                    count = c.count,
                    detail = escape_inline(&truncate(&c.detail.render(lang), 300)),
                    run = escape_inline(&report.evidence.run_msg(c.example_run_id).render(lang))
                ))
            );
        }
        let _ = writeln!(md);
    }
}

/// Why runs ended in an error, and how often.
fn error_reasons(md: &mut String, f: &FixedSummary, lang: Lang) {
    let tr = |m: crate::i18n::Msg| m.render(lang);
    if !f.error_reasons.is_empty() {
        let _ = writeln!(md, "{}", tr(msg!("md-errors")));
        let _ = writeln!(md);
        for r in &f.error_reasons {
            let kind = crate::i18n::Msg::name("error-reason", &r.reason);
            let _ = writeln!(md, "- {} × {}", escape_inline(&tr(kind)), r.count);
        }
        let _ = writeln!(md);
    }
}

pub(super) fn human_review_section(
    md: &mut String,
    h: &crate::review::HumanReviewSummary,
    lang: Lang,
) {
    let tr = |m: crate::i18n::Msg| m.render(lang);
    let mean = |v: Option<f64>| v.map_or_else(|| na(lang), |v| format!("{v:.2} / 5"));
    let _ = writeln!(md, "{}", tr(msg!("md-human")));
    let _ = writeln!(md);
    let _ = writeln!(md, "| | |");
    let _ = writeln!(md, "|---|---|");
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-runs-rated",
            count = h.runs_rated,
            mean = mean(h.run_rating_mean)
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-sessions-rated",
            count = h.sessions_rated,
            mean = mean(h.session_rating_mean)
        ))
    );
    let _ = writeln!(md, "{}", tr(msg!("md-overrides", count = h.overrides)));
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-agreement",
            rate = pct_in(h.agreement, lang),
            compared = h.compared
        ))
    );
    let _ = writeln!(md);
}

pub(super) fn analysis_appendix(
    md: &mut String,
    a: &crate::analysis::Analysis,
    names: &EvidenceNames,
    lang: Lang,
) {
    let tr = |m: crate::i18n::Msg| m.render(lang);
    let _ = writeln!(md, "{}", tr(msg!("md-analysis")));
    let _ = writeln!(md);
    let at = a.created_at.format("%Y-%m-%d %H:%M UTC").to_string();
    let label = if a.offline && a.fallback_reason.is_some() {
        msg!("md-analysis-template-unavailable", at = at)
    } else if a.offline {
        msg!("md-analysis-template", at = at)
    } else {
        msg!(
            "md-analysis-model",
            model = escape_inline(&a.model),
            at = at
        )
    };
    let _ = writeln!(md, "{}", tr(label));
    if let Some(r) = &a.fallback_reason {
        let _ = writeln!(md);
        let _ = writeln!(
            md,
            "{}",
            tr(msg!(
                "md-analysis-note",
                reason = escape_inline(&r.render(lang))
            ))
        );
    }
    let _ = writeln!(md);
    let _ = writeln!(md, "{}", escape_inline(&a.summary.render(lang)));
    let _ = writeln!(md);
    for c in &a.claims {
        let mut cites: Vec<String> = Vec::new();
        cites.extend(c.run_ids.iter().map(|raw| match raw.trim().parse() {
            Ok(id) => escape_inline(&names.run_msg(id).render(lang)),
            Err(_) => code(raw),
        }));
        cites.extend(c.session_ids.iter().map(|raw| match raw.trim().parse() {
            Ok(id) => super::exploration::session_link(names, id, None, lang),
            Err(_) => code(raw),
        }));
        cites.extend(c.turn_ids.iter().map(|raw| match parse_turn_citation(raw) {
            Some((id, turn)) => super::exploration::session_link(names, id, turn, lang),
            None => code(raw),
        }));
        let cites = if cites.is_empty() {
            String::new()
        } else {
            tr(msg!(
                "md-cites",
                cites = cites.join(&tr(msg!("md-list-separator")))
            ))
        };
        let _ = writeln!(md, "- {}{cites}", escape_inline(&c.text.render(lang)));
    }
    if !a.claims.is_empty() {
        let _ = writeln!(md);
    }
}

pub(super) fn comparison_appendix(
    md: &mut String,
    c: &crate::comparison::PeriodComparison,
    lang: Lang,
) {
    let tr = |m: crate::i18n::Msg| m.render(lang);
    let _ = writeln!(md, "{}", tr(msg!("md-comparison")));
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-comparison-this",
            rate = pct_in(c.pass_rate, lang),
            judged = c.judged_runs
        ))
    );
    let _ = writeln!(md);
    if let Some(f) = c.within_period_flip_rate {
        let _ = writeln!(
            md,
            "{}",
            tr(msg!("md-comparison-within", rate = pct_in(Some(f), lang)))
        );
        let _ = writeln!(md);
    }
    if c.pass_at_k.len() > 1 {
        let ks: Vec<String> = c
            .pass_at_k
            .iter()
            .map(|p| format!("pass^{} = {}", p.k, pct_in(Some(p.value), lang)))
            .collect();
        let _ = writeln!(
            md,
            "{}",
            tr(msg!(
                "md-comparison-pass-k",
                values = ks.join(&tr(msg!("md-list-separator")))
            ))
        );
        let _ = writeln!(md);
    }
    let _ = writeln!(md, "{}", tr(msg!("md-comparison-header")));
    let _ = writeln!(md, "|---|---|---|---|---|---|");
    for p in &c.periods {
        let change = p.delta.map_or_else(
            || na(lang),
            |d| tr(msg!("md-points", points = format!("{:+.1}", d * 100.0))),
        );
        let ci = p.ci_low.zip(p.ci_high).map_or_else(
            || na(lang),
            |(l, h)| {
                tr(msg!(
                    "md-interval",
                    low = format!("{:+.1}", l * 100.0),
                    high = format!("{:+.1}", h * 100.0)
                ))
            },
        );
        let _ = writeln!(
            md,
            "| {} ({}) | {} | {} | {} | {} | {} |",
            escape_inline(&p.campaign_name),
            p.window_start.format("%Y-%m-%d"),
            pct_in(p.pass_rate, lang),
            change,
            ci,
            pct_in(p.flip_rate, lang),
            escape_inline(&p.verdict.render(lang))
        );
    }
    let _ = writeln!(md);
    for p in &c.periods {
        for w in &p.warnings {
            let _ = writeln!(
                md,
                "{}",
                tr(msg!(
                    "md-comparison-warning",
                    name = escape_inline(&p.campaign_name),
                    warning = escape_inline(&w.render(lang))
                ))
            );
        }
        super::tasks::compared(md, &c.tasks, p, lang);
        if !p.flipped_scenarios.is_empty() {
            let names: Vec<String> = p
                .flipped_scenarios
                .iter()
                .map(|s| escape_inline(s))
                .collect();
            let _ = writeln!(
                md,
                "{}",
                tr(msg!(
                    "md-comparison-flipped",
                    name = escape_inline(&p.campaign_name),
                    scenarios = names.join(&tr(msg!("md-list-separator")))
                ))
            );
        }
    }
    let _ = writeln!(md);
}

/// Every host the campaign contacted, per role, and whether anything left
/// this machine.
fn provenance(md: &mut String, p: &crate::provenance::Provenance, lang: Lang) {
    let tr = |m: crate::i18n::Msg| m.render(lang);
    let _ = writeln!(md, "{}", tr(msg!("md-provenance")));
    let _ = writeln!(md);
    let outside = p.hosts.iter().filter(|h| !h.loopback).count();
    if outside == 0 {
        let _ = writeln!(
            md,
            "{}",
            tr(if p.hosts.is_empty() {
                msg!("md-provenance-none")
            } else {
                msg!("md-provenance-loopback")
            })
        );
    } else {
        let _ = writeln!(md, "{}", tr(msg!("md-provenance-outside", count = outside)));
    }
    if !p.hosts.is_empty() {
        let _ = writeln!(md);
        let _ = writeln!(md, "{}", tr(msg!("md-provenance-header")));
        let _ = writeln!(md, "|---|---|---|---|---|---|");
        for h in &p.hosts {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                tr(Msg::name("host-role", h.role.as_str())),
                escape_inline(&h.host),
                h.requests,
                h.tokens_in,
                h.tokens_out,
                tr(if h.loopback {
                    msg!("md-yes")
                } else {
                    msg!("md-no")
                })
            );
        }
    }
    let _ = writeln!(md);
}

/// Says what is missing when a role model failed: judge reviews that
/// failed and sessions the virtual user could not carry. Absent when
/// nothing failed, so that healthy reports read as before.
pub(super) fn degraded_note(md: &mut String, e: &crate::findings::ExplorationFindings, lang: Lang) {
    let tr = |m: crate::i18n::Msg| m.render(lang);
    let simulator_errors = e
        .sessions_by_end_reason
        .get("simulator_error")
        .copied()
        .unwrap_or(0);
    let mut missing = Vec::new();
    if e.judge.failed > 0 {
        missing.push(tr(msg!("md-degraded-judge", count = e.judge.failed)));
    }
    if simulator_errors > 0 {
        missing.push(tr(msg!("md-degraded-user", count = simulator_errors)));
    }
    if !missing.is_empty() {
        let _ = writeln!(
            md,
            "{}",
            tr(msg!(
                "md-degraded",
                what = missing.join(&tr(msg!("md-clause-separator")))
            ))
        );
        let _ = writeln!(md);
    }
}

/// The scenarios drafted from exploration findings, with their lineage and
/// this period's results: found by exploration, now guarded.
fn guarded_section(
    md: &mut String,
    guarded: &[crate::domain::report::GuardedScenario],
    lang: Lang,
) {
    if guarded.is_empty() {
        return;
    }
    let tr = |m: Msg| m.render(lang);
    let _ = writeln!(md, "{}", tr(msg!("md-guarded")));
    let _ = writeln!(md);
    let _ = writeln!(md, "{}", tr(msg!("md-guarded-header")));
    let _ = writeln!(md, "|---|---|---|---|");
    for g in guarded {
        let l = &g.lineage;
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} |",
            escape_inline(&g.title),
            tr(msg!(
                "md-guarded-found",
                session = code(&l.session_id.to_string()),
                turn = l.turn
            )),
            escape_inline(&crate::text::truncate(&l.finding, 200)),
            tr(msg!(
                "md-guarded-result",
                passed = g.tally.passed,
                failed = g.tally.failed,
                rate = pct_in(g.tally.pass_rate, lang)
            ))
        );
    }
    let _ = writeln!(md);
}
