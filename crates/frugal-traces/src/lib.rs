//! frugal-traces: readers of the public workload traces that more than one frugal system
//! replays, with errors that name the file, line and field.
//!
//! - [`swf`]: the Standard Workload Format of the Parallel Workloads Archive (Feitelson
//!   et al.), the format of HPC and bag-of-tasks logs (NASA iPSC, KTH SP2, …), plain or
//!   gzip-compressed.
//! - [`alibaba`]: the node and task lists of the Alibaba GPU cluster trace of 2023.

#![warn(missing_docs)]

pub mod alibaba;
pub mod swf;

/// Invalid trace input: names the file, the line (1-based) and the field.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{file}:{line}: field `{field}`: {message}")]
pub struct TraceError {
    /// File name.
    pub file: String,
    /// 1-based line number (0 when the file as a whole is at fault).
    pub line: u64,
    /// Field name.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl TraceError {
    pub(crate) fn new(file: &str, line: u64, field: &str, message: impl Into<String>) -> Self {
        TraceError {
            file: file.to_string(),
            line,
            field: field.to_string(),
            message: message.into(),
        }
    }
}

/// SHA-256 of `bytes`, lower-case hex: the digest of an input file in provenance records.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
