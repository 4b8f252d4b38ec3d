//! The Markdown exploration appendix (issues, judge findings, coverage,
//! sessions, each linked to its transcript) and the transcripts.

use super::markdown::*;
use super::*;
use crate::domain::evidence::{EvidenceNames, goal_title, persona_name};
use crate::domain::ids::SessionId;
use crate::findings::ExplorationFindings;
use crate::i18n::{Lang, Msg, Text};
use crate::msg;

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

/// A session (and turn) by its name, linked to its transcript.
pub(super) fn session_link(
    names: &EvidenceNames,
    id: SessionId,
    turn: Option<u32>,
    lang: Lang,
) -> String {
    let name = escape_inline(&names.session_msg(id, turn).render(lang));
    format!("[{name}](#session-{id})")
}

/// Who played the user and the judge, and how a model was asked for its
/// JSON, e.g. `smollm2 @ http://127.0.0.1:8799/v1 (structured output: json_object_schema)`.
pub(super) fn played_by(
    who: &Option<String>,
    mode: Option<crate::structured::OutputMode>,
    lang: Lang,
) -> String {
    // The offline players are named in the reader's language; a model by
    // its own name.
    let who = match who.as_deref() {
        None => msg!("md-not-recorded").render(lang),
        Some("offline persona engine") => msg!("md-offline-user").render(lang),
        Some("offline heuristic judge") => msg!("md-offline-judge").render(lang),
        Some(name) => escape_inline(name),
    };
    match mode {
        Some(m) => msg!("md-structured", who = who, mode = m.to_string()).render(lang),
        None => who,
    }
}

/// `name count` pairs of a tally, each name in the reader's language.
fn named_counts(map: &std::collections::BTreeMap<String, u32>, family: &str, lang: Lang) -> String {
    let parts: Vec<String> = map
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| format!("{} {n}", escape_inline(&Msg::name(family, k).render(lang))))
        .collect();
    if parts.is_empty() {
        msg!("md-none").render(lang)
    } else {
        parts.join(&msg!("md-list-separator").render(lang))
    }
}

/// The exploration appendix: its summary, issues, judge findings and
/// coverage grid, each session linked to its transcript.
pub(super) fn exploration_appendix(
    md: &mut String,
    e: &ExplorationFindings,
    names: &EvidenceNames,
    models: &crate::comparison::ModelsUsed,
    calibration: Option<&crate::calibration::JudgeCalibration>,
    lang: Lang,
) {
    exploration_summary(md, e, models, calibration, lang);
    degraded_note(md, e, lang);
    if let Some(c) = calibration {
        super::calibration::calibration_section(md, c, lang);
    }
    issues_table(md, e, names, lang);
    findings_list(md, e, names, lang);
    coverage_grid(md, e, lang);
}

/// The appendix's heading and table: sessions, goals, end reasons,
/// triggers, emotions, players, simulator faults, the judge's review.
fn exploration_summary(
    md: &mut String,
    e: &ExplorationFindings,
    models: &crate::comparison::ModelsUsed,
    calibration: Option<&crate::calibration::JudgeCalibration>,
    lang: Lang,
) {
    let tr = |m: Msg| m.render(lang);
    let _ = writeln!(md, "{}", tr(msg!("md-exploration")));
    let _ = writeln!(md);
    let _ = writeln!(md, "{}", tr(msg!("md-exploration-intro")));
    let _ = writeln!(md);
    let _ = writeln!(md, "| | |");
    let _ = writeln!(md, "|---|---|");
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-sessions",
            count = e.sessions_total,
            by_status = named_counts(&e.sessions_by_status, "session-status", lang)
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-goal-achievement",
            rate = pct_in(e.goal_achievement_rate, lang),
            achieved = e.goals_achieved,
            records = e.records
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-end-reasons",
            counts = named_counts(&e.sessions_by_end_reason, "end-reason", lang)
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-triggers",
            counts = named_counts(&e.sessions_by_trigger, "trigger", lang)
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-emotions",
            counts = named_counts(&e.emotions, "emotion", lang)
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-played-by",
            user = played_by(&models.virtual_user, models.output_modes.virtual_user, lang),
            judge = played_by(&models.judge, models.output_modes.judge, lang)
        ))
    );
    let _ = writeln!(
        md,
        "{}",
        tr(msg!("md-simulator-sessions", count = e.simulator_faults))
    );
    let _ = writeln!(md, "{}", simulator_faults_line(e, lang));
    if !e.trajectory_kinds.is_empty() {
        let _ = writeln!(md, "{}", trajectory_line(e, lang));
    }
    let _ = writeln!(md, "{}", judge_review_line(e, calibration, lang));
    let _ = writeln!(md);
}

/// What the judge found in the targets' steps, by kind.
fn trajectory_line(e: &ExplorationFindings, lang: Lang) -> String {
    let tr = |m: Msg| m.render(lang);
    let kinds: Vec<String> = e
        .trajectory_kinds
        .iter()
        .map(|(kind, c)| {
            tr(msg!(
                "md-fault-kind",
                kind = tr(Msg::name("trajectory-kind", kind)),
                faults = c.faults,
                sessions = c.sessions
            ))
        })
        .collect();
    tr(msg!(
        "md-trajectory-findings",
        kinds = kinds.join(&tr(msg!("md-list-separator")))
    ))
}

/// The simulator faults of the summary, by kind.
fn simulator_faults_line(e: &ExplorationFindings, lang: Lang) -> String {
    let tr = |m: Msg| m.render(lang);
    let sep = tr(msg!("md-list-separator"));
    let kinds: Vec<String> = crate::exploration::SimulatorFaultKind::ALL
        .iter()
        .filter_map(|k| {
            let c = e.simulator_fault_kinds.get(k.as_str())?;
            (c.sessions > 0).then(|| {
                tr(msg!(
                    "md-fault-kind",
                    kind = k.label(lang),
                    faults = c.faults,
                    sessions = c.sessions
                ))
            })
        })
        .collect();
    tr(msg!(
        "md-simulator-faults",
        kinds = if kinds.is_empty() {
            tr(msg!("md-none"))
        } else {
            kinds.join(&sep)
        }
    ))
}

/// The judge's review of the summary, with its average score per
/// dimension and whether it is advisory.
fn judge_review_line(
    e: &ExplorationFindings,
    calibration: Option<&crate::calibration::JudgeCalibration>,
    lang: Lang,
) -> String {
    let tr = |m: Msg| m.render(lang);
    let sep = tr(msg!("md-list-separator"));
    let dims: Vec<String> = e
        .judge
        .dimensions
        .iter()
        .map(|(k, d)| {
            tr(msg!(
                "md-dimension-score",
                dimension = Msg::name("dimension", k),
                score = format!("{:.1}", d.average),
                status = super::calibration::advisory_word(calibration, k)
            ))
        })
        .collect();
    tr(msg!(
        "md-judge-review",
        reviewed = e.judge.reviewed,
        failed = e.judge.failed,
        pending = e.judge.pending,
        dimensions = if dims.is_empty() {
            String::new()
        } else {
            tr(msg!("md-judge-dimensions", dimensions = dims.join(&sep)))
        }
    ))
}

/// The issues, most frequent first, each with the sessions it was seen in.
fn issues_table(md: &mut String, e: &ExplorationFindings, names: &EvidenceNames, lang: Lang) {
    let tr = |m: Msg| m.render(lang);
    if !e.issues.is_empty() {
        let _ = writeln!(md, "{}", tr(msg!("md-issues")));
        let _ = writeln!(md);
        let _ = writeln!(md, "{}", tr(msg!("md-issues-header")));
        let _ = writeln!(md, "|---|---|---|---|");
        for i in e.issues.iter().take(MAX_ISSUE_ROWS) {
            let links: Vec<String> = i
                .session_ids
                .iter()
                .take(10)
                .map(|id| session_link(names, *id, None, lang))
                .collect();
            let more = i.session_ids.len().saturating_sub(10);
            // The built-in virtual user's issues read in the reader's
            // language; anybody else's as they wrote them.
            let text = i
                .msg
                .as_ref()
                .map_or_else(|| i.text.clone(), |m| tr(m.clone()));
            let _ = writeln!(
                md,
                "| {} | {} | {} | {}{} |",
                tr(Msg::name("issue-kind", i.kind.as_str())),
                escape_inline(&truncate(&text, 300)),
                i.count,
                links.join(" "),
                if more > 0 {
                    tr(msg!("md-and-more", count = more))
                } else {
                    String::new()
                }
            );
        }
        if e.issues.len() > MAX_ISSUE_ROWS {
            let _ = writeln!(md);
            let _ = writeln!(
                md,
                "{}",
                tr(msg!(
                    "md-more-issues",
                    count = e.issues.len() - MAX_ISSUE_ROWS
                ))
            );
        }
        let _ = writeln!(md);
    }
}

/// The judge's findings, poor first, each linked to its session and turn.
fn findings_list(md: &mut String, e: &ExplorationFindings, names: &EvidenceNames, lang: Lang) {
    let tr = |m: Msg| m.render(lang);
    if !e.findings.is_empty() {
        let _ = writeln!(md, "{}", tr(msg!("md-findings")));
        let _ = writeln!(md);
        for f in e.findings.iter().take(MAX_FINDINGS) {
            let dim = f
                .dimension
                .as_deref()
                .map(|d| format!(" · {}", tr(Msg::name("dimension", d))))
                .unwrap_or_default();
            let evidence = f
                .evidence
                .as_ref()
                .map(|x| x.render(lang))
                .filter(|x| !x.trim().is_empty())
                .map(|x| {
                    tr(msg!(
                        "md-evidence",
                        evidence = escape_inline(&truncate(&x, 200))
                    ))
                })
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "{}",
                tr(msg!(
                    "md-finding",
                    grade = Msg::name("grade", &f.severity),
                    dimension = dim,
                    text = escape_inline(&truncate(&f.text.render(lang), 300)),
                    evidence = evidence,
                    session = match f.step {
                        Some(step) => tr(msg!(
                            "md-at-step",
                            session = session_link(names, f.session_id, f.turn, lang),
                            step = step
                        )),
                        None => session_link(names, f.session_id, f.turn, lang),
                    }
                ))
            );
        }
        if e.findings.len() > MAX_FINDINGS {
            let _ = writeln!(md);
            let _ = writeln!(
                md,
                "{}",
                tr(msg!(
                    "md-more-findings",
                    count = e.findings.len() - MAX_FINDINGS
                ))
            );
        }
        let _ = writeln!(md);
    }
}

/// Sessions, goals achieved and issues per persona and goal.
fn coverage_grid(md: &mut String, e: &ExplorationFindings, lang: Lang) {
    let tr = |m: Msg| m.render(lang);
    let grid = &e.coverage;
    if !grid.personas.is_empty() && !grid.goals.is_empty() {
        let production = grid.production_conversations > 0;
        let title = if production {
            msg!("md-coverage-grid-production")
        } else {
            msg!("md-coverage-grid")
        };
        let _ = writeln!(md, "{}", tr(title));
        let _ = writeln!(md);
        let header: Vec<String> = grid
            .goals
            .iter()
            .map(|g| escape_inline(grid.goal_titles.get(g).unwrap_or(g)))
            .collect();
        let _ = writeln!(
            md,
            "{}",
            tr(msg!("md-coverage-header", goals = header.join(" | ")))
        );
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
                            |c| match production {
                                true => format!(
                                    "{} / {} / {} / {}",
                                    c.sessions, c.achieved, c.issues, c.production
                                ),
                                false => format!("{} / {} / {}", c.sessions, c.achieved, c.issues),
                            },
                        )
                })
                .collect();
            let name = grid.persona_names.get(p).unwrap_or(p);
            let _ = writeln!(md, "| {} | {} |", escape_inline(name), cells.join(" | "));
        }
        if production {
            production_line(md, grid, lang);
        }
        if grid.unseeded_sessions > 0 {
            let _ = writeln!(md);
            let _ = writeln!(
                md,
                "{}",
                tr(msg!("md-unseeded", count = grid.unseeded_sessions))
            );
        }
        let _ = writeln!(md);
    }
}

/// How production fell on the grid, and the cells it hits that
/// exploration never tried.
fn production_line(md: &mut String, grid: &crate::domain::findings::CoverageGrid, lang: Lang) {
    let untried: Vec<String> = grid
        .cells
        .iter()
        .filter(|c| c.production > 0 && c.sessions == 0)
        .map(|c| {
            format!(
                "{} × {}",
                grid.persona_names
                    .get(&c.persona_id)
                    .unwrap_or(&c.persona_id),
                grid.goal_titles.get(&c.goal_id).unwrap_or(&c.goal_id)
            )
        })
        .collect();
    let _ = writeln!(md);
    let line = msg!(
        "md-production-coverage",
        placed = grid.production_conversations - grid.production_unplaced,
        total = grid.production_conversations,
        unplaced = grid.production_unplaced
    );
    let _ = writeln!(md, "{}", line.render(lang));
    if !untried.is_empty() {
        let _ = writeln!(md);
        let cells = msg!("md-production-untried", cells = untried);
        let _ = writeln!(md, "{}", escape_inline(&cells.render(lang)));
    }
}

/// The report with the transcripts of its exploration sessions appended, so
/// that every finding's link leads to its conversation. Without exploration
/// data this is exactly [`markdown`].
pub fn markdown_with_transcripts(
    report: &CampaignReport,
    transcripts: &[crate::exploration::session::SessionTranscript],
    lang: Lang,
) -> String {
    let tr = |m: Msg| m.render(lang);
    let mut md = markdown(report, lang);
    if report.exploration.is_none() || transcripts.is_empty() {
        return md;
    }
    let _ = writeln!(md, "{}", tr(msg!("md-transcripts")));
    let _ = writeln!(md);
    let total = report.exploration.as_ref().map_or(0, |e| e.sessions_total);
    if transcripts.len() < total as usize {
        let _ = writeln!(
            md,
            "{}",
            tr(msg!(
                "md-transcripts-some",
                shown = transcripts.len(),
                others = total as usize - transcripts.len()
            ))
        );
        let _ = writeln!(md);
    }
    for t in transcripts {
        let s = &t.session;
        // An explicit anchor: a heading's own slug depends on the renderer
        // and on the language of its words.
        let _ = writeln!(md, "<a id=\"session-{}\"></a>", s.id);
        let _ = writeln!(md);
        let _ = writeln!(
            md,
            "{}",
            tr(msg!(
                "md-session",
                name = escape_inline(&report.evidence.session_msg(s.id, None).render(lang)),
                id = s.id.to_string()
            ))
        );
        let _ = writeln!(md);
        let _ = writeln!(md, "{}", tr(msg!("md-session-id", id = s.id.to_string())));
        let persona = persona_name(&s.persona);
        let goal = goal_title(&s.goal);
        let _ = writeln!(
            md,
            "{}",
            tr(msg!(
                "md-session-persona",
                persona = escape_inline(&truncate(&persona, 200))
            ))
        );
        let _ = writeln!(
            md,
            "{}",
            tr(msg!(
                "md-session-goal",
                goal = escape_inline(&truncate(&goal, 300))
            ))
        );
        let _ = writeln!(
            md,
            "{}",
            tr(msg!(
                "md-session-status",
                status = Msg::name("session-status", s.status.as_str()),
                end_reason = s
                    .end_reason
                    .map_or_else(|| msg!("md-none"), |r| Msg::name("end-reason", r.as_str())),
                trigger = Msg::name("trigger", s.trigger.as_str()),
                played_by = Msg::name("played-by", s.played_by.as_str()),
                turns = s.turn_count
            ))
        );
        if let Some(r) = &s.experience {
            // The built-in user's issues in the reader's language; anyone
            // else's words quoted as the reader's language quotes.
            let list = |items: &[Text]| {
                if items.is_empty() {
                    return tr(msg!("md-none"));
                }
                let said: Vec<String> = items
                    .iter()
                    .map(|i| match i {
                        Text::Msg(m) => escape_inline(&tr(m.clone())),
                        Text::Plain(words) => {
                            tr(msg!("md-quoted-list", items = vec![escape_inline(words)]))
                        }
                    })
                    .collect();
                said.join(if lang == Lang::Zh { "；" } else { "; " })
            };
            let _ = writeln!(
                md,
                "{}",
                tr(msg!(
                    "md-session-experience",
                    goal = if r.goal_achieved {
                        msg!("md-achieved")
                    } else {
                        msg!("md-not-achieved")
                    },
                    emotion = Msg::name("emotion", &r.emotion),
                    blockers = list(&r.blockers),
                    misled = list(&r.misled)
                ))
            );
            // The built-in user's notes are the product's sentence; anyone
            // else's are quoted.
            let notes = r.notes.render(lang);
            if !notes.trim().is_empty() {
                let key = if r.notes.msg().is_some() {
                    "md-session-notes-builtin"
                } else {
                    "md-session-notes"
                };
                let notes = escape_inline(&truncate(&notes, 1000));
                let _ = writeln!(md, "{}", tr(Msg::new(key).arg("notes", notes)));
            }
        }
        let _ = writeln!(md);
        for m in &t.messages {
            let who = match m.role {
                crate::exploration::session::TurnRole::User => msg!("md-user"),
                crate::exploration::session::TurnRole::Target => msg!("md-target-speaker"),
            };
            let latency = m
                .latency_ms
                .map(|l| tr(msg!("md-latency-ms", ms = l)))
                .unwrap_or_default();
            let _ = writeln!(
                md,
                "{}. **{}**{latency}: {}",
                m.seq + 1,
                tr(who),
                escape_inline(&truncate(&m.content, 2000))
            );
            // The steps before the reply, listed under it (a finding names
            // them by number).
            for (i, s) in m.steps.iter().enumerate() {
                let _ = writeln!(md, "   {}", super::steps::step_line(i + 1, s, lang));
            }
        }
        let _ = writeln!(md);
    }
    md
}
