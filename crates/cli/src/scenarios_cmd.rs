//! `agenteval scenarios list`, `agenteval scenarios check DIR` and
//! `agenteval scenarios from-skill MANIFEST`.

use agenteval_engine::scenario::{PackSource, from_skill, load_dir, load_sources};
use anyhow::Context;
use std::collections::BTreeMap;
use std::path::Path;

/// Validates the packs under `dir`, prints every error as `file:line: message`
/// and a summary. Imports nothing. Returns whether everything was valid.
pub fn check(dir: &Path) -> anyhow::Result<bool> {
    if !dir.is_dir() {
        anyhow::bail!("{} is not a folder of scenario packs", dir.display());
    }
    let report = load_dir(dir);
    for e in &report.errors {
        println!("{e}");
    }
    let mut per_pack: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &report.scenarios {
        *per_pack.entry(s.pack.as_str()).or_default() += 1;
    }
    let packs: Vec<String> = per_pack.iter().map(|(p, n)| format!("{p} ({n})")).collect();
    let bad_files: std::collections::BTreeSet<&str> =
        report.errors.iter().map(|e| e.file.as_str()).collect();
    println!(
        "{} file(s), {} valid scenario(s){}; {} error(s) in {} file(s)",
        report.files,
        report.scenarios.len(),
        if packs.is_empty() {
            String::new()
        } else {
            format!(" in {}", packs.join(", "))
        },
        report.errors.len(),
        bad_files.len()
    );
    if report.files == 0 {
        println!("no .yaml or .yml files found under {}", dir.display());
        return Ok(false);
    }
    Ok(report.errors.is_empty())
}

/// Prints the packs the sources give, the user's own (from folders) apart
/// from the shipped ones, with their scenario counts, then any loading
/// error. Returns whether everything loaded.
pub fn list(sources: &[PackSource]) -> bool {
    let report = load_sources(sources);
    let mut packs: BTreeMap<(bool, &str), usize> = BTreeMap::new();
    for s in &report.scenarios {
        *packs.entry((s.shipped, s.pack.as_str())).or_default() += 1;
    }
    for (shipped, heading) in [(false, "your packs"), (true, "shipped packs")] {
        let rows: Vec<String> = packs
            .iter()
            .filter(|((s, _), _)| *s == shipped)
            .map(|((_, p), n)| format!("  {p:<24} {n} scenario(s)"))
            .collect();
        println!("{heading}:");
        if rows.is_empty() {
            println!("  (none)");
        }
        for r in rows {
            println!("{r}");
        }
    }
    for e in &report.errors {
        println!("error: {e}");
    }
    report.errors.is_empty()
}

/// Derives a scenario pack from a skill manifest; writes it to
/// `<out>/<pack>.yaml` (creating the folder) or prints it.
pub fn from_skill(manifest: &Path, out: Option<&Path>) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("cannot read {}", manifest.display()))?;
    let pack = from_skill::derive_pack_from_text(&text)
        .map_err(|e| anyhow::anyhow!("{}\n{}", e.body.message, e.body.suggestion))?;
    match out {
        None => print!("{}", pack.yaml),
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let path = dir.join(format!("{}.yaml", pack.pack));
            std::fs::write(&path, &pack.yaml)
                .with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// Writes a drafted regression scenario into `<packs>/<pack>/<file>`.
pub fn write_draft(
    draft: &agenteval_engine::scenario::regression::RegressionDraft,
    packs: &Path,
) -> anyhow::Result<()> {
    let dir = packs.join(&draft.pack);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(&draft.file_name);
    std::fs::write(&path, &draft.yaml)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let lang = crate::lang();
    println!(
        "{}",
        agenteval_engine::msg!(
            "cli-regression-written",
            id = draft.scenario_id.as_str(),
            path = path.display().to_string(),
            finding = draft.lineage.finding.as_str()
        )
        .render(lang)
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_accepts_the_shipped_packs_and_refuses_a_broken_one() {
        let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        assert!(check(&shipped).expect("runs"), "shipped packs are valid");
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(dir.path().join("p")).expect("mkdir");
        std::fs::write(dir.path().join("p/bad.yaml"), "scenarios: [").expect("write");
        assert!(
            !check(dir.path()).expect("runs"),
            "a syntax error fails the check"
        );
    }

    #[test]
    fn from_skill_writes_a_pack_that_passes_check() {
        let manifest =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/send_email.skill.json");
        let dir = tempfile::tempdir().expect("tmp");
        let packs = dir.path().join("packs");
        from_skill(&manifest, Some(&packs.join("send_email"))).expect("derive");
        assert!(packs.join("send_email/send_email.yaml").is_file());
        assert!(
            check(&packs).expect("runs"),
            "a generated pack must pass check"
        );
    }
}
