//! `agenteval compare A B`: B against A (the baseline), each a campaign id
//! in the data folder or a JSON export; exits 1 on a regression outside
//! the noise, for scripts.

use crate::ci::{self, Side, exit};
use agenteval_engine::comparison::pass_at_k;
use agenteval_engine::export::pct;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn main(a: &str, b: &str, data_dir: Option<PathBuf>) -> ExitCode {
    let sides = crate::runtime()
        .map_err(|e| format!("{e:#}"))
        .and_then(|rt| {
            rt.block_on(async {
                let needs_data = [a, b]
                    .iter()
                    .any(|s| uuid::Uuid::parse_str(s.trim()).is_ok());
                let platform = if needs_data {
                    let dir = crate::data_dir_or_default(data_dir).map_err(|e| format!("{e:#}"))?;
                    Some(crate::open(&dir).await.map_err(|e| format!("{e:#}"))?)
                } else {
                    None
                };
                let load = |spec: &str| {
                    let platform = platform.clone();
                    let spec = spec.to_string();
                    async move {
                        match (&platform, uuid::Uuid::parse_str(spec.trim())) {
                            (Some(p), Ok(_)) => crate::run::load_side(p, &spec).await,
                            _ => ci::side_from_file(std::path::Path::new(&spec)),
                        }
                    }
                };
                Ok::<_, String>((load(a).await?, load(b).await?))
            })
        });
    let (base, current) = match sides {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let (cmp, notes) = ci::compare_sides(&base, &current);
    let regressions = ci::regressions(&base.fixed, &current.fixed);
    println!("Comparing B with A (the baseline); fixed scenarios only.");
    for (tag, side) in [("A", &base), ("B", &current)] {
        print_side(tag, side);
    }
    let Some(p) = cmp.periods.first() else {
        eprintln!("error: nothing to compare");
        return ExitCode::from(exit::USAGE);
    };
    println!("  change:   {}", p.verdict.render(crate::lang()));
    if let Some(f) = p.flip_rate {
        println!(
            "  flips:    {} of the common scenarios changed their majority verdict{}",
            pct(Some(f)),
            if p.flipped_scenarios.is_empty() {
                String::new()
            } else {
                format!(": {}", p.flipped_scenarios.join(", "))
            }
        );
    }
    if !regressions.is_empty() {
        println!(
            "  regressed (always passed in A, always fail in B): {}",
            regressions.join(", ")
        );
    }
    for w in &p.warnings {
        println!("  warning:  {}", w.render(crate::lang()));
    }
    for n in &notes {
        println!("  note:     {}", n.render(crate::lang()));
    }
    let mut found = Vec::new();
    if ci::dropped_beyond_noise(p) {
        found.push("the pass rate dropped beyond the noise".to_string());
    }
    if !regressions.is_empty() {
        found.push(format!(
            "{} always passed in A and always fail{} in B",
            regressions.join(", "),
            if regressions.len() == 1 { "s" } else { "" }
        ));
    }
    if found.is_empty() {
        println!("No regression outside the noise.");
        ExitCode::from(exit::PASSED)
    } else {
        println!("Regression outside the noise: {}.", found.join("; "));
        ExitCode::from(exit::FAILED)
    }
}

fn print_side(tag: &str, side: &Side) {
    let o = ci::outcomes(&side.fixed);
    println!("  {tag}: {} ({})", side.label, side.campaign.name);
    println!(
        "     pass rate {}",
        ci::rate_with_interval(&o, crate::lang())
    );
    let ks = pass_at_k(&o);
    if ks.len() > 1 {
        let ks: Vec<String> = ks
            .iter()
            .map(|p| format!("pass^{} = {}", p.k, pct(Some(p.value))))
            .collect();
        println!("     consistency: {}", ks.join(", "));
    }
    println!(
        "     models: {}{}",
        crate::run::models_line(&side.models),
        if side.models_complete {
            ""
        } else {
            " (user and judge not recorded)"
        }
    );
}
