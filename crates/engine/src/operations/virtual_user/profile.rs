//! Lenient reading of persona and goal JSON (sessions carry them as JSON
//! written by people and assistants) and the traits the persona engine
//! acts on.

use crate::campaign::{Goal, Persona, Traits};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub use crate::text::Lang;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verbosity {
    Terse,
    Normal,
    Chatty,
}

/// How the user pushes when a reply did not help.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FollowUpStrategy {
    /// Repeats the request with every fact it knows.
    Persistent,
    /// Says the same thing in other words.
    Rephrase,
    /// Presses: urgency, asks for someone who can help.
    Escalate,
}

impl FollowUpStrategy {
    pub const ALL: [Self; 3] = [Self::Persistent, Self::Rephrase, Self::Escalate];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Persistent => "persistent",
            Self::Rephrase => "rephrase",
            Self::Escalate => "escalate",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|x| x.as_str() == s.trim().to_ascii_lowercase())
    }
}

/// The persona's traits with defaults filled in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PersonaProfile {
    /// How many unhelpful replies it takes before the user gives up (1-5).
    pub patience: u8,
    pub verbosity: Verbosity,
    /// 1 (novice) to 5 (expert).
    pub technical_level: u8,
    pub lang: Lang,
    /// Probability of changing its mind once during the session.
    pub change_mind: f64,
    pub strategy: FollowUpStrategy,
}

impl PersonaProfile {
    pub fn of(persona: &Persona, goal: &Goal, extra: &Value) -> Self {
        let style = persona.style_words();
        let traits = persona.traits.words().join(" ").to_lowercase();
        let has = |words: &[&str]| {
            words
                .iter()
                .any(|w| style.contains(w) || traits.contains(w))
        };
        let verbosity = if has(&["terse", "brief", "short", "concise", "简洁", "简短", "话少"])
        {
            Verbosity::Terse
        } else if has(&[
            "chatty",
            "verbose",
            "talkative",
            "detailed",
            "啰嗦",
            "话多",
            "详细",
        ]) {
            Verbosity::Chatty
        } else {
            Verbosity::Normal
        };
        let lang = match persona.language.as_deref().map(str::to_lowercase) {
            Some(l) if l.starts_with("zh") || l.contains("chinese") || l.contains('中') => {
                Lang::Zh
            }
            Some(l) if l.starts_with("en") || l.contains("english") || l.contains('英') => {
                Lang::En
            }
            _ if has_cjk(&goal.title) || has_cjk(&goal.description) => Lang::Zh,
            _ => Lang::En,
        };
        let strategy = extra
            .get("follow_up_strategy")
            .and_then(Value::as_str)
            .and_then(FollowUpStrategy::parse)
            .unwrap_or(if has(&["pushy", "impatient", "急", "强势"]) {
                FollowUpStrategy::Escalate
            } else {
                FollowUpStrategy::Persistent
            });
        Self {
            patience: persona.patience.unwrap_or(3).clamp(1, 5) as u8,
            verbosity,
            technical_level: persona.technical_level.unwrap_or(3).clamp(1, 5) as u8,
            lang,
            change_mind: persona
                .change_mind
                .filter(|x| x.is_finite())
                .unwrap_or(0.0)
                .clamp(0.0, 1.0),
            strategy,
        }
    }
}

pub fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

fn field(v: &Value, names: &[&str]) -> Option<String> {
    names
        .iter()
        .find_map(|n| v.get(*n).and_then(text))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn number(v: &Value, name: &str) -> Option<f64> {
    match v.get(name)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn strings(v: &Value, name: &str) -> Vec<String> {
    match v.get(name) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(text)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        Some(Value::String(s)) if !s.trim().is_empty() => vec![s.trim().to_string()],
        _ => Vec::new(),
    }
}

/// Reads a persona from whatever JSON a session carries: numbers given as
/// strings, a single trait given as a string, traits given as an object,
/// unknown fields kept in `extra`. A bare string is taken as the persona's
/// description.
pub fn parse_persona(v: &Value) -> Persona {
    if let Value::String(s) = v {
        return Persona {
            id: String::new(),
            name: s.clone(),
            description: s.clone(),
            ..Persona::default()
        };
    }
    Persona {
        id: field(v, &["id"]).unwrap_or_default(),
        name: field(v, &["name", "title"]).unwrap_or_else(|| "user".into()),
        description: field(v, &["description", "background"]).unwrap_or_default(),
        traits: match v.get("traits") {
            Some(Value::Object(map)) => {
                Traits::Named(map.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            }
            _ => Traits::List(strings(v, "traits")),
        },
        style: ["style", "verbosity"]
            .iter()
            .find_map(|n| v.get(*n).filter(|s| !s.is_null()).cloned()),
        patience: number(v, "patience").map(|x| x.round().clamp(1.0, 5.0) as i32),
        language: field(v, &["language", "lang"]),
        technical_level: number(v, "technical_level").map(|x| x.round().clamp(1.0, 5.0) as i32),
        change_mind: number(v, "change_mind"),
        extra: unknown_fields(v, PERSONA_FIELDS),
    }
}

/// The persona fields [`parse_persona`] reads (with their other names).
const PERSONA_FIELDS: &[&str] = &[
    "id",
    "name",
    "title",
    "description",
    "background",
    "traits",
    "style",
    "verbosity",
    "patience",
    "language",
    "lang",
    "technical_level",
    "change_mind",
];
/// The goal fields [`parse_goal`] reads (with their other names).
const GOAL_FIELDS: &[&str] = &[
    "id",
    "title",
    "name",
    "goal",
    "description",
    "details",
    "success_criteria",
    "slots",
];

/// The fields of an object that are none of `known`, as given.
fn unknown_fields(v: &Value, known: &[&str]) -> BTreeMap<String, Value> {
    match v {
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| !known.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => BTreeMap::new(),
    }
}

/// Reads a goal leniently (see [`parse_persona`]); slot values that are not
/// strings are kept as their JSON text.
pub fn parse_goal(v: &Value) -> Goal {
    if let Value::String(s) = v {
        return Goal {
            title: s.clone(),
            ..Goal::default()
        };
    }
    let slots: BTreeMap<String, Value> = match v.get("slots") {
        Some(Value::Object(m)) => m
            .iter()
            .filter(|(_, v)| crate::campaign::fact_text(v).is_some())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        _ => BTreeMap::new(),
    };
    Goal {
        id: field(v, &["id"]).unwrap_or_default(),
        title: field(v, &["title", "name", "goal"]).unwrap_or_else(|| "get help".into()),
        description: field(v, &["description", "details"]).unwrap_or_default(),
        success_criteria: strings(v, "success_criteria"),
        slots,
        extra: unknown_fields(v, GOAL_FIELDS),
    }
}

/// Known names of common slots, so that "who should receive it?" is read
/// as a question about `to`. Keys are matched by their own name too.
const SLOT_ALIASES: &[(&[&str], &[&str], &str)] = &[
    (
        &["to", "recipient", "recipients", "email", "address"],
        &[
            "recipient",
            "whom",
            "who should",
            "send it to",
            "email address",
            "address",
            "收件人",
            "发给谁",
            "发送给谁",
            "邮箱",
            "地址",
        ],
        "收件人",
    ),
    (
        &["subject", "title"],
        &["subject", "title", "主题", "标题"],
        "主题",
    ),
    (
        &["body", "content", "message", "text"],
        &[
            "body",
            "content",
            "message",
            "say",
            "正文",
            "内容",
            "写什么",
        ],
        "正文",
    ),
    (
        &["date", "day"],
        &[
            "date",
            "which day",
            "when",
            "日期",
            "哪天",
            "哪一天",
            "什么时候",
        ],
        "日期",
    ),
    (
        &["time"],
        &["time", "what time", "when", "时间", "几点"],
        "时间",
    ),
    (
        &["city", "location", "place"],
        &["city", "where", "location", "城市", "地点", "哪里"],
        "地点",
    ),
    (
        &["amount", "price", "budget"],
        &[
            "amount",
            "how much",
            "price",
            "budget",
            "金额",
            "多少钱",
            "预算",
        ],
        "金额",
    ),
    (&["name"], &["name", "姓名", "名字", "称呼"], "姓名"),
    (&["phone"], &["phone", "number", "电话", "手机"], "电话"),
    (&["order_id", "order"], &["order", "订单"], "订单号"),
    (&["cc"], &["cc", "copy", "抄送"], "抄送"),
];

/// The words by which a target may ask for a slot.
pub fn slot_aliases(key: &str) -> Vec<String> {
    let k = key.to_lowercase();
    let mut out = vec![k.clone(), k.replace('_', " ")];
    for (keys, aliases, _) in SLOT_ALIASES {
        if keys.contains(&k.as_str()) {
            out.extend(aliases.iter().map(|a| a.to_string()));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A readable name of a slot in the persona's language, never its key: a
/// corrected value (`corrected_to`) is named as the slot it corrects; a
/// slot the table does not know is named by its words when they read as
/// English words in an English sentence, else described ("the detail").
pub fn slot_label(key: &str, lang: Lang) -> String {
    let k = key.to_lowercase();
    let k = k.strip_prefix("corrected_").unwrap_or(&k);
    let known = SLOT_ALIASES.iter().find(|(keys, _, _)| keys.contains(&k));
    match (lang, known) {
        (Lang::Zh, Some((_, _, zh))) => zh.to_string(),
        (Lang::En, Some((_, aliases, _))) => aliases[0].to_string(),
        (Lang::En, None)
            if k.len() >= 3
                && k.split('_')
                    .all(|w| w.len() >= 2 && w.chars().all(|c| c.is_ascii_alphabetic())) =>
        {
            k.replace('_', " ")
        }
        (Lang::En, None) => "detail".to_string(),
        (Lang::Zh, None) => "这项信息".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lenient_parsing_accepts_loose_json() {
        let p = parse_persona(&json!({
            "name": "王女士", "patience": "2", "traits": "impatient", "language": "zh-CN",
            "technical_level": 4.6, "unknown": [1, 2]
        }));
        assert_eq!(p.patience, Some(2), "a numeric string is a number");
        assert_eq!(p.traits, Traits::List(vec!["impatient".into()]));
        assert_eq!(p.extra["unknown"], json!([1, 2]), "unknown fields are kept");
        assert_eq!(p.technical_level, Some(5));
        let g = parse_goal(
            &json!({"title": "发邮件", "slots": {"to": "a@b.cn", "count": 3,
                    "order": {"value": "A1024", "note": "from the receipt"}, "none": null},
                    "success_criteria": "已发送"}),
        );
        assert_eq!(g.slots["count"], json!(3), "a fact is kept as given");
        let said = g.slot_texts();
        assert_eq!(said["count"], "3");
        assert_eq!(said["order"], "A1024", "an object is said by its value");
        assert!(!g.slots.contains_key("none"), "nothing to say, no fact");
        assert_eq!(g.success_criteria, vec!["已发送"]);
        let profile = PersonaProfile::of(&p, &g, &json!({}));
        assert_eq!(profile.lang, Lang::Zh);
        assert_eq!(
            profile.strategy,
            FollowUpStrategy::Escalate,
            "impatient personas press"
        );
        let bare = parse_goal(&json!("book a table"));
        assert_eq!(bare.title, "book a table");
        assert_eq!(parse_persona(&json!(null)).name, "user");
    }

    #[test]
    fn language_defaults_to_the_goal_language() {
        let p = parse_persona(&json!({"name": "x"}));
        let zh = parse_goal(&json!({"title": "查询订单"}));
        let en = parse_goal(&json!({"title": "check my order"}));
        assert_eq!(PersonaProfile::of(&p, &zh, &json!({})).lang, Lang::Zh);
        assert_eq!(PersonaProfile::of(&p, &en, &json!({})).lang, Lang::En);
        assert!(slot_aliases("to").contains(&"收件人".to_string()));
        assert_eq!(slot_label("subject", Lang::Zh), "主题");
    }
}
