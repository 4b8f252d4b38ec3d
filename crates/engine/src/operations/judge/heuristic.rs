//! The review without a model: refusal loops, repeated replies, slow
//! replies, figures the target invented, what its steps show
//! ([`super::trajectory`]), and the simulator faults of the
//! check every ended session gets
//! ([`crate::exploration::simulator_faults`]).

use super::model::sort_findings;
use super::trajectory::{TrajectoryTally, trajectory_findings};
use super::*;
use crate::campaign::Goal;
use crate::i18n::{Msg, Text};
use crate::msg;

/// Replies slower than this get a fair finding; four times it, poor.
pub(super) const SLOW_MS: i64 = 10_000;

/// Numbers of two or more digits: single digits ("step 1") are noise here.
pub(super) fn numbers(text: &str) -> BTreeSet<String> {
    crate::checks::canonical_numbers(text)
        .into_iter()
        .filter(|n| n.chars().filter(char::is_ascii_digit).count() >= 2)
        .collect()
}

/// A reply as the evidence quotes it: trimmed, cut at 120 characters.
pub(super) fn quote(text: &str) -> String {
    truncate(text.trim(), 120)
}

/// The offline judge: rule-based, over the whole conversation.
pub fn heuristic_review(session: &SessionForReview) -> JudgeReview {
    let goal = crate::virtual_user::parse_goal(&session.goal);
    let all = rounds(&session.messages);
    let mut findings = Vec::new();
    let known = given_figures(&goal, &all);
    let offered = session.acts();
    let tally = tally_replies(&all, &known, offered, &mut findings);
    let steps = trajectory_findings(&all, offered, session.max_steps, &mut findings);
    let slow = slow_replies(session, &mut findings);
    let answered = all.iter().filter(|r| r.target.is_some()).count();
    note_sound_replies(&tally, &steps, slow, answered, &mut findings);
    let count = all.iter().map(|r| r.steps.len()).sum::<usize>();
    if count > 0 && steps.claims == 0 && steps.missteps == 0 {
        findings.push(finding(
            Grade::Good,
            "trajectory",
            msg!("judge-steps-fine", count = count),
            None,
        ));
    }
    let dimensions = dimension_scores(tally, &steps, slow, answered);
    let simulator = simulator_findings(session, &mut findings);
    sort_findings(&mut findings);
    JudgeReview {
        method: JudgeMethod::Heuristic,
        model: None,
        dimensions: Some(dimensions),
        findings,
        simulator: Some(simulator),
        simulator_fault: false,
        sample: Some(SampleInfo {
            rounds: all.len() as u32,
            messages: session.messages.len() as u32,
            max_chars: 0,
        }),
        error: None,
        output_mode: None,
    }
    .finalize()
}

/// A finding of the offline judge (no severity: the grade says it).
fn finding(grade: Grade, dimension: &str, text: Msg, turn: Option<u32>) -> JudgeFinding {
    JudgeFinding {
        grade,
        severity: None,
        dimension: dimension.into(),
        text: text.into(),
        turn,
        step: None,
    }
}

/// The figures the target was given: in the goal, its facts, every
/// message of the user and every answer of a tool it called.
fn given_figures(goal: &Goal, all: &[Round<'_>]) -> BTreeSet<String> {
    let mut given = format!("{} {}", goal.title, goal.description);
    for v in goal.slot_texts().values() {
        given.push(' ');
        given.push_str(v);
    }
    for r in all {
        given.push(' ');
        given.push_str(r.user);
        for step in r.steps {
            given.push(' ');
            given.push_str(&step.answer.content());
        }
    }
    numbers(&given)
}

/// What the replies showed, counted over the conversation.
#[derive(Default)]
struct ReplyTally<'a> {
    /// Whether the target was offered tools.
    offered: bool,
    empty: u32,
    repeated: u32,
    refusals: u32,
    /// The longest run of refusals in a row.
    max_refusal_run: u32,
    /// Each figure the target gave and was not given: (turn, figure, reply).
    unverified: Vec<(u32, String, &'a str)>,
    /// The first empty or repeated reply, quoted.
    professionalism_evidence: Option<String>,
    /// The first refusal, quoted.
    attitude_evidence: Option<String>,
}

/// Empty, repeated and refusing replies and invented figures, each empty
/// or repeated reply and invented figure a finding.
fn tally_replies<'a>(
    all: &[Round<'a>],
    known: &BTreeSet<String>,
    offered: bool,
    findings: &mut Vec<JudgeFinding>,
) -> ReplyTally<'a> {
    let mut tally = ReplyTally {
        offered,
        ..ReplyTally::default()
    };
    let mut run = 0;
    let mut previous: Option<&str> = None;
    for r in all {
        let Some(reply) = r.target else { continue };
        if reply.trim().is_empty() {
            tally.empty += 1;
            findings.push(finding(
                Grade::Poor,
                "professionalism",
                msg!("judge-empty-reply"),
                Some(r.number),
            ));
        } else if previous.is_some_and(|p| p.trim() == reply.trim()) {
            tally.repeated += 1;
            tally
                .professionalism_evidence
                .get_or_insert_with(|| quote(reply));
            findings.push(finding(
                Grade::Poor,
                "professionalism",
                msg!("judge-repeated-reply", reply = quote(reply)),
                Some(r.number),
            ));
        }
        if is_refusal(reply) {
            tally.refusals += 1;
            run += 1;
            tally.max_refusal_run = tally.max_refusal_run.max(run);
            tally.attitude_evidence.get_or_insert_with(|| quote(reply));
        } else {
            run = 0;
        }
        for n in numbers(reply) {
            if !known.contains(&n) {
                tally.unverified.push((r.number, n, reply));
            }
        }
        previous = Some(reply);
    }
    for (turn, n, reply) in &tally.unverified {
        findings.push(finding(
            Grade::Poor,
            "hallucination",
            if offered {
                msg!(
                    "judge-invented-figure-tools",
                    figure = n.as_str(),
                    reply = quote(reply)
                )
            } else {
                msg!(
                    "judge-invented-figure",
                    figure = n.as_str(),
                    reply = quote(reply)
                )
            },
            Some(*turn),
        ));
    }
    if tally.max_refusal_run >= 2 {
        findings.push(finding(
            Grade::Poor,
            "attitude",
            msg!("judge-refusal-loop", count = tally.max_refusal_run),
            None,
        ));
    } else if tally.refusals == 1 {
        findings.push(finding(
            Grade::Fair,
            "attitude",
            msg!("judge-refused-once"),
            None,
        ));
    }
    tally
}

/// Each reply slower than [`SLOW_MS`] a finding; how many there were.
fn slow_replies(session: &SessionForReview, findings: &mut Vec<JudgeFinding>) -> u32 {
    let mut replies: Vec<(u32, i64)> = Vec::new();
    let mut round = 0;
    for m in &session.messages {
        if m.role == "user" {
            round += 1;
        } else if let Some(l) = m.latency_ms {
            replies.push((round, l));
        }
    }
    let mut slow = 0;
    for (turn, latency) in &replies {
        if *latency > SLOW_MS {
            slow += 1;
            let grade = if *latency > 4 * SLOW_MS {
                Grade::Poor
            } else {
                Grade::Fair
            };
            findings.push(finding(
                grade,
                "professionalism",
                msg!("judge-slow-reply", ms = *latency),
                Some(*turn),
            ));
        }
    }
    slow
}

/// The good findings of a conversation with replies and nothing wrong in
/// a dimension.
fn note_sound_replies(
    tally: &ReplyTally<'_>,
    steps: &TrajectoryTally,
    slow: u32,
    answered: usize,
    findings: &mut Vec<JudgeFinding>,
) {
    if answered == 0 {
        return;
    }
    if tally.empty == 0 && tally.repeated == 0 && slow == 0 {
        findings.push(finding(
            Grade::Good,
            "professionalism",
            msg!("judge-replies-fine", count = answered),
            None,
        ));
    }
    if tally.unverified.is_empty() && steps.claims == 0 {
        let text = if tally.offered {
            msg!("judge-figures-returned")
        } else {
            msg!("judge-figures-given")
        };
        findings.push(finding(Grade::Good, "hallucination", text, None));
    }
    if tally.refusals == 0 {
        findings.push(finding(
            Grade::Good,
            "attitude",
            msg!("judge-no-refusals"),
            None,
        ));
    }
}

/// The three scores, 5 less the penalties (at least 1), each with its
/// evidence.
fn dimension_scores(
    tally: ReplyTally<'_>,
    steps: &TrajectoryTally,
    slow: u32,
    answered: usize,
) -> Dimensions {
    let score = |penalty: u32| (5u32.saturating_sub(penalty)).max(1) as u8;
    // The quoted reply behind a score, or what was looked for and not found.
    let evidence = |quoted: Option<String>, none: Msg| -> Text {
        match quoted {
            Some(q) => msg!("judge-evidence-quote", reply = q).into(),
            None => none.into(),
        }
    };
    Dimensions {
        attitude: DimensionScore {
            score: score(if tally.max_refusal_run >= 2 {
                3
            } else {
                tally.refusals.min(2)
            }),
            evidence: evidence(
                tally.attitude_evidence,
                msg!("judge-no-refusal-in", count = answered),
            ),
        },
        professionalism: DimensionScore {
            score: score(tally.empty * 2 + tally.repeated + slow + steps.missteps),
            evidence: evidence(
                tally.professionalism_evidence,
                msg!("judge-no-bad-reply-in", count = answered),
            ),
        },
        hallucination: DimensionScore {
            score: score((tally.unverified.len() as u32 + steps.claims) * 2),
            evidence: evidence(
                tally
                    .unverified
                    .first()
                    .map(|(_, _, reply)| quote(reply))
                    .or_else(|| steps.claim_evidence.clone()),
                msg!("judge-no-figure-in", count = answered),
            ),
        },
    }
}

/// The virtual user, by the check every ended session gets: each fault a
/// finding, and its review.
fn simulator_findings(
    session: &SessionForReview,
    findings: &mut Vec<JudgeFinding>,
) -> SimulatorReview {
    let faults = crate::exploration::simulator_faults::check(session);
    let simulator = crate::exploration::simulator_faults::simulator_review(
        &faults,
        session.end_reason.as_deref(),
    );
    for fault in &faults {
        findings.push(finding(Grade::Poor, "simulator", fault.msg(), fault.turn));
    }
    if session.end_reason.as_deref() == Some("simulator_error") {
        findings.push(finding(
            Grade::Poor,
            "simulator",
            msg!("judge-simulator-error"),
            None,
        ));
    }
    simulator
}
