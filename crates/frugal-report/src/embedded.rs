//! The experiment files and the checkpoints they run (`experiments/`), embedded in the
//! binary so an installed frugal reproduces from any folder: listed and shown as they are,
//! and written once to a folder of the system's temporary directory (named by the version
//! and a digest of the contents, so versions never mix) when they run.

use std::path::PathBuf;

use anyhow::{Context, Result};
use include_dir::{Dir, include_dir};

use crate::Experiment;

static EXPERIMENTS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../../experiments");

/// The shipped full run's results table (`docs/report/results.md`).
pub const SHIPPED_RESULTS: &str = include_str!("../../../docs/report/results.md");

/// The embedded experiment files, by id (file stem), in name order.
pub fn list() -> Vec<(String, Experiment)> {
    let mut out: Vec<(String, Experiment)> = EXPERIMENTS
        .files()
        .filter(|f| f.path().extension().is_some_and(|e| e == "toml"))
        .filter_map(|f| {
            let id = f.path().file_stem()?.to_string_lossy().into_owned();
            let e = Experiment::parse(f.contents_utf8()?).ok()?;
            Some((id, e))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The text of embedded experiment `id` (e.g. `p002-burst`).
pub fn show(id: &str) -> Option<&'static str> {
    EXPERIMENTS
        .get_file(format!("{id}.toml"))
        .and_then(|f| f.contents_utf8())
}

/// The folder holding the embedded experiments and checkpoints, written on first use.
///
/// # Errors
/// The temporary directory cannot be written.
pub fn folder() -> Result<PathBuf> {
    let mut files = Vec::new();
    collect(&EXPERIMENTS, &mut files);
    let mut digest = Vec::new();
    for (path, bytes) in &files {
        digest.extend_from_slice(path.as_bytes());
        digest.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        digest.extend_from_slice(bytes);
    }
    let hash = frugal_traces::sha256_hex(&digest);
    let dir = std::env::temp_dir().join(format!(
        "frugal-experiments-{}-{}",
        env!("CARGO_PKG_VERSION"),
        &hash[..16]
    ));
    if dir.join(".complete").exists() {
        return Ok(dir);
    }
    // Written to a private folder first and renamed, so a run never sees half of it.
    let partial = dir.with_extension(format!("partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&partial);
    EXPERIMENTS
        .extract(&partial)
        .with_context(|| format!("writing the embedded experiments to {}", partial.display()))?;
    std::fs::write(partial.join(".complete"), "")?;
    if std::fs::rename(&partial, &dir).is_err() {
        // Another process got there first.
        let _ = std::fs::remove_dir_all(&partial);
    }
    Ok(dir)
}

fn collect(dir: &Dir<'static>, out: &mut Vec<(String, &'static [u8])>) {
    for f in dir.files() {
        out.push((f.path().display().to_string(), f.contents()));
    }
    for d in dir.dirs() {
        collect(d, out);
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
}
