//! `FILE_READ` (seed 002 §3.1): a file as text with its structure marked.
//! Headings are `#`/`##` lines, each table a `[表格 N]`/`[Table N]` line
//! then Markdown pipe rows, each paragraph of a `.docx` prefixed by its
//! anchor `[P7]`. A spreadsheet's page is a sheet (its header and first 20
//! rows); a text document's page is 50 lines.

use super::args;
use super::paths::{self, existing_file};
use super::query::Table;
use super::sheet::{self, is_sheet};
use super::words::{self, Failure, invalid};
use crate::i18n::Lang;
use docx_rs::{DocumentChild, Table as DocxTable, TableCellContent, TableChild, TableRowChild};
use serde_json::{Value, json};
use std::path::Path;

/// Lines of a text document's page.
pub const PAGE_LINES: usize = 50;
/// Rows of a sheet shown under its header.
pub const SHEET_ROWS: usize = 20;
/// Characters of content in one answer; past them it is cut and marked.
pub const MAX_CONTENT: usize = 30_000;

pub(crate) const READ_FORMATS: &str = ".xlsx, .xlsm, .xls, .ods, .csv, .md, .txt, .docx";

/// A `.docx`'s content, in order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    Heading(usize, String),
    /// A paragraph and its number among the document's paragraphs (from 1).
    Paragraph(usize, String),
    Table(Vec<Vec<String>>),
}

pub(crate) fn read(root: &Path, arguments: &Value, lang: Lang) -> Result<Value, Failure> {
    let given = args::required(arguments, "file_path")?;
    let (rel, path) = existing_file(root, given)?;
    let ext = paths::extension(&rel);
    let pages: Vec<String> = if is_sheet(&ext) {
        sheet_pages(&path, &rel, lang)?
    } else {
        let lines: Vec<(bool, String)> = match ext.as_str() {
            "md" | "markdown" | "txt" | "text" => {
                mark_tables(text_of(&path, &rel)?.lines().map(str::to_string), lang)
            }
            "docx" => render_blocks(&docx_blocks(&path, &rel)?, lang, true)
                .into_iter()
                .map(|l| (!l.starts_with("[表格 ") && !l.starts_with("[Table "), l))
                .collect(),
            _ => {
                return Err(Failure::UnsupportedFormat {
                    path: rel,
                    supported: READ_FORMATS,
                });
            }
        };
        text_pages(lines)
    };
    let total = pages.len().max(1);
    let start = args::count(arguments, "start_page")?.unwrap_or(1) as usize;
    let end = (args::count(arguments, "end_page")?.unwrap_or(total as u64) as usize).min(total);
    if start > total || end < start {
        return Err(invalid(
            format!("pages {start} to {end}: the file has {total} page(s), numbered from 1"),
            format!("页码 {start} 到 {end} 不合法：该文件共 {total} 页，从 1 开始编号"),
        ));
    }
    let mut content = pages
        .get(start - 1..end)
        .map(|p| p.join("\n\n"))
        .unwrap_or_default();
    let truncated = content.chars().count() > MAX_CONTENT;
    if truncated {
        content = content.chars().take(MAX_CONTENT).collect();
        content.push('\n');
        content.push_str(words::cut_marker(lang));
    }
    Ok(json!({
        "file_path": rel,
        "format": ext,
        "pages": total,
        "start_page": start,
        "end_page": end,
        "truncated": truncated,
        "content": content,
    }))
}

/// A text file's content (UTF-8, a BOM dropped, bad bytes replaced).
pub(crate) fn text_of(path: &Path, rel: &str) -> Result<String, Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::FileUnreadable {
        path: rel.to_string(),
        cause: e.to_string(),
    })?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// The lines of a Markdown text, each table after its `[表格 N]` line;
/// with whether the line is the file's (a page counts those).
fn mark_tables(lines: impl Iterator<Item = String>, lang: Lang) -> Vec<(bool, String)> {
    let mut tables = 0;
    let mut in_table = false;
    let mut marked = Vec::new();
    for line in lines {
        let is_row = line.trim_start().starts_with('|');
        if is_row && !in_table {
            tables += 1;
            marked.push((false, words::table_label(lang, tables)));
        }
        in_table = is_row;
        marked.push((true, line));
    }
    marked
}

/// Pages of 50 of the file's lines.
fn text_pages(marked: Vec<(bool, String)>) -> Vec<String> {
    let mut pages = Vec::new();
    let mut page = Vec::new();
    let mut counted = 0;
    for (counts, line) in marked {
        if counts && counted == PAGE_LINES {
            pages.push(page.join("\n"));
            page.clear();
            counted = 0;
        }
        counted += usize::from(counts);
        page.push(line);
    }
    if !page.is_empty() || pages.is_empty() {
        pages.push(page.join("\n"));
    }
    pages
}

/// One page per sheet: its heading, then its header and first rows.
fn sheet_pages(path: &Path, rel: &str, lang: Lang) -> Result<Vec<String>, Failure> {
    let first = sheet::load(path, rel, None)?;
    let names = first.sheets.clone();
    let mut pages = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let loaded = if i == 0 {
            first.grid.clone()
        } else {
            sheet::load(path, rel, Some(name))?.grid
        };
        let table = Table::of(&loaded, None, lang)?;
        let mut lines = vec![words::sheet_heading(
            lang,
            name,
            loaded.rows.len(),
            loaded.width,
        )];
        lines.push(words::table_label(lang, i + 1));
        let rows: Vec<Vec<String>> = std::iter::once(table.columns.clone())
            .chain(
                table
                    .rows
                    .iter()
                    .take(SHEET_ROWS)
                    .map(|r| r.iter().map(sheet::Cell::text).collect()),
            )
            .collect();
        lines.extend(pipe_rows(&rows));
        if table.rows.len() > SHEET_ROWS {
            lines.push(words::more_rows(lang, table.rows.len() - SHEET_ROWS));
        }
        pages.push(lines.join("\n"));
    }
    Ok(pages)
}

/// Markdown pipe rows, the first row the header.
pub(crate) fn pipe_rows(rows: &[Vec<String>]) -> Vec<String> {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = Vec::with_capacity(rows.len() + 1);
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<String> = (0..width)
            .map(|c| {
                row.get(c)
                    .map_or(String::new(), |s| s.replace('|', "\\|").replace('\n', " "))
            })
            .collect();
        out.push(format!("| {} |", cells.join(" | ")));
        if i == 0 {
            out.push(format!("|{}", " --- |".repeat(width)));
        }
    }
    out
}

/// A `.docx` file's headings, paragraphs and tables.
pub(crate) fn docx_blocks(path: &Path, rel: &str) -> Result<Vec<Block>, Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::FileUnreadable {
        path: rel.to_string(),
        cause: e.to_string(),
    })?;
    let unreadable = |cause: String| Failure::FileUnreadable {
        path: rel.to_string(),
        cause,
    };
    let docx = std::panic::catch_unwind(|| docx_rs::read_docx(&bytes))
        .map_err(|_| unreadable("the file is malformed".into()))?
        .map_err(|e| unreadable(e.to_string()))?;
    let levels = docx.styles.create_heading_style_map();
    let mut blocks = Vec::new();
    let mut paragraph = 0;
    for child in &docx.document.children {
        match child {
            DocumentChild::Paragraph(p) => {
                paragraph += 1;
                let text = p.raw_text();
                if text.trim().is_empty() {
                    continue;
                }
                let style = p.property.style.as_ref().map(|s| s.val.as_str());
                match style.and_then(|s| heading_level(s, &levels)) {
                    Some(level) => blocks.push(Block::Heading(level, text)),
                    None => blocks.push(Block::Paragraph(paragraph, text)),
                }
            }
            DocumentChild::Table(t) => blocks.push(Block::Table(table_rows(t))),
            _ => {}
        }
    }
    Ok(blocks)
}

/// A paragraph style's heading level: by the style's name (`heading 2`),
/// else by an id such as `Heading2`, `Title` being level 1.
fn heading_level(style: &str, levels: &std::collections::HashMap<String, usize>) -> Option<usize> {
    if let Some(level) = levels.get(style) {
        return Some(*level);
    }
    let lower = style.to_lowercase();
    if lower == "title" {
        return Some(1);
    }
    lower
        .strip_prefix("heading")
        .and_then(|n| n.trim().parse().ok())
}

fn table_rows(table: &DocxTable) -> Vec<Vec<String>> {
    table
        .rows
        .iter()
        .map(|TableChild::TableRow(row)| {
            row.cells
                .iter()
                .map(|TableRowChild::TableCell(cell)| {
                    cell.children
                        .iter()
                        .filter_map(|c| match c {
                            TableCellContent::Paragraph(p) => Some(p.raw_text()),
                            _ => None,
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect()
        })
        .collect()
}

/// Blocks as lines: headings `#`, tables marked and piped, paragraphs
/// with their `[P7]` anchor when `anchors`.
pub(crate) fn render_blocks(blocks: &[Block], lang: Lang, anchors: bool) -> Vec<String> {
    let mut lines = Vec::new();
    let mut tables = 0;
    for block in blocks {
        match block {
            Block::Heading(level, text) => {
                lines.push(format!("{} {text}", "#".repeat((*level).clamp(1, 6))));
            }
            Block::Paragraph(n, text) if anchors => lines.push(format!("[P{n}] {text}")),
            Block::Paragraph(_, text) => lines.push(text.clone()),
            Block::Table(rows) => {
                tables += 1;
                if anchors {
                    lines.push(words::table_label(lang, tables));
                }
                lines.extend(pipe_rows(rows));
            }
        }
    }
    lines
}
