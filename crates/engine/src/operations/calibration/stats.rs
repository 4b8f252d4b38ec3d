//! Agreement between two raters on the judge's 1-5 scale: raw agreement,
//! Cohen's kappa and a seeded percentile-bootstrap interval.
//!
//! The kappa is **linearly weighted** (Cohen 1968, weights
//! `1 - |i - j| / 4` on the five points): the scale is ordinal, so a judge
//! that says 4 where a person says 5 agrees more than one that says 1, and
//! an unweighted kappa would count both as the same miss. The
//! 0.6 threshold ("substantial", Landis & Koch) is read on this kappa; with
//! only two scores in use it equals the unweighted one (see the tests).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The points of the scale.
pub const SCALE: std::ops::RangeInclusive<u8> = 1..=5;
const K: usize = 5;

/// Resamples of the bootstrap interval.
pub const RESAMPLES: usize = 1000;

/// The weight of a pair of scores: 1 when equal, 0 at opposite ends.
fn linear_weight(a: usize, b: usize) -> f64 {
    1.0 - (a.abs_diff(b) as f64) / (K - 1) as f64
}

fn exact_weight(a: usize, b: usize) -> f64 {
    if a == b { 1.0 } else { 0.0 }
}

/// Kappa with the given weights over (rater A, rater B) pairs of 1-5
/// scores; `None` with no pair, a score off the scale, or when chance
/// agreement is already total (both raters always gave the same single
/// score: kappa is 0/0 there).
fn kappa_with(pairs: &[(u8, u8)], weight: fn(usize, usize) -> f64) -> Option<f64> {
    if pairs.is_empty()
        || pairs
            .iter()
            .any(|(a, b)| !SCALE.contains(a) || !SCALE.contains(b))
    {
        return None;
    }
    let n = pairs.len() as f64;
    let (mut ma, mut mb) = ([0f64; K], [0f64; K]);
    let mut observed = 0.0;
    for &(a, b) in pairs {
        let (a, b) = (usize::from(a - 1), usize::from(b - 1));
        ma[a] += 1.0;
        mb[b] += 1.0;
        observed += weight(a, b);
    }
    let observed = observed / n;
    let mut expected = 0.0;
    for (i, pa) in ma.iter().enumerate() {
        for (j, pb) in mb.iter().enumerate() {
            expected += weight(i, j) * (pa / n) * (pb / n);
        }
    }
    if (1.0 - expected).abs() < 1e-12 {
        return None;
    }
    Some((observed - expected) / (1.0 - expected))
}

/// Linearly weighted Cohen's kappa (what the product reports).
pub fn weighted_kappa(pairs: &[(u8, u8)]) -> Option<f64> {
    kappa_with(pairs, linear_weight)
}

/// Unweighted Cohen's kappa (exact matches only).
pub fn unweighted_kappa(pairs: &[(u8, u8)]) -> Option<f64> {
    kappa_with(pairs, exact_weight)
}

/// Share of pairs with equal scores.
pub fn raw_agreement(pairs: &[(u8, u8)]) -> Option<f64> {
    (!pairs.is_empty())
        .then(|| pairs.iter().filter(|(a, b)| a == b).count() as f64 / pairs.len() as f64)
}

/// 95% percentile-bootstrap interval of [`weighted_kappa`]: `resamples`
/// resamples of the pairs with replacement, drawn from a generator seeded
/// with `seed` (the same pairs and seed give the same interval). Resamples
/// whose kappa is undefined are left out; `None` when most are.
pub fn bootstrap_interval(pairs: &[(u8, u8)], resamples: usize, seed: u64) -> Option<(f64, f64)> {
    weighted_kappa(pairs)?;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut draws = Vec::with_capacity(resamples);
    let mut sample = Vec::with_capacity(pairs.len());
    for _ in 0..resamples {
        sample.clear();
        sample.extend((0..pairs.len()).map(|_| pairs[rng.random_range(0..pairs.len())]));
        if let Some(k) = weighted_kappa(&sample) {
            draws.push(k);
        }
    }
    if draws.len() * 2 < resamples {
        return None;
    }
    draws.sort_by(f64::total_cmp);
    let at = |q: f64| draws[((q * (draws.len() - 1) as f64).round() as usize).min(draws.len() - 1)];
    Some((at(0.025), at(0.975)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` copies of a pair.
    fn rep(pair: (u8, u8), n: usize) -> Vec<(u8, u8)> {
        vec![pair; n]
    }

    /// The worked 2x2 example of Cohen's kappa (50 proposals read by two
    /// readers, e.g. Wikipedia "Cohen's kappa"): both yes 20, A yes B no 5,
    /// A no B yes 10, both no 15.
    /// p_o = (20 + 15) / 50 = 0.70; A says yes 25/50 = 0.5, B 30/50 = 0.6;
    /// p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.50; kappa = (0.70 - 0.50) / 0.50 = 0.40.
    /// Yes is put at 5 and no at 1: their linear weight is 0, so the
    /// weighted kappa is the same 0.40.
    fn textbook() -> Vec<(u8, u8)> {
        [
            rep((5, 5), 20),
            rep((5, 1), 5),
            rep((1, 5), 10),
            rep((1, 1), 15),
        ]
        .concat()
    }

    #[test]
    fn kappa_of_the_textbook_table() {
        let pairs = textbook();
        let k = unweighted_kappa(&pairs).unwrap();
        assert!((k - 0.40).abs() < 1e-12, "unweighted kappa 0.40, got {k}");
        let w = weighted_kappa(&pairs).unwrap();
        assert!((w - 0.40).abs() < 1e-12, "ends of the scale weigh 0: {w}");
        assert!((raw_agreement(&pairs).unwrap() - 0.70).abs() < 1e-12);
    }

    /// Ten items on 3-5: (5,5) x3, (4,4) x2, (3,3) x1, (5,4) x2, (4,3) x1,
    /// (3,5) x1. Linear weights: 1 apart 0.75, 2 apart 0.5.
    /// p_o,w = (6 + 2*0.75 + 0.75 + 0.5) / 10 = 0.875.
    /// Marginals A: 5 .5, 4 .3, 3 .2; B: 5 .4, 4 .4, 3 .2.
    /// p_e,w = .5(.4 + .75*.4 + .5*.2) + .3(.75*.4 + .4 + .75*.2)
    ///       + .2(.5*.4 + .75*.4 + .2) = .4 + .255 + .14 = .795.
    /// kappa_w = (.875 - .795) / (1 - .795) = .08 / .205 = 0.390244.
    /// Unweighted: p_o = .6, p_e = .2 + .12 + .04 = .36, kappa = .24/.64 = .375.
    #[test]
    fn linear_weights_credit_near_misses() {
        let pairs = [
            rep((5, 5), 3),
            rep((4, 4), 2),
            rep((3, 3), 1),
            rep((5, 4), 2),
            rep((4, 3), 1),
            rep((3, 5), 1),
        ]
        .concat();
        let w = weighted_kappa(&pairs).unwrap();
        assert!(
            (w - 0.08 / 0.205).abs() < 1e-9,
            "weighted kappa 0.3902, got {w}"
        );
        let u = unweighted_kappa(&pairs).unwrap();
        assert!((u - 0.375).abs() < 1e-12, "unweighted kappa 0.375, got {u}");
    }

    #[test]
    fn interval_holds_the_estimate_and_is_reproducible() {
        let pairs = textbook();
        let (lo, hi) = bootstrap_interval(&pairs, RESAMPLES, 7).unwrap();
        assert!(lo < 0.40 && 0.40 < hi, "[{lo}, {hi}] holds kappa 0.40");
        // The large-sample standard error of this kappa is about 0.13, so a
        // 95% interval spans roughly 0.40 +- 0.25.
        assert!((0.05..0.30).contains(&lo), "lower bound near 0.15: {lo}");
        assert!((0.50..0.75).contains(&hi), "upper bound near 0.65: {hi}");
        // Seed 7 of the standard generator draws exactly these bounds.
        assert!(
            (lo - 0.156830).abs() < 1e-6 && (hi - 0.64).abs() < 1e-6,
            "seeded interval [0.156830, 0.640000], got [{lo}, {hi}]"
        );
        assert_eq!(
            bootstrap_interval(&pairs, RESAMPLES, 7),
            Some((lo, hi)),
            "the same seed gives the same interval"
        );
        assert_ne!(
            bootstrap_interval(&pairs, RESAMPLES, 8),
            Some((lo, hi)),
            "another seed draws other resamples"
        );
    }

    #[test]
    fn degenerate_tables_have_no_kappa() {
        assert_eq!(weighted_kappa(&[]), None, "no pair, no kappa");
        assert_eq!(
            weighted_kappa(&rep((5, 5), 10)),
            None,
            "both always 5: chance agreement is total, kappa is 0/0"
        );
        assert_eq!(weighted_kappa(&[(0, 5)]), None, "0 is off the scale");
        let perfect = [rep((5, 5), 5), rep((2, 2), 5)].concat();
        assert_eq!(weighted_kappa(&perfect), Some(1.0));
        assert_eq!(bootstrap_interval(&rep((4, 4), 3), RESAMPLES, 1), None);
    }
}
