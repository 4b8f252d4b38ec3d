//! The scenario packs shipped with the product (`scenarios/` in the source
//! tree), built into the binary: `agenteval demo`, `serve` and `run` and an
//! installed desktop app have them wherever they start.

use include_dir::{Dir, DirEntry, include_dir};

static SHIPPED: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../scenarios");

/// Every shipped YAML file: its path under the packs folder (`send_email/
/// send_email.yaml`, the first folder naming the pack) and its text.
pub fn shipped_files() -> Vec<(String, &'static str)> {
    fn walk(dir: &'static Dir<'static>, out: &mut Vec<(String, &'static str)>) {
        for entry in dir.entries() {
            match entry {
                DirEntry::Dir(d) => walk(d, out),
                DirEntry::File(f) => {
                    let path = f.path().to_string_lossy().replace('\\', "/");
                    if (path.ends_with(".yaml") || path.ends_with(".yml"))
                        && let Some(text) = f.contents_utf8()
                    {
                        out.push((path, text));
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&SHIPPED, &mut out);
    out.sort();
    out
}

/// The names of the shipped packs, sorted.
pub fn shipped_packs() -> Vec<String> {
    let mut packs: Vec<String> = shipped_files()
        .into_iter()
        .filter_map(|(path, _)| path.split_once('/').map(|(pack, _)| pack.to_string()))
        .collect();
    packs.dedup();
    packs
}

/// A folder of the shipped packs (`office_agent/workspaces/sales`), for a
/// scenario's workspace.
pub fn shipped_dir(path: &str) -> Option<&'static Dir<'static>> {
    SHIPPED.get_dir(path)
}
