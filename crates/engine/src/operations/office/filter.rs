//! `DATA_QUERY`'s filters: a column's cells against a value, numbers as
//! numbers (a text that reads as one too), other values as text.

use super::args;
use super::sheet::Cell;
use super::words::{Failure, invalid};
use serde_json::Value;
use std::borrow::Cow;
use std::cmp::Ordering;

/// A filter's value, read once for every cell it is held against.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    null: bool,
    boolean: Option<bool>,
    number: Option<f64>,
    text: String,
}

impl Target {
    fn of(v: &Value) -> Target {
        Target {
            null: v.is_null(),
            boolean: v.as_bool(),
            number: match v {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse().ok().filter(|f: &f64| f.is_finite()),
                _ => None,
            },
            text: args::shown(v).trim().to_string(),
        }
    }
}

/// One condition on a column's cells.
#[derive(Debug, Clone)]
pub(crate) enum Condition {
    Eq(Target),
    In(Vec<Target>),
    Ne(Target),
    /// Greater or less, and whether equal passes too.
    Cmp(Ordering, bool, Target),
    Contains(String),
}

/// The conditions of one column's filter: a value (equality), a list (any
/// of them), or an object of operators (all of them).
pub(crate) fn conditions(column: &str, spec: &Value) -> Result<Vec<Condition>, Failure> {
    let Value::Object(ops) = spec else {
        return Ok(vec![match spec {
            Value::Array(items) => Condition::In(items.iter().map(Target::of).collect()),
            other => Condition::Eq(Target::of(other)),
        }]);
    };
    let mut out = Vec::new();
    for (op, value) in ops {
        let t = || Target::of(value);
        out.push(match op.trim() {
            "=" | "==" | "eq" => Condition::Eq(t()),
            "!=" | "<>" | "ne" => Condition::Ne(t()),
            ">" | "gt" => Condition::Cmp(Ordering::Greater, false, t()),
            ">=" | "gte" => Condition::Cmp(Ordering::Greater, true, t()),
            "<" | "lt" => Condition::Cmp(Ordering::Less, false, t()),
            "<=" | "lte" => Condition::Cmp(Ordering::Less, true, t()),
            "in" => Condition::In(match value {
                Value::Array(items) => items.iter().map(Target::of).collect(),
                other => vec![Target::of(other)],
            }),
            "contains" => Condition::Contains(args::shown(value).to_lowercase()),
            _ => {
                return Err(invalid(
                    format!("filter {op} of column {column}: use =, !=, >, >=, <, <= or contains"),
                    format!(
                        "列 {column} 的筛选条件 {op} 不受支持：请使用 =、!=、>、>=、<、<= 或 contains"
                    ),
                ));
            }
        });
    }
    Ok(out)
}

/// A number, from a numeric cell or a text that reads as one.
pub(crate) fn numeric(cell: &Cell) -> Option<f64> {
    match cell {
        Cell::Int(i) => Some(*i as f64),
        Cell::Float(f) => Some(*f),
        Cell::Text(s) => s.trim().parse().ok().filter(|f: &f64| f.is_finite()),
        _ => None,
    }
}

/// A cell's text, borrowed where it is text already.
pub(crate) fn text_of(cell: &Cell) -> Cow<'_, str> {
    match cell {
        Cell::Text(s) | Cell::Date(s) => Cow::Borrowed(s),
        other => Cow::Owned(other.text()),
    }
}

fn equals(cell: &Cell, t: &Target) -> bool {
    if t.null {
        return cell.is_empty();
    }
    if let Some(b) = t.boolean {
        return matches!(cell, Cell::Bool(x) if *x == b);
    }
    match (numeric(cell), t.number) {
        (Some(a), Some(b)) => a == b,
        _ => !cell.is_empty() && text_of(cell).trim() == t.text,
    }
}

fn compare(cell: &Cell, t: &Target) -> Option<Ordering> {
    if cell.is_empty() || t.null {
        return None;
    }
    match (numeric(cell), t.number) {
        (Some(a), Some(b)) => a.partial_cmp(&b),
        (None, None) => Some(text_of(cell).trim().cmp(t.text.as_str())),
        _ => None,
    }
}

impl Condition {
    pub fn holds(&self, cell: &Cell) -> bool {
        match self {
            Condition::Eq(t) => equals(cell, t),
            Condition::In(ts) => ts.iter().any(|t| equals(cell, t)),
            Condition::Ne(t) => !equals(cell, t),
            Condition::Cmp(side, or_equal, t) => {
                compare(cell, t).is_some_and(|o| o == *side || (*or_equal && o == Ordering::Equal))
            }
            Condition::Contains(part) => text_of(cell).to_lowercase().contains(part.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn holds(spec: Value, cell: Cell) -> bool {
        conditions("c", &spec)
            .unwrap()
            .iter()
            .all(|c| c.holds(&cell))
    }

    #[test]
    fn numbers_compare_as_numbers_and_the_rest_as_text() {
        assert!(holds(json!(5), Cell::Int(5)));
        assert!(
            holds(json!("5"), Cell::Float(5.0)),
            "a number given as text"
        );
        assert!(holds(json!({">=": 10, "<": 20}), Cell::Text("12".into())));
        assert!(
            !holds(json!({">": 10}), Cell::Empty),
            "an empty cell passes no comparison"
        );
        assert!(holds(json!({"!=": 10}), Cell::Empty));
        assert!(holds(json!(null), Cell::Empty));
        assert!(holds(
            json!({">=": "2024-02-01"}),
            Cell::Date("2024-03-01".into())
        ));
        assert!(holds(json!(["华东", "华南"]), Cell::Text("华南".into())));
        assert!(holds(
            json!({"contains": "EAST"}),
            Cell::Text("North-east".into())
        ));
        assert!(holds(json!(true), Cell::Bool(true)));
        assert!(conditions("c", &json!({"~": 1})).is_err());
    }
}
