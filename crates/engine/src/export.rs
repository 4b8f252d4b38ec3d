//! Exports of a campaign report. Markdown is a pure function from report
//! data to text: the same report always renders to the same bytes.

use crate::report::{CampaignReport, Tally};
use crate::text::truncate;
use serde::{Deserialize, Serialize};
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
        exploration_appendix(&mut md, e, &report.models);
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

/// Says what is missing when a role model failed: judge reviews that
/// failed and sessions the virtual user could not carry. Absent when
/// nothing failed, so that healthy reports read as before.
fn degraded_note(md: &mut String, e: &crate::exploration::findings::ExplorationFindings) {
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

fn counts(map: &std::collections::BTreeMap<String, u32>) -> String {
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

/// Issue rows in the Markdown report (most frequent first).
pub const MAX_ISSUE_ROWS: usize = 50;
/// Judge findings in the Markdown report (poor first).
pub const MAX_FINDINGS: usize = 100;
/// Up to this many sessions, the Markdown report carries every transcript;
/// beyond it, only the transcripts its links lead to.
pub const ALL_TRANSCRIPTS_UP_TO: u32 = 100;

/// The sessions a rendered report links to, in order of first mention.
pub fn linked_sessions(markdown: &str) -> Vec<uuid::Uuid> {
    let mut seen = std::collections::HashSet::new();
    markdown
        .split("(#session-")
        .skip(1)
        .filter_map(|rest| uuid::Uuid::parse_str(rest.get(..36)?).ok())
        .filter(|id| seen.insert(*id))
        .collect()
}

fn session_link(id: &uuid::Uuid) -> String {
    let short: String = id
        .to_string()
        .chars()
        .rev()
        .take(6)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("[{short}](#session-{id})")
}

/// Who played the user and the judge, and how a model was asked for its
/// JSON, e.g. `smollm2 @ http://127.0.0.1:8799/v1 (structured output: json_object_schema)`.
fn played_by(who: &Option<String>, mode: Option<crate::structured::OutputMode>) -> String {
    let who = who
        .as_deref()
        .map_or_else(|| "not recorded".to_string(), escape_inline);
    match mode {
        Some(m) => format!("{who} (structured output: {m})"),
        None => who,
    }
}

fn exploration_appendix(
    md: &mut String,
    e: &crate::exploration::findings::ExplorationFindings,
    models: &crate::comparison::ModelsUsed,
) {
    let _ = writeln!(md, "## Appendix: Exploration findings");
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "Exploration is a separate evidence line: virtual users role-play seeded personas pursuing seeded goals. \
         It never enters the pass rate above."
    );
    let _ = writeln!(md);
    let _ = writeln!(md, "| | |");
    let _ = writeln!(md, "|---|---|");
    let _ = writeln!(
        md,
        "| Sessions | {} ({}) |",
        e.sessions_total,
        counts(&e.sessions_by_status)
    );
    let _ = writeln!(
        md,
        "| Goal achievement | {} ({} of {} experience records) |",
        pct(e.goal_achievement_rate),
        e.goals_achieved,
        e.records
    );
    let _ = writeln!(
        md,
        "| End reasons | {} |",
        counts(&e.sessions_by_end_reason)
    );
    let _ = writeln!(md, "| Triggers | {} |", counts(&e.sessions_by_trigger));
    let _ = writeln!(md, "| Emotions | {} |", counts(&e.emotions));
    let _ = writeln!(
        md,
        "| Played by | virtual user: {}; judge: {} |",
        played_by(&models.virtual_user, models.output_modes.virtual_user),
        played_by(&models.judge, models.output_modes.judge)
    );
    let _ = writeln!(
        md,
        "| Simulator-attributed sessions | {} (the virtual user was at fault; not counted against the target) |",
        e.simulator_faults
    );
    let dims: Vec<String> = e
        .judge
        .dimensions
        .iter()
        .map(|(k, d)| format!("{} {:.1}/5", escape_inline(k), d.average))
        .collect();
    let _ = writeln!(
        md,
        "| Judge review | {} reviewed, {} failed, {} pending{} |",
        e.judge.reviewed,
        e.judge.failed,
        e.judge.pending,
        if dims.is_empty() {
            String::new()
        } else {
            format!("; {}", dims.join(", "))
        }
    );
    let _ = writeln!(md);
    degraded_note(md, e);
    if !e.issues.is_empty() {
        let _ = writeln!(md, "### Issues found");
        let _ = writeln!(md);
        let _ = writeln!(md, "| Kind | Issue | Sessions | Transcripts |");
        let _ = writeln!(md, "|---|---|---|---|");
        for i in e.issues.iter().take(MAX_ISSUE_ROWS) {
            let kind = match i.kind {
                crate::exploration::findings::IssueKind::Blocker => "blocker",
                crate::exploration::findings::IssueKind::Misled => "misled",
            };
            let links: Vec<String> = i.session_ids.iter().take(10).map(session_link).collect();
            let more = i.session_ids.len().saturating_sub(10);
            let _ = writeln!(
                md,
                "| {kind} | {} | {} | {}{} |",
                escape_inline(&truncate(&i.text, 300)),
                i.count,
                links.join(" "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            );
        }
        if e.issues.len() > MAX_ISSUE_ROWS {
            let _ = writeln!(
                md,
                "\n{} more issues, each seen less often: see the app or the JSON export.",
                e.issues.len() - MAX_ISSUE_ROWS
            );
        }
        let _ = writeln!(md);
    }
    if !e.findings.is_empty() {
        let _ = writeln!(md, "### Judge findings (poor first)");
        let _ = writeln!(md);
        for f in e.findings.iter().take(MAX_FINDINGS) {
            let dim = f
                .dimension
                .as_deref()
                .map(|d| format!(" · {}", escape_inline(d)))
                .unwrap_or_default();
            let evidence = f
                .evidence
                .as_deref()
                .filter(|x| !x.trim().is_empty())
                .map(|x| format!(" — \"{}\"", escape_inline(&truncate(x, 200))))
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "- **{}**{dim}: {}{evidence} ({})",
                escape_inline(&f.severity),
                escape_inline(&truncate(&f.text, 300)),
                session_link(&f.session_id)
            );
        }
        if e.findings.len() > MAX_FINDINGS {
            let _ = writeln!(
                md,
                "\n{} more findings: see the app or the JSON export.",
                e.findings.len() - MAX_FINDINGS
            );
        }
        let _ = writeln!(md);
    }
    let grid = &e.coverage;
    if !grid.personas.is_empty() && !grid.goals.is_empty() {
        let _ = writeln!(
            md,
            "### Coverage (persona × goal: sessions / achieved / issues)"
        );
        let _ = writeln!(md);
        let header: Vec<String> = grid.goals.iter().map(|g| escape_inline(g)).collect();
        let _ = writeln!(md, "| Persona | {} |", header.join(" | "));
        let _ = writeln!(md, "|---|{}", "---|".repeat(grid.goals.len()));
        for p in &grid.personas {
            let cells: Vec<String> = grid
                .goals
                .iter()
                .map(|g| {
                    grid.cells
                        .iter()
                        .find(|c| &c.persona_id == p && &c.goal_id == g)
                        .map_or_else(
                            || "—".to_string(),
                            |c| format!("{} / {} / {}", c.sessions, c.achieved, c.issues),
                        )
                })
                .collect();
            let _ = writeln!(md, "| {} | {} |", escape_inline(p), cells.join(" | "));
        }
        if grid.unseeded_sessions > 0 {
            let _ = writeln!(md);
            let _ = writeln!(
                md,
                "Sessions without a seed (manual): {}.",
                grid.unseeded_sessions
            );
        }
        let _ = writeln!(md);
    }
}

/// The report with the transcripts of its exploration sessions appended, so
/// that every finding's link leads to its conversation. Without exploration
/// data this is exactly [`markdown`].
pub fn markdown_with_transcripts(
    report: &CampaignReport,
    transcripts: &[crate::exploration::session::SessionTranscript],
) -> String {
    let mut md = markdown(report);
    if report.exploration.is_none() || transcripts.is_empty() {
        return md;
    }
    let _ = writeln!(md, "## Appendix: Exploration transcripts");
    let _ = writeln!(md);
    let total = report.exploration.as_ref().map_or(0, |e| e.sessions_total);
    if transcripts.len() < total as usize {
        let _ = writeln!(
            md,
            "The {} sessions linked above; the other {} are in the app and the sessions CSV export.",
            transcripts.len(),
            total as usize - transcripts.len()
        );
        let _ = writeln!(md);
    }
    for t in transcripts {
        let s = &t.session;
        let _ = writeln!(md, "### Session {}", s.id);
        let _ = writeln!(md);
        let persona = s
            .persona
            .get("name")
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .unwrap_or_else(|| s.persona.to_string());
        let goal = s
            .goal
            .get("title")
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .or_else(|| s.goal.as_str().map(str::to_string))
            .unwrap_or_else(|| s.goal.to_string());
        let _ = writeln!(md, "- Persona: {}", escape_inline(&truncate(&persona, 200)));
        let _ = writeln!(md, "- Goal: {}", escape_inline(&truncate(&goal, 300)));
        let _ = writeln!(
            md,
            "- Status: {} · end reason: {} · trigger: {} · user turns: {}",
            serde_json::to_value(s.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            s.end_reason.map_or("none", |r| r.as_str()),
            serde_json::to_value(s.trigger)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            s.turn_count
        );
        if let Some(r) = &s.experience {
            let _ = writeln!(
                md,
                "- Experience: goal {} · emotion {} · blockers: {} · misled: {}",
                if r.goal_achieved {
                    "achieved"
                } else {
                    "not achieved"
                },
                escape_inline(&r.emotion),
                if r.blockers.is_empty() {
                    "none".into()
                } else {
                    escape_inline(&r.blockers.join("; "))
                },
                if r.misled.is_empty() {
                    "none".into()
                } else {
                    escape_inline(&r.misled.join("; "))
                }
            );
            if !r.notes.trim().is_empty() {
                let _ = writeln!(md, "- Notes: {}", escape_inline(&truncate(&r.notes, 1000)));
            }
        }
        let _ = writeln!(md);
        for m in &t.messages {
            let who = match m.role {
                crate::exploration::session::TurnRole::User => "User",
                crate::exploration::session::TurnRole::Target => "Target",
            };
            let latency = m
                .latency_ms
                .map(|l| format!(" ({l} ms)"))
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "{}. **{who}**{latency}: {}",
                m.seq + 1,
                escape_inline(&truncate(&m.content, 2000))
            );
        }
        let _ = writeln!(md);
    }
    md
}

/// Exploration sessions as CSV, one row per session.
pub fn sessions_csv(sessions: &[crate::exploration::session::ExplorationSession]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "session_id",
        "status",
        "trigger",
        "end_reason",
        "persona_id",
        "goal_id",
        "variant",
        "user_turns",
        "goal_achieved",
        "emotion",
        "blockers",
        "misled",
        "judge_status",
        "started_at",
        "ended_at",
        "played_by",
        "user_model",
    ]);
    for s in sessions {
        let str_of = |v: serde_json::Value| v.as_str().map(str::to_string).unwrap_or_default();
        let _ = w.write_record([
            s.id.to_string(),
            serde_json::to_value(s.status)
                .map(str_of)
                .unwrap_or_default(),
            serde_json::to_value(s.trigger)
                .map(str_of)
                .unwrap_or_default(),
            s.end_reason
                .map(|r| r.as_str().to_string())
                .unwrap_or_default(),
            s.seed_ref
                .as_ref()
                .map(|r| r.persona_id.clone())
                .unwrap_or_default(),
            s.seed_ref
                .as_ref()
                .map(|r| r.goal_id.clone())
                .unwrap_or_default(),
            s.seed_ref
                .as_ref()
                .and_then(|r| r.variant.as_ref())
                .and_then(|v| serde_json::to_value(v.kind).ok())
                .map(str_of)
                .unwrap_or_default(),
            s.turn_count.to_string(),
            s.experience
                .as_ref()
                .map(|e| e.goal_achieved.to_string())
                .unwrap_or_default(),
            s.experience
                .as_ref()
                .map(|e| e.emotion.clone())
                .unwrap_or_default(),
            s.experience
                .as_ref()
                .map(|e| e.blockers.join("; "))
                .unwrap_or_default(),
            s.experience
                .as_ref()
                .map(|e| e.misled.join("; "))
                .unwrap_or_default(),
            s.judge_status.clone(),
            s.started_at.to_rfc3339(),
            s.ended_at.map(|t| t.to_rfc3339()).unwrap_or_default(),
            s.played_by.as_str().to_string(),
            s.user_model.clone().unwrap_or_default(),
        ]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
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
    fn linked_sessions_are_found_once_in_order() {
        let a = uuid::Uuid::from_u128(1);
        let b = uuid::Uuid::from_u128(2);
        let md = format!(
            "see {} and {} then {} and [bad](#session-nope)",
            super::session_link(&b),
            super::session_link(&a),
            super::session_link(&b)
        );
        assert_eq!(super::linked_sessions(&md), vec![b, a]);
    }
}

/// Every export the product offers, each regenerable from stored data.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// Markdown report with its appendices and session transcripts.
    Md,
    /// The report as served by the API.
    Json,
    /// Fixed runs, one row each.
    Csv,
    /// Exploration sessions, one row each.
    SessionsCsv,
    /// Fixed runs as JUnit XML test cases, for CI.
    Junit,
}

impl ExportFormat {
    /// Parses a format name as given on the command line or in a query.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "md" | "markdown" => Self::Md,
            "json" => Self::Json,
            "csv" | "runs_csv" | "runs-csv" => Self::Csv,
            "sessions_csv" | "sessions-csv" => Self::SessionsCsv,
            "junit" | "xml" => Self::Junit,
            _ => return None,
        })
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Self::Md => "text/markdown; charset=utf-8",
            Self::Json => "application/json",
            Self::Csv | Self::SessionsCsv => "text/csv; charset=utf-8",
            Self::Junit => "application/xml",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Self::Md => "md",
            Self::Json => "json",
            Self::Csv | Self::SessionsCsv => "csv",
            Self::Junit => "xml",
        }
    }
}

impl crate::platform::Platform {
    /// Renders an export of a campaign from stored data.
    pub async fn export_campaign(
        &self,
        campaign_id: uuid::Uuid,
        format: ExportFormat,
    ) -> crate::Result<String> {
        let report = self.campaign_report(campaign_id).await?;
        Ok(match format {
            ExportFormat::Json => serde_json::to_string_pretty(&report)?,
            ExportFormat::Csv => runs_csv(&self.list_runs(campaign_id).await?),
            ExportFormat::Junit => junit(&report, &self.list_runs(campaign_id).await?),
            ExportFormat::SessionsCsv => sessions_csv(&self.list_sessions(campaign_id).await?),
            ExportFormat::Md => {
                let ids: Vec<uuid::Uuid> = match &report.exploration {
                    None => Vec::new(),
                    Some(e) if e.sessions_total <= ALL_TRANSCRIPTS_UP_TO => self
                        .list_sessions(campaign_id)
                        .await?
                        .into_iter()
                        .map(|s| s.id)
                        .collect(),
                    // A large campaign: the transcripts its links lead to.
                    Some(_) => linked_sessions(&markdown(&report)),
                };
                let transcripts = self.session_transcripts(&ids).await?;
                markdown_with_transcripts(&report, &transcripts)
            }
        })
    }
}
