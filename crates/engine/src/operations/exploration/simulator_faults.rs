//! The deterministic check of the virtual user, run on every exploration
//! transcript as its session ends (DESIGN §11: simulator faults are counted
//! apart, never against the target).
//!
//! Five kinds of fault, each explainable from the transcript alone:
//! - `invented_fact`: a user turn states a figure (two or more digits: ids,
//!   amounts, dates) or an email address found neither in the persona, nor
//!   in the goal (slots included), nor in what the target said before. A
//!   persona that may change its mind gets its first new value as its
//!   correction. Names are not checked: without a model they cannot be
//!   told from ordinary words. A seed that gives no such fact at all (a
//!   goal like "send an email", a persona with a name only) leaves the
//!   user to supply them, as a person driving a session through the API
//!   does: there is nothing to check against, and nothing is flagged.
//! - `left_language`: a user turn, once what it quotes of the goal and
//!   persona is set aside, is not in the persona's language.
//! - `quit_early`: the user gave up after fewer replies of the target than
//!   its persona's stated patience (the number of unhelpful replies it
//!   takes); a persona without one sets no bound.
//! - `went_on_after_goal`: the record says the goal was met, the target's
//!   replies had shown every success criterion, and the user still spoke.
//! - `drifted`: three or more user turns after the opening, and none of
//!   them mentions the goal (a slot value or a key word of its title or
//!   description).
//! - `record_disagrees`: the record says the goal was met and the user
//!   gave up, or the session ended as met and the record says it was not.
//!
//! A session a person played is never checked: a person is not a
//! simulator, and ends the session for the reason they choose.
//!
//! The check runs in the transaction that ends a session and its result is
//! stored with it (`exploration_sessions.simulator_faults`, migration
//! 0013); sessions that ended before the migration are checked when the
//! engine first opens the database after it (the store's backfills).

use crate::campaign::{Goal, Persona};
use crate::domain::ids::SessionId;
use crate::error::Result;
use crate::exploration::PlayedBy;
use crate::exploration::{EndReason, ExperienceRecord};
use crate::judge::{SessionForReview, SimulatorReview};
use crate::store::Tx;
use crate::virtual_user::{Lang, has_cjk, lang_of, parse_goal, parse_persona};
use regex::Regex;
use std::collections::BTreeSet;
use std::sync::LazyLock;

pub use crate::domain::session::{SimulatorFault, SimulatorFaultKind};

/// Emails: a local part, `@`, and a dotted domain.
static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+").expect("valid pattern")
});

/// English words too common to tell a goal apart.
const STOPWORDS: &[&str] = &[
    "about",
    "after",
    "again",
    "also",
    "because",
    "been",
    "before",
    "could",
    "does",
    "from",
    "have",
    "help",
    "into",
    "just",
    "like",
    "make",
    "need",
    "please",
    "should",
    "some",
    "that",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "want",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "will",
    "with",
    "without",
    "would",
    "your",
    "know",
    "last",
    "week",
    "find",
    "understand",
];

/// The facts a text states: figures of two or more digits (canonical) and
/// email addresses (lowercased).
fn facts(text: &str) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = crate::checks::canonical_numbers(&EMAIL.replace_all(text, " "))
        .into_iter()
        .filter(|n| n.chars().filter(char::is_ascii_digit).count() >= 2)
        .collect();
    out.extend(EMAIL.find_iter(text).map(|m| m.as_str().to_lowercase()));
    out
}

/// The texts the user was given: the persona and the goal as stored, every
/// field included.
fn given_texts(persona: &Persona, goal: &Goal) -> Vec<String> {
    let mut texts = vec![
        goal.title.clone(),
        goal.description.clone(),
        persona.name.clone(),
        persona.description.clone(),
    ];
    texts.extend(goal.success_criteria.iter().cloned());
    texts.extend(goal.slot_texts().into_values());
    texts.extend(goal.extra.values().map(|v| v.to_string()));
    texts.extend(persona.extra.values().map(|v| v.to_string()));
    texts.retain(|t| !t.trim().is_empty());
    texts
}

/// The goal's key terms, lowercased: slot values, words of four letters or
/// more of its title and description (common words aside), and pairs of
/// Chinese characters of its title.
fn key_terms(goal: &Goal) -> Vec<String> {
    let mut terms: Vec<String> = goal
        .slot_texts()
        .values()
        .map(|v| v.trim().to_lowercase())
        .filter(|v| !v.is_empty())
        .collect();
    for text in [&goal.title, &goal.description] {
        let lower = text.to_lowercase();
        for word in lower.split(|c: char| !c.is_alphanumeric() || has_cjk(&c.to_string())) {
            if word.chars().count() >= 4 && !STOPWORDS.contains(&word) {
                terms.push(word.to_string());
            }
        }
    }
    let cjk: Vec<char> = goal
        .title
        .chars()
        .filter(|c| has_cjk(&c.to_string()))
        .collect();
    for pair in cjk.windows(2) {
        terms.push(pair.iter().collect());
    }
    terms.sort();
    terms.dedup();
    terms
}

/// The turn with every given text taken out (what the user quotes of its
/// goal says nothing of the language it speaks).
fn own_words(turn: &str, given: &[String]) -> String {
    let mut rest = turn.to_lowercase();
    let mut given: Vec<String> = given
        .iter()
        .map(|g| {
            g.trim()
                .trim_end_matches(['.', '。', '!', '！'])
                .to_lowercase()
        })
        .filter(|g| !g.is_empty())
        .collect();
    // Longest first, so that a title goes before a word of it.
    given.sort_by_key(|g| std::cmp::Reverse(g.len()));
    for g in &given {
        rest = rest.replace(g.as_str(), " ");
    }
    EMAIL.replace_all(&rest, " ").into_owned()
}

/// Whether what the user said in its own words is in the other language.
fn other_language(own: &str, lang: Lang) -> Option<&'static str> {
    match lang {
        Lang::En => has_cjk(own).then_some("Chinese"),
        Lang::Zh => {
            let latin_word = own
                .split(|c: char| !c.is_ascii_alphabetic())
                .any(|w| w.len() >= 2);
            (!has_cjk(own) && latin_word).then_some("English")
        }
    }
}

/// Checks one transcript; faults in the order of the turns they refer to,
/// whole-session ones last.
pub fn check(session: &SessionForReview) -> Vec<SimulatorFault> {
    if session.played_by == PlayedBy::Person {
        return Vec::new();
    }
    let persona = parse_persona(&session.persona);
    let goal = parse_goal(&session.goal);
    let lang = lang_of(&persona, &goal);
    let profile = crate::virtual_user::PersonaProfile::of(&persona, &goal, &session.persona);
    let end = session.end_reason.as_deref().and_then(EndReason::parse);
    let experience: Option<ExperienceRecord> = session
        .experience
        .clone()
        .and_then(|e| serde_json::from_value(e).ok());
    let given = given_texts(&persona, &goal);
    let mut known = facts(&given.join("\n"));
    known.extend(facts(&session.persona.to_string()));
    known.extend(facts(&session.goal.to_string()));
    let seed_gives_facts = !known.is_empty();
    let terms = key_terms(&goal);
    let may_correct = persona.change_mind.is_some_and(|p| p > 0.0);

    let mut faults = Vec::new();
    let mut corrected = false;
    let mut replies = 0u32;
    let mut shown_criteria = String::new();
    let mut goal_shown_at: Option<u32> = None;
    let mut turn = 0u32;
    let mut later_turns = 0u32;
    let mut later_on_goal = false;
    for m in &session.messages {
        if m.role != "user" {
            replies += 1;
            known.extend(facts(&m.content));
            shown_criteria.push('\n');
            shown_criteria.push_str(&m.content.to_lowercase());
            if goal_shown_at.is_none()
                && !goal.success_criteria.is_empty()
                && goal
                    .success_criteria
                    .iter()
                    .all(|c| shown_criteria.contains(&c.trim().to_lowercase()))
            {
                goal_shown_at = Some(turn);
            }
            continue;
        }
        turn += 1;
        let text = m.content.as_str();
        let invented: Vec<String> = facts(text)
            .into_iter()
            .filter(|f| seed_gives_facts && !known.contains(f))
            .collect();
        if !invented.is_empty() {
            if may_correct && !corrected {
                corrected = true;
            } else {
                let list = invented.join(", ");
                faults.push(SimulatorFault::new(
                    SimulatorFaultKind::InventedFact,
                    Some(turn),
                    Some(list.clone()),
                    format!("turn {turn} states {list}, which neither the persona, the goal nor the target gave"),
                ));
            }
            known.extend(invented);
        }
        if let Some(spoken) = other_language(&own_words(text, &given), lang) {
            let persona_lang = if lang == Lang::Zh {
                "Chinese"
            } else {
                "English"
            };
            faults.push(SimulatorFault::new(
                SimulatorFaultKind::LeftLanguage,
                Some(turn),
                Some(spoken.to_string()),
                format!("turn {turn} is in {spoken}; the persona speaks {persona_lang}"),
            ));
        }
        if let Some(met) = goal_shown_at
            && experience.as_ref().is_some_and(|e| e.goal_achieved)
            && !faults
                .iter()
                .any(|f| f.kind == SimulatorFaultKind::WentOnAfterGoal)
        {
            faults.push(SimulatorFault::new(
                SimulatorFaultKind::WentOnAfterGoal,
                Some(turn),
                Some(met.to_string()),
                format!(
                    "the target's reply to turn {met} met every success criterion and the record says the goal was met, yet the user spoke again at turn {turn}"
                ),
            ));
        }
        if turn > 1 {
            later_turns += 1;
            let lower = text.to_lowercase();
            later_on_goal |= terms.iter().any(|t| lower.contains(t.as_str()));
        }
    }

    // Only a persona that states its patience bounds when it may give up.
    if let Some(patience) = persona.patience.map(|_| profile.patience)
        && end == Some(EndReason::UserGaveUp)
        && replies < u32::from(patience)
    {
        faults.push(SimulatorFault::new(
            SimulatorFaultKind::QuitEarly,
            (turn > 0).then_some(turn),
            Some(replies.to_string()),
            format!(
                "gave up after {replies} replies of the target; its patience is {patience} unhelpful replies"
            ),
        ));
    }
    if let Some(e) = &experience
        && let Some(end) = end
        && ((e.goal_achieved && end == EndReason::UserGaveUp)
            || (!e.goal_achieved && end == EndReason::UserGoalMet))
    {
        let said = if e.goal_achieved { "met" } else { "not_met" };
        faults.push(SimulatorFault::new(
            SimulatorFaultKind::RecordDisagrees,
            None,
            Some(said.to_string()),
            format!(
                "the record says the goal was {}, yet the session ended as {}",
                said.replace('_', " "),
                end.as_str()
            ),
        ));
    }
    if later_turns >= 3 && !later_on_goal && !terms.is_empty() {
        faults.push(SimulatorFault::new(
            SimulatorFaultKind::Drifted,
            Some(2),
            Some(later_turns.to_string()),
            format!(
                "none of the {later_turns} turns after the first mentions the goal (its slots or key words)"
            ),
        ));
    }
    faults
}

/// The simulator block of a judge review, from the check: one mechanism
/// for both (a review model's own verdict may add to it, never clear it).
pub fn simulator_review(faults: &[SimulatorFault], end_reason: Option<&str>) -> SimulatorReview {
    let has = |k| faults.iter().any(|f| f.kind == k);
    SimulatorReview {
        in_persona: !has(SimulatorFaultKind::LeftLanguage),
        quit_early: has(SimulatorFaultKind::QuitEarly),
        invented_facts: has(SimulatorFaultKind::InventedFact),
        simulator_fault: !faults.is_empty() || end_reason == Some("simulator_error"),
    }
}

/// Checks an ended session and stores its faults (an empty list when
/// there is none), in the caller's transaction; returns them.
pub(crate) fn check_and_store(tx: &Tx<'_>, session_id: SessionId) -> Result<Vec<SimulatorFault>> {
    let faults = check(&tx.transcript_to_check(session_id)?);
    tx.store_simulator_faults(session_id, &faults)?;
    Ok(faults)
}
