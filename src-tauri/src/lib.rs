//! AgentEval Desktop: the Tauri shell over the engine.

/// Runs the desktop app.
pub fn run() {
    tauri::Builder::default()
        .run(tauri::generate_context!())
        .expect("error while running AgentEval Desktop");
}
