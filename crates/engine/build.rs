//! The shipped scenario packs are built into the engine
//! (`src/operations/scenario/shipped.rs`): rebuild it when any of them changes.

fn main() {
    println!("cargo:rerun-if-changed=../../scenarios");
}
