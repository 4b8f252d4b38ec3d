//! A document's Markdown as a PDF: A4 pages (595 × 842 pt, 56 pt margins),
//! headings larger, tables as rows of cells, lines wrapped to the width.
//! Latin text is set in Helvetica, everything else in Adobe's standard
//! Chinese font STSong-Light (UniGB-UCS2-H): fonts every PDF viewer knows,
//! so nothing is embedded and the file stays small.

use super::markdown::{self, Line};
use lopdf::content::{Content, Operation};
use lopdf::{Dictionary, Document, Object, Stream, StringFormat, dictionary};

const PAGE_W: f32 = 595.0;
const PAGE_H: f32 = 842.0;
const MARGIN: f32 = 56.0;
const BODY: f32 = 11.0;

/// Helvetica's advance widths (per 1000 of the size), characters 32 to 126.
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556,
    556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667,
    611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
    667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500,
    222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];

/// One line set on a page: its runs of text, size, and whether bold.
struct SetLine {
    text: String,
    size: f32,
    bold: bool,
    /// Space before the line, in points.
    before: f32,
}

/// The PDF of a Markdown text.
pub(crate) fn to_pdf(title: &str, text: &str) -> Result<Vec<u8>, String> {
    let lines = layout(text);
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let fonts = fonts(&mut doc);
    let resources_id = doc.add_object(dictionary! { "Font" => fonts });
    let mut kids: Vec<Object> = Vec::new();
    for page in paginate(&lines) {
        let content = Content {
            operations: page_operations(&page),
        };
        let bytes = content.encode().map_err(|e| e.to_string())?;
        let content_id = doc.add_object(Stream::new(dictionary! {}, bytes));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => content_id,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), PAGE_W.into(), PAGE_H.into()],
        });
        kids.push(page_id.into());
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    let info_id = doc.add_object(dictionary! {
        "Title" => Object::String(utf16(title), StringFormat::Hexadecimal),
        "Producer" => Object::string_literal("AgentEval"),
    });
    doc.trailer.set("Root", catalog_id);
    doc.trailer.set("Info", info_id);
    doc.compress();
    let mut out = Vec::new();
    doc.save_to(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// Helvetica (F1), Helvetica-Bold (F3) and STSong-Light (F2).
fn fonts(doc: &mut Document) -> Dictionary {
    let latin = |doc: &mut Document, name: &str| {
        doc.add_object(dictionary! {
            "Type" => "Font",
            "Subtype" => "Type1",
            "BaseFont" => name,
            "Encoding" => "WinAnsiEncoding",
        })
    };
    let f1 = latin(doc, "Helvetica");
    let f3 = latin(doc, "Helvetica-Bold");
    let descriptor = doc.add_object(dictionary! {
        "Type" => "FontDescriptor",
        "FontName" => "STSong-Light",
        "Flags" => 6,
        "FontBBox" => vec![(-25).into(), (-254).into(), 1000.into(), 880.into()],
        "ItalicAngle" => 0,
        "Ascent" => 880,
        "Descent" => -120,
        "CapHeight" => 626,
        "StemV" => 80,
    });
    let cid = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "CIDFontType0",
        "BaseFont" => "STSong-Light",
        "CIDSystemInfo" => dictionary! {
            "Registry" => Object::string_literal("Adobe"),
            "Ordering" => Object::string_literal("GB1"),
            "Supplement" => 2,
        },
        "FontDescriptor" => descriptor,
        "DW" => 1000,
        "W" => vec![1.into(), 95.into(), 500.into()],
    });
    let f2 = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type0",
        "BaseFont" => "STSong-Light-UniGB-UCS2-H",
        "Encoding" => "UniGB-UCS2-H",
        "DescendantFonts" => vec![cid.into()],
    });
    dictionary! { "F1" => f1, "F2" => f2, "F3" => f3 }
}

fn utf16(s: &str) -> Vec<u8> {
    let mut out = vec![0xFE, 0xFF];
    for unit in s.encode_utf16() {
        out.extend(unit.to_be_bytes());
    }
    out
}

/// How wide a character is set, in thousandths of the size.
fn width(c: char, bold: bool) -> f32 {
    let w = match c as u32 {
        32..=126 => f32::from(HELVETICA[(c as u32 - 32) as usize]),
        _ => 1000.0,
    };
    if bold && c.is_ascii() { w * 1.06 } else { w }
}

/// The Markdown as lines set at their size, wrapped to the page width.
fn layout(text: &str) -> Vec<SetLine> {
    let mut out = Vec::new();
    let mut first_row = true;
    let mut gap = 0.0;
    for l in markdown::lines(text) {
        let (text, size, bold, before) = match l {
            Line::Heading(n, t) => {
                let size = match n {
                    1 => 18.0,
                    2 => 15.0,
                    3 => 13.0,
                    _ => 12.0,
                };
                (t, size, true, size * 0.8)
            }
            Line::Row(cells) => {
                let header = std::mem::replace(&mut first_row, false);
                (cells.join("  |  "), BODY - 1.0, header, 0.0)
            }
            Line::Bullet(t) => (format!("- {t}"), BODY, false, 0.0),
            Line::Image(t, p) => (format!("[{t}] {p}"), BODY, false, 0.0),
            Line::Text(t) => (t, BODY, false, 2.0),
            Line::Blank => {
                first_row = true;
                gap = BODY * 0.5;
                continue;
            }
        };
        if !text.is_empty() {
            for (i, piece) in wrap(&text, size, bold).into_iter().enumerate() {
                out.push(SetLine {
                    text: piece,
                    size,
                    bold,
                    before: if i == 0 { before + gap } else { 0.0 },
                });
            }
            gap = 0.0;
        }
    }
    out
}

/// Greedy wrapping: Latin words kept whole where they fit, other scripts
/// broken between any two characters.
fn wrap(text: &str, size: f32, bold: bool) -> Vec<String> {
    let limit = (PAGE_W - 2.0 * MARGIN) * 1000.0 / size;
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut used = 0.0;
    for token in tokens(text) {
        let w: f32 = token.chars().map(|c| width(c, bold)).sum();
        if used + w > limit && !line.is_empty() {
            lines.push(std::mem::take(&mut line).trim_end().to_string());
            used = 0.0;
        }
        if w > limit {
            for c in token.chars() {
                let cw = width(c, bold);
                if used + cw > limit && !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                    used = 0.0;
                }
                line.push(c);
                used += cw;
            }
        } else {
            line.push_str(&token);
            used += w;
        }
    }
    if !line.trim().is_empty() {
        lines.push(line.trim_end().to_string());
    }
    lines
}

/// Words with their following spaces, and each non-Latin character alone.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if !c.is_ascii() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            out.push(c.to_string());
        } else {
            word.push(c);
            if c == ' ' {
                out.push(std::mem::take(&mut word));
            }
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Lines into pages, by their heights.
fn paginate(lines: &[SetLine]) -> Vec<Vec<(f32, &SetLine)>> {
    let mut pages = vec![Vec::new()];
    let mut y = PAGE_H - MARGIN;
    for line in lines {
        let height = line.size * 1.45 + line.before;
        if y - height < MARGIN && !pages.last().is_none_or(Vec::is_empty) {
            pages.push(Vec::new());
            y = PAGE_H - MARGIN;
        }
        y -= height;
        if let Some(page) = pages.last_mut() {
            page.push((y, line));
        }
    }
    pages
}

fn page_operations(page: &[(f32, &SetLine)]) -> Vec<Operation> {
    let mut ops = Vec::new();
    for (y, line) in page {
        ops.push(Operation::new("BT", vec![]));
        ops.push(Operation::new("Td", vec![MARGIN.into(), (*y).into()]));
        for (latin, run) in runs(&line.text) {
            let (font, bytes) = if latin {
                (if line.bold { "F3" } else { "F1" }, run.into_bytes())
            } else {
                let mut b = Vec::new();
                for c in run.chars() {
                    let unit = u16::try_from(c as u32).unwrap_or(u16::from(b'?'));
                    b.extend(unit.to_be_bytes());
                }
                ("F2", b)
            };
            ops.push(Operation::new("Tf", vec![font.into(), line.size.into()]));
            ops.push(Operation::new(
                "Tj",
                vec![Object::String(bytes, StringFormat::Hexadecimal)],
            ));
        }
        ops.push(Operation::new("ET", vec![]));
    }
    ops
}

/// Runs of printable ASCII (Helvetica) and of everything else.
fn runs(text: &str) -> Vec<(bool, String)> {
    let mut out: Vec<(bool, String)> = Vec::new();
    for c in text.chars() {
        let c = if c.is_ascii_control() { ' ' } else { c };
        let latin = c.is_ascii();
        match out.last_mut() {
            Some((l, run)) if *l == latin => run.push(c),
            _ => out.push((latin, c.to_string())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pdf_has_pages_and_its_text() {
        let long = "数据".repeat(2000);
        let pdf = to_pdf("报告", &format!("# 结论\n\nSales rose by 12%.\n\n{long}")).unwrap();
        assert!(pdf.starts_with(b"%PDF-1.5"));
        let doc = Document::load_mem(&pdf).unwrap();
        assert!(
            doc.get_pages().len() >= 2,
            "4,000 characters fill more than a page"
        );
        assert_eq!(wrap("a b", 11.0, false), ["a b"]);
        assert!(wrap(&"字".repeat(100), 11.0, false).len() >= 2);
    }
}
