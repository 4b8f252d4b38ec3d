//! Seed 002's nine office tools, played for real over a run's private copy
//! of a workspace (docs/OFFICE_TOOLS.md is the contract): a sum is the sum
//! of the sheet's cells, a document is a file the next call can read.
//!
//! Plain file work: no database, no network. Every failure, of IO, of a
//! parser or of the arguments, is an answer with seed 002's error shape
//! in the workspace's language, never a panic.

mod args;
mod chart;
mod docs;
mod markdown;
mod paths;
mod pdf;
mod query;
mod read;
mod sheet;
mod specs;
mod sweep;
mod words;

pub use paths::{MAX_FILE_BYTES, WorkspaceSource};
pub use query::ROWS_RETURNED;
pub use sweep::sweep_left_behind;

use crate::channel::ToolSpec;
use crate::domain::steps::{DocumentText, StepAnswer};
use crate::i18n::Lang;
use docs::{ChartRef, Ctx, Docs};
use serde_json::{Value, json};
use sheet::{Cell, Loaded};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;
use words::Failure;

/// Seed 002's nine tool names, in the seed's order.
pub const OFFICE_TOOLS: [&str; 9] = [
    "FILE_READ",
    "FILE_LIST",
    "DATA_QUERY",
    "DATA_VISUALIZE",
    "DOC_CREATE",
    "DOC_APPEND",
    "DOC_EXPORT",
    "SLIDE_BUILD",
    "CONTROL_WAIT",
];

pub fn is_office_tool(name: &str) -> bool {
    OFFICE_TOOLS.contains(&name)
}

/// The ToolSpecs of these tools (all nine when `names` is None), with seed
/// 002's names, a one-line description in `lang` and a strict JSON schema
/// of the arguments. Unknown names are skipped.
pub fn office_tool_specs(names: Option<&[String]>, lang: Lang) -> Vec<ToolSpec> {
    match names {
        None => OFFICE_TOOLS
            .iter()
            .filter_map(|n| specs::spec(n, lang))
            .collect(),
        Some(names) => names.iter().filter_map(|n| specs::spec(n, lang)).collect(),
    }
}

/// Rows of a query result kept for its chart.
const KEPT_ROWS: usize = 1_000;
/// Sheets kept parsed, for the next query of the same file.
const KEPT_SHEETS: usize = 2;

/// A query result, kept for `DATA_VISUALIZE`.
struct Stored {
    columns: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

/// A parsed sheet, valid while its file keeps its size and time.
struct Parsed {
    key: (String, Option<String>, u64, Option<SystemTime>),
    loaded: Arc<Loaded>,
}

#[derive(Default)]
struct State {
    queries: Vec<Stored>,
    charts: Vec<ChartRef>,
    docs: Docs,
    sheets: Vec<Parsed>,
}

/// One run's private copy of a workspace (removed when dropped) and the
/// state of its tools: query results, documents and their anchors, charts.
pub struct Workspace {
    dir: tempfile::TempDir,
    lang: Lang,
    state: Mutex<State>,
}

impl std::fmt::Debug for Workspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workspace")
            .field("root", &self.dir.path())
            .field("lang", &self.lang)
            .finish()
    }
}

impl Workspace {
    /// A fresh copy of `source` in the system's temporary folder (named
    /// after this process, so that a crash's leftovers can be swept:
    /// [`sweep_left_behind`]).
    pub fn copy_of(source: &WorkspaceSource, lang: Lang) -> std::io::Result<Workspace> {
        let dir = tempfile::Builder::new()
            .prefix(&sweep::own_prefix())
            .tempdir()?;
        source.copy_into(dir.path())?;
        Ok(Workspace {
            dir,
            lang,
            state: Mutex::new(State::default()),
        })
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere while holding the lock leaves the state usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Plays one call of an office tool. Returns the answer and, when the
    /// call created or changed a document, that document's text after it.
    pub fn play(&self, name: &str, arguments: &Value) -> (StepAnswer, Option<DocumentText>) {
        let empty = json!({});
        let arguments = if arguments.is_object() {
            arguments
        } else if arguments.is_null() {
            &empty
        } else {
            let e = words::invalid("arguments must be a JSON object", "参数必须是 JSON 对象");
            return (StepAnswer::Error(e.to_error(self.lang)), None);
        };
        match self.dispatch(name, arguments) {
            Ok((result, document)) => (StepAnswer::Result(result), document),
            Err(failure) => (StepAnswer::Error(failure.to_error(self.lang)), None),
        }
    }

    fn dispatch(
        &self,
        name: &str,
        arguments: &Value,
    ) -> Result<(Value, Option<DocumentText>), Failure> {
        let root = self.root();
        let with_doc = |(v, d): (Value, DocumentText)| (v, Some(d));
        match name {
            "FILE_LIST" => {
                let directory = args::text(arguments, "directory")?.unwrap_or("");
                let pattern = args::text(arguments, "pattern")?;
                let files = paths::list(root, directory, pattern)?;
                Ok((json!({ "files": files }), None))
            }
            "FILE_READ" => Ok((read::read(root, arguments, self.lang)?, None)),
            "DATA_QUERY" => Ok((self.query(arguments)?, None)),
            "DATA_VISUALIZE" => Ok((self.visualize(arguments)?, None)),
            "CONTROL_WAIT" => Ok((docs::wait(arguments)?, None)),
            "DOC_CREATE" | "DOC_APPEND" | "DOC_EXPORT" | "SLIDE_BUILD" => {
                let mut state = self.state();
                let State { charts, docs, .. } = &mut *state;
                let ctx = Ctx {
                    root,
                    lang: self.lang,
                    charts,
                };
                match name {
                    "DOC_CREATE" => docs.create(&ctx, arguments).map(with_doc),
                    "DOC_APPEND" => docs.append(&ctx, arguments).map(with_doc),
                    "DOC_EXPORT" => docs.export(&ctx, arguments).map(with_doc),
                    _ => docs.slides(&ctx, arguments).map(with_doc),
                }
            }
            _ => Err(words::invalid(
                format!("{name} is not an office tool"),
                format!("{name} 不是办公工具"),
            )),
        }
    }

    /// The sheet asked for, parsed once while its file stays the same.
    fn sheet(&self, rel: &str, path: &Path, sheet: Option<&str>) -> Result<Arc<Loaded>, Failure> {
        let meta = std::fs::metadata(path).ok();
        let key = (
            rel.to_string(),
            sheet.map(str::to_string),
            meta.as_ref().map_or(0, std::fs::Metadata::len),
            meta.and_then(|m| m.modified().ok()),
        );
        if let Some(p) = self.state().sheets.iter().find(|p| p.key == key) {
            return Ok(p.loaded.clone());
        }
        let loaded = Arc::new(sheet::load(path, rel, sheet)?);
        let mut state = self.state();
        state.sheets.retain(|p| p.key.0 != rel || p.key.1 != key.1);
        if state.sheets.len() >= KEPT_SHEETS {
            state.sheets.remove(0);
        }
        state.sheets.push(Parsed {
            key,
            loaded: loaded.clone(),
        });
        Ok(loaded)
    }

    fn query(&self, arguments: &Value) -> Result<Value, Failure> {
        let given = args::required(arguments, "file_path")?;
        let (rel, path) = paths::existing_file(self.root(), given)?;
        let range = args::text(arguments, "query_range")?;
        let mut sheet_name = args::text(arguments, "sheet")?.map(str::to_string);
        if sheet_name.is_none()
            && let Some((sheet, _)) = range.and_then(|r| r.rsplit_once('!'))
        {
            sheet_name = Some(sheet.trim_matches('\'').to_string());
        }
        if paths::extension(&rel) == "csv" {
            sheet_name = None;
        }
        let loaded = self.sheet(&rel, &path, sheet_name.as_deref())?;
        let table = query::Table::of(&loaded.grid, range, self.lang)?;
        let answer = query::run(table, arguments)?;
        let mut state = self.state();
        let id = format!("q{}", state.queries.len() + 1);
        let result = answer.to_json(&id, &rel, &loaded.name);
        state.queries.push(Stored {
            columns: answer.columns,
            rows: answer.rows.into_iter().take(KEPT_ROWS).collect(),
        });
        Ok(result)
    }

    fn visualize(&self, arguments: &Value) -> Result<Value, Failure> {
        let id = args::required(arguments, "query_result_id")?.trim();
        let kind = chart::Kind::parse(args::text(arguments, "chart_type")?.unwrap_or("bar"))?;
        let mut state = self.state();
        let stored = id
            .strip_prefix('q')
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| state.queries.get(n.checked_sub(1)?))
            .ok_or_else(|| Failure::QueryNotFound(id.to_string()))?;
        let points = chart::points(&stored.columns, &stored.rows)?;
        let chart_id = format!("c{}", state.charts.len() + 1);
        let title = args::text(arguments, "title")?
            .filter(|t| !t.trim().is_empty())
            .map_or_else(|| stored.columns.join(" / "), str::to_string);
        let file_path = format!("charts/{chart_id}.svg");
        paths::write(
            self.root(),
            &file_path,
            chart::svg(kind, &title, &points).as_bytes(),
        )?;
        state.charts.push(ChartRef {
            id: chart_id.clone(),
            title: title.clone(),
            path: file_path.clone(),
        });
        Ok(json!({
            "chart_id": chart_id,
            "chart_type": kind.name(),
            "title": title,
            "file_path": file_path,
            "points": chart::points_json(&points),
        }))
    }

    /// Every document created or changed so far, as text (current
    /// content), sorted by path.
    pub fn documents(&self) -> Vec<DocumentText> {
        self.state().docs.texts()
    }

    /// Relative paths of every file in the copy matching the glob (`*`
    /// crosses folders: `*.md` matches `output/a.md`), sorted.
    pub fn files_matching(&self, pattern: &str) -> Vec<String> {
        let Ok(matcher) = paths::glob(pattern.trim_start_matches("./")) else {
            return Vec::new();
        };
        paths::walk(self.root(), self.root())
            .unwrap_or_default()
            .into_iter()
            .filter(|f| matcher.is_match(f))
            .collect()
    }
}
