//! Rendering set-up on Linux machines without a GPU.
//!
//! WebKitGTK renders on the CPU when the machine has no GPU render node
//! (`/dev/dri/renderD*`): virtual machines, remote desktops, Xvfb. It still
//! asks EGL in the app's own process which render node and buffer formats
//! there are, and GTK probes GLX when it opens the display. On such a machine
//! both answers are "none", reached by loading Mesa's software driver and
//! LLVM: about 50 MB of the app process's memory and part of its start-up,
//! for nothing. So, before GTK starts, the app tells WebKit and GTK what it
//! already knows:
//!
//! - `WEBKIT_DISABLE_DMABUF_RENDERER=1`: pages reach the window through
//!   shared memory, which is what a CPU renderer produces anyway;
//! - `GDK_GL=disable`: GTK draws the window with cairo, without GLX;
//! - `WEBKIT_WEB_RENDER_DEVICE_FILE`: the render node WebKit would otherwise
//!   ask EGL for. There is none, so it is given a path that does not exist;
//!   with shared-memory buffers nothing opens it.
//!
//! A variable the user has set is never changed, and nothing is set on a
//! machine that has a render node. `main` sets them before any thread starts.

use std::path::Path;

/// The render-node path given to WebKit on a machine without one.
pub const NO_RENDER_NODE: &str = "/dev/dri/no-render-node";

/// What a machine without a render node gets, in the order it is set.
const SOFTWARE_RENDERING: [(&str, &str); 3] = [
    ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
    ("GDK_GL", "disable"),
    ("WEBKIT_WEB_RENDER_DEVICE_FILE", NO_RENDER_NODE),
];

/// The variables to add before GTK starts: none when the machine has a GPU
/// render node, otherwise those of [`SOFTWARE_RENDERING`] the user has not
/// set (`is_set` says which are).
pub fn software_rendering_env(
    has_render_node: bool,
    is_set: impl Fn(&str) -> bool,
) -> Vec<(&'static str, &'static str)> {
    if has_render_node {
        return Vec::new();
    }
    SOFTWARE_RENDERING
        .into_iter()
        .filter(|(name, _)| !is_set(name))
        .collect()
}

/// Whether `dri` (normally `/dev/dri`) holds a GPU render node.
pub fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri)
        .map(|entries| {
            entries.flatten().any(|entry| {
                entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| name.starts_with("renderD"))
            })
        })
        .unwrap_or(false)
}

/// The variables this process should add before GTK starts: on Linux, those
/// of [`software_rendering_env`] for this machine and environment; elsewhere
/// none.
pub fn variables_to_set() -> Vec<(&'static str, &'static str)> {
    if cfg!(target_os = "linux") {
        software_rendering_env(has_render_node(Path::new("/dev/dri")), |name| {
            std::env::var_os(name).is_some()
        })
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_machine_with_a_render_node_gets_nothing() {
        assert!(software_rendering_env(true, |_| false).is_empty());
    }

    #[test]
    fn a_machine_without_one_gets_every_variable_the_user_has_not_set() {
        let all = software_rendering_env(false, |_| false);
        assert_eq!(
            all,
            vec![
                ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
                ("GDK_GL", "disable"),
                ("WEBKIT_WEB_RENDER_DEVICE_FILE", NO_RENDER_NODE),
            ]
        );
        let some = software_rendering_env(false, |name| name == "GDK_GL");
        assert_eq!(
            some.iter().map(|(k, _)| *k).collect::<Vec<_>>(),
            [
                "WEBKIT_DISABLE_DMABUF_RENDERER",
                "WEBKIT_WEB_RENDER_DEVICE_FILE"
            ]
        );
        // A user who set them all gets nothing added.
        assert!(software_rendering_env(false, |_| true).is_empty());
    }

    #[test]
    fn render_nodes_are_found_by_name() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!has_render_node(&dir.path().join("missing")));
        assert!(!has_render_node(dir.path()));
        std::fs::write(dir.path().join("card0"), "").unwrap();
        assert!(!has_render_node(dir.path()), "a card without a render node");
        std::fs::write(dir.path().join("renderD128"), "").unwrap();
        assert!(has_render_node(dir.path()));
    }
}
