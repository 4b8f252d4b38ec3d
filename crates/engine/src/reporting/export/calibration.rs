//! The Markdown judge calibration (blind human labels, kappa per
//! criterion) and consistency (second pass) sections, and the fixed
//! section's note on the judge's rubric scores.

use super::markdown::{na, pct_in};
use crate::calibration::{JudgeCalibration, RUBRIC};
use crate::i18n::{Lang, Msg};
use crate::msg;
use std::fmt::Write;

fn fixed2(v: Option<f64>, lang: Lang) -> String {
    v.map_or_else(|| na(lang), |v| format!("{v:.2}"))
}

/// The status words of a criterion's judge figures.
pub(super) fn advisory_word(calibration: Option<&JudgeCalibration>, criterion: &str) -> Msg {
    if calibration.is_some_and(|c| !c.advisory(criterion)) {
        msg!("md-calibrated")
    } else {
        msg!("md-advisory")
    }
}

/// A kappa with its interval, in the reader's language.
fn kappa_text(k: (Option<f64>, Option<f64>, Option<f64>), lang: Lang) -> String {
    match k {
        (None, _, _) => na(lang),
        (Some(v), Some(lo), Some(hi)) => format!("{v:.2} [{lo:.2}, {hi:.2}]"),
        (Some(v), _, _) => msg!("md-kappa-no-interval", kappa = format!("{v:.2}")).render(lang),
    }
}

/// A criterion's name: the dimension's, or the rubric's.
fn criterion(name: &str) -> Msg {
    if name == RUBRIC {
        Msg::name("check-kind", "rubric")
    } else {
        Msg::name("dimension", name)
    }
}

/// The fixed section's note on rubric checks: the judge scored them, and
/// its figures are advisory until people's blind labels calibrate it.
/// Without an exploration appendix the calibration table follows here.
pub(super) fn rubric_note(md: &mut String, c: &JudgeCalibration, with_table: bool, lang: Lang) {
    let Some(k) = c.criteria.iter().find(|k| k.criterion == RUBRIC) else {
        return;
    };
    let tr = |m: Msg| m.render(lang);
    let _ = writeln!(md, "{}", tr(msg!("md-rubric")));
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-rubric-note",
            items = k.items,
            labelled = c.runs_labelled,
            unlabelled = c.runs_unlabelled,
            agreement = pct_in(k.agreement, lang),
            kappa = kappa_text((k.kappa, k.kappa_low, k.kappa_high), lang),
            status = k.status(&c.policy)
        ))
    );
    let _ = writeln!(md);
    if with_table {
        calibration_section(md, c, lang);
    }
}

pub(super) fn calibration_section(md: &mut String, c: &JudgeCalibration, lang: Lang) {
    let tr = |m: Msg| m.render(lang);
    let _ = writeln!(md, "{}", tr(msg!("md-calibration")));
    let _ = writeln!(md);
    let _ = writeln!(
        md,
        "{}",
        tr(msg!(
            "md-calibration-note",
            min_kappa = format!("{:.2}", c.policy.min_kappa),
            min_items = c.policy.min_items,
            labelled = c.labelled,
            unlabelled = c.unlabelled
        ))
    );
    let _ = writeln!(md);
    let _ = writeln!(md, "{}", tr(msg!("md-calibration-header")));
    let _ = writeln!(md, "|---|---|---|---|---|");
    for k in &c.criteria {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            tr(criterion(&k.criterion)),
            k.items,
            pct_in(k.agreement, lang),
            kappa_text((k.kappa, k.kappa_low, k.kappa_high), lang),
            tr(k.status(&c.policy)),
        );
    }
    let _ = writeln!(md);
    if let Some(consistency) = &c.consistency {
        let _ = writeln!(md, "{}", tr(msg!("md-consistency")));
        let _ = writeln!(md);
        let _ = writeln!(
            md,
            "{}",
            tr(msg!(
                "md-consistency-note",
                min = pct_in(Some(c.policy.min_self_agreement), lang)
            ))
        );
        let _ = writeln!(md);
        let _ = writeln!(md, "{}", tr(msg!("md-consistency-header")));
        let _ = writeln!(md, "|---|---|---|---|---|");
        for k in consistency {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                tr(criterion(&k.criterion)),
                k.items,
                pct_in(k.self_agreement, lang),
                fixed2(k.kappa, lang),
                tr(if k.contradicts {
                    msg!("md-contradicts")
                } else {
                    msg!("md-consistent")
                })
            );
        }
        let _ = writeln!(md);
    }
}
