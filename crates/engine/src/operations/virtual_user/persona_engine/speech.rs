//! What the persona engine says: its opening, the facts it gives when
//! asked, re-phrased values and follow-ups, in the persona's language and
//! style.

use super::*;

impl PersonaEngine {
    /// Whether the goal is written in another language than the persona
    /// speaks (a Chinese persona given an English goal): its title is then
    /// quoted as given, never spliced into a sentence of the other language.
    pub(super) fn goal_quoted(&self) -> bool {
        has_cjk(&self.goal.title) != self.zh()
    }

    /// Text of the goal written in another language than the persona's,
    /// quoted as given (both languages quote with curly double quotes).
    fn quoted(&self, text: &str) -> String {
        format!("“{text}”")
    }

    pub(super) fn title_inline(&self) -> String {
        let t = self
            .goal
            .title
            .trim()
            .trim_end_matches(['.', '。', '!', '！']);
        if self.goal_quoted() {
            return self.quoted(t);
        }
        if self.zh() {
            return t.to_string();
        }
        let mut chars = t.chars();
        match chars.next() {
            Some(c) => c.to_lowercase().chain(chars).collect(),
            None => String::new(),
        }
    }

    pub(super) fn say_slot(&self, key: &str) -> String {
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

    pub(super) fn give_slots(&mut self, keys: &[String]) -> String {
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
        self.given_at = self.replies_seen;
        parts.join(" ")
    }

    pub(super) fn opening(&mut self) -> String {
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
        let templates: &[&str] = match (self.profile.lang, self.profile.verbosity) {
            // A goal in the other language: asked for as a quoted task.
            (Lang::Zh, _) if self.goal_quoted() => &[
                "你好，我想请你帮忙办这件事：{t}。",
                "麻烦帮我处理一下这件事：{t}。",
            ],
            (Lang::En, _) if self.goal_quoted() => &[
                "Hi, I need help with this: {t}.",
                "Could you help me with this, please: {t}.",
            ],
            (Lang::Zh, Verbosity::Terse) => &["{t}。", "想{t}。", "帮我{t}。"],
            (Lang::Zh, Verbosity::Normal) => &["你好，我想{t}。", "能帮我{t}吗？", "我需要{t}。"],
            (Lang::Zh, Verbosity::Chatty) => &[
                "你好呀！最近事情有点多，想请你帮个忙：{t}。",
                "您好，打扰一下，我这边想{t}，麻烦您了。",
            ],
            (Lang::En, Verbosity::Terse) => &["Need to {t}.", "Want to {t}.", "Help me {t}."],
            (Lang::En, Verbosity::Normal) => &[
                "Hi, I'd like to {t}.",
                "Hello, can you help me {t}?",
                "I need help: I want to {t}.",
            ],
            (Lang::En, Verbosity::Chatty) => &[
                "Hi there! Hope your day is going well. I'd really like to {t}, if you can help.",
                "Hello! Quick favour, and thanks in advance: I want to {t}.",
            ],
        };
        // The n-th session of a cell opens with the n-th wording, so that
        // a repeated cell is new evidence rather than the same transcript.
        let mut text = templates[self.wording as usize % templates.len()].replace("{t}", &title);
        let description = self.goal.description.trim();
        if self.profile.verbosity == Verbosity::Chatty && !description.is_empty() {
            text.push(' ');
            if has_cjk(description) == self.zh() {
                text.push_str(description);
            } else if self.zh() {
                text.push_str(&format!("具体是：{}", self.quoted(description)));
            } else {
                text.push_str(&format!("The details: {}", self.quoted(description)));
            }
        }
        if !upfront.is_empty() {
            if expert {
                let params: Vec<String> = upfront
                    .iter()
                    .map(|k| format!("{}: {}", slot_label(k, self.profile.lang), self.slots[k]))
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

    pub(super) fn alternate_value(&mut self, value: &str) -> String {
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

    pub(super) fn follow_up(&mut self) -> String {
        let title = self.title_inline();
        let zh = self.zh();
        match self.profile.strategy {
            FollowUpStrategy::Persistent => {
                let keys: Vec<String> = self.slots.keys().cloned().collect();
                let facts = self.give_slots(&keys);
                let ask = match (zh, self.goal_quoted()) {
                    (true, false) => format!("请帮我{title}。"),
                    (true, true) => format!("请帮我办：{title}。"),
                    (false, false) => format!("Can you please {title}?"),
                    (false, true) => format!("Can you please help with {title}?"),
                };
                format!("{ask} {facts}").trim().to_string()
            }
            FollowUpStrategy::Rephrase => {
                let t = if self.goal_quoted() {
                    if zh {
                        "换个说法：我要办的就是{t}。"
                    } else {
                        "Let me put it another way: what I need is {t}."
                    }
                } else if zh {
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
}
