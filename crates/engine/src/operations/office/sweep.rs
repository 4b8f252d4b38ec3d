//! What a crashed process left behind: a run's copy of a workspace is
//! removed when the run ends, but a process killed mid-run cannot remove
//! it. Each copy's folder name carries the id of the process that made it,
//! and the next start removes the copies of processes that are gone.

use std::path::Path;

/// The start of every copy's folder name.
pub(super) const PREFIX: &str = "agenteval-workspace-";

/// The prefix of this process's copies: `agenteval-workspace-<pid>-`.
pub(super) fn own_prefix() -> String {
    format!("{PREFIX}{}-", std::process::id())
}

/// Whether process `pid` is running, where the system says (`/proc`);
/// elsewhere every process counts as running, and nothing is removed.
fn running(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

/// Removes, under `folder`, the workspace copies of processes no longer
/// running; how many were removed.
pub fn sweep_left_behind(folder: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)) else {
            continue;
        };
        let Some(pid) = rest.split('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id()
            && !running(pid)
            && std::fs::remove_dir_all(entry.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_copies_of_processes_that_are_gone_are_removed() {
        let tmp = tempfile::tempdir().unwrap();
        // No process has this id: Linux's largest is 4,194,304.
        let gone = tmp.path().join(format!("{PREFIX}4294967294-abc"));
        let mine = tmp.path().join(format!("{}xyz", own_prefix()));
        let other = tmp.path().join("agenteval-workspaces-notes");
        for d in [&gone, &mine, &other] {
            std::fs::create_dir_all(d.join("output")).unwrap();
            std::fs::write(d.join("output/a.md"), "# a").unwrap();
        }
        let expected = usize::from(Path::new("/proc").is_dir());
        assert_eq!(sweep_left_behind(tmp.path()), expected);
        assert_eq!(gone.exists(), expected == 0);
        assert!(mine.exists(), "a copy of a running process stays");
        assert!(other.exists(), "another name is not ours");
    }
}
