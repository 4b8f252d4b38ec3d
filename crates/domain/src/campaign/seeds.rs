//! The seed set: personas and goals the virtual user plays, checked on
//! the way in.

use super::*;
use crate::i18n::Msg;

/// A seed persona: who the virtual user is. Personas are free JSON written
/// by people and assistants: the fields below are the ones the virtual user
/// acts on (checked when a campaign is created); any other field is kept
/// and returned as given, at the top level.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct Persona {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// A list of words (`["impatient", "polite"]`) or an object of named
    /// traits (`{"impatient": true, "tone": "terse"}`).
    #[serde(default, skip_serializing_if = "Traits::is_empty")]
    pub traits: Traits,
    /// Conversational style: a word ("terse", "chatty", "formal") or any
    /// JSON (`{"tone": "formal", "length": "short"}`), kept as given; the
    /// virtual user reads the words in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<serde_json::Value>,
    /// 1 (gives up quickly) to 5 (very patient).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patience: Option<i32>,
    /// `zh` or `en`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// 1 (novice) to 5 (expert).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub technical_level: Option<i32>,
    /// 0.0 to 1.0: how likely the persona changes its mind mid-conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_mind: Option<f64>,
    /// Every other field, kept as given.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

/// A persona's traits: a list of words, or an object whose keys name the
/// traits and whose values qualify them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Traits {
    List(Vec<String>),
    Named(BTreeMap<String, serde_json::Value>),
}

impl Default for Traits {
    fn default() -> Self {
        Self::List(Vec::new())
    }
}

impl Traits {
    pub fn is_empty(&self) -> bool {
        match self {
            Self::List(words) => words.is_empty(),
            Self::Named(map) => map.is_empty(),
        }
    }

    /// The words the virtual user acts on. Of an object: each key whose
    /// value is not false, zero or empty (`{"impatient": true}` reads
    /// "impatient"), followed by its value when that is text
    /// (`{"tone": "terse"}` reads "tone terse").
    pub fn words(&self) -> Vec<String> {
        use serde_json::Value;
        match self {
            Self::List(words) => words.clone(),
            Self::Named(map) => map
                .iter()
                .filter_map(|(key, value)| match value {
                    Value::Null | Value::Bool(false) => None,
                    Value::Number(n) if n.as_f64() == Some(0.0) => None,
                    Value::String(s) if s.trim().is_empty() => None,
                    Value::String(s) => Some(format!("{key} {}", s.trim())),
                    Value::Array(items) => {
                        let texts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                        Some(format!("{key} {}", texts.join(" ")).trim().to_string())
                    }
                    _ => Some(key.clone()),
                })
                .collect(),
        }
    }
}

impl From<Vec<String>> for Traits {
    fn from(words: Vec<String>) -> Self {
        Self::List(words)
    }
}

/// A seed goal: what the virtual user wants to get done. Free JSON like
/// [`Persona`]: unknown fields are kept and returned as given.
#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct Goal {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Observable signs that the goal is met, e.g. phrases the target's
    /// reply must contain.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub success_criteria: Vec<String>,
    /// Facts the user knows and gives when asked (recipient, date, ...):
    /// text, or any JSON kept as given (`{"value": "A1024", "note": ...}`);
    /// see [`Goal::slot_texts`] for what the user says of each.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub slots: BTreeMap<String, serde_json::Value>,
    /// Every other field, kept as given.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

#[derive(
    Debug, Clone, PartialEq, Default, Serialize, Deserialize, specta::Type, utoipa::ToSchema,
)]
pub struct SeedSet {
    #[serde(default)]
    pub personas: Vec<Persona>,
    #[serde(default)]
    pub goals: Vec<Goal>,
}

impl SeedSet {
    pub fn is_empty(&self) -> bool {
        self.personas.is_empty() || self.goals.is_empty()
    }

    /// Hash of the canonical seed set: campaigns with the same fingerprint
    /// explored the same seeds.
    pub fn fingerprint(&self) -> String {
        // serde_json::Value objects are BTreeMaps: keys come out sorted.
        let canonical = serde_json::to_value(self)
            .map(|v| v.to_string())
            .unwrap_or_default();
        hex::encode(Sha256::digest(canonical.as_bytes()))
    }

    pub fn validate(&self) -> Result<()> {
        let mut seen = HashSet::new();
        for p in &self.personas {
            check_seed_id("persona", &p.id)?;
            if !seen.insert(("p", p.id.as_str())) {
                return Err(Error::invalid_msg(
                    crate::msg!("error-seed-persona-twice", id = p.id.as_str()),
                    crate::msg!("error-seed-persona-twice-suggestion"),
                ));
            }
            if p.name.trim().is_empty() {
                return Err(Error::invalid_msg(
                    crate::msg!("error-seed-persona-no-name", id = p.id.as_str()),
                    crate::msg!("error-seed-persona-no-name-suggestion"),
                ));
            }
            p.check_known_fields()?;
        }
        for g in &self.goals {
            check_seed_id("goal", &g.id)?;
            if !seen.insert(("g", g.id.as_str())) {
                return Err(Error::invalid_msg(
                    crate::msg!("error-seed-goal-twice", id = g.id.as_str()),
                    crate::msg!("error-seed-goal-twice-suggestion"),
                ));
            }
            if g.title.trim().is_empty() {
                return Err(Error::invalid_msg(
                    crate::msg!("error-seed-goal-no-title", id = g.id.as_str()),
                    crate::msg!("error-seed-goal-no-title-suggestion"),
                ));
            }
            if g.slots.keys().any(|k| k.trim().is_empty()) {
                return Err(Error::invalid_msg(
                    crate::msg!("error-seed-slot-blank", id = g.id.as_str()),
                    crate::msg!("error-seed-slot-blank-suggestion"),
                ));
            }
        }
        let size = serde_json::to_string(self)?.len();
        if size > 256 * 1024 {
            return Err(Error::invalid_msg(
                crate::msg!("error-seed-set-too-large"),
                crate::msg!("error-seed-set-too-large-suggestion"),
            ));
        }
        Ok(())
    }
}

/// What the user says of a fact given as JSON: text as is, a number or a
/// yes/no as written, an object by its `value` (else `text`, `name`), a
/// list item by item; anything else as its JSON text. `None` for null or
/// nothing to say.
pub fn fact_text(v: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let text = match v {
        Value::Null => return None,
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Array(items) => items
            .iter()
            .filter_map(fact_text)
            .collect::<Vec<_>>()
            .join(", "),
        Value::Object(map) => match ["value", "text", "name"].iter().find_map(|k| map.get(*k)) {
            Some(inner) => return fact_text(inner),
            None => v.to_string(),
        },
    };
    let text = text.trim().to_string();
    (!text.is_empty()).then_some(text)
}

impl Goal {
    /// Each fact the user knows, as it says it (see [`fact_text`]); facts
    /// with nothing to say are left out.
    pub fn slot_texts(&self) -> BTreeMap<String, String> {
        self.slots
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), fact_text(v)?)))
            .collect()
    }
}

impl Persona {
    /// The words of its style (of a JSON style, its texts), lowercased.
    pub fn style_words(&self) -> String {
        fn words(v: &serde_json::Value, out: &mut Vec<String>) {
            match v {
                serde_json::Value::String(s) => out.push(s.clone()),
                serde_json::Value::Array(items) => items.iter().for_each(|i| words(i, out)),
                serde_json::Value::Object(map) => map.iter().for_each(|(k, v)| {
                    out.push(k.clone());
                    words(v, out);
                }),
                _ => {}
            }
        }
        let mut out = Vec::new();
        if let Some(style) = &self.style {
            words(style, &mut out);
        }
        out.join(" ").to_lowercase()
    }

    /// The fields the virtual user acts on, within their ranges. Nothing is
    /// corrected: a value out of range is refused, naming field and range.
    fn check_known_fields(&self) -> Result<()> {
        let out_of_range = |field: &str, min: &str, max: &str, got: String, hint: Msg| {
            Error::invalid_msg(
                crate::msg!(
                    "error-persona-field-range",
                    id = self.id.as_str(),
                    field = field,
                    min = min,
                    max = max,
                    got = got
                ),
                hint,
            )
        };
        if let Some(x) = self.patience
            && !(1..=5).contains(&x)
        {
            return Err(out_of_range(
                "patience",
                "1",
                "5",
                x.to_string(),
                crate::msg!("error-persona-patience-suggestion"),
            ));
        }
        if let Some(x) = self.technical_level
            && !(1..=5).contains(&x)
        {
            return Err(out_of_range(
                "technical_level",
                "1",
                "5",
                x.to_string(),
                crate::msg!("error-persona-technical-level-suggestion"),
            ));
        }
        if let Some(x) = self.change_mind
            && !(x.is_finite() && (0.0..=1.0).contains(&x))
        {
            return Err(out_of_range(
                "change_mind",
                "0",
                "1",
                x.to_string(),
                crate::msg!("error-persona-change-mind-suggestion"),
            ));
        }
        if let Some(lang) = &self.language
            && !matches!(lang.as_str(), "zh" | "en")
        {
            return Err(Error::invalid_msg(
                crate::msg!(
                    "error-persona-language",
                    id = self.id.as_str(),
                    got = lang.as_str()
                ),
                crate::msg!("error-persona-language-suggestion"),
            ));
        }
        Ok(())
    }
}

pub fn check_seed_id(kind: &str, id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(Error::invalid_msg(
            crate::msg!(
                "error-seed-id-form",
                kind = Msg::name("seed-kind", kind),
                id = id
            ),
            crate::msg!(
                "error-seed-id-form-suggestion",
                kind = Msg::name("seed-kind", kind),
                example = format!("{kind}-1")
            ),
        ))
    }
}
