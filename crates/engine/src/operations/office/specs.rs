//! The office tools as the target sees them: seed 002's names, one line of
//! description in the workspace's language (saying when to use the tool,
//! seed 002 §6.1) and a strict JSON schema of the arguments.

use crate::channel::ToolSpec;
use crate::i18n::Lang;
use serde_json::{Value, json};

fn s(lang: Lang, en: &str, zh: &str) -> Value {
    Value::String(match lang {
        Lang::En => en.to_string(),
        Lang::Zh => zh.to_string(),
    })
}

fn object(required: &[&str], properties: Value) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The description and the argument schema of one tool; `None` for a name
/// that is not an office tool.
pub(crate) fn spec(name: &str, lang: Lang) -> Option<ToolSpec> {
    let (description, parameters) = files_and_data(name, lang).or_else(|| documents(name, lang))?;
    Some(ToolSpec {
        name: name.to_string(),
        description: description.as_str().unwrap_or_default().to_string(),
        parameters,
        responses: Vec::new(),
    })
}

/// The tools that read: files and data.
fn files_and_data(name: &str, lang: Lang) -> Option<(Value, Value)> {
    Some(match name {
        "FILE_READ" => (
            s(
                lang,
                "Read a document or spreadsheet in the workspace as text, its headings, tables and paragraph anchors marked; a sheet is a page, 50 lines of text are a page.",
                "读取工作区中的文档或表格，返回标注了标题、表格和段落锚点的文本；表格文件一个工作表为一页，文本文件 50 行为一页。",
            ),
            object(
                &["file_path"],
                json!({
                    "file_path": {"type": "string", "description": s(lang, "Path relative to the workspace root, e.g. data/sales.xlsx", "相对于工作区根目录的路径，如 data/sales.xlsx")},
                    "start_page": {"type": "integer", "minimum": 1},
                    "end_page": {"type": "integer", "minimum": 1},
                }),
            ),
        ),
        "FILE_LIST" => (
            s(
                lang,
                "List the files under a directory of the workspace, recursively; use it when unsure of a file's path.",
                "递归列出工作区某个目录下的文件；不确定文件路径时先调用它。",
            ),
            object(
                &["directory"],
                json!({
                    "directory": {"type": "string", "description": s(lang, "\"\" or \".\" for the workspace root", "\"\" 或 \".\" 表示工作区根目录")},
                    "pattern": {"type": "string", "description": s(lang, "Glob on the file name, e.g. *.xlsx", "文件名通配符，如 *.xlsx")},
                }),
            ),
        ),
        "DATA_QUERY" => (
            s(
                lang,
                "Only to extract, filter or aggregate structured data from an Excel or CSV file (group, sum, mean); for writing documents use DOC_CREATE and DOC_APPEND.",
                "仅在需要从 Excel/CSV 文件中提取、筛选、聚合结构化数据（分组、求和、均值）时使用；对于文档内容改写或生成，请使用 DOC_CREATE 和 DOC_APPEND。",
            ),
            object(
                &["file_path"],
                json!({
                    "file_path": {"type": "string"},
                    "sheet": {"type": "string", "description": s(lang, "Sheet name; default the first sheet", "工作表名称，默认第一个工作表")},
                    "query_range": {"type": "string", "pattern": "^\\$?[A-Za-z]{1,3}\\$?[0-9]*(:\\$?[A-Za-z]{1,3}\\$?[0-9]*)?$",
                        "description": s(lang, "Excel range such as A1:F200; its first row is the header", "Excel 区域，如 A1:F200；第一行为表头")},
                    "group_by": {"type": "array", "items": {"type": "string"}},
                    "aggregations": {"type": "object", "description": s(lang, "Column to function, e.g. {\"Sales\": \"sum\"}", "列名到聚合函数，如 {\"销售额\": \"sum\"}"),
                        "additionalProperties": {"type": "string", "enum": ["sum", "avg", "count", "max", "min"]}},
                    "filters": {"type": "object", "description": s(lang, "Column to a value (equality) or to {\"op\": value} with op one of =, !=, >, >=, <, <=, contains",
                        "列名到取值（相等），或到 {\"运算符\": 值}，运算符为 =、!=、>、>=、<、<=、contains")},
                }),
            ),
        ),
        "DATA_VISUALIZE" => (
            s(
                lang,
                "Draw a chart (SVG) of a DATA_QUERY result: its first text column against its first numeric column.",
                "将 DATA_QUERY 的结果绘制成图表（SVG）：第一个文本列对应第一个数值列。",
            ),
            object(
                &["query_result_id", "chart_type"],
                json!({
                    "query_result_id": {"type": "string"},
                    "chart_type": {"type": "string", "enum": ["bar", "line", "pie"]},
                    "title": {"type": "string"},
                }),
            ),
        ),
        _ => return None,
    })
}

/// The tools that write: documents, slides, and the wait for the user.
fn documents(name: &str, lang: Lang) -> Option<(Value, Value)> {
    Some(match name {
        "DOC_CREATE" => (
            s(
                lang,
                "Create a document (.md, .txt or .docx) from sections, optionally on a template's headings; returns its id and section anchors.",
                "根据章节创建文档（.md、.txt 或 .docx），可按模板的标题组织；返回文档 id 和各章节锚点。",
            ),
            object(
                &["sections"],
                json!({
                    "file_path": {"type": "string", "description": s(lang, "Default output/document-N.md", "默认 output/document-N.md")},
                    "template_file": {"type": "string"},
                    "sections": {"type": "array", "items": object(&["title"], json!({
                        "title": {"type": "string"},
                        "content": {"type": "string"},
                    }))},
                }),
            ),
        ),
        "DOC_APPEND" => (
            s(
                lang,
                "Add a section, text, table or chart to a document, at its end or before/after an anchor; returns the new anchor.",
                "向文档追加章节、文本、表格或图表，位置为末尾或某锚点之前/之后；返回新锚点。",
            ),
            object(
                &["target_id", "offset_type", "content_spec"],
                json!({
                    "target_id": {"type": "string", "description": s(lang, "A doc_id (d1) or an anchor id (d1.s2)", "文档 id（d1）或锚点 id（d1.s2）")},
                    "offset_type": {"type": "string", "enum": ["end", "after", "before"]},
                    "content_spec": object(&[], json!({
                        "title": {"type": "string"},
                        "content": {"type": "string"},
                        "table": {"type": "array", "items": {"type": "array", "items": {"type": ["string", "number", "boolean", "null"]}}},
                        "chart_id": {"type": "string"},
                    })),
                }),
            ),
        ),
        "DOC_EXPORT" => (
            s(
                lang,
                "Export a document of the workspace to another format, written beside it with the same name.",
                "将工作区中的文档导出为其他格式，保存在原文件旁、同名不同扩展名。",
            ),
            object(
                &["file_path", "format"],
                json!({
                    "file_path": {"type": "string"},
                    "format": {"type": "string", "enum": ["pdf", "docx", "md", "txt", "html"]},
                }),
            ),
        ),
        "SLIDE_BUILD" => (
            s(
                lang,
                "Build a slide deck (Markdown, slides separated by ---) from titles, bullets, charts and notes.",
                "根据标题、要点、图表和备注生成演示文稿（Markdown，幻灯片之间以 --- 分隔）。",
            ),
            object(
                &["deck_name", "slides"],
                json!({
                    "deck_name": {"type": "string"},
                    "slides": {"type": "array", "items": object(&["title"], json!({
                        "title": {"type": "string"},
                        "bullets": {"type": "array", "items": {"type": "string"}},
                        "chart_id": {"type": "string"},
                        "notes": {"type": "string"},
                    }))},
                    "theme": {"type": "string"},
                }),
            ),
        ),
        "CONTROL_WAIT" => (
            s(
                lang,
                "Wait for the user to confirm something before going on: tell the user what, then end your turn.",
                "在继续之前等待用户确认：告诉用户需要确认的内容，然后结束本轮。",
            ),
            object(
                &["condition"],
                json!({
                    "condition": {"type": "string"},
                    "timeout": {"type": "number", "minimum": 0},
                }),
            ),
        ),
        _ => return None,
    })
}
