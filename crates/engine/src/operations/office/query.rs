//! `DATA_QUERY`, seed 002 §4.4's pipeline: the range's first row is the
//! header, the rows below are records; filters, then `group_by`, then the
//! aggregations; the first 100 rows of the result with the count of all.
//!
//! An aggregate's column is named `<column>_<function>` (`销售额_sum`);
//! group columns come first, groups in the order first seen. `group_by`
//! without aggregations gives each group's `count` of rows.

use super::args;
use super::sheet::{Cell, CellRange, Grid};
use super::words::{Failure, blank_column, invalid};
use crate::i18n::Lang;
use serde_json::{Map, Value, json};
use std::cmp::Ordering;
use std::collections::HashMap;

/// Rows of a result the agent sees (seed 002: the first 100).
pub const ROWS_RETURNED: usize = 100;

/// A header and its records.
#[derive(Debug, Clone, Default)]
pub(crate) struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// The range of `grid` (its used area by default) as a table: the first
    /// row names the columns (a blank one `列N`/`colN`, a repeated one gets
    /// `_2`), rows that are wholly empty are left out.
    pub fn of(grid: &Grid, range: Option<&str>, lang: Lang) -> Result<Table, Failure> {
        let used = grid.used();
        let range = match range.map(str::trim).filter(|r| !r.is_empty()) {
            Some(text) => {
                let text = text.rsplit_once('!').map_or(text, |(_, r)| r);
                CellRange::parse(text, used)?
            }
            None => match used {
                Some(u) => u,
                None => return Ok(Table::default()),
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
        let mut rows = Vec::new();
        for row in range.first.0 + 1..=last_row {
            let cells: Vec<Cell> = cols.clone().map(|c| grid.get(row, c).clone()).collect();
            if cells.iter().any(|c| !c.is_empty()) {
                rows.push(cells);
            }
        }
        Ok(Table { columns, rows })
    }

    /// The index of a column by its name (exact, else trimmed and
    /// case-insensitive).
    pub fn column(&self, name: &str) -> Result<usize, Failure> {
        let wanted = name.trim();
        self.columns
            .iter()
            .position(|c| c == name)
            .or_else(|| {
                self.columns
                    .iter()
                    .position(|c| c.trim().to_lowercase() == wanted.to_lowercase())
            })
            .ok_or_else(|| Failure::ColumnNotFound {
                column: name.to_string(),
                columns: self.columns.clone(),
            })
    }
}

/// One aggregation function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Func {
    Sum,
    Avg,
    Count,
    Max,
    Min,
}

impl Func {
    fn parse(name: &str) -> Option<Func> {
        Some(match name.trim().to_lowercase().as_str() {
            "sum" => Func::Sum,
            "avg" | "mean" | "average" => Func::Avg,
            "count" => Func::Count,
            "max" => Func::Max,
            "min" => Func::Min,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Func::Sum => "sum",
            Func::Avg => "avg",
            Func::Count => "count",
            Func::Max => "max",
            Func::Min => "min",
        }
    }
}

/// The query's arguments, read and checked against the table's columns.
struct Plan {
    filters: Vec<(usize, Condition)>,
    group_by: Vec<usize>,
    aggregations: Vec<(usize, Func)>,
}

#[derive(Debug, Clone)]
enum Condition {
    Eq(Value),
    In(Vec<Value>),
    Ne(Value),
    Cmp(Ordering, bool, Value),
    Contains(String),
}

/// A query's result: every row, computed.
pub(crate) struct Answer {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
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
            "total_rows": self.rows.len(),
            "columns": self.columns,
            "sample_data": sample,
        })
    }
}

/// Filters, then groups, then aggregates the table as `arguments` ask.
pub(crate) fn run(table: Table, arguments: &Value) -> Result<Answer, Failure> {
    let plan = plan(&table, arguments)?;
    let rows: Vec<Vec<Cell>> = table
        .rows
        .into_iter()
        .filter(|row| plan.filters.iter().all(|(c, cond)| cond.holds(&row[*c])))
        .collect();
    if plan.group_by.is_empty() && plan.aggregations.is_empty() {
        return Ok(Answer {
            columns: table.columns,
            rows,
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
    // Groups in the order first seen; without group_by, one group of all.
    let mut index: HashMap<Vec<String>, usize> = HashMap::new();
    let mut groups: Vec<(Vec<Cell>, usize, Vec<Acc>)> = Vec::new();
    for row in &rows {
        let key: Vec<String> = plan.group_by.iter().map(|&c| key_of(&row[c])).collect();
        let at = *index.entry(key).or_insert_with(|| {
            let values = plan.group_by.iter().map(|&c| row[c].clone()).collect();
            groups.push((values, 0, vec![Acc::default(); plan.aggregations.len()]));
            groups.len() - 1
        });
        let group = &mut groups[at];
        group.1 += 1;
        for (acc, &(c, _)) in group.2.iter_mut().zip(&plan.aggregations) {
            acc.add(&row[c]);
        }
    }
    if groups.is_empty() && plan.group_by.is_empty() {
        groups.push((Vec::new(), 0, vec![Acc::default(); plan.aggregations.len()]));
    }
    let rows = groups
        .into_iter()
        .map(|(mut values, n, accs)| {
            if counting_rows {
                values.push(Cell::Int(n as i64));
            }
            for (acc, &(_, f)) in accs.iter().zip(&plan.aggregations) {
                values.push(acc.result(f));
            }
            values
        })
        .collect();
    Ok(Answer { columns, rows })
}

fn key_of(cell: &Cell) -> String {
    match cell {
        Cell::Empty => "\u{0}".into(),
        Cell::Int(_) | Cell::Float(_) => format!("n{}", cell.as_f64().unwrap_or_default()),
        other => format!("t{}", other.text()),
    }
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

fn conditions(column: &str, spec: &Value) -> Result<Vec<Condition>, Failure> {
    let Value::Object(ops) = spec else {
        return Ok(vec![match spec {
            Value::Array(items) => Condition::In(items.clone()),
            other => Condition::Eq(other.clone()),
        }]);
    };
    let mut out = Vec::new();
    for (op, value) in ops {
        out.push(match op.trim() {
            "=" | "==" | "eq" => Condition::Eq(value.clone()),
            "!=" | "<>" | "ne" => Condition::Ne(value.clone()),
            ">" | "gt" => Condition::Cmp(Ordering::Greater, false, value.clone()),
            ">=" | "gte" => Condition::Cmp(Ordering::Greater, true, value.clone()),
            "<" | "lt" => Condition::Cmp(Ordering::Less, false, value.clone()),
            "<=" | "lte" => Condition::Cmp(Ordering::Less, true, value.clone()),
            "in" => Condition::In(value.as_array().cloned().unwrap_or_else(|| vec![value.clone()])),
            "contains" => Condition::Contains(args::shown(value).to_lowercase()),
            _ => {
                return Err(invalid(
                    format!("filter {op} of column {column}: use =, !=, >, >=, <, <= or contains"),
                    format!("列 {column} 的筛选条件 {op} 不受支持：请使用 =、!=、>、>=、<、<= 或 contains"),
                ));
            }
        });
    }
    Ok(out)
}

/// A number, from a numeric cell or a text that reads as one.
fn numeric(cell: &Cell) -> Option<f64> {
    cell.as_f64().or_else(|| match cell {
        Cell::Text(s) => s.trim().parse().ok().filter(|f: &f64| f.is_finite()),
        _ => None,
    })
}

fn value_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok().filter(|f: &f64| f.is_finite()),
        _ => None,
    }
}

fn equals(cell: &Cell, v: &Value) -> bool {
    match v {
        Value::Null => cell.is_empty(),
        Value::Bool(b) => matches!(cell, Cell::Bool(x) if x == b),
        _ => match (numeric(cell), value_number(v)) {
            (Some(a), Some(b)) => a == b,
            _ => !cell.is_empty() && cell.text().trim() == args::shown(v).trim(),
        },
    }
}

fn compare(cell: &Cell, v: &Value) -> Option<Ordering> {
    if cell.is_empty() || v.is_null() {
        return None;
    }
    match (numeric(cell), value_number(v)) {
        (Some(a), Some(b)) => a.partial_cmp(&b),
        (None, None) => Some(cell.text().as_str().cmp(args::shown(v).as_str())),
        _ => None,
    }
}

impl Condition {
    fn holds(&self, cell: &Cell) -> bool {
        match self {
            Condition::Eq(v) => equals(cell, v),
            Condition::In(vs) => vs.iter().any(|v| equals(cell, v)),
            Condition::Ne(v) => !equals(cell, v),
            Condition::Cmp(side, or_equal, v) => {
                compare(cell, v).is_some_and(|o| o == *side || (*or_equal && o == Ordering::Equal))
            }
            Condition::Contains(part) => cell.text().to_lowercase().contains(part.as_str()),
        }
    }
}

/// One aggregation's running state over a group.
#[derive(Debug, Clone, Default)]
struct Acc {
    count: u64,
    numbers: u64,
    /// Neumaier's compensated sum, so that 10,000 decimals add up exactly.
    sum: f64,
    compensation: f64,
    int_sum: i128,
    all_ints: bool,
    max: Option<f64>,
    min: Option<f64>,
    max_text: Option<String>,
    min_text: Option<String>,
}

impl Acc {
    fn add(&mut self, cell: &Cell) {
        if cell.is_empty() {
            return;
        }
        if self.count == 0 {
            self.all_ints = true;
        }
        self.count += 1;
        match numeric(cell) {
            Some(x) => {
                self.numbers += 1;
                match cell {
                    Cell::Int(i) => self.int_sum += i128::from(*i),
                    _ => self.all_ints = false,
                }
                let t = self.sum + x;
                if self.sum.abs() >= x.abs() {
                    self.compensation += (self.sum - t) + x;
                } else {
                    self.compensation += (x - t) + self.sum;
                }
                self.sum = t;
                self.max = Some(self.max.map_or(x, |m| m.max(x)));
                self.min = Some(self.min.map_or(x, |m| m.min(x)));
            }
            None => {
                let t = cell.text();
                if self.max_text.as_ref().is_none_or(|m| &t > m) {
                    self.max_text = Some(t.clone());
                }
                if self.min_text.as_ref().is_none_or(|m| &t < m) {
                    self.min_text = Some(t);
                }
            }
        }
    }

    fn total(&self) -> f64 {
        self.sum + self.compensation
    }

    fn result(&self, f: Func) -> Cell {
        match f {
            Func::Count => Cell::Int(self.count as i64),
            Func::Sum if self.numbers > 0 && self.all_ints => {
                i64::try_from(self.int_sum).map_or_else(|_| tidy(self.total()), Cell::Int)
            }
            Func::Sum => tidy(self.total()),
            Func::Avg if self.numbers == 0 => Cell::Empty,
            Func::Avg => tidy(self.total() / self.numbers as f64),
            Func::Max => self
                .max
                .map(tidy)
                .or_else(|| self.max_text.clone().map(Cell::Text))
                .unwrap_or_default(),
            Func::Min => self
                .min
                .map(tidy)
                .or_else(|| self.min_text.clone().map(Cell::Text))
                .unwrap_or_default(),
        }
    }
}

/// A computed number rounded at 10 decimals (so that `0.1 + 0.2` reads
/// `0.3`), whole ones as integers.
fn tidy(x: f64) -> Cell {
    let rounded = format!("{x:.10}").parse::<f64>().unwrap_or(x);
    Cell::number(rounded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        let t = |s: &str| Cell::Text(s.into());
        Table {
            columns: vec!["区域".into(), "销售额".into()],
            rows: vec![
                vec![t("华东"), Cell::Int(100)],
                vec![t("华南"), Cell::Float(50.5)],
                vec![t("华东"), Cell::Empty],
                vec![t("华东"), Cell::Int(20)],
            ],
        }
    }

    #[test]
    fn groups_keep_their_first_seen_order_and_skip_empty_cells() {
        let args =
            json!({"group_by": ["区域"], "aggregations": {"销售额": ["sum", "avg", "count"]}});
        let a = run(table(), &args).unwrap();
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
        let a = run(table(), &json!({"filters": {"销售额": {">=": 50}}})).unwrap();
        assert_eq!(a.rows.len(), 2);
        let a = run(table(), &json!({"filters": {"区域": "华南"}})).unwrap();
        assert_eq!(a.rows.len(), 1);
        let e = run(table(), &json!({"filters": {"区域": {"~": 1}}}))
            .err()
            .unwrap();
        assert_eq!(e.code(), "INVALID_ARGUMENTS");
        let e = run(table(), &json!({"aggregations": {"销售额": "median"}}))
            .err()
            .unwrap();
        assert_eq!(e.code(), "INVALID_ARGUMENTS");
        let e = run(table(), &json!({"group_by": ["城市"]})).err().unwrap();
        assert_eq!(e.code(), "COLUMN_NOT_FOUND");
    }
}
