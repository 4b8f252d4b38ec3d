//! Landed migrations are never edited, on either backend: each one's
//! SHA-256 is checked in (`tests/migrations.sha256` for `migrations/sqlite/`,
//! `tests/migrations_postgres.sha256` for `migrations/postgres/`, each the
//! output of `sha256sum *.sql` in its folder), and an edit, a removal or a
//! new file missing from the list fails here. A schema change is a new
//! migration, added to the list.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

/// A backend's migrations: its folder and its list of landed hashes.
struct Backend {
    folder: &'static str,
    list_file: &'static str,
    list: &'static str,
}

const SQLITE: Backend = Backend {
    folder: "sqlite",
    list_file: "migrations.sha256",
    list: include_str!("migrations.sha256"),
};

const POSTGRES: Backend = Backend {
    folder: "postgres",
    list_file: "migrations_postgres.sha256",
    list: include_str!("migrations_postgres.sha256"),
};

fn landed(backend: &Backend) -> BTreeMap<String, String> {
    backend
        .list
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (hash, name) = l
                .split_once("  ")
                .expect("`HASH  NAME` lines, as sha256sum writes them");
            (name.trim().to_string(), hash.to_string())
        })
        .collect()
}

fn on_disk(backend: &Backend) -> BTreeMap<String, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(backend.folder);
    std::fs::read_dir(&dir)
        .expect("the migrations folder")
        .map(|e| e.expect("a migrations entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "sql"))
        .map(|p| {
            let bytes = std::fs::read(&p).expect("a migration file");
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, hex::encode(Sha256::digest(bytes)))
        })
        .collect()
}

/// What is wrong with the migrations on disk against the landed list.
fn differences(
    backend: &Backend,
    landed: &BTreeMap<String, String>,
    disk: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (name, hash) in landed {
        match disk.get(name) {
            None => out.push(format!(
                "{name} landed and was removed: migrations are never removed"
            )),
            Some(h) if h != hash => out.push(format!(
                "{name} was edited after it landed: put the change in a new migration"
            )),
            Some(_) => {}
        }
    }
    for name in disk.keys().filter(|n| !landed.contains_key(*n)) {
        let (folder, list) = (backend.folder, backend.list_file);
        out.push(format!(
            "{name} is not in tests/{list}: add it \
             (`cd crates/store/migrations/{folder} && sha256sum *.sql > ../../tests/{list}`)"
        ));
    }
    out
}

#[test]
fn landed_sqlite_migrations_are_never_edited() {
    let found = differences(&SQLITE, &landed(&SQLITE), &on_disk(&SQLITE));
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn landed_postgres_migrations_are_never_edited() {
    let landed = landed(&POSTGRES);
    assert!(!landed.is_empty(), "the baseline is listed");
    let found = differences(&POSTGRES, &landed, &on_disk(&POSTGRES));
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn an_edit_a_removal_and_an_unlisted_file_are_each_named() {
    let landed = landed(&SQLITE);
    assert!(landed.len() >= 12, "every landed migration is listed");
    let mut disk = landed.clone();
    let first = landed.keys().next().unwrap().clone();
    disk.insert(first.clone(), "0".repeat(64));
    let last = landed.keys().last().unwrap().clone();
    disk.remove(&last);
    disk.insert("9999_new.sql".into(), "1".repeat(64));
    let found = differences(&SQLITE, &landed, &disk);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found[0].starts_with(&first) && found[0].contains("edited"));
    assert!(found[1].starts_with(&last) && found[1].contains("removed"));
    assert!(found[2].starts_with("9999_new.sql") && found[2].contains("not in"));

    let disk = BTreeMap::from([("0002_next.sql".to_string(), "2".repeat(64))]);
    let found = differences(&POSTGRES, &BTreeMap::new(), &disk);
    assert!(
        found[0].contains("tests/migrations_postgres.sha256")
            && found[0].contains("migrations/postgres"),
        "a PostgreSQL migration is listed in its own file: {found:?}"
    );
}
