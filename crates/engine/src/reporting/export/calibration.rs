//! The Markdown judge calibration (blind human labels, kappa per
//! criterion) and consistency (second pass) sections, and the fixed
//! section's note on the judge's rubric scores.

use super::markdown::pct;
use crate::calibration::{JudgeCalibration, RUBRIC};
use std::fmt::Write;

fn fixed2(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.2}"))
}

/// The status words of a criterion's judge figures.
pub(super) fn advisory_word(
    calibration: Option<&JudgeCalibration>,
    criterion: &str,
) -> &'static str {
    if calibration.is_some_and(|c| !c.advisory(criterion)) {
        "calibrated"
    } else {
        "advisory"
    }
}

/// The fixed section's note on rubric checks: the judge scored them, and
/// its figures are advisory until people's blind labels calibrate it.
/// Without an exploration appendix the calibration table follows here.
pub(super) fn rubric_note(md: &mut String, c: &JudgeCalibration, with_table: bool) {
    let Some(k) = c.criteria.iter().find(|k| k.criterion == RUBRIC) else {
        return;
    };
    let _ = writeln!(md, "### Rubric checks");
    let _ = writeln!(md);
    let kappa = match (k.kappa, k.kappa_low, k.kappa_high) {
        (None, _, _) => "n/a".to_string(),
        (Some(v), Some(lo), Some(hi)) => format!("{v:.2} [{lo:.2}, {hi:.2}]"),
        (Some(v), _, _) => format!("{v:.2} [interval n/a]"),
    };
    let _ = writeln!(
        md,
        "Rubric checks are scored 1-5 by a judge (a model, or the offline heuristic). \
         Rubric checks labelled blind: {} (runs labelled: {}; runs not labelled yet: {}). \
         Agreement {}, kappa {kappa}. The judge's rubric figures are {}.",
        k.items,
        c.runs_labelled,
        c.runs_unlabelled,
        pct(k.agreement),
        k.status(&c.policy)
    );
    let _ = writeln!(md);
    if with_table {
        calibration_section(md, c);
    }
}

pub(super) fn calibration_section(md: &mut String, c: &JudgeCalibration) {
    let _ = writeln!(md, "### Judge calibration");
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "People label the judge's sampled sessions (and the rubric checks of fixed runs) blind, \
         on the judge's own criteria (1-5). Kappa is Cohen's kappa, linearly weighted, with a 95% \
         bootstrap interval; a criterion is calibrated at kappa >= {:.2} over at least {} labelled \
         items. Until then its judge figures in this report are advisory. {} labelled, {} judged \
         sessions not labelled yet.",
        c.policy.min_kappa, c.policy.min_items, c.labelled, c.unlabelled
    );
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "| Criterion | Labelled | Agreement | Kappa [95% interval] | Judge figures |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|");
    for k in &c.criteria {
        let kappa = match (k.kappa, k.kappa_low, k.kappa_high) {
            (None, _, _) => "n/a".to_string(),
            (Some(v), Some(lo), Some(hi)) => format!("{v:.2} [{lo:.2}, {hi:.2}]"),
            (Some(v), _, _) => format!("{v:.2} [interval n/a]"),
        };
        let status = k.status(&c.policy);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {kappa} | {status} |",
            k.criterion,
            k.items,
            pct(k.agreement),
        );
    }
    let _ = writeln!(md);
    if let Some(consistency) = &c.consistency {
        let _ = writeln!(md, "### Judge consistency");
        let _ = writeln!(md);
        let _ = writeln!(
            md,
            "The judge reviewed its sample a second time with the rounds in reverse order (and, \
             for a judge model, the rubric reworded). Self-agreement is the share of sessions with \
             the same score in both passes; below {} the judge contradicts itself.",
            pct(Some(c.policy.min_self_agreement))
        );
        let _ = writeln!(md);
        let _ = writeln!(
            md,
            "| Criterion | Reviewed twice | Self-agreement | Kappa | Judge |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|");
        for k in consistency {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                k.criterion,
                k.items,
                pct(k.self_agreement),
                fixed2(k.kappa),
                if k.contradicts {
                    "contradicts itself"
                } else {
                    "consistent"
                }
            );
        }
        let _ = writeln!(md);
    }
}
