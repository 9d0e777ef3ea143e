//! Workloads: the SWIM Facebook traces, SWF logs (Parallel Workloads Archive), the paper
//! 000 synthetic generator and a CSV job format for users' own workloads.

mod csv_jobs;
mod swf;
mod swim;
mod synthetic;

pub use csv_jobs::{CSV_HEADER, CsvJobs, read_jobs_csv, write_jobs_csv};
pub use swf::{SwfJobs, map_swf};
pub use swim::{
    EMBEDDED_FB2009, EMBEDDED_FB2009_NAME, SwimHour, SwimRecord, map_swim, parse_swim,
    replicate_days, select_hour,
};
pub use synthetic::{Load, SyntheticConfig, synthetic};

use frugal_core::job::Job;

/// How trace records become jobs' deadlines and cross-site slowdown ([`map_swim`],
/// [`map_swf`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceMapping {
    /// T_C^H = T_C^L · (1 + hybrid_penalty). Default 0.3 (paper 000 §6.1).
    pub hybrid_penalty: f64,
    /// Share of jobs given a deadline, [0, 1]. Default 0.5 (paper 004 §6.4 mixes
    /// deadline-constrained and regular jobs).
    pub deadline_share: f64,
    /// Relative deadline as a multiple of T_C^L. Default 2.
    pub deadline_factor: f64,
    /// Seed of the choice of deadline jobs.
    pub seed: u64,
}

impl Default for TraceMapping {
    fn default() -> Self {
        TraceMapping {
            hybrid_penalty: 0.3,
            deadline_share: 0.5,
            deadline_factor: 2.0,
            seed: 1,
        }
    }
}

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
