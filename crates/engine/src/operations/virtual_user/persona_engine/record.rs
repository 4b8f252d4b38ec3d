//! The experience record the persona engine files at the end.

use super::*;
use crate::i18n::Msg;

impl PersonaEngine {
    /// The experience record, built from what the engine observed.
    pub fn record(&self, transcript: &[Utterance], end: EndReason) -> ExperienceRecord {
        let zh = self.zh();
        let mut blockers = self.blockers.clone();
        let extra = match end {
            EndReason::MaxTurns if !self.achieved => Some(if zh {
                "轮数用完，目标仍未达成"
            } else {
                "ran out of turns before the goal was met"
            }),
            EndReason::TargetError => Some(if zh {
                "对方无法访问"
            } else {
                "the target stopped answering"
            }),
            EndReason::BudgetExhausted => Some(if zh {
                "探索预算用完，会话被截断"
            } else {
                "the exploration budget cut the session short"
            }),
            _ => None,
        };
        if let Some(e) = extra {
            Self::note(&mut blockers, e.to_string());
        }
        let emotion = match (self.achieved, end) {
            (true, _) if blockers.is_empty() && self.misled.is_empty() => "satisfied",
            (true, _) => "neutral",
            (false, EndReason::UserGaveUp) => "frustrated",
            (false, EndReason::MaxTurns) => "frustrated",
            (false, EndReason::TargetError) => "confused",
            _ => "neutral",
        };
        let user_turns = transcript
            .iter()
            .filter(|u| u.speaker == Speaker::User)
            .count();
        // A message, read in the reader's language: the strategy and the
        // end reason by their names, never their internal ones; the
        // persona's name, its goal and its values as they are.
        let changed: crate::i18n::Arg = match &self.changed {
            Some((key, old, new)) => crate::msg!(
                "user-notes-changed",
                slot = crate::domain::issue_keys::slot_msg(key)
                    .unwrap_or_else(|| Msg::new("slot-unnamed")),
                old = old.as_str(),
                new = new.as_str()
            )
            .into(),
            None => "".into(),
        };
        let notes = crate::msg!(
            "user-notes",
            persona = self.persona.name.as_str(),
            strategy = Msg::name("strategy", self.profile.strategy.as_str()),
            goal = self.goal.title.as_str(),
            achieved = if self.achieved {
                crate::msg!("user-notes-achieved")
            } else {
                crate::msg!("user-notes-not-achieved")
            },
            turns = user_turns,
            end = Msg::name("end-reason", end.as_str()),
            changed = changed
        );
        ExperienceRecord {
            goal_achieved: self.achieved,
            blockers,
            misled: self.misled.clone(),
            emotion: emotion.to_string(),
            notes: notes.into(),
        }
    }
}
