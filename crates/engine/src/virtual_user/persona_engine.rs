//! The offline persona engine: a deterministic virtual user that needs no
//! model. Its randomness comes from an RNG seeded by the session id, so the
//! same session replays the same way.

use super::profile::{
    FollowUpStrategy, Lang, PersonaProfile, Verbosity, has_cjk, parse_goal, parse_persona,
    slot_aliases, slot_label,
};
use super::{Decision, EndReason, ExperienceRecord, SimulatorError, Speaker, UserTurn, Utterance};
use crate::campaign::{Goal, Persona};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

/// Runs of digits, to derive an altered value (a change of mind).
static DIGITS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\d+").expect("valid regex"));

const CONFIRM: &[&str] = &[
    "has been sent",
    "have sent",
    "was sent",
    "sent successfully",
    "is done",
    "all set",
    "completed",
    "confirmed",
    "is booked",
    "has been booked",
    "has been created",
    "scheduled",
    "successfully",
    "已发送",
    "已经发送",
    "发送成功",
    "已完成",
    "已经完成",
    "办好了",
    "已为您",
    "已帮您",
    "已创建",
    "已预订",
    "已预约",
    "成功",
];
const NEGATION: &[&str] = &[
    "not ", "n't", "failed", "unable", "未", "没有", "失败", "无法", "不能",
];
const WAITING: &[&str] = &[
    "please wait",
    "one moment",
    "working on it",
    "processing",
    "hold on",
    "稍等",
    "请等",
    "正在处理",
    "处理中",
    "马上",
];
const QUESTION: &[&str] = &[
    "?",
    "？",
    "please provide",
    "please tell",
    "could you tell",
    "can you tell",
    "what is the",
    "which",
    "请提供",
    "请告诉",
    "请问",
    "需要您",
    "麻烦提供",
];

fn contains_any(text: &str, words: &[&str]) -> bool {
    let t = text.to_lowercase();
    words.iter().any(|w| t.contains(w))
}

/// A criterion that reads like a sentence ("the assistant confirms the
/// email was sent") cannot be matched as a phrase; it is met by a
/// confirmation instead, as is a phrase in another language than the reply.
fn is_descriptive(criterion: &str) -> bool {
    if has_cjk(criterion) {
        criterion.chars().count() > 10
    } else {
        criterion.split_whitespace().count() > 4
    }
}

fn confirms(reply: &str) -> bool {
    contains_any(reply, CONFIRM) && !contains_any(reply, NEGATION)
}

fn numbers(text: &str) -> BTreeSet<String> {
    crate::checks::canonical_numbers(text)
}

pub struct PersonaEngine {
    persona: Persona,
    goal: Goal,
    profile: PersonaProfile,
    rng: StdRng,
    /// Current slot values (a change of mind rewrites one).
    slots: BTreeMap<String, String>,
    given: BTreeSet<String>,
    asked_twice: BTreeSet<String>,
    unhelpful: u32,
    waits: u32,
    go_aheads: u32,
    change_at_turn: Option<usize>,
    changed: Option<(String, String, String)>,
    achieved: bool,
    blockers: Vec<String>,
    misled: Vec<String>,
    decisions: Vec<Decision>,
}

impl PersonaEngine {
    pub fn new(persona: Persona, goal: Goal, seed: u64) -> Self {
        let profile = PersonaProfile::of(&persona, &goal, &serde_json::Value::Null);
        Self::with_profile(persona, goal, profile, seed)
    }

    /// From session JSON, honouring extra persona keys such as
    /// `follow_up_strategy` (set by derived variants).
    pub fn from_json(persona: &serde_json::Value, goal: &serde_json::Value, seed: u64) -> Self {
        let p = parse_persona(persona);
        let g = parse_goal(goal);
        let profile = PersonaProfile::of(&p, &g, persona);
        Self::with_profile(p, g, profile, seed)
    }

    pub fn with_profile(persona: Persona, goal: Goal, profile: PersonaProfile, seed: u64) -> Self {
        let mut rng = StdRng::seed_from_u64(seed);
        // Decided up front so that the draw does not depend on the replies.
        let change_at_turn = (rng.random::<f64>() < profile.change_mind && !goal.slots.is_empty())
            .then(|| rng.random_range(2..=3usize));
        Self {
            slots: goal.slots.clone(),
            persona,
            goal,
            profile,
            rng,
            given: BTreeSet::new(),
            asked_twice: BTreeSet::new(),
            unhelpful: 0,
            waits: 0,
            go_aheads: 0,
            change_at_turn,
            changed: None,
            achieved: false,
            blockers: Vec::new(),
            misled: Vec::new(),
            decisions: Vec::new(),
        }
    }

    pub fn profile(&self) -> &PersonaProfile {
        &self.profile
    }

    /// The decisions taken so far, in order.
    pub fn decisions(&self) -> &[Decision] {
        &self.decisions
    }

    fn zh(&self) -> bool {
        self.profile.lang == Lang::Zh
    }

    fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.rng.random_range(0..options.len())]
    }

    fn note(list: &mut Vec<String>, text: String) {
        if !list.contains(&text) {
            list.push(text);
        }
    }

    fn title_inline(&self) -> String {
        let t = self
            .goal
            .title
            .trim()
            .trim_end_matches(['.', '。', '!', '！']);
        if self.zh() {
            return t.to_string();
        }
        let mut chars = t.chars();
        match chars.next() {
            Some(c) => c.to_lowercase().chain(chars).collect(),
            None => String::new(),
        }
    }

    fn say_slot(&self, key: &str) -> String {
        let label = slot_label(key, self.profile.lang);
        let value = self.slots[key].trim();
        let ends = value.ends_with(['.', '。', '!', '！', '?', '？']);
        match (self.zh(), ends) {
            (true, false) => format!("{label}是{value}。"),
            (true, true) => format!("{label}是{value}"),
            (false, false) => format!("The {label} is {value}."),
            (false, true) => format!("The {label} is {value}"),
        }
    }

    fn give_slots(&mut self, keys: &[String]) -> String {
        let terse = self.profile.verbosity == Verbosity::Terse;
        let parts: Vec<String> = keys
            .iter()
            .map(|k| {
                if terse && keys.len() == 1 {
                    self.slots[k].clone()
                } else {
                    self.say_slot(k)
                }
            })
            .collect();
        self.given.extend(keys.iter().cloned());
        parts.join(" ")
    }

    fn opening(&mut self) -> String {
        let title = self.title_inline();
        let share = match self.profile.verbosity {
            Verbosity::Terse => 0.2,
            Verbosity::Normal => 0.4,
            Verbosity::Chatty => 0.7,
        };
        let keys: Vec<String> = self.slots.keys().cloned().collect();
        let upfront: Vec<String> = keys
            .into_iter()
            .filter(|_| self.rng.random::<f64>() < share)
            .collect();
        let expert = self.profile.technical_level >= 4;
        let mut text = match (self.profile.lang, self.profile.verbosity) {
            (Lang::Zh, Verbosity::Terse) => format!("{title}。"),
            (Lang::Zh, Verbosity::Normal) => {
                let t = self.pick(&["你好，我想{t}。", "能帮我{t}吗？", "我需要{t}。"]);
                t.replace("{t}", &title)
            }
            (Lang::Zh, Verbosity::Chatty) => {
                let t = self.pick(&[
                    "你好呀！最近事情有点多，想请你帮个忙：{t}。",
                    "您好，打扰一下，我这边想{t}，麻烦您了。",
                ]);
                t.replace("{t}", &title)
            }
            (Lang::En, Verbosity::Terse) => format!("Need to {title}."),
            (Lang::En, Verbosity::Normal) => {
                let t = self.pick(&[
                    "Hi, I'd like to {t}.",
                    "Hello, can you help me {t}?",
                    "I need help: I want to {t}.",
                ]);
                t.replace("{t}", &title)
            }
            (Lang::En, Verbosity::Chatty) => {
                let t = self.pick(&[
                    "Hi there! Hope your day is going well. I'd really like to {t}, if you can help.",
                    "Hello! Quick favour, and thanks in advance: I want to {t}.",
                ]);
                t.replace("{t}", &title)
            }
        };
        if self.profile.verbosity == Verbosity::Chatty && !self.goal.description.is_empty() {
            text.push(' ');
            text.push_str(&self.goal.description);
        }
        if !upfront.is_empty() {
            if expert {
                let params: Vec<String> = upfront
                    .iter()
                    .map(|k| format!("{k}: {}", self.slots[k]))
                    .collect();
                text.push_str(&format!(" ({})", params.join(", ")));
                self.given.extend(upfront);
            } else {
                let s = self.give_slots(&upfront);
                text.push(' ');
                text.push_str(&s);
            }
        }
        text
    }

    /// Slots the reply asks for, matched by their known names.
    fn requested_slots(&self, reply: &str) -> Vec<String> {
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
    fn known_text(&self, transcript: &[Utterance]) -> String {
        let mut known = format!("{} {}", self.goal.title, self.goal.description);
        for v in self.goal.slots.values().chain(self.slots.values()) {
            known.push(' ');
            known.push_str(v);
        }
        for u in transcript.iter().filter(|u| u.speaker == Speaker::User) {
            known.push(' ');
            known.push_str(&u.content);
        }
        known
    }

    fn observe(&mut self, reply: &str, transcript: &[Utterance]) {
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

    fn alternate_value(&mut self, value: &str) -> String {
        if let Some((local, domain)) = value.split_once('@') {
            return format!("{local}.work@{domain}");
        }
        if let Some(m) = DIGITS.find_iter(value).last()
            && let Ok(n) = m.as_str().parse::<u64>()
        {
            return format!("{}{}{}", &value[..m.start()], n + 1, &value[m.end()..]);
        }
        let suffix = if self.zh() {
            self.pick(&["（加急）", "（改一下）"])
        } else {
            self.pick(&[" (urgent)", " (revised)"])
        };
        format!("{value}{suffix}")
    }

    fn follow_up(&mut self) -> String {
        let title = self.title_inline();
        let zh = self.zh();
        match self.profile.strategy {
            FollowUpStrategy::Persistent => {
                let keys: Vec<String> = self.slots.keys().cloned().collect();
                let facts = self.give_slots(&keys);
                let ask = if zh {
                    format!("请帮我{title}。")
                } else {
                    format!("Can you please {title}?")
                };
                format!("{ask} {facts}").trim().to_string()
            }
            FollowUpStrategy::Rephrase => {
                let t = if zh {
                    self.pick(&["换个说法：我就是想{t}。", "我的意思是：{t}，能办吗？"])
                } else {
                    self.pick(&[
                        "Let me put it another way: I want to {t}.",
                        "What I need is simple: {t}. Can you do that?",
                    ])
                };
                t.replace("{t}", &title)
            }
            FollowUpStrategy::Escalate => if zh {
                self.pick(&["这个很急，到底能不能办？", "能不能找个能处理的人？"])
            } else {
                self.pick(&[
                    "This is urgent. Can you do it or not?",
                    "Is there someone who can actually help me with this?",
                ])
            }
            .to_string(),
        }
    }

    fn decide(&mut self, transcript: &[Utterance]) -> UserTurn {
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
        let zh = self.zh();

        if self.criteria_met(&replies, &last) {
            self.achieved = true;
            let missing: Vec<String> = self
                .slots
                .keys()
                .filter(|k| !self.given.contains(*k))
                .cloned()
                .collect();
            for k in missing {
                let label = slot_label(&k, self.profile.lang);
                let text = if zh {
                    format!("我还没提供{label}，对方就说已经办好了")
                } else {
                    format!("said it was done before I gave the {label}")
                };
                Self::note(&mut self.misled, text);
            }
            return UserTurn {
                decision: Decision::Done,
                message: None,
            };
        }

        if self.change_at_turn == Some(user_turns) && self.changed.is_none() {
            let candidates: Vec<String> = self.given.iter().cloned().collect();
            if !candidates.is_empty() {
                let key = candidates[self.rng.random_range(0..candidates.len())].clone();
                let old = self.slots[&key].clone();
                let new = self.alternate_value(&old);
                self.slots.insert(key.clone(), new.clone());
                let label = slot_label(&key, self.profile.lang);
                self.changed = Some((key, old, new.clone()));
                let message = if zh {
                    format!("不好意思，我改一下：{label}换成{new}。")
                } else {
                    format!("Actually, sorry - please change the {label} to {new}.")
                };
                return UserTurn {
                    decision: Decision::ChangeMind,
                    message: Some(message),
                };
            }
        }

        let previous = replies.len().checked_sub(2).map(|i| replies[i]);
        let empty = last.trim().is_empty();
        let repeated = !empty && previous.is_some_and(|p| p.trim() == last.trim());

        if !empty && !repeated && contains_any(&last, WAITING) && self.waits == 0 {
            self.waits += 1;
            let message = if zh {
                self.pick(&["好的，我等一下。", "行，你先处理。"])
            } else {
                self.pick(&["OK, I'll wait.", "Sure, take your time."])
            };
            return UserTurn {
                decision: Decision::Wait,
                message: Some(message.to_string()),
            };
        }
        self.waits = 0;

        let mut unhelpful_reason = None;
        if empty {
            unhelpful_reason = Some(if zh {
                "对方回复为空"
            } else {
                "target gave an empty reply"
            });
        } else if repeated {
            unhelpful_reason = Some(if zh {
                "对方重复了同样的回复"
            } else {
                "target repeated the same reply"
            });
        } else if contains_any(&last, crate::text::REFUSAL) {
            unhelpful_reason = Some(if zh {
                "对方拒绝或说帮不了"
            } else {
                "target refused or said it could not help"
            });
        } else if contains_any(&last, QUESTION) {
            let asked = self.requested_slots(&last);
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
                let prefix = if self.profile.verbosity == Verbosity::Terse {
                    ""
                } else if zh {
                    self.pick(&["好的，", "", "嗯，"])
                } else {
                    self.pick(&["Sure. ", "", "OK - "])
                };
                let mut message = format!("{prefix}{}", self.give_slots(&fresh));
                if !again.is_empty() {
                    let repeat = self.give_slots(&again);
                    message.push(' ');
                    message.push_str(&repeat);
                }
                return UserTurn {
                    decision: Decision::FollowUp,
                    message: Some(message),
                };
            }
            if !again.is_empty() {
                self.unhelpful += 1;
                if self.unhelpful < u32::from(self.profile.patience) {
                    let facts = self.give_slots(&again);
                    let message = if zh {
                        format!("我刚才已经说过了，{facts}")
                    } else {
                        format!("I already told you. {facts}")
                    };
                    return UserTurn {
                        decision: Decision::FollowUp,
                        message: Some(message),
                    };
                }
                return self.give_up();
            }
            // A question about nothing the user knows: offer what is left.
            let rest: Vec<String> = self
                .slots
                .keys()
                .filter(|k| !self.given.contains(*k))
                .cloned()
                .collect();
            if !rest.is_empty() {
                return UserTurn {
                    decision: Decision::FollowUp,
                    message: Some(self.give_slots(&rest)),
                };
            }
            // Everything is given: a confirmation question gets a yes once.
            self.go_aheads += 1;
            if self.go_aheads == 1 {
                let message = if zh {
                    "是的，请直接办吧。"
                } else {
                    "Yes, please go ahead."
                };
                return UserTurn {
                    decision: Decision::FollowUp,
                    message: Some(message.to_string()),
                };
            }
            unhelpful_reason = Some(if zh {
                "给全信息后对方仍在发问"
            } else {
                "kept asking after I had given everything"
            });
        } else {
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
            if progress {
                let message = if zh {
                    self.pick(&["好的，请直接办吧。", "没问题，就这样，请确认。"])
                } else {
                    self.pick(&[
                        "Good, please go ahead.",
                        "That's right. Please confirm when it's done.",
                    ])
                };
                return UserTurn {
                    decision: Decision::FollowUp,
                    message: Some(message.to_string()),
                };
            }
        }

        self.unhelpful += 1;
        if let Some(reason) = unhelpful_reason {
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

    fn give_up(&mut self) -> UserTurn {
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

#[async_trait::async_trait]
impl super::VirtualUser for PersonaEngine {
    async fn next_turn(&mut self, transcript: &[Utterance]) -> Result<UserTurn, SimulatorError> {
        let turn = self.decide(transcript);
        self.decisions.push(turn.decision);
        Ok(turn)
    }

    async fn experience(
        &mut self,
        transcript: &[Utterance],
        end: EndReason,
    ) -> Result<ExperienceRecord, SimulatorError> {
        Ok(self.record(transcript, end))
    }

    fn kind(&self) -> String {
        "persona_engine".into()
    }
}
