//! Seed material proposed from production conversations, by simple rules:
//! each conversation gives a persona (its language, how much its user
//! writes, whether they had to repeat themselves) and a goal (what its
//! user first asked, the facts they gave that the agent's tool calls
//! used, as slots). Each carries the conversation and its traces as
//! lineage, so that a seed can be traced back to what production saw.

use crate::domain::campaign::{Goal, Persona, SeedSet};
use crate::domain::chat::Role;
use crate::domain::traces::ImportedConversation;
use crate::error::{Error, Result};
use crate::i18n::Lang;
use crate::msg;
use crate::platform::Platform;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Most conversations one proposal reads.
pub const MAX_CONVERSATIONS: usize = 200;

/// Whether `text` is mostly Chinese.
fn chinese(text: &str) -> bool {
    let cjk = text
        .chars()
        .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
        .count();
    let latin = text.chars().filter(char::is_ascii_alphabetic).count();
    cjk * 2 >= latin.max(1)
}

fn lineage(c: &ImportedConversation) -> Value {
    json!({
        "conversation_id": c.id,
        "key": c.conversation.key,
        "trace_ids": c.conversation.trace_ids,
    })
}

fn persona(c: &ImportedConversation, n: usize, lang: Lang) -> Persona {
    let users: Vec<&str> = c.conversation.user_turns().collect();
    let all = users.join(" ");
    let zh = chinese(&all);
    let chars = all.chars().count() / users.len().max(1);
    // A Chinese character says about as much as three Latin letters.
    let terse = if zh { chars < 15 } else { chars < 45 };
    let repeated = users
        .iter()
        .enumerate()
        .any(|(i, u)| users[..i].contains(u));
    let tail = c.id.simple().to_string();
    Persona {
        id: format!("prod-{}", &tail[tail.len() - 8..]),
        name: msg!("trace-persona-name", n = n).render(lang),
        description: msg!(
            "trace-persona-description",
            first = crate::text::truncate(users.first().copied().unwrap_or_default(), 80)
        )
        .render(lang),
        style: Some(Value::String(
            if terse { "terse" } else { "detailed" }.into(),
        )),
        patience: Some(if repeated { 2 } else { 3 }),
        language: Some(if zh { "zh" } else { "en" }.into()),
        extra: BTreeMap::from([("lineage".to_string(), lineage(c))]),
        ..Default::default()
    }
}

/// The facts the user gave that the agent's tool calls used: a tool
/// argument whose value the user said.
fn slots(c: &ImportedConversation) -> BTreeMap<String, Value> {
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
        extra: BTreeMap::from([("lineage".to_string(), lineage(c))]),
        ..Default::default()
    }
}

impl Platform {
    /// Personas and goals proposed from imported conversations `ids` (at
    /// most [`MAX_CONVERSATIONS`]), one of each a conversation with a user
    /// turn, named in `lang`; ready to add to a seed set. An unknown id
    /// is 404.
    pub async fn seeds_from_conversations(
        &self,
        ids: &[uuid::Uuid],
        lang: Lang,
    ) -> Result<SeedSet> {
        if ids.is_empty() || ids.len() > MAX_CONVERSATIONS {
            return Err(Error::out_of_range(
                "ids",
                1,
                MAX_CONVERSATIONS as i64,
                ids.len(),
                msg!("error-trace-seeds-suggestion", max = MAX_CONVERSATIONS),
            ));
        }
        let mut seeds = SeedSet::default();
        for id in ids {
            let c = self.imported_conversation(*id).await?;
            if c.conversation.user_turns().next().is_none() {
                continue;
            }
            seeds
                .personas
                .push(persona(&c, seeds.personas.len() + 1, lang));
            seeds.goals.push(goal(&c));
        }
        Ok(seeds)
    }
}
