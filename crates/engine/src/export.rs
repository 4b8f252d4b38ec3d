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
                "| {} (`{}`) | {} | {} | {} |",
                escape_inline(&s.title),
                escape_inline(&s.scenario_id).replace('`', ""),
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
                "- **{}** · `{}` × {}: {} (e.g. run `{}`)",
                escape_inline(&s.title),
                c.kind,
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
    md
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
