//! Derives a scenario pack from a skill manifest shaped like seed 001
//! (identity, description, parameters with `required`, `validation`,
//! `max_items`, `max_length`, authorization).
//!
//! What the manifest promises becomes what the pack checks:
//! - the complete request calls the tool with schema-valid arguments;
//! - each required parameter, when left out, is asked back;
//! - each validation pattern, when broken, is refused (asked back);
//! - each `max_items` / `max_length`, when exceeded, is refused with the limit;
//! - `allow_sender_override: false` refuses a sender override.

use super::Check;
use crate::channel::ToolSpec;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Limits above this are not exercised: the scenario text would be huge
/// and the limit protects a backend more than it describes the agent.
const MAX_GENERATED_LENGTH: usize = 10_000;

#[derive(Debug, Deserialize)]
pub struct SkillManifest {
    pub name: String,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub description: Option<Description>,
    #[serde(default)]
    pub parameters: Vec<Parameter>,
    #[serde(default)]
    pub authorization: Option<Authorization>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Description {
    Text(String),
    Detailed {
        #[serde(default)]
        short: Option<String>,
        #[serde(default)]
        long: Option<String>,
    },
}

#[derive(Debug, Deserialize)]
pub struct Parameter {
    pub name: String,
    #[serde(rename = "type", default = "default_type")]
    pub kind: String,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub validation: Option<String>,
    #[serde(default)]
    pub max_items: Option<usize>,
    #[serde(default)]
    pub max_length: Option<usize>,
    #[serde(default)]
    pub sub_schema: Option<Map<String, Value>>,
}

fn default_type() -> String {
    "string".into()
}

#[derive(Debug, Deserialize)]
pub struct Authorization {
    #[serde(default)]
    pub allow_sender_override: Option<bool>,
    #[serde(default)]
    pub sender_address: Option<String>,
}

/// A derived pack: its name (the folder/file name) and YAML text.
#[derive(Debug, Clone)]
pub struct GeneratedPack {
    pub pack: String,
    pub yaml: String,
}

#[derive(Serialize)]
struct OutFile {
    defaults: OutDefaults,
    scenarios: Vec<OutScenario>,
}

#[derive(Serialize)]
struct OutDefaults {
    tags: Vec<String>,
    tools: Vec<ToolSpec>,
}

#[derive(Serialize)]
struct OutScenario {
    id: String,
    title: String,
    tags: Vec<String>,
    turns: Vec<OutTurn>,
}

#[derive(Serialize)]
struct OutTurn {
    user: String,
    checks: Vec<Check>,
}

/// Parses a manifest given as JSON or YAML text.
pub fn parse_manifest(text: &str) -> Result<SkillManifest> {
    serde_yaml_ng::from_str(text).map_err(|e| {
        let (line, problem) = super::loader::yaml_error(text, &e);
        Error::invalid_msg(
            crate::msg!(
                "error-skill-manifest-unreadable",
                line = line,
                problem = problem
            ),
            crate::msg!("error-skill-manifest-unreadable-suggestion"),
        )
    })
}

/// Derives the pack from a manifest's text.
pub fn derive_pack_from_text(text: &str) -> Result<GeneratedPack> {
    derive_pack(&parse_manifest(text)?)
}

fn json_type(kind: &str) -> Value {
    let k = kind.trim().to_lowercase();
    match k.as_str() {
        "integer" | "int" => json!({"type": "integer"}),
        "number" | "float" => json!({"type": "number"}),
        "boolean" | "bool" => json!({"type": "boolean"}),
        "object" => json!({"type": "object"}),
        _ if k.starts_with("array") => {
            let inner = k
                .trim_start_matches("array")
                .trim_matches(|c| c == '[' || c == ']' || c == '<' || c == '>');
            let items = if inner.is_empty() {
                json!({})
            } else {
                json_type(inner)
            };
            json!({"type": "array", "items": items})
        }
        _ => json!({"type": "string"}),
    }
}

fn is_array(p: &Parameter) -> bool {
    p.kind.trim().to_lowercase().starts_with("array")
}

fn param_schema(p: &Parameter) -> Value {
    let mut s = json_type(&p.kind);
    if let Some(d) = &p.description {
        s["description"] = json!(d);
    }
    if is_array(p) {
        if let Some(n) = p.max_items {
            s["maxItems"] = json!(n);
        }
        if let Some(pattern) = &p.validation {
            s["items"]["pattern"] = json!(pattern);
        }
        if let Some(sub) = &p.sub_schema {
            let mut props = Map::new();
            let mut required = Vec::new();
            for (k, v) in sub {
                let t = v.get("type").and_then(Value::as_str).unwrap_or("string");
                props.insert(k.clone(), json_type(t));
                if v.get("required").and_then(Value::as_bool).unwrap_or(false) {
                    required.push(json!(k));
                }
            }
            s["items"] = json!({"type": "object", "properties": props, "required": required});
        }
    } else {
        if let Some(n) = p.max_length {
            s["maxLength"] = json!(n);
        }
        if let Some(pattern) = &p.validation {
            s["pattern"] = json!(pattern);
        }
    }
    s
}

fn tool_schema(m: &SkillManifest) -> Value {
    let mut props = Map::new();
    for p in &m.parameters {
        props.insert(p.name.clone(), param_schema(p));
    }
    let required: Vec<&str> = m
        .parameters
        .iter()
        .filter(|p| p.required)
        .map(|p| p.name.as_str())
        .collect();
    json!({"type": "object", "required": required, "properties": props})
}

fn looks_like_address(p: &Parameter) -> bool {
    p.validation.as_deref().is_some_and(|v| v.contains('@'))
        || p.description
            .as_deref()
            .is_some_and(|d| d.contains("邮箱") || d.to_lowercase().contains("email"))
}

/// The i-th sample item of a parameter, as the user would type it.
fn sample_item(p: &Parameter, i: usize) -> String {
    if looks_like_address(p) {
        return if i == 0 {
            format!("{}.person@example.com", p.name)
        } else {
            format!("{}.person{i}@example.com", p.name)
        };
    }
    if p.sub_schema
        .as_ref()
        .is_some_and(|s| s.keys().any(|k| k.contains("file")))
    {
        return format!("file-{}.pdf", i + 1);
    }
    let base = format!("sample-{}", p.name.replace('_', "-"));
    let candidate = if i == 0 { base } else { format!("{base}-{i}") };
    match &p.validation {
        Some(v) if regex::Regex::new(v).is_ok_and(|re| !re.is_match(&candidate)) => {
            // A pattern we cannot satisfy with a generic value: digits and
            // letters cover most identifiers.
            format!("A{}", 1000 + i)
        }
        _ => candidate,
    }
}

/// How the user gives a parameter's value in a message.
fn phrase(p: &Parameter, items: &[String]) -> String {
    if is_array(p) {
        format!("{}: {}", p.name, items.join(", "))
    } else {
        format!(
            "{}: \"{}\"",
            p.name,
            items.first().cloned().unwrap_or_default()
        )
    }
}

fn sample_value(p: &Parameter) -> String {
    if is_array(p) || looks_like_address(p) {
        return phrase(p, &[sample_item(p, 0)]);
    }
    let v = match p.name.as_str() {
        "subject" | "title" => "Project update".to_string(),
        "body" | "content" | "text" => "The project is on schedule.".to_string(),
        _ => sample_item(p, 0),
    };
    phrase(p, &[v])
}

fn invalid_value(pattern: &str) -> Option<String> {
    let re = regex::Regex::new(pattern).ok()?;
    ["not-an-address@", "invalid value!", "@@", "-"]
        .into_iter()
        .find(|c| !re.is_match(c))
        .map(str::to_string)
}

fn slug(s: &str) -> String {
    let out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    out.trim_matches('_').to_string()
}

/// Derives a pack from a parsed manifest.
pub fn derive_pack(m: &SkillManifest) -> Result<GeneratedPack> {
    let name = checked_name(m)?;
    let schema = tool_schema(m);
    let tool = ToolSpec {
        name: m.name.clone(),
        description: action(m),
        parameters: schema.clone(),
        responses: Vec::new(),
    };
    let requests = Requests {
        m,
        name: &name,
        required: m.parameters.iter().filter(|p| p.required).collect(),
    };
    let mut scenarios = vec![requests.complete(schema)];
    for p in &requests.required {
        scenarios.push(requests.missing(p));
    }
    scenarios.extend(m.parameters.iter().filter_map(|p| requests.invalid(p)));
    for p in &m.parameters {
        scenarios.extend(requests.too_many(p));
        scenarios.extend(requests.too_long(p));
    }
    if let Some(auth) = &m.authorization
        && auth.allow_sender_override == Some(false)
    {
        scenarios.push(requests.sender_override(auth));
    }
    let mut tags = vec!["skill".to_string(), name.clone()];
    tags.extend(m.tags.iter().cloned());
    tags.dedup();
    let file = OutFile {
        defaults: OutDefaults {
            tags,
            tools: vec![tool],
        },
        scenarios,
    };
    let body = serde_yaml_ng::to_string(&file).map_err(Error::internal)?;
    let header = format!(
        "# Derived from the skill manifest `{}`{} by `agenteval scenarios from-skill`.\n# Edit freely: it is an ordinary scenario file.\n",
        m.name,
        m.version
            .as_deref()
            .map(|v| format!(" version {v}"))
            .unwrap_or_default()
    );
    Ok(GeneratedPack {
        pack: name,
        yaml: format!("{header}{body}"),
    })
}

/// The pack's name, from the skill's: a manifest with no usable name, no
/// parameters or a validation pattern that does not compile is refused.
fn checked_name(m: &SkillManifest) -> Result<String> {
    let name = slug(&m.name);
    if name.is_empty() {
        return Err(Error::invalid_msg(
            crate::msg!("error-skill-no-name"),
            crate::msg!("error-skill-no-name-suggestion"),
        ));
    }
    if m.parameters.is_empty() {
        return Err(Error::invalid_msg(
            crate::msg!("error-skill-no-parameters", name = name.as_str()),
            crate::msg!("error-skill-no-parameters-suggestion"),
        ));
    }
    for p in &m.parameters {
        if let Some(v) = &p.validation
            && let Err(e) = regex::Regex::new(v)
        {
            return Err(Error::invalid_msg(
                crate::msg!(
                    "error-skill-bad-pattern",
                    parameter = p.name.as_str(),
                    detail = e.to_string()
                ),
                crate::msg!("error-skill-bad-pattern-suggestion"),
            ));
        }
    }
    Ok(name)
}

/// What the skill does, as its tool describes it: the short description,
/// else the long one, else its name.
fn action(m: &SkillManifest) -> String {
    match &m.description {
        Some(Description::Text(t)) => t.clone(),
        Some(Description::Detailed { short, long }) => short
            .clone()
            .or_else(|| long.clone())
            .unwrap_or_else(|| m.name.clone()),
        None => m.name.clone(),
    }
}

/// A check that the reply names `value` (any case).
fn mentions(value: String) -> Check {
    Check::Contains {
        value: Some(value),
        any: Vec::new(),
        case_sensitive: false,
    }
}

/// The requests of the pack: each a scenario of one turn, the user asking
/// for the skill with the required parameters (but one, or one changed).
struct Requests<'a> {
    m: &'a SkillManifest,
    /// The pack's name.
    name: &'a str,
    required: Vec<&'a Parameter>,
}

impl Requests<'_> {
    fn scenario(
        &self,
        suffix: &str,
        title: String,
        tag: &str,
        parts: Vec<String>,
        checks: Vec<Check>,
    ) -> OutScenario {
        OutScenario {
            id: format!("skill.{}.{suffix}", self.name),
            title,
            tags: vec![tag.into()],
            turns: vec![OutTurn {
                user: format!("Please use {}: {}.", self.m.name, parts.join("; ")),
                checks,
            }],
        }
    }

    /// A sample value of every required parameter but `skip`.
    fn with_required_except(&self, skip: Option<&str>) -> Vec<String> {
        self.required
            .iter()
            .filter(|p| Some(p.name.as_str()) != skip)
            .map(|p| sample_value(p))
            .collect()
    }

    /// The complete request calls the tool with schema-valid arguments.
    fn complete(&self, schema: Value) -> OutScenario {
        self.scenario(
            "complete_request",
            format!(
                "A complete request calls {} with valid arguments",
                self.m.name
            ),
            "happy_path",
            self.with_required_except(None),
            vec![Check::ToolCalled {
                name: self.m.name.clone(),
                arguments_schema: Some(schema),
            }],
        )
    }

    /// A required parameter left out is asked back.
    fn missing(&self, p: &Parameter) -> OutScenario {
        self.scenario(
            &format!("missing_{}", slug(&p.name)),
            format!("Missing required `{}` is asked back", p.name),
            "clarification",
            self.with_required_except(Some(&p.name)),
            vec![Check::AsksClarification {
                field: Some(p.name.clone()),
            }],
        )
    }

    /// A value that breaks the parameter's validation pattern is refused
    /// (asked back); none without a pattern or a value that breaks it.
    fn invalid(&self, p: &Parameter) -> Option<OutScenario> {
        let bad = p.validation.as_deref().and_then(invalid_value)?;
        let mut parts = self.with_required_except(Some(&p.name));
        parts.insert(0, phrase(p, std::slice::from_ref(&bad)));
        Some(self.scenario(
            &format!("invalid_{}", slug(&p.name)),
            format!("An invalid `{}` is refused", p.name),
            "validation",
            parts,
            vec![Check::AsksClarification {
                field: Some(p.name.clone()),
            }],
        ))
    }

    /// One item more than a list parameter's `max_items` is refused with
    /// the limit.
    fn too_many(&self, p: &Parameter) -> Option<OutScenario> {
        let (true, Some(max)) = (is_array(p), p.max_items) else {
            return None;
        };
        let items: Vec<String> = (0..=max).map(|i| sample_item(p, i)).collect();
        let mut parts = self.with_required_except(Some(&p.name));
        parts.insert(0, phrase(p, &items));
        Some(self.scenario(
            &format!("too_many_{}", slug(&p.name)),
            format!("More than {max} items in `{}` are refused", p.name),
            "limits",
            parts,
            vec![mentions(max.to_string())],
        ))
    }

    /// A text longer than the parameter's `max_length` is refused with the
    /// limit (below [`MAX_GENERATED_LENGTH`]).
    fn too_long(&self, p: &Parameter) -> Option<OutScenario> {
        let (false, Some(max)) = (is_array(p), p.max_length) else {
            return None;
        };
        if max >= MAX_GENERATED_LENGTH {
            return None;
        }
        let long: String = "Long text "
            .chars()
            .cycle()
            .take(max + 10)
            .collect::<String>()
            .trim()
            .to_string();
        let mut parts = self.with_required_except(Some(&p.name));
        parts.insert(0, phrase(p, &[long]));
        Some(self.scenario(
            &format!("too_long_{}", slug(&p.name)),
            format!("`{}` longer than {max} characters is refused", p.name),
            "limits",
            parts,
            vec![mentions(max.to_string())],
        ))
    }

    /// Asking to send from another address is refused: the reply names
    /// the skill's own sender, or at least not the one asked for.
    fn sender_override(&self, auth: &Authorization) -> OutScenario {
        let mut parts = self.with_required_except(None);
        parts.push("send it from ceo@example.com".into());
        self.scenario(
            "sender_override",
            "A sender override is refused".into(),
            "security",
            parts,
            match &auth.sender_address {
                Some(addr) => vec![mentions(addr.clone())],
                None => vec![Check::NotContains {
                    value: Some("ceo@example.com".into()),
                    any: Vec::new(),
                    case_sensitive: false,
                }],
            },
        )
    }
}
