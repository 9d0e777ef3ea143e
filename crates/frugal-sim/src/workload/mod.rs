//! Workloads: the SWIM Facebook traces, the paper 000 synthetic generator and a CSV job
//! format for users' own workloads.

mod csv_jobs;
mod swim;
mod synthetic;

pub use csv_jobs::{CSV_HEADER, CsvJobs, read_jobs_csv, write_jobs_csv};
pub use swim::{
    EMBEDDED_FB2009, EMBEDDED_FB2009_NAME, SwimHour, SwimMapping, SwimRecord, map_swim, parse_swim,
    replicate_days, select_hour,
};
pub use synthetic::{Load, SyntheticConfig, synthetic};

use frugal_core::job::Job;

/// A named list of jobs, sorted by arrival.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// Short label for tables, e.g. `FB-2009 hour 0 (first 50 jobs)`.
    pub name: String,
    /// Jobs, by arrival.
    pub jobs: Vec<Job>,
}

/// Invalid workload input: names the file, the line (1-based) and the field.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("{file}:{line}: field `{field}`: {message}")]
pub struct WorkloadError {
    /// File name.
    pub file: String,
    /// 1-based line number (0 when the file as a whole is at fault).
    pub line: u64,
    /// Column name.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl WorkloadError {
    pub(crate) fn new(file: &str, line: u64, field: &str, message: impl Into<String>) -> Self {
        WorkloadError {
            file: file.to_string(),
            line,
            field: field.to_string(),
            message: message.into(),
        }
    }
}
