//! How a report names the runs and sessions it cites, so that people can
//! tell them apart: a run by its scenario's title and its number in the
//! campaign's plan ("Send an email, run 12"), a session by its persona and
//! goal and its place among that pair's sessions ("Dana × Track an order
//! #3"). Ids of one campaign share their first characters (UUIDv7 starts
//! with the time), so a shortened id names nothing.

use crate::i18n::Msg;
use crate::ids::{RunId, SessionId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A cited run, named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct RunName {
    pub id: RunId,
    /// The scenario's title (its id when the scenario is no longer known).
    pub scenario: String,
    /// The run's number in the campaign's plan, from 1 (as the run's own
    /// view titles it).
    pub number: u32,
}

/// A cited session, named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct SessionName {
    pub id: SessionId,
    pub persona: String,
    pub goal: String,
    /// The session's place among the sessions of its persona and goal in
    /// the campaign, from 1 (by start; the unseeded sessions together).
    pub ordinal: u32,
}

/// The names of the runs and sessions a report cites.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct EvidenceNames {
    pub runs: Vec<RunName>,
    pub sessions: Vec<SessionName>,
}

impl EvidenceNames {
    pub fn run(&self, id: RunId) -> Option<&RunName> {
        self.runs.iter().find(|r| r.id == id)
    }

    pub fn session(&self, id: SessionId) -> Option<&SessionName> {
        self.sessions.iter().find(|s| s.id == id)
    }

    /// Adds the names `other` has that these lack.
    pub fn merge(&mut self, other: Self) {
        for r in other.runs {
            if self.run(r.id).is_none() {
                self.runs.push(r);
            }
        }
        for s in other.sessions {
            if self.session(s.id).is_none() {
                self.sessions.push(s);
            }
        }
    }

    /// A run in words; an unknown one by its full id.
    pub fn run_msg(&self, id: RunId) -> Msg {
        match self.run(id) {
            Some(r) => crate::msg!(
                "evidence-run",
                scenario = r.scenario.as_str(),
                number = r.number
            ),
            None => crate::msg!("evidence-run-id", id = id.to_string()),
        }
    }

    /// A session in words, with the turn when one is cited; an unknown one
    /// by its full id.
    pub fn session_msg(&self, id: SessionId, turn: Option<u32>) -> Msg {
        let session = match self.session(id) {
            Some(s) => crate::msg!(
                "evidence-session",
                persona = s.persona.as_str(),
                goal = s.goal.as_str(),
                ordinal = s.ordinal
            ),
            None => crate::msg!("evidence-session-id", id = id.to_string()),
        };
        match turn {
            Some(turn) => crate::msg!("evidence-turn", session = session, turn = turn),
            None => session,
        }
    }
}

/// A persona's display name: its `name`, its `id`, or the plain text.
pub fn persona_name(persona: &Value) -> String {
    display(persona, "name")
}

/// A goal's display title: its `title`, its `id`, or the plain text.
pub fn goal_title(goal: &Value) -> String {
    display(goal, "title")
}

/// The display name of a persona as stored (its JSON text); a text that is
/// not JSON names nothing ("—").
pub fn stored_persona_name(stored: &str) -> String {
    persona_name(&parse_stored(stored))
}

/// The display title of a goal as stored (its JSON text), as
/// [`stored_persona_name`].
pub fn stored_goal_title(stored: &str) -> String {
    goal_title(&parse_stored(stored))
}

fn parse_stored(stored: &str) -> Value {
    serde_json::from_str(stored).unwrap_or(Value::Null)
}

fn display(v: &Value, field: &str) -> String {
    let text = |x: Option<&Value>| {
        x.and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    text(v.get(field))
        .or_else(|| text(v.get("id")))
        .or_else(|| text(Some(v)))
        .unwrap_or_else(|| "—".into())
}

/// The session and turn an analysis's turn citation names: the first UUID
/// in it, and the number after it (e.g. `0190…-…:3`, `session 0190… turn
/// 3`). `None` without a UUID.
pub fn parse_turn_citation(text: &str) -> Option<(SessionId, Option<u32>)> {
    let is_part = |c: char| c.is_ascii_hexdigit() || c == '-';
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let start = rest.find(is_part)?;
        let token = &rest[start..];
        let len = token.find(|c: char| !is_part(c)).unwrap_or(token.len());
        if let Some(id) = token
            .get(..36)
            .filter(|_| len >= 36)
            .and_then(|t| t.parse().ok())
        {
            let after = &token[36..];
            let turn = after
                .split(|c: char| !c.is_ascii_digit())
                .rfind(|s| !s.is_empty())
                .and_then(|n| n.parse::<u32>().ok())
                .filter(|n| *n > 0);
            return Some((id, turn));
        }
        at += start + len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Lang;
    use serde_json::json;
    use uuid::Uuid;

    const A: &str = "01a24640-5d2a-70a9-8303-05f2c25bea88";

    #[test]
    fn a_turn_citation_names_its_session_and_turn() {
        let id: SessionId = A.parse().unwrap();
        assert_eq!(parse_turn_citation(&format!("{A}:3")), Some((id, Some(3))));
        assert_eq!(
            parse_turn_citation(&format!("session {A} turn 12")),
            Some((id, Some(12)))
        );
        assert_eq!(parse_turn_citation(A), Some((id, None)));
        assert_eq!(parse_turn_citation("turn 3 of 01a2"), None);
        assert_eq!(parse_turn_citation(""), None);
    }

    #[test]
    fn names_read_in_both_languages_and_unknown_ids_stay_whole() {
        let run = RunId(Uuid::from_u128(7));
        let session: SessionId = A.parse().unwrap();
        let names = EvidenceNames {
            runs: vec![RunName {
                id: run,
                scenario: "Send an email".into(),
                number: 2,
            }],
            sessions: vec![SessionName {
                id: session,
                persona: persona_name(&json!({"name": "Dana"})),
                goal: goal_title(&json!({"id": "track-order"})),
                ordinal: 3,
            }],
        };
        assert_eq!(names.run_msg(run).render(Lang::En), "Send an email, run 2");
        assert_eq!(
            names.run_msg(run).render(Lang::Zh),
            "Send an email 第 2 次运行"
        );
        assert_eq!(
            names.session_msg(session, Some(4)).render(Lang::En),
            "Dana × track-order #3, turn 4"
        );
        assert_eq!(
            names.session_msg(session, None).render(Lang::Zh),
            "Dana × track-order 第 3 次会话"
        );
        let other = SessionId(Uuid::from_u128(9));
        assert!(
            names
                .session_msg(other, None)
                .render(Lang::En)
                .contains(&other.to_string())
        );
    }

    #[test]
    fn display_names_fall_back_to_id_then_text() {
        assert_eq!(persona_name(&json!({"id": "p1"})), "p1");
        assert_eq!(goal_title(&json!("退款什么时候到账")), "退款什么时候到账");
        assert_eq!(goal_title(&json!({"title": "  "})), "—");
    }
}
