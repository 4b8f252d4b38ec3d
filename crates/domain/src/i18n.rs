//! Text in the reader's language (DESIGN §13.1).
//!
//! The engine stores conclusions, not sentences: a [`Msg`] is a catalogue
//! key with its arguments (numbers, ids, quoted agent or user text, names
//! from the seed set, other messages). One Fluent catalogue per language
//! (`crates/domain/locales/<lang>/*.ftl`, also read by the UI) renders it
//! when somebody reads it: the UI in its current language, the API in the
//! request's (`?lang=`, else `Accept-Language`), the exports and the
//! command line in the one asked for (`--lang`).
//!
//! Quoted text is never translated: it is an argument, shown as said.
//! A [`Text`] is either a message or words somebody wrote themselves (a
//! model, a person, or a sentence stored before messages existed), shown
//! as they are.

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use include_dir::{Dir, include_dir};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// The catalogues, one folder per language, one file per area.
pub static LOCALES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/locales");

/// A language the catalogue speaks.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    Serialize,
    Deserialize,
    specta::Type,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Zh];

    pub fn as_str(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    /// `zh`, `zh-CN`, `zh_CN.UTF-8`, `en-US`...: the language named, when
    /// the catalogue has it.
    pub fn parse(s: &str) -> Option<Self> {
        let primary = s
            .trim()
            .split(['-', '_', '.', ';'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        match primary.as_str() {
            "en" => Some(Lang::En),
            "zh" => Some(Lang::Zh),
            _ => None,
        }
    }

    /// The first language of an `Accept-Language` header the catalogue
    /// has, in the order of preference the header gives (`q` weights).
    pub fn from_accept_language(header: &str) -> Option<Self> {
        let mut ranked: Vec<(f32, usize, Lang)> = header
            .split(',')
            .enumerate()
            .filter_map(|(i, part)| {
                let mut pieces = part.split(';');
                let lang = Lang::parse(pieces.next()?)?;
                let q = pieces
                    .find_map(|p| p.trim().strip_prefix("q=")?.parse::<f32>().ok())
                    .unwrap_or(1.0);
                (q > 0.0).then_some((q, i, lang))
            })
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        ranked.first().map(|r| r.2)
    }

    /// The language of the environment (`LC_ALL`, `LC_MESSAGES`, `LANG`),
    /// for the command line when `--lang` is not given; English otherwise.
    pub fn from_env() -> Self {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .iter()
            .filter_map(|v| std::env::var(v).ok())
            .find(|v| !v.is_empty())
            .and_then(|v| Lang::parse(&v))
            .unwrap_or_default()
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Lang::parse(s).ok_or_else(|| format!("unknown language {s:?}: use zh or en"))
    }
}

/// One argument of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Arg {
    /// A count: selects plural forms.
    Int(i64),
    Float(f64),
    /// A name, an id, a figure already formatted, or quoted text: shown
    /// as it is, never translated.
    Str(String),
    /// Quoted texts, each quoted and joined as the language does.
    List(Vec<String>),
    /// Another message, rendered in the same language first (a slot's
    /// label, the name of an end reason).
    Msg(Msg),
}

/// A sentence of the engine: a catalogue key and its arguments.
///
/// Serialized as `{key, args}`; inside a [`scope`] (an HTTP response in
/// the request's language) also with `text`, the message rendered.
#[derive(Debug, Clone, PartialEq, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Msg {
    pub key: String,
    #[serde(default)]
    /// In the OpenAPI document a free object (the arguments may nest
    /// messages, which JSON Schema tools resolve poorly).
    #[schema(value_type = Object)]
    pub args: BTreeMap<String, Arg>,
}

/// The families of [`Msg::name`], with every value each takes.
pub const NAME_FAMILIES: &[(&str, &[&str])] = &[
    (
        "end-reason",
        &[
            "user_goal_met",
            "user_gave_up",
            "max_turns",
            "target_error",
            "simulator_error",
            "budget_exhausted",
            "expired",
            "stopped",
            "abandoned",
        ],
    ),
    (
        "error-reason",
        &[
            "target_error",
            "interrupted",
            "window_ended",
            "internal_error",
            "workspace_error",
            "storage_error",
            "target_unavailable",
            "timeout",
            "error",
        ],
    ),
    (
        "session-status",
        &["running", "completed", "failed", "expired"],
    ),
    (
        "campaign-status",
        &["draft", "scheduled", "running", "finalized", "cancelled"],
    ),
    ("emotion", &crate::emotion::EMOTIONS),
    (
        "verdict",
        &["passed", "failed", "error", "skipped", "pending"],
    ),
    ("grade", &["poor", "fair", "good", "severe", "unrated"]),
    (
        "dimension",
        &[
            "attitude",
            "professionalism",
            "hallucination",
            "trajectory",
            "simulator",
        ],
    ),
    (
        "trajectory-kind",
        &[
            "unknown-tool",
            "repeated-failed-call",
            "claimed-failed",
            "claimed-no-step",
            "step-limit",
            "other",
        ],
    ),
    (
        "check-kind",
        &[
            "contains",
            "not_contains",
            "regex",
            "json_path",
            "max_latency_ms",
            "tool_called",
            "asks_clarification",
            "no_unverified_numbers",
            "no_repeat",
            "tool_sequence",
            "tool_not_called",
            "no_unknown_tools",
            "recovers_from_error",
            "document",
            "file_exists",
            "max_steps",
            "rubric",
        ],
    ),
    (
        "fault-kind",
        &[
            "invented_fact",
            "left_language",
            "quit_early",
            "went_on_after_goal",
            "drifted",
            "record_disagrees",
        ],
    ),
    ("played-by", &["person", "assistant", "builtin", "model"]),
    ("trigger", &["auto", "manual"]),
    ("issue-kind", &["blocker", "misled"]),
    (
        "error-thing",
        &[
            "campaign",
            "run",
            "session",
            "target",
            "key",
            "conversation",
        ],
    ),
    ("seed-kind", &["persona", "goal"]),
    // The seed's difficulty groups; a pack's own group shows its name.
    ("group", &["basic", "intermediate", "advanced"]),
    ("strategy", &["persistent", "rephrase", "escalate"]),
    (
        "host-role",
        &[
            "target",
            "virtual_user",
            "judge",
            "analyst",
            "tool_simulator",
        ],
    ),
];

/// Builds a [`Msg`]: `msg!("check-contains-pass", value = v)`. The key is
/// a literal so that the catalogue test can find every key the code uses.
#[macro_export]
macro_rules! msg {
    ($key:literal $(, $name:ident = $value:expr)* $(,)?) => {
        $crate::i18n::Msg::new($key)$(.arg(stringify!($name), $value))*
    };
}

impl Msg {
    pub fn new(key: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            args: BTreeMap::new(),
        }
    }

    /// The name of an enum value in a sentence: `name("end-reason",
    /// "user_gave_up")` is the message `end-reason-user_gave_up`. The
    /// families are listed in [`NAME_FAMILIES`].
    pub fn name(family: &str, value: &str) -> Self {
        // A value the catalogue does not name (a model's own dimension)
        // shows itself.
        Self::new(format!("{family}-{value}")).arg("fallback", value)
    }

    pub fn arg(mut self, name: &str, value: impl Into<Arg>) -> Self {
        self.args.insert(name.to_string(), value.into());
        self
    }

    /// The message in `lang`; in English when `lang`'s catalogue lacks
    /// the key, and the key itself when no catalogue has it.
    pub fn render(&self, lang: Lang) -> String {
        render(&self.key, &self.args, lang)
    }
}

impl Serialize for Msg {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let lang = render_lang();
        let mut s = serializer.serialize_struct("Msg", 2 + usize::from(lang.is_some()))?;
        s.serialize_field("key", &self.key)?;
        s.serialize_field("args", &self.args)?;
        if let Some(lang) = lang {
            s.serialize_field("text", &self.render(lang))?;
        }
        s.end()
    }
}

/// Words shown to a reader: a message of the catalogue, or text somebody
/// wrote (a model, a person; or a sentence stored before messages
/// existed), shown as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Text {
    Msg(Msg),
    Plain(String),
}

impl Text {
    pub fn render(&self, lang: Lang) -> String {
        match self {
            Text::Msg(m) => m.render(lang),
            Text::Plain(s) => s.clone(),
        }
    }

    /// The text as one string that keeps it whole, for a column that
    /// groups by it (a failing check's detail in the tallies): JSON.
    pub fn to_key(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A text read back from [`Text::to_key`]; a column written before
    /// messages existed holds a plain sentence, shown as it is.
    pub fn from_key(s: &str) -> Self {
        serde_json::from_str(s).unwrap_or_else(|_| Text::Plain(s.to_string()))
    }

    /// The message, when this is one.
    pub fn msg(&self) -> Option<&Msg> {
        match self {
            Text::Msg(m) => Some(m),
            Text::Plain(_) => None,
        }
    }
}

/// English, for the log and for tests; a reader gets [`Text::render`] in
/// their language.
impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render(Lang::En))
    }
}

impl Default for Text {
    fn default() -> Self {
        Text::Plain(String::new())
    }
}

impl From<Msg> for Text {
    fn from(m: Msg) -> Self {
        Text::Msg(m)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Self {
        Text::Plain(s)
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Self {
        Text::Plain(s.to_string())
    }
}

macro_rules! int_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg {
            fn from(v: $t) -> Self {
                Arg::Int(v as i64)
            }
        }
    )*};
}
int_arg!(i32, i64, u8, u16, u32, u64, usize);

impl From<f64> for Arg {
    fn from(v: f64) -> Self {
        Arg::Float(v)
    }
}
impl From<String> for Arg {
    fn from(v: String) -> Self {
        Arg::Str(v)
    }
}
impl From<&str> for Arg {
    fn from(v: &str) -> Self {
        Arg::Str(v.to_string())
    }
}
impl From<&String> for Arg {
    fn from(v: &String) -> Self {
        Arg::Str(v.clone())
    }
}
impl From<Vec<String>> for Arg {
    fn from(v: Vec<String>) -> Self {
        Arg::List(v)
    }
}
/// A text as an argument: a message is rendered in the reader's language,
/// words somebody wrote are shown as written.
impl From<Text> for Arg {
    fn from(v: Text) -> Self {
        match v {
            Text::Msg(m) => Arg::Msg(m),
            Text::Plain(s) => Arg::Str(s),
        }
    }
}

/// A share as a percentage with one decimal, or "n/a" in the reader's
/// language when there is none.
pub fn percent_or_na(share: Option<f64>) -> Arg {
    share.map_or_else(|| Arg::Msg(Msg::new("value-na")), percent)
}

impl From<Msg> for Arg {
    fn from(v: Msg) -> Self {
        Arg::Msg(v)
    }
}

/// A share as a percentage with one decimal (`0.914` -> `91.4%`), the same
/// in both languages.
pub fn percent(share: f64) -> Arg {
    Arg::Str(format!("{:.1}%", share * 100.0))
}

tokio::task_local! {
    static RENDER_LANG: Lang;
}

/// Runs `fut` with messages serialized with their `text` in `lang`: how
/// the HTTP server answers in the request's language.
pub async fn scope<F: std::future::Future>(lang: Lang, fut: F) -> F::Output {
    RENDER_LANG.scope(lang, fut).await
}

/// [`scope`] for synchronous work (an export written as JSON).
pub fn sync_scope<R>(lang: Lang, f: impl FnOnce() -> R) -> R {
    RENDER_LANG.sync_scope(lang, f)
}

/// The language messages are serialized in, when inside a [`scope`].
pub fn render_lang() -> Option<Lang> {
    RENDER_LANG.try_with(|l| *l).ok()
}

struct Catalogue {
    bundle: FluentBundle<FluentResource>,
}

fn catalogue(lang: Lang) -> &'static Catalogue {
    static CATALOGUES: LazyLock<[Catalogue; 2]> =
        LazyLock::new(|| [load(Lang::En), load(Lang::Zh)]);
    &CATALOGUES[match lang {
        Lang::En => 0,
        Lang::Zh => 1,
    }]
}

/// The catalogue's files of `lang`, by name, in name order.
pub fn sources(lang: Lang) -> Vec<(&'static str, &'static str)> {
    let mut files: Vec<_> = LOCALES
        .get_dir(lang.as_str())
        .map(|d| {
            d.files()
                .filter(|f| f.path().extension().is_some_and(|e| e == "ftl"))
                .filter_map(|f| Some((f.path().to_str()?, f.contents_utf8()?)))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn load(lang: Lang) -> Catalogue {
    let id: unic_langid::LanguageIdentifier = lang.as_str().parse().expect("a language id");
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // Bidirectional isolation marks would end up in Markdown and terminals.
    bundle.set_use_isolating(false);
    for (name, source) in sources(lang) {
        let resource = FluentResource::try_new(source.to_string()).unwrap_or_else(|(r, errors)| {
            // The catalogue test fails on any such error; a build that
            // ships one still renders every other message.
            tracing_free_warning(name, &errors);
            r
        });
        if let Err(errors) = bundle.add_resource(resource) {
            tracing_free_warning(name, &errors);
        }
    }
    Catalogue { bundle }
}

fn tracing_free_warning(name: &str, errors: &[impl std::fmt::Debug]) {
    eprintln!("catalogue {name}: {errors:?}");
}

/// What a language puts around a quotation, and between the items of a
/// list of them.
fn quote(lang: Lang, s: &str) -> String {
    match lang {
        Lang::En => format!("\"{s}\""),
        Lang::Zh => format!("“{s}”"),
    }
}

fn list_separator(lang: Lang) -> &'static str {
    match lang {
        Lang::En => ", ",
        Lang::Zh => "、",
    }
}

fn fluent_args(args: &BTreeMap<String, Arg>, lang: Lang) -> FluentArgs<'static> {
    let mut out = FluentArgs::new();
    for (name, value) in args {
        let v: FluentValue<'static> = match value {
            Arg::Int(i) => FluentValue::from(*i),
            Arg::Float(f) => FluentValue::from(*f),
            Arg::Str(s) => FluentValue::from(s.clone()),
            Arg::List(items) => FluentValue::from(
                items
                    .iter()
                    .map(|i| quote(lang, i))
                    .collect::<Vec<_>>()
                    .join(list_separator(lang)),
            ),
            Arg::Msg(m) => FluentValue::from(m.render(lang)),
        };
        out.set(name.clone(), v);
    }
    out
}

fn render(key: &str, args: &BTreeMap<String, Arg>, lang: Lang) -> String {
    for lang in [lang, Lang::En] {
        let bundle = &catalogue(lang).bundle;
        if let Some(pattern) = bundle.get_message(key).and_then(|m| m.value()) {
            let fargs = fluent_args(args, lang);
            let mut errors = vec![];
            return bundle
                .format_pattern(pattern, Some(&fargs), &mut errors)
                .into_owned();
        }
    }
    match args.get("fallback") {
        Some(Arg::Str(s)) => s.clone(),
        _ => key.to_string(),
    }
}

/// Whether `lang`'s catalogue has `key`.
pub fn has_key(lang: Lang, key: &str) -> bool {
    catalogue(lang).bundle.has_message(key)
}

/// Renders `key` with `args` in `lang`, with the errors Fluent reports
/// (a variable the message uses and `args` lacks): for the catalogue test.
pub fn render_checked(
    lang: Lang,
    key: &str,
    args: &BTreeMap<String, Arg>,
) -> Result<String, String> {
    let bundle = &catalogue(lang).bundle;
    let pattern = bundle
        .get_message(key)
        .and_then(|m| m.value())
        .ok_or_else(|| format!("{lang}: no message {key}"))?;
    let fargs = fluent_args(args, lang);
    let mut errors = vec![];
    let text = bundle.format_pattern(pattern, Some(&fargs), &mut errors);
    if errors.is_empty() {
        Ok(text.into_owned())
    } else {
        Err(format!("{lang}: {key}: {errors:?}"))
    }
}

/// Every message of `lang`'s catalogue: its key and the variables it uses.
pub fn messages(lang: Lang) -> Result<BTreeMap<String, Vec<String>>, String> {
    use fluent_syntax::ast;
    let mut out = BTreeMap::new();
    for (name, source) in sources(lang) {
        let resource = fluent_syntax::parser::parse(source)
            .map_err(|(_, errors)| format!("{name}: {errors:?}"))?;
        for entry in resource.body {
            if let ast::Entry::Message(m) = entry {
                let mut vars = vec![];
                if let Some(p) = &m.value {
                    pattern_variables(p, &mut vars);
                }
                vars.sort();
                vars.dedup();
                if out.insert(m.id.name.to_string(), vars).is_some() {
                    return Err(format!("{name}: {} is defined twice", m.id.name));
                }
            }
        }
    }
    Ok(out)
}

fn pattern_variables(p: &fluent_syntax::ast::Pattern<&str>, out: &mut Vec<String>) {
    use fluent_syntax::ast::{Expression, InlineExpression, PatternElement};
    fn inline(e: &InlineExpression<&str>, out: &mut Vec<String>) {
        match e {
            InlineExpression::VariableReference { id } => out.push(id.name.to_string()),
            InlineExpression::FunctionReference { arguments, .. } => {
                for a in &arguments.positional {
                    inline(a, out);
                }
            }
            InlineExpression::Placeable { expression } => expr(expression, out),
            _ => {}
        }
    }
    fn expr(e: &Expression<&str>, out: &mut Vec<String>) {
        match e {
            Expression::Inline(i) => inline(i, out),
            Expression::Select { selector, variants } => {
                inline(selector, out);
                for v in variants {
                    pattern_variables(&v.value, out);
                }
            }
        }
    }
    for el in &p.elements {
        if let PatternElement::Placeable { expression } = el {
            expr(expression, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_are_read_from_what_clients_send() {
        assert_eq!(Lang::parse("zh-CN"), Some(Lang::Zh));
        assert_eq!(Lang::parse("zh_CN.UTF-8"), Some(Lang::Zh));
        assert_eq!(Lang::parse("en"), Some(Lang::En));
        assert_eq!(Lang::parse("fr"), None);
        assert_eq!(
            Lang::from_accept_language("fr-FR, en;q=0.5, zh-CN;q=0.9"),
            Some(Lang::Zh),
            "the highest weight the catalogue has wins"
        );
        assert_eq!(
            Lang::from_accept_language("zh;q=0, en"),
            Some(Lang::En),
            "q=0 means not acceptable"
        );
        assert_eq!(Lang::from_accept_language("de"), None);
    }

    #[test]
    fn a_message_serializes_its_text_only_inside_a_scope() {
        let m = Msg::new("no-such-key").arg("n", 2);
        let stored = serde_json::to_value(&m).unwrap();
        assert!(stored.get("text").is_none(), "what is stored has no text");
        let answered = sync_scope(Lang::Zh, || serde_json::to_value(&m).unwrap());
        assert_eq!(
            answered["text"], "no-such-key",
            "an unknown key shows itself"
        );
        let back: Msg = serde_json::from_value(answered).unwrap();
        assert_eq!(back, m, "the text is not read back");
        let legacy: Text = serde_json::from_value(serde_json::json!("as it was")).unwrap();
        assert_eq!(legacy, Text::Plain("as it was".into()));
    }
}
