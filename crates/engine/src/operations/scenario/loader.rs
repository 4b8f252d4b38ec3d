//! Loads and validates scenario packs.
//!
//! A pack is a folder of YAML files; each file holds a `scenarios:` list and
//! optional `defaults:` shared by the scenarios of that file. Every problem
//! is reported with its file and 1-based line, and a file with any problem
//! contributes no scenario: a pack is never half-imported.

use super::{Scenario, ScenarioSummary};
use crate::error::{Context, Error, Result};
use crate::platform::Platform;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

mod parse;
mod yaml_words;

pub use parse::parse_file;
pub(super) use parse::yaml_error;

/// One problem in one file, with its 1-based line.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type, utoipa::ToSchema)]
pub struct LoadError {
    pub file: String,
    pub line: u32,
    pub message: String,
    /// The message in the reader's words, where the catalogue has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub said: Option<crate::i18n::Msg>,
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
                    said: None,
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
                        said: None,
                    });
                    continue;
                }
            };
            match parse_file(&text, &shown, &source_file, &pack) {
                Ok(mut scenarios) => {
                    let mut dup_errors = Vec::new();
                    for s in &mut scenarios {
                        s.shipped = *source == PackSource::Shipped;
                        if let Err(message) = resolve_workspace(s, source) {
                            dup_errors.push(LoadError {
                                file: shown.clone(),
                                line: s.source_line,
                                message,
                                said: None,
                            });
                        }
                    }
                    for s in &scenarios {
                        if let Some(other) = seen.get(&s.id) {
                            dup_errors.push(LoadError {
                                file: shown.clone(),
                                line: s.source_line,
                                message: format!(
                                    "scenario id `{}` is already defined in {other}; ids must be unique across all packs",
                                    s.id
                                ),
                                said: None,
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

/// Finds a scenario's workspace beside its pack file and hashes its files
/// into the scenario's content hash; what is wrong when it cannot.
fn resolve_workspace(
    scenario: &mut Scenario,
    source: &PackSource,
) -> std::result::Result<(), String> {
    let Some(workspace) = &mut scenario.workspace else {
        return Ok(());
    };
    let beside = Path::new(&scenario.source_file)
        .parent()
        .unwrap_or(Path::new(""))
        .join(&workspace.folder);
    let location = match source {
        PackSource::Shipped => beside.to_string_lossy().replace('\\', "/"),
        PackSource::Dir(root) => root.join(&beside).to_string_lossy().into_owned(),
    };
    workspace.location = location;
    let files = super::workspace_source(scenario).ok_or_else(|| {
        format!(
            "scenario `{}`: the workspace folder `{}` does not exist beside the pack file",
            scenario.id,
            scenario
                .workspace
                .as_ref()
                .map_or("", |w| w.folder.as_str())
        )
    })?;
    let hash = files
        .content_hash()
        .map_err(|e| format!("scenario `{}`: cannot read its workspace: {e}", scenario.id))?;
    if let Some(w) = &mut scenario.workspace {
        w.files_hash = hash;
    }
    scenario.content_hash = content_hash(scenario);
    Ok(())
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
        // Where the files are is not what they are: their hash is kept.
        if let Some(w) = obj.get_mut("workspace").and_then(|w| w.as_object_mut()) {
            w.remove("location");
        }
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
        // A read-only database keeps the versions stored before; the
        // catalog serves the packs as read.
        if !self.read_only() {
            self.store
                .upsert_scenarios(&report.scenarios, self.clock.now())
                .await?;
        }
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
