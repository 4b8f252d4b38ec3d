//! Exports of a campaign report. Markdown is a pure function from report
//! data to text: the same report always renders to the same bytes.

use crate::report::{CampaignReport, Tally};
use std::fmt::Write;

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

/// Truncates to at most `max` characters, marking the cut.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max).collect();
        s.push('…');
        s
    }
}

pub fn pct(rate: Option<f64>) -> String {
    rate.map_or_else(|| "n/a".to_string(), |r| format!("{:.1}%", r * 100.0))
}

fn tally_cells(t: &Tally) -> String {
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
                escape_inline(&truncate(&c.detail, 300)),
                c.example_run_id
            );
        }
        let _ = writeln!(md);
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
        exploration_appendix(&mut md, e);
    }
    md
}

fn human_review_section(md: &mut String, h: &crate::review::HumanReviewSummary) {
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

fn analysis_appendix(md: &mut String, a: &crate::analysis::Analysis) {
    let _ = writeln!(md, "## Appendix: Analysis");
    let _ = writeln!(md);
    let label = if a.offline {
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
        let _ = writeln!(md, "> Note: {}", escape_inline(r));
    }
    let _ = writeln!(md);
    let _ = writeln!(md, "{}", escape_inline(&a.summary));
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
        let _ = writeln!(md, "- {}{cites}", escape_inline(&c.text));
    }
    if !a.claims.is_empty() {
        let _ = writeln!(md);
    }
}

fn comparison_appendix(md: &mut String, c: &crate::comparison::PeriodComparison) {
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
            escape_inline(&p.verdict)
        );
    }
    let _ = writeln!(md);
    for p in &c.periods {
        for w in &p.warnings {
            let _ = writeln!(
                md,
                "> Warning ({}): {}",
                escape_inline(&p.campaign_name),
                escape_inline(w)
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

/// Placeholder until the exploration findings are rendered in full.
fn exploration_appendix(md: &mut String, e: &crate::exploration::findings::ExplorationFindings) {
    let _ = writeln!(md, "## Appendix: Exploration findings");
    let _ = writeln!(md);
    let _ = writeln!(md, "Sessions: {}", e.sessions_total);
    let _ = writeln!(md);
}

/// Runs as CSV, one row per run, for spreadsheets.
pub fn runs_csv(runs: &[crate::fixed::Run]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "run_id",
        "scenario_id",
        "seq",
        "scheduled_at",
        "finished_at",
        "verdict",
        "error_reason",
        "turns",
        "latency_ms_total",
        "latency_ms_max",
        "tokens_in",
        "tokens_out",
        "cost",
        "key_field_coverage",
        "failed_checks",
    ]);
    for r in runs {
        let m = r.metrics.clone().unwrap_or_default();
        let failed: Vec<String> = r
            .check_results
            .iter()
            .filter(|c| !c.passed)
            .map(|c| format!("{}: {}", c.kind, c.detail))
            .collect();
        let _ = w.write_record([
            r.id.to_string(),
            r.scenario_id.clone(),
            r.seq.to_string(),
            r.scheduled_at.to_rfc3339(),
            r.finished_at.map(|t| t.to_rfc3339()).unwrap_or_default(),
            r.verdict
                .map(|v| v.as_str().to_string())
                .unwrap_or_else(|| r.status.clone()),
            r.error_reason.clone().unwrap_or_default(),
            m.turns.to_string(),
            m.latency_ms_total.to_string(),
            m.latency_ms_max.to_string(),
            m.tokens_in.to_string(),
            m.tokens_out.to_string(),
            format!("{:.6}", m.cost),
            m.key_field_coverage
                .map(|c| format!("{c:.3}"))
                .unwrap_or_default(),
            failed.join("; "),
        ]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// Fixed-scenario runs as JUnit XML (one test case per run), for CI.
pub fn junit(report: &CampaignReport, runs: &[crate::fixed::Run]) -> String {
    use quick_xml::Writer;
    use quick_xml::events::{BytesDecl, BytesText, Event};
    let f = &report.fixed;
    let judged: Vec<&crate::fixed::Run> = runs.iter().filter(|r| r.status == "done").collect();
    let skipped = judged
        .iter()
        .filter(|r| r.verdict == Some(crate::fixed::Verdict::Skipped))
        .count();
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    let _ = w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let _ = w
        .create_element("testsuites")
        .with_attribute(("name", report.campaign.name.as_str()))
        .write_inner_content(|w| {
            w.create_element("testsuite")
                .with_attributes([
                    (
                        "name",
                        format!("{} fixed scenarios", report.campaign.name).as_str(),
                    ),
                    ("tests", judged.len().to_string().as_str()),
                    ("failures", f.failed.to_string().as_str()),
                    ("errors", f.errors.to_string().as_str()),
                    ("skipped", skipped.to_string().as_str()),
                    (
                        "timestamp",
                        report.campaign.window_start.to_rfc3339().as_str(),
                    ),
                ])
                .write_inner_content(|w| {
                    for r in &judged {
                        let m = r.metrics.clone().unwrap_or_default();
                        let name = format!("{} #{}", r.scenario_id, r.seq);
                        let time = format!("{:.3}", m.latency_ms_total as f64 / 1000.0);
                        let case = w.create_element("testcase").with_attributes([
                            ("classname", r.scenario_id.as_str()),
                            ("name", name.as_str()),
                            ("time", time.as_str()),
                        ]);
                        match r.verdict {
                            Some(crate::fixed::Verdict::Passed) | None => {
                                case.write_empty()?;
                            }
                            Some(crate::fixed::Verdict::Failed) => {
                                let failed: Vec<String> = r
                                    .check_results
                                    .iter()
                                    .filter(|c| !c.passed)
                                    .map(|c| {
                                        format!("turn {} {}: {}", c.turn + 1, c.kind, c.detail)
                                    })
                                    .collect();
                                let message =
                                    failed.first().cloned().unwrap_or_else(|| "failed".into());
                                case.write_inner_content(|w| {
                                    w.create_element("failure")
                                        .with_attributes([
                                            ("message", message.as_str()),
                                            ("type", "check"),
                                        ])
                                        .write_text_content(BytesText::new(&failed.join("\n")))?;
                                    Ok(())
                                })?;
                            }
                            Some(crate::fixed::Verdict::Error) => {
                                let reason =
                                    r.error_reason.clone().unwrap_or_else(|| "error".into());
                                case.write_inner_content(|w| {
                                    w.create_element("error")
                                        .with_attributes([
                                            ("message", reason.as_str()),
                                            ("type", "run_error"),
                                        ])
                                        .write_empty()?;
                                    Ok(())
                                })?;
                            }
                            Some(crate::fixed::Verdict::Skipped) => {
                                case.write_inner_content(|w| {
                                    w.create_element("skipped")
                                        .with_attribute(("message", "window ended before the run"))
                                        .write_empty()?;
                                    Ok(())
                                })?;
                            }
                        }
                    }
                    Ok(())
                })?;
            Ok(())
        });
    String::from_utf8(w.into_inner()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_keeps_structure() {
        let nasty = "| a | b |\n# heading\n```code```<script>alert(1)</script> *x* [l](u)";
        let e = escape_inline(nasty);
        assert!(!e.contains('\n'), "escaped text stays on one line");
        assert!(!e.contains("<script>"), "raw HTML is neutralised");
        assert!(!e.contains("```"), "code fences cannot open");
        assert!(
            e.split("\\|").all(|part| !part.contains('|')),
            "every pipe is escaped"
        );
    }

    #[test]
    fn truncate_marks_the_cut() {
        assert_eq!(truncate("abcdef", 3), "abc…");
        assert_eq!(truncate("中文字符", 10), "中文字符");
    }
}
