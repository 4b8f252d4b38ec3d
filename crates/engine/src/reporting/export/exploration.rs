//! The Markdown exploration appendix (issues, judge findings, coverage,
//! sessions, each linked to its transcript) and the transcripts.

use super::markdown::*;
use super::*;
use crate::domain::ids::SessionId;

/// Issue rows in the Markdown report (most frequent first).
pub const MAX_ISSUE_ROWS: usize = 50;
/// Judge findings in the Markdown report (poor first).
pub const MAX_FINDINGS: usize = 100;
/// Up to this many sessions, the Markdown report carries every transcript;
/// beyond it, only the transcripts its links lead to.
pub const ALL_TRANSCRIPTS_UP_TO: u32 = 100;

/// The sessions a rendered report links to, in order of first mention.
pub fn linked_sessions(markdown: &str) -> Vec<SessionId> {
    let mut seen = std::collections::HashSet::new();
    markdown
        .split("(#session-")
        .skip(1)
        .filter_map(|rest| rest.get(..36)?.parse::<SessionId>().ok())
        .filter(|id| seen.insert(*id))
        .collect()
}

pub(super) fn session_link(id: &SessionId) -> String {
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
pub(super) fn played_by(
    who: &Option<String>,
    mode: Option<crate::structured::OutputMode>,
) -> String {
    let who = who
        .as_deref()
        .map_or_else(|| "not recorded".to_string(), escape_inline);
    match mode {
        Some(m) => format!("{who} (structured output: {m})"),
        None => who,
    }
}

pub(super) fn exploration_appendix(
    md: &mut String,
    e: &crate::findings::ExplorationFindings,
    models: &crate::comparison::ModelsUsed,
    calibration: Option<&crate::calibration::JudgeCalibration>,
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
    let kinds: Vec<String> = crate::exploration::SimulatorFaultKind::ALL
        .iter()
        .filter_map(|k| {
            let c = e.simulator_fault_kinds.get(k.as_str())?;
            (c.sessions > 0).then(|| {
                format!(
                    "{} {} ({} session{})",
                    k.label(crate::virtual_user::Lang::En),
                    c.faults,
                    c.sessions,
                    if c.sessions == 1 { "" } else { "s" }
                )
            })
        })
        .collect();
    let _ = writeln!(
        md,
        "| Simulator faults found by the check | {} |",
        if kinds.is_empty() {
            "none".to_string()
        } else {
            kinds.join(", ")
        }
    );
    let dims: Vec<String> = e
        .judge
        .dimensions
        .iter()
        .map(|(k, d)| {
            format!(
                "{} {:.1}/5 ({})",
                escape_inline(k),
                d.average,
                super::calibration::advisory_word(calibration, k)
            )
        })
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
    if let Some(c) = calibration {
        super::calibration::calibration_section(md, c);
    }
    if !e.issues.is_empty() {
        let _ = writeln!(md, "### Issues found");
        let _ = writeln!(md);
        let _ = writeln!(md, "| Kind | Issue | Sessions | Transcripts |");
        let _ = writeln!(md, "|---|---|---|---|");
        for i in e.issues.iter().take(MAX_ISSUE_ROWS) {
            let kind = match i.kind {
                crate::findings::IssueKind::Blocker => "blocker",
                crate::findings::IssueKind::Misled => "misled",
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
                .as_ref()
                .map(|x| x.render(crate::i18n::Lang::En))
                .filter(|x| !x.trim().is_empty())
                .map(|x| format!(" — \"{}\"", escape_inline(&truncate(&x, 200))))
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "- **{}**{dim}: {}{evidence} ({})",
                escape_inline(&f.severity),
                escape_inline(&truncate(&f.text.render(crate::i18n::Lang::En), 300)),
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
