//! A sheet read as computed values: an `.xlsx`, `.xlsm`, `.xls` or `.ods`
//! workbook through calamine (a formula's cached value, never the formula:
//! openpyxl's `data_only=True`), or a `.csv` file as one sheet. A merged
//! area's top-left value fills every cell of the area (seed 002 §6.3's
//! defensive reading). Ranges are Excel's `A1:F200`.

use super::words::Failure;
use calamine::{Data, Reader, Sheets, open_workbook_auto};
use serde_json::{Value, json};
use std::io::BufReader;
use std::path::Path;

/// One cell's computed value.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) enum Cell {
    #[default]
    Empty,
    Int(i64),
    Float(f64),
    Text(String),
    Bool(bool),
    /// A date or a date and time, ISO 8601.
    Date(String),
}

impl Cell {
    /// A number: whole ones as integers (within f64's exact range).
    pub fn number(x: f64) -> Cell {
        if x.fract() == 0.0 && x.abs() < 9.0e15 {
            Cell::Int(x as i64)
        } else {
            Cell::Float(x)
        }
    }

    pub fn is_empty(&self) -> bool {
        matches!(self, Cell::Empty) || matches!(self, Cell::Text(s) if s.trim().is_empty())
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// As JSON: numbers as numbers, dates as ISO strings, empty as null.
    pub fn to_json(&self) -> Value {
        match self {
            Cell::Empty => Value::Null,
            Cell::Int(i) => json!(i),
            Cell::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Cell::Text(s) | Cell::Date(s) => json!(s),
            Cell::Bool(b) => json!(b),
        }
    }

    /// As text: what a table shows.
    pub fn text(&self) -> String {
        match self {
            Cell::Empty => String::new(),
            Cell::Int(i) => i.to_string(),
            Cell::Float(f) => f.to_string(),
            Cell::Text(s) | Cell::Date(s) => s.clone(),
            Cell::Bool(b) => b.to_string(),
        }
    }

    fn from_data(data: &Data) -> Cell {
        match data {
            Data::Empty => Cell::Empty,
            Data::Int(i) => Cell::Int(*i),
            Data::Float(f) => Cell::number(*f),
            Data::String(s) => Cell::Text(s.clone()),
            Data::Bool(b) => Cell::Bool(*b),
            Data::DateTime(dt) if dt.is_datetime() => {
                let (y, mo, d, h, mi, s, _) = dt.to_ymd_hms_milli();
                if dt.as_f64() < 1.0 {
                    Cell::Date(format!("{h:02}:{mi:02}:{s:02}"))
                } else if (h, mi, s) == (0, 0, 0) {
                    Cell::Date(format!("{y:04}-{mo:02}-{d:02}"))
                } else {
                    Cell::Date(format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}"))
                }
            }
            Data::DateTime(dt) => Cell::number(dt.as_f64()),
            Data::DateTimeIso(s) => Cell::Date(s.clone()),
            Data::DurationIso(s) => Cell::Text(s.clone()),
            Data::Error(e) => Cell::Text(e.to_string()),
        }
    }

    /// A CSV field: a number, a boolean or text.
    fn from_field(field: &str) -> Cell {
        let t = field.trim();
        if t.is_empty() {
            return Cell::Empty;
        }
        if let Ok(i) = t.parse::<i64>() {
            return Cell::Int(i);
        }
        if let Ok(f) = t.parse::<f64>()
            && f.is_finite()
            && t.chars().any(|c| c.is_ascii_digit())
        {
            return Cell::number(f);
        }
        match t.to_ascii_lowercase().as_str() {
            "true" => Cell::Bool(true),
            "false" => Cell::Bool(false),
            _ => Cell::Text(field.to_string()),
        }
    }
}

/// A sheet's cells, by absolute (0-based) row and column.
#[derive(Debug, Clone, Default)]
pub(crate) struct Grid {
    /// The top-left cell of the used area.
    pub origin: (u32, u32),
    /// Rows of the used area, each `width` long.
    pub rows: Vec<Vec<Cell>>,
    pub width: usize,
}

impl Grid {
    pub fn get(&self, row: u32, col: u32) -> &Cell {
        static EMPTY: Cell = Cell::Empty;
        let (Some(r), Some(c)) = (
            row.checked_sub(self.origin.0),
            col.checked_sub(self.origin.1),
        ) else {
            return &EMPTY;
        };
        self.rows
            .get(r as usize)
            .and_then(|row| row.get(c as usize))
            .unwrap_or(&EMPTY)
    }

    /// The used area as a range (`None` when the sheet is empty).
    pub fn used(&self) -> Option<CellRange> {
        if self.rows.is_empty() || self.width == 0 {
            return None;
        }
        Some(CellRange {
            first: self.origin,
            last: (
                self.origin.0 + self.rows.len() as u32 - 1,
                self.origin.1 + self.width as u32 - 1,
            ),
        })
    }

    /// Copies each merged area's top-left value into its other cells.
    fn fill_merged(&mut self, areas: &[CellRange]) {
        for &CellRange {
            first: start,
            last: end,
        } in areas
        {
            let value = self.get(start.0, start.1).clone();
            if value == Cell::Empty {
                continue;
            }
            for row in start.0..=end.0 {
                for col in start.1..=end.1 {
                    let (Some(r), Some(c)) = (
                        row.checked_sub(self.origin.0),
                        col.checked_sub(self.origin.1),
                    ) else {
                        continue;
                    };
                    if let Some(cell) = self
                        .rows
                        .get_mut(r as usize)
                        .and_then(|cells| cells.get_mut(c as usize))
                    {
                        *cell = value.clone();
                    }
                }
            }
        }
    }
}

/// A workbook's sheet names and one sheet's grid.
pub(crate) struct Loaded {
    pub sheets: Vec<String>,
    pub name: String,
    pub grid: Grid,
}

/// Whether the tools read this extension as a sheet.
pub(crate) fn is_sheet(ext: &str) -> bool {
    matches!(ext, "xlsx" | "xlsm" | "xls" | "ods" | "csv")
}

pub(crate) const SHEET_FORMATS: &str = ".xlsx, .xlsm, .xls, .ods, .csv";

/// The sheet `sheet` (default: the first) of the file at `path`. A CSV
/// file is one sheet named after the file; `sheet` is not asked of it.
pub(crate) fn load(path: &Path, rel: &str, sheet: Option<&str>) -> Result<Loaded, Failure> {
    let ext = super::paths::extension(rel);
    let unreadable = |cause: String| Failure::FileUnreadable {
        path: rel.to_string(),
        cause,
    };
    if ext == "csv" {
        let grid = load_csv(path).map_err(unreadable)?;
        let name = Path::new(rel)
            .file_stem()
            .map_or("Sheet1".into(), |s| s.to_string_lossy().into_owned());
        return Ok(Loaded {
            sheets: vec![name.clone()],
            name,
            grid,
        });
    }
    if !is_sheet(&ext) {
        return Err(Failure::UnsupportedFormat {
            path: rel.to_string(),
            supported: SHEET_FORMATS,
        });
    }
    // A parser may panic on a malformed file; the agent gets an error.
    let caught = std::panic::catch_unwind(|| load_workbook(path, sheet));
    match caught {
        Ok(Ok(Some(loaded))) => Ok(loaded),
        Ok(Ok(None)) => Err(Failure::SheetNotFound {
            sheet: sheet.unwrap_or_default().to_string(),
            sheets: open_workbook_auto(path)
                .map(|b| b.sheet_names())
                .unwrap_or_default(),
        }),
        Ok(Err(cause)) => Err(unreadable(cause)),
        Err(_) => Err(unreadable("the file is malformed".into())),
    }
}

/// `Ok(None)` when the workbook has no sheet of that name.
fn load_workbook(path: &Path, sheet: Option<&str>) -> Result<Option<Loaded>, String> {
    let mut book = open_workbook_auto(path).map_err(|e| e.to_string())?;
    let sheets = book.sheet_names();
    let name = match sheet.filter(|s| !s.is_empty()) {
        None => match sheets.first() {
            Some(first) => first.clone(),
            None => return Ok(None),
        },
        Some(asked) => match sheets.iter().find(|s| s.as_str() == asked).or_else(|| {
            sheets
                .iter()
                .find(|s| s.trim().eq_ignore_ascii_case(asked.trim()))
        }) {
            Some(found) => found.clone(),
            None => return Ok(None),
        },
    };
    let range = book.worksheet_range(&name).map_err(|e| e.to_string())?;
    let mut grid = Grid {
        origin: range.start().unwrap_or((0, 0)),
        width: range.width(),
        rows: range
            .rows()
            .map(|row| row.iter().map(Cell::from_data).collect())
            .collect(),
    };
    grid.fill_merged(&merged_areas(&mut book, &name));
    Ok(Some(Loaded { sheets, name, grid }))
}

/// The merged areas of a sheet, as ((first row, first col), (last row,
/// last col)); none for the formats calamine gives none of.
fn merged_areas(book: &mut Sheets<BufReader<std::fs::File>>, name: &str) -> Vec<CellRange> {
    let dims = match book {
        Sheets::Xlsx(x) => x.merge_cells_by_sheet_name(name).unwrap_or_default(),
        Sheets::Xls(x) => x.merge_cells_by_sheet_name(name).unwrap_or_default(),
        Sheets::Xlsb(_) | Sheets::Ods(_) => Vec::new(),
    };
    dims.into_iter()
        .map(|d| CellRange {
            first: d.start,
            last: d.end,
        })
        .collect()
}

fn load_csv(path: &Path) -> Result<Grid, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    for record in reader.byte_records() {
        let record = record.map_err(|e| e.to_string())?;
        rows.push(
            record
                .iter()
                .map(|f| Cell::from_field(&String::from_utf8_lossy(f)))
                .collect(),
        );
    }
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    for row in &mut rows {
        row.resize(width, Cell::Empty);
    }
    Ok(Grid {
        origin: (0, 0),
        rows,
        width,
    })
}

/// A rectangle of cells, 0-based, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CellRange {
    pub first: (u32, u32),
    pub last: (u32, u32),
}

/// Excel's limits: 1,048,576 rows, 16,384 columns (`XFD`).
const MAX_ROWS: u32 = 1_048_576;
const MAX_COLS: u32 = 16_384;

impl CellRange {
    /// `A1:F200`, `a1:f200`, `$A$1:$F$200`, `B3` (one cell), or `A:F`
    /// (whole columns, every row of `used`). `INVALID_RANGE` otherwise:
    /// row 0, letters past `XFD`, the end above or left of the start.
    pub fn parse(text: &str, used: Option<CellRange>) -> Result<CellRange, Failure> {
        let invalid = || Failure::InvalidRange {
            range: text.to_string(),
        };
        let cleaned: String = text.trim().replace('$', "").to_ascii_uppercase();
        let (a, b) = cleaned.split_once(':').unwrap_or((&cleaned, &cleaned));
        let (first, last) = match (cell_ref(a), cell_ref(b)) {
            (Some((Some(r1), c1)), Some((Some(r2), c2))) => ((r1, c1), (r2, c2)),
            (Some((None, c1)), Some((None, c2))) if cleaned.contains(':') => {
                let rows = used.map_or((0, 0), |u| (u.first.0, u.last.0));
                ((rows.0, c1), (rows.1, c2))
            }
            _ => return Err(invalid()),
        };
        if first.0 > last.0 || first.1 > last.1 {
            return Err(invalid());
        }
        Ok(CellRange { first, last })
    }

    pub fn width(&self) -> usize {
        (self.last.1 - self.first.1 + 1) as usize
    }
}

/// `B12` as (Some(row 11), col 1); `B` as (None, 1). `None` when it is not
/// a cell reference within Excel's limits (row 0 is none).
fn cell_ref(text: &str) -> Option<(Option<u32>, u32)> {
    let letters: String = text.chars().take_while(char::is_ascii_uppercase).collect();
    let digits = &text[letters.len()..];
    if letters.is_empty() || letters.len() > 3 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let col = letters
        .bytes()
        .fold(0u32, |acc, b| acc * 26 + u32::from(b - b'A' + 1));
    if col > MAX_COLS {
        return None;
    }
    if digits.is_empty() {
        return Some((None, col - 1));
    }
    let row: u32 = digits.parse().ok()?;
    if row == 0 || row > MAX_ROWS {
        return None;
    }
    Some((Some(row - 1), col - 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_excel_ranges() {
        let r = CellRange::parse("A1:F200", None).unwrap();
        assert_eq!((r.first, r.last), ((0, 0), (199, 5)));
        let r = CellRange::parse("$b$3", None).unwrap();
        assert_eq!((r.first, r.last), ((2, 1), (2, 1)));
        let used = CellRange {
            first: (0, 0),
            last: (9, 9),
        };
        let r = CellRange::parse("C:D", Some(used)).unwrap();
        assert_eq!((r.first, r.last), ((0, 2), (9, 3)));
        for bad in [
            "A0:F10",
            "F10:A1",
            "1A:B2",
            "",
            "A1:XFE2",
            "ZZZZ1",
            "A1:B1048577",
        ] {
            assert_eq!(
                CellRange::parse(bad, None).unwrap_err().code(),
                "INVALID_RANGE",
                "{bad} is no range"
            );
        }
    }

    #[test]
    fn csv_fields_are_typed() {
        assert_eq!(Cell::from_field("12"), Cell::Int(12));
        assert_eq!(Cell::from_field("1.5"), Cell::Float(1.5));
        assert_eq!(Cell::from_field(" "), Cell::Empty);
        assert_eq!(Cell::from_field("TRUE"), Cell::Bool(true));
        assert_eq!(Cell::from_field("inf"), Cell::Text("inf".into()));
        assert_eq!(Cell::from_field("华东"), Cell::Text("华东".into()));
    }
}
