//! Seed 002's table in the Markdown export: per difficulty group, task
//! completion, key-field coverage, steps, tokens and time per task.

use super::markdown::{escape_inline, na, pct_in};
use crate::domain::report::GroupTasks;
use crate::i18n::{Lang, Msg};
use crate::msg;
use std::fmt::Write;

/// A mean with one decimal, "n/a" in the reader's words without one.
fn mean(v: Option<f64>, lang: Lang) -> String {
    v.map_or_else(|| na(lang), |v| format!("{v:.1}"))
}

/// A mean time: milliseconds under a second, else seconds.
pub(super) fn time(ms: Option<f64>, lang: Lang) -> String {
    match ms {
        None => na(lang),
        Some(ms) if ms < 1000.0 => format!("{ms:.0} ms"),
        Some(ms) => format!("{:.1} s", ms / 1000.0),
    }
}

/// The table as Markdown (`agenteval run` prints it); empty when the
/// campaign's scenarios have no difficulty groups.
pub fn tasks_table(rows: &[GroupTasks], lang: Lang) -> String {
    let mut md = String::new();
    task_table(&mut md, rows, lang);
    md
}

/// The table, when the campaign's scenarios have difficulty groups.
pub(super) fn task_table(md: &mut String, rows: &[GroupTasks], lang: Lang) {
    if rows.is_empty() {
        return;
    }
    let tr = |m: Msg| m.render(lang);
    let _ = writeln!(md, "{}", tr(msg!("md-tasks")));
    let _ = writeln!(md);
    let _ = writeln!(md, "{}", tr(msg!("md-tasks-header")));
    let _ = writeln!(md, "|---|---|---|---|---|---|---|");
    for g in rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            escape_inline(&tr(Msg::name("group", &g.group))),
            g.runs,
            pct_in(g.completion_rate, lang),
            pct_in(g.key_field_coverage, lang),
            mean(g.steps_mean, lang),
            g.tokens_mean
                .map_or_else(|| na(lang), |t| format!("{t:.0}")),
            time(g.latency_ms_mean, lang),
        );
    }
    let _ = writeln!(md);
    let _ = writeln!(md, "{}", tr(msg!("md-tasks-note")));
    let _ = writeln!(md);
}

/// This period's task figures beside an earlier period's, per difficulty
/// group both have.
pub(super) fn compared(
    md: &mut String,
    now: &[GroupTasks],
    then: &crate::comparison::PeriodDelta,
    lang: Lang,
) {
    let rows: Vec<(&GroupTasks, &GroupTasks)> = now
        .iter()
        .filter_map(|g| Some((g, then.tasks.iter().find(|t| t.group == g.group)?)))
        .collect();
    if rows.is_empty() {
        return;
    }
    let tr = |m: Msg| m.render(lang);
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-tasks-compared",
            name = escape_inline(&then.campaign_name)
        ))
    );
    let _ = writeln!(md);
    let _ = writeln!(md, "{}", tr(msg!("md-tasks-header")));
    let _ = writeln!(md, "|---|---|---|---|---|---|---|");
    let pair = |a: String, b: String| format!("{a} ← {b}");
    for (a, b) in rows {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} |",
            escape_inline(&tr(Msg::name("group", &a.group))),
            pair(a.runs.to_string(), b.runs.to_string()),
            pair(
                pct_in(a.completion_rate, lang),
                pct_in(b.completion_rate, lang)
            ),
            pair(
                pct_in(a.key_field_coverage, lang),
                pct_in(b.key_field_coverage, lang)
            ),
            pair(mean(a.steps_mean, lang), mean(b.steps_mean, lang)),
            pair(
                a.tokens_mean
                    .map_or_else(|| na(lang), |t| format!("{t:.0}")),
                b.tokens_mean
                    .map_or_else(|| na(lang), |t| format!("{t:.0}"))
            ),
            pair(time(a.latency_ms_mean, lang), time(b.latency_ms_mean, lang)),
        );
    }
    let _ = writeln!(md);
}
