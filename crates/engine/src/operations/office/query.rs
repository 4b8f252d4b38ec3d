//! `DATA_QUERY`, seed 002 §4.4's pipeline: the range's first row is the
//! header, the rows below are records; filters, then `group_by`, then the
//! aggregations; the first 100 rows of the result with the count of all.
//!
//! An aggregate's column is named `<column>_<function>` (`销售额_sum`);
//! group columns come first, groups in the order first seen. `group_by`
//! without aggregations gives each group's `count` of rows. The records are
//! read in place in the parsed sheet, never copied.

use super::aggregate::{Acc, Func};
use super::args;
use super::filter::{Condition, conditions};
use super::sheet::{Cell, CellRange, Grid};
use super::words::{Failure, blank_column, invalid};
use crate::i18n::Lang;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// Rows of a result the agent sees (seed 002: the first 100).
pub const ROWS_RETURNED: usize = 100;
/// Rows of a result kept with it, for its chart.
pub const KEPT_ROWS: usize = 1_000;

/// A header and its records, over a parsed sheet.
#[derive(Debug, Clone)]
pub(crate) struct Table<'g> {
    pub columns: Vec<String>,
    grid: &'g Grid,
    first_col: u32,
    /// The records' rows in the sheet (from 0), wholly empty ones left out.
    rows: Vec<u32>,
}

impl<'g> Table<'g> {
    /// The range of `grid` (its used area by default) as a table: the first
    /// row names the columns (a blank one `列N`/`colN`, a repeated one gets
    /// `_2`), rows that are wholly empty are left out.
    pub fn of(grid: &'g Grid, range: Option<&str>, lang: Lang) -> Result<Table<'g>, Failure> {
        let used = grid.used();
        let empty = Table {
            columns: Vec::new(),
            grid,
            first_col: 0,
            rows: Vec::new(),
        };
        let range = match range.map(str::trim).filter(|r| !r.is_empty()) {
            Some(text) => {
                let text = text.rsplit_once('!').map_or(text, |(_, r)| r);
                CellRange::parse(text, used)?
            }
            None => match used {
                Some(u) => u,
                None => return Ok(empty),
            },
        };
        let cols = range.first.1..=range.last.1;
        let mut columns: Vec<String> = Vec::with_capacity(range.width());
        for (i, col) in cols.clone().enumerate() {
            let header = grid.get(range.first.0, col).text().trim().to_string();
            let mut name = if header.is_empty() {
                blank_column(lang, i + 1)
            } else {
                header
            };
            let base = name.clone();
            let mut n = 2;
            while columns.contains(&name) {
                name = format!("{base}_{n}");
                n += 1;
            }
            columns.push(name);
        }
        let last_row = used.map_or(range.first.0, |u| u.last.0).min(range.last.0);
        let rows = (range.first.0 + 1..=last_row)
            .filter(|&row| cols.clone().any(|c| !grid.get(row, c).is_empty()))
            .collect();
        Ok(Table {
            columns,
            grid,
            first_col: range.first.1,
            rows,
        })
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The cell of a record (from 0) in a column (from 0).
    pub fn cell(&self, record: usize, column: usize) -> &'g Cell {
        self.grid
            .get(self.rows[record], self.first_col + column as u32)
    }

    /// A record's cells, copied.
    pub fn record(&self, record: usize) -> Vec<Cell> {
        (0..self.columns.len())
            .map(|c| self.cell(record, c).clone())
            .collect()
    }

    /// The index of a column by its name (exact, else trimmed and
    /// case-insensitive).
    pub fn column(&self, name: &str) -> Result<usize, Failure> {
        let wanted = name.trim().to_lowercase();
        self.columns
            .iter()
            .position(|c| c == name)
            .or_else(|| {
                self.columns
                    .iter()
                    .position(|c| c.trim().to_lowercase() == wanted)
            })
            .ok_or_else(|| Failure::ColumnNotFound {
                column: name.to_string(),
                columns: self.columns.clone(),
            })
    }
}

/// The query's arguments, read and checked against the table's columns.
struct Plan {
    filters: Vec<(usize, Condition)>,
    group_by: Vec<usize>,
    aggregations: Vec<(usize, Func)>,
}

/// A query's result: its first [`KEPT_ROWS`] rows and the count of all.
pub(crate) struct Answer {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
    pub total: usize,
}

impl Answer {
    /// The agent's result: `rows_returned` (at most 100), `total_rows`,
    /// `columns`, `sample_data` (rows as objects).
    pub fn to_json(&self, id: &str, file_path: &str, sheet: &str) -> Value {
        let sample: Vec<Value> = self
            .rows
            .iter()
            .take(ROWS_RETURNED)
            .map(|row| {
                let mut object = Map::new();
                for (name, cell) in self.columns.iter().zip(row) {
                    object.insert(name.clone(), cell.to_json());
                }
                Value::Object(object)
            })
            .collect();
        json!({
            "query_result_id": id,
            "file_path": file_path,
            "sheet": sheet,
            "rows_returned": sample.len(),
            "total_rows": self.total,
            "columns": self.columns,
            "sample_data": sample,
        })
    }
}

/// A group's key: its cells' values, borrowed from the sheet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key<'a> {
    Empty,
    Number(u64),
    Text(&'a str),
    Bool(bool),
}

impl<'a> Key<'a> {
    fn of(cell: &'a Cell) -> Key<'a> {
        if cell.is_empty() {
            return Key::Empty;
        }
        match cell {
            Cell::Int(i) => Key::Number((*i as f64).to_bits()),
            // `+ 0.0` makes -0.0 the same group as 0.0.
            Cell::Float(f) => Key::Number((f + 0.0).to_bits()),
            Cell::Text(s) | Cell::Date(s) => Key::Text(s),
            Cell::Bool(b) => Key::Bool(*b),
            Cell::Empty => Key::Empty,
        }
    }
}

/// One group: its values in the group columns, its count of rows, its
/// aggregations.
struct Group {
    values: Vec<Cell>,
    rows: u64,
    accs: Vec<Acc>,
}

/// Filters, then groups, then aggregates the table as `arguments` ask.
pub(crate) fn run(table: &Table, arguments: &Value) -> Result<Answer, Failure> {
    let plan = plan(table, arguments)?;
    let selected = (0..table.len()).filter(|&r| {
        plan.filters
            .iter()
            .all(|(c, cond)| cond.holds(table.cell(r, *c)))
    });
    if plan.group_by.is_empty() && plan.aggregations.is_empty() {
        let mut rows = Vec::new();
        let mut total = 0;
        for r in selected {
            if rows.len() < KEPT_ROWS {
                rows.push(table.record(r));
            }
            total += 1;
        }
        return Ok(Answer {
            columns: table.columns.clone(),
            rows,
            total,
        });
    }
    let mut columns: Vec<String> = plan
        .group_by
        .iter()
        .map(|&c| table.columns[c].clone())
        .collect();
    let counting_rows = plan.aggregations.is_empty();
    if counting_rows {
        columns.push("count".into());
    }
    for &(c, f) in &plan.aggregations {
        columns.push(format!("{}_{}", table.columns[c], f.name()));
    }
    let new_group = |values: Vec<Cell>| Group {
        values,
        rows: 0,
        accs: plan
            .aggregations
            .iter()
            .map(|&(_, f)| Acc::new(f))
            .collect(),
    };
    // Groups in the order first seen; without group_by, one group of all.
    let mut index: HashMap<Vec<Key>, usize> = HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    let mut key: Vec<Key> = Vec::with_capacity(plan.group_by.len());
    for r in selected {
        key.clear();
        key.extend(plan.group_by.iter().map(|&c| Key::of(table.cell(r, c))));
        let at = match index.get(key.as_slice()) {
            Some(&at) => at,
            None => {
                let values = plan.group_by.iter().map(|&c| table.cell(r, c).clone());
                groups.push(new_group(values.collect()));
                index.insert(key.clone(), groups.len() - 1);
                groups.len() - 1
            }
        };
        let group = &mut groups[at];
        group.rows += 1;
        for (acc, &(c, _)) in group.accs.iter_mut().zip(&plan.aggregations) {
            acc.add(table.cell(r, c));
        }
    }
    if groups.is_empty() && plan.group_by.is_empty() {
        groups.push(new_group(Vec::new()));
    }
    let total = groups.len();
    let rows = groups
        .into_iter()
        .take(KEPT_ROWS)
        .map(|mut g| {
            if counting_rows {
                g.values.push(Cell::Int(g.rows as i64));
            }
            for (acc, &(_, f)) in g.accs.iter().zip(&plan.aggregations) {
                g.values.push(acc.result(f));
            }
            g.values
        })
        .collect();
    Ok(Answer {
        columns,
        rows,
        total,
    })
}

fn plan(table: &Table, arguments: &Value) -> Result<Plan, Failure> {
    let mut filters = Vec::new();
    if let Some(map) = args::object(arguments, "filters")? {
        for (name, spec) in map {
            let c = table.column(name)?;
            for cond in conditions(name, spec)? {
                filters.push((c, cond));
            }
        }
    }
    let group_by = args::texts(arguments, "group_by")?
        .iter()
        .map(|name| table.column(name))
        .collect::<Result<Vec<_>, _>>()?;
    let mut aggregations = Vec::new();
    match arguments.get("aggregations") {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => {
            for (name, funcs) in map {
                let c = table.column(name)?;
                let names = match funcs {
                    Value::String(f) => vec![f.as_str()],
                    Value::Array(fs) => fs.iter().filter_map(Value::as_str).collect(),
                    _ => Vec::new(),
                };
                if names.is_empty() {
                    return Err(bad_function(name, &funcs.to_string()));
                }
                for f in names {
                    let func = Func::parse(f).ok_or_else(|| bad_function(name, f))?;
                    aggregations.push((c, func));
                }
            }
        }
        Some(_) => {
            return Err(invalid(
                "aggregations must be an object of column to function, e.g. {\"sales\": \"sum\"}",
                "aggregations 必须是“列名 → 聚合函数”的对象，例如 {\"销售额\": \"sum\"}",
            ));
        }
    }
    Ok(Plan {
        filters,
        group_by,
        aggregations,
    })
}

fn bad_function(column: &str, f: &str) -> Failure {
    invalid(
        format!("aggregation {f} of column {column}: use sum, avg, count, max or min"),
        format!("列 {column} 的聚合函数 {f} 不受支持：请使用 sum、avg、count、max 或 min"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> Grid {
        let t = |s: &str| Cell::Text(s.into());
        Grid {
            origin: (0, 0),
            width: 2,
            rows: vec![
                vec![t("区域"), t("销售额")],
                vec![t("华东"), Cell::Int(100)],
                vec![t("华南"), Cell::Float(50.5)],
                vec![t("华东"), Cell::Empty],
                vec![Cell::Empty, Cell::Empty],
                vec![t("华东"), Cell::Int(20)],
            ],
        }
    }

    fn run(args: Value) -> Result<Answer, Failure> {
        let grid = grid();
        let table = Table::of(&grid, None, Lang::Zh)?;
        assert_eq!(table.len(), 4, "the wholly empty row is left out");
        super::run(&table, &args)
    }

    #[test]
    fn groups_keep_their_first_seen_order_and_skip_empty_cells() {
        let args =
            json!({"group_by": ["区域"], "aggregations": {"销售额": ["sum", "avg", "count"]}});
        let a = run(args).unwrap();
        assert_eq!(
            a.columns,
            ["区域", "销售额_sum", "销售额_avg", "销售额_count"]
        );
        assert_eq!(
            a.rows[0],
            [
                Cell::Text("华东".into()),
                Cell::Int(120),
                Cell::Int(60),
                Cell::Int(2)
            ]
        );
        assert_eq!(a.rows[1][1], Cell::Float(50.5));
    }

    #[test]
    fn filters_compare_numbers_and_text() {
        let a = run(json!({"filters": {"销售额": {">=": 50}}})).unwrap();
        assert_eq!(a.rows.len(), 2);
        let a = run(json!({"filters": {"区域": "华南"}})).unwrap();
        assert_eq!(a.rows.len(), 1);
        let e = run(json!({"filters": {"区域": {"~": 1}}})).err().unwrap();
        assert_eq!(e.code(), "INVALID_ARGUMENTS");
        let e = run(json!({"aggregations": {"销售额": "median"}}))
            .err()
            .unwrap();
        assert_eq!(e.code(), "INVALID_ARGUMENTS");
        let e = run(json!({"group_by": ["城市"]})).err().unwrap();
        assert_eq!(e.code(), "COLUMN_NOT_FOUND");
    }
}
