//! A fixed scenario drafted from an imported production conversation: the
//! users' turns are the script, and each turn gets the check of what the
//! reply did there (a tool it called -> `tool_called`; a question back ->
//! `asks_clarification`; on the last turn, figures -> `no_unverified_numbers`
//! with the numbers the user and the tools gave as facts, else a rubric
//! quoting the reply production gave). Each tool answers, as a declared
//! response, what it answered in production, so that the engine plays it. The draft is a pack file the user
//! reviews and edits before saving it among their packs, like a scenario
//! drafted from an exploration finding.

use crate::domain::chat::{ChatMessage, Role};
use crate::domain::scenario::{Check, TraceLineage};
use crate::domain::steps::ToolResponse;
use crate::error::Result;
use crate::i18n::Lang;
use crate::msg;
use crate::platform::Platform;
use crate::scenario::regression::{OutScenario, OutTurn, pack_file};
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

/// The pack production scenarios go to unless another is named.
pub const DEFAULT_PACK: &str = "production";

/// A scenario drafted from a production conversation: its pack file's
/// text, ready to review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct TraceDraft {
    pub pack: String,
    pub scenario_id: String,
    /// The file name within the pack's folder.
    pub file_name: String,
    /// The pack file (YAML), with the conversation's lineage in it.
    pub yaml: String,
    pub lineage: TraceLineage,
}

static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\d+(?:[.,]\d+)*").expect("static regex"));

/// One user turn and the replies up to the next one.
struct Exchange<'a> {
    user: &'a str,
    replies: Vec<&'a ChatMessage>,
}

fn exchanges(messages: &[ChatMessage]) -> Vec<Exchange<'_>> {
    let mut out: Vec<Exchange<'_>> = Vec::new();
    for m in messages {
        match m.role {
            Role::User => out.push(Exchange {
                user: &m.content,
                replies: Vec::new(),
            }),
            Role::Assistant | Role::Tool => {
                if let Some(last) = out.last_mut() {
                    last.replies.push(m);
                }
            }
            Role::System => {}
        }
    }
    out
}

/// The numbers the user said and the tools answered: what a reply may
/// state.
fn facts(messages: &[ChatMessage]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for m in messages
        .iter()
        .filter(|m| matches!(m.role, Role::User | Role::Tool))
    {
        for n in NUMBER.find_iter(&m.content) {
            if !found.iter().any(|f| f == n.as_str()) {
                found.push(n.as_str().to_string());
            }
        }
    }
    found
}

fn asks_back(text: &str) -> bool {
    let t = text.trim_end();
    t.ends_with('?') || t.ends_with('？')
}

/// The check of what the replies to one turn did; `last` turns get one
/// whatever they did.
fn check_for(e: &Exchange<'_>, last: bool, lang: Lang) -> Option<Check> {
    if let Some(call) = e.replies.iter().flat_map(|m| &m.tool_calls).next() {
        return Some(Check::ToolCalled {
            name: call.name.clone(),
            arguments_schema: None,
        });
    }
    let said: String = e
        .replies
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    if asks_back(&said) {
        return Some(Check::AsksClarification { field: None });
    }
    if !last {
        return None;
    }
    // A reply that states figures is guarded against stating one that
    // nobody gave (the user, the facts, a tool result), even when
    // production's own reply did.
    if NUMBER.is_match(&said) {
        return Some(Check::NoUnverifiedNumbers);
    }
    Some(Check::Rubric {
        rubric: msg!("trace-rubric", reply = crate::text::truncate(&said, 160)).render(lang),
        min_score: None,
    })
}

/// The tools the scenario offers: those production offered, and any it
/// called that no definition names (with an open schema); each answers
/// what it answered in production (see [`production_responses`]).
fn offered(c: &crate::domain::traces::TraceConversation) -> Vec<crate::domain::chat::ToolSpec> {
    let mut tools = c.tools.clone();
    for call in c.messages.iter().flat_map(|m| &m.tool_calls) {
        if !tools.iter().any(|t| t.name == call.name) {
            tools.push(crate::domain::chat::ToolSpec {
                name: call.name.clone(),
                description: String::new(),
                parameters: serde_json::json!({"type": "object"}),
                responses: Vec::new(),
            });
        }
    }
    for tool in &mut tools {
        tool.responses = production_responses(&c.messages, &tool.name);
    }
    tools
}

/// What production's tool `name` answered, as declared responses: each
/// call's result (JSON when it is JSON, else its text) when the call's
/// arguments come again, and one without arguments to match last.
fn production_responses(messages: &[ChatMessage], name: &str) -> Vec<ToolResponse> {
    let answer_of = |id: &str| {
        messages
            .iter()
            .find(|m| m.role == Role::Tool && m.tool_call_id.as_deref() == Some(id))
            .map(|m| {
                serde_json::from_str(&m.content)
                    .unwrap_or_else(|_| serde_json::Value::String(m.content.clone()))
            })
    };
    let (mut matched, mut default) = (Vec::<ToolResponse>::new(), None);
    for call in messages
        .iter()
        .flat_map(|m| &m.tool_calls)
        .filter(|c| c.name == name)
    {
        let Some(result) = answer_of(&call.id) else {
            continue;
        };
        let when = call
            .arguments
            .as_object()
            .filter(|a| !a.is_empty())
            .map(|_| call.arguments.clone());
        let response = ToolResponse {
            when: when.clone(),
            result: Some(result),
            error: None,
        };
        match when {
            Some(w) if !matched.iter().any(|r| r.when.as_ref() == Some(&w)) => {
                matched.push(response)
            }
            None if default.is_none() => default = Some(response),
            _ => {}
        }
    }
    matched.extend(default);
    matched
}

impl Platform {
    /// Drafts a fixed scenario from imported conversation `id` into `pack`
    /// (default `production`), its check sentences in `lang`. The draft
    /// is checked as a pack file before it is returned; a conversation
    /// without a user turn is 409.
    pub async fn draft_from_conversation(
        &self,
        id: uuid::Uuid,
        pack: Option<String>,
        lang: Lang,
    ) -> Result<TraceDraft> {
        let kept = self.imported_conversation(id).await?;
        let c = &kept.conversation;
        let exchanges = exchanges(&c.messages);
        if exchanges.is_empty() {
            return Err(crate::error::Error::msg(
                crate::error::ErrorCode::Conflict,
                msg!("error-trace-no-user-turn"),
                msg!("error-trace-no-user-turn-suggestion"),
            ));
        }
        let facts = facts(&c.messages);
        let count = exchanges.len();
        let turns: Vec<OutTurn> = exchanges
            .iter()
            .enumerate()
            .map(|(i, e)| OutTurn {
                user: e.user.to_string(),
                checks: check_for(e, i + 1 == count, lang).into_iter().collect(),
            })
            .collect();
        let uses_facts = turns
            .iter()
            .flat_map(|t| &t.checks)
            .any(|c| matches!(c, Check::NoUnverifiedNumbers));
        let pack = pack.unwrap_or_else(|| DEFAULT_PACK.to_string());
        let tail = kept.id.simple().to_string();
        let scenario_id = format!("production.{}", &tail[tail.len() - 12..]);
        let lineage = TraceLineage {
            conversation_id: kept.id,
            key: c.key.clone(),
            trace_ids: c.trace_ids.clone(),
        };
        let title = crate::text::truncate(
            &msg!("trace-title", first = exchanges[0].user).render(lang),
            120,
        );
        let (yaml, file_name) = pack_file(
            OutScenario {
                id: scenario_id.clone(),
                title,
                tags: vec!["production".into()],
                facts: if uses_facts { facts } else { Vec::new() },
                tools: offered(c),
                turns,
                lineage: None,
                from_traces: Some(lineage.clone()),
            },
            &pack,
        )?;
        Ok(TraceDraft {
            pack,
            scenario_id,
            file_name,
            yaml,
            lineage,
        })
    }
}
