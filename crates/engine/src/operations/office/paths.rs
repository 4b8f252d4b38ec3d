//! A workspace's files: where they come from, the private copy a run gets,
//! and the paths an agent gives, checked to stay inside that copy.

use super::words::Failure;
use globset::{Glob, GlobMatcher};
use sha2::{Digest, Sha256};
use std::io;
use std::path::{Component, Path, PathBuf};

/// The largest file a tool reads (`FILE_TOO_LARGE` past it).
pub const MAX_FILE_BYTES: u64 = 50 * 1024 * 1024;

/// Where a workspace's files come from.
#[derive(Debug, Clone)]
pub enum WorkspaceSource {
    /// A folder on disk (a pack's `workspace:`).
    Dir(PathBuf),
    /// Files built into the binary (the demo's workspace).
    Embedded(&'static include_dir::Dir<'static>),
}

impl WorkspaceSource {
    /// SHA-256 (hex) over every file's relative path and bytes, in path
    /// order: changes when any file is added, removed, renamed or changed.
    pub fn content_hash(&self) -> io::Result<String> {
        let mut hash = Sha256::new();
        for (path, bytes) in self.files()? {
            hash.update((path.len() as u64).to_le_bytes());
            hash.update(path.as_bytes());
            hash.update((bytes.len() as u64).to_le_bytes());
            hash.update(&bytes);
        }
        Ok(hex::encode(hash.finalize()))
    }

    /// Every file as (relative `/`-separated path, bytes), sorted by path.
    /// Symbolic links in a folder are skipped: a copy holds plain files.
    fn files(&self) -> io::Result<Vec<(String, Vec<u8>)>> {
        let mut files = Vec::new();
        match self {
            Self::Dir(root) => {
                for rel in walk(root, root)? {
                    let bytes = std::fs::read(root.join(&rel))?;
                    files.push((rel, bytes));
                }
            }
            Self::Embedded(dir) => embedded_files(dir, dir.path(), &mut files),
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(files)
    }

    /// Writes every file under `root` (which exists).
    pub(crate) fn copy_into(&self, root: &Path) -> io::Result<()> {
        for (rel, bytes) in self.files()? {
            let to = root.join(&rel);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(to, bytes)?;
        }
        Ok(())
    }
}

/// The files under an embedded folder, their paths relative to `base` (an
/// embedded entry's path is relative to the whole embedded tree).
fn embedded_files(dir: &include_dir::Dir<'static>, base: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for file in dir.files() {
        let path = file.path();
        let rel = path.strip_prefix(base).unwrap_or(path);
        out.push((
            rel.to_string_lossy().replace('\\', "/"),
            file.contents().to_vec(),
        ));
    }
    for sub in dir.dirs() {
        embedded_files(sub, base, out);
    }
}

/// Relative `/`-separated paths of the plain files under `dir`,
/// recursively, sorted; symbolic links are not followed.
pub(crate) fn walk(root: &Path, dir: &Path) -> io::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                out.push(relative(root, &entry.path()));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// `path` relative to `root`, `/`-separated.
pub(crate) fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The agent's relative path checked and normalised: `/`-separated plain
/// names, no `..`, not absolute; `""` and `"."` are the root.
pub(crate) fn clean(given: &str) -> Result<String, Failure> {
    let refused = || Failure::InvalidPath(given.to_string());
    if given.contains('\\') || given.contains('\0') || given.starts_with('/') {
        return Err(refused());
    }
    let mut parts = Vec::new();
    for c in Path::new(given).components() {
        match c {
            Component::Normal(name) => parts.push(name.to_str().ok_or_else(refused)?.to_string()),
            Component::CurDir => {}
            _ => return Err(refused()),
        }
    }
    Ok(parts.join("/"))
}

/// The file or folder the agent names, inside `root`: refused when it is
/// absolute, climbs with `..`, or passes through a symbolic link.
pub(crate) fn resolve(root: &Path, given: &str) -> Result<(String, PathBuf), Failure> {
    let rel = clean(given)?;
    let mut path = root.to_path_buf();
    for part in rel.split('/').filter(|p| !p.is_empty()) {
        path.push(part);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(Failure::InvalidPath(given.to_string()));
        }
    }
    Ok((rel, path))
}

/// An existing file to read: `FILE_NOT_FOUND` when there is none (a folder
/// is none), `FILE_TOO_LARGE` past [`MAX_FILE_BYTES`].
pub(crate) fn existing_file(root: &Path, given: &str) -> Result<(String, PathBuf), Failure> {
    let (rel, path) = resolve(root, given)?;
    match std::fs::metadata(&path) {
        Ok(m) if m.is_file() => {
            if m.len() > MAX_FILE_BYTES {
                return Err(Failure::FileTooLarge {
                    path: rel,
                    limit_mb: MAX_FILE_BYTES / (1024 * 1024),
                });
            }
            Ok((rel, path))
        }
        _ => Err(Failure::FileNotFound(rel_or_given(&rel, given))),
    }
}

fn rel_or_given(rel: &str, given: &str) -> String {
    if rel.is_empty() {
        given.to_string()
    } else {
        rel.to_string()
    }
}

/// Writes a file of the workspace, making its folders.
pub(crate) fn write(root: &Path, rel: &str, bytes: &[u8]) -> Result<(), Failure> {
    let (_, path) = resolve(root, rel)?;
    let failed = |e: io::Error| Failure::WriteFailed {
        path: rel.to_string(),
        cause: e.to_string(),
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    std::fs::write(&path, bytes).map_err(failed)
}

/// A glob, `INVALID_ARGUMENTS` when it does not parse. `*` crosses `/`.
pub(crate) fn glob(pattern: &str) -> Result<GlobMatcher, Failure> {
    Glob::new(pattern)
        .map(|g| g.compile_matcher())
        .map_err(|e| {
            super::words::invalid(
                format!("pattern {pattern}: {e}"),
                format!("pattern {pattern} 不是合法的通配符：{e}"),
            )
        })
}

/// `FILE_LIST`: every file under `directory`, recursively, sorted,
/// relative to the root; with a pattern, those whose name (or, for a
/// pattern with `/`, whose relative path) matches it.
pub(crate) fn list(
    root: &Path,
    directory: &str,
    pattern: Option<&str>,
) -> Result<Vec<String>, Failure> {
    let (rel, dir) = resolve(root, directory)?;
    if !dir.is_dir() {
        return Err(Failure::DirectoryNotFound(rel_or_given(&rel, directory)));
    }
    let files = walk(root, &dir).map_err(|e| Failure::FileUnreadable {
        path: rel.clone(),
        cause: e.to_string(),
    })?;
    let Some(pattern) = pattern.filter(|p| !p.is_empty()) else {
        return Ok(files);
    };
    let matcher = glob(pattern)?;
    let on_path = pattern.contains('/');
    Ok(files
        .into_iter()
        .filter(|f| {
            let name = if on_path {
                f.as_str()
            } else {
                f.rsplit('/').next().unwrap_or(f)
            };
            matcher.is_match(name)
        })
        .collect())
}

/// The lower-case extension of a relative path (`""` when none).
pub(crate) fn extension(rel: &str) -> String {
    Path::new(rel)
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default()
}

/// `rel` with its extension replaced.
pub(crate) fn with_extension(rel: &str, ext: &str) -> String {
    let path = Path::new(rel).with_extension(ext);
    path.to_string_lossy().replace('\\', "/")
}

/// The link from a document at `from` to the file at `to`, both relative
/// to the root (`../charts/c1.svg` from `output/report.md`).
pub(crate) fn link(from: &str, to: &str) -> String {
    let depth = from.matches('/').count();
    format!("{}{to}", "../".repeat(depth))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_root() {
        assert_eq!(clean("data/sales.xlsx").unwrap(), "data/sales.xlsx");
        assert_eq!(clean("./data//x.csv").unwrap(), "data/x.csv");
        assert_eq!(clean("").unwrap(), "");
        assert_eq!(clean(".").unwrap(), "");
        for bad in ["../x", "a/../../x", "/etc/passwd", "a\\b", "data/.."] {
            assert_eq!(
                clean(bad).unwrap_err().code(),
                "INVALID_PATH",
                "{bad} leaves the root"
            );
        }
    }

    #[test]
    fn links_climb_out_of_the_document_folder() {
        assert_eq!(
            link("output/report.md", "charts/c1.svg"),
            "../charts/c1.svg"
        );
        assert_eq!(link("report.md", "charts/c1.svg"), "charts/c1.svg");
        assert_eq!(with_extension("output/a.md", "pdf"), "output/a.pdf");
    }
}
