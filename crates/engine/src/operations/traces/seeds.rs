//! Seed material proposed from production conversations, by simple rules:
//! each conversation gives a persona (its language, how much its user
//! writes, whether they had to repeat themselves) and a goal (what its
//! user first asked, the facts they gave that the agent's tool calls
//! used, as slots). Each carries the conversation and its traces as
//! lineage, so that a seed can be traced back to what production saw.

use crate::domain::campaign::{Goal, Persona, SeedSet};
use crate::domain::chat::Role;
use crate::domain::traces::{ImportedConversation, SeedProposal, SeedProposer, Voice};
use crate::error::{Error, Result};
use crate::i18n::Lang;
use crate::msg;
use crate::platform::Platform;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Most conversations one proposal reads.
pub const MAX_CONVERSATIONS: usize = 200;

/// Where a seed came from: the conversations, their keys and their
/// traces, in the same shape whoever proposed it.
pub(super) fn lineage<'a>(cs: impl IntoIterator<Item = &'a ImportedConversation>) -> Value {
    let (mut ids, mut keys, mut traces) = (Vec::new(), Vec::new(), Vec::new());
    for c in cs {
        ids.push(json!(c.id));
        keys.push(json!(c.conversation.key));
        traces.extend(c.conversation.trace_ids.iter().map(|t| json!(t)));
    }
    json!({"conversation_ids": ids, "keys": keys, "trace_ids": traces})
}

/// The character pairs of a text, letters and digits only, lowercased:
/// what two phrasings of one request share in any language.
fn pairs(text: &str) -> std::collections::HashSet<(char, char)> {
    let chars: Vec<char> = text
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    chars.windows(2).map(|w| (w[0], w[1])).collect()
}

/// How many times a user said again what they had said before, in the
/// same words or nearly (half or more of their character pairs shared).
fn repeats(users: &[&str]) -> usize {
    let said: Vec<_> = users.iter().map(|u| pairs(u)).collect();
    (1..said.len())
        .filter(|&i| {
            !said[i].is_empty()
                && said[..i].iter().any(|before| {
                    let shared = said[i].intersection(before).count();
                    shared * 2 >= said[i].len().min(before.len()).max(1)
                        && shared * 3 >= said[i].len().max(before.len())
                })
        })
        .count()
}

/// A user's patience (1-5) from how often they had to repeat themselves:
/// 3 when never, one less for each time, at least 1.
fn patience(users: &[&str]) -> u8 {
    3u8.saturating_sub(repeats(users).min(2) as u8)
}

fn persona(c: &ImportedConversation, n: usize, lang: Lang) -> Persona {
    let users: Vec<&str> = c.conversation.user_turns().collect();
    let voice = Voice::of(&c.conversation.said(), users.len());
    let tail = c.id.simple().to_string();
    Persona {
        id: format!("prod-{}", &tail[tail.len() - 8..]),
        name: msg!("trace-persona-name", n = n).render(lang),
        description: msg!(
            "trace-persona-description",
            first = crate::text::truncate(users.first().copied().unwrap_or_default(), 80)
        )
        .render(lang),
        style: Some(Value::String(voice.style().render(lang))),
        patience: Some(patience(&users).into()),
        language: Some(voice.lang().into()),
        extra: BTreeMap::from([("lineage".to_string(), lineage([c]))]),
        ..Default::default()
    }
}

/// The facts the user gave that the agent's tool calls used: a tool
/// argument whose value the user said.
pub(super) fn slots(c: &ImportedConversation) -> BTreeMap<String, Value> {
    let said: Vec<&str> = c.conversation.user_turns().collect();
    let mut slots = BTreeMap::new();
    for call in c
        .conversation
        .messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| &m.tool_calls)
    {
        for (name, value) in call.arguments.as_object().into_iter().flatten() {
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                _ => continue,
            };
            if !text.is_empty() && said.iter().any(|u| u.contains(&text)) {
                slots.entry(name.clone()).or_insert(Value::String(text));
            }
        }
    }
    slots
}

fn goal(c: &ImportedConversation) -> Goal {
    let users: Vec<&str> = c.conversation.user_turns().collect();
    let tail = c.id.simple().to_string();
    Goal {
        id: format!("prod-{}", &tail[tail.len() - 8..]),
        title: crate::text::truncate(users.first().copied().unwrap_or_default(), 80),
        description: users.join("\n"),
        slots: slots(c),
        extra: BTreeMap::from([("lineage".to_string(), lineage([c]))]),
        ..Default::default()
    }
}

/// The rules' proposal: a persona and a goal of each conversation with a
/// user turn, named in `lang`.
pub fn by_rules(conversations: &[ImportedConversation], lang: Lang) -> SeedSet {
    let mut seeds = SeedSet::default();
    for c in conversations
        .iter()
        .filter(|c| c.conversation.user_turns().next().is_some())
    {
        seeds
            .personas
            .push(persona(c, seeds.personas.len() + 1, lang));
        seeds.goals.push(goal(c));
    }
    seeds
}

impl Platform {
    /// Personas and goals proposed from imported conversations `ids` (at
    /// most [`MAX_CONVERSATIONS`]), ready to add to a seed set: by the
    /// analyst model when one is configured (it groups alike users and
    /// requests, and writes in `lang`), else, or when it fails, by the
    /// rules, a persona and a goal a conversation with a user turn. Each
    /// carries the conversations it came from as lineage. An unknown id
    /// is 404.
    pub async fn seeds_from_conversations(
        &self,
        ids: &[uuid::Uuid],
        lang: Lang,
    ) -> Result<SeedProposal> {
        if ids.is_empty() || ids.len() > MAX_CONVERSATIONS {
            return Err(Error::out_of_range(
                "ids",
                1,
                MAX_CONVERSATIONS as i64,
                ids.len(),
                msg!("error-trace-seeds-suggestion", max = MAX_CONVERSATIONS),
            ));
        }
        let mut conversations = Vec::with_capacity(ids.len());
        for id in ids {
            conversations.push(self.imported_conversation(*id).await?);
        }
        let mut analyst_problem = None;
        if let Some(analyst) = self.role_clients().analyst {
            match self
                .propose_by_analyst(&*analyst, &conversations, lang)
                .await
            {
                Ok(seed_set) => {
                    return Ok(SeedProposal {
                        seed_set,
                        proposed_by: SeedProposer::Analyst,
                        analyst_problem: None,
                    });
                }
                Err(problem) => analyst_problem = Some(problem),
            }
        }
        Ok(SeedProposal {
            seed_set: by_rules(&conversations, lang),
            proposed_by: SeedProposer::Rules,
            analyst_problem,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::patience;

    #[test]
    fn patience_falls_with_each_repetition_in_any_words() {
        assert_eq!(patience(&["Where is my order A1024?", "Thanks, bye"]), 3);
        assert_eq!(
            patience(&["Where is my order A1024?", "where is my order A1024"]),
            2,
            "the same words"
        );
        assert_eq!(
            patience(&[
                "Where is my order A1024?",
                "I asked: where is order A1024?",
                "ORDER A1024, where is it??",
            ]),
            1,
            "asked three times, in other words"
        );
        assert_eq!(
            patience(&["我的订单 A1024 到哪了？", "请问订单 A1024 现在到哪了"]),
            2,
            "rephrased in Chinese"
        );
        assert_eq!(patience(&["查一下订单", "帮我订一张去上海的机票"]), 3);
    }
}
