//! Landed migrations are never edited: each one's SHA-256 is checked in
//! (`tests/migrations.sha256`, the output of `sha256sum *.sql` in
//! `migrations/sqlite/`), and an edit, a removal or a new file missing from the
//! list fails here. A schema change is a new migration, added to the list.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

fn landed() -> BTreeMap<String, String> {
    let list = include_str!("migrations.sha256");
    list.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (hash, name) = l
                .split_once("  ")
                .expect("`HASH  NAME` lines, as sha256sum writes them");
            (name.trim().to_string(), hash.to_string())
        })
        .collect()
}

fn on_disk() -> BTreeMap<String, String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/sqlite");
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
fn differences(landed: &BTreeMap<String, String>, disk: &BTreeMap<String, String>) -> Vec<String> {
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
        out.push(format!(
            "{name} is not in tests/migrations.sha256: add it \
             (`cd crates/store/migrations/sqlite && sha256sum *.sql > ../../tests/migrations.sha256`)"
        ));
    }
    out
}

#[test]
fn landed_migrations_are_never_edited() {
    let found = differences(&landed(), &on_disk());
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn an_edit_a_removal_and_an_unlisted_file_are_each_named() {
    let landed = landed();
    assert!(landed.len() >= 12, "every landed migration is listed");
    let mut disk = landed.clone();
    let first = landed.keys().next().unwrap().clone();
    disk.insert(first.clone(), "0".repeat(64));
    let last = landed.keys().last().unwrap().clone();
    disk.remove(&last);
    disk.insert("9999_new.sql".into(), "1".repeat(64));
    let found = differences(&landed, &disk);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(found[0].starts_with(&first) && found[0].contains("edited"));
    assert!(found[1].starts_with(&last) && found[1].contains("removed"));
    assert!(found[2].starts_with("9999_new.sql") && found[2].contains("not in"));
}
