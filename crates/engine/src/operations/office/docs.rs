//! The documents an agent makes: `DOC_CREATE`, `DOC_APPEND`, `DOC_EXPORT`
//! and `SLIDE_BUILD`. A document is kept as Markdown blocks, each with an
//! anchor (`d1.s2`) an append can be placed against; after every change
//! the file is written again from them (`.md` and `.txt` as the Markdown,
//! `.docx` through docx-rs).

use super::args;
use super::markdown;
use super::paths::{self, existing_file};
use super::read::{self, pipe_rows};
use super::words::{Failure, invalid};
use crate::domain::steps::DocumentText;
use crate::i18n::Lang;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// A chart a document or a slide may show.
#[derive(Debug, Clone)]
pub(crate) struct ChartRef {
    pub id: String,
    pub title: String,
    pub path: String,
}

/// What the tools need of the workspace.
pub(crate) struct Ctx<'a> {
    pub root: &'a Path,
    pub lang: Lang,
    pub charts: &'a [ChartRef],
}

impl Ctx<'_> {
    fn chart(&self, id: &str) -> Result<ChartRef, Failure> {
        self.charts
            .iter()
            .find(|c| c.id == id.trim())
            .cloned()
            .ok_or_else(|| {
                invalid(
                    format!("chart {id} does not exist: call DATA_VISUALIZE first"),
                    format!("图表 {id} 不存在：请先调用 DATA_VISUALIZE"),
                )
            })
    }
}

/// One block of a document: an optional heading, then text, a table or a
/// chart.
#[derive(Debug, Clone, Default)]
struct Block {
    id: String,
    level: usize,
    title: Option<String>,
    content: String,
    table: Vec<Vec<String>>,
    chart: Option<ChartRef>,
    /// The section it was appended into (`offset_type: end` of an anchor).
    within: Option<String>,
}

#[derive(Debug, Clone)]
struct Doc {
    id: String,
    path: String,
    blocks: Vec<Block>,
    next_block: usize,
    /// Another document was written over its file since.
    replaced: bool,
}

impl Doc {
    fn new_block(&mut self) -> String {
        self.next_block += 1;
        format!("{}.s{}", self.id, self.next_block)
    }

    fn markdown(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        for b in &self.blocks {
            if let Some(title) = &b.title {
                out.push(format!(
                    "{} {}",
                    "#".repeat(b.level.clamp(1, 6)),
                    one_line(title)
                ));
                out.push(String::new());
            }
            if !b.content.trim().is_empty() {
                out.push(b.content.trim_end().to_string());
                out.push(String::new());
            }
            if !b.table.is_empty() {
                out.extend(pipe_rows(&b.table));
                out.push(String::new());
            }
            if let Some(chart) = &b.chart {
                out.push(format!(
                    "![{}]({})",
                    one_line(&chart.title),
                    paths::link(&self.path, &chart.path)
                ));
                out.push(String::new());
            }
        }
        let text = out.join("\n");
        format!("{}\n", text.trim_end())
    }

    /// Writes the file again; returns its text.
    fn write(&self, root: &Path) -> Result<String, Failure> {
        let text = self.markdown();
        let bytes = match paths::extension(&self.path).as_str() {
            "docx" => markdown::to_docx(&text).map_err(|cause| Failure::WriteFailed {
                path: self.path.clone(),
                cause,
            })?,
            _ => text.clone().into_bytes(),
        };
        paths::write(root, &self.path, &bytes)?;
        Ok(text)
    }

    fn anchors(&self) -> Value {
        Value::Array(
            self.blocks
                .iter()
                .map(|b| json!({"id": b.id, "title": b.title}))
                .collect(),
        )
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

const DOC_FORMATS: &str = ".md, .txt, .docx";

fn is_doc(ext: &str) -> bool {
    matches!(ext, "md" | "markdown" | "txt" | "docx")
}

/// The documents of one workspace and the other files the tools wrote.
#[derive(Default)]
pub(crate) struct Docs {
    list: Vec<Doc>,
    /// Exports and slide decks: path → the text they were made from.
    written: BTreeMap<String, String>,
}

impl Docs {
    /// Every document made or changed so far, as its current text.
    pub fn texts(&self) -> Vec<DocumentText> {
        let mut all: BTreeMap<&str, String> = BTreeMap::new();
        for doc in self.list.iter().filter(|d| !d.replaced) {
            all.insert(&doc.path, doc.markdown());
        }
        for (path, text) in &self.written {
            all.insert(path, text.clone());
        }
        all.into_iter()
            .map(|(path, text)| DocumentText::new(path, &text))
            .collect()
    }

    /// A new file is about to be written at `path`: what was there before
    /// is no longer a document of its own.
    fn claim(&mut self, path: &str) {
        for doc in self.list.iter_mut().filter(|d| d.path == path) {
            doc.replaced = true;
        }
        self.written.remove(path);
    }

    fn live(&self, path: &str) -> Option<usize> {
        self.list.iter().position(|d| !d.replaced && d.path == path)
    }

    fn default_path(&self, root: &Path) -> String {
        (self.list.len() + 1..)
            .map(|n| format!("output/document-{n}.md"))
            .find(|p| self.live(p).is_none() && !root.join(p).exists())
            .unwrap_or_else(|| "output/document.md".into())
    }

    pub fn create(
        &mut self,
        ctx: &Ctx,
        arguments: &Value,
    ) -> Result<(Value, DocumentText), Failure> {
        let path = match args::text(arguments, "file_path")?.filter(|p| !p.trim().is_empty()) {
            Some(given) => paths::resolve(ctx.root, given)?.0,
            None => self.default_path(ctx.root),
        };
        if !is_doc(&paths::extension(&path)) {
            return Err(Failure::UnsupportedFormat {
                path,
                supported: DOC_FORMATS,
            });
        }
        let given = sections_of(arguments)?;
        let skeleton = match args::text(arguments, "template_file")? {
            Some(t) if !t.trim().is_empty() => template(ctx, t)?,
            _ => Vec::new(),
        };
        let mut doc = Doc {
            id: format!("d{}", self.list.len() + 1),
            path: path.clone(),
            blocks: Vec::new(),
            next_block: 0,
            replaced: false,
        };
        let mut unused: Vec<Option<(Option<String>, String)>> =
            given.into_iter().map(Some).collect();
        for (level, title) in skeleton {
            let content = unused
                .iter_mut()
                .find(|s| {
                    s.as_ref()
                        .is_some_and(|(t, _)| t.as_deref().map(str::trim) == Some(title.trim()))
                })
                .and_then(Option::take)
                .map(|(_, c)| c)
                .unwrap_or_default();
            let id = doc.new_block();
            doc.blocks.push(Block {
                id,
                level,
                title: Some(title),
                content,
                ..Block::default()
            });
        }
        for (title, content) in unused.into_iter().flatten() {
            let id = doc.new_block();
            doc.blocks.push(Block {
                id,
                level: 1,
                title,
                content,
                ..Block::default()
            });
        }
        self.claim(&path);
        let text = doc.write(ctx.root)?;
        let result = json!({"doc_id": doc.id, "file_path": path, "anchors": doc.anchors()});
        self.list.push(doc);
        Ok((result, DocumentText::new(path, &text)))
    }

    /// The document a `target_id` names: a doc id, an anchor's, or the
    /// path of a document (one in the workspace is taken in).
    fn target(&mut self, ctx: &Ctx, target: &str) -> Result<(usize, Option<usize>), Failure> {
        let target = target.trim();
        let not_found = || Failure::DocumentNotFound(target.to_string());
        for (d, doc) in self.list.iter().enumerate().filter(|(_, d)| !d.replaced) {
            if doc.id == target {
                return Ok((d, None));
            }
            if let Some(b) = doc.blocks.iter().position(|b| b.id == target) {
                return Ok((d, Some(b)));
            }
        }
        let Ok((rel, path)) = existing_file(ctx.root, target) else {
            return Err(not_found());
        };
        if let Some(d) = self.live(&rel) {
            return Ok((d, None));
        }
        if !is_doc(&paths::extension(&rel)) {
            return Err(not_found());
        }
        let text = source_text(&path, &rel, ctx.lang)?;
        let mut doc = Doc {
            id: format!("d{}", self.list.len() + 1),
            path: rel,
            blocks: Vec::new(),
            next_block: 0,
            replaced: false,
        };
        for (level, title, content) in markdown::sections(&text) {
            let id = doc.new_block();
            doc.blocks.push(Block {
                id,
                level,
                title,
                content,
                ..Block::default()
            });
        }
        self.list.push(doc);
        Ok((self.list.len() - 1, None))
    }

    pub fn append(
        &mut self,
        ctx: &Ctx,
        arguments: &Value,
    ) -> Result<(Value, DocumentText), Failure> {
        let target_id = args::required(arguments, "target_id")?;
        let offset = args::text(arguments, "offset_type")?
            .unwrap_or("end")
            .trim()
            .to_lowercase();
        if !matches!(offset.as_str(), "end" | "after" | "before") {
            return Err(invalid(
                format!("offset_type {offset}: use end, after or before"),
                format!("offset_type {offset} 不受支持：请使用 end、after 或 before"),
            ));
        }
        let spec = args::object(arguments, "content_spec")?
            .ok_or_else(|| invalid("content_spec is required", "缺少必填参数 content_spec"))?;
        let spec = Value::Object(spec.clone());
        let mut block = Block {
            title: args::text(&spec, "title")?
                .filter(|t| !t.trim().is_empty())
                .map(str::to_string),
            content: content_of(spec.get("content")),
            table: args::array(&spec, "table")?
                .iter()
                .map(|row| match row {
                    Value::Array(cells) => cells.iter().map(args::shown).collect(),
                    other => vec![args::shown(other)],
                })
                .collect(),
            chart: match args::text(&spec, "chart_id")? {
                Some(id) if !id.trim().is_empty() => Some(ctx.chart(id)?),
                _ => None,
            },
            ..Block::default()
        };
        if block.title.is_none()
            && block.content.trim().is_empty()
            && block.table.is_empty()
            && block.chart.is_none()
        {
            return Err(invalid(
                "content_spec has nothing to add: give title, content, table or chart_id",
                "content_spec 没有要追加的内容：请提供 title、content、table 或 chart_id",
            ));
        }
        let (d, anchor) = self.target(ctx, target_id)?;
        let doc = &mut self.list[d];
        let at = match (anchor, offset.as_str()) {
            (None, "before") => {
                block.level = 1;
                0
            }
            (None, _) => {
                block.level = 1;
                doc.blocks.len()
            }
            (Some(i), "before") => {
                block.level = doc.blocks[i].level;
                i
            }
            (Some(i), "after") => {
                block.level = doc.blocks[i].level;
                i + 1
            }
            (Some(i), _) => {
                let section = doc.blocks[i].id.clone();
                block.level = doc.blocks[i].level + 1;
                let mut at = i + 1;
                while doc
                    .blocks
                    .get(at)
                    .is_some_and(|b| b.within.as_deref() == Some(&section))
                {
                    at += 1;
                }
                block.within = Some(section);
                at
            }
        };
        block.id = doc.new_block();
        let anchor_id = block.id.clone();
        doc.blocks.insert(at, block);
        let text = doc.write(ctx.root)?;
        let result = json!({"anchor_id": anchor_id, "doc_id": doc.id, "file_path": doc.path});
        Ok((result, DocumentText::new(doc.path.clone(), &text)))
    }

    pub fn export(
        &mut self,
        ctx: &Ctx,
        arguments: &Value,
    ) -> Result<(Value, DocumentText), Failure> {
        let given = args::required(arguments, "file_path")?;
        let format = args::required(arguments, "format")?.trim().to_lowercase();
        let format = format.trim_start_matches('.').to_string();
        let ext = match format.as_str() {
            "pdf" | "docx" | "md" | "txt" | "html" => format.clone(),
            "markdown" => "md".into(),
            "htm" => "html".into(),
            _ => {
                return Err(invalid(
                    format!("format {format}: use pdf, docx, md, txt or html"),
                    format!("导出格式 {format} 不受支持：请使用 pdf、docx、md、txt 或 html"),
                ));
            }
        };
        let (rel, text) = match self.live(paths::clean(given)?.as_str()) {
            Some(d) => (self.list[d].path.clone(), self.list[d].markdown()),
            None => {
                let (rel, path) = existing_file(ctx.root, given)?;
                if !is_doc(&paths::extension(&rel)) {
                    return Err(Failure::UnsupportedFormat {
                        path: rel,
                        supported: DOC_FORMATS,
                    });
                }
                let text = source_text(&path, &rel, ctx.lang)?;
                (rel, text)
            }
        };
        let out = paths::with_extension(&rel, &ext);
        let title = Path::new(&rel)
            .file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().into_owned());
        let failed = |cause: String| Failure::WriteFailed {
            path: out.clone(),
            cause,
        };
        let bytes = match ext.as_str() {
            "pdf" => super::pdf::to_pdf(&title, &text).map_err(failed)?,
            "docx" => markdown::to_docx(&text).map_err(failed)?,
            "html" => markdown::to_html(&title, &text).into_bytes(),
            "txt" => markdown::to_plain(&text).into_bytes(),
            _ => text.clone().into_bytes(),
        };
        if out != rel {
            self.claim(&out);
            paths::write(ctx.root, &out, &bytes)?;
            self.written.insert(out.clone(), text.clone());
        }
        let result = json!({"file_path": out, "format": ext, "bytes": bytes.len()});
        Ok((result, DocumentText::new(out, &text)))
    }

    pub fn slides(
        &mut self,
        ctx: &Ctx,
        arguments: &Value,
    ) -> Result<(Value, DocumentText), Failure> {
        let deck = args::required(arguments, "deck_name")?.trim();
        if deck.contains(['/', '\\']) || deck.starts_with('.') || deck.contains("..") {
            return Err(Failure::InvalidPath(deck.to_string()));
        }
        let slides = args::array(arguments, "slides")?;
        if slides.is_empty() {
            return Err(invalid(
                "slides must hold at least one slide",
                "slides 至少要有一页",
            ));
        }
        let path = format!("output/{deck}.slides.md");
        let mut out: Vec<String> = Vec::new();
        if let Some(theme) = args::text(arguments, "theme")?.filter(|t| !t.trim().is_empty()) {
            out.push(format!("<!-- theme: {} -->", one_line(theme)));
            out.push(String::new());
        }
        for (i, slide) in slides.iter().enumerate() {
            if i > 0 {
                out.push(String::new());
                out.push("---".into());
                out.push(String::new());
            }
            let title = match slide {
                Value::String(s) => s.clone(),
                other => args::text(other, "title")?.unwrap_or_default().to_string(),
            };
            out.push(format!("# {}", one_line(&title)));
            for bullet in args::texts(slide, "bullets").unwrap_or_default() {
                out.push(format!("- {}", one_line(&bullet)));
            }
            if let Some(id) = args::text(slide, "chart_id")
                .ok()
                .flatten()
                .filter(|s| !s.is_empty())
            {
                let chart = ctx.chart(id)?;
                out.push(String::new());
                out.push(format!(
                    "![{}]({})",
                    one_line(&chart.title),
                    paths::link(&path, &chart.path)
                ));
            }
            if let Some(notes) = args::text(slide, "notes")
                .ok()
                .flatten()
                .filter(|s| !s.is_empty())
            {
                out.push(String::new());
                let label = match ctx.lang {
                    Lang::En => "Notes:",
                    Lang::Zh => "备注：",
                };
                out.push(format!("<!-- {label} {} -->", one_line(notes)));
            }
        }
        let text = out.join("\n") + "\n";
        self.claim(&path);
        paths::write(ctx.root, &path, text.as_bytes())?;
        self.written.insert(path.clone(), text.clone());
        Ok((
            json!({"file_path": path, "slides": slides.len()}),
            DocumentText::new(path, &text),
        ))
    }
}

/// `content` as text: a string, lines of an array, else the JSON.
fn content_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::Array(items)) => items.iter().map(args::shown).collect::<Vec<_>>().join("\n"),
        Some(other) => args::shown(other),
    }
}

/// `sections` as (title, content) pairs.
fn sections_of(arguments: &Value) -> Result<Vec<(Option<String>, String)>, Failure> {
    args::array(arguments, "sections")?
        .iter()
        .map(|s| match s {
            Value::Object(_) => Ok((
                args::text(s, "title")?
                    .filter(|t| !t.trim().is_empty())
                    .map(str::to_string),
                content_of(s.get("content")),
            )),
            Value::String(text) => Ok((None, text.clone())),
            _ => Err(invalid(
                "each section must be an object {title, content}",
                "sections 的每一项必须是 {title, content} 对象",
            )),
        })
        .collect()
}

/// The headings of a template file, as the new document's skeleton.
fn template(ctx: &Ctx, given: &str) -> Result<Vec<(usize, String)>, Failure> {
    let (rel, path) = existing_file(ctx.root, given)?;
    if !is_doc(&paths::extension(&rel)) {
        return Err(Failure::UnsupportedFormat {
            path: rel,
            supported: DOC_FORMATS,
        });
    }
    let text = source_text(&path, &rel, ctx.lang)?;
    Ok(markdown::sections(&text)
        .into_iter()
        .filter_map(|(level, title, _)| Some((level, title?)))
        .collect())
}

/// A document file's text as Markdown (a `.docx` converted).
fn source_text(path: &Path, rel: &str, lang: Lang) -> Result<String, Failure> {
    if paths::extension(rel) == "docx" {
        let blocks = read::docx_blocks(path, rel)?;
        Ok(read::render_blocks(&blocks, lang, false).join("\n"))
    } else {
        read::text_of(path, rel)
    }
}

/// `CONTROL_WAIT`: the agent waits for the person's confirmation.
pub(crate) fn wait(arguments: &Value) -> Result<Value, Failure> {
    let condition = args::required(arguments, "condition")?;
    let timeout = match arguments.get("timeout") {
        None | Some(Value::Null) => Value::Null,
        Some(Value::Number(n)) if n.as_f64().is_some_and(|t| t >= 0.0) => Value::Number(n.clone()),
        Some(_) => {
            return Err(invalid(
                "timeout must be a number of seconds",
                "timeout 必须是秒数",
            ));
        }
    };
    Ok(json!({"status": "waiting_for_user", "condition": condition, "timeout": timeout}))
}
