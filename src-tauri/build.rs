fn main() {
    // src-tauri/tauri.conf.json is a link to the real file at the root, so
    // that plain cargo and the Tauri CLI read the same config.
    tauri_build::build();
}
