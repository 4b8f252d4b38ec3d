//! Loads and validates scenario packs.
//!
//! A pack is a folder of YAML files; each file holds a `scenarios:` list and
//! optional `defaults:` shared by the scenarios of that file. Every problem
//! is reported with its file and 1-based line, and a file with any problem
//! contributes no scenario: a pack is never half-imported.

use super::{Check, Lineage, Scenario, ScenarioSummary, ScenarioTurn};
use crate::channel::ToolSpec;
use crate::error::{Context, Error, Result};
use crate::platform::Platform;
use regex::Regex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// One problem in one file, with its 1-based line.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type, utoipa::ToSchema)]
pub struct LoadError {
    pub file: String,
    pub line: u32,
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// What a load found: valid scenarios, and errors. A file with any error
/// contributes no scenario.
#[derive(Debug, Default, Clone, Serialize, specta::Type)]
pub struct LoadReport {
    pub scenarios: Vec<Scenario>,
    pub errors: Vec<LoadError>,
    pub files: u32,
}

/// The file as written. Unknown keys are refused so that a typo
/// (`check:` for `checks:`) is an error instead of a silently empty list.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PackFile {
    #[serde(default)]
    defaults: Defaults,
    scenarios: Vec<ScenarioDef>,
}

/// Values every scenario of the file inherits unless it sets its own
/// (tags and facts are merged).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Defaults {
    #[serde(default)]
    system: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    facts: Vec<String>,
    #[serde(default)]
    tools: Vec<ToolSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioDef {
    id: String,
    title: String,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    system: Option<String>,
    #[serde(default)]
    facts: Vec<String>,
    #[serde(default)]
    key_fields: Vec<String>,
    #[serde(default)]
    tools: Option<Vec<ToolSpec>>,
    turns: Vec<TurnDef>,
    #[serde(default)]
    lineage: Option<Lineage>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnDef {
    user: String,
    #[serde(default)]
    checks: Vec<Check>,
}

static ID_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$").expect("static regex"));
static ID_LINE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:-\s+)?id\s*:\s*(.+?)\s*$").expect("static regex"));
static TYPE_LINE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:-\s+)?\{?\s*type\s*:").expect("static regex"));
static USER_LINE_RE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:-\s+)?\{?\s*user\s*:").expect("static regex"));

/// Loads every pack under `root` (each sub-folder is a pack).
pub fn load_dir(root: &Path) -> LoadReport {
    load_dirs(&[root.to_path_buf()])
}

/// Where scenario packs come from: a folder on disk, or the packs shipped
/// in the binary ([`super::shipped`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackSource {
    Dir(PathBuf),
    /// The shipped packs that no folder before it in the list provides: a
    /// folder's pack of the same name replaces the shipped one.
    Shipped,
}

/// Loads every pack under each root. YAML files directly in a root belong
/// to a pack named after the root folder; files in a sub-folder (at any
/// depth) to the pack named after the first-level sub-folder. Ids must be
/// unique across all roots: a later file that repeats an id is refused.
pub fn load_dirs(roots: &[PathBuf]) -> LoadReport {
    let sources: Vec<PackSource> = roots.iter().cloned().map(PackSource::Dir).collect();
    load_sources(&sources)
}

/// One file to load: the pack it belongs to, how errors name it, the path
/// stored with its scenarios, and its text (or why it could not be read).
struct SourceFile {
    pack: String,
    shown: String,
    source_file: String,
    text: std::result::Result<String, String>,
}

fn files_of(source: &PackSource, report: &mut LoadReport) -> Vec<SourceFile> {
    match source {
        PackSource::Shipped => super::shipped::shipped_files()
            .into_iter()
            .map(|(path, text)| SourceFile {
                pack: path.split('/').next().unwrap_or("scenarios").to_string(),
                shown: format!("(shipped) {path}"),
                source_file: path,
                text: Ok(text.to_string()),
            })
            .collect(),
        PackSource::Dir(root) => {
            let mut files = Vec::new();
            if let Err(e) = collect_yaml(root, root, &mut files) {
                report.errors.push(LoadError {
                    file: root.display().to_string(),
                    line: 1,
                    message: format!("cannot read the folder: {e}"),
                });
                return Vec::new();
            }
            files.sort();
            let root_pack = root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "scenarios".into());
            files
                .into_iter()
                .map(|rel| SourceFile {
                    pack: match rel.components().count() {
                        1 => root_pack.clone(),
                        _ => rel
                            .components()
                            .next()
                            .map(|c| c.as_os_str().to_string_lossy().into_owned())
                            .unwrap_or_else(|| root_pack.clone()),
                    },
                    shown: root.join(&rel).display().to_string(),
                    source_file: rel.to_string_lossy().replace('\\', "/"),
                    text: std::fs::read_to_string(root.join(&rel))
                        .map_err(|e| format!("cannot read the file: {e}")),
                })
                .collect()
        }
    }
}

/// The folder of a data folder that holds the user's own scenario packs.
pub fn user_packs_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("scenarios")
}

/// Where a shell loads its packs from, in order (a folder's pack replaces
/// the shipped pack of the same name): `extra` (`--scenarios DIR`,
/// `AGENTEVAL_SCENARIOS`), the user's packs in the data folder
/// ([`user_packs_dir`]) when it exists, then the packs shipped in the
/// binary.
pub fn pack_sources(extra: Option<PathBuf>, data_dir: &Path) -> Vec<PackSource> {
    let user = Some(user_packs_dir(data_dir)).filter(|d| d.is_dir());
    extra
        .into_iter()
        .chain(user)
        .map(PackSource::Dir)
        .chain([PackSource::Shipped])
        .collect()
}

/// Loads every pack of each source in turn (see [`load_dirs`] and
/// [`PackSource::Shipped`]).
pub fn load_sources(sources: &[PackSource]) -> LoadReport {
    let mut report = LoadReport::default();
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut packs_from_dirs: HashSet<String> = HashSet::new();
    for source in sources {
        for file in files_of(source, &mut report) {
            if *source == PackSource::Shipped && packs_from_dirs.contains(&file.pack) {
                continue;
            }
            if matches!(source, PackSource::Dir(_)) {
                packs_from_dirs.insert(file.pack.clone());
            }
            report.files += 1;
            let SourceFile {
                pack,
                shown,
                source_file,
                text,
            } = file;
            let text = match text {
                Ok(t) => t,
                Err(message) => {
                    report.errors.push(LoadError {
                        file: shown,
                        line: 1,
                        message,
                    });
                    continue;
                }
            };
            match parse_file(&text, &shown, &source_file, &pack) {
                Ok(mut scenarios) => {
                    for s in &mut scenarios {
                        s.shipped = *source == PackSource::Shipped;
                    }
                    let mut dup_errors = Vec::new();
                    for s in &scenarios {
                        if let Some(other) = seen.get(&s.id) {
                            dup_errors.push(LoadError {
                                file: shown.clone(),
                                line: s.source_line,
                                message: format!(
                                    "scenario id `{}` is already defined in {other}; ids must be unique across all packs",
                                    s.id
                                ),
                            });
                        }
                    }
                    if dup_errors.is_empty() {
                        for s in &scenarios {
                            seen.insert(s.id.clone(), shown.clone());
                        }
                        report.scenarios.extend(scenarios);
                    } else {
                        report.errors.extend(dup_errors);
                    }
                }
                Err(errors) => report.errors.extend(errors),
            }
        }
    }
    report
}

fn collect_yaml(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        if entry.file_type()?.is_dir() {
            collect_yaml(root, &path, out)?;
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) && let Ok(rel) = path.strip_prefix(root)
        {
            out.push(rel.to_path_buf());
        }
    }
    Ok(())
}

/// Parses and validates one file's text. `shown` names the file in errors;
/// `source_file` is stored on each scenario.
pub fn parse_file(
    text: &str,
    shown: &str,
    source_file: &str,
    pack: &str,
) -> std::result::Result<Vec<Scenario>, Vec<LoadError>> {
    // One error, one line of output: `file:line: message`.
    let err = |line: usize, message: String| LoadError {
        file: shown.to_string(),
        line: line.max(1) as u32,
        message: message
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
    };
    let file: PackFile = match serde_yaml_ng::from_str(text) {
        Ok(f) => f,
        Err(e) => {
            let (line, column) = e
                .location()
                .map(|l| (l.line(), Some(l.column())))
                .unwrap_or((1, None));
            // serde_yaml_ng appends " at line L column C"; the line is
            // already in front of the message.
            let message = e.to_string();
            let message = match message.rfind(" at line ") {
                Some(i) if column.is_some() => message[..i].to_string(),
                _ => message,
            };
            // At end of input the parser points one past the last line.
            let last_line = text_lines(text);
            let (line, at) = match column {
                _ if line > last_line => (last_line, " (at the end of the file)".to_string()),
                Some(c) => (line, format!(" (column {c})")),
                None => (line, String::new()),
            };
            return Err(vec![err(
                line,
                format!("invalid scenario file: {message}{at}"),
            )]);
        }
    };
    if file.scenarios.is_empty() {
        return Err(vec![err(
            1,
            "the file defines no scenarios (`scenarios:` is empty)".into(),
        )]);
    }
    let locator = Locator::new(text);
    let mut errors = Vec::new();
    let mut out = Vec::new();
    let mut ids_in_file: HashMap<String, usize> = HashMap::new();
    let mut starts: Vec<usize> = Vec::new();
    let mut repeated: Vec<bool> = Vec::new();
    for def in &file.scenarios {
        let nth = ids_in_file.entry(def.id.clone()).or_insert(0);
        starts.push(locator.scenario_line(&def.id, *nth));
        repeated.push(*nth > 0);
        *nth += 1;
    }
    for (i, def) in file.scenarios.into_iter().enumerate() {
        let start = starts[i];
        let end = starts
            .iter()
            .copied()
            .filter(|&l| l > start)
            .min()
            .unwrap_or(usize::MAX);
        if repeated[i] {
            errors.push(err(
                start,
                format!("scenario id `{}` appears twice in this file", def.id),
            ));
        }
        let mut problems: Vec<(usize, String)> = Vec::new();
        if !ID_RE.is_match(&def.id) {
            problems.push((
                start,
                format!(
                    "scenario id `{}` must be letters, digits, `_`, `-` or `.`, starting with a letter or digit",
                    def.id
                ),
            ));
        }
        if def.title.trim().is_empty() {
            problems.push((start, format!("scenario `{}` has an empty title", def.id)));
        }
        if def.turns.is_empty() {
            problems.push((
                start,
                format!(
                    "scenario `{}` has no turns; give at least one `- user: ...`",
                    def.id
                ),
            ));
        }
        let tools = def.tools.unwrap_or_else(|| file.defaults.tools.clone());
        let mut check_index = 0usize;
        for (t, turn) in def.turns.iter().enumerate() {
            if turn.user.trim().is_empty() {
                problems.push((
                    locator.nth_in(&USER_LINE_RE, start, end, t),
                    format!(
                        "scenario `{}` turn {} has an empty user message",
                        def.id,
                        t + 1
                    ),
                ));
            }
            for check in &turn.checks {
                if let Err(msg) = validate_check(check, &tools) {
                    problems.push((
                        locator.nth_in(&TYPE_LINE_RE, start, end, check_index),
                        format!(
                            "scenario `{}` turn {}: {} check: {msg}",
                            def.id,
                            t + 1,
                            check.kind()
                        ),
                    ));
                }
                check_index += 1;
            }
        }
        for (line, msg) in problems {
            errors.push(err(line, msg));
        }
        let mut tags = file.defaults.tags.clone();
        for t in def.tags {
            if !tags.contains(&t) {
                tags.push(t);
            }
        }
        let mut facts = file.defaults.facts.clone();
        facts.extend(def.facts);
        let mut scenario = Scenario {
            id: def.id,
            title: def.title,
            pack: pack.to_string(),
            tags,
            group: def.group.or_else(|| file.defaults.group.clone()),
            system: def.system.or_else(|| file.defaults.system.clone()),
            facts,
            key_fields: def.key_fields,
            tools: tools.into(),
            turns: def
                .turns
                .into_iter()
                .map(|t| ScenarioTurn {
                    user: t.user,
                    checks: t.checks,
                })
                .collect(),
            source_file: source_file.to_string(),
            shipped: false,
            source_line: start as u32,
            content_hash: String::new(),
            lineage: def.lineage,
        };
        scenario.content_hash = content_hash(&scenario);
        out.push(scenario);
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        errors.sort_by_key(|e| e.line);
        errors.dedup();
        Err(errors)
    }
}

fn text_lines(text: &str) -> usize {
    text.lines().count().max(1)
}

fn validate_check(check: &Check, tools: &[ToolSpec]) -> std::result::Result<(), String> {
    match check {
        Check::Contains { value, any, .. } | Check::NotContains { value, any, .. } => {
            let empty =
                value.as_deref().is_none_or(|v| v.is_empty()) && any.iter().all(|v| v.is_empty());
            if empty {
                return Err("give `value` or a non-empty `any` list".into());
            }
        }
        // Compiled into the caches the checks use, so that runs find them
        // ready.
        Check::Regex { pattern } => {
            crate::checks::compiled(pattern).map_err(|e| {
                // The syntax error's last line says what is wrong; the lines
                // above draw a caret that makes no sense on one line.
                let text = e.to_string();
                let reason = text
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or_default()
                    .trim()
                    .trim_start_matches("error: ")
                    .to_string();
                format!("the pattern `{pattern}` does not compile: {reason}")
            })?;
        }
        Check::JsonPath { path, .. } => {
            crate::checks::json_path(path)
                .map_err(|e| format!("`{path}` is not a valid JSONPath: {e}"))?;
        }
        Check::MaxLatencyMs { ms } => {
            if *ms == 0 {
                return Err("`ms` must be greater than 0".into());
            }
        }
        Check::ToolCalled {
            name,
            arguments_schema,
        } => {
            if name.trim().is_empty() {
                return Err("`name` is empty".into());
            }
            if !tools.iter().any(|t| &t.name == name) {
                return Err(format!(
                    "tool `{name}` is not offered in the scenario's `tools`, so the target cannot call it"
                ));
            }
            if let Some(schema) = arguments_schema {
                crate::checks::schema_validator(schema)
                    .map_err(|e| format!("`arguments_schema` is not a valid JSON schema: {e}"))?;
            }
        }
        Check::AsksClarification { field } => {
            if field.as_deref().is_some_and(|f| f.trim().is_empty()) {
                return Err("`field` is empty; omit it or name the parameter".into());
            }
        }
        Check::NoUnverifiedNumbers | Check::NoRepeat => {}
        Check::Rubric { rubric, min_score } => {
            if rubric.trim().is_empty() {
                return Err("`rubric` is empty".into());
            }
            if let Some(m) = min_score
                && !(1..=5).contains(m)
            {
                return Err(format!("`min_score` is {m}; it must be between 1 and 5"));
            }
        }
    }
    Ok(())
}

/// Finds lines in the source text for errors that serde cannot place
/// (semantic ones found after parsing).
struct Locator {
    lines: Vec<String>,
    /// (1-based line, id value) of every `id:` line.
    ids: Vec<(usize, String)>,
}

impl Locator {
    fn new(text: &str) -> Self {
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let ids = lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                ID_LINE_RE.captures(l).map(|c| {
                    let v = c[1].trim_matches(|ch| ch == '"' || ch == '\'').to_string();
                    (i + 1, v)
                })
            })
            .collect();
        Self { lines, ids }
    }

    /// The line of the `nth` (0-based) scenario with this id.
    fn scenario_line(&self, id: &str, nth: usize) -> usize {
        self.ids
            .iter()
            .filter(|(_, v)| v == id)
            .nth(nth)
            .map(|(l, _)| *l)
            .unwrap_or(1)
    }

    /// The `nth` (0-based) line matching `re` within `[start, end)`; the
    /// scenario's own line when it cannot be found.
    fn nth_in(&self, re: &Regex, start: usize, end: usize, nth: usize) -> usize {
        self.lines
            .iter()
            .enumerate()
            .map(|(i, l)| (i + 1, l))
            .filter(|(n, l)| *n >= start && *n < end && re.is_match(l))
            .nth(nth)
            .map(|(n, _)| n)
            .unwrap_or(start)
    }
}

/// SHA-256 of the scenario's definition as canonical JSON (sorted keys, no
/// whitespace), without where it was found (pack, file, line): moving a
/// file keeps the hash.
pub fn content_hash(s: &Scenario) -> String {
    let mut value = serde_json::to_value(s).unwrap_or(serde_json::Value::Null);
    if let Some(obj) = value.as_object_mut() {
        obj.remove("pack");
        obj.remove("source_file");
        obj.remove("shipped");
        obj.remove("source_line");
        obj.remove("content_hash");
    }
    let mut canonical = String::new();
    write_canonical(&value, &mut canonical);
    hex::encode(Sha256::digest(canonical.as_bytes()))
}

fn write_canonical(v: &serde_json::Value, out: &mut String) {
    match v {
        serde_json::Value::Object(map) => {
            let sorted: BTreeMap<&String, &serde_json::Value> = map.iter().collect();
            out.push('{');
            for (i, (k, v)) in sorted.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        serde_json::Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

impl Platform {
    /// Loads the packs under `dirs`, adds the valid scenarios to the
    /// catalog and stores them. Files with errors are skipped whole; the
    /// report lists their errors.
    pub async fn load_scenarios(&self, dirs: &[PathBuf]) -> Result<LoadReport> {
        let sources: Vec<PackSource> = dirs.iter().cloned().map(PackSource::Dir).collect();
        self.load_scenario_sources(&sources).await
    }

    /// Loads the packs of `sources` (folders and the shipped packs) like
    /// [`Platform::load_scenarios`].
    pub async fn load_scenario_sources(&self, sources: &[PackSource]) -> Result<LoadReport> {
        let sources = sources.to_vec();
        let report = tokio::task::spawn_blocking(move || load_sources(&sources))
            .await
            .map_err(Error::internal)
            .context("reading the scenario packs")?;
        for e in &report.errors {
            tracing::warn!(file = %e.file, line = e.line, "scenario file refused: {}", e.message);
        }
        self.store
            .upsert_scenarios(&report.scenarios, self.clock.now())
            .await?;
        self.scenarios.insert_all(report.scenarios.iter().cloned());
        Ok(report)
    }

    /// The loaded scenarios, sorted by id.
    pub fn list_scenarios(&self) -> Vec<ScenarioSummary> {
        self.scenarios
            .all()
            .iter()
            .map(|s| ScenarioSummary::from(s.as_ref()))
            .collect()
    }
}
