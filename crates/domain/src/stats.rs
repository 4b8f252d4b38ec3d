//! Intervals that stay honest at small samples and at the edges: Wilson's
//! score interval for a rate, Newcombe's hybrid score interval for the
//! difference of two rates. A percentile bootstrap of 0 passes in 5 runs
//! reads "0% to 0%"; Wilson's reads "0% to 43%", which is what five runs
//! can tell.

use serde::{Deserialize, Serialize};

/// z for a two-sided 95% interval.
const Z: f64 = 1.959_963_984_540_054;

/// A 95% interval, both ends as fractions (a difference may be negative).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, specta::Type, utoipa::ToSchema)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// Whether the interval contains `x`.
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }
}

/// The 95% Wilson score interval of `k` successes in `n` trials; `None`
/// without a trial.
pub fn wilson(k: u32, n: u32) -> Option<Interval> {
    if n == 0 {
        return None;
    }
    let (k, n) = (f64::from(k.min(n)), f64::from(n));
    let p = k / n;
    let z2 = Z * Z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    Some(Interval {
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    })
}

/// The 95% interval of `k1/n1 - k2/n2` by Newcombe's hybrid score method
/// (his method 10), built from the two Wilson intervals: it never
/// collapses to a point at 0% or 100% as a bootstrap does.
pub fn newcombe_delta(k1: u32, n1: u32, k2: u32, n2: u32) -> Option<Interval> {
    let (a, b) = (wilson(k1, n1)?, wilson(k2, n2)?);
    let (p1, p2) = (f64::from(k1) / f64::from(n1), f64::from(k2) / f64::from(n2));
    let d = p1 - p2;
    Some(Interval {
        low: d - ((p1 - a.low).powi(2) + (b.high - p2).powi(2)).sqrt(),
        high: d + ((a.high - p1).powi(2) + (p2 - b.low).powi(2)).sqrt(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-4
    }

    #[test]
    fn wilson_stays_open_at_the_edges() {
        let none = wilson(0, 5).unwrap();
        assert_eq!(none.low, 0.0);
        assert!(close(none.high, 0.4345), "{none:?}");
        let all = wilson(5, 5).unwrap();
        assert!(close(all.low, 0.5655), "{all:?}");
        assert_eq!(all.high, 1.0);
        assert_eq!(wilson(0, 0), None);
    }

    #[test]
    fn wilson_matches_the_textbook_value() {
        // Newcombe (1998), table I: 81/263 -> 0.2553 to 0.3662.
        let i = wilson(81, 263).unwrap();
        assert!(close(i.low, 0.2553) && close(i.high, 0.3662), "{i:?}");
    }

    #[test]
    fn newcombe_matches_the_published_example() {
        // Newcombe (1998b), example (a): 56/70 - 48/80 -> 0.0524 to 0.3339.
        let i = newcombe_delta(56, 70, 48, 80).unwrap();
        assert!(close(i.low, 0.0524) && close(i.high, 0.3339), "{i:?}");
        // Two all-fail periods: no change, yet not a point.
        let same = newcombe_delta(0, 5, 0, 5).unwrap();
        assert!(
            same.low < 0.0 && same.high > 0.0 && same.contains(0.0),
            "{same:?}"
        );
        assert_eq!(newcombe_delta(1, 0, 1, 2), None);
    }
}
