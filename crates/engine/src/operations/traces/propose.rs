//! Seed material proposed by the analyst model: it reads what the users of
//! the chosen production conversations said (within its input budget),
//! groups alike users into personas and alike requests into goals, and
//! names each conversation a seed came from. The goals' slots are the
//! facts those conversations' tool calls used, found by the rules; each
//! seed carries its conversations as lineage. An answer that breaks the
//! schema or names no conversation is a problem, and the rules propose
//! instead.

use super::seeds::{lineage, slots};
use crate::domain::campaign::{Goal, Persona, SeedSet};
use crate::domain::chat::ChatMessage;
use crate::domain::traces::ImportedConversation;
use crate::i18n::{Lang, Msg};
use crate::msg;
use crate::platform::Platform;
use crate::role_models::ChatClient;
use crate::structured::OutputSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::LazyLock;

const SYSTEM_PROMPT: &str = "You turn production conversations of an AI agent into seed material \
for exploration: personas (who the users are and how they write) and goals (what they want). \
You receive the users' turns of numbered conversations. Group users who write alike into one \
persona and requests that want the same thing into one goal; propose at most 8 of each. \
For each, list in `from` the numbers of the conversations it comes from. A goal's \
success_criteria are what a reply must show for the user to be done. Do not invent facts the \
users did not say.";

/// The analyst's answer.
pub static SEEDS_SCHEMA: LazyLock<OutputSchema> = LazyLock::new(|| {
    let from =
        json!({"type": "array", "minItems": 1, "maxItems": 200, "items": {"type": "integer"}});
    let words = |max: u32| json!({"type": "string", "minLength": 1, "maxLength": max});
    OutputSchema::new(
        "seeds",
        json!({
            "type": "object",
            "properties": {
                "personas": {"type": "array", "minItems": 1, "maxItems": 8, "items": {
                    "type": "object",
                    "properties": {
                        "name": words(80),
                        "description": words(400),
                        "style": {"type": "string", "enum": ["terse", "detailed"]},
                        "patience": {"type": "integer", "minimum": 1, "maximum": 5},
                        "language": {"type": "string", "enum": ["zh", "en"]},
                        "from": from,
                    },
                    "required": ["name", "description", "style", "patience", "language", "from"],
                    "additionalProperties": false,
                }},
                "goals": {"type": "array", "minItems": 1, "maxItems": 8, "items": {
                    "type": "object",
                    "properties": {
                        "title": words(120),
                        "description": words(600),
                        "success_criteria": {"type": "array", "maxItems": 5, "items": words(200)},
                        "from": from,
                    },
                    "required": ["title", "description", "success_criteria", "from"],
                    "additionalProperties": false,
                }},
            },
            "required": ["personas", "goals"],
            "additionalProperties": false,
        }),
    )
});

#[derive(Deserialize)]
struct Answer {
    personas: Vec<ProposedPersona>,
    goals: Vec<ProposedGoal>,
}

#[derive(Deserialize)]
struct ProposedPersona {
    name: String,
    description: String,
    style: String,
    patience: i32,
    language: String,
    from: Vec<i64>,
}

#[derive(Deserialize)]
struct ProposedGoal {
    title: String,
    description: String,
    success_criteria: Vec<String>,
    from: Vec<i64>,
}

/// A JSON digest spends about one token per four characters.
const CHARS_PER_TOKEN: usize = 4;
/// The fewest characters of each conversation the analyst reads.
const MIN_CHARS: usize = 60;

/// What the analyst reads: each conversation's user turns, numbered from
/// 1, each conversation cut to its share of the budget.
fn digest(conversations: &[ImportedConversation], budget_tokens: usize, lang: Lang) -> Value {
    let share = (budget_tokens * CHARS_PER_TOKEN / conversations.len().max(1)).max(MIN_CHARS);
    let listed: Vec<Value> = conversations
        .iter()
        .enumerate()
        .map(|(i, c)| {
            json!({
                "n": i + 1,
                "said": crate::text::truncate(&c.conversation.said(), share),
            })
        })
        .collect();
    json!({"language": lang.as_str(), "conversations": listed})
}

fn write_in(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "Write names, descriptions, titles and criteria in English.",
        Lang::Zh => {
            "Write names, descriptions, titles and criteria in Simplified Chinese (简体中文); keep quoted words as the users wrote them."
        }
    }
}

/// The conversations `from` names (1-based), or why it cannot be read.
fn sources<'a>(
    from: &[i64],
    conversations: &'a [ImportedConversation],
) -> Result<Vec<&'a ImportedConversation>, Msg> {
    let mut out: Vec<&ImportedConversation> = Vec::new();
    for &n in from {
        let c = usize::try_from(n)
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| conversations.get(i))
            .ok_or_else(|| msg!("trace-seeds-unknown-conversation", n = n))?;
        if !out.iter().any(|o| o.id == c.id) {
            out.push(c);
        }
    }
    Ok(out)
}

/// A seed's id: `prod-`, the last characters of its first conversation's
/// id, and what it is among its kind.
fn seed_id(first: &ImportedConversation, kind: char, n: usize) -> String {
    let tail = first.id.simple().to_string();
    format!("prod-{}-{kind}{n}", &tail[tail.len() - 6..])
}

/// The seed set of the analyst's `answer`.
fn seed_set(
    text: &str,
    conversations: &[ImportedConversation],
    model: &str,
    lang: Lang,
) -> Result<SeedSet, Msg> {
    let value = SEEDS_SCHEMA
        .read(text)
        .map_err(|e| e.logged("the analyst's seeds"))?;
    // The schema admits only what `Answer` reads.
    let answer: Answer =
        serde_json::from_value(value).map_err(|_| msg!("model-answer-off-schema"))?;
    let origin = |from: &[ImportedConversation]| {
        let mut lineage = lineage(from);
        lineage["proposed_by"] = json!("analyst");
        lineage["model"] = json!(model);
        BTreeMap::from([("lineage".to_string(), lineage)])
    };
    let mut seeds = SeedSet::default();
    for (n, p) in answer.personas.into_iter().enumerate() {
        let from: Vec<ImportedConversation> = sources(&p.from, conversations)?
            .into_iter()
            .cloned()
            .collect();
        seeds.personas.push(Persona {
            id: seed_id(&from[0], 'p', n + 1),
            name: p.name,
            description: p.description,
            style: Some(Value::String(
                crate::domain::traces::style_msg(p.style == "terse").render(lang),
            )),
            patience: Some(p.patience),
            language: Some(p.language),
            extra: origin(&from),
            ..Default::default()
        });
    }
    for (n, g) in answer.goals.into_iter().enumerate() {
        let from: Vec<ImportedConversation> = sources(&g.from, conversations)?
            .into_iter()
            .cloned()
            .collect();
        let mut found = BTreeMap::new();
        for c in &from {
            for (k, v) in slots(c) {
                found.entry(k).or_insert(v);
            }
        }
        seeds.goals.push(Goal {
            id: seed_id(&from[0], 'g', n + 1),
            title: g.title,
            description: g.description,
            success_criteria: g.success_criteria,
            slots: found,
            extra: origin(&from),
        });
    }
    Ok(seeds)
}

impl Platform {
    /// The analyst model's proposal from `conversations`, written in
    /// `lang`, or why there is none.
    pub(super) async fn propose_by_analyst(
        &self,
        analyst: &dyn ChatClient,
        conversations: &[ImportedConversation],
        lang: Lang,
    ) -> Result<SeedSet, Msg> {
        if let Some(url) = analyst.endpoint() {
            self.offline()
                .check("the analyst model", &url)
                .map_err(|e| msg!("trace-seeds-analyst-failed", detail = e.body.message))?;
        }
        let budget = crate::role_models::input_budget(
            self.role_models()
                .get(crate::role_models::Role::Analyst)
                .and_then(|m| m.input_tokens),
        );
        let messages = [
            ChatMessage::system(format!("{SYSTEM_PROMPT} {}", write_in(lang))),
            ChatMessage::user(digest(conversations, budget, lang).to_string()),
        ];
        let answer = analyst
            .complete_structured(&messages, &SEEDS_SCHEMA)
            .await
            .map_err(|e| msg!("trace-seeds-analyst-failed", detail = e.to_string()))?;
        seed_set(
            &answer.reply.content,
            conversations,
            &analyst.model_name(),
            lang,
        )
        .map_err(|why| msg!("trace-seeds-analyst-malformed", detail = why))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::traces::TraceConversation;

    fn conversation(n: u128, said: &str) -> ImportedConversation {
        ImportedConversation {
            id: uuid::Uuid::from_u128(n),
            target_id: None,
            source: "test".into(),
            imported_at: chrono::DateTime::UNIX_EPOCH,
            updated_at: chrono::DateTime::UNIX_EPOCH,
            conversation: TraceConversation {
                key: format!("conv-{n}"),
                trace_ids: vec![format!("{n:032x}")],
                model: None,
                started_at: None,
                messages: vec![ChatMessage::user(said)],
                tools: Vec::new(),
            },
        }
    }

    #[test]
    fn an_answer_becomes_seeds_with_the_conversations_it_names_as_lineage() {
        let cs = [
            conversation(1, "我的订单 A1024 到哪了"),
            conversation(2, "查一下订单"),
        ];
        let answer = json!({
            "personas": [{"name": "急性子的买家", "description": "只说要点", "style": "terse",
                "patience": 2, "language": "zh", "from": [1, 2, 2]}],
            "goals": [{"title": "查询订单", "description": "想知道订单到哪了",
                "success_criteria": ["说出物流状态"], "from": [2]}],
        });
        let seeds = seed_set(&answer.to_string(), &cs, "analyst-model", Lang::Zh).unwrap();
        let p = &seeds.personas[0];
        assert_eq!(p.id, "prod-000001-p1");
        assert_eq!(p.language.as_deref(), Some("zh"));
        assert_eq!(p.style, Some(json!("简洁")), "in the reader's language");
        let lineage = &p.extra["lineage"];
        assert_eq!(
            lineage["keys"],
            json!(["conv-1", "conv-2"]),
            "each conversation once"
        );
        assert_eq!(lineage["proposed_by"], "analyst");
        assert_eq!(lineage["model"], "analyst-model");
        assert_eq!(seeds.goals[0].id, "prod-000002-g1");
        assert_eq!(
            seeds.goals[0].extra["lineage"]["trace_ids"],
            json!([format!("{:032x}", 2)])
        );
    }

    #[test]
    fn an_answer_naming_a_conversation_not_given_is_refused() {
        let cs = [conversation(1, "hello")];
        let answer = json!({
            "personas": [{"name": "A", "description": "B", "style": "terse",
                "patience": 3, "language": "en", "from": [3]}],
            "goals": [{"title": "T", "description": "D", "success_criteria": [], "from": [1]}],
        });
        let why = seed_set(&answer.to_string(), &cs, "m", Lang::En)
            .unwrap_err()
            .render(Lang::Zh);
        assert!(why.contains("第 3 段对话"), "{why}");
        let broken = json!({"personas": [], "goals": []});
        assert!(
            seed_set(&broken.to_string(), &cs, "m", Lang::En).is_err(),
            "minItems"
        );
    }

    #[test]
    fn each_conversation_gets_its_share_of_the_budget() {
        let long = "很长的问题".repeat(400);
        let cs: Vec<_> = (1..=10).map(|n| conversation(n, &long)).collect();
        let d = digest(&cs, 500, Lang::Zh);
        let said = d["conversations"][0]["said"].as_str().unwrap();
        assert!(
            said.chars().count() <= 500 * CHARS_PER_TOKEN / 10 + 1,
            "{}",
            said.len()
        );
        assert_eq!(d["conversations"][9]["n"], 10);
        assert_eq!(d["language"], "zh");
    }
}
