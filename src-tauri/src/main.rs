// Prevents an additional console window on Windows in release.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    for (name, value) in agenteval_desktop::rendering::variables_to_set() {
        // SAFETY: this is the first thing `main` does, before any thread
        // exists, so nothing can read the environment while it changes.
        #[allow(unsafe_code)]
        unsafe {
            std::env::set_var(name, value)
        };
    }
    agenteval_desktop::run();
}
