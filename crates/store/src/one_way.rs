//! The dependencies between the store's lower modules go one way (see the
//! store's table in `docs/ARCHITECTURE.md`): `sql.rs` uses `postgres.rs`,
//! never the other way, and `runs.rs` uses the writer, never the other
//! way.

/// `names` the module `module` of the crate (a `use`, a path or a link).
fn names(source: &str, module: &str) -> bool {
    [format!("crate::{module}"), format!("super::{module}")]
        .iter()
        .any(|path| {
            source.match_indices(path.as_str()).any(|(at, _)| {
                let next = source[at + path.len()..].chars().next();
                !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })
}

#[test]
fn postgres_names_nothing_of_sql() {
    assert!(names("use crate::sql::Arg;", "sql"));
    assert!(!names("use crate::sqlite::X;", "sql"));
    assert!(!names(include_str!("postgres.rs"), "sql"));
}

#[test]
fn the_writer_names_nothing_of_runs() {
    for (file, source) in [
        ("writer.rs", include_str!("writer.rs")),
        ("writer/claim.rs", include_str!("writer/claim.rs")),
        ("writer/postgres.rs", include_str!("writer/postgres.rs")),
        ("writer/tests.rs", include_str!("writer/tests.rs")),
    ] {
        assert!(!names(source, "runs"), "{file} names crate::runs");
    }
}
