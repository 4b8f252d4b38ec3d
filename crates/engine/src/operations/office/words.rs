//! What the office tools say when a call fails: seed 002's error shape
//! (`code`, `message`, `suggestion`) in the workspace's language. The
//! message says what is wrong with this call, the suggestion what the agent
//! can do next (another argument, another tool).

use crate::domain::steps::ToolError;
use crate::i18n::Lang;

/// Words in both languages, for a detail that only the failing code knows.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Said {
    pub en: String,
    pub zh: String,
}

impl Said {
    pub fn new(en: impl Into<String>, zh: impl Into<String>) -> Self {
        Self {
            en: en.into(),
            zh: zh.into(),
        }
    }

    fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::En => &self.en,
            Lang::Zh => &self.zh,
        }
    }
}

/// Why a call of an office tool failed. Each becomes one error code.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Failure {
    FileNotFound(String),
    DirectoryNotFound(String),
    SheetNotFound {
        sheet: String,
        sheets: Vec<String>,
    },
    ColumnNotFound {
        column: String,
        columns: Vec<String>,
    },
    InvalidRange {
        range: String,
    },
    InvalidPath(String),
    InvalidArguments(Said),
    UnsupportedFormat {
        path: String,
        supported: &'static str,
    },
    QueryNotFound(String),
    DocumentNotFound(String),
    FileTooLarge {
        path: String,
        limit_mb: u64,
    },
    /// The file is there but cannot be parsed as its extension says.
    FileUnreadable {
        path: String,
        cause: String,
    },
    /// Writing into the workspace failed (a full disk, say).
    WriteFailed {
        path: String,
        cause: String,
    },
}

fn list(items: &[String]) -> String {
    const SHOWN: usize = 30;
    let mut s = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > SHOWN {
        s.push_str(&format!(", … (+{})", items.len() - SHOWN));
    }
    s
}

impl Failure {
    pub fn code(&self) -> &'static str {
        match self {
            Self::FileNotFound(_) => "FILE_NOT_FOUND",
            Self::DirectoryNotFound(_) => "DIRECTORY_NOT_FOUND",
            Self::SheetNotFound { .. } => "SHEET_NOT_FOUND",
            Self::ColumnNotFound { .. } => "COLUMN_NOT_FOUND",
            Self::InvalidRange { .. } => "INVALID_RANGE",
            Self::InvalidPath(_) => "INVALID_PATH",
            Self::InvalidArguments(_) => "INVALID_ARGUMENTS",
            Self::UnsupportedFormat { .. } => "UNSUPPORTED_FORMAT",
            Self::QueryNotFound(_) => "QUERY_NOT_FOUND",
            Self::DocumentNotFound(_) => "DOCUMENT_NOT_FOUND",
            Self::FileTooLarge { .. } => "FILE_TOO_LARGE",
            Self::FileUnreadable { .. } => "FILE_UNREADABLE",
            Self::WriteFailed { .. } => "WRITE_FAILED",
        }
    }

    /// The error the agent reads, in `lang`.
    pub fn to_error(&self, lang: Lang) -> ToolError {
        let (message, suggestion) = match lang {
            Lang::En => self.english(),
            Lang::Zh => self.chinese(),
        };
        ToolError {
            code: self.code().to_string(),
            message,
            suggestion,
        }
    }

    fn english(&self) -> (String, String) {
        match self {
            Self::FileNotFound(p) => (
                format!("File {p} does not exist"),
                "Give the right path in the file_path argument, or call FILE_LIST first to see the files there are".into(),
            ),
            Self::DirectoryNotFound(p) => (
                format!("Directory {p} does not exist"),
                "Call FILE_LIST with directory \"\" to list every file of the workspace".into(),
            ),
            Self::SheetNotFound { sheet, sheets } => (
                format!("Sheet {sheet} does not exist"),
                format!("The sheets of this file are: {}. Pass one of them in the sheet argument, or leave it out for the first", list(sheets)),
            ),
            Self::ColumnNotFound { column, columns } => (
                format!("Column {column} does not exist"),
                format!("The columns (the range's first row) are: {}", list(columns)),
            ),
            Self::InvalidRange { range } => (
                format!("Range {range} is not a valid cell range"),
                "Write it as A1:F200: columns are letters, rows are numbers starting at 1 (there is no row 0), the first cell above and left of the last".into(),
            ),
            Self::InvalidPath(p) => (
                format!("Path {p} is outside the workspace"),
                "Give a path relative to the workspace root, /-separated, without .. and not starting with /".into(),
            ),
            Self::InvalidArguments(said) => (
                format!("Invalid arguments: {}", said.get(Lang::En)),
                "Correct the arguments as the tool's schema describes them".into(),
            ),
            Self::UnsupportedFormat { path, supported } => (
                format!("The format of {path} is not supported here"),
                format!("Supported: {supported}"),
            ),
            Self::QueryNotFound(id) => (
                format!("Query result {id} does not exist"),
                "Call DATA_QUERY first and pass the query_result_id it returns".into(),
            ),
            Self::DocumentNotFound(id) => (
                format!("Document or anchor {id} does not exist"),
                "Pass a doc_id or an anchor id returned by DOC_CREATE or DOC_APPEND, or the path of a document in the workspace".into(),
            ),
            Self::FileTooLarge { path, limit_mb } => (
                format!("File {path} is larger than {limit_mb} MB"),
                "Query a smaller file, or a part of it with query_range".into(),
            ),
            Self::FileUnreadable { path, cause } => (
                format!("File {path} could not be read: {cause}"),
                "Check that the file is what its extension says; call FILE_LIST to see the other files".into(),
            ),
            Self::WriteFailed { path, cause } => (
                format!("File {path} could not be written: {cause}"),
                "Try another path, or tell the user what could not be done".into(),
            ),
        }
    }

    fn chinese(&self) -> (String, String) {
        match self {
            Self::FileNotFound(p) => (
                format!("文件 {p} 不存在"),
                "请在 file_path 参数中提供正确路径，或先调用 FILE_LIST 查看可用文件".into(),
            ),
            Self::DirectoryNotFound(p) => (
                format!("目录 {p} 不存在"),
                "请调用 FILE_LIST 并传入 directory \"\"，查看工作区中的全部文件".into(),
            ),
            Self::SheetNotFound { sheet, sheets } => (
                format!("工作表 {sheet} 不存在"),
                format!("该文件的工作表有：{}。请在 sheet 参数中选择其一，或省略以使用第一个工作表", list(sheets)),
            ),
            Self::ColumnNotFound { column, columns } => (
                format!("列 {column} 不存在"),
                format!("可用的列（区域第一行）有：{}", list(columns)),
            ),
            Self::InvalidRange { range } => (
                format!("区域 {range} 不是合法的单元格范围"),
                "请写成 A1:F200 的形式：Excel 行号从 1 开始（没有第 0 行），列号用字母表示，起始单元格在结束单元格的左上方".into(),
            ),
            Self::InvalidPath(p) => (
                format!("路径 {p} 超出了工作区"),
                "请使用相对于工作区根目录、以 / 分隔的路径，不要包含 ..，也不要以 / 开头".into(),
            ),
            Self::InvalidArguments(said) => (
                format!("参数不合法：{}", said.get(Lang::Zh)),
                "请按照工具的参数说明修正参数".into(),
            ),
            Self::UnsupportedFormat { path, supported } => (
                format!("不支持文件 {path} 的格式"),
                format!("支持的格式：{supported}"),
            ),
            Self::QueryNotFound(id) => (
                format!("查询结果 {id} 不存在"),
                "请先调用 DATA_QUERY，并传入它返回的 query_result_id".into(),
            ),
            Self::DocumentNotFound(id) => (
                format!("文档或锚点 {id} 不存在"),
                "请传入 DOC_CREATE 或 DOC_APPEND 返回的 doc_id 或锚点 id，或工作区中文档的路径".into(),
            ),
            Self::FileTooLarge { path, limit_mb } => (
                format!("文件 {path} 超过 {limit_mb} MB"),
                "请查询较小的文件，或用 query_range 只查询其中一部分".into(),
            ),
            Self::FileUnreadable { path, cause } => (
                format!("无法读取文件 {path}：{cause}"),
                "请确认文件内容与扩展名相符；可调用 FILE_LIST 查看其他文件".into(),
            ),
            Self::WriteFailed { path, cause } => (
                format!("无法写入文件 {path}：{cause}"),
                "请换一个路径，或告诉用户哪一步未能完成".into(),
            ),
        }
    }
}

/// Shorthand for an invalid argument, said in both languages.
pub(crate) fn invalid(en: impl Into<String>, zh: impl Into<String>) -> Failure {
    Failure::InvalidArguments(Said::new(en, zh))
}

/// Words the documents and the file reader write, in the workspace's
/// language.
pub(crate) fn table_label(lang: Lang, n: usize) -> String {
    match lang {
        Lang::En => format!("[Table {n}]"),
        Lang::Zh => format!("[表格 {n}]"),
    }
}

pub(crate) fn sheet_heading(lang: Lang, name: &str, rows: usize, cols: usize) -> String {
    match lang {
        Lang::En => format!("## Sheet: {name} ({rows} rows × {cols} columns)"),
        Lang::Zh => format!("## Sheet: {name} ({rows} 行 × {cols} 列)"),
    }
}

pub(crate) fn more_rows(lang: Lang, n: usize) -> String {
    match lang {
        Lang::En => format!("… {n} more rows (DATA_QUERY reads them all)"),
        Lang::Zh => format!("… 还有 {n} 行（DATA_QUERY 可读取全部数据）"),
    }
}

/// The name of a column whose header cell is blank (`n` from 1).
pub(crate) fn blank_column(lang: Lang, n: usize) -> String {
    match lang {
        Lang::En => format!("col{n}"),
        Lang::Zh => format!("列{n}"),
    }
}

pub(crate) fn cut_marker(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "[… cut: ask for fewer pages with start_page and end_page]",
        Lang::Zh => "[… 内容过长已截断：请用 start_page 和 end_page 读取部分页]",
    }
}
