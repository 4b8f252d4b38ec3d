//! Where a build comes from, shown by `agenteval --version`, the desktop
//! app's About and the server's health answer. A crate of its own so that
//! a new commit rebuilds these few lines, not the engine.

/// The release version (the workspace's).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The git revision of the source (12 hex digits), or `unknown` outside a
/// git checkout.
pub const REVISION: &str = env!("AGENTEVAL_REVISION");
/// The day it was built (UTC), `YYYY-MM-DD`.
pub const BUILT: &str = env!("AGENTEVAL_BUILT");
/// `0.1.0 (revision 0123456789ab, built 2026-12-02)`.
pub const DESCRIPTION: &str = env!("AGENTEVAL_BUILD_INFO");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_description_names_version_revision_and_day() {
        assert_eq!(
            DESCRIPTION,
            format!("{VERSION} (revision {REVISION}, built {BUILT})")
        );
        assert!(
            REVISION == "unknown"
                || (REVISION.len() == 12 && REVISION.bytes().all(|b| b.is_ascii_hexdigit()))
        );
        assert!(chrono_like_day(BUILT), "{BUILT}");
    }

    fn chrono_like_day(s: &str) -> bool {
        let b = s.as_bytes();
        b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && s.replace('-', "").bytes().all(|c| c.is_ascii_digit())
    }
}
