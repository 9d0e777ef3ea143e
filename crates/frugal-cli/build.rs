//! Records the git commit the binary is built from (`FRUGAL_GIT_COMMIT`, with `-dirty`
//! when tracked files differ from it), for the provenance of result files. Outside a
//! checkout (a source archive) nothing is recorded.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dot_git = root.join(".git");
    if !dot_git.exists() {
        return;
    }
    for p in ["HEAD", "index", "refs"] {
        println!("cargo:rerun-if-changed={}", dot_git.join(p).display());
    }
    println!("cargo:rerun-if-changed={}", root.join("crates").display());
    if let Some(commit) = git(&["rev-parse", "HEAD"]) {
        let dirty =
            git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
        let suffix = if dirty { "-dirty" } else { "" };
        println!("cargo:rustc-env=FRUGAL_GIT_COMMIT={commit}{suffix}");
    }
}
