//! The desktop app's build step. Its commands are the functions of
//! src/commands.rs under `#[tauri::command]`, declared there alone: this
//! finds them, makes each the permission `allow-<name>`, writes the set
//! `app-commands` that capabilities/main.json grants, and writes the list
//! that lib.rs registers (`with_commands!`, `COMMANDS`).

use std::path::Path;

/// Each function under `#[tauri::command]` in `text`, in file order.
fn commands_in(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[tauri::command]" {
            continue;
        }
        let name = lines
            .by_ref()
            .find_map(|l| {
                let rest = l.trim().strip_prefix("pub ")?;
                let rest = rest.strip_prefix("async ").unwrap_or(rest);
                let rest = rest.strip_prefix("fn ")?;
                rest.split(['(', '<']).next().map(str::to_string)
            })
            .expect("a public function after #[tauri::command]");
        names.push(name);
    }
    names
}

/// Writes `text` to `path` unless it holds it already (a write would make
/// the build run again).
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// The permission set that grants every command of the app.
fn command_set(names: &[String]) -> String {
    let permissions: String = names
        .iter()
        .map(|name| format!("  \"allow-{}\",\n", name.replace('_', "-")))
        .collect();
    format!(
        "# Written by build.rs from the commands of src/commands.rs: do not edit.\n\n\
         [[set]]\n\
         identifier = \"app-commands\"\n\
         description = \"Every command of the app, each by name (src/commands.rs).\"\n\
         permissions = [\n{permissions}]\n"
    )
}

/// The list lib.rs registers: `with_commands!(m)` hands it to the macro `m`.
fn command_list(names: &[String]) -> String {
    let idents: String = names.iter().map(|n| format!("{n}, ")).collect();
    let strings: String = names.iter().map(|n| format!("{n:?}, ")).collect();
    format!(
        "// Written by build.rs: the commands of src/commands.rs.\n\
         macro_rules! with_commands {{ ($then:ident) => {{ $then! {{ {idents} }} }}; }}\n\
         #[allow(dead_code)]\n\
         pub const COMMANDS: &[&str] = &[{strings}];\n"
    )
}

fn main() {
    println!("cargo:rerun-if-changed=src/commands.rs");
    let source = std::fs::read_to_string("src/commands.rs").expect("src/commands.rs");
    let names = commands_in(&source);
    write_if_changed(
        Path::new("permissions/app-commands.toml"),
        &command_set(&names),
    );
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    write_if_changed(&Path::new(&out).join("commands.rs"), &command_list(&names));
    let names: Vec<&'static str> = names
        .into_iter()
        .map(|n| &*Box::leak(n.into_boxed_str()))
        .collect();
    // src-tauri/tauri.conf.json is a link to the real file at the root, so
    // that plain cargo and the Tauri CLI read the same config. With an app
    // manifest every command needs a permission: a window may call only
    // what its capability file (capabilities/) grants it.
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(Vec::leak(names))),
    )
    .expect("tauri build step");
}
