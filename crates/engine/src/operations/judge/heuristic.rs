//! The review without a model: refusal loops, repeated replies, slow
//! replies, figures the target invented, and the simulator faults of the
//! check every ended session gets
//! ([`crate::exploration::simulator_faults`]).

use super::model::sort_findings;
use super::*;
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
    let mut finding = |grade, dimension: &str, text: Msg, turn: Option<u32>| {
        findings.push(JudgeFinding {
            grade,
            severity: None,
            dimension: dimension.into(),
            text: text.into(),
            turn,
        })
    };

    let mut given = format!("{} {}", goal.title, goal.description);
    for v in goal.slot_texts().values() {
        given.push(' ');
        given.push_str(v);
    }
    for r in &all {
        given.push(' ');
        given.push_str(r.user);
    }
    let known = numbers(&given);

    let (mut empty, mut repeated, mut refusals, mut max_refusal_run, mut run) = (0, 0, 0, 0, 0);
    let mut unverified: Vec<(u32, String, &str)> = Vec::new();
    let mut prof_evidence = None;
    let mut att_evidence = None;
    let mut previous: Option<&str> = None;
    for r in &all {
        let Some(reply) = r.target else { continue };
        if reply.trim().is_empty() {
            empty += 1;
            finding(
                Grade::Poor,
                "professionalism",
                msg!("judge-empty-reply"),
                Some(r.number),
            );
        } else if previous.is_some_and(|p| p.trim() == reply.trim()) {
            repeated += 1;
            prof_evidence.get_or_insert_with(|| quote(reply));
            finding(
                Grade::Poor,
                "professionalism",
                msg!("judge-repeated-reply", reply = quote(reply)),
                Some(r.number),
            );
        }
        if is_refusal(reply) {
            refusals += 1;
            run += 1;
            max_refusal_run = max_refusal_run.max(run);
            att_evidence.get_or_insert_with(|| quote(reply));
        } else {
            run = 0;
        }
        for n in numbers(reply) {
            if !known.contains(&n) {
                unverified.push((r.number, n, reply));
            }
        }
        previous = Some(reply);
    }
    for (turn, n, reply) in &unverified {
        finding(
            Grade::Poor,
            "hallucination",
            msg!(
                "judge-invented-figure",
                figure = n.as_str(),
                reply = quote(reply)
            ),
            Some(*turn),
        );
    }
    if max_refusal_run >= 2 {
        finding(
            Grade::Poor,
            "attitude",
            msg!("judge-refusal-loop", count = max_refusal_run),
            None,
        );
    } else if refusals == 1 {
        finding(Grade::Fair, "attitude", msg!("judge-refused-once"), None);
    }
    let replies: Vec<(u32, i64)> = {
        let mut out = Vec::new();
        let mut round = 0;
        for m in &session.messages {
            if m.role == "user" {
                round += 1;
            } else if let Some(l) = m.latency_ms {
                out.push((round, l));
            }
        }
        out
    };
    let mut slow = 0;
    for (turn, latency) in &replies {
        if *latency > SLOW_MS {
            slow += 1;
            let grade = if *latency > 4 * SLOW_MS {
                Grade::Poor
            } else {
                Grade::Fair
            };
            finding(
                grade,
                "professionalism",
                msg!("judge-slow-reply", ms = *latency),
                Some(*turn),
            );
        }
    }
    let answered = all.iter().filter(|r| r.target.is_some()).count();
    if answered > 0 && empty == 0 && repeated == 0 && slow == 0 {
        finding(
            Grade::Good,
            "professionalism",
            msg!("judge-replies-fine", count = answered),
            None,
        );
    }
    if answered > 0 && unverified.is_empty() {
        finding(
            Grade::Good,
            "hallucination",
            msg!("judge-figures-given"),
            None,
        );
    }
    if answered > 0 && refusals == 0 {
        finding(Grade::Good, "attitude", msg!("judge-no-refusals"), None);
    }

    let score = |penalty: u32| (5u32.saturating_sub(penalty)).max(1) as u8;
    // The quoted reply behind a score, or what was looked for and not found.
    let evidence = |quoted: Option<String>, none: Msg| -> Text {
        match quoted {
            Some(q) => msg!("judge-evidence-quote", reply = q).into(),
            None => none.into(),
        }
    };
    let dimensions = Dimensions {
        attitude: DimensionScore {
            score: score(if max_refusal_run >= 2 {
                3
            } else {
                refusals.min(2)
            }),
            evidence: evidence(att_evidence, msg!("judge-no-refusal-in", count = answered)),
        },
        professionalism: DimensionScore {
            score: score(empty * 2 + repeated + slow),
            evidence: evidence(
                prof_evidence,
                msg!("judge-no-bad-reply-in", count = answered),
            ),
        },
        hallucination: DimensionScore {
            score: score(unverified.len() as u32 * 2),
            evidence: evidence(
                unverified.first().map(|(_, _, reply)| quote(reply)),
                msg!("judge-no-figure-in", count = answered),
            ),
        },
    };

    // The virtual user, by the check every ended session gets.
    let faults = crate::exploration::simulator_faults::check(session);
    let simulator = crate::exploration::simulator_faults::simulator_review(
        &faults,
        session.end_reason.as_deref(),
    );
    for fault in &faults {
        finding(Grade::Poor, "simulator", fault.msg(), fault.turn);
    }
    if session.end_reason.as_deref() == Some("simulator_error") {
        finding(
            Grade::Poor,
            "simulator",
            msg!("judge-simulator-error"),
            None,
        );
    }
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
