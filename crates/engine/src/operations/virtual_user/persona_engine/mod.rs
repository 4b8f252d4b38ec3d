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

mod decide;
mod record;
mod speech;
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

/// A reply that asks the user something and confirms nothing: the target
/// still needs something, so no goal is met by it.
fn asks_back(reply: &str) -> bool {
    contains_any(reply, QUESTION) && !confirms(reply)
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
    /// Which wording of its opening the persona uses (the session's place
    /// among the sessions of its cell).
    wording: u32,
    /// Replies of the target seen so far, and how many had been seen when
    /// the user last gave a fact: what came before says nothing of it.
    replies_seen: usize,
    given_at: usize,
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
            slots: goal.slot_texts(),
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
            wording: 0,
            replies_seen: 0,
            given_at: 0,
            blockers: Vec::new(),
            misled: Vec::new(),
            decisions: Vec::new(),
        }
    }

    /// The same persona in its `n`-th wording (0 is the first).
    pub fn with_wording(mut self, n: u32) -> Self {
        self.wording = n;
        self
    }

    pub fn profile(&self) -> &PersonaProfile {
        &self.profile
    }

    /// The decisions taken so far, in order.
    pub fn decisions(&self) -> &[Decision] {
        &self.decisions
    }

    pub(super) fn zh(&self) -> bool {
        self.profile.lang == Lang::Zh
    }

    pub(super) fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.rng.random_range(0..options.len())]
    }

    pub(super) fn note(list: &mut Vec<String>, text: String) {
        if !list.contains(&text) {
            list.push(text);
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
