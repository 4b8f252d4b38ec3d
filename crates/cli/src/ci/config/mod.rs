//! `agenteval.yaml`: a campaign described in the user's repository, for
//! `agenteval run`. Every problem is reported as `file:line: message`, as
//! scenario packs are; keys are never written in the file, only the names
//! of the environment variables that hold them.

use agenteval_engine::campaign::{Goal, MAX_ROUNDS, MAX_SESSIONS, MAX_TURNS, Persona, SeedSet};
use agenteval_engine::target::TargetSettings;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod lines;
mod target;

pub use lines::*;
use target::TargetDef;

/// The default config file name.
pub const CONFIG_FILE: &str = "agenteval.yaml";

/// One problem in the config, with its 1-based line.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// The file as written. Unknown keys are refused so that a typo is an
/// error, not a silently ignored setting.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDef {
    #[serde(default)]
    name: Option<String>,
    target: TargetDef,
    scenarios: ScenariosDef,
    #[serde(default)]
    plan: PlanDef,
    #[serde(default)]
    seeds: Option<serde_yaml_ng::Value>,
    #[serde(default)]
    exploration: Option<ExplorationDef>,
    #[serde(default)]
    gate: GateDef,
    #[serde(default)]
    out_dir: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenariosDef {
    #[serde(default)]
    paths: Vec<String>,
    /// Packs shipped in the binary, by name (`agenteval scenarios list`
    /// names them): no folder needed.
    #[serde(default)]
    packs: Vec<String>,
    #[serde(default)]
    ids: Vec<String>,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanDef {
    #[serde(default)]
    repeat: Option<u32>,
    #[serde(default)]
    rounds: BTreeMap<String, u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayedBy {
    /// The built-in persona engine (offline).
    Builtin,
    /// The configured virtual-user model (`AGENTEVAL_USER_*`).
    Model,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExplorationDef {
    sessions: u32,
    #[serde(default)]
    max_turns: Option<u32>,
    #[serde(default)]
    played_by: Option<PlayedBy>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct GateDef {
    #[serde(default)]
    min_pass_rate: Option<f64>,
    #[serde(default)]
    baseline: Option<String>,
    #[serde(default)]
    fail_on_flaky: Option<bool>,
}

/// Default runs of every scenario.
pub const DEFAULT_REPEAT: u32 = 3;
/// Default turns of an exploration session.
pub const DEFAULT_SESSION_TURNS: u32 = 8;

/// A validated config, paths resolved against the config's folder.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file as shown in messages.
    pub file: String,
    pub text: String,
    pub name: Option<String>,
    pub target: TargetSettings,
    pub scenario_paths: Vec<PathBuf>,
    /// Shipped packs taken by name.
    pub shipped_packs: Vec<String>,
    pub scenario_ids: Vec<String>,
    pub scenario_tags: Vec<String>,
    pub repeat: u32,
    pub rounds: BTreeMap<String, u32>,
    pub seeds: Option<SeedSet>,
    pub exploration: Option<Exploration>,
    pub min_pass_rate: Option<f64>,
    pub baseline: Option<String>,
    pub fail_on_flaky: bool,
    pub out_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy)]
pub struct Exploration {
    pub sessions: u32,
    pub max_turns: u32,
    pub played_by: PlayedBy,
}

impl Config {
    /// An error at the line of `path` (a key path such as
    /// `["gate", "min_pass_rate"]`), or of its nearest parent found.
    pub fn error_at(&self, path: &[&str], message: impl Into<String>) -> ConfigError {
        ConfigError {
            file: self.file.clone(),
            line: line_of(&self.text, path),
            message: message.into(),
        }
    }

    /// An error at the line of the `n`th (0-based) list item under `path`.
    pub fn error_at_item(
        &self,
        path: &[&str],
        n: usize,
        message: impl Into<String>,
    ) -> ConfigError {
        ConfigError {
            file: self.file.clone(),
            line: list_item_line(&self.text, path, n),
            message: message.into(),
        }
    }
}

/// Reads and validates the config at `path`; `env` looks up environment
/// variables (keys named by `api_key_env` and `value_env` must be set).
pub fn load(path: &Path, env: &dyn Fn(&str) -> Option<String>) -> Result<Config, Vec<ConfigError>> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        vec![ConfigError {
            file: shown.clone(),
            line: 1,
            message: if e.kind() == std::io::ErrorKind::NotFound {
                "no such file: write one with `agenteval init`, or pass --config FILE".into()
            } else {
                format!("cannot read the file: {e}")
            },
        }]
    })?;
    let base = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    parse(&text, &shown, &base, env)
}

/// Parses and validates config text; relative paths are resolved against
/// `base`.
pub fn parse(
    text: &str,
    shown: &str,
    base: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Config, Vec<ConfigError>> {
    let def: FileDef = serde_yaml_ng::from_str(text).map_err(|e| {
        let (line, message) = yaml_error(text, &e);
        vec![ConfigError {
            file: shown.to_string(),
            line: line.max(1),
            message: format!("invalid config: {message}"),
        }]
    })?;
    let mut checker = Checker {
        text,
        shown,
        base,
        env,
        errors: Vec::new(),
    };
    let target = checker.target(&def.target, def.name.as_ref());
    let scenario_paths = checker.scenario_paths(&def.scenarios);
    checker.shipped_packs(&def.scenarios.packs);
    checker.plan(&def.plan);
    let seeds = checker.seeds(def.seeds.as_ref());
    let exploration = checker.exploration(&def, seeds.as_ref());
    checker.gate(&def.gate);
    let mut errors = checker.errors;
    if !errors.is_empty() {
        errors.sort_by_key(|e| e.line);
        return Err(errors);
    }
    Ok(Config {
        file: shown.to_string(),
        text: text.to_string(),
        name: def.name,
        target,
        scenario_paths,
        shipped_packs: def.scenarios.packs,
        scenario_ids: def.scenarios.ids,
        scenario_tags: def.scenarios.tags,
        repeat: def.plan.repeat.unwrap_or(DEFAULT_REPEAT),
        rounds: def.plan.rounds,
        seeds,
        exploration,
        min_pass_rate: def.gate.min_pass_rate,
        baseline: def.gate.baseline.map(|b| {
            // A file path is relative to the config; a campaign id is kept.
            if uuid::Uuid::parse_str(b.trim()).is_ok() {
                b
            } else {
                resolve(base, &b).display().to_string()
            }
        }),
        fail_on_flaky: def.gate.fail_on_flaky.unwrap_or(false),
        out_dir: def.out_dir.map(|d| resolve(base, &d)),
    })
}

/// The line and message of a config that is not one as YAML reads it:
/// where the parser stopped, or the end of the file.
fn yaml_error(text: &str, e: &serde_yaml_ng::Error) -> (usize, String) {
    let line = e.location().map_or(1, |l| l.line());
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(i) if e.location().is_some() => message[..i].to_string(),
        _ => message,
    };
    let last = text.lines().count().max(1);
    if line > last {
        (last, format!("{message} (at the end of the file)"))
    } else {
        (line, message)
    }
}

/// A path of the config, relative to its folder `base` unless absolute.
fn resolve(base: &Path, p: &str) -> PathBuf {
    let p = PathBuf::from(p);
    if p.is_absolute() { p } else { base.join(p) }
}

/// The checks of one config text, with every problem found so far.
struct Checker<'a> {
    text: &'a str,
    /// The file as shown in messages.
    shown: &'a str,
    /// The config's folder.
    base: &'a Path,
    env: &'a dyn Fn(&str) -> Option<String>,
    errors: Vec<ConfigError>,
}

impl Checker<'_> {
    /// A problem at `line` (the first when unknown).
    fn error(&mut self, line: usize, message: String) {
        self.errors.push(ConfigError {
            file: self.shown.to_string(),
            line: line.max(1),
            message,
        });
    }

    /// Each scenario folder, which must exist (at least one folder or
    /// shipped pack).
    fn scenario_paths(&mut self, scenarios: &ScenariosDef) -> Vec<PathBuf> {
        if scenarios.paths.is_empty() && scenarios.packs.is_empty() {
            self.error(
                line_of(self.text, &["scenarios"]),
                "`scenarios` names no pack: give at least one folder of scenario packs (`paths`) \
                 or pack shipped with agenteval (`packs`)"
                    .into(),
            );
        }
        let mut scenario_paths = Vec::new();
        for (i, p) in scenarios.paths.iter().enumerate() {
            let full = resolve(self.base, p);
            if full.is_dir() {
                scenario_paths.push(full);
            } else {
                self.error(
                list_item_line(self.text, &["scenarios", "paths"], i),
                format!(
                    "scenario folder {p:?} does not exist (paths are relative to the config file)"
                ),
            );
            }
        }
        scenario_paths
    }

    /// Each shipped pack named, which this binary must ship.
    fn shipped_packs(&mut self, packs: &[String]) {
        let shipped = agenteval_engine::scenario::shipped::shipped_packs();
        for (i, p) in packs.iter().enumerate() {
            if !shipped.contains(p) {
                self.error(
                    list_item_line(self.text, &["scenarios", "packs"], i),
                    format!(
                        "{p:?} is not a pack shipped with agenteval (shipped: {})",
                        shipped.join(", ")
                    ),
                );
            }
        }
    }

    /// The plan's rounds: from 1 to [`MAX_ROUNDS`].
    fn plan(&mut self, plan: &PlanDef) {
        if let Some(k) = plan.repeat
            && !(1..=MAX_ROUNDS).contains(&k)
        {
            self.error(
                line_of(self.text, &["plan", "repeat"]),
                format!("`repeat` must be from 1 to {MAX_ROUNDS}, got {k}"),
            );
        }
        for (id, n) in &plan.rounds {
            if !(1..=MAX_ROUNDS).contains(n) {
                self.error(
                    line_of(self.text, &["plan", "rounds", id]),
                    format!("rounds of {id} must be from 1 to {MAX_ROUNDS}, got {n}"),
                );
            }
        }
    }

    /// The seed set, inline or from its file, when given.
    fn seeds(&mut self, seeds: Option<&serde_yaml_ng::Value>) -> Option<SeedSet> {
        match seed_set(seeds?, &|p| resolve(self.base, p)) {
            Ok(s) => Some(s),
            Err(m) => {
                self.error(line_of(self.text, &["seeds"]), m);
                None
            }
        }
    }

    /// The exploration, when asked for: its sessions and turns in range, a
    /// seed set with personas and goals, the virtual-user model when it
    /// plays the user.
    fn exploration(&mut self, def: &FileDef, seeds: Option<&SeedSet>) -> Option<Exploration> {
        let exploration = def.exploration.as_ref().map(|e| Exploration {
            sessions: e.sessions,
            max_turns: e.max_turns.unwrap_or(DEFAULT_SESSION_TURNS),
            played_by: e.played_by.unwrap_or(PlayedBy::Builtin),
        });
        if let Some(e) = &exploration {
            if !(1..=MAX_SESSIONS).contains(&e.sessions) {
                self.error(
                    line_of(self.text, &["exploration", "sessions"]),
                    format!(
                        "`sessions` must be from 1 to {MAX_SESSIONS}, got {}",
                        e.sessions
                    ),
                );
            }
            if !(1..=MAX_TURNS).contains(&e.max_turns) {
                self.error(
                    line_of(self.text, &["exploration", "max_turns"]),
                    format!(
                        "`max_turns` must be from 1 to {MAX_TURNS}, got {}",
                        e.max_turns
                    ),
                );
            }
            if def.seeds.is_none() {
                self.error(
                line_of(self.text, &["exploration"]),
                "exploration needs a seed set: add `seeds:` (personas and goals, inline or a file)"
                    .into(),
            );
            } else if seeds.is_some_and(|s| s.personas.is_empty() || s.goals.is_empty()) {
                self.error(
                    line_of(self.text, &["seeds"]),
                    "exploration needs at least one persona and one goal in the seed set".into(),
                );
            }
            if e.played_by == PlayedBy::Model
                && ((self.env)("AGENTEVAL_USER_BASE_URL").is_none()
                    || (self.env)("AGENTEVAL_USER_MODEL").is_none())
            {
                self.error(
                line_of(self.text, &["exploration", "played_by"]),
                "`played_by: model` needs the virtual-user model: set AGENTEVAL_USER_BASE_URL and AGENTEVAL_USER_MODEL (and AGENTEVAL_USER_API_KEY if it needs a key), or use `played_by: builtin`".into(),
            );
            }
        }
        exploration
    }

    /// The gate's pass rate: from 0 to 1.
    fn gate(&mut self, gate: &GateDef) {
        if let Some(r) = gate.min_pass_rate
            && !(0.0..=1.0).contains(&r)
        {
            self.error(
                line_of(self.text, &["gate", "min_pass_rate"]),
                format!("`min_pass_rate` must be from 0 to 1 (0.9 = 90%), got {r}"),
            );
        }
    }
}

/// The seed set, inline (`personas:` and `goals:`) or in a JSON or YAML
/// file named by a string.
fn seed_set(
    v: &serde_yaml_ng::Value,
    resolve: &dyn Fn(&str) -> PathBuf,
) -> Result<SeedSet, String> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inline {
        #[serde(default)]
        personas: Vec<Persona>,
        #[serde(default)]
        goals: Vec<Goal>,
    }
    let inline: Inline = match v {
        serde_yaml_ng::Value::String(file) => {
            let path = resolve(file);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read the seed set {}: {e}", path.display()))?;
            serde_yaml_ng::from_str(&text)
                .map_err(|e| format!("the seed set {} is not valid: {e}", path.display()))?
        }
        other => serde_yaml_ng::from_value(other.clone())
            .map_err(|e| format!("invalid seed set: {e}"))?,
    };
    let set = SeedSet {
        personas: inline.personas,
        goals: inline.goals,
    };
    set.validate()
        .map_err(|e| format!("{} ({})", e.body.message, e.body.suggestion))?;
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agenteval_engine::target::ChannelConfig;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    const GOOD: &str = "\
# a comment
target:
  kind: openai
  base_url: http://127.0.0.1:8788/v1
  model: agenteval-demo
scenarios:
  paths: [.]
plan:
  repeat: 2
gate:
  min_pass_rate: 0.8
";

    #[test]
    fn a_valid_config_parses_with_defaults() {
        let c = parse(GOOD, "agenteval.yaml", Path::new("."), &no_env).expect("valid");
        assert_eq!(c.repeat, 2);
        assert_eq!(c.min_pass_rate, Some(0.8));
        assert!(!c.fail_on_flaky);
        assert!(matches!(c.target.channel, ChannelConfig::Openai { .. }));
    }

    #[test]
    fn errors_name_the_line_of_the_field() {
        let text = GOOD.replace("min_pass_rate: 0.8", "min_pass_rate: 1.5");
        let e = parse(&text, "agenteval.yaml", Path::new("."), &no_env).unwrap_err();
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(e[0].line, 11, "{}", e[0]);
        assert!(
            e[0].to_string().starts_with("agenteval.yaml:11: "),
            "{}",
            e[0]
        );
        let typo = GOOD.replace("  repeat: 2", "  repeats: 2");
        let e = parse(&typo, "agenteval.yaml", Path::new("."), &no_env).unwrap_err();
        assert_eq!(e[0].line, 9, "serde places unknown keys: {}", e[0]);
        assert!(e[0].message.contains("repeats"), "{}", e[0]);
    }

    #[test]
    fn keys_come_from_the_environment_only() {
        let text = GOOD.replace(
            "  model: agenteval-demo\n",
            "  model: agenteval-demo\n  api_key: sk-secret\n",
        );
        let e = parse(&text, "c.yaml", Path::new("."), &no_env).unwrap_err();
        assert!(e[0].message.contains("api_key_env"), "{}", e[0]);
        assert_eq!(e[0].line, 6);
        let text = GOOD.replace(
            "  model: agenteval-demo\n",
            "  model: agenteval-demo\n  api_key_env: MY_KEY\n",
        );
        let e = parse(&text, "c.yaml", Path::new("."), &no_env).unwrap_err();
        assert!(e[0].message.contains("MY_KEY is not set"), "{}", e[0]);
        let env = |k: &str| (k == "MY_KEY").then(|| "x".to_string());
        assert!(parse(&text, "c.yaml", Path::new("."), &env).is_ok());
    }

    #[test]
    fn line_of_finds_nested_keys_inside_their_parent() {
        let text = "a:\n  x: 1\nb:\n  # c\n  x: 2\n  y:\n    - z: 3\n";
        assert_eq!(line_of(text, &["b", "x"]), 5);
        assert_eq!(line_of(text, &["a", "x"]), 2);
        assert_eq!(line_of(text, &["b", "y", "z"]), 7);
        assert_eq!(line_of(text, &["b", "missing"]), 3, "the parent's line");
        assert_eq!(line_of(text, &["nothing"]), 1);
    }
}
