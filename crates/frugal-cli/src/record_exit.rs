//! `frugal record-exit FILE -- PROGRAM ARGS…`: runs a program (no shell: its arguments
//! are passed as they are) and writes its exit status to FILE atomically (through
//! FILE.tmp), so the status outlives the service that started it.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result};
use clap::Args;

/// Options of `frugal record-exit`.
#[derive(Args, Debug)]
pub struct RecordExitArgs {
    /// Where to write the exit status (a number; 128 + n for death by signal n).
    pub file: PathBuf,
    /// The program and its arguments.
    #[arg(last = true, required = true)]
    pub command: Vec<std::ffi::OsString>,
}

/// Runs the program, records its status and exits with it.
pub fn run(a: &RecordExitArgs) -> Result<()> {
    use std::os::unix::process::ExitStatusExt;
    let status = Command::new(&a.command[0])
        .args(&a.command[1..])
        .status()
        .with_context(|| format!("starting {:?}", a.command[0]))?;
    let code = status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    let tmp = a.file.with_extension("tmp");
    std::fs::write(&tmp, format!("{code}\n"))
        .and_then(|_| std::fs::rename(&tmp, &a.file))
        .with_context(|| format!("recording the exit status in {}", a.file.display()))?;
    std::process::exit(code);
}
