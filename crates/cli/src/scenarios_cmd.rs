//! `agenteval scenarios check DIR` and `agenteval scenarios from-skill MANIFEST`.
//! (Implementation in progress.)

use std::path::Path;

/// Validates the packs under `dir`, prints every error as `file:line: message`
/// and a summary. Returns whether everything was valid.
pub fn check(_dir: &Path) -> anyhow::Result<bool> {
    anyhow::bail!("scenarios check is not implemented yet")
}

/// Derives a scenario pack from a skill manifest; writes it to `out` (a
/// folder) or prints it.
pub fn from_skill(_manifest: &Path, _out: Option<&Path>) -> anyhow::Result<()> {
    anyhow::bail!("scenarios from-skill is not implemented yet")
}
