//! The Markdown the documents are kept in, read line by line (headings,
//! pipe tables, bullets, images, paragraphs), and written out as `.docx`,
//! HTML or plain text. Enough Markdown for what the tools write, not all
//! of CommonMark.

use docx_rs::{Docx, Paragraph, Run, Style, StyleType, Table as DocxTable, TableCell, TableRow};

/// One line of Markdown, classified.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Line {
    Heading(usize, String),
    /// A table row's cells (a `| --- |` rule is left out).
    Row(Vec<String>),
    Bullet(String),
    /// `![title](path)`.
    Image(String, String),
    Text(String),
    Blank,
}

pub(crate) fn lines(text: &str) -> Vec<Line> {
    text.lines().filter_map(line).collect()
}

fn line(raw: &str) -> Option<Line> {
    let t = raw.trim();
    if t.is_empty() {
        return Some(Line::Blank);
    }
    let hashes = t.chars().take_while(|&c| c == '#').count();
    if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
        return Some(Line::Heading(hashes, t[hashes..].trim().to_string()));
    }
    if t.starts_with('|') {
        let inner = t.trim_matches('|');
        let cells: Vec<String> = split_row(inner);
        if cells
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
        {
            return None;
        }
        return Some(Line::Row(cells));
    }
    if let Some(rest) = t.strip_prefix("- ").or_else(|| t.strip_prefix("* ")) {
        return Some(Line::Bullet(rest.trim().to_string()));
    }
    if let Some(rest) = t.strip_prefix("![")
        && let Some((title, tail)) = rest.split_once("](")
        && let Some(path) = tail.strip_suffix(')')
    {
        return Some(Line::Image(title.to_string(), path.to_string()));
    }
    Some(Line::Text(t.to_string()))
}

/// A row's cells, `\|` kept as a bar within a cell.
fn split_row(inner: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cell.push('|');
                chars.next();
            }
            '|' => cells.push(std::mem::take(&mut cell).trim().to_string()),
            _ => cell.push(c),
        }
    }
    cells.push(cell.trim().to_string());
    cells
}

/// A text's sections: (level, title, the Markdown under the heading up to
/// the next). Text before the first heading is a section without title.
pub(crate) fn sections(text: &str) -> Vec<(usize, Option<String>, String)> {
    let mut out: Vec<(usize, Option<String>, Vec<&str>)> = Vec::new();
    for raw in text.lines() {
        match line(raw) {
            Some(Line::Heading(level, title)) => out.push((level, Some(title), Vec::new())),
            _ => match out.last_mut() {
                Some(last) => last.2.push(raw),
                None => out.push((1, None, vec![raw])),
            },
        }
    }
    out.into_iter()
        .map(|(level, title, body)| (level, title, body.join("\n").trim().to_string()))
        .filter(|(_, title, body)| title.is_some() || !body.is_empty())
        .collect()
}

/// Plain text: headings and bullets without their marks, tables as
/// tab-separated rows.
pub(crate) fn to_plain(text: &str) -> String {
    let mut out = Vec::new();
    for l in lines(text) {
        out.push(match l {
            Line::Heading(_, t) | Line::Text(t) => t,
            Line::Row(cells) => cells.join("\t"),
            Line::Bullet(t) => format!("• {t}"),
            Line::Image(title, path) => format!("[{title}] {path}"),
            Line::Blank => String::new(),
        });
    }
    out.join("\n") + "\n"
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A standalone HTML page.
pub(crate) fn to_html(title: &str, text: &str) -> String {
    let mut body = Vec::new();
    let mut in_table = false;
    let mut in_list = false;
    for l in lines(text) {
        let row = matches!(l, Line::Row(_));
        if in_table && !row {
            body.push("</table>".to_string());
            in_table = false;
        }
        let bullet = matches!(l, Line::Bullet(_));
        if in_list && !bullet {
            body.push("</ul>".to_string());
            in_list = false;
        }
        match l {
            Line::Heading(n, t) => body.push(format!("<h{n}>{}</h{n}>", escape(&t))),
            Line::Row(cells) => {
                let tag = if in_table { "td" } else { "th" };
                if !in_table {
                    body.push("<table>".to_string());
                    in_table = true;
                }
                let cells: String = cells
                    .iter()
                    .map(|c| format!("<{tag}>{}</{tag}>", escape(c)))
                    .collect();
                body.push(format!("<tr>{cells}</tr>"));
            }
            Line::Bullet(t) => {
                if !in_list {
                    body.push("<ul>".to_string());
                    in_list = true;
                }
                body.push(format!("<li>{}</li>", escape(&t)));
            }
            Line::Image(t, p) => body.push(format!(
                "<p><img src=\"{}\" alt=\"{}\"></p>",
                escape(&p),
                escape(&t)
            )),
            Line::Text(t) => body.push(format!("<p>{}</p>", escape(&t))),
            Line::Blank => {}
        }
    }
    if in_table {
        body.push("</table>".to_string());
    }
    if in_list {
        body.push("</ul>".to_string());
    }
    format!(
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n\
         <style>body{{font-family:sans-serif;max-width:50em;margin:2em auto}}\
         table{{border-collapse:collapse}}td,th{{border:1px solid #999;padding:.3em .6em}}</style>\n\
         </head>\n<body>\n{}\n</body>\n</html>\n",
        escape(title),
        body.join("\n")
    )
}

/// A `.docx`: headings with Word's heading styles (so that Word's outline
/// and a reader find them), tables as tables, images as their title.
pub(crate) fn to_docx(text: &str) -> Result<Vec<u8>, String> {
    let mut docx = Docx::new();
    for level in 1..=6usize {
        docx = docx.add_style(
            Style::new(format!("Heading{level}"), StyleType::Paragraph)
                .name(format!("heading {level}"))
                .size(36usize.saturating_sub(level * 4).max(22))
                .bold(),
        );
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    let flush = |docx: Docx, rows: &mut Vec<Vec<String>>| {
        if rows.is_empty() {
            return docx;
        }
        let table = DocxTable::new(
            rows.drain(..)
                .map(|r| {
                    TableRow::new(
                        r.into_iter()
                            .map(|c| TableCell::new().add_paragraph(paragraph(&c)))
                            .collect(),
                    )
                })
                .collect(),
        );
        docx.add_table(table)
    };
    for l in lines(text) {
        if let Line::Row(cells) = l {
            rows.push(cells);
            continue;
        }
        docx = flush(docx, &mut rows);
        docx = match l {
            Line::Heading(n, t) => docx.add_paragraph(paragraph(&t).style(&format!("Heading{n}"))),
            Line::Bullet(t) => docx.add_paragraph(paragraph(&format!("• {t}"))),
            Line::Image(t, p) => docx.add_paragraph(paragraph(&format!("[{t}] {p}"))),
            Line::Text(t) => docx.add_paragraph(paragraph(&t)),
            Line::Blank | Line::Row(_) => docx,
        };
    }
    docx = flush(docx, &mut rows);
    let mut out = std::io::Cursor::new(Vec::new());
    docx.build().pack(&mut out).map_err(|e| e.to_string())?;
    Ok(out.into_inner())
}

fn paragraph(text: &str) -> Paragraph {
    Paragraph::new().add_run(Run::new().add_text(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_classified() {
        let text =
            "# 标题\n\n正文\n| a | b\\|c |\n| --- | --- |\n| 1 | 2 |\n- 点\n![图](charts/c1.svg)";
        assert_eq!(
            lines(text),
            [
                Line::Heading(1, "标题".into()),
                Line::Blank,
                Line::Text("正文".into()),
                Line::Row(vec!["a".into(), "b|c".into()]),
                Line::Row(vec!["1".into(), "2".into()]),
                Line::Bullet("点".into()),
                Line::Image("图".into(), "charts/c1.svg".into()),
            ]
        );
        let s = sections("前言\n# 一\n内容\n## 二\n");
        assert_eq!(s[0], (1, None, "前言".into()));
        assert_eq!(s[1], (1, Some("一".into()), "内容".into()));
        assert_eq!(s[2], (2, Some("二".into()), String::new()));
    }
}
