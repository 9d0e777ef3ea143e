//! frugal-ephemeral: MapReduce jobs on ephemeral capacity — paper 001 (Salamander, a
//! heterogeneity- and volatility-aware holistic scheduler for Hadoop on the unused part of
//! hosts that run a primary workload), against its predecessor Cuckoo.
//!
//! Entry points: [`Hosts`] and [`Utilisation`] (the 42 hosts and their primary workload),
//! [`forecast`] (the `Forecaster` trait, Eq. 1, coverage and pinball loss; the linear
//! quantile regression of [`quantreg`]), [`plan`] and [`rffd`] (the holistic
//! plan of Eq. 2–6 and Alg. 1), [`planner`] (Alg. 1, the proven optimum of [`exact`],
//! NSGA-III in [`ga`] and tabu + late acceptance in [`ls`], behind one call), [`joint`]
//! (the joint optimum of several jobs as a MILP: microlp, or HiGHS with `highs`), [`runtime`]
//! (the simulator: network, CPU sharing, the QoS controllers of Alg. 3 and Cuckoo),
//! [`experiment::run`] (one configuration → one tidy row) and [`solvers::compare`]
//! (Fig. 4).
//!
//! Units: CPU in GFLOP/s and FLOP, RAM in GiB, data in bytes (MiB = 2²⁰ bytes), network in
//! Mbit/s (10⁶ bits), times in seconds from the start of trace day 1. The simulator is a
//! fluid model (task and transfer rates change between events), unlike `frugal-sim`'s
//! discrete placements, so it keeps its own small event loop.

#![warn(missing_docs)]

pub mod cuckoo;
pub mod exact;
pub mod experiment;
pub mod forecast;
pub mod ga;
pub mod hosts;
pub mod job;
pub mod joint;
pub mod ls;
pub mod network;
pub mod options;
pub mod plan;
pub mod planner;
pub mod quantreg;
pub mod rffd;
pub mod runtime;
pub mod search;
pub mod solvers;
pub mod summary;
pub mod trace;

pub use experiment::{EphemeralRow, RunSpec, Strategy};
pub use forecast::{Forecaster, ForecasterKind};
pub use hosts::{DataCentre, Host, Hosts};
pub use job::{Job, JobSpec, TaskKind};
pub use trace::{Metric, PrimaryWorkload, Utilisation};

/// A data file that cannot be used: the file, the line (0 when the problem is not one
/// line's) and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{file}{}: {message}", if *line > 0 { format!(", line {line}") } else { String::new() })]
pub struct DataError {
    /// The file (or archive member).
    pub file: String,
    /// 1-based line, or 0.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl DataError {
    /// An error about `file` at `line`.
    pub fn new(file: &str, line: usize, message: String) -> DataError {
        DataError {
            file: file.to_string(),
            line,
            message,
        }
    }
}
