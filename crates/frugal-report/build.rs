//! The experiment files and checkpoints are embedded (`src/embedded.rs`): rebuild when they
//! change.

fn main() {
    println!("cargo:rerun-if-changed=../../experiments");
}
