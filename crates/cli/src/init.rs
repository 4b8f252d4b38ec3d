//! `agenteval init`: a commented starter `agenteval.yaml` and a starter
//! scenario pack, ready to run against `agenteval demo-target` and to edit
//! for the user's own agent.

use crate::ci::exit;
use std::path::Path;
use std::process::ExitCode;

/// The starter config.
pub const STARTER_CONFIG: &str = include_str!("ci/starter/agenteval.yaml");
/// The starter scenario pack.
pub const STARTER_PACK: &str = include_str!("ci/starter/starter.yaml");
/// Where the starter pack goes, relative to the folder.
pub const STARTER_PACK_PATH: &str = "scenarios/starter/starter.yaml";

pub fn main(dir: &Path, force: bool) -> ExitCode {
    let files = [
        (dir.join(crate::ci::config::CONFIG_FILE), STARTER_CONFIG),
        (dir.join(STARTER_PACK_PATH), STARTER_PACK),
    ];
    if !force {
        let existing: Vec<String> = files
            .iter()
            .filter(|(p, _)| p.exists())
            .map(|(p, _)| p.display().to_string())
            .collect();
        if !existing.is_empty() {
            eprintln!(
                "error: {} already exist{}; nothing was written. Pass --force to overwrite.",
                existing.join(" and "),
                if existing.len() == 1 { "s" } else { "" }
            );
            return ExitCode::from(exit::USAGE);
        }
    }
    for (path, text) in &files {
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(path, text));
        if let Err(e) = written {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(exit::USAGE);
        }
        println!("wrote {}", path.display());
    }
    println!();
    println!("Next:");
    println!(
        "  agenteval demo-target &   # a stand-in agent on 127.0.0.1:8788; or point `target:` at yours"
    );
    println!("  agenteval run             # exit 0: the gate passed; 1: it failed");
    ExitCode::SUCCESS
}
