//! Records the git commit the binary is built from (`FRUGAL_GIT_COMMIT`, with `-dirty`
//! when tracked files differ from it), for the provenance of result files, and the line
//! `frugal --version` prints (`FRUGAL_VERSION`). Outside a checkout (a source archive) no
//! commit is recorded.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    match commit() {
        Some(c) => {
            println!("cargo:rustc-env=FRUGAL_GIT_COMMIT={c}");
            println!("cargo:rustc-env=FRUGAL_VERSION={version} (commit {c})");
        }
        None => println!("cargo:rustc-env=FRUGAL_VERSION={version}"),
    }
}

/// The checkout's commit, with `-dirty` for uncommitted changes to tracked files.
fn commit() -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dot_git = root.join(".git");
    if !dot_git.exists() {
        return None;
    }
    for p in ["HEAD", "index", "refs"] {
        println!("cargo:rerun-if-changed={}", dot_git.join(p).display());
    }
    println!("cargo:rerun-if-changed={}", root.join("crates").display());
    let commit = git(&["rev-parse", "HEAD"])?;
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(format!("{commit}{}", if dirty { "-dirty" } else { "" }))
}
