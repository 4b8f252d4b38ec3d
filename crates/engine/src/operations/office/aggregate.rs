//! `DATA_QUERY`'s aggregations over a group's cells: `sum`, `avg`,
//! `count`, `max`, `min`. Empty cells are skipped; `count` counts the
//! others.

use super::filter::{numeric, text_of};
use super::sheet::Cell;

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
    pub fn parse(name: &str) -> Option<Func> {
        Some(match name.trim().to_lowercase().as_str() {
            "sum" => Func::Sum,
            "avg" | "mean" | "average" => Func::Avg,
            "count" => Func::Count,
            "max" => Func::Max,
            "min" => Func::Min,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Func::Sum => "sum",
            Func::Avg => "avg",
            Func::Count => "count",
            Func::Max => "max",
            Func::Min => "min",
        }
    }
}

/// One aggregation's running state over a group.
#[derive(Debug, Clone, Default)]
pub(crate) struct Acc {
    /// Whether the text of non-numeric cells is compared (`max`, `min`).
    texts: bool,
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
    pub fn new(f: Func) -> Acc {
        Acc {
            texts: matches!(f, Func::Max | Func::Min),
            ..Acc::default()
        }
    }

    pub fn add(&mut self, cell: &Cell) {
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
            None if self.texts => {
                let t = text_of(cell);
                if self.max_text.as_deref().is_none_or(|m| *t > *m) {
                    self.max_text = Some(t.to_string());
                }
                if self.min_text.as_deref().is_none_or(|m| *t < *m) {
                    self.min_text = Some(t.into_owned());
                }
            }
            None => {}
        }
    }

    fn total(&self) -> f64 {
        self.sum + self.compensation
    }

    pub fn result(&self, f: Func) -> Cell {
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

    #[test]
    fn decimals_add_up_and_integers_stay_integers() {
        let mut sum = Acc::new(Func::Sum);
        for _ in 0..10_000 {
            sum.add(&Cell::Float(0.1));
        }
        assert_eq!(sum.result(Func::Sum), Cell::Int(1000));
        let mut ints = Acc::new(Func::Sum);
        for c in [Cell::Int(i64::MAX), Cell::Int(1), Cell::Empty] {
            ints.add(&c);
        }
        assert_eq!(ints.result(Func::Sum), Cell::Float(9.223372036854776e18));
        assert_eq!(ints.result(Func::Count), Cell::Int(2));
        let mut dates = Acc::new(Func::Max);
        for d in ["2024-01-02", "2024-03-01", "2023-12-31"] {
            dates.add(&Cell::Date(d.into()));
        }
        assert_eq!(dates.result(Func::Max), Cell::Text("2024-03-01".into()));
        assert_eq!(dates.result(Func::Min), Cell::Text("2023-12-31".into()));
        assert_eq!(Acc::new(Func::Avg).result(Func::Avg), Cell::Empty);
    }
}
