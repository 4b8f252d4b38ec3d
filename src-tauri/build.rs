include!("src/command_names.rs");

fn main() {
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
