// The message catalogue (`locales/`) is compiled in: a changed, added or
// removed file rebuilds the crate.
fn main() {
    println!("cargo:rerun-if-changed=locales");
}
