include!("src/command_names.rs");

/// The permission set that grants every command of the app, written from
/// the one list of them (src/command_names.rs) for capabilities/main.json
/// to name.
fn write_command_set() {
    let permissions: Vec<String> = COMMANDS
        .iter()
        .map(|name| format!("  \"allow-{}\",\n", name.replace('_', "-")))
        .collect();
    let text = format!(
        "# Written by build.rs from src/command_names.rs: do not edit.\n\n\
         [[set]]\n\
         identifier = \"app-commands\"\n\
         description = \"Every command of the app, each by name (src/command_names.rs).\"\n\
         permissions = [\n{}]\n",
        permissions.concat()
    );
    let path = std::path::Path::new("permissions/app-commands.toml");
    if std::fs::read_to_string(path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(path, text).expect("permissions/app-commands.toml");
    }
}

fn main() {
    write_command_set();
    // src-tauri/tauri.conf.json is a link to the real file at the root, so
    // that plain cargo and the Tauri CLI read the same config. With an app
    // manifest every command needs a permission: a window may call only
    // what its capability file (capabilities/) grants it.
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri build step");
}
