//! Loads and validates scenario packs. (Implementation in progress.)

use super::Scenario;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One problem in one file, with its 1-based line.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type, utoipa::ToSchema)]
pub struct LoadError {
    pub file: String,
    pub line: u32,
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// What a load found: valid scenarios, and errors. A file with any error
/// contributes no scenario.
#[derive(Debug, Default, Clone, Serialize, specta::Type)]
pub struct LoadReport {
    pub scenarios: Vec<Scenario>,
    pub errors: Vec<LoadError>,
    pub files: u32,
}

/// Loads every pack under `root` (each sub-folder is a pack).
pub fn load_dir(root: &Path) -> LoadReport {
    load_dirs(&[root.to_path_buf()])
}

pub fn load_dirs(_roots: &[PathBuf]) -> LoadReport {
    LoadReport::default()
}
