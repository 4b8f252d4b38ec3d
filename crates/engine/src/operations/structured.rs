//! Structured outputs of role models. Every request a role model answers
//! (a virtual-user turn, an experience record, a judge review, an
//! analysis) carries the JSON schema of the answer it expects, in the form
//! the endpoint understands, and the same schema validates the answer.
//!
//! Endpoints differ in what they take, so the forms are tried in order
//! ([`OutputMode::LADDER`]): OpenAI-style `json_schema` (OpenAI, vLLM,
//! llama.cpp's `llama-server`), `json_object` with a `schema` (the
//! llama-cpp-python server), plain `json_object`, then the prompt alone.
//! A request refused with 400 or 422 (or a 500 that names
//! `response_format`, as llama-cpp-python's server answers) moves to the
//! next form; the form that worked is remembered per endpoint and model for
//! the life of the process.

use crate::virtual_user::Lang;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

pub use crate::domain::models::OutputMode;

/// The schema of one kind of answer: sent with the request, and checked
/// against the answer, which is malformed when it breaks it.
pub struct OutputSchema {
    /// The schema's name (`json_schema.name`: letters, digits, `_`).
    pub name: &'static str,
    pub schema: Value,
    validator: jsonschema::Validator,
}

impl OutputSchema {
    /// The `response_format` of a request for this schema in `mode`;
    /// `None` for the prompt alone.
    pub fn response_format(&self, mode: OutputMode) -> Option<Value> {
        let schema = self;
        match mode {
            OutputMode::JsonSchema => Some(json!({
                "type": "json_schema",
                "json_schema": {"name": schema.name, "schema": schema.schema, "strict": true},
            })),
            OutputMode::JsonObjectSchema => {
                Some(json!({"type": "json_object", "schema": schema.schema}))
            }
            OutputMode::JsonObject => Some(json!({"type": "json_object"})),
            OutputMode::PromptOnly => None,
        }
    }
}

impl std::fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputSchema")
            .field("name", &self.name)
            .finish()
    }
}

impl OutputSchema {
    /// Compiles a schema written in the code; an invalid one is a bug, so
    /// this panics (every schema is compiled by a unit test).
    pub fn new(name: &'static str, schema: Value) -> Self {
        let validator = jsonschema::validator_for(&schema)
            .unwrap_or_else(|e| panic!("output schema {name} does not compile: {e}"));
        Self {
            name,
            schema,
            validator,
        }
    }

    /// The answer in `text`: its first JSON object (models wrap JSON in
    /// prose or code fences when only the prompt asks for it), valid
    /// against the schema; otherwise what is wrong.
    pub fn read(&self, text: &str) -> Result<Value, Unreadable> {
        let value = crate::text::json_object_in(text).ok_or(Unreadable::NoJson)?;
        self.check(&value)?;
        Ok(value)
    }

    /// Whether `value` follows the schema; the first violation, named by
    /// its path, otherwise.
    pub fn check(&self, value: &Value) -> Result<(), Unreadable> {
        match self.validator.iter_errors(value).next() {
            None => Ok(()),
            Some(e) => Err(Unreadable::Schema {
                path: e.instance_path.to_string(),
                detail: e.to_string(),
            }),
        }
    }
}

/// Why a model's answer could not be read: for the model, in English, as
/// the retry prompt says it (`Display`, and `String::from`); for the
/// reader, as a message ([`Unreadable::msg`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// The answer holds no JSON object.
    NoJson,
    /// The first violation of the schema: where (a JSON pointer, empty
    /// for the whole answer) and the validator's words.
    Schema { path: String, detail: String },
}

impl Unreadable {
    /// What is wrong, in the reader's words (the validator's own are for
    /// the model and the log).
    pub fn msg(&self) -> crate::i18n::Msg {
        match self {
            Self::NoJson => crate::msg!("model-answer-no-json"),
            Self::Schema { path, .. } if path.is_empty() => crate::msg!("model-answer-off-schema"),
            Self::Schema { path, .. } => {
                crate::msg!("model-answer-off-schema-at", path = path.as_str())
            }
        }
    }

    /// [`msg`](Self::msg), once the validator's words are in the log
    /// under `answer` (whose answer it was).
    pub fn logged(&self, answer: &str) -> crate::i18n::Msg {
        tracing::warn!(error = %self, answer, "a model's answer is unreadable");
        self.msg()
    }
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoJson => f.write_str("the output contains no JSON object"),
            Self::Schema { path, detail } if path.is_empty() => {
                write!(f, "the JSON does not follow the schema: {detail}")
            }
            Self::Schema { path, detail } => {
                write!(f, "the JSON does not follow the schema at {path}: {detail}")
            }
        }
    }
}

impl From<Unreadable> for String {
    fn from(u: Unreadable) -> Self {
        u.to_string()
    }
}

/// An answer's schema in each language it may be written in. Text fields
/// are bounded in characters, and a Chinese character costs a small
/// model's tokenizer far more than a Latin one (SmolLM2: about 1.7 tokens
/// against 0.2), so the Chinese schema allows about a third of the
/// characters: either way the whole answer fits the role's `max_tokens`
/// instead of being cut off mid-string.
pub struct PerLanguage {
    en: OutputSchema,
    zh: OutputSchema,
}

impl PerLanguage {
    /// Builds both schemas from one description; `chars(n)` is the bound of
    /// a text field that may hold `n` Latin characters.
    pub fn new(build: impl Fn(&dyn Fn(usize) -> usize) -> OutputSchema) -> Self {
        Self {
            en: build(&|n| n),
            zh: build(&|n| (n * 3 / 10).max(16)),
        }
    }

    pub fn get(&self, lang: Lang) -> &OutputSchema {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }
}

/// The form each endpoint and model took, learnt on first use.
static REMEMBERED: LazyLock<Mutex<HashMap<(String, String), OutputMode>>> =
    LazyLock::new(Default::default);

/// The form that worked last for this endpoint and model, if any.
pub fn remembered(base_url: &str, model: &str) -> Option<OutputMode> {
    REMEMBERED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&(base_url.to_string(), model.to_string()))
        .copied()
}

/// Remembers the form that worked for this endpoint and model.
pub fn remember(base_url: &str, model: &str, mode: OutputMode) {
    REMEMBERED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert((base_url.to_string(), model.to_string()), mode);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_steps_down_to_the_prompt_alone_and_stops() {
        let mut seen = vec![OutputMode::JsonSchema];
        while let Some(next) = seen.last().and_then(|m| m.next()) {
            seen.push(next);
        }
        assert_eq!(
            seen,
            OutputMode::LADDER.to_vec(),
            "every form once, in order"
        );
        assert_eq!(
            OutputMode::PromptOnly.next(),
            None,
            "the prompt alone is the last form"
        );
    }

    #[test]
    fn each_form_is_written_the_way_its_servers_read_it() {
        let schema = OutputSchema::new("t", json!({"type": "object"}));
        let f = schema.response_format(OutputMode::JsonSchema).unwrap();
        assert_eq!(f["type"], "json_schema");
        assert_eq!(f["json_schema"]["name"], "t");
        assert_eq!(f["json_schema"]["strict"], true);
        assert_eq!(f["json_schema"]["schema"]["type"], "object");
        let f = schema
            .response_format(OutputMode::JsonObjectSchema)
            .unwrap();
        assert_eq!(
            f,
            json!({"type": "json_object", "schema": {"type": "object"}})
        );
        let f = schema.response_format(OutputMode::JsonObject).unwrap();
        assert_eq!(f, json!({"type": "json_object"}));
        assert!(schema.response_format(OutputMode::PromptOnly).is_none());
    }

    #[test]
    fn an_answer_that_parses_but_breaks_the_schema_is_refused_with_its_path() {
        let schema = OutputSchema::new(
            "t",
            json!({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "maximum": 5}}}),
        );
        assert_eq!(schema.read("Sure: {\"n\": 3}").unwrap(), json!({"n": 3}));
        let e = schema.read("{\"n\": 9}").unwrap_err().to_string();
        assert!(e.contains("/n"), "the error names where: {e}");
        let e = schema.read("{}").unwrap_err().to_string();
        assert!(e.contains("\"n\""), "a missing field is named: {e}");
        assert!(
            schema
                .read("no json")
                .unwrap_err()
                .to_string()
                .contains("no JSON object")
        );
    }

    #[test]
    fn an_unreadable_answer_is_told_to_the_reader_in_their_words() {
        use crate::i18n::Lang;
        let schema = OutputSchema::new(
            "t",
            json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        );
        let e = schema.read("{\"n\": \"nine\"}").unwrap_err();
        assert!(
            e.to_string().contains("is not of type"),
            "for the model: {e}"
        );
        let zh = e.msg().render(Lang::Zh);
        assert!(zh.contains("/n") && !zh.contains("type"), "{zh}");
        assert!(!Unreadable::NoJson.msg().render(Lang::Zh).is_empty());
    }
}
