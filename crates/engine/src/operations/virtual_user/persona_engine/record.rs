//! The experience record the persona engine files at the end.

use super::*;

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
        let mut notes = if zh {
            format!(
                "{}（{}）目标「{}」：{}，共{}轮，结束原因 {}。",
                self.persona.name,
                self.profile.strategy.as_str(),
                self.goal.title,
                if self.achieved {
                    "已达成"
                } else {
                    "未达成"
                },
                user_turns,
                end.as_str()
            )
        } else {
            format!(
                "{} ({}) goal \"{}\": {} after {} turns, ended by {}.",
                self.persona.name,
                self.profile.strategy.as_str(),
                self.goal.title,
                if self.achieved {
                    "achieved"
                } else {
                    "not achieved"
                },
                user_turns,
                end.as_str()
            )
        };
        if let Some((key, old, new)) = &self.changed {
            let label = slot_label(key, self.profile.lang);
            notes.push_str(&if zh {
                format!(" 中途把{label}从{old}改为{new}。")
            } else {
                format!(" Changed my mind about the {label}: {old} -> {new}.")
            });
        }
        ExperienceRecord {
            goal_achieved: self.achieved,
            blockers,
            misled: self.misled.clone(),
            emotion: emotion.to_string(),
            notes,
        }
    }
}
