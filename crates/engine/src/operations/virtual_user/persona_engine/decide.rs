//! How the persona engine reads a reply and decides its next turn: what
//! was asked, whether the goal is met, patience, waiting, a change of mind.

use super::*;

/// How the user takes a question of the target: a turn, or one more
/// unhelpful reply and why.
enum Reaction {
    Turn(UserTurn),
    Unhelpful(&'static str),
}

impl PersonaEngine {
    /// Slots the reply asks for, matched by their known names.
    pub(super) fn requested_slots(&self, reply: &str) -> Vec<String> {
        let lower = reply.to_lowercase();
        self.slots
            .keys()
            .filter(|k| {
                slot_aliases(k).iter().any(|a| {
                    if a.is_ascii() {
                        // Short English words such as "to" are everywhere.
                        a.len() > 2
                            && Regex::new(&format!(r"\b{}\b", regex::escape(a)))
                                .is_ok_and(|re| re.is_match(&lower))
                    } else {
                        lower.contains(a.as_str())
                    }
                })
            })
            .cloned()
            .collect()
    }

    /// Whether the goal is met on the evidence of the conversation: the
    /// last reply does not ask the user anything back, the user gave the
    /// facts of its goal (the ones asked for, or the ones it offered), and
    /// the replies since it last gave one show the success criteria (or,
    /// without criteria, the last confirms). A key word in a question, or
    /// shown before the facts were given, is not enough.
    pub(super) fn goal_met(&self, target_replies: &[&str], last: &str) -> bool {
        let since = &target_replies[self.given_at.min(target_replies.len())..];
        !asks_back(last)
            && (self.slots.is_empty() || !self.given.is_empty())
            && !since.is_empty()
            && self.criteria_met(since, last)
    }

    fn criteria_met(&self, target_replies: &[&str], last: &str) -> bool {
        if self.goal.success_criteria.is_empty() {
            return confirms(last);
        }
        let all = target_replies.join("\n").to_lowercase();
        self.goal.success_criteria.iter().all(|c| {
            all.contains(&c.to_lowercase())
                || ((is_descriptive(c) || has_cjk(c) != has_cjk(last)) && confirms(last))
        })
    }

    /// What the user knows: numbers in it are verified, the others are not.
    /// What a tool answered the agent counts: the workbench shows it.
    pub(super) fn known_text(&self, transcript: &[Utterance]) -> String {
        let mut known = format!("{} {}", self.goal.title, self.goal.description);
        for v in self.goal.slot_texts().values().chain(self.slots.values()) {
            known.push(' ');
            known.push_str(v);
        }
        for u in transcript {
            if u.speaker == Speaker::User {
                known.push(' ');
                known.push_str(&u.content);
            }
            for step in &u.steps {
                known.push(' ');
                known.push_str(&step.answer.content());
            }
        }
        known
    }

    /// Each action the last reply says it did that no step did: a misled
    /// point naming the step that failed at it (the user sees the agent's
    /// steps as the workbench shows them). Only when the agent acts
    /// through steps at all.
    fn claims_without_steps(&mut self, transcript: &[Utterance]) {
        if !transcript.iter().any(|u| !u.steps.is_empty()) {
            return;
        }
        let Some(last) = transcript.last().filter(|u| u.speaker == Speaker::Target) else {
            return;
        };
        let mut turn = 0;
        let rounds: Vec<(u32, &[crate::domain::steps::Step])> = transcript
            .iter()
            .filter_map(|u| {
                if u.speaker == Speaker::User {
                    turn += 1;
                    None
                } else {
                    Some((turn, u.steps.as_slice()))
                }
            })
            .collect();
        for c in crate::judge::unfulfilled_claims(&last.content, &rounds) {
            let text = match (c.failed, self.zh()) {
                (Some((turn, i, step)), true) => format!(
                    "它说“{}”，但第 {turn} 轮第 {} 步的 {} 失败了（{}）",
                    c.claim,
                    i + 1,
                    step.call.name,
                    step.answer.error().map_or("", |e| e.code.as_str())
                ),
                (Some((turn, i, step)), false) => format!(
                    "it said \"{}\", but {} failed at turn {turn}, step {} ({})",
                    c.claim,
                    step.call.name,
                    i + 1,
                    step.answer.error().map_or("", |e| e.code.as_str())
                ),
                (None, true) => format!("它说“{}”，但我没看到有哪一步真的做了", c.claim),
                (None, false) => format!("it said \"{}\", but no step of it did that", c.claim),
            };
            Self::note(&mut self.misled, text);
        }
    }

    pub(super) fn observe(&mut self, reply: &str, transcript: &[Utterance]) {
        self.claims_without_steps(transcript);
        let known = numbers(&self.known_text(transcript));
        for n in numbers(reply) {
            let digits = n.chars().filter(char::is_ascii_digit).count();
            if digits >= 2 && !known.contains(&n) {
                let text = if self.zh() {
                    format!("对方给出了我没提供、目标里也没有的数字（{n}）")
                } else {
                    format!("stated a figure ({n}) that is not in anything I gave")
                };
                Self::note(&mut self.misled, text);
            }
        }
        if let Some((key, old, new)) = &self.changed
            && reply.contains(old.as_str())
            && !reply.contains(new.as_str())
        {
            let label = slot_label(key, self.profile.lang);
            let text = if self.zh() {
                format!("回复无视了我对{label}的更正")
            } else {
                format!("reply ignored my correction of the {label}")
            };
            Self::note(&mut self.blockers, text);
        }
    }

    pub(super) fn decide(&mut self, transcript: &[Utterance]) -> UserTurn {
        let user_turns = transcript
            .iter()
            .filter(|u| u.speaker == Speaker::User)
            .count();
        if user_turns == 0 {
            return UserTurn {
                decision: Decision::FollowUp,
                message: Some(self.opening()),
            };
        }
        let replies: Vec<&str> = transcript
            .iter()
            .filter(|u| u.speaker == Speaker::Target)
            .map(|u| u.content.as_str())
            .collect();
        let last = match transcript.last() {
            Some(u) if u.speaker == Speaker::Target => u.content.clone(),
            _ => String::new(),
        };
        self.observe(&last, transcript);
        self.replies_seen = replies.len();

        if self.goal_met(&replies, &last) {
            self.achieved = true;
            return UserTurn {
                decision: Decision::Done,
                message: None,
            };
        }
        if confirms(&last)
            && !asks_back(&last)
            && self.given.is_empty()
            && let Some(turn) = self.done_too_soon()
        {
            return turn;
        }
        if self.change_at_turn == Some(user_turns)
            && self.changed.is_none()
            && let Some(turn) = self.change_mind()
        {
            return turn;
        }

        let previous = replies.len().checked_sub(2).map(|i| replies[i]);
        let empty = last.trim().is_empty();
        let repeated = !empty && previous.is_some_and(|p| p.trim() == last.trim());

        if !empty && !repeated && contains_any(&last, WAITING) && self.waits == 0 {
            return self.wait();
        }
        self.waits = 0;

        let unhelpful_reason = if empty {
            Some(if self.zh() {
                "对方回复为空"
            } else {
                "target gave an empty reply"
            })
        } else if repeated {
            Some(if self.zh() {
                "对方重复了同样的回复"
            } else {
                "target repeated the same reply"
            })
        } else if contains_any(&last, crate::text::REFUSAL) {
            Some(if self.zh() {
                "对方拒绝或说帮不了"
            } else {
                "target refused or said it could not help"
            })
        } else if contains_any(&last, QUESTION) {
            match self.answer_question(&last) {
                Reaction::Turn(turn) => return turn,
                Reaction::Unhelpful(reason) => Some(reason),
            }
        } else {
            if let Some(turn) = self.welcome_progress(&last, transcript) {
                return turn;
            }
            None
        };
        self.count_unhelpful(unhelpful_reason)
    }

    /// The target says it is done before the user gave anything: each
    /// missing fact is noted as misleading, and the user gives them all.
    fn done_too_soon(&mut self) -> Option<UserTurn> {
        let missing: Vec<String> = self
            .slots
            .keys()
            .filter(|k| !self.given.contains(*k))
            .cloned()
            .collect();
        for k in &missing {
            let label = slot_label(k, self.profile.lang);
            let text = if self.zh() {
                format!("我还没提供{label}，对方就说已经办好了")
            } else {
                format!("said it was done before I gave the {label}")
            };
            Self::note(&mut self.misled, text);
        }
        if missing.is_empty() {
            return None;
        }
        // Gives what it takes, so that the target can do it.
        Some(UserTurn {
            decision: Decision::FollowUp,
            message: Some(self.give_slots(&missing)),
        })
    }

    /// The user changes one fact it gave, drawn at random (none if it gave
    /// none yet).
    fn change_mind(&mut self) -> Option<UserTurn> {
        let candidates: Vec<String> = self.given.iter().cloned().collect();
        if candidates.is_empty() {
            return None;
        }
        let key = candidates[self.rng.random_range(0..candidates.len())].clone();
        let old = self.slots[&key].clone();
        let new = self.alternate_value(&old);
        self.slots.insert(key.clone(), new.clone());
        let label = slot_label(&key, self.profile.lang);
        self.changed = Some((key, old, new.clone()));
        let message = if self.zh() {
            format!("不好意思，我改一下：{label}换成{new}。")
        } else {
            format!("Actually, sorry - please change the {label} to {new}.")
        };
        Some(UserTurn {
            decision: Decision::ChangeMind,
            message: Some(message),
        })
    }

    /// The target asked the user to wait: it does, once in a row.
    fn wait(&mut self) -> UserTurn {
        self.waits += 1;
        let message = if self.zh() {
            self.pick(&["好的，我等一下。", "行，你先处理。"])
        } else {
            self.pick(&["OK, I'll wait.", "Sure, take your time."])
        };
        UserTurn {
            decision: Decision::Wait,
            message: Some(message.to_string()),
        }
    }

    /// A question of the target: the facts it asks for (noting those asked
    /// twice), else what is left to give, else a yes once.
    fn answer_question(&mut self, last: &str) -> Reaction {
        let zh = self.zh();
        let asked = self.requested_slots(last);
        let (again, fresh): (Vec<String>, Vec<String>) =
            asked.into_iter().partition(|k| self.given.contains(k));
        for k in &again {
            if self.asked_twice.insert(k.clone()) {
                let label = slot_label(k, self.profile.lang);
                let text = if zh {
                    format!("对方重复询问{label}")
                } else {
                    format!("asked for the {label} twice")
                };
                Self::note(&mut self.blockers, text);
            }
        }
        if !fresh.is_empty() {
            return Reaction::Turn(self.give_asked(&fresh, &again));
        }
        if !again.is_empty() {
            return Reaction::Turn(self.repeat_given(&again));
        }
        // A question about nothing the user knows: offer what is left.
        let rest: Vec<String> = self
            .slots
            .keys()
            .filter(|k| !self.given.contains(*k))
            .cloned()
            .collect();
        if !rest.is_empty() {
            return Reaction::Turn(UserTurn {
                decision: Decision::FollowUp,
                message: Some(self.give_slots(&rest)),
            });
        }
        // Everything is given: a confirmation question gets a yes once.
        self.go_aheads += 1;
        if self.go_aheads == 1 {
            let message = if zh {
                "是的，请直接办吧。"
            } else {
                "Yes, please go ahead."
            };
            return Reaction::Turn(UserTurn {
                decision: Decision::FollowUp,
                message: Some(message.to_string()),
            });
        }
        Reaction::Unhelpful(if zh {
            "给全信息后对方仍在发问"
        } else {
            "kept asking after I had given everything"
        })
    }

    /// The facts asked for the first time, then those asked again.
    fn give_asked(&mut self, fresh: &[String], again: &[String]) -> UserTurn {
        let prefix = if self.profile.verbosity == Verbosity::Terse {
            ""
        } else if self.zh() {
            self.pick(&["好的，", "", "嗯，"])
        } else {
            self.pick(&["Sure. ", "", "OK - "])
        };
        let mut message = format!("{prefix}{}", self.give_slots(fresh));
        if !again.is_empty() {
            let repeat = self.give_slots(again);
            message.push(' ');
            message.push_str(&repeat);
        }
        UserTurn {
            decision: Decision::FollowUp,
            message: Some(message),
        }
    }

    /// Asked only for facts already given: an unhelpful reply, answered
    /// again while patience lasts.
    fn repeat_given(&mut self, again: &[String]) -> UserTurn {
        self.unhelpful += 1;
        if self.unhelpful >= u32::from(self.profile.patience) {
            return self.give_up();
        }
        let facts = self.give_slots(again);
        let message = if self.zh() {
            format!("我刚才已经说过了，{facts}")
        } else {
            format!("I already told you. {facts}")
        };
        UserTurn {
            decision: Decision::FollowUp,
            message: Some(message),
        }
    }

    /// A reply that uses a fact the user gave (and does not just echo the
    /// user) is progress: the user tells it to go ahead.
    fn welcome_progress(&mut self, last: &str, transcript: &[Utterance]) -> Option<UserTurn> {
        let echoes_me = transcript
            .iter()
            .rev()
            .find(|u| u.speaker == Speaker::User)
            .is_some_and(|u| last.contains(u.content.trim()));
        let progress = !echoes_me
            && self
                .given
                .iter()
                .any(|k| last.contains(self.slots[k].as_str()));
        if !progress {
            return None;
        }
        let message = if self.zh() {
            self.pick(&["好的，请直接办吧。", "没问题，就这样，请确认。"])
        } else {
            self.pick(&[
                "Good, please go ahead.",
                "That's right. Please confirm when it's done.",
            ])
        };
        Some(UserTurn {
            decision: Decision::FollowUp,
            message: Some(message.to_string()),
        })
    }

    /// One more unhelpful reply (noted with its reason): the user follows
    /// up, or gives up when its patience runs out.
    fn count_unhelpful(&mut self, reason: Option<&str>) -> UserTurn {
        self.unhelpful += 1;
        if let Some(reason) = reason {
            Self::note(&mut self.blockers, reason.to_string());
        }
        if self.unhelpful >= u32::from(self.profile.patience) {
            return self.give_up();
        }
        UserTurn {
            decision: Decision::FollowUp,
            message: Some(self.follow_up()),
        }
    }

    pub(super) fn give_up(&mut self) -> UserTurn {
        let n = self.unhelpful;
        let text = if self.zh() {
            format!("连续{n}次没有得到有用的回复，放弃了")
        } else {
            format!("gave up after {n} unhelpful replies")
        };
        Self::note(&mut self.blockers, text);
        UserTurn {
            decision: Decision::GiveUp,
            message: None,
        }
    }
}
