//! Scenario packs: scripted multi-turn conversations with checks, loaded
//! from YAML files under `scenarios/` (one pack per folder).
//!
//! The file format is documented in `scenarios/README.md`.

pub mod from_skill;
pub mod loader;
pub mod regression;
pub mod shipped;

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

pub use loader::{
    LoadError, LoadReport, PackSource, load_dir, load_dirs, load_sources, pack_sources,
    user_packs_dir,
};

pub use crate::domain::scenario::{
    CallOrder, Check, ExpectedCall, Lineage, Scenario, ScenarioSummary, ScenarioTurn,
};

/// The loaded scenarios, shared by every operation.
#[derive(Debug, Default)]
pub struct Catalog(RwLock<BTreeMap<String, Arc<Scenario>>>);

impl Catalog {
    pub fn get(&self, id: &str) -> Option<Arc<Scenario>> {
        self.0
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }

    pub fn all(&self) -> Vec<Arc<Scenario>> {
        self.0
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect()
    }

    /// Adds scenarios, replacing any with the same id.
    pub fn insert_all(&self, scenarios: impl IntoIterator<Item = Scenario>) {
        let mut map = self.0.write().unwrap_or_else(|p| p.into_inner());
        for s in scenarios {
            map.insert(s.id.clone(), Arc::new(s));
        }
    }

    pub fn len(&self) -> usize {
        self.0.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where a scenario's workspace files are: the folder on disk, or the
/// shipped packs' folder built into the binary; `None` without a workspace
/// or when the folder is gone.
pub fn workspace_source(scenario: &Scenario) -> Option<crate::office::WorkspaceSource> {
    let location = &scenario.workspace.as_ref()?.location;
    if scenario.shipped {
        shipped::shipped_dir(location).map(crate::office::WorkspaceSource::Embedded)
    } else {
        let dir = std::path::PathBuf::from(location);
        dir.is_dir()
            .then_some(crate::office::WorkspaceSource::Dir(dir))
    }
}

/// The language a scenario's user speaks: Chinese when its first user
/// message has a Chinese character, else English. The office tools answer
/// in it.
pub fn scenario_lang(scenario: &Scenario) -> crate::i18n::Lang {
    lang_of_text(scenario.turns.first().map_or("", |t| t.user.as_str()))
}

/// Chinese when the text has a Chinese character, else English.
pub fn lang_of_text(text: &str) -> crate::i18n::Lang {
    if text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) {
        crate::i18n::Lang::Zh
    } else {
        crate::i18n::Lang::En
    }
}
